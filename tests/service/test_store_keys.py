"""Store keys are unambiguous: no tenant id or session id can make two records share a key.

Tenant ids and session ids may hold ``:`` and ``|``; a key that joined them naively would let
tenant ``a`` with session ``b:c`` read, overwrite or delete tenant ``a:b``'s session ``c``.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import govcore
from govcore.service.store_keys import conversation_key, idempotency_key
from govcore.testing import FakeClock
from tests.support import POLICIES, bearer, turn

TENANTS = ("a", "a:b", "a|b")
SESSIONS = ("b:c", "c", "b|c")
PAIRS = tuple(itertools.product(TENANTS, SESSIONS))
KEY_OF = {tenant: f"gk_test_tenancy_{i:06d}" for i, tenant in enumerate(TENANTS)}
TURN_PATH = "/api/v1/agent/governance/conversation/turn"


def _tenancy_config() -> dict[str, Any]:
    return {
        "settings": {"default_rate_limit_per_minute": 1_000_000},
        "tenants": {tenant: {"policies": copy.deepcopy(POLICIES)} for tenant in TENANTS},
        "keys": [{"key": KEY_OF[tenant], "tenant": tenant} for tenant in TENANTS],
    }


@pytest.fixture
def gov() -> govcore.Governance:
    return govcore.Governance.from_config(_tenancy_config(), clock=FakeClock(1_800_000_000.0))


def _conversation_path(session_id: str) -> str:
    return "/api/v1/agent/governance/conversation/" + quote(session_id, safe="")


def _turn_count(gov: govcore.Governance, tenant: str, session_id: str) -> int | None:
    """The session's turnCount by GET, or None when it is 404."""
    response = gov.handle("GET", _conversation_path(session_id), bearer(KEY_OF[tenant]))
    if response.status == 404:
        return None
    assert response.status == 200, response.body
    assert response.json()["sessionId"] == session_id
    count = response.json()["turnCount"]
    assert isinstance(count, int)
    return count


def test_every_tenant_and_session_pair_is_its_own_conversation(gov: govcore.Governance) -> None:
    """Each (tenant, session) pair records, reads and deletes only its own conversation."""
    expected: dict[tuple[str, str], int] = {}
    for n, (tenant, session_id) in enumerate(PAIRS, start=1):
        for i in range(n):  # a different number of turns for each pair
            body = json.dumps(turn(session_id, f"refund please, order {i}"))
            response = gov.handle("POST", TURN_PATH, bearer(KEY_OF[tenant]), body)
            assert response.status == 200, response.body
            assert response.json()["turnIndex"] == i + 1
        expected[(tenant, session_id)] = n
    for (tenant, session_id), count in expected.items():
        assert _turn_count(gov, tenant, session_id) == count, (tenant, session_id)
        snapshot = gov.client(KEY_OF[tenant]).get_conversation(session_id)
        assert snapshot.turn_count == count

    for tenant, session_id in PAIRS:
        response = gov.handle("DELETE", _conversation_path(session_id), bearer(KEY_OF[tenant]))
        assert response.status == 204
        del expected[(tenant, session_id)]
        assert _turn_count(gov, tenant, session_id) is None, (tenant, session_id)
        for (other_tenant, other_session), count in expected.items():
            got = _turn_count(gov, other_tenant, other_session)
            assert got == count, (tenant, session_id, "deleted", other_tenant, other_session)


def test_a_turn_after_another_pairs_delete_continues_its_own_count(
    gov: govcore.Governance,
) -> None:
    """Deleting tenant ``a``'s session ``b:c`` leaves tenant ``a:b``'s session ``c`` at turn 2."""
    client_a, client_ab = gov.client(KEY_OF["a"]), gov.client(KEY_OF["a:b"])
    assert client_ab.record_turn(turn("c", "hello")).turn_index == 1
    assert client_a.record_turn(turn("b:c", "hello")).turn_index == 1
    client_a.delete_conversation("b:c")
    assert client_ab.record_turn(turn("c", "hello again")).turn_index == 2
    with pytest.raises(govcore.NotFoundError):
        client_a.get_conversation("b:c")


# --- the key functions themselves ------------------------------------------------------------

ALPHABET = ":|0123456789abcXYZ"
ids = st.text(alphabet=ALPHABET, max_size=8)


def pair_of_tuples(parts: int) -> st.SearchStrategy[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Two tuples of ids: unrelated ones, or two cuts of one word (the colliding shape)."""
    unrelated = st.tuples(st.tuples(*[ids] * parts), st.tuples(*[ids] * parts))

    @st.composite
    def same_word(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
        word = draw(st.text(alphabet=ALPHABET, max_size=24))

        def cut_up() -> tuple[str, ...]:
            cuts = sorted(
                draw(st.lists(st.integers(0, len(word)), min_size=parts - 1, max_size=parts - 1))
            )
            pieces, start = [], 0
            for cut in cuts:
                cut = max(cut, start)
                pieces.append(word[start:cut])
                start = min(cut + draw(st.integers(0, 1)), len(word))
            pieces.append(word[start:])
            return tuple(pieces)

        return cut_up(), cut_up()

    return st.one_of(unrelated, same_word())


@settings(max_examples=500, deadline=None)
@given(pair_of_tuples(2))
@example((("a", "b:c"), ("a:b", "c")))
@example((("a", "b|c"), ("a|b", "c")))
@example((("1:a", "b"), ("1", "a:b")))
@example((("", "1:a"), ("1:", "a")))
@example((("1", "0123456789:x"), (":0123456789", "x")))  # a two-digit length
def test_conversation_key_is_injective(
    pairs: tuple[tuple[str, ...], tuple[str, ...]],
) -> None:
    """Two different (tenant, session) pairs never give the same conversation key."""
    first, second = pairs
    if first != second:
        assert conversation_key(*first) != conversation_key(*second)
    else:
        assert conversation_key(*first) == conversation_key(*second)


@settings(max_examples=500, deadline=None)
@given(pair_of_tuples(3))
@example((("a", "conversation/turn", "b:c"), ("a:b", "conversation/turn", "c")))
@example((("a", "x:y", "z"), ("a:x", "y", "z")))
@example((("a", "1:b", "c"), ("a:1", "b", "c")))
@example((("1", "abcdefgh:1", ":k"), (":10abcdefgh", ":", "k")))  # a two-digit length
def test_idempotency_key_is_injective(
    triples: tuple[tuple[str, ...], tuple[str, ...]],
) -> None:
    """Two different (tenant, endpoint, idempotencyKey) triples never give the same key."""
    first, second = triples
    if first != second:
        assert idempotency_key(*first) != idempotency_key(*second)
    else:
        assert idempotency_key(*first) == idempotency_key(*second)
