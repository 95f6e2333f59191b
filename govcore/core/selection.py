"""Which policies a turn selects (pure): retrieval hits, ``appliesWhen``, ``alwaysOn``, top-K.

The service asks the retrieval index for :func:`retrieval_depth` hits (more than top-K, since
``appliesWhen`` may drop some of them) and hands them here with the end user's attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from govcore.policy import PolicyDocument, PolicySet
from govcore.types import IndexExplanation, RetrievalHit

__all__ = [
    "ALWAYS_ON_RELEVANCE",
    "OVER_FETCH",
    "REASONS",
    "CandidateExplanation",
    "SelectionExplanation",
    "explain_selection",
    "retrieval_depth",
    "select_policies",
]

ALWAYS_ON_RELEVANCE = 1.0
"""The relevance of an ``alwaysOn`` policy: the highest a retrieval score can be, so among
policies of equal severity an ``alwaysOn`` one is listed first."""

OVER_FETCH = 2
"""How many times top-K hits retrieval is asked for, so that ``appliesWhen`` filtering still
leaves up to top-K."""


def retrieval_depth(top_k: int) -> int:
    """How many hits to ask retrieval for when at most ``top_k`` may be selected."""
    return OVER_FETCH * top_k


def select_policies(
    hits: Iterable[RetrievalHit],
    policy_set: PolicySet,
    attributes: Mapping[str, Any] | None,
    top_k: int,
    *,
    applies: Callable[[PolicyDocument], bool] | None = None,
) -> dict[str, float]:
    """The selected policies of a turn, with their relevance.

    Args:
        hits: retrieval hits in decreasing score order (positions into ``policy_set``).
        policy_set: the tenant's policies.
        attributes: the end user's attributes, matched against each ``appliesWhen``.
        top_k: at most this many retrieved policies are selected.
        applies: whether a policy's ``appliesWhen`` lets it apply, instead of matching
            ``attributes`` (a conversation's turn: its stored verdicts decide what this turn's
            attributes leave open).

    Returns:
        Policy id to relevance: the best ``top_k`` hits whose ``appliesWhen`` matches (a policy
        hit twice keeps its best score), then every ``alwaysOn`` policy whose ``appliesWhen``
        matches, at :data:`ALWAYS_ON_RELEVANCE`.
    """
    policies = policy_set.policies
    if applies is None:
        applies = _matching(attributes)
    relevance: dict[str, float] = {}
    for hit in hits:
        if len(relevance) == top_k:
            break
        policy = policies[hit.position]
        if policy.id not in relevance and applies(policy):
            relevance[policy.id] = hit.score
    for position in policy_set.always_on:
        policy = policies[position]
        if applies(policy):
            relevance[policy.id] = ALWAYS_ON_RELEVANCE
    return relevance


def _matching(attributes: Mapping[str, Any] | None) -> Callable[[PolicyDocument], bool]:
    """``appliesWhen`` matched against ``attributes`` alone."""
    return lambda policy: policy.applies_to(attributes)


# --- explanations ----------------------------------------------------------------------------

ALWAYS_ON = "always_on"
SELECTED = "selected"
HELD = "held"
APPLIES_WHEN = "applies_when"
BELOW_THRESHOLD = "below_threshold"
CUT_BY_TOP_K = "cut_by_top_k"
OUTSIDE_AREAS = "outside_areas"

REASONS: Mapping[str, str] = {
    ALWAYS_ON: "alwaysOn: applicable at every turn",
    SELECTED: "selected: scored at least the floor and among the top-K",
    HELD: "held: selected at an earlier turn of this conversation and not yet released",
    APPLIES_WHEN: "appliesWhen does not match the end user's attributes",
    BELOW_THRESHOLD: "below threshold: scored under the floor of this message",
    CUT_BY_TOP_K: "cut by top-K: scored at least the floor, but better policies filled the K",
    OUTSIDE_AREAS: "outside the requested policyAreaIds",
}
"""Each reason code of a :class:`CandidateExplanation`, in words."""


@dataclass(frozen=True, slots=True)
class CandidateExplanation:
    """Why one policy was or was not selected for a message.

    Attributes:
        policy_id: the policy.
        selected: whether it applies after this message (selected now, held or alwaysOn).
        reason: one of :data:`REASONS` (``selected``, ``held``, ``always_on``, ``applies_when``,
            ``below_threshold``, ``cut_by_top_k``, ``outside_areas``).
        score: the retrieval score the index ranks by (0 for a policy outside the areas).
        lexical: its lexical part, when the index has one.
        semantic: its semantic part (cosine similarity), when the index has one.
        terms: the message's terms that carried the lexical part, with their shares.
        example: the policy's example phrase that set the score, when one did.
    """

    policy_id: str
    selected: bool
    reason: str
    score: float
    lexical: float | None = None
    semantic: float | None = None
    terms: tuple[tuple[str, float], ...] = ()
    example: str | None = None


@dataclass(frozen=True, slots=True)
class SelectionExplanation:
    """How a message's policies were chosen: every policy of the tenant, best score first.

    Attributes:
        floor: the lowest score a policy needed for this message.
        thresholds: the named thresholds behind the floor.
        top_k: at most this many retrieved policies are selected.
        candidates: one entry per policy of the tenant.
    """

    floor: float
    thresholds: Mapping[str, float]
    top_k: int
    candidates: tuple[CandidateExplanation, ...]

    @property
    def selected(self) -> list[str]:
        """The ids of the policies that apply after this message."""
        return [c.policy_id for c in self.candidates if c.selected]


def explain_selection(
    explanation: IndexExplanation,
    policy_set: PolicySet,
    attributes: Mapping[str, Any] | None,
    top_k: int,
    *,
    held: Iterable[str] = (),
    applies: Callable[[PolicyDocument], bool] | None = None,
) -> SelectionExplanation:
    """Replay :func:`select_policies` on an index's explanation, recording each policy's reason.

    Args:
        explanation: every candidate's score and the floor, from the index.
        policy_set: the tenant's policies.
        attributes: the end user's attributes.
        top_k: the selection's top-K.
        held: ids of the policies the conversation holds from earlier turns.
        applies: as for :func:`select_policies` (a conversation's stored verdicts).
    """
    policies = policy_set.policies
    ranked = [s for s in explanation.scores if s.score >= explanation.floor and s.score > 0]
    ranked.sort(key=lambda s: (-s.score, s.position))
    # The same hits search returns: the retrieval depth's best above the floor.
    hits = [RetrievalHit(s.position, s.score) for s in ranked[: retrieval_depth(top_k)]]
    if applies is None:
        applies = _matching(attributes)
    chosen = select_policies(hits, policy_set, attributes, top_k, applies=applies)
    above_floor = {s.position for s in ranked}
    held_ids = set(held)
    by_position = {s.position: s for s in explanation.scores}
    candidates = []
    for position, policy in enumerate(policies):
        scored = by_position.get(position)
        if policy.always_on and applies(policy):
            reason = ALWAYS_ON
        elif not applies(policy):
            reason = APPLIES_WHEN
        elif policy.id in chosen:
            reason = SELECTED
        elif policy.id in held_ids:
            reason = HELD
        elif scored is None:
            reason = OUTSIDE_AREAS
        elif position in above_floor:
            reason = CUT_BY_TOP_K
        else:
            reason = BELOW_THRESHOLD
        candidates.append(
            CandidateExplanation(
                policy_id=policy.id,
                selected=reason in (ALWAYS_ON, SELECTED, HELD),
                reason=reason,
                score=scored.score if scored else 0.0,
                lexical=scored.lexical if scored else None,
                semantic=scored.semantic if scored else None,
                terms=scored.terms if scored else (),
                example=scored.example if scored else None,
            )
        )
    candidates.sort(key=lambda c: (not c.selected, -c.score, c.policy_id))
    return SelectionExplanation(
        floor=explanation.floor,
        thresholds=dict(explanation.thresholds),
        top_k=top_k,
        candidates=tuple(candidates),
    )
