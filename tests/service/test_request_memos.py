"""What a service remembers between requests to save work: decoded conversation states,
authenticated key objects and injection blocks. Each is only ever a shortcut to the answer the
full work gives."""

from __future__ import annotations

from collections import UserString

import pytest

import govcore
from govcore.backends.memory import MemoryStore
from govcore.config import load_config
from govcore.core.conversation import ConversationState
from govcore.errors import AuthenticationError
from govcore.service.access import KeyRing
from govcore.service.shared import DecodedStates, InjectionBlocks
from govcore.service.store_keys import conversation_key
from govcore.testing import FakeClock
from tests.support import FULL_KEY, REVOKED_KEY, config, turn


def _state(turns: int) -> ConversationState:
    return ConversationState.from_bytes(
        b'{"v":2,"turns":%d,"active":[],"block":"","updated":1.0,"events":0}\n' % turns
    )


def test_a_state_is_kept_for_equal_bytes_and_not_for_others() -> None:
    states = DecodedStates(capacity=4)
    raw = _state(3).to_bytes()
    kept = _state(3)
    states.put("k", raw, kept)
    assert states.get("k", bytes(bytearray(raw))) is kept  # an equal copy, as Redis reads it
    assert states.get("k", _state(4).to_bytes()) is None  # other bytes under the same key
    assert states.get("other", raw) is None


def test_the_oldest_state_goes_first_when_more_are_kept_than_the_capacity() -> None:
    states = DecodedStates(capacity=2)
    for name in ("a", "b"):
        states.put(name, b"x", _state(1))
    assert states.get("a", b"x") is not None  # a lookup does not make an entry newer: a put does
    states.put("a", b"x", _state(1))
    states.put("c", b"x", _state(1))
    assert states.get("b", b"x") is None
    assert states.get("a", b"x") is not None
    assert states.get("c", b"x") is not None


def test_a_turn_written_by_another_worker_is_read_as_written() -> None:
    # Two services over one store, as two workers over one Redis: each keeps the states it
    # wrote, and must still read the other's newer state instead of its own.
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    first = govcore.Governance.from_config(config(), clock=clock, store=store).client(FULL_KEY)
    second = govcore.Governance.from_config(config(), clock=clock, store=store).client(FULL_KEY)
    assert first.record_turn(turn("s", "Can I get a refund?")).turn_index == 1
    assert second.record_turn(turn("s", "It arrived broken.")).turn_index == 2
    assert first.record_turn(turn("s", "Thanks.")).turn_index == 3
    assert first.get_conversation("s").turn_count == 3
    assert second.get_conversation("s").turn_count == 3


