// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/*
 * lws-echo: the libwebsockets baseline for Benchmarks/servers/compare.sh.
 *
 *   lws-echo PORT        (0: any free port)
 *
 * One process, one service thread running lws_service() on lws's default (poll) event loop. Every
 * text and binary message is echoed back whole, as one frame of the same kind, however it was
 * fragmented on the way in (messages up to MAX_MESSAGE bytes; a larger one closes the connection
 * with 1009). permessage-deflate is off (no extensions are offered to lws). Prints
 * "listening PORT" on stdout once it accepts connections, and stops on SIGTERM or SIGINT.
 *
 * Per connection, a queue of whole messages waits for the socket to become writable; past
 * QUEUE_HIGH bytes queued the connection stops reading (lws_rx_flow_control) until the queue
 * falls below QUEUE_LOW, so that a client that never reads cannot grow the server without bound.
 */
#include <libwebsockets.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_MESSAGE (16u << 20)
#define QUEUE_HIGH (4u << 20)
#define QUEUE_LOW (1u << 20)

struct message {
	struct message *next;
	size_t length;
	int binary;
	unsigned char bytes[]; /* LWS_PRE bytes of room for lws's frame header, then the payload */
};

struct session {
	struct message *head, *tail;
	size_t queued;        /* payload bytes waiting in the queue */
	int reading_paused;   /* rx flow control is off because the queue is full */
	unsigned char *rx;    /* the message being received: LWS_PRE bytes, then its payload */
	size_t rx_length, rx_capacity;
	int rx_open;          /* a message has started and its final fragment has not come */
	int rx_binary;
};

static volatile sig_atomic_t stopping;

static void on_signal(int number)
{
	(void)number;
	stopping = 1;
}

static void free_session(struct session *session)
{
	struct message *message = session->head;
	while (message) {
		struct message *next = message->next;
		free(message);
		message = next;
	}
	session->head = session->tail = NULL;
	session->queued = 0;
	free(session->rx);
	session->rx = NULL;
	session->rx_length = session->rx_capacity = 0;
}

/* Appends a piece of the message being received; 0, or -1 when it is too large or memory ran out. */
static int append(struct session *session, const void *bytes, size_t length)
{
	if (length > MAX_MESSAGE - session->rx_length)
		return -1;
	size_t needed = session->rx_length + length;
	if (needed > session->rx_capacity) {
		size_t capacity = session->rx_capacity ? session->rx_capacity : 512;
		while (capacity < needed)
			capacity *= 2;
		unsigned char *grown = realloc(session->rx, LWS_PRE + capacity);
		if (!grown)
			return -1;
		session->rx = grown;
		session->rx_capacity = capacity;
	}
	if (length)
		memcpy(session->rx + LWS_PRE + session->rx_length, bytes, length);
	session->rx_length = needed;
	return 0;
}

/* Moves the message just received into the send queue. */
static int enqueue(struct lws *wsi, struct session *session)
{
	struct message *message = malloc(sizeof *message + LWS_PRE + session->rx_length);
	if (!message)
		return -1;
	message->next = NULL;
	message->length = session->rx_length;
	message->binary = session->rx_binary;
	if (session->rx_length)
		memcpy(message->bytes + LWS_PRE, session->rx + LWS_PRE, session->rx_length);
	if (session->tail)
		session->tail->next = message;
	else
		session->head = message;
	session->tail = message;
	session->queued += message->length;
	session->rx_length = 0;
	/* A large buffer is not kept for the next (probably small) message. */
	if (session->rx_capacity > (64u << 10)) {
		free(session->rx);
		session->rx = NULL;
		session->rx_capacity = 0;
	}
	if (!session->reading_paused && session->queued > QUEUE_HIGH) {
		session->reading_paused = 1;
		lws_rx_flow_control(wsi, 0);
	}
	lws_callback_on_writable(wsi);
	return 0;
}

static int callback_echo(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct session *session = user;

	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		memset(session, 0, sizeof *session);
		return 0;

	case LWS_CALLBACK_RECEIVE:
		if (!session->rx_open) {
			session->rx_open = 1;
			session->rx_binary = lws_frame_is_binary(wsi);
			session->rx_length = 0;
		}
		if (append(session, in, len)) {
			static const char reason_text[] = "message too big";
			lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
					 (unsigned char *)reason_text, sizeof reason_text - 1);
			return -1;
		}
		/* The last piece of the last frame of the message: lws may hand one frame over in several
		 * pieces, so the frame's remaining payload is checked as well as its FIN bit. */
		if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
			session->rx_open = 0;
			if (enqueue(wsi, session))
				return -1;
		}
		return 0;

	case LWS_CALLBACK_SERVER_WRITEABLE: {
		struct message *message = session->head;
		if (!message)
			return 0;
		int written = lws_write(wsi, message->bytes + LWS_PRE, message->length,
					message->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
		if (written < 0 || (size_t)written < message->length)
			return -1;
		session->head = message->next;
		if (!session->head)
			session->tail = NULL;
		session->queued -= message->length;
		free(message);
		if (session->reading_paused && session->queued < QUEUE_LOW) {
			session->reading_paused = 0;
			lws_rx_flow_control(wsi, 1);
		}
		if (session->head)
			lws_callback_on_writable(wsi);
		return 0;
	}

	case LWS_CALLBACK_CLOSED:
		free_session(session);
		return 0;

	default:
		/* The HTTP side of the connection before the upgrade. */
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
	/* First, so that clients asking for no subprotocol get it. */
	{ .name = "echo", .callback = callback_echo, .per_session_data_size = sizeof(struct session),
	  .rx_buffer_size = 0, .tx_packet_size = 0 },
	{ .name = NULL },
};

/* Raises the soft limit on descriptors to the hard limit; returns the soft limit in force. */
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
	if (argc != 2) {
		fprintf(stderr, "usage: lws-echo PORT\n");
		return 2;
	}
	char *end = NULL;
	long port = strtol(argv[1], &end, 10);
	if (!*argv[1] || *end || port < 0 || port > 65535) {
		fprintf(stderr, "lws-echo: bad port %s\n", argv[1]);
		return 2;
	}

	rlim_t descriptors = raise_descriptor_limit();
	if (descriptors > (1u << 20))
		descriptors = 1u << 20;

	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	signal(SIGPIPE, SIG_IGN);

	lws_set_log_level(LLL_ERR | LLL_WARN, NULL);

	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = (int)port;
	info.iface = "127.0.0.1";
	info.protocols = protocols;
	info.count_threads = 1;
	info.fd_limit_per_thread = (unsigned int)descriptors;
	info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
	/* No idle timeout for open WebSocket connections (lws has none unless asked for pings); the
	 * HTTP request before the upgrade may take up to 10 s, as with our servers. */
	info.timeout_secs = 10;

	struct lws_context *context = lws_create_context(&info);
	if (!context) {
		fprintf(stderr, "lws-echo: lws_create_context failed (port %ld in use?)\n", port);
		return 1;
	}
	struct lws_vhost *vhost = lws_get_vhost_by_name(context, "default");
	int listening = vhost ? lws_get_vhost_listen_port(vhost) : (int)port;
	printf("listening %d\n", listening);
	fflush(stdout);

	int status = 0;
	while (!stopping && status >= 0)
		status = lws_service(context, 0);

	lws_context_destroy(context);
	return 0;
}
