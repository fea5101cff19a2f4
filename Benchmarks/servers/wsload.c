// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/*
 * wsload: a WebSocket load generator for Benchmarks/servers (one thread, epoll, non-blocking raw
 * sockets; the client handshake and masked frames are written here, the server's frames parsed
 * here). Loopback only: --host must be an address in 127.0.0.0/8.
 *
 *   wsload pingpong   --port P [--conns 1] [--size 256] [--seconds 5]
 *   wsload pipeline   --port P [--conns 1] [--depth 64] [--size 256] [--seconds 5]
 *   wsload handshakes --port P [--parallel 16] [--seconds 5]
 *   wsload idle       --port P --conns N [--hold 60]
 *   wsload steady     --port P --conns N [--interval-ms 1000] [--seconds 60] [--size 256]
 *   wsload broadcast  --port P --conns N [--messages 100] [--size 1024] [--rounds 1]
 *
 * Common options: --host 127.0.0.1, --text (text messages instead of binary), --fragment BYTES (send
 * each message in frames of at most BYTES payload bytes; 0, the default: one frame), --warmup 0.5 (seconds
 * of traffic before the measured window; pingpong, pipeline, handshakes), --batch 256 (the most
 * opening handshakes in flight while connections open), --timeout 30 (seconds a connection may
 * take to connect and get its 101), --path /.
 *
 * pingpong: each connection sends a message, waits for its echo, sends the next. pipeline: each
 * keeps --depth messages in flight. handshakes: --parallel workers each connect, upgrade, send a
 * Close (1000), wait for the server's Close and for the server to close TCP, close, and start again.
 * idle: opens --conns connections, prints "ready opened=N failed=F" once every one has its 101 (or
 * failed), holds them --hold seconds, until SIGTERM/SIGINT or until standard input (a pipe, a
 * socket or a terminal) closes, then closes them all with 1000. steady: every connection sends one
 * message per --interval-ms, the sends of all connections spread evenly over the interval.
 * broadcast: opens --conns connections as idle does, then for each of --rounds rounds sends the text
 * "broadcast K S" (K = --messages, S = --size) on connection 0 and starts the clock; the server
 * (websocket-bench serve-echo loop-handler) sends K binary messages of S bytes to every open
 * connection, message k carrying k as a big-endian 64-bit number in its first 8 bytes and then the
 * pattern byte i = i * 31 + 7. The round ends when every connection has all K, in order; --timeout is
 * also the most a round may take. It reports the median round: delivered = N * K, seconds, rate =
 * delivered / seconds, first_ms and last_ms (until the first and the last connection had all K), and
 * the slowest and fastest round's rate. Then it closes every connection with 1000. With --publish it
 * asks "publish K S" instead: the server publishes to a topic every connection subscribed to when it
 * opened (WebSocketServer.publish(topic:binary:)); the messages and the checks are the same.
 * --port2 P2 puts every odd connection on a second server (P2), which gets the messages from the
 * first through a backplane (redis-broadcast.sh: both servers on one Redis). --latency also reports
 * when each message reached each connection after the round's request, as percentiles
 * (arrival_p50_ms, arrival_p99_ms; with --port2, port2_arrival_p50_ms and _p99_ms for the second
 * server's connections): the difference is the hop's added latency.
 *
 * Every echo is checked: the same kind, length and bytes as the message it answers (each message
 * carries its sequence number), in order; in broadcast, every message the server sends. A
 * connection that fails (refused, a bad 101, a garbled or masked frame, a wrong echo, an unexpected
 * Close, a missing echo at the end) counts as an error.
 * The result is one line of key=value pairs on stdout; the exit status is 1 when errors > 0, 2 for
 * a usage error. The first errors are described on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAYLOAD (16u << 20)         /* the largest frame or message accepted from a server */
#define MAX_RESPONSE_HEAD 16384         /* the largest HTTP response head accepted */
#define MAX_STEADY_IN_FLIGHT 64         /* steady: echoes a connection may await before it skips sends */
#define CLOSE_TIMEOUT_NS (10ull * 1000000000ull)  /* for the server's Close after ours */
#define FIN_TIMEOUT_NS (2ull * 1000000000ull)     /* for the server to close TCP after its Close */
#define DRAIN_TIMEOUT_NS (5ull * 1000000000ull)   /* for the last echoes after the window */
#define STDIN_TAG UINT64_MAX
#define MAX_BROADCAST_MESSAGES 100000   /* broadcast: the server's bounds on K, S and K * S */
#define MAX_BROADCAST_SIZE (1l << 20)
#define MAX_BROADCAST_BYTES (64l << 20)
#define BROADCAST_SEQ_LENGTH 8          /* broadcast: the big-endian sequence number's bytes */

enum mode { M_PINGPONG, M_PIPELINE, M_HANDSHAKES, M_IDLE, M_STEADY, M_BROADCAST };
static const char *const mode_names[] = { "pingpong", "pipeline", "handshakes", "idle", "steady", "broadcast" };

enum cstate {
	C_UNUSED,      /* not started, or between handshake cycles */
	C_CONNECTING,  /* TCP connect in progress */
	C_HANDSHAKE,   /* request written (or being written), waiting for the 101 */
	C_OPEN,
	C_CLOSING,     /* our Close sent, waiting for the server's */
	C_CLOSE_WAIT,  /* the server's Close received, waiting for it to close TCP */
	C_DONE,        /* closed cleanly */
	C_FAILED,
};

struct conn {
	int fd;
	uint32_t index;
	uint32_t generation;     /* tells stale epoll events from the current socket's */
	enum cstate state;
	int writable_wanted;     /* EPOLLOUT is registered */
	uint64_t deadline;       /* for the current wait, 0: none */
	uint64_t started;        /* when the current connection attempt began */
	uint64_t restart_at;     /* handshakes: when the slot may start its next cycle */
	unsigned char *in;
	size_t in_len, in_cap;
	unsigned char *out;
	size_t out_off, out_len, out_cap;
	unsigned char *msg;      /* a fragmented message from the server, being joined */
	size_t msg_len, msg_cap;
	int msg_opcode;          /* 0: no message in progress */
	char accept[32];         /* the Sec-WebSocket-Accept expected */
	uint64_t *sent_at;       /* send times of the messages awaiting their echo (a ring) */
	uint32_t ring_cap, ring_head, ring_count;
	uint64_t send_seq, recv_seq;
};

struct options {
	enum mode mode;
	struct in_addr host;
	char host_text[INET_ADDRSTRLEN];
	int port;
	int port2;               /* broadcast: odd connections go to this second server (0: none) */
	long conns, size, depth, parallel, batch, interval_ms, fragment, messages, rounds;
	double seconds, warmup, hold, timeout;
	int text;
	int publish;
	int latency;             /* broadcast: each message's arrival, by server (p50, p99) */
	const char *path;
};

static struct options opt;
static struct conn *conns;
static long conn_count;
static int epoll_fd = -1;
static unsigned char *pattern;   /* the payload every message carries after its sequence number */
static unsigned char *fragment_scratch; /* --fragment: one whole payload, to cut into frames */
static size_t seq_length;        /* bytes of the payload that carry the sequence number */

static volatile sig_atomic_t stop_requested;

/* Results. */
static uint64_t errors, opened, open_failed, messages, cycles, fin_timeouts, missing, skipped, sent_total,
	received_total, closed_clean, close_errors;
static uint64_t *samples;
static size_t sample_count, sample_cap;
/* broadcast with --port2: each message's arrival after the round's request, by the server its
 * connection is on (0: the publishing one, 1: the other) */
static uint64_t *group_samples[2];
static size_t group_count[2], group_cap[2];
static int reported_errors;

/* The measured window. */
static uint64_t window_start, window_end;
enum phase { P_OPENING, P_RUNNING, P_DRAINING, P_CLOSING, P_END };
static enum phase phase;
static long next_to_open, opening_in_flight;

/* broadcast: the round under way (connections count their messages in recv_seq), and every round's
 * times, from the request sent to the first and to the last connection having all K. */
static int round_active;
static long rounds_done, round_complete;
static uint64_t round_start, round_deadline, round_first, round_last;
static uint64_t *round_first_ns, *round_last_ns;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void on_signal(int number)
{
	(void)number;
	stop_requested = 1;
}

/* MARK: random numbers (xorshift64*, seeded from the system) */

static uint64_t rng_state;

static uint64_t next_random(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static void seed_random(void)
{
	if (getrandom(&rng_state, sizeof rng_state, 0) != (ssize_t)sizeof rng_state)
		rng_state = now_ns() ^ ((uint64_t)getpid() << 32);
	if (!rng_state)
		rng_state = 0x9E3779B97F4A7C15ull;
}

/* MARK: SHA-1 and base64, for Sec-WebSocket-Accept */

static uint32_t rol32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void sha1(const unsigned char *data, size_t length, unsigned char digest[20])
{
	uint32_t h[5] = { 0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u };
	size_t total = ((length + 8) / 64 + 1) * 64;
	for (size_t block = 0; block < total; block += 64) {
		unsigned char chunk[64];
		for (size_t i = 0; i < 64; i++) {
			size_t at = block + i;
			if (at < length)
				chunk[i] = data[at];
			else if (at == length)
				chunk[i] = 0x80;
			else if (at >= total - 8)
				chunk[i] = (unsigned char)(((uint64_t)length * 8) >> (8 * (total - 1 - at)));
			else
				chunk[i] = 0;
		}
		uint32_t w[80];
		for (int i = 0; i < 16; i++)
			w[i] = (uint32_t)chunk[4 * i] << 24 | (uint32_t)chunk[4 * i + 1] << 16 |
			       (uint32_t)chunk[4 * i + 2] << 8 | chunk[4 * i + 3];
		for (int i = 16; i < 80; i++)
			w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (int i = 0; i < 80; i++) {
			uint32_t f, k;
			if (i < 20) {
				f = (b & c) | (~b & d);
				k = 0x5A827999u;
			} else if (i < 40) {
				f = b ^ c ^ d;
				k = 0x6ED9EBA1u;
			} else if (i < 60) {
				f = (b & c) | (b & d) | (c & d);
				k = 0x8F1BBCDCu;
			} else {
				f = b ^ c ^ d;
				k = 0xCA62C1D6u;
			}
			uint32_t t = rol32(a, 5) + f + e + k + w[i];
			e = d;
			d = c;
			c = rol32(b, 30);
			b = a;
			a = t;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
	}
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = (unsigned char)(h[i] >> 24);
		digest[4 * i + 1] = (unsigned char)(h[i] >> 16);
		digest[4 * i + 2] = (unsigned char)(h[i] >> 8);
		digest[4 * i + 3] = (unsigned char)h[i];
	}
}

/* Writes base64 of `length` bytes and a NUL to `text` (room for 4 * ceil(length / 3) + 1). */
static void base64(const unsigned char *bytes, size_t length, char *text)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < length; i += 3) {
		uint32_t v = (uint32_t)bytes[i] << 16;
		if (i + 1 < length)
			v |= (uint32_t)bytes[i + 1] << 8;
		if (i + 2 < length)
			v |= bytes[i + 2];
		text[o++] = alphabet[(v >> 18) & 63];
		text[o++] = alphabet[(v >> 12) & 63];
		text[o++] = i + 1 < length ? alphabet[(v >> 6) & 63] : '=';
		text[o++] = i + 2 < length ? alphabet[v & 63] : '=';
	}
	text[o] = 0;
}

