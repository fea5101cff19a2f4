// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The help texts: `websocket help` (all commands, briefly) and `websocket help COMMAND`.
enum Help {
    static let commands = ["demo", "connect", "serve", "autobahn-client"]

    static let overview = """
        usage: websocket [demo]                 a client and a server Connection talking through in-memory
                                                buffers, then the same over real sockets on 127.0.0.1
               websocket connect URL [OPTIONS]  a client: standard input to the server, its messages to
                                                standard output
               websocket serve [OPTIONS]        a server that prints, echoes, broadcasts or runs a command
               websocket autobahn-client [...]  drives an Autobahn|Testsuite fuzzing server
               websocket help [COMMAND]         this text, or a command's options

        URLs: ws://host[:port]/resource or wss://… (IPv6 as ws://[::1]:9001/), or ws+unix://PATH[:RESOURCE]
        for a Unix domain socket (ws+unix:///tmp/ws.sock:/chat; wss+unix:// for TLS over it).

        """ + ExitStatus.table

    static let shared = """
          --protocol P           a subprotocol (repeat for more; --subprotocol is the same): the client
                                 offers them in this order, the server accepts the first the client
                                 offers among them
          --deflate              negotiate permessage-deflate (RFC 7692) when the peer agrees
          --deflate-window-bits N  windows of 2^N bytes (9-15) both ways: a client asks for them, a
                                 server answers with them (implies --deflate, as the next three do)
          --deflate-no-context-takeover
                                 reset the compression context after every message, both ways
          --deflate-level N      zlib level 0 (store) to 9 (smallest; default 6)
          --deflate-low-memory   the library's preset: 512-byte windows, no context takeover, zlib
                                 memory level 1 (about 10 KiB a connection instead of 300)
          --max-message-size N   largest message accepted (default 16M; sizes take K, M or G)
          --max-frame-size N     largest frame accepted (default 16M)
          --max-fragments N      most frames in one message (default 1048576)
          --handshake-timeout S  the opening handshake's limit (default 10; 0 for none); seconds, or
                                 milliseconds with ms (500ms)
          --close-timeout S      how long to wait for the peer's Close (default 5)
          --ping-interval S      send a ping every S seconds while open (default: none)
          --ping-timeout S       with --ping-interval: a pong must come within S (default 20), or the
                                 connection ends (1006)
        """

    static let connect = """
        usage: websocket connect URL [OPTIONS]

        Each line of standard input (without its newline) is sent as a text message; each message
        received is printed on standard output: text as it is, binary as "binary: " and lowercase hex.
        Status lines go to standard error. At the end of input the tool waits while the peer's
        messages keep coming (at most --linger between two), then closes with 1000 and waits for the
        closing handshake. SIGINT or SIGTERM (Ctrl-C) close with 1001; a second one exits at once.

        input and output:
          -b, --binary           send standard input as binary messages
          --no-line-split        all of standard input is one message, sent at its end
          -n, --no-close         after the end of input, keep the connection until the peer closes it
          --linger S             after the end of input, close once no message came for S (default 2)
          --echo                 send every message received back; standard input is not read
          -1, --one-message      close after the first message received
          --max-messages N       close after the N-th message received
          --jsonl                print one JSON object per event instead: open, text (data), binary,
                                 ping and pong (hex), close (code, reason, clean), error; each with
                                 "type" and "time" (seconds since the start)
          --raw-output           print messages as their bytes, each followed by a newline (none with
                                 --no-line-split)
          Text sent must be UTF-8: a line that is not is an error (exit 2) unless --binary.

        the request:
          -H, --header 'N: V'    a request header (repeat for more)
          --origin ORIGIN        the Origin header
          --basic-auth U:P       HTTP Basic credentials (as ws://U:P@host/ does)

        connecting:
          --connect-timeout S    the TCP connection's limit (default 10)
          --reconnect N          when the connection cannot open or is lost (1006, or the server says
                                 1001, 1011, 1012, 1013 or 1014), connect again, at most N times, waiting
                                 --reconnect-delay (default 1 s) and twice as long each time, up to 30 s
          --proxy URL            through an http://, https://, socks5:// (the target resolved here) or
                                 socks5h:// proxy, with user:password@ for its credentials; by default
                                 the environment's (ws_proxy/wss_proxy, http_proxy/https_proxy,
                                 all_proxy, no_proxy; loopback is never proxied)
          --no-proxy             connect directly
          --max-redirects N      follow at most N redirects (301-308; default 10, 0 for none); wss://
                                 to ws:// never

        TLS (wss://):
          --cacert FILE          trust only these CAs (repeat for more; default: the system's)
          --pin sha256/BASE64    also require this SHA-256 of a public key in the verified chain
          --pin-cert sha256:HEX  accept the server only if its certificate has this SHA-256
                                 fingerprint, even self-signed (repeat for more): the hex of
                                 openssl x509 -in cert.pem -noout -fingerprint -sha256
          --cert FILE --key FILE present a client certificate
          -k, --insecure         do not verify the server (warned about)
          --keylog FILE          UNSAFE, for debugging: append the TLS secrets to FILE (SSLKEYLOGFILE
                                 format, for Wireshark; created 0600; warned about): anyone who
                                 reads it can decrypt the connection

        shared with serve:

        """ + shared + "\n\n" + ExitStatus.table

