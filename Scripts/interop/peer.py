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
    peer.py sni-client PORT CAFILE NAME            connects to 127.0.0.1:PORT asking for NAME (SNI),
                                                   verifies the certificate for NAME, checks an echo;
                                                   prints the certificate's subject
    peer.py keylog-client PORT CAFILE KEYLOG       one echo as sni-client does for localhost, with
                                                   Python's own key log (OpenSSL's format) in KEYLOG
    peer.py resume-client PORT CAFILE              connects twice to 127.0.0.1:PORT as localhost, an
                                                   echo each time, offering the first connection's
                                                   session the second time; exits 0 only if the second
                                                   handshake resumed it
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
    from urllib.parse import urlsplit
    context = ssl.create_default_context(cafile=cafile)
    if cert:
        context.load_cert_chain(cert, key)
    target = urlsplit(url)
    if target.scheme != "wss":
        raise ValueError(f"not a wss URL: {url}")
    # The TLS connection is made here, not by websockets, so that its session tickets are read
    # before websockets' reader thread starts (see settle_session_tickets).
    tls = tls_connection(context, target.port or 443, target.hostname, address=target.hostname)
    payloads = ["hello over TLS", "κόσμε 🎉", bytes(range(256)) * 300, "x" * 70000]
    with connect(f"ws://{target.netloc}{target.path or '/'}", sock=tls, max_size=None, open_timeout=20,
                 close_timeout=10) as websocket:
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


def echo_over(tls_socket, host, port):
    """One echo over an established TLS socket, then a clean close: the WebSocket layer runs on the
    socket as it is (`sock=`), so that the TLS session stays the caller's to inspect. Returns the TLS
    session as it was after the echo (with its TLS 1.3 ticket, read by `tls_connection`), before the
    close."""
    with connect(f"ws://{host}:{port}/", sock=tls_socket, open_timeout=20, close_timeout=10) as websocket:
        websocket.send("over this session")
        if websocket.recv(timeout=20) != "over this session":
            raise RuntimeError("echo mismatch")
        session = tls_socket.session
        websocket.close()
    if websocket.close_code != 1000:
        raise RuntimeError(f"closed with {websocket.close_code}")
    return session


def tls_connection(context, port, name, session=None, address="127.0.0.1"):
    """A TLS connection to ADDRESS:PORT verified as NAME, its handshake done and the session tickets
    that follow it read (settle_session_tickets)."""
    import socket
    raw = socket.create_connection((address, int(port)), timeout=20)
    tls = context.wrap_socket(raw, server_hostname=name, session=session)
    settle_session_tickets(tls)
    return tls


def settle_session_tickets(tls, first_wait=5, quiet=0.05):
    """Reads what a TLS 1.3 server sends right after the handshake, its session tickets, before the
    WebSocket library gets the socket: it waits up to FIRST_WAIT seconds for the first bytes, then
    reads until nothing more comes for QUIET seconds. (A server that sends no ticket costs the wait.)

    websockets' sync connection reads in a thread of its own from the start while the caller's thread
    writes the upgrade request, and CPython's SSLSocket lets both threads into the same OpenSSL object
    at once: one processing the tickets as they arrive, the other encrypting the request. OpenSSL
    forbids that. Once in a few hundred connections (more often on a busy machine) the request was
    lost: `strace` of our server showed the client's Finished read, the tickets sent, then not a byte
    more until the server's 10 s handshake timeout closed the connection, while Python reported the
    connection closed before the response. Read here, in one thread, the tickets leave OpenSSL
    nothing to process until the server answers the request. (`session.has_ticket` cannot say when
    they came: a resumed session has its old ticket from the start.)"""
    import select
    if tls.version() != "TLSv1.3":
        return  # TLS 1.2 sends its ticket inside the handshake
    tls.setblocking(False)
    try:
        wait = first_wait
        while True:
            readable, _, _ = select.select([tls], [], [], wait)
            if not readable:
                return
            while True:
                try:
                    data = tls.recv(1)
                except ssl.SSLWantReadError:
                    break  # the records that came are read: tickets, or part of one
                if not data:
                    raise ConnectionError("the server closed the connection after the TLS handshake")
                raise RuntimeError("the server sent application data before the request")
            wait = quiet
    finally:
        tls.settimeout(20)


def run_sni_client(port, cafile, name):
    context = ssl.create_default_context(cafile=cafile)
    tls = tls_connection(context, port, name)
    subject = dict(item[0] for item in tls.getpeercert()["subject"])
    names = [value for kind, value in tls.getpeercert().get("subjectAltName", ()) if kind == "DNS"]
    echo_over(tls, name, port)
    print(f"interop sni: asked for {name}, got CN={subject.get('commonName')} {names}")
    return 0


def run_keylog_client(port, cafile, keylog):
    context = ssl.create_default_context(cafile=cafile)
    context.keylog_filename = keylog
    echo_over(tls_connection(context, port, "localhost"), "localhost", port)
    print("interop keylog: one connection, its secrets in " + keylog)
    return 0


def run_resume_client(port, cafile):
    context = ssl.create_default_context(cafile=cafile)
    first = tls_connection(context, port, "localhost")
    session = echo_over(first, "localhost", port)
    if session is None or not session.has_ticket:
        print("interop resume: the first connection got no session ticket", file=sys.stderr)
        return 1
    second = tls_connection(context, port, "localhost", session=session)
    resumed = second.session_reused
    version = second.version()
    echo_over(second, "localhost", port)
    if not resumed:
        print(f"interop resume: the second handshake ({version}) did not resume", file=sys.stderr)
        return 1
    print(f"interop resume: the second handshake ({version}) resumed the first one's session")
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
    elif mode == "sni-client":
        sys.exit(run_sni_client(*rest))
    elif mode == "keylog-client":
        sys.exit(run_keylog_client(*rest))
    elif mode == "resume-client":
        sys.exit(run_resume_client(*rest))
    else:
        sys.exit(f"unknown mode {mode}")
