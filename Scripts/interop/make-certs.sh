#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Makes a throw-away PKI for the interop checks in DIR: a CA (ca.pem), a leaf for localhost, 127.0.0.1
# and ::1 signed by it (server.pem, server.key), a client certificate (client.pem, client.key), and a
# second CA with a localhost leaf (other.pem, other.key) that the first CA does not vouch for, and a
# leaf for sni.interop.test only (sni.pem, sni.key), served beside the first by server name. Keys are
# made here, at test time, and never leave DIR.
set -euo pipefail
DIR="$1"
mkdir -p "$DIR"
cd "$DIR"
ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() {  # name subject
  ec "$1.key"
  openssl req -x509 -new -key "$1.key" -sha256 -days 2 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$1.pem"
}

leaf() {  # name subject issuer san usage
  ec "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$4" "$5" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 2 -sha256 \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca "interop test CA"
leaf server localhost ca "DNS:localhost,IP:127.0.0.1,IP:::1" serverAuth
leaf sni sni.interop.test ca "DNS:sni.interop.test" serverAuth
leaf client interop-client ca "DNS:interop-client" clientAuth
ca otherca "another interop CA"
leaf other localhost otherca "DNS:localhost,IP:127.0.0.1" serverAuth

# The server key's pin, as `--pin` takes it: sha256/ and the base64 SHA-256 of its SubjectPublicKeyInfo.
printf 'sha256/%s\n' "$(openssl pkey -in server.key -pubout -outform der | openssl dgst -sha256 -binary | base64)" > server.pin