/* MARK: errors */

static void report(struct conn *c, const char *format, ...)
{
	if (reported_errors >= 10) {
		if (reported_errors == 10)
			fprintf(stderr, "wsload: (further errors not shown)\n");
		reported_errors++;
		return;
	}
	reported_errors++;
	va_list arguments;
	va_start(arguments, format);
	fprintf(stderr, "wsload: connection %u: ", c ? c->index : 0u);
	vfprintf(stderr, format, arguments);
	fputc('\n', stderr);
	va_end(arguments);
}

static void record_sample(uint64_t nanoseconds)
{
	if (sample_count == sample_cap) {
		if (sample_cap >= (64u << 20))
			return; /* enough for any percentile */
		size_t capacity = sample_cap ? sample_cap * 2 : 65536;
		uint64_t *grown = realloc(samples, capacity * sizeof *grown);
		if (!grown)
			return;
		samples = grown;
		sample_cap = capacity;
	}
	samples[sample_count++] = nanoseconds;
}

static void record_group_sample(int group, uint64_t nanoseconds)
{
	if (group_count[group] == group_cap[group]) {
		if (group_cap[group] >= (64u << 20))
			return;
		size_t capacity = group_cap[group] ? group_cap[group] * 2 : 65536;
		uint64_t *grown = realloc(group_samples[group], capacity * sizeof *grown);
		if (!grown)
			return;
		group_samples[group] = grown;
		group_cap[group] = capacity;
	}
	group_samples[group][group_count[group]++] = nanoseconds;
}

static int conn_group(const struct conn *c) { return opt.port2 && c->index % 2 == 1; }

/* MARK: buffers */

static int reserve(unsigned char **buffer, size_t *capacity, size_t needed)
{
	if (needed <= *capacity)
		return 0;
	size_t grown = *capacity ? *capacity : 4096;
	while (grown < needed)
		grown *= 2;
	unsigned char *bytes = realloc(*buffer, grown);
	if (!bytes)
		return -1;
	*buffer = bytes;
	*capacity = grown;
	return 0;
}

/* MARK: connection lifecycle */

static void set_interest(struct conn *c, int writable)
{
	if (c->fd < 0 || c->writable_wanted == writable)
		return;
	struct epoll_event event = { .events = EPOLLIN | (writable ? EPOLLOUT : 0),
				     .data.u64 = (uint64_t)c->index << 32 | c->generation };
	if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &event) == 0)
		c->writable_wanted = writable;
}

static void on_connection_ended(struct conn *c, int clean);

static void close_socket(struct conn *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->generation++;
	c->writable_wanted = 0;
	c->deadline = 0;
}

static void fail(struct conn *c, const char *format, ...)
{
	if (c->state == C_FAILED || c->state == C_DONE)
		return;
	char text[256];
	va_list arguments;
	va_start(arguments, format);
	vsnprintf(text, sizeof text, format, arguments);
	va_end(arguments);
	report(c, "%s", text);
	errors++;
	enum cstate was = c->state;
	close_socket(c);
	c->state = C_FAILED;
	if (was == C_CONNECTING || was == C_HANDSHAKE) {
		open_failed++;
		if (phase == P_OPENING)
			opening_in_flight--;
	}
	if (was == C_CLOSING)
		close_errors++;
	on_connection_ended(c, 0);
}

static void finish(struct conn *c)
{
	close_socket(c);
	c->state = C_DONE;
	closed_clean++;
	on_connection_ended(c, 1);
}

/* Writes what is pending; 0, or -1 when the connection failed. */
static int flush(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_interest(c, 1);
			return 0;
		}
		fail(c, "write: %s", n < 0 ? strerror(errno) : "wrote nothing");
		return -1;
	}
	c->out_off = c->out_len = 0;
	set_interest(c, 0);
	return 0;
}