    static let serve = """
        usage: websocket serve [OPTIONS]

        A server (default 127.0.0.1:9001; --port 0 picks a free one). By default it prints every
        client's message on standard output (text as it is, binary as "binary: " and hex). Status
        lines (listening on…, each connection's start and end) go to standard error. SIGINT or SIGTERM
        stop it: open connections get 1001.

          --host H               the address to listen on (127.0.0.1, ::1, 0.0.0.0, ::, a name)
          --port P               the port (default 9001)
          --unix PATH            listen on a Unix domain socket instead
          --echo                 send every message back (text as text, binary as binary)
          --broadcast            send each line of standard input to every open client; a
                                 client's message goes to the others on its path (its room)
          --redis URL            with --broadcast: share the rooms with every server on the same
                                 Redis (redis://[user:pass@]host[:port][/db], rediss://, unix://)
          --redis-prefix P       what the rooms' Redis channels start with (default websocket:)
          -b, --binary           with --broadcast or --exec: lines become binary messages
          --exec CMD             run `/bin/sh -c CMD` for each connection: each message, and a newline,
                                 goes to its standard input; each line of its standard output is sent
                                 back; when its output ends, the connection closes with 1000; it
                                 sees WEBSOCKET_PEER, WEBSOCKET_RESOURCE, WEBSOCKET_SUBPROTOCOL
          --max-connections N    answer further opening handshakes with 503 while N are open
          --origin ORIGIN        accept only handshakes with this Origin (repeat for more); others get
                                 403
          --drain-timeout S      on SIGTERM or SIGINT, wait at most S seconds for the connections'
                                 closing handshakes (default: the close timeout and the linger); new
                                 opening handshakes get 503 meanwhile; the rest are then aborted (at
                                 once on a second SIGTERM or SIGINT)
          --max-lifetime S       close each connection with 1001 after S seconds, less a random part
                                 of up to a tenth of S (so that load spreads over new instances)
          --idle-timeout S       close a connection with 1001 once nothing came from it for S seconds
          --restart-code         close the connections with 1012 (service restart: reconnect at
                                 once) instead of 1001 on SIGTERM
          --proxy-protocol       read a PROXY protocol header (v1 or v2) from the load balancers
                                 named by --trust-proxy ADDR[/BITS] (repeat; required): their
                                 connections must begin with one, which gives the client's address;
                                 a header from any other peer ends its connection
          --health PATH          answer GET or HEAD PATH (no upgrade) with 200 "ok", 503 while
                                 draining: a load balancer's health check on the same port
          --metrics PATH         answer GET or HEAD PATH with the server's counters in the Prometheus
                                 text format (other plain requests keep 426)
          --jsonl                print one JSON object per event instead, as connect does, each with
                                 the client's "peer"; --raw-output prints messages as their bytes
          --tls-cert FILE --tls-key FILE
                                 serve wss:// (PEM: the chain, leaf first, and its key); repeat the
                                 pair for more certificates, each chosen by the names it is valid
                                 for (SNI), the first for other names; SIGHUP reads them again
          --client-ca FILE       require a client certificate issued by this CA
          --keylog FILE          UNSAFE, for debugging: append every connection's TLS secrets to FILE
                                 (as connect --keylog)

        shared with connect:

        """ + shared + "\n"

    static let demo = """
        usage: websocket [demo]

        A client and a server Connection talking through in-memory buffers (every byte printed), then
        the same over real sockets on 127.0.0.1. Needs no outside server.
        """

    static let autobahnClient = """
        usage: websocket autobahn-client [--url ws://127.0.0.1:9001] [--agent NAME] [--deflate]

        Drives an Autobahn|Testsuite fuzzing server (wstest -m fuzzingserver): /getCaseCount, /runCase
        for each case (echoing), /updateReports. --url defaults to $AUTOBAHN_URL or
        ws://127.0.0.1:9001; --agent to swift-websocket.
        """

    /// The help of `command`, or `nil` for a command that does not exist.
    static func text(for command: String) -> String? {
        switch command {
        case "connect": connect
        case "serve": serve
        case "demo": demo
        case "autobahn-client": autobahnClient
        case "help": overview
        default: nil
        }
    }
}
