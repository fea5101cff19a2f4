# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

"""Third-party WebSocket peers for the interop checks: Python `websockets` over the `ssl` module.

    peer.py server PORTFILE CERT KEY [CLIENT_CA]   an echo server on 127.0.0.1 (port 0: written to
                                                   PORTFILE); with CLIENT_CA, clients must present a
                                                   certificate it issued
    peer.py plain-server PORTFILE                  the same echo server without TLS (ws://)
    peer.py closing-proxy PORTFILE                 a "proxy" that reads the request and closes the
                                                   connection without a reply
    peer.py tls-front PORTFILE CERT KEY UPSTREAM   a TLS terminator: each connection's TLS is ended
                                                   here and its bytes relayed to 127.0.0.1:UPSTREAM
                                                   (in front of tinyproxy, an https:// proxy)
    peer.py client URL CAFILE [CERT KEY]           connects, sends text and binary messages, checks
                                                   the echoes and the clean close; exits 0 if all held
"""
import os
import ssl
import sys

from websockets.sync.client import connect
from websockets.sync.server import serve


def write_port(port_file, port):
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(port_file + ".tmp", port_file)


def run_closing_proxy(port_file):
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    write_port(port_file, listener.getsockname()[1])
    while True:
        connection, _ = listener.accept()
        connection.settimeout(10)
        try:
            connection.recv(4096)
        except OSError:
            pass
        connection.close()


def run_server(port_file, cert=None, key=None, client_ca=None):
    context = None
    if cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)

    def echo(websocket):
        for message in websocket:
            websocket.send(message)

    with serve(echo, "127.0.0.1", 0, ssl=context, max_size=None) as server:
        write_port(port_file, server.socket.getsockname()[1])
        server.serve_forever()


def run_tls_front(port_file, cert, key, upstream):
    import socket
    import threading
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    write_port(port_file, listener.getsockname()[1])
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=relay_tls, args=(context, raw, int(upstream)), daemon=True).start()


def relay_tls(context, raw, upstream):
    """One thread per connection, one select loop: an SSL object must not be read and written from two
    threads at once."""
    import select
    import socket
    raw.settimeout(20)
    try:
        client = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    server = socket.create_connection(("127.0.0.1", upstream), timeout=20)
    try:
        while True:
            readable, _, _ = select.select([client, server], [], [], 60)
            if not readable:
                return
            for source in readable:
                target = server if source is client else client
                while True:
                    try:
                        data = source.recv(65536)
                    except ssl.SSLWantReadError:
                        break
                    except OSError:
                        data = b""
                    if not data:
                        return
                    target.sendall(data)
                    # Bytes OpenSSL already decrypted are invisible to select.
                    if source is not client or not client.pending():
                        break
    finally:
        client.close()
        server.close()


def run_client(url, cafile, cert=None, key=None):
    context = ssl.create_default_context(cafile=cafile)
    if cert:
        context.load_cert_chain(cert, key)
    payloads = ["hello over TLS", "κόσμε 🎉", bytes(range(256)) * 300, "x" * 70000]
    with connect(url, ssl=context, max_size=None, open_timeout=20, close_timeout=10) as websocket:
        for payload in payloads:
            websocket.send(payload)
            echo = websocket.recv(timeout=20)
            if echo != payload:
                print(f"interop client: echo mismatch for a {type(payload).__name__} of {len(payload)}", file=sys.stderr)
                return 1
        websocket.close()
    code = websocket.close_code
    if code != 1000:
        print(f"interop client: closed with {code}", file=sys.stderr)
        return 1
    print("interop client: 4 echoes, clean close 1000")
    return 0


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "server":
        run_server(*rest)
    elif mode == "plain-server":
        run_server(*rest)
    elif mode == "closing-proxy":
        run_closing_proxy(*rest)
    elif mode == "tls-front":
        run_tls_front(*rest)
    elif mode == "client":
        sys.exit(run_client(*rest))
    else:
        sys.exit(f"unknown mode {mode}")