/* Appends a masked frame; 0, or -1 when out of memory (the connection failed). */
static int append_frame_fin(struct conn *c, int fin, int opcode, const unsigned char *prefix, size_t prefix_length,
			    const unsigned char *rest, size_t rest_length)
{
	size_t length = prefix_length + rest_length;
	if (reserve(&c->out, &c->out_cap, c->out_len + length + 14)) {
		fail(c, "out of memory");
		return -1;
	}
	unsigned char *p = c->out + c->out_len;
	*p++ = (unsigned char)((fin ? 0x80 : 0) | opcode);
	if (length < 126) {
		*p++ = (unsigned char)(0x80 | length);
	} else if (length < 65536) {
		*p++ = 0x80 | 126;
		*p++ = (unsigned char)(length >> 8);
		*p++ = (unsigned char)length;
	} else {
		*p++ = 0x80 | 127;
		for (int i = 7; i >= 0; i--)
			*p++ = (unsigned char)((uint64_t)length >> (8 * i));
	}
	uint32_t key32 = (uint32_t)next_random();
	unsigned char key[4];
	memcpy(key, &key32, 4);
	memcpy(p, key, 4);
	p += 4;
	for (size_t i = 0; i < prefix_length; i++)
		p[i] = prefix[i] ^ key[i & 3];
	unsigned char *q = p + prefix_length;
	size_t shift = prefix_length;
	for (size_t i = 0; i < rest_length; i++)
		q[i] = rest[i] ^ key[(i + shift) & 3];
	c->out_len = (size_t)(q + rest_length - c->out);
	return 0;
}

static int append_frame(struct conn *c, int opcode, const unsigned char *prefix, size_t prefix_length,
			const unsigned char *rest, size_t rest_length)
{
	return append_frame_fin(c, 1, opcode, prefix, prefix_length, rest, rest_length);
}

/* The sequence number as the first bytes of a payload: little-endian bytes, or hex digits for text. */
static void write_sequence(unsigned char *prefix, uint64_t sequence)
{
	for (size_t i = 0; i < seq_length; i++) {
		if (opt.text)
			prefix[i] = (unsigned char)"0123456789abcdef"[(sequence >> (4 * i)) & 15];
		else
			prefix[i] = (unsigned char)(sequence >> (8 * i));
	}
}

/* Sends the connection's next message (not flushed); 0, or -1 when the connection failed. */
static int send_message(struct conn *c, uint64_t now)
{
	if (c->ring_count == c->ring_cap) {
		skipped++;
		return 0;
	}
	unsigned char prefix[16];
	write_sequence(prefix, c->send_seq);
	size_t size = (size_t)opt.size;
	if (opt.fragment > 0 && size > (size_t)opt.fragment) {
		/* The message in frames of --fragment bytes: the first with the message's opcode, then
		 * continuations, FIN on the last. */
		memcpy(fragment_scratch, prefix, seq_length);
		memcpy(fragment_scratch + seq_length, pattern + seq_length, size - seq_length);
		for (size_t at = 0; at < size; at += (size_t)opt.fragment) {
			size_t piece = size - at < (size_t)opt.fragment ? size - at : (size_t)opt.fragment;
			int last = at + piece == size;
			if (append_frame_fin(c, last, at == 0 ? (opt.text ? 1 : 2) : 0, fragment_scratch + at, piece, NULL, 0))
				return -1;
		}
	} else if (append_frame(c, opt.text ? 1 : 2, prefix, seq_length, pattern + seq_length, size - seq_length)) {
		return -1;
	}
	c->sent_at[(c->ring_head + c->ring_count) % c->ring_cap] = now;
	c->ring_count++;
	c->send_seq++;
	sent_total++;
	return 0;
}

static int send_close(struct conn *c, uint64_t now)
{
	static const unsigned char code[2] = { 0x03, 0xE8 }; /* 1000 */
	if (append_frame(c, 8, code, 2, NULL, 0))
		return -1;
	c->state = C_CLOSING;
	c->deadline = now + CLOSE_TIMEOUT_NS;
	return flush(c);
}

static void start_connection(struct conn *c, uint64_t now)
{
	c->in_len = c->out_off = c->out_len = c->msg_len = 0;
	c->msg_opcode = 0;
	c->ring_head = c->ring_count = 0;
	c->send_seq = c->recv_seq = 0;
	c->started = now;
	c->deadline = now + (uint64_t)(opt.timeout * 1e9);
	c->writable_wanted = 1;
	c->state = C_CONNECTING;

	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fail(c, "socket: %s", strerror(errno));
		return;
	}
	c->fd = fd;
	int one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct epoll_event event = { .events = EPOLLIN | EPOLLOUT, .data.u64 = (uint64_t)c->index << 32 | c->generation };
	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
		fail(c, "epoll_ctl: %s", strerror(errno));
		return;
	}

	/* The request, written once the connection is up. */
	unsigned char nonce[16];
	for (int i = 0; i < 16; i += 8) {
		uint64_t r = next_random();
		memcpy(nonce + i, &r, 8);
	}
	char key[32];
	base64(nonce, 16, key);
	char joined[80];
	int joined_length = snprintf(joined, sizeof joined, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
	unsigned char digest[20];
	sha1((const unsigned char *)joined, (size_t)joined_length, digest);
	base64(digest, 20, c->accept);
	char request[512];
	int length = snprintf(request, sizeof request,
			      "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			      "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
			      opt.path, opt.host_text, conn_group(c) ? opt.port2 : opt.port, key);
	if (length <= 0 || (size_t)length >= sizeof request || reserve(&c->out, &c->out_cap, (size_t)length)) {
		fail(c, "request too long");
		return;
	}
	memcpy(c->out, request, (size_t)length);
	c->out_len = (size_t)length;

	struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(conn_group(c) ? opt.port2 : opt.port)),
				       .sin_addr = opt.host };
	if (connect(fd, (struct sockaddr *)&address, sizeof address) == 0) {
		c->state = C_HANDSHAKE;
		(void)flush(c);
	} else if (errno != EINPROGRESS) {
		fail(c, "connect: %s", strerror(errno));
	}
}

/* MARK: the mode's reactions */

static int in_window(uint64_t now) { return now >= window_start && now < window_end; }

static void on_open(struct conn *c, uint64_t now)
{
	opened++;
	if (phase == P_OPENING)
		opening_in_flight--;
	switch (opt.mode) {
	case M_HANDSHAKES:
		(void)send_close(c, now);
		return;
	case M_PINGPONG:
	case M_PIPELINE:
		/* Messages start flowing once every connection is open (start_traffic). */
		return;
	case M_IDLE:
	case M_STEADY:
	case M_BROADCAST:
		return;
	}
}

static void on_echo(struct conn *c, uint64_t now, uint64_t round_trip)
{
	received_total++;
	if (opt.mode == M_STEADY) {
		if (phase == P_RUNNING || phase == P_DRAINING) {
			messages++;
			record_sample(round_trip);
		}
		return;
	}
	if (in_window(now)) {
		messages++;
		record_sample(round_trip);
	}
	if (phase == P_RUNNING && now < window_end)
		(void)send_message(c, now);
}

static void on_connection_ended(struct conn *c, int clean)
{
	if (opt.mode != M_HANDSHAKES)
		return;
	uint64_t now = now_ns();
	if (clean && in_window(now)) {
		cycles++;
		record_sample(now - c->started);
	}
	/* The slot starts again from the main loop (never from here: a failure could recurse). */
	c->restart_at = clean ? now : now + 10000000ull;
}

/* MARK: receiving */

static int header_has_token(const char *value, size_t length, const char *token)
{
	size_t token_length = strlen(token);
	for (size_t i = 0; i + token_length <= length; i++) {
		if (strncasecmp(value + i, token, token_length) == 0) {
			int starts = i == 0 || value[i - 1] == ',' || value[i - 1] == ' ' || value[i - 1] == '\t';
			size_t after = i + token_length;
			int ends = after == length || value[after] == ',' || value[after] == ' ' || value[after] == '\t';
			if (starts && ends)
				return 1;
		}
	}
	return 0;
}

