let usage = """
    usage: websocket [demo]        a client and a server Connection talking through in-memory buffers,
                                   then the same over real sockets on 127.0.0.1
           websocket serve [--host H] [--port P | --unix PATH] [--echo] [--subprotocol P]...
                           [--max-message-size N] [--max-frame-size N] [--max-fragments N] [--deflate]
                           [--tls-cert FILE --tls-key FILE [--client-ca FILE]...]
                                   a server (default 127.0.0.1:9001; port 0 picks a free one) that prints
                                   every message, or with --echo sends it back (text as text, binary as
                                   binary); it accepts the first subprotocol the client offers among
                                   those given. SIGINT or SIGTERM stop it (connections get 1001).
                                   With --tls-cert and --tls-key (PEM: the chain, leaf first, and its
                                   key) it serves wss://; with --client-ca, clients must present a
                                   certificate issued by that CA.
           websocket connect URL [--subprotocol P]... [--header 'Name: value']... [--echo]
                             [--max-message-size N] [--max-frame-size N] [--deflate]
                             [--cacert FILE]... [--pin sha256/BASE64]... [--cert FILE --key FILE]
                             [-k | --insecure] [--linger SECONDS] [-1 | --one-message] [--max-messages N]
                             [--proxy URL | --no-proxy] [--max-redirects N]
                                   a client: each line of standard input is sent as a text message.
                                   At the end of input it waits while the peer's messages keep coming
                                   (at most --linger, default 2 s, between two), then sends a Close
                                   (1000) and waits for the closing handshake; -1 or --max-messages N
                                   close after the first or the N-th message received. Received text messages are printed as they are, one per
                                   line; binary ones as "binary: " and lowercase hex. With --echo,
                                   every message received is also sent back, and standard input is
                                   not read. Status lines go to standard error.
                                   wss:// verifies the server against the system's trusted CAs, or
                                   only those of --cacert; --pin also requires the SHA-256 of a public
                                   key of the verified chain; --cert and --key present a client
                                   certificate; -k turns verification off (with a warning).
                                   --proxy connects through an http://, https://, socks5:// (the
                                   target resolved here) or socks5h:// proxy, with user:password@
                                   for its credentials; by default the environment's proxy is used
                                   (ws_proxy/wss_proxy, http_proxy/https_proxy, all_proxy, no_proxy;
                                   loopback is never proxied); --no-proxy connects directly.
                                   Redirects (301-308) are followed, at most --max-redirects
                                   (default 10; 0 reports them as a refused handshake); wss:// to
                                   ws:// never.
           websocket autobahn-client [--url ws://127.0.0.1:9001] [--agent NAME] [--deflate]
                                   drives an Autobahn|Testsuite fuzzing server (wstest -m
                                   fuzzingserver): /getCaseCount, /runCase for each case (echoing),
                                   /updateReports. --url defaults to $AUTOBAHN_URL or
                                   ws://127.0.0.1:9001; --agent to swift-websocket.
           websocket help          this text

    --deflate negotiates permessage-deflate (RFC 7692) when the peer agrees.
    URLs: ws://host[:port]/resource or wss://… (IPv6 as ws://[::1]:9001/), or ws+unix://PATH[:RESOURCE]
    for a Unix domain socket (ws+unix:///tmp/ws.sock:/chat; wss+unix:// for TLS over it). Sizes: bytes,
    or with a K, M or G suffix. Limits default to the library's: --max-message-size and
    --max-frame-size 16M (a message or frame of exactly that size passes), --max-fragments 1048576.

    """ + ExitStatus.table
