let usage = """
    usage: websocket [demo]        a client and a server Connection talking through in-memory buffers,
                                   then the same over real sockets on 127.0.0.1
           websocket serve [--host H] [--port P | --unix PATH] [--echo] [--subprotocol P]...
                           [--max-message-size N] [--max-frame-size N] [--max-fragments N] [--deflate]
                                   a server (default 127.0.0.1:9001; port 0 picks a free one) that prints
                                   every message, or with --echo sends it back (text as text, binary as
                                   binary); it accepts the first subprotocol the client offers among
                                   those given. SIGINT or SIGTERM stop it (connections get 1001).
           websocket connect URL [--subprotocol P]... [--header 'Name: value']... [--echo]
                             [--max-message-size N] [--max-frame-size N] [--deflate]
                                   a client: each line of standard input is sent as a text message;
                                   end of input sends a Close (1000) and waits for the closing
                                   handshake. Received text messages are printed as they are, one per
                                   line; binary ones as "binary: " and lowercase hex. With --echo,
                                   every message received is also sent back, and standard input is
                                   not read. Status lines go to standard error.
           websocket autobahn-client [--url ws://127.0.0.1:9001] [--agent NAME] [--deflate]
                                   drives an Autobahn|Testsuite fuzzing server (wstest -m
                                   fuzzingserver): /getCaseCount, /runCase for each case (echoing),
                                   /updateReports. --url defaults to $AUTOBAHN_URL or
                                   ws://127.0.0.1:9001; --agent to swift-websocket.
           websocket help          this text

    --deflate negotiates permessage-deflate (RFC 7692) when the peer agrees.
    URLs: ws://host[:port]/resource (IPv6 as ws://[::1]:9001/), or ws+unix://PATH[:RESOURCE] for a
    Unix domain socket (ws+unix:///tmp/ws.sock:/chat). Sizes: bytes, or with a K, M or G suffix.

    """ + ExitStatus.table