/* Checks the response head in c->in; returns the bytes it took, 0 when incomplete, -1 (failed). */
static long parse_response(struct conn *c)
{
	const unsigned char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
	if (!end) {
		if (c->in_len > MAX_RESPONSE_HEAD) {
			fail(c, "response head over %d bytes", MAX_RESPONSE_HEAD);
			return -1;
		}
		return 0;
	}
	size_t head_length = (size_t)(end - c->in) + 4;
	if (head_length > MAX_RESPONSE_HEAD) {
		fail(c, "response head over %d bytes", MAX_RESPONSE_HEAD);
		return -1;
	}
	const char *head = (const char *)c->in;
	const char *line_end = memchr(head, '\r', head_length);
	size_t status_length = (size_t)(line_end - head);
	if (status_length < 12 || memcmp(head, "HTTP/1.1 101", 12) != 0 ||
	    (status_length > 12 && head[12] != ' ')) {
		char status[64];
		size_t shown = status_length < sizeof status - 1 ? status_length : sizeof status - 1;
		for (size_t i = 0; i < shown; i++)
			status[i] = isprint((unsigned char)head[i]) ? head[i] : '?';
		status[shown] = 0;
		fail(c, "no 101: \"%s\"", status);
		return -1;
	}
	int upgrade = 0, connection = 0, accept = 0;
	const char *line = line_end + 2;
	const char *stop = head + head_length - 2;
	while (line < stop) {
		const char *next = memchr(line, '\r', (size_t)(stop - line) + 1);
		if (!next)
			next = stop;
		const char *colon = memchr(line, ':', (size_t)(next - line));
		if (!colon) {
			fail(c, "malformed header line");
			return -1;
		}
		size_t name_length = (size_t)(colon - line);
		const char *value = colon + 1;
		while (value < next && (*value == ' ' || *value == '\t'))
			value++;
		const char *value_end = next;
		while (value_end > value && (value_end[-1] == ' ' || value_end[-1] == '\t'))
			value_end--;
		size_t value_length = (size_t)(value_end - value);
		if (name_length == 7 && strncasecmp(line, "upgrade", 7) == 0)
			upgrade = header_has_token(value, value_length, "websocket");
		else if (name_length == 10 && strncasecmp(line, "connection", 10) == 0)
			connection = connection || header_has_token(value, value_length, "upgrade");
		else if (name_length == 20 && strncasecmp(line, "sec-websocket-accept", 20) == 0)
			accept = value_length == strlen(c->accept) && memcmp(value, c->accept, value_length) == 0;
		else if (name_length == 24 && strncasecmp(line, "sec-websocket-extensions", 24) == 0) {
			fail(c, "the server accepted an extension nobody offered");
			return -1;
		} else if (name_length == 22 && strncasecmp(line, "sec-websocket-protocol", 22) == 0) {
			fail(c, "the server chose a subprotocol nobody offered");
			return -1;
		}
		line = next + 2;
	}
	if (!upgrade || !connection || !accept) {
		fail(c, "bad 101: %s", !upgrade ? "Upgrade: websocket missing"
				       : !connection ? "Connection: Upgrade missing" : "wrong Sec-WebSocket-Accept");
		return -1;
	}
	return (long)head_length;
}

/* broadcast: a message has arrived whole: the next of the round's K, whole and in order. */
static void deliver_broadcast(struct conn *c, int opcode, const unsigned char *payload, size_t length, uint64_t now)
{
	if (!round_active || c->recv_seq >= (uint64_t)opt.messages) {
		fail(c, "a message outside a round (opcode %d, %zu bytes)", opcode, length);
		return;
	}
	if (opcode != 2) {
		fail(c, "broadcast message %llu of the wrong kind (opcode %d)", (unsigned long long)c->recv_seq, opcode);
		return;
	}
	if (length != (size_t)opt.size) {
		fail(c, "broadcast message %llu of %zu bytes, expected %ld", (unsigned long long)c->recv_seq, length, opt.size);
		return;
	}
	uint64_t sequence = 0;
	for (size_t i = 0; i < BROADCAST_SEQ_LENGTH; i++)
		sequence = sequence << 8 | payload[i];
	if (sequence != c->recv_seq) {
		fail(c, "broadcast message %llu where %llu was due", (unsigned long long)sequence,
		     (unsigned long long)c->recv_seq);
		return;
	}
	if (memcmp(payload + BROADCAST_SEQ_LENGTH, pattern + BROADCAST_SEQ_LENGTH, length - BROADCAST_SEQ_LENGTH) != 0) {
		fail(c, "broadcast message %llu garbled", (unsigned long long)sequence);
		return;
	}
	c->recv_seq++;
	received_total++;
	if (opt.latency)
		record_group_sample(conn_group(c), now - round_start);
	if (c->recv_seq == (uint64_t)opt.messages) {
		round_complete++;
		if (round_complete == 1)
			round_first = now;
		if (round_complete == conn_count)
			round_last = now;
	}
}

/* An echo has arrived whole: checks it against the oldest message awaiting one. */
static void deliver(struct conn *c, int opcode, const unsigned char *payload, size_t length, uint64_t now)
{
	if (c->state != C_OPEN)
		return; /* after our Close: late messages are dropped */
	if (opt.mode == M_BROADCAST) {
		deliver_broadcast(c, opcode, payload, length, now);
		return;
	}
	if (c->ring_count == 0) {
		fail(c, "a message nobody sent (%zu bytes)", length);
		return;
	}
	if (opcode != (opt.text ? 1 : 2)) {
		fail(c, "echo of the wrong kind (opcode %d)", opcode);
		return;
	}
	if (length != (size_t)opt.size) {
		fail(c, "echo of %zu bytes, sent %ld", length, opt.size);
		return;
	}
	unsigned char prefix[16];
	write_sequence(prefix, c->recv_seq);
	if (memcmp(payload, prefix, seq_length) != 0 ||
	    memcmp(payload + seq_length, pattern + seq_length, length - seq_length) != 0) {
		fail(c, "echo %llu garbled or out of order", (unsigned long long)c->recv_seq);
		return;
	}
	uint64_t sent = c->sent_at[c->ring_head];
	c->ring_head = (c->ring_head + 1) % c->ring_cap;
	c->ring_count--;
	c->recv_seq++;
	on_echo(c, now, now - sent);
}

static int append_message(struct conn *c, const unsigned char *payload, size_t length)
{
	if (length > MAX_PAYLOAD - c->msg_len) {
		fail(c, "message over %u bytes", MAX_PAYLOAD);
		return -1;
	}
	if (reserve(&c->msg, &c->msg_cap, c->msg_len + length)) {
		fail(c, "out of memory");
		return -1;
	}
	if (length)
		memcpy(c->msg + c->msg_len, payload, length);
	c->msg_len += length;
	return 0;
}

/* One whole frame from the server. */
static void on_frame(struct conn *c, int fin, int opcode, const unsigned char *payload, size_t length, uint64_t now)
{
	switch (opcode) {
	case 0:
		if (!c->msg_opcode) {
			fail(c, "continuation frame without a message");
			return;
		}
		if (append_message(c, payload, length))
			return;
		if (fin) {
			int kind = c->msg_opcode;
			c->msg_opcode = 0;
			deliver(c, kind, c->msg, c->msg_len, now);
			c->msg_len = 0;
		}
		return;
	case 1:
	case 2:
		if (c->msg_opcode) {
			fail(c, "new message inside a fragmented one");
			return;
		}
		if (fin) {
			deliver(c, opcode, payload, length, now);
			return;
		}
		c->msg_opcode = opcode;
		c->msg_len = 0;
		(void)append_message(c, payload, length);
		return;
	case 8: {
		if (length == 1) {
			fail(c, "Close frame with a 1-byte body");
			return;
		}
		int code = length >= 2 ? payload[0] << 8 | payload[1] : 1005;
		if (c->state == C_CLOSING) {
			c->state = C_CLOSE_WAIT;
			c->deadline = now + FIN_TIMEOUT_NS;
			if (code != 1000)
				report(c, "the server answered our Close with %d", code);
			return;
		}
		if (c->state == C_OPEN) {
			fail(c, "the server closed the connection (%d)", code);
			return;
		}
		return;
	}
	case 9:
		if (c->state == C_OPEN && append_frame(c, 10, payload, length, NULL, 0) == 0)
			(void)flush(c);
		return;
	case 10:
		return;
	default:
		fail(c, "unknown opcode %d", opcode);
		return;
	}
}

