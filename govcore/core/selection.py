"""Which policies a turn selects (pure): retrieval hits, ``appliesWhen``, ``alwaysOn``, top-K.

The service asks the retrieval index for :func:`retrieval_depth` hits (more than top-K, since
``appliesWhen`` may drop some of them) and hands them here with the end user's attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from govcore.policy import PolicySet
from govcore.types import RetrievalHit

__all__ = ["ALWAYS_ON_RELEVANCE", "OVER_FETCH", "retrieval_depth", "select_policies"]

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
) -> dict[str, float]:
    """The selected policies of a turn, with their relevance.

    Args:
        hits: retrieval hits in decreasing score order (positions into ``policy_set``).
        policy_set: the tenant's policies.
        attributes: the end user's attributes, matched against each ``appliesWhen``.
        top_k: at most this many retrieved policies are selected.

    Returns:
        Policy id to relevance: the best ``top_k`` hits whose ``appliesWhen`` matches (a policy
        hit twice keeps its best score), then every ``alwaysOn`` policy whose ``appliesWhen``
        matches, at :data:`ALWAYS_ON_RELEVANCE`.
    """
    policies = policy_set.policies
    relevance: dict[str, float] = {}
    for hit in hits:
        if len(relevance) == top_k:
            break
        policy = policies[hit.position]
        if policy.id not in relevance and policy.applies_to(attributes):
            relevance[policy.id] = hit.score
    for position in policy_set.always_on:
        policy = policies[position]
        if policy.applies_to(attributes):
            relevance[policy.id] = ALWAYS_ON_RELEVANCE
    return relevance
