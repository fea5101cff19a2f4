// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The system OpenSSL 3 (Linux: libssl-dev), for the WebSocketTLS module and its tests only.
//
// Swift imports OpenSSL's functions but not its function-like macros, nor constants built with
// them (SSL_OP_BIT): each one used is wrapped here, under the macro's name with a `shim_` prefix,
// so that a reader can look the macro up in OpenSSL's documentation.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/tls1.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// MARK: SSL_CTX settings

static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

static inline long shim_SSL_CTX_set_max_cert_list(SSL_CTX *ctx, long bytes) {
    return SSL_CTX_set_max_cert_list(ctx, bytes);
}

static inline long shim_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

static inline int shim_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(ctx, certificate);
}

/// Server name indication: `callback` chooses a context for the client's name, given `argument`.
static inline long shim_SSL_CTX_set_tlsext_servername_callback(SSL_CTX *ctx, int (*callback)(SSL *, int *, void *)) {
    return SSL_CTX_set_tlsext_servername_callback(ctx, callback);
}

static inline long shim_SSL_CTX_set_tlsext_servername_arg(SSL_CTX *ctx, void *argument) {
    return SSL_CTX_set_tlsext_servername_arg(ctx, argument);
}

static inline int shim_SSL_TLSEXT_ERR_OK(void) { return SSL_TLSEXT_ERR_OK; }
static inline int shim_SSL_TLSEXT_ERR_ALERT_FATAL(void) { return SSL_TLSEXT_ERR_ALERT_FATAL; }

static inline uint64_t shim_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t shim_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t shim_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t shim_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }

// MARK: SSL

static inline int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// MARK: Memory BIOs

static inline int shim_BIO_set_mem_eof_return(BIO *bio, int value) {
    return (int)BIO_set_mem_eof_return(bio, value);
}

static inline int shim_BIO_reset(BIO *bio) { return (int)BIO_reset(bio); }

/// The readable bytes of a memory BIO, in place: their count, and their start in `*data`.
static inline long shim_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

// MARK: Errors

static inline int shim_ERR_GET_LIB(unsigned long code) { return ERR_GET_LIB(code); }
static inline int shim_ERR_GET_REASON(unsigned long code) { return ERR_GET_REASON(code); }

// MARK: Certificate stacks

static inline int shim_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *shim_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// RFC 2253 formatting for X509_NAME_print_ex (XN_FLAG_RFC2253 is built from other macros).
static inline unsigned long shim_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

// MARK: Test support (key generation; EVP_EC_gen is a variadic macro)

static inline EVP_PKEY *shim_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }

#endif