/* Parses what has arrived: the 101, then frames. */
static void process_input(struct conn *c, uint64_t now)
{
	size_t pos = 0;
	if (c->state == C_HANDSHAKE) {
		long taken = parse_response(c);
		if (taken <= 0)
			return;
		pos = (size_t)taken;
		c->state = C_OPEN;
		c->deadline = 0;
		on_open(c, now);
		if (c->state == C_FAILED)
			return;
	}
	while (c->state == C_OPEN || c->state == C_CLOSING || c->state == C_CLOSE_WAIT) {
		size_t available = c->in_len - pos;
		if (available < 2)
			break;
		const unsigned char *p = c->in + pos;
		int fin = p[0] & 0x80, opcode = p[0] & 0x0f;
		if (p[0] & 0x70) {
			fail(c, "reserved bits set (no extension was agreed)");
			return;
		}
		if (p[1] & 0x80) {
			fail(c, "masked frame from the server");
			return;
		}
		size_t header = 2;
		uint64_t length = p[1] & 0x7f;
		if (length == 126) {
			if (available < 4)
				break;
			length = (uint64_t)p[2] << 8 | p[3];
			header = 4;
		} else if (length == 127) {
			if (available < 10)
				break;
			length = 0;
			for (int i = 2; i < 10; i++)
				length = length << 8 | p[i];
			if (length >> 63) {
				fail(c, "frame length with the top bit set");
				return;
			}
			header = 10;
		}
		if (opcode >= 8 && (!fin || length > 125)) {
			fail(c, "control frame fragmented or over 125 bytes");
			return;
		}
		if (length > MAX_PAYLOAD) {
			fail(c, "frame of %llu bytes", (unsigned long long)length);
			return;
		}
		if (available - header < length) {
			/* Incomplete: make room for the whole frame. */
			if (reserve(&c->in, &c->in_cap, header + (size_t)length + 4096)) {
				fail(c, "out of memory");
				return;
			}
			break;
		}
		pos += header;
		on_frame(c, fin != 0, opcode, c->in + pos, (size_t)length, now);
		pos += (size_t)length;
	}
	if (c->state == C_FAILED || c->state == C_DONE)
		return;
	if (pos > 0) {
		memmove(c->in, c->in + pos, c->in_len - pos);
		c->in_len -= pos;
	}
}

static void on_readable(struct conn *c)
{
	if (c->in_cap - c->in_len < 4096 && reserve(&c->in, &c->in_cap, c->in_len + 16384)) {
		fail(c, "out of memory");
		return;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		if (c->state == C_CLOSE_WAIT) {
			finish(c);
			return;
		}
		fail(c, "read: %s", strerror(errno));
		return;
	}
	if (n == 0) {
		switch (c->state) {
		case C_CLOSE_WAIT:
			finish(c);
			return;
		case C_CLOSING:
			fail(c, "the server closed TCP without a Close frame");
			return;
		default:
			fail(c, "the server closed TCP%s", c->state == C_HANDSHAKE ? " before its 101" : "");
			return;
		}
	}
	c->in_len += (size_t)n;
	process_input(c, now_ns());
	if (c->state != C_FAILED && c->state != C_DONE && c->out_len > c->out_off)
		(void)flush(c);
}

static void on_event(struct conn *c, uint32_t events)
{
	if (c->state == C_CONNECTING) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		int error = 0;
		socklen_t size = sizeof error;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0)
			error = errno;
		if (error) {
			fail(c, "connect: %s", strerror(error));
			return;
		}
		c->state = C_HANDSHAKE;
		if (flush(c))
			return;
	}
	if ((events & EPOLLOUT) && c->out_len > c->out_off) {
		if (flush(c))
			return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		on_readable(c);
}

/* MARK: the run */

static void check_deadlines(uint64_t now)
{
	for (long i = 0; i < conn_count; i++) {
		struct conn *c = &conns[i];
		if (!c->deadline || now < c->deadline)
			continue;
		switch (c->state) {
		case C_CONNECTING:
		case C_HANDSHAKE:
			fail(c, "no 101 within %.0f s", opt.timeout);
			break;
		case C_CLOSING:
			fail(c, "no Close from the server within %llu s", CLOSE_TIMEOUT_NS / 1000000000ull);
			break;
		case C_CLOSE_WAIT:
			fin_timeouts++;
			finish(c);
			break;
		default:
			c->deadline = 0;
			break;
		}
	}
}

/* The end of the closing phase: whatever has not ended now fails (or, waiting only for the
 * server's FIN, ends). */
static void abandon_all(void)
{
	for (long i = 0; i < conn_count; i++) {
		struct conn *c = &conns[i];
		switch (c->state) {
		case C_CLOSE_WAIT:
			fin_timeouts++;
			finish(c);
			break;
		case C_CONNECTING:
		case C_HANDSHAKE:
		case C_OPEN:
		case C_CLOSING:
			fail(c, "did not end in time");
			break;
		default:
			break;
		}
	}
}

static void start_traffic(uint64_t now)
{
	phase = P_RUNNING;
	double warmup = opt.mode == M_IDLE || opt.mode == M_STEADY || opt.mode == M_BROADCAST ? 0 : opt.warmup;
	double seconds = opt.mode == M_IDLE ? opt.hold : opt.mode == M_BROADCAST ? 0 : opt.seconds;
	window_start = now + (uint64_t)(warmup * 1e9);
	window_end = window_start + (uint64_t)(seconds * 1e9);
	if (opt.mode == M_PINGPONG || opt.mode == M_PIPELINE) {
		long burst = opt.mode == M_PIPELINE ? opt.depth : 1;
		for (long i = 0; i < conn_count; i++) {
			struct conn *c = &conns[i];
			if (c->state != C_OPEN)
				continue;
			for (long k = 0; k < burst && c->state == C_OPEN; k++)
				(void)send_message(c, now);
			if (c->state == C_OPEN)
				(void)flush(c);
		}
	}
	if (opt.mode == M_IDLE) {
		printf("ready opened=%llu failed=%llu\n", (unsigned long long)opened, (unsigned long long)open_failed);
		fflush(stdout);
	}
}

static void start_closing(uint64_t now)
{
	phase = P_CLOSING;
	for (long i = 0; i < conn_count; i++) {
		struct conn *c = &conns[i];
		if (c->state == C_OPEN) {
			missing += c->ring_count;
			if (c->ring_count)
				report(c, "%u echoes missing", c->ring_count);
			(void)send_close(c, now);
		} else if (c->state == C_CONNECTING || c->state == C_HANDSHAKE) {
			fail(c, "still not open at the end");
		}
	}
	errors += missing;
}

static int any_in_flight(void)
{
	for (long i = 0; i < conn_count; i++)
		if (conns[i].state == C_OPEN && conns[i].ring_count)
			return 1;
	return 0;
}

static int any_active(void)
{
	for (long i = 0; i < conn_count; i++) {
		enum cstate s = conns[i].state;
		if (s == C_CONNECTING || s == C_HANDSHAKE || s == C_OPEN || s == C_CLOSING || s == C_CLOSE_WAIT)
			return 1;
	}
	return 0;
}

