"""Property tests of the injection block (interface spec §4.1; library contract §3).

``render_injection_block`` is checked directly for generated policies (long and non-ASCII text
included) and several token counters, and through the client for random budgets.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.render import HEADER, render_injection_block
from tests.support import LIFECYCLE_FULL_KEY, FakeClock

MARK = "§"
"""Only citations contain it: ``[REF<i>§`` finds policy ``i`` in a block."""

characters = st.characters(codec="utf-8", exclude_characters=MARK)
short_text = st.text(characters, max_size=30)
fixed_text = st.sampled_from(
    [
        "Données personnelles — RGPD",
        "個人情報の取り扱いに関する方針",
        "Возврат средств в течение 30 дней",
        "שלום עולם",
        "🙂 emoji 🙂 policy",
        "zero\u200bwidth and tabs\tand\nnewlines",
        "  leading and trailing spaces  ",
        "[brackets] and (parens): ok?",
    ]
)
long_text = st.builds(lambda piece, times: (piece or "x") * times, short_text, st.integers(20, 150))
any_text = short_text | fixed_text | long_text
severities = st.sampled_from([0, 0.5, 1, 2.5, 3, 4.5, 5, 10]) | st.floats(0, 10)


@st.composite
def policy_lists(draw: st.DrawFn, max_size: int = 8) -> list[govcore.PolicyDocument]:
    """Valid policy documents with unique ids and citations ``REF<i>§<any text>``."""
    policies = []
    for i in range(draw(st.integers(0, max_size))):
        title = draw(any_text)
        document = {
            "id": f"p{i}",
            "title": title or "t",
            "summary": draw(any_text),
            "severity": draw(severities),
            "enforcement": draw(st.sampled_from(["fix", "warning", "audit"])),
            "citationRef": f"REF{i}{MARK}{draw(any_text)}",
            "tags": draw(st.lists(short_text, max_size=3)),
        }
        policies.append(govcore.PolicyDocument.model_validate(document))
    return policies


def quarter_chars(text: str) -> int:
    return -(-len(text) // 4)


def chars(text: str) -> int:
    return len(text)


def words(text: str) -> int:
    return len(text.split())


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def squared(text: str) -> int:
    # Superadditive: a joined block costs more than its pieces.
    return len(text) ** 2 // 500


COUNTERS: list[Callable[[str], int]] = [quarter_chars, chars, words, utf8_bytes, squared]


def _included(policies: list[govcore.PolicyDocument], block: str) -> list[int]:
    return [i for i in range(len(policies)) if f"[REF{i}{MARK}" in block]


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    policies=policy_lists(),
    budget=st.integers(50, 4000),
    count=st.sampled_from(COUNTERS),
)
def test_block_fits_budget_and_cites_included_policies(
    policies: list[govcore.PolicyDocument], budget: int, count: Callable[[str], int]
) -> None:
    """The block's estimate is its token count, within budget, and it cites each policy it names."""
    block, estimate = render_injection_block(policies, budget, count)

    assert estimate == count(block)
    assert 0 <= estimate <= budget
    if not policies:
        assert (block, estimate) == ("", 0)
    if not block:
        assert estimate == 0
        return
    assert block.startswith(HEADER)
    included = _included(policies, block)
    # A block is never a bare header: it names at least one policy.
    assert included
    # Each named policy appears with its whole citation, in priority (input) order.
    for i in included:
        assert f"[{policies[i].citation_ref}]" in block
    positions = [block.index(f"[REF{i}{MARK}") for i in included]
    assert positions == sorted(positions)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(policies=policy_lists(), budget=st.integers(50, 4000))
def test_block_drops_nothing_that_fits(policies: list[govcore.PolicyDocument], budget: int) -> None:
    """The first policy is named when its citation and title fit, and all are when everything fits."""
    block, _ = render_injection_block(policies, budget, chars)
    included = _included(policies, block)
    if not policies:
        return
    first = policies[0]
    # Room for the header, a newline, and the first citation and title with a little markup.
    if len(HEADER) + 1 + len(first.citation_ref) + len(first.title) + 8 <= budget:
        assert 0 in included
    # Room for every policy's citation, title and summary, with generous markup.
    needed = len(HEADER) + sum(
        len(p.citation_ref) + len(p.title) + len(p.summary) + 70 for p in policies
    )
    if needed <= budget:
        assert included == list(range(len(policies)))


def test_empty_policy_list_renders_nothing() -> None:
    """No policies give an empty block with estimate 0 for any budget and counter."""
    for count in COUNTERS:
        for budget in (0, 50, 600, 4000):
            assert render_injection_block([], budget, count) == ("", 0)


# --- through the client ----------------------------------------------------------------------

EXAMPLE_FULL_KEY = "gk_demo_northwind_full_0001"
_session_ids = itertools.count()


def _example_words(module_governance: govcore.Governance) -> list[str]:
    policies = module_governance.policy_set("northwind").policies
    found: set[str] = set()
    for policy in policies:
        found.update(re.findall(r"[A-Za-z]{4,}", policy.title))
        found.update(policy.tags)
    return sorted(found)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), budget=st.integers(50, 4000))
