"""Shadow mode: a tenant's candidate policy set decides the same requests as the live one,
and only the decision log learns what it decided.

A request of a sampled conversation is decided by the live policy set, answered, and then
decided again by the candidate (``tenants.<id>.shadow``) from the same inputs: a turn's
selection from the conversation's state as it was before the turn (what the candidate would
make of this turn if it were rolled out now, since a rollout keeps conversations' state), an
output's or a tool call's verdict from the same text or arguments. The candidate's decision
goes to the decision log as a record whose ``shadow`` says how it differs from the live one;
it never reaches the caller, never writes to the store, and a failure of it is logged and
changes nothing of the live answer.

Conversations are sampled by session id, not request by request, so that a sampled
conversation is compared at every turn; which conversations are sampled does not depend on the
process, so every worker samples the same ones.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from govcore.decision_log import ShadowDiff
from govcore.service.access import Principal
from govcore.service.shared import Service
from govcore.service.tenants import CompiledTenant

__all__ = ["SELECTION", "Judgement", "decide_in_shadow", "sampled"]

_log = logging.getLogger("govcore")

SELECTION = "selection"
"""The verdict of a record of a selection (a turn, a pre-inference call)."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision as shadow mode compares it: a verdict (``selection``, ``safe`` or
    ``unsafe``, ``allow`` or ``block``), its policies (selected, or with violations), how
    many violations and the risk score."""

    verdict: str
    policy_ids: tuple[str, ...]
    violations: int = 0
    risk_score: float = 0.0


def sampled(rate: float, tenant: str, session_id: str) -> bool:
    """Whether the conversation ``session_id`` of ``tenant`` is decided in shadow at
    ``rate``: the same answer in every process, for every request of the conversation."""
    if rate >= 1.0:
        return True
    digest = hashlib.blake2b(f"{tenant}\0{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") < rate * 2**64


def decide_in_shadow(
    service: Service,
    principal: Principal,
    endpoint: str,
    session_id: str,
    trace_id: str,
    live: Judgement | Callable[[], Judgement],
    judge: Callable[[CompiledTenant], Judgement],
) -> None:
    """Have the tenant's candidate policy set decide the request too, when it has one and the
    conversation is sampled, and log the candidate's decision with its difference from
    ``live`` (the live decision, or what makes it: it is made only for a sampled request).
    Never raises: a failure is logged and the live answer stands."""
    shadow = service.shadows.get(principal.tenant)
    if shadow is None or not sampled(shadow.sample_rate, principal.tenant, session_id):
        return
    started = time.perf_counter()
    try:
        live_judgement = live() if callable(live) else live
        candidate = judge(shadow.tenant)
    except Exception:
        _log.exception("the shadow policy set of tenant %s failed to decide", principal.tenant)
        return
    service.log_decision(
        principal, endpoint, session_id, trace_id, candidate.policy_ids, candidate.verdict,
        candidate.violations, candidate.risk_score, started, None,
        policy_set=shadow.tenant.policy_set,
        shadow=ShadowDiff(
            live_policy_set_version=service.tenants[principal.tenant].policy_set.version,
            live_verdict=live_judgement.verdict,
            live_policy_ids=live_judgement.policy_ids,
            gained=_missing_from(candidate.policy_ids, live_judgement.policy_ids),
            lost=_missing_from(live_judgement.policy_ids, candidate.policy_ids),
        ),
    )  # fmt: skip


def _missing_from(ids: Sequence[str], others: Sequence[str]) -> tuple[str, ...]:
    other = set(others)
    return tuple(pid for pid in ids if pid not in other)