/* steady: the k-th send overall goes to connection k % N at start + k * interval / N. */
static uint64_t steady_start, steady_slot;

static uint64_t steady_time(uint64_t slot)
{
	return steady_start + (uint64_t)((double)slot * (double)opt.interval_ms * 1e6 / (double)conn_count);
}

static void steady_send_due(uint64_t now)
{
	while (steady_time(steady_slot) <= now && steady_time(steady_slot) < window_end) {
		struct conn *c = &conns[steady_slot % (uint64_t)conn_count];
		steady_slot++;
		if (c->state != C_OPEN)
			continue;
		if (send_message(c, now) == 0 && c->state == C_OPEN)
			(void)flush(c);
	}
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* broadcast: ends the round under way when it is complete (or failed, timed out, interrupted) and
 * starts the next; returns 1 when there is nothing more to do. */
static int broadcast_step(uint64_t now)
{
	if (round_active) {
		if (round_complete == conn_count) {
			round_first_ns[rounds_done] = round_first - round_start;
			round_last_ns[rounds_done] = round_last - round_start;
			rounds_done++;
			round_active = 0;
		} else if (errors || stop_requested || now >= round_deadline) {
			round_active = 0;
			if (errors || stop_requested)
				return 1; /* described already, or interrupted: the round is not counted */
			uint64_t short_of = 0;
			for (long i = 0; i < conn_count; i++) {
				struct conn *c = &conns[i];
				if (c->state != C_OPEN || c->recv_seq >= (uint64_t)opt.messages)
					continue;
				short_of += (uint64_t)opt.messages - c->recv_seq;
				report(c, "%llu of %ld messages after %.0f s", (unsigned long long)c->recv_seq, opt.messages,
				       opt.timeout);
			}
			missing += short_of;
			errors += short_of ? short_of : 1;
			return 1;
		} else {
			return 0;
		}
	}
	if (errors || stop_requested || rounds_done >= opt.rounds || opened < (uint64_t)conn_count)
		return 1;
	struct conn *first = &conns[0];
	if (first->state != C_OPEN)
		return 1;
	for (long i = 0; i < conn_count; i++)
		conns[i].recv_seq = 0;
	round_complete = 0;
	round_active = 1;
	char request[64];
	int length = snprintf(request, sizeof request, "%s %ld %ld", opt.publish ? "publish" : "broadcast", opt.messages,
			      opt.size);
	if (append_frame(first, 1, (const unsigned char *)request, (size_t)length, NULL, 0) || flush(first))
		return 1;
	round_start = now_ns();
	round_deadline = round_start + (uint64_t)(opt.timeout * 1e9);
	return 0;
}

/* The median of `count` values (sorted in place); 0 for none. */
static double median_ns(uint64_t *values, long count)
{
	if (count <= 0)
		return 0;
	qsort(values, (size_t)count, sizeof *values, compare_u64);
	if (count % 2)
		return (double)values[count / 2];
	return ((double)values[count / 2 - 1] + (double)values[count / 2]) / 2;
}

static double percentile_us(double fraction)
{
	if (!sample_count)
		return 0;
	size_t at = (size_t)((double)(sample_count - 1) * fraction + 0.5);
	return (double)samples[at] / 1000.0;
}

/* A group's arrival percentile in ms (its samples sorted on the first call). */
static double group_percentile_ms(int group, double fraction)
{
	static int sorted[2];
	if (!group_count[group])
		return 0;
	if (!sorted[group]) {
		qsort(group_samples[group], group_count[group], sizeof *group_samples[group], compare_u64);
		sorted[group] = 1;
	}
	size_t at = (size_t)((double)(group_count[group] - 1) * fraction + 0.5);
	return (double)group_samples[group][at] / 1e6;
}

static void run(void)
{
	uint64_t begin = now_ns();
	uint64_t drain_deadline = 0, closing_deadline = 0, last_check = begin;
	uint64_t opened_at = 0, held_until = 0;
	if (opt.mode == M_IDLE) {
		/* Standard input ends the hold when it closes: a pipe, a socket or a terminal (not
		 * /dev/null, nor a file, which are always at their end). */
		struct stat info;
		if (fstat(0, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode) || isatty(0))) {
			struct epoll_event event = { .events = EPOLLIN, .data.u64 = STDIN_TAG };
			(void)epoll_ctl(epoll_fd, EPOLL_CTL_ADD, 0, &event);
		}
	}
	int stdin_closed = 0;

	if (opt.mode == M_HANDSHAKES) {
		start_traffic(begin);
		for (long i = 0; i < conn_count; i++)
			conns[i].restart_at = begin;
	} else {
		phase = P_OPENING;
	}

	struct epoll_event events[256];
	for (;;) {
		uint64_t now = now_ns();
		if (stop_requested && (phase == P_OPENING || phase == P_RUNNING)) {
			if (phase == P_OPENING)
				phase = P_RUNNING; /* no new connections; the window ends now */
			if (window_end > now || !window_end)
				window_end = now;
			if (window_start > window_end)
				window_start = window_end;
		}
		switch (phase) {
		case P_OPENING:
			while (opening_in_flight < opt.batch && next_to_open < conn_count) {
				opening_in_flight++;
				start_connection(&conns[next_to_open++], now);
			}
			if (next_to_open == conn_count && opening_in_flight == 0 && opened == 0 && opt.mode != M_IDLE) {
				/* Not one connection: nothing to measure. */
				phase = P_CLOSING;
				closing_deadline = now;
			} else if (next_to_open == conn_count && opening_in_flight == 0) {
				opened_at = now;
				start_traffic(now);
				if (opt.mode == M_STEADY) {
					steady_start = now;
					steady_slot = 0;
				}
			}
			break;
		case P_RUNNING:
			if (opt.mode == M_HANDSHAKES) {
				for (long i = 0; i < conn_count && now < window_end; i++) {
					struct conn *c = &conns[i];
					if ((c->state == C_UNUSED || c->state == C_DONE || c->state == C_FAILED) && now >= c->restart_at)
						start_connection(c, now);
				}
			}
			if (opt.mode == M_STEADY)
				steady_send_due(now);
			if (opt.mode == M_BROADCAST ? broadcast_step(now)
						    : now >= window_end || (opt.mode == M_IDLE && stdin_closed)) {
				held_until = now;
				phase = P_DRAINING;
				drain_deadline = now + DRAIN_TIMEOUT_NS;
			}
			break;
		case P_DRAINING:
			if (opt.mode == M_HANDSHAKES) {
				/* Cycles still under way end on their own (not counted). */
				phase = P_CLOSING;
				closing_deadline = now + (uint64_t)(opt.timeout * 1e9) + CLOSE_TIMEOUT_NS + FIN_TIMEOUT_NS;
				break;
			}
			if (!any_in_flight() || now >= drain_deadline) {
				start_closing(now);
				closing_deadline = now + CLOSE_TIMEOUT_NS + FIN_TIMEOUT_NS + 1000000000ull;
			}
			break;
		case P_CLOSING:
			if (!any_active())
				phase = P_END;
			else if (now >= closing_deadline)
				abandon_all();
			break;
		case P_END:
			break;
		}
		if (phase == P_END)
			break;
		if (now - last_check >= 50000000ull) {
			check_deadlines(now);
			last_check = now;
		}

		int timeout = 50;
		if (opt.mode == M_STEADY && phase == P_RUNNING) {
			uint64_t next = steady_time(steady_slot);
			uint64_t wait = next > now ? (next - now + 999999) / 1000000 : 0;
			if (wait < (uint64_t)timeout)
				timeout = (int)wait;
		}
		if (phase == P_OPENING && opening_in_flight < opt.batch && next_to_open < conn_count)
			timeout = 0;
		int n = epoll_wait(epoll_fd, events, 256, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "wsload: epoll_wait: %s\n", strerror(errno));
			errors++;
			break;
		}
		for (int i = 0; i < n; i++) {
			uint64_t tag = events[i].data.u64;
			if (tag == STDIN_TAG) {
				char discard[256];
				ssize_t r = read(0, discard, sizeof discard);
				if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR))) {
					stdin_closed = 1;
					(void)epoll_ctl(epoll_fd, EPOLL_CTL_DEL, 0, NULL);
				}
				continue;
			}
			uint32_t index = (uint32_t)(tag >> 32), generation = (uint32_t)tag;
			if (index >= (uint64_t)conn_count)
				continue;
			struct conn *c = &conns[index];
			if (c->generation != generation || c->fd < 0)
				continue;
			on_event(c, events[i].events);
		}
	}

	uint64_t end = now_ns();
	double window = window_end > window_start ? (double)(window_end - window_start) / 1e9 : 0;
	if (opt.mode == M_IDLE || opt.mode == M_STEADY)
		window = held_until > opened_at && opened_at ? (double)(held_until - opened_at) / 1e9 : 0;
	/* broadcast: the median round, and the slowest and fastest. */
	double delivered = (double)opt.conns * (double)opt.messages;
	double first_ns = median_ns(round_first_ns, rounds_done);
	double last_ns = median_ns(round_last_ns, rounds_done); /* sorted now: [0] is the fastest */
	double slowest = rounds_done ? (double)round_last_ns[rounds_done - 1] : 0;
	double fastest = rounds_done ? (double)round_last_ns[0] : 0;
	if (sample_count > 1)
		qsort(samples, sample_count, sizeof *samples, compare_u64);
	double max_us = sample_count ? (double)samples[sample_count - 1] / 1000.0 : 0;

	printf("mode=%s", mode_names[opt.mode]);
	switch (opt.mode) {
	case M_PINGPONG:
	case M_PIPELINE:
		printf(" conns=%ld", opt.conns);
		if (opt.mode == M_PIPELINE)
			printf(" depth=%ld", opt.depth);
		printf(" size=%ld seconds=%.3f messages=%llu rate=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f", opt.size,
		       window, (unsigned long long)messages, window > 0 ? (double)messages / window : 0,
		       percentile_us(0.50), percentile_us(0.99), max_us);
		break;
	case M_HANDSHAKES:
		printf(" parallel=%ld seconds=%.3f cycles=%llu rate=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f fin_timeouts=%llu",
		       opt.parallel, window, (unsigned long long)cycles, window > 0 ? (double)cycles / window : 0,
		       percentile_us(0.50), percentile_us(0.99), max_us, (unsigned long long)fin_timeouts);
		break;
	case M_IDLE:
		printf(" conns=%ld opened=%llu failed=%llu open_s=%.3f held_s=%.3f closed=%llu close_errors=%llu fin_timeouts=%llu",
		       opt.conns, (unsigned long long)opened, (unsigned long long)open_failed,
		       opened_at ? (double)(opened_at - begin) / 1e9 : 0, window, (unsigned long long)closed_clean,
		       (unsigned long long)close_errors, (unsigned long long)fin_timeouts);
		break;
	case M_STEADY:
		printf(" conns=%ld interval_ms=%ld size=%ld seconds=%.3f opened=%llu sent=%llu received=%llu missing=%llu"
		       " skipped=%llu p50_us=%.1f p99_us=%.1f max_us=%.1f",
		       opt.conns, opt.interval_ms, opt.size, window, (unsigned long long)opened, (unsigned long long)sent_total,
		       (unsigned long long)messages, (unsigned long long)missing, (unsigned long long)skipped,
		       percentile_us(0.50), percentile_us(0.99), max_us);
		break;
	case M_BROADCAST:
		printf(" request=%s conns=%ld messages=%ld size=%ld rounds=%ld completed=%ld opened=%llu failed=%llu open_s=%.3f"
		       " delivered=%.0f seconds=%.6f rate=%.1f first_ms=%.3f last_ms=%.3f min_rate=%.1f max_rate=%.1f"
		       " received=%llu missing=%llu closed=%llu",
		       opt.publish ? "publish" : "broadcast", opt.conns, opt.messages, opt.size, opt.rounds, rounds_done,
		       (unsigned long long)opened, (unsigned long long)open_failed, opened_at ? (double)(opened_at - begin) / 1e9 : 0, delivered,
		       last_ns / 1e9, last_ns > 0 ? delivered / (last_ns / 1e9) : 0, first_ns / 1e6, last_ns / 1e6,
		       slowest > 0 ? delivered / (slowest / 1e9) : 0, fastest > 0 ? delivered / (fastest / 1e9) : 0,
		       (unsigned long long)received_total, (unsigned long long)missing, (unsigned long long)closed_clean);
		if (opt.latency) {
			printf(" arrival_p50_ms=%.3f arrival_p99_ms=%.3f", group_percentile_ms(0, 0.50), group_percentile_ms(0, 0.99));
			if (opt.port2)
				printf(" port2_arrival_p50_ms=%.3f port2_arrival_p99_ms=%.3f", group_percentile_ms(1, 0.50),
				       group_percentile_ms(1, 0.99));
		}
		break;
	}
	printf(" errors=%llu total_s=%.3f\n", (unsigned long long)errors, (double)(end - begin) / 1e9);
	fflush(stdout);
}

