"""Memory one conversation takes on Redis: ``MEMORY USAGE`` of its key after 1, 10 and 50 turns
of the demo deployment (govcore/demo/acme), with turns of customer-service length.

Run: ``python benchmarks/redis_memory.py`` (needs redis-server on PATH and govcore[redis]).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import redis

import govcore
from govcore.config import load_config
from govcore.service.keys import conversation_key
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


def main() -> None:
    with RedisServer() as server:
        url = f"{server.url}?prefix=bench:"
        clock = FakeClock()
        config = load_config(CONFIG)
        config = dataclasses.replace(
            config, settings=config.settings.model_copy(update={"store": url})
        )
        governance = govcore.Governance(config, clock=clock)
        client = governance.client(KEY)
        admin = redis.Redis.from_url(server.url)
        key = "bench:" + conversation_key("northwind", "bench-session")
        for turns in range(1, 51):
            role = "user" if turns % 2 else "assistant"
            content = MESSAGES[turns % len(MESSAGES)]
            client.record_turn(
                {"sessionId": "bench-session", "turn": {"role": role, "content": content}}
            )
            clock.advance(20)
            if turns in (1, 10, 50):
                print(
                    f"{turns:>2} turns: {admin.memory_usage(key)} bytes "
                    f"(value {admin.strlen(key)} bytes)"
                )
        admin.close()


if __name__ == "__main__":
    main()
