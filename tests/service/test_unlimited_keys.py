"""rate_limit_per_minute: unlimited, a key with no rate limit (trusted in-process callers);
absent or null, the default limit; a number, that limit."""

from __future__ import annotations

from typing import Any

import pytest

import govcore
from govcore.testing import FakeClock
from tests.support import READ_KEY, bearer, config, turn

UNLIMITED_KEY = "gk_test_unlimited_00001"


def _config(**key_settings: Any) -> dict[str, Any]:
    document = config()
    document["keys"].append({"key": UNLIMITED_KEY, "tenant": "acme", "settings": key_settings})
    return document


def _statuses(gov: govcore.Governance, key: str, count: int) -> list[int]:
    return [
        gov.handle("GET", "/governance/conversation/x", bearer(key), None).status
        for _ in range(count)
    ]


def test_an_unlimited_key_admits_every_request() -> None:
    """1000 requests in the same instant: none is refused, while a key that leaves the setting
    out still gets the default limit (120)."""
    gov = govcore.Governance.from_config(
        _config(rate_limit_per_minute="unlimited"), clock=FakeClock()
    )
    assert _statuses(gov, UNLIMITED_KEY, 1000) == [404] * 1000
    assert _statuses(gov, READ_KEY, 121)[-1] == 429


@pytest.mark.parametrize(
    ("settings", "admitted"),
    [({}, 120), ({"rate_limit_per_minute": None}, 120), ({"rate_limit_per_minute": 5}, 5)],
)
def test_an_absent_null_or_numeric_limit_keeps_its_meaning(
    settings: dict[str, Any], admitted: int
) -> None:
    """Leaving the setting out, or a blank (null) value, is the default limit; a number is
    that limit."""
    gov = govcore.Governance.from_config(_config(**settings), clock=FakeClock())
    statuses = _statuses(gov, UNLIMITED_KEY, admitted + 1)
    assert statuses[:admitted] == [404] * admitted
    assert statuses[admitted] == 429


def test_an_unlimited_key_reads_and_writes_like_any_other() -> None:
    """Without an admission round trip, a turn still reads the conversation it extends."""
    gov = govcore.Governance.from_config(
        _config(rate_limit_per_minute="unlimited"), clock=FakeClock()
    )
    client = gov.client(UNLIMITED_KEY)
    client.record_turn(turn("s", "can I get my money back"))
    assert client.record_turn(turn("s", "thanks")).turn_index == 2


def test_an_unlimited_key_on_redis(redis_url: str) -> None:
    """The same on a pipelined store: no window is counted, the turns are recorded."""
    document = _config(rate_limit_per_minute="unlimited")
    document["settings"] = {"store": redis_url}
    with govcore.Governance.from_config(document, clock=FakeClock()) as gov:
        client = gov.client(UNLIMITED_KEY)
        for index in range(1, 131):
            assert client.record_turn(turn("s", "hello")).turn_index == index


@pytest.mark.parametrize("value", [0, "none", "Unlimited", -1])
def test_a_limit_below_one_or_another_word_is_refused(value: object) -> None:
    """``unlimited`` is the one way to switch the limit off; 0, another word or a negative
    number is a configuration error naming the field."""
    with pytest.raises(govcore.ConfigError, match="rate_limit_per_minute"):
        govcore.Governance.from_config(_config(rate_limit_per_minute=value))