/* MARK: the command line */

static void usage(const char *message)
{
	if (message)
		fprintf(stderr, "wsload: %s\n", message);
	fprintf(stderr,
		"usage: wsload pingpong   --port P [--conns 1] [--size 256] [--seconds 5]\n"
		"       wsload pipeline   --port P [--conns 1] [--depth 64] [--size 256] [--seconds 5]\n"
		"       wsload handshakes --port P [--parallel 16] [--seconds 5]\n"
		"       wsload idle       --port P --conns N [--hold 60]\n"
		"       wsload steady     --port P --conns N [--interval-ms 1000] [--seconds 60] [--size 256]\n"
		"       wsload broadcast  --port P --conns N [--messages 100] [--size 1024] [--rounds 1] [--publish]\n"
		"                         [--port2 P2] [--latency]\n"
		"options for all: [--host 127.0.0.1] [--text] [--fragment BYTES] [--warmup 0.5] [--batch 256] [--timeout 30]\n"
		"                 [--path /]\n");
	exit(2);
}

static long parse_long(const char *name, const char *text, long min, long max)
{
	char *end = NULL;
	errno = 0;
	long value = strtol(text, &end, 10);
	if (!*text || *end || errno || value < min || value > max) {
		char message[160];
		snprintf(message, sizeof message, "%s: expected an integer from %ld to %ld, got \"%.40s\"", name, min, max, text);
		usage(message);
	}
	return value;
}

static double parse_seconds(const char *name, const char *text, double min, double max)
{
	char *end = NULL;
	errno = 0;
	double value = strtod(text, &end);
	if (!*text || *end || errno || !(value >= min && value <= max)) {
		char message[160];
		snprintf(message, sizeof message, "%s: expected seconds from %g to %g, got \"%.40s\"", name, min, max, text);
		usage(message);
	}
	return value;
}