def test_turn_and_pre_inference_estimates_fit_budget(
    module_example_governance: govcore.Governance,
    module_clock: FakeClock,
    data: st.DataObject,
    budget: int,
) -> None:
    """Through the client, tokenEstimate never exceeds tokenBudget and is 0 exactly for an empty block."""
    vocabulary = _example_words(module_example_governance)
    content = " ".join(data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=30)))
    client = module_example_governance.client(EXAMPLE_FULL_KEY)
    session_id = f"render-{next(_session_ids)}"
    region = data.draw(st.sampled_from(["EU", "US", "UK"]))

    module_clock.advance(1)  # the demo key allows 120 requests a minute
    turn = client.record_turn(
        {
            "sessionId": session_id,
            "turn": {"role": "user", "content": content},
            "tokenBudget": budget,
            "endUserContext": {"attributes": {"region": region}},
        }
    )
    assert 0 <= turn.token_estimate <= budget
    assert (turn.injection_block == "") == (turn.token_estimate == 0)
    if not turn.active_policies:
        assert turn.injection_block == ""

    module_clock.advance(1)
    pre = client.pre_inference({"sessionId": session_id, "prompt": content, "tokenBudget": budget})
    assert 0 <= pre.token_estimate <= budget
    assert (pre.injection_block == "") == (pre.token_estimate == 0)
    if not pre.applicable_policies:
        assert pre.injection_block == ""


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_roomy_budget_cites_every_active_policy(
    module_example_governance: govcore.Governance, module_clock: FakeClock, data: st.DataObject
) -> None:
    """With the largest budget, every active policy's citationRef appears in the injection block."""
    vocabulary = _example_words(module_example_governance)
    content = " ".join(data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=30)))
    module_clock.advance(1)
    turn = module_example_governance.client(EXAMPLE_FULL_KEY).record_turn(
        {
            "sessionId": f"render-{next(_session_ids)}",
            "turn": {"role": "user", "content": content},
            "tokenBudget": 4000,
        }
    )
    assert turn.active_policies
    for policy in turn.active_policies:
        assert f"[{policy.citation_ref}]" in turn.injection_block


def test_client_budget_fits_with_test_config(module_governance: govcore.Governance) -> None:
    """The smallest budget still yields an estimate within it for a turn naming many policies."""
    client = module_governance.client(LIFECYCLE_FULL_KEY)
    turn = client.record_turn(
        {
            "sessionId": f"render-{next(_session_ids)}",
            "turn": {
                "role": "user",
                "content": "refund credit card lawyer parcel newsletter delete account",
            },
            "tokenBudget": 50,
        }
    )
    assert len(turn.active_policies) > 1
    assert 0 < turn.token_estimate <= 50
