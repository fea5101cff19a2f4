// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The system OpenSSL, for the harness's certificates (Sources/FuzzSupport/TLSFuzzPKI.swift): the TLS
// targets make their CA, server and client certificates at start-up, so no key is checked in. (The
// library's own OpenSSL module is not a product of the root package.)
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// EVP_EC_gen is a variadic macro, which Swift does not import.
static inline EVP_PKEY *fuzz_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