static void parse_arguments(int argc, char **argv)
{
	if (argc < 2)
		usage(NULL);
	int found = 0;
	for (int m = 0; m < (int)(sizeof mode_names / sizeof *mode_names); m++) {
		if (strcmp(argv[1], mode_names[m]) == 0) {
			opt.mode = (enum mode)m;
			found = 1;
		}
	}
	if (!found)
		usage("unknown mode");
	opt.port = -1;
	opt.conns = -1;
	opt.size = -1;
	opt.messages = -1;
	opt.rounds = -1;
	opt.depth = 64;
	opt.parallel = 16;
	opt.batch = 256;
	opt.interval_ms = 1000;
	opt.seconds = -1;
	opt.warmup = 0.5;
	opt.hold = 60;
	opt.timeout = 30;
	opt.path = "/";
	const char *host = "127.0.0.1";
	for (int i = 2; i < argc; i++) {
		const char *name = argv[i];
		if (strcmp(name, "--text") == 0) {
			opt.text = 1;
			continue;
		}
		if (strcmp(name, "--publish") == 0) {
			opt.publish = 1;
			continue;
		}
		if (strcmp(name, "--latency") == 0) {
			opt.latency = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage("an option without its value");
		const char *value = argv[++i];
		if (strcmp(name, "--host") == 0)
			host = value;
		else if (strcmp(name, "--port") == 0)
			opt.port = (int)parse_long(name, value, 1, 65535);
		else if (strcmp(name, "--port2") == 0)
			opt.port2 = (int)parse_long(name, value, 1, 65535);
		else if (strcmp(name, "--conns") == 0)
			opt.conns = parse_long(name, value, 1, 1000000);
		else if (strcmp(name, "--size") == 0)
			opt.size = parse_long(name, value, 0, MAX_PAYLOAD);
		else if (strcmp(name, "--depth") == 0)
			opt.depth = parse_long(name, value, 1, 65536);
		else if (strcmp(name, "--parallel") == 0)
			opt.parallel = parse_long(name, value, 1, 100000);
		else if (strcmp(name, "--fragment") == 0)
			opt.fragment = parse_long(name, value, 0, MAX_PAYLOAD);
		else if (strcmp(name, "--batch") == 0)
			opt.batch = parse_long(name, value, 1, 100000);
		else if (strcmp(name, "--messages") == 0)
			opt.messages = parse_long(name, value, 1, MAX_BROADCAST_MESSAGES);
		else if (strcmp(name, "--rounds") == 0)
			opt.rounds = parse_long(name, value, 1, 10000);
		else if (strcmp(name, "--interval-ms") == 0)
			opt.interval_ms = parse_long(name, value, 1, 3600000);
		else if (strcmp(name, "--seconds") == 0)
			opt.seconds = parse_seconds(name, value, 0.001, 86400);
		else if (strcmp(name, "--warmup") == 0)
			opt.warmup = parse_seconds(name, value, 0, 3600);
		else if (strcmp(name, "--hold") == 0)
			opt.hold = parse_seconds(name, value, 0, 86400 * 7.0);
		else if (strcmp(name, "--timeout") == 0)
			opt.timeout = parse_seconds(name, value, 0.1, 3600);
		else if (strcmp(name, "--path") == 0) {
			if (value[0] != '/' || strlen(value) > 200 || strpbrk(value, " \r\n\t"))
				usage("--path: expected /something, at most 200 characters, no spaces");
			opt.path = value;
		} else {
			char message[120];
			snprintf(message, sizeof message, "unknown option \"%.60s\"", name);
			usage(message);
		}
	}
	if (opt.port < 0)
		usage("--port is required");
	if (inet_pton(AF_INET, host, &opt.host) != 1)
		usage("--host: expected an IPv4 address");
	if ((ntohl(opt.host.s_addr) >> 24) != 127)
		usage("--host: loopback addresses only (127.0.0.0/8)");
	inet_ntop(AF_INET, &opt.host, opt.host_text, sizeof opt.host_text);
	if (opt.mode != M_BROADCAST && (opt.messages >= 0 || opt.rounds >= 0))
		usage("--messages and --rounds are for broadcast");
	if (opt.mode != M_BROADCAST && opt.publish)
		usage("--publish is for broadcast");
	if (opt.mode != M_BROADCAST && (opt.port2 || opt.latency))
		usage("--port2 and --latency are for broadcast");
	if (opt.size < 0)
		opt.size = opt.mode == M_BROADCAST ? 1024 : 256;
	switch (opt.mode) {
	case M_PINGPONG:
	case M_PIPELINE:
		if (opt.conns < 0)
			opt.conns = 1;
		if (opt.seconds < 0)
			opt.seconds = 5;
		break;
	case M_HANDSHAKES:
		opt.conns = opt.parallel;
		if (opt.seconds < 0)
			opt.seconds = 5;
		break;
	case M_IDLE:
		if (opt.conns < 0)
			usage("idle: --conns is required");
		break;
	case M_STEADY:
		if (opt.conns < 0)
			usage("steady: --conns is required");
		if (opt.seconds < 0)
			opt.seconds = 60;
		break;
	case M_BROADCAST:
		if (opt.conns < 0)
			usage("broadcast: --conns is required");
		if (opt.text || opt.fragment > 0)
			usage("broadcast: the messages are the server's, binary: --text and --fragment do not apply");
		if (opt.messages < 0)
			opt.messages = 100;
		if (opt.rounds < 0)
			opt.rounds = 1;
		if (opt.size < BROADCAST_SEQ_LENGTH || opt.size > MAX_BROADCAST_SIZE)
			usage("broadcast: --size: expected 8 to 1048576 bytes");
		if (opt.messages * opt.size > MAX_BROADCAST_BYTES)
			usage("broadcast: --messages times --size over 64 MiB (the server echoes such a request)");
		break;
	}
}

/* Raises the soft descriptor limit to the hard one; returns the soft limit in force. */
static rlim_t raise_descriptor_limit(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
		return 1024;
	if (limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
			(void)getrlimit(RLIMIT_NOFILE, &limit);
	}
	return limit.rlim_cur;
}

int main(int argc, char **argv)
{
	parse_arguments(argc, argv);
	rlim_t descriptors = raise_descriptor_limit();
	if ((rlim_t)opt.conns + 16 > descriptors) {
		fprintf(stderr, "wsload: %ld connections need %ld descriptors; the limit is %llu (raise ulimit -n)\n",
			opt.conns, opt.conns + 16, (unsigned long long)descriptors);
		return 2;
	}

	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	signal(SIGPIPE, SIG_IGN);

	seed_random();
	seq_length = (size_t)opt.size < (opt.text ? 16u : 8u) ? (size_t)opt.size : (opt.text ? 16u : 8u);
	pattern = malloc((size_t)opt.size + 1);
	fragment_scratch = malloc((size_t)opt.size + 1);
	if (!pattern || !fragment_scratch) {
		fprintf(stderr, "wsload: out of memory\n");
		return 1;
	}
	for (long i = 0; i < opt.size; i++)
		pattern[i] = opt.text ? (unsigned char)('a' + i % 26) : (unsigned char)(i * 31 + 7);
	if (opt.mode == M_BROADCAST) {
		round_first_ns = calloc((size_t)opt.rounds, sizeof *round_first_ns);
		round_last_ns = calloc((size_t)opt.rounds, sizeof *round_last_ns);
		if (!round_first_ns || !round_last_ns) {
			fprintf(stderr, "wsload: out of memory\n");
			return 1;
		}
	}

	conn_count = opt.conns;
	conns = calloc((size_t)conn_count, sizeof *conns);
	if (!conns) {
		fprintf(stderr, "wsload: out of memory\n");
		return 1;
	}
	uint32_t ring = opt.mode == M_PIPELINE ? (uint32_t)opt.depth : opt.mode == M_STEADY ? MAX_STEADY_IN_FLIGHT : 1;
	for (long i = 0; i < conn_count; i++) {
		conns[i].fd = -1;
		conns[i].index = (uint32_t)i;
		conns[i].ring_cap = ring;
		conns[i].sent_at = malloc(ring * sizeof(uint64_t));
		if (!conns[i].sent_at) {
			fprintf(stderr, "wsload: out of memory\n");
			return 1;
		}
	}
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0) {
		fprintf(stderr, "wsload: epoll_create1: %s\n", strerror(errno));
		return 1;
	}
	run();
	return errors > 0 ? 1 : 0;
}
