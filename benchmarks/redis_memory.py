"""Memory govcore's records take on Redis: ``MEMORY USAGE`` of each kind of key.

Run: ``python benchmarks/redis_memory.py`` (needs redis-server on PATH and govcore[redis]).

On the demo deployment (govcore/demo/acme), on a throwaway redis-server:

1. one conversation after 1, 10 and 50 turns, with customer-service turns of about 80
   characters and with ~1 KB turns from ``benchmarks/corpus.py``;
2. an idempotency record (a turn sent with ``idempotencyKey``), a stream record (a streaming
   check), a pre-inference cache entry;
3. the rate-limit window (one sorted set per API key, one entry per admitted request of the
   last minute) at 100, 1,000 and 10,000 entries: bytes per entry.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's govcore
sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import generate_conversation

import govcore
from govcore.config import load_config
from govcore.testing import FakeClock, RedisServer

CONFIG = Path(__file__).resolve().parent.parent / "govcore" / "demo" / "acme" / "govcore.yaml"
KEY = "gk_demo_northwind_full_0001"
MESSAGES = [
    "Hi, I ordered a pair of hiking boots last week and they still haven't arrived.",
    "The tracking number says delivered but nothing was at my door. Can I get a refund?",
    "Actually I'd rather have a replacement shipped, is express delivery possible?",
    "Also, can I pay for the replacement with a different card this time?",
    "Thanks. One more thing: do you price match if I find them cheaper elsewhere?",
]
NAMESPACES = {
    "conv": "conversation",
    "idem": "idempotency",
    "rate": "rate",
    "pre": "pre",
    "strm": "stream",
}


def governance(url: str, clock: FakeClock) -> govcore.Governance:
    config = load_config(CONFIG)
    settings = config.settings.model_copy(
        update={"store": url, "default_rate_limit_per_minute": 1_000_000}
    )
    return govcore.Governance(dataclasses.replace(config, settings=settings), clock=clock)


def keys_of(admin: redis.Redis, prefix: str, namespace: str) -> list[bytes]:
    return sorted(admin.scan_iter(match=f"{prefix}{namespace}:*", count=1000))


def usage(admin: redis.Redis, key: bytes) -> tuple[int, int]:
    """``MEMORY USAGE`` (all samples) and the value's length in bytes (or entries)."""
    size = int(admin.memory_usage(key, samples=0) or 0)  # type: ignore[arg-type]
    kind = admin.type(key)
    length = admin.strlen(key) if kind == b"string" else admin.zcard(key)
    return size, int(length)  # type: ignore[arg-type]


def conversation_growth(
    admin: redis.Redis, url: str, prefix: str, label: str, turns: list[str]
) -> None:
    clock = FakeClock()
    gov = governance(url + f"?prefix={prefix}", clock)
    client = gov.client(KEY)
    for number, content in enumerate(turns, start=1):
        role = "user" if number % 2 else "assistant"
        client.record_turn(
            {"sessionId": "bench-session", "turn": {"role": role, "content": content}}
        )
        clock.advance(20)
        if number in (1, 10, 50):
            (key,) = keys_of(admin, prefix, "conv")
            size, value = usage(admin, key)
            print(f"| {label} | {number} | {size:,} | {value:,} |")
    gov.close()


def main() -> None:
    with RedisServer() as server:
        admin = redis.Redis.from_url(server.url)
        print("## One conversation\n")
        print("| turns of | turns | `MEMORY USAGE` bytes | value bytes |")
        print("|---|---|---|---|")
        short = [MESSAGES[n % len(MESSAGES)] for n in range(1, 51)]
        conversation_growth(admin, server.url, "short:", "~80 characters", short)
        long = generate_conversation(50, seed=7, turn_bytes=1000)
        conversation_growth(admin, server.url, "long:", "~1 KB", long)

        print("\n## Other records\n")
        clock = FakeClock()
        gov = governance(server.url + "?prefix=other:", clock)
        client = gov.client(KEY)
        client.record_turn(
            {
                "sessionId": "s",
                "turn": {"role": "user", "content": MESSAGES[0]},
                "idempotencyKey": "order-1-turn-1",
            }
        )
        output = " ".join(long[:4])[:4000]
        client.check_output_stream({"sessionId": "s", "fullText": output, "lastCheckedOffset": 0})
        client.pre_inference({"sessionId": "s", "prompt": MESSAGES[1]})
        print("| record | `MEMORY USAGE` bytes | value bytes |")
        print("|---|---|---|")
        for namespace in ("idem", "strm", "pre"):
            for key in keys_of(admin, "other:", namespace):
                size, value = usage(admin, key)
                print(f"| {NAMESPACES[namespace]} | {size:,} | {value:,} |")
        gov.close()

        print("\n## Rate-limit window of one key\n")
        print("| entries | `MEMORY USAGE` bytes | bytes per entry |")
        print("|---|---|---|")
        for entries in (100, 1_000, 10_000):
            clock = FakeClock()
            prefix = f"rate{entries}:"
            gov = governance(server.url + f"?prefix={prefix}", clock)
            client = gov.client(KEY)
            for _ in range(entries):
                # A 404, admitted into the window all the same.
                with contextlib.suppress(govcore.NotFoundError):
                    client.get_conversation("none")
                clock.advance(0.001)
            (key,) = keys_of(admin, prefix, "rate")
            size, count = usage(admin, key)
            print(f"| {count:,} | {size:,} | {size / count:.0f} |")
            gov.close()
        admin.close()


if __name__ == "__main__":
    main()
