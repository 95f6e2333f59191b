"""Explanations of policy selection: the typed call and ``govcore explain``."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.cli import main
from govcore.core.selection import REASONS
from tests.support import EXAMPLE_CONFIG

KEY = "gk_demo_northwind_full_0001"
READ_ONLY = "gk_demo_northwind_readonly_0002"


def _stepping_clock() -> Callable[[], float]:
    """One second per reading: keeps many calls inside the demo keys' rate limit."""
    ticks = itertools.count(1_800_000_000)
    return lambda: float(next(ticks))


@pytest.fixture(scope="module")
def gov() -> govcore.Governance:
    return govcore.Governance.from_config(EXAMPLE_CONFIG, clock=_stepping_clock())


# Words of the example retailer's policies and words of no policy, to build messages from.
WORDS = (
    "refund return damaged parcel lost card chargeback bank warranty recall allergy child "
    "delivery late price discount legal lawyer member points tent boots jacket rain weather "
    "joke hello thanks recipe football holiday"
).split()


@settings(max_examples=80, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_the_explanation_selects_what_a_turn_selects(
    gov: govcore.Governance, words: list[str]
) -> None:
    """For any message, the explanation's selected policies are exactly the applicable
    policies of pre-inference, and each reason agrees with the score and the floor."""
    message = " ".join(words)
    client = gov.client(KEY)
    explanation = client.explain_selection(message)
    applicable = client.pre_inference({"sessionId": "x", "prompt": message}).applicable_policies
    assert set(explanation.selected) == {p.id for p in applicable}
    for candidate in explanation.candidates:
        assert candidate.reason in REASONS
        if candidate.reason == "selected":
            assert candidate.score >= explanation.floor
        elif candidate.reason == "below_threshold":
            assert candidate.score < explanation.floor
        elif candidate.reason == "cut_by_top_k":
            assert candidate.score >= explanation.floor
            retrieved = [c for c in explanation.candidates if c.reason == "selected"]
            assert len(retrieved) == explanation.top_k
            assert all(c.score >= candidate.score for c in retrieved)
    assert len(explanation.candidates) == len(gov.policy_set("northwind").policies)


def test_scores_name_their_terms_and_thresholds(gov: govcore.Governance) -> None:
    explanation = gov.client(KEY).explain_selection("my parcel is lost, where is my delivery")
    assert explanation.thresholds["min_relevance"] > 0
    assert explanation.floor >= explanation.thresholds["min_relevance"]
    lost = next(c for c in explanation.candidates if c.policy_id == "lost-parcels")
    assert lost.selected
    assert lost.lexical is not None
    assert lost.lexical > 0
    terms = [term for term, _ in lost.terms]
    assert "parcel" in terms
    shares = [share for _, share in lost.terms]
    assert shares == sorted(shares, reverse=True)
    assert sum(shares) == pytest.approx(lost.lexical, rel=1e-4)
    assert lost.semantic is None  # the default retriever is lexical only


def test_always_on_applies_when_and_areas(gov: govcore.Governance) -> None:
    client = gov.client(KEY)
    by_id = {c.policy_id: c for c in client.explain_selection("hello").candidates}
    assert by_id["ai-disclosure"].reason == "always_on"
    assert by_id["ai-disclosure"].selected
    # membership-benefits applies only to premium members.
    message = "what are the perks and points of my membership"
    basic = {c.policy_id: c for c in client.explain_selection(message).candidates}
    assert basic["membership-benefits"].reason == "applies_when"
    premium = client.explain_selection(message, attributes={"tier": "premium"})
    assert "membership-benefits" in premium.selected
    area = gov.policy_set("northwind").by_id["lost-parcels"].area
    assert area is not None
    outside = client.explain_selection(
        "my parcel is lost", policy_area_ids=[a for a in ("none-such",) if a != area]
    )
    lost = next(c for c in outside.candidates if c.policy_id == "lost-parcels")
    assert lost.reason == "outside_areas"
    assert not lost.selected


def test_a_policy_held_from_an_earlier_turn_is_named_as_held() -> None:
    gov = govcore.Governance.from_config(EXAMPLE_CONFIG, clock=_stepping_clock())
    client = gov.client(KEY)
    client.record_turn({"sessionId": "h", "turn": {"role": "user", "content": "my parcel is lost"}})
    held = client.explain_selection("what a lovely day", session_id="h")
    lost = next(c for c in held.candidates if c.policy_id == "lost-parcels")
    assert lost.reason == "held"
    assert lost.selected
    # Released after three turns that do not select it; then it is below the threshold.
    for _ in range(3):
        client.record_turn({"sessionId": "h", "turn": {"role": "user", "content": "ok"}})
    later = client.explain_selection("what a lovely day", session_id="h")
    lost = next(c for c in later.candidates if c.policy_id == "lost-parcels")
    assert lost.reason == "below_threshold"
    # Explaining recorded nothing: four turns, as recorded.
    assert client.get_conversation("h").turn_count == 4


def test_explaining_needs_read_scope_and_valid_input(gov: govcore.Governance) -> None:
    assert gov.client(READ_ONLY).explain_selection("refund").selected
    with pytest.raises(govcore.AuthenticationError):
        gov.client("gk_no_such_key_000000").explain_selection("refund")
    with pytest.raises(govcore.InvalidRequestError, match="sessionId"):
        gov.client(KEY).explain_selection("refund", session_id="a\nb")


def test_the_http_interface_has_no_explain_route(gov: govcore.Governance) -> None:
    """Explanations are in-process only: the wire interface stays the specification's."""
    response = gov.handle(
        "POST",
        "/governance/explain",
        {"Authorization": f"Bearer {KEY}"},
        b'{"message": "refund"}',
    )
    assert response.status == 404


def test_cli_explain_prints_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", str(EXAMPLE_CONFIG), "--key", KEY, "my parcel never arrived"])
    out = capsys.readouterr().out
    assert code == 0
    assert "lost-parcels" in out
    assert REASONS["selected"] in out
    assert REASONS["always_on"] in out
    assert "floor" in out


def test_cli_explain_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["explain", str(EXAMPLE_CONFIG), "--key", KEY, "--json", "--all"]
    code = main([*args, "--attribute", "tier=premium", "points for members"])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0
    assert len(document["candidates"]) == 20
    ids = {c["policy_id"] for c in document["candidates"] if c["selected"]}
    assert "membership-benefits" in ids


def test_cli_explain_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(EXAMPLE_CONFIG), "--key", "gk_wrong_key_000000000", "hi"]) == 1
    assert "error" in capsys.readouterr().err
    bad = ["explain", str(EXAMPLE_CONFIG), "--key", KEY, "--attribute", "tier", "hi"]
    assert main(bad) == 2
    assert "NAME=VALUE" in capsys.readouterr().err