def _one_turn() -> tuple[govcore.Governance, MemoryStore, FakeClock]:
    """A governance over its own memory store, with one turn recorded in session ``s``."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    gov = govcore.Governance.from_config(config(), clock=clock, store=store)
    gov.client(FULL_KEY).record_turn(turn("s", "Can I get a refund?"))
    return gov, store, clock


def test_a_corrupted_state_is_refused_even_after_it_was_kept() -> None:
    gov, store, clock = _one_turn()
    client = gov.client(FULL_KEY)
    key = conversation_key("acme", "s")
    store.set(key, b"not a state\n", expires_at=clock() + 600)
    with pytest.raises(govcore.BackendError):
        client.record_turn(turn("s", "Hello again."))


def _ring() -> KeyRing:
    return KeyRing(load_config(config()).keys)


def test_a_key_object_authenticated_once_gives_the_same_principal_again() -> None:
    ring = _ring()
    secret = "".join(FULL_KEY)  # an object of its own
    first = ring.authenticate(secret)
    assert ring.authenticate(secret) is first
    assert ring.authenticate(FULL_KEY + "") == first


def test_other_secrets_are_still_checked_after_a_key_was_remembered() -> None:
    ring = _ring()
    ring.authenticate(FULL_KEY)
    for refused in (FULL_KEY[:-1], FULL_KEY + "x", REVOKED_KEY, REVOKED_KEY):
        with pytest.raises(AuthenticationError):
            ring.authenticate(refused)


def test_a_str_like_key_object_is_checked_every_time() -> None:
    # A UserString can change its value in place, keeping its identity: only built-in strings
    # are remembered, so the changed value is refused.
    ring = _ring()
    secret = UserString(FULL_KEY)
    assert ring.authenticate(secret).key_id == ring.authenticate(FULL_KEY).key_id  # type: ignore[arg-type]
    secret.data = FULL_KEY[:-1] + "x"
    with pytest.raises(AuthenticationError):
        ring.authenticate(secret)  # type: ignore[arg-type]


def test_a_deleted_conversation_leaves_no_state_in_memory() -> None:
    # DELETE purges the conversation: the decoded state this process kept goes with it.
    gov, store, _ = _one_turn()
    client = gov.client(FULL_KEY)
    key = conversation_key("acme", "s")
    raw = store.get(key)
    assert raw is not None
    states = gov._service.states  # the service's own memory of decoded states
    assert states.get(key, raw) is not None
    client.delete_conversation("s")
    assert states.get(key, raw) is None


def test_many_key_objects_are_all_authenticated() -> None:
    ring = _ring()
    # More distinct objects than the ring remembers: each is still authenticated correctly.
    secrets = [FULL_KEY[:5] + FULL_KEY[5:] for _ in range(200)]
    principals = {ring.authenticate(secret).key_id for secret in secrets}
    assert len(principals) == 1
    with pytest.raises(AuthenticationError):
        ring.authenticate(FULL_KEY[:5] + "?" + FULL_KEY[6:])


def _policies(count: int, title: str = "Policy") -> list[govcore.PolicyDocument]:
    return [
        govcore.PolicyDocument.model_validate(
            {
                "id": f"p{i}",
                "title": f"{title} {i}",
                "summary": "A summary long enough to matter for the budget of the block. " * 3,
                "severity": 3,
                "enforcement": "warning",
                "citationRef": f"REF-{i}",
            }
        )
        for i in range(count)
    ]


def _words(text: str) -> int:
    return len(text.split())


def _characters(text: str) -> int:
    return len(text)


def test_a_kept_block_is_the_one_its_policies_counter_and_budget_give() -> None:
    """The same policies under another counter or budget, or other policy objects, are not
    given a block kept for something else."""
    blocks = InjectionBlocks()
    policies = _policies(3)
    budget = 200  # every summary fits in words; in characters not even one does
    by_words, _ = blocks.render(policies, budget, _words)
    by_characters, estimate = blocks.render(policies, budget, _characters)
    assert "A summary" in by_words
    assert "A summary" not in by_characters
    assert estimate <= budget
    assert blocks.render(policies, budget, _words)[0] == by_words
    tight, tight_estimate = blocks.render(policies, 40, _words)
    assert tight != by_words
    assert tight_estimate <= 40
    # The same ids as other objects (a reloaded policy set) are a block of their own.
    assert "Renamed" in blocks.render(_policies(3, "Renamed"), budget, _words)[0]
    assert "Renamed" not in blocks.render(policies, budget, _words)[0]


def test_the_oldest_block_goes_first_beyond_the_limit() -> None:
    blocks = InjectionBlocks(limit=2)
    for count in (1, 2, 3):
        blocks.render(_policies(count), 1000, _words)
    assert len(blocks) == 2


def test_turns_that_keep_their_policies_give_the_block_rendered_fresh() -> None:
    """Through the client: a conversation whose turns keep their policies answers, turn after
    turn, the block a service that has kept nothing renders for them."""
    client = govcore.Governance.from_config(config(), clock=FakeClock()).client(FULL_KEY)
    blocks = [
        client.record_turn(turn("s", "Can I pay with my credit card?")).injection_block
        for _ in range(3)
    ]
    fresh = govcore.Governance.from_config(config(), clock=FakeClock()).client(FULL_KEY)
    assert blocks[0]
    assert blocks == [blocks[0]] * 3
    rendered_fresh = fresh.record_turn(turn("s", "Can I pay with my credit card?"))
    assert rendered_fresh.injection_block == blocks[0]
