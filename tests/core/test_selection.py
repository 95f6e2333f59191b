"""Selection rules of the core: over-fetch, appliesWhen, alwaysOn, top-K."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import govcore
from govcore.core.conversation import prioritise
from govcore.core.selection import ALWAYS_ON_RELEVANCE, retrieval_depth, select_policies
from govcore.policy import PolicySet
from govcore.testing import FakeClock
from govcore.types import RetrievalHit
from tests.support import bearer, policy, turn

KEY = "gk_test_selection_0001"


def _set(*documents: dict[str, object]) -> PolicySet:
    return PolicySet.from_documents("t", documents)


def test_applies_when_filters_before_top_k() -> None:
    """A hit whose appliesWhen fails does not use up a top-K place: the next hit takes it."""
    policies = _set(
        policy("eu-only", appliesWhen={"region": "EU"}),
        policy("anywhere"),
    )
    hits = [RetrievalHit(0, 0.9), RetrievalHit(1, 0.5)]
    assert select_policies(hits, policies, {"region": "US"}, top_k=1) == {"anywhere": 0.5}
    assert select_policies(hits, policies, {"region": "EU"}, top_k=1) == {"eu-only": 0.9}


def test_retrieval_is_asked_for_more_than_top_k() -> None:
    """Retrieval is asked for more hits than top-K, so appliesWhen filtering can still fill it."""
    for top_k in (1, 6, 100):
        assert retrieval_depth(top_k) > top_k


def test_always_on_ranks_first_among_equal_severity() -> None:
    """An alwaysOn policy carries the highest relevance, so among policies of one severity it
    is listed first, ahead of any retrieved one."""
    policies = _set(policy("retrieved", severity=5), policy("baseline", severity=5, alwaysOn=True))
    relevance = select_policies([RetrievalHit(0, 0.99)], policies, None, top_k=6)
    assert relevance["baseline"] == ALWAYS_ON_RELEVANCE >= relevance["retrieved"]
    ordered = prioritise([policies.by_id[p] for p in relevance], relevance, policies.position)
    assert [p.id for p in ordered] == ["baseline", "retrieved"]


def test_always_on_respects_applies_when() -> None:
    """An alwaysOn policy whose appliesWhen does not match is not selected."""
    policies = _set(policy("eu-baseline", alwaysOn=True, appliesWhen={"region": "EU"}))
    assert select_policies([], policies, {"region": "US"}, top_k=6) == {}
    assert select_policies([], policies, {"region": "EU"}, top_k=6) == {"eu-baseline": 1.0}


@given(
    scores=st.lists(st.floats(0.01, 1.0), min_size=0, max_size=12),
    top_k=st.integers(1, 8),
)
def test_at_most_top_k_retrieved(scores: list[float], top_k: int) -> None:
    """Whatever retrieval returns, at most top-K retrieved policies are selected, the best."""
    policies = _set(*(policy(f"p{i}") for i in range(len(scores))))
    hits = sorted((RetrievalHit(i, s) for i, s in enumerate(scores)), key=lambda h: -h.score)
    selected = select_policies(hits, policies, None, top_k)
    assert len(selected) == min(top_k, len(scores))
    assert sorted(selected.values(), reverse=True) == [h.score for h in hits[:top_k]]


def test_over_fetch_fills_top_k_through_the_service() -> None:
    """With top-K 1, a turn whose best match is filtered out by appliesWhen still gets the
    next-best applicable policy, end to end through retrieval."""
    config = {
        "settings": {"retrieval_top_k": 1},
        "tenants": {
            "t": {
                "policies": [
                    policy(
                        "refund-eu",
                        title="Refund of an order",
                        summary="Refund of an order, anywhere.",
                        appliesWhen={"region": "EU"},
                    ),
                    policy(
                        "refund-general",
                        title="Refund of an order",
                        summary="Refund of an order: the refund rules for an order.",
                    ),
                    policy("shipping", title="Shipping times", summary="Parcels ship in two days."),
                ]
            }
        },
        "keys": [{"key": KEY, "tenant": "t"}],
    }
    gov = govcore.Governance.from_config(config, clock=FakeClock())
    body = turn(
        "s", "I want a refund for my order", endUserContext={"attributes": {"region": "US"}}
    )
    response = gov.handle(
        "POST", "/governance/conversation/turn", bearer(KEY), str(body).replace("'", '"')
    )
    assert response.status == 200, response.json()
    assert [p["id"] for p in response.json()["activePolicies"]] == ["refund-general"]
