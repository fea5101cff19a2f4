// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/*
 * uws-echo: an optional uWebSockets anchor for Benchmarks/servers/compare.sh and callgrind.sh (issue
 * 28), next to lws-echo. Not built by CI, and not built by this repository: it is compiled against a
 * uWebSockets source tree (with uSockets) that whoever measures provides; docs/performance.md says
 * how the published figures were obtained.
 *
 *   uws-echo PORT        (0: any free port)
 *
 * One process, one thread running uWebSockets' event loop (uSockets' epoll loop), no TLS, no
 * permessage-deflate. Every text and binary message is echoed back whole, as one frame of the same
 * kind (uWebSockets hands over whole messages, reassembled from fragments; messages up to
 * MAX_MESSAGE bytes, a larger one closes the connection). Listens on 127.0.0.1 only, prints
 * "listening PORT" on stdout once it accepts connections, and is stopped by SIGTERM or SIGINT (their
 * default action: the scripts kill it).
 *
 * Settings chosen to match lws-echo and our servers: no idle timeout and no automatic pings on open
 * WebSocket connections (uWebSockets' HTTP phase keeps its own 10 s timeout); nothing is dropped
 * under backpressure (maxBackpressure 0: no limit, so a client that never reads grows the server,
 * where lws-echo would stop reading; the benchmark workloads keep at most 64 × 256 B in flight).
 */
#include "App.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr unsigned int MAX_MESSAGE = 16u << 20;

struct Session {};  // no per-connection state: an echo needs none

void raiseDescriptorLimit()
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &limit);
	}
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: uws-echo PORT\n");
		return 2;
	}
	char *end = nullptr;
	errno = 0;
	long port = std::strtol(argv[1], &end, 10);
	if (!*argv[1] || *end || errno || port < 0 || port > 65535) {
		std::fprintf(stderr, "uws-echo: bad port %s\n", argv[1]);
		return 2;
	}
	raiseDescriptorLimit();

	uWS::App::WebSocketBehavior<Session> behavior;
	behavior.compression = uWS::DISABLED;
	behavior.maxPayloadLength = MAX_MESSAGE;
	behavior.idleTimeout = 0;  // 0: none (anything else must be 8 to 960 s)
	behavior.maxBackpressure = 0;  // 0: no limit, never drop an echo
	behavior.closeOnBackpressureLimit = false;
	behavior.sendPingsAutomatically = false;  // required for idleTimeout 0
	behavior.message = [](auto *ws, std::string_view message, uWS::OpCode opCode) {
		ws->send(message, opCode, false);
	};

	bool listening = false;
	uWS::App()
		.ws<Session>("/*", std::move(behavior))
		.listen("127.0.0.1", static_cast<int>(port), [&listening, port](us_listen_socket_t *socket) {
			if (!socket) {
				std::fprintf(stderr, "uws-echo: cannot listen on 127.0.0.1 port %ld (in use?)\n", port);
				return;
			}
			listening = true;
			// The port actually bound, for PORT 0.
			int bound = us_socket_local_port(0, reinterpret_cast<us_socket_t *>(socket));
			std::printf("listening %d\n", bound);
			std::fflush(stdout);
		})
		.run();
	// run() returns once nothing is left to wait for: here only when listening failed.
	return listening ? 0 : 1;
}
