# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

"""Clients of Scripts/interop-redis.sh: rooms shared by two `websocket serve --broadcast --redis`.

    redis-rooms.py across URL1 URL2      two clients on each server in /room, one in /other: what a
                                         client says reaches the others in /room on both servers, in
                                         order per sender, once each, and nobody in /other
    redis-rooms.py restart URL1 URL2 CMD clients stay connected while CMD restarts Redis (it returns
                                         once both servers are back); then the room works again
    redis-rooms.py balanced URL N        N clients through the balancer in /room: one's messages
                                         reach the N - 1 others
"""
import asyncio
import subprocess
import sys

from websockets.asyncio.client import connect

COUNT = 20


async def receive(ws, count, timeout=30):
    """The next `count` messages but probes."""
    texts = []
    while len(texts) < count:
        text = await asyncio.wait_for(ws.recv(), timeout)
        if text != "probe":
            texts.append(text)
    return texts


async def ready(sender, receivers, what):
    """Probes from `sender` until each of `receivers` got one: the room is shared (Redis confirmed
    the servers' subscriptions), an event rather than a guess at how long that takes."""
    pending = set(range(len(receivers)))
    for _ in range(300):
        await sender.send("probe")
        for index in list(pending):
            try:
                while await asyncio.wait_for(receivers[index].recv(), 0.1) != "probe":
                    pass
                pending.discard(index)
            except asyncio.TimeoutError:
                pass
        if not pending:
            return
    sys.exit(f"{what}: the room never reached every client")


async def nothing_more(ws, what):
    """No message but probes within half a second."""
    try:
        while True:
            extra = await asyncio.wait_for(ws.recv(), 0.5)
            if extra != "probe":
                sys.exit(f"{what} got an extra message {extra!r}")
    except asyncio.TimeoutError:
        return


async def say(ws, prefix):
    for index in range(COUNT):
        await ws.send(f"{prefix}{index}")


def check(texts, prefixes, what):
    for prefix in prefixes:
        got = [text for text in texts if text.startswith(prefix)]
        if got != [f"{prefix}{index}" for index in range(COUNT)]:
            sys.exit(f"{what}: {prefix} messages out of order or missing: {got}")


async def across(url1, url2):
    a1, a2 = await connect(url1 + "/room"), await connect(url1 + "/room")
    b1, b2 = await connect(url2 + "/room"), await connect(url2 + "/room")
    other = await connect(url2 + "/other")
    await ready(a1, [a2, b1, b2], "from server 1")
    await ready(b1, [a1, a2, b2], "from server 2")
    await say(a1, "a")
    await say(b1, "b")
    # The sender is excluded: a1 hears b's, b1 hears a's; the others hear both.
    check(await receive(a1, COUNT), ["b"], "a1 (server 1)")
    check(await receive(b1, COUNT), ["a"], "b1 (server 2)")
    check(await receive(a2, 2 * COUNT), ["a", "b"], "a2 (server 1)")
    check(await receive(b2, 2 * COUNT), ["a", "b"], "b2 (server 2)")
    for ws, what in [(a1, "a1"), (a2, "a2"), (b1, "b1"), (b2, "b2"), (other, "/other")]:
        await nothing_more(ws, what)
    print(f"across: {COUNT} messages from a client on each server reached the room on both, in order, once each")


async def restart(url1, url2, command):
    a, b = await connect(url1 + "/room"), await connect(url2 + "/room")
    await ready(a, [b], "before the restart")
    await a.send("before")
    if await receive(b, 1) != ["before"]:
        sys.exit("before the restart: not across")
    result = await asyncio.to_thread(subprocess.run, command, shell=True)
    if result.returncode != 0:
        sys.exit(f"restarting Redis failed: {result.returncode}")
    await ready(b, [a], "after the restart")
    await b.send("after")
    if await receive(a, 1) != ["after"]:
        sys.exit("after the restart: not across")
    print("restart: both clients stayed connected through Redis's restart, and the room works across again")


async def balanced(url, count):
    clients = [await connect(url + "/room") for _ in range(count)]
    await ready(clients[0], clients[1:], "through the balancer")
    await say(clients[0], "x")
    for index, ws in enumerate(clients[1:], 1):
        check(await receive(ws, COUNT), ["x"], f"client {index} through the balancer")
    print(f"balanced: {count} clients through HAProxy, one's messages reached the {count - 1} others")


mode = sys.argv[1]
if mode == "across":
    asyncio.run(across(sys.argv[2], sys.argv[3]))
elif mode == "restart":
    asyncio.run(restart(sys.argv[2], sys.argv[3], sys.argv[4]))
elif mode == "balanced":
    asyncio.run(balanced(sys.argv[2], int(sys.argv[3])))
else:
    sys.exit(f"unknown mode {mode}")
