"""The service's shared machinery: backends, tenants, the access pipeline and store calls."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from govcore.config import GovernanceSettings, LoadedConfig
from govcore.core.conversation import BindingRecord, ConversationRules, ConversationState
from govcore.core.ratelimit import (
    WINDOW_ENTRY_BYTES,
    WINDOW_SECONDS,
    admit,
    retry_after_seconds,
)
from govcore.core.render import render_injection_block
from govcore.decision_log import Decision, DecisionQueue, ShadowDiff
from govcore.errors import BackendError, GovcoreError, InternalError, RateLimitedError
from govcore.policy import PolicyDocument, PolicySet
from govcore.service.access import KeyRing, Principal
from govcore.service.effects import Admit, Get, Steps, perform
from govcore.service.store_keys import rate_window_key
from govcore.service.tenants import CompiledTenant, compile_tenants
from govcore.service.wire import PolicyViews
from govcore.types import Clock, Retriever, StoreReads, StoreWrite, TokenCounter

if TYPE_CHECKING:
    from govcore.telemetry._observer import Observer

__all__ = [
    "INJECTION_BLOCKS_KEPT",
    "STATES_KEPT",
    "DecodedStates",
    "InjectionBlocks",
    "Result",
    "Service",
    "Serving",
    "Shadow",
    "random_id",
]

M = TypeVar("M")
T = TypeVar("T")

_log = logging.getLogger("govcore")

# What decoding stored bytes may raise when they are not what govcore wrote: bad JSON, wrong
# types or shapes, numbers too large, nesting too deep.
_DECODE_ERRORS = (ValueError, KeyError, TypeError, IndexError, OverflowError, RecursionError)


@dataclass(frozen=True, slots=True)
class Result(Generic[M]):
    """An endpoint's response model and, when it is a replay, the exact bytes first sent."""

    model: M | None
    body: bytes | None = None


STATES_KEPT = 1024
"""How many decoded conversation states a service keeps (the latest written or read)."""

INJECTION_BLOCKS_KEPT = 512
"""How many injection blocks a service keeps (:class:`InjectionBlocks`): a few KB each."""


class InjectionBlocks:
    """The injection blocks a service rendered lately, by what decides them.

    A conversation's turns mostly keep the same active policies, and every turn rendered its
    block again (an entry and a token count per policy). Policies are immutable and a token
    counter is a function of its text, so the same policy objects, budget and counter give
    the same block: an entry is kept by their identities and holds the objects themselves (so
    their ids stay theirs while it lives), and a hit is checked by identity. A reloaded policy
    set is new objects, so new entries. The oldest entry goes first beyond ``limit``.
    """

    def __init__(self, limit: int = INJECTION_BLOCKS_KEPT) -> None:
        self._limit = limit
        self._blocks: dict[tuple[int, ...], tuple[tuple[PolicyDocument, ...], TokenCounter, str, int]] = {}  # fmt: skip
        self._lock = threading.Lock()

    def render(
        self, policies: Sequence[PolicyDocument], token_budget: int, count_tokens: TokenCounter
    ) -> tuple[str, int]:
        """:func:`~govcore.core.render.render_injection_block`, or the block it gave before."""
        key = (token_budget, id(count_tokens), *map(id, policies))
        kept = self._blocks.get(key)
        if (
            kept is not None
            and kept[1] is count_tokens
            and all(mine is given for mine, given in zip(kept[0], policies, strict=True))
        ):
            return kept[2], kept[3]
        block, estimate = render_injection_block(policies, token_budget, count_tokens)
        with self._lock:
            self._blocks[key] = (tuple(policies), count_tokens, block, estimate)
            if len(self._blocks) > self._limit:
                del self._blocks[next(iter(self._blocks))]
        return block, estimate

    def __len__(self) -> int:
        return len(self._blocks)


class DecodedStates:
    """The latest conversation states by store key, with the exact bytes each was read as or
    written as: a state read back as those very bytes is not decoded again.

    Every turn reads the conversation's state, and so does every tool call gated in a session;
    decoding it (its JSON header, the message ids, the bindings) was 15 to 25 µs of each. Within
    one process the bytes a turn wrote are usually the bytes the next call of the conversation
    reads (with the memory store the very object, with Redis an equal copy), so the state the
    turn built serves that call. A state is looked up by its key and used only when the bytes
    are equal, so an entry can be stale but never wrong: another worker's write, a deletion, an
    expiry or corrupt data in the store are other bytes, and are decoded (or refused) as before.
    States are immutable, so one object can serve any number of requests and threads.
    """

    def __init__(self, capacity: int = STATES_KEPT) -> None:
        self._capacity = capacity
        self._entries: dict[str, tuple[bytes, ConversationState]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, raw: bytes) -> ConversationState | None:
        """The state kept for ``key`` if it was kept for these bytes; else ``None``."""
        entry = self._entries.get(key)  # one dict read: atomic, so no lock
        if entry is None:
            return None
        kept, state = entry
        return state if kept is raw or kept == raw else None

    def discard(self, key: str) -> None:
        """Forget the state kept for ``key`` (its conversation was deleted: nothing of it is
        kept, not even in this process's memory)."""
        with self._lock:
            self._entries.pop(key, None)

    def put(self, key: str, raw: bytes, state: ConversationState) -> None:
        """Keep ``state`` as the decoding of ``raw`` under ``key`` (the oldest entry goes when
        more than the capacity are kept)."""
        with self._lock:
            entries = self._entries
            entries.pop(key, None)  # re-inserted last: the order is the order of use
            entries[key] = (raw, state)
            if len(entries) > self._capacity:
                del entries[next(iter(entries))]


_ID_BYTES = 16
_IDS_PER_READ = 256


class _RandomIds:
    """128-bit ids from the operating system's random source, read 256 at a time.

    Every check makes two ids (its trace id and its decision's id); one ``os.urandom`` call per
    id cost about 0.9 µs of a streaming call, a slice of bytes read ahead about 0.3 µs. The ids
    are the same random bytes either way, only read in larger pieces. A forked child forgets
    what its parent read ahead (``os.register_at_fork``), so two worker processes never hand
    out the same ids.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool = b""
        self._next = 0

    def take(self) -> str:
        """The next id, as 32 hexadecimal digits."""
        with self._lock:
            pool, at = self._pool, self._next
            if at >= len(pool):
                pool = self._pool = os.urandom(_ID_BYTES * _IDS_PER_READ)
                at = 0
            self._next = at + _ID_BYTES
        return pool[at : at + _ID_BYTES].hex()

    def forget(self) -> None:
        """Drop what was read ahead (in a forked child, which must not repeat its parent's)."""
        self._lock = threading.Lock()
        self._pool = b""
        self._next = 0


_RANDOM_IDS = _RandomIds()
if hasattr(os, "register_at_fork"):  # where processes fork (not on Windows)
    os.register_at_fork(after_in_child=_RANDOM_IDS.forget)


def random_id() -> str:
    """128 random bits as 32 hex digits: trace and decision ids."""
    return _RANDOM_IDS.take()


RETIRED_VIEWS_KEPT = 10_000
"""How many removed policies a service remembers per tenant (the most recently removed)."""


def _retired_views(
    previous: Service | None, tenants: dict[str, CompiledTenant]
) -> dict[str, PolicyViews]:
    """The policies ``previous`` (and the services before it) served that ``tenants`` lack."""
    if previous is None:
        return {}
    retired: dict[str, PolicyViews] = {}
    for tenant_id, tenant in tenants.items():
        before = previous.tenants.get(tenant_id)
        kept = dict(previous.retired_views.get(tenant_id, {}))
        if before is not None:
            kept.update(before.views)  # the latest description of each wins
        gone = {pid: view for pid, view in kept.items() if pid not in tenant.views}
        if len(gone) > RETIRED_VIEWS_KEPT:
            gone = dict(list(gone.items())[-RETIRED_VIEWS_KEPT:])
        if gone:
            retired[tenant_id] = gone
    return retired


@dataclass(frozen=True, slots=True)
class Shadow:
    """A tenant's candidate policy set, compiled, and the share of conversations it decides."""

    tenant: CompiledTenant
    sample_rate: float


class Serving:
    """The service a facade serves now. A reload replaces it whole, in one assignment, and
    every request reads it once, as it starts: a request runs on one configuration from
    start to end, and one that started before a reload finishes on the configuration it
    started with."""

    __slots__ = ("service",)

    def __init__(self, service: Service) -> None:
        self.service = service


class Service:
    """What every endpoint handler works with: settings, tenants, keys and the retrievers.

    It holds no store and no lock: handlers ask for store work by yielding effects
    (:mod:`govcore.service.effects`), which the facade performs on its store, and every
    read-modify-write of shared state is one atomic store update.
    """

    def __init__(
        self,
        config: LoadedConfig,
        *,
        clock: Clock,
        retriever: Callable[[str], Retriever],
        token_counter: TokenCounter,
        trace_ids: Callable[[], str],
        decisions: DecisionQueue,
        observer: Observer | None = None,
        previous: Service | None = None,
        reuse_compiled: bool = False,
    ) -> None:
        """Build the service of ``config``.

        ``previous``: the service this one replaces (a reload). Its memory of decoded states is
        kept, and, with ``reuse_compiled`` (the caller knows the retrievers and everything
        they read are the same), so are its compiled tenants whose policy sets are unchanged;
        else everything is compiled anew (a retrieval setting changes every index).
        """
        reuse = reuse_compiled and previous is not None
        self.settings: GovernanceSettings = config.settings
        self.observer = observer
        """Metrics and spans of each request (:mod:`govcore.telemetry`); ``None``: neither."""
        self.clock = clock
        self.count_tokens = token_counter
        self.new_trace_id = trace_ids
        self.decisions = decisions
        self.keys = KeyRing(config.keys)
        self.states: DecodedStates = previous.states if previous is not None else DecodedStates()
        # Kept across a reload too: a new policy set is new objects, so its blocks are new keys.
        self.blocks: InjectionBlocks = (
            previous.blocks if previous is not None else InjectionBlocks()
        )
        """The latest conversation states read or written, so that none is decoded twice
        (states do not depend on the policies, so a reload keeps them)."""
        # One retriever per language among the tenants (most configurations have one).
        retrievers = {
            language: retriever(language)
            for language in sorted({p.language for p in config.tenants.values()})
        }
        self.tenants: dict[str, CompiledTenant] = compile_tenants(
            config.tenants,
            retrievers.__getitem__,
            config.settings.secret_options,
            config.settings.detection_engine,
            compiled=previous.tenants if reuse and previous is not None else None,
        )
        reusable = dict(self.tenants)  # a candidate equal to a live policy set shares its work
        if reuse and previous is not None:
            reusable.update({f"shadow:{t}": s.tenant for t, s in previous.shadows.items()})
        shadow_tenants = compile_tenants(
            {t: shadow.policy_set for t, shadow in config.shadows.items()},
            retrievers.__getitem__,
            config.settings.secret_options,
            config.settings.detection_engine,
            compiled=reusable,
        )
        self.shadows: dict[str, Shadow] = {
            t: Shadow(shadow_tenants[t], shadow.sample_rate) for t, shadow in config.shadows.items()
        }
        """Per tenant that has one, the candidate policy set run in shadow
        (:mod:`govcore.service.shadow`)."""
        self.retired_views: dict[str, PolicyViews] = _retired_views(previous, self.tenants)
        """Per tenant, the policies earlier configurations served and this one lacks, as they
        showed them: a turn that releases one shows it in ``diff.newlyReleased``."""
        self.conversation_rules = ConversationRules(
            release_after_unselected_turns=config.settings.release_after_unselected_turns,
            binding_log_limit=config.settings.binding_log_limit,
            message_ids_limit=config.settings.message_ids_per_conversation,
        )
        self._retriever_errors: tuple[type[BaseException], ...] = tuple(
            {error for r in retrievers.values() for error in getattr(r, "backend_errors", ())}
        )

    # --- what is served ------------------------------------------------------------------------

    def policy_set_versions(self) -> dict[str, str]:
        """The version of the policy set each tenant serves (the metric
        ``govcore_policy_set_info``): the content hash of its policies
        (:attr:`~govcore.policy.PolicySet.version`; its label is not part of it)."""
        return {name: tenant.policy_set.version for name, tenant in self.tenants.items()}

    # --- access ----------------------------------------------------------------------------

    def rate_limit(self, principal: Principal) -> int | None:
        """The most requests per window the caller's key may make; ``None``: no limit (the key
        sets ``rate_limit_per_minute: unlimited``)."""
        limit = principal.settings.rate_limit_per_minute
        if limit == "unlimited":
            return None
        return limit or self.settings.default_rate_limit_per_minute

    def admit(self, principal: Principal, read: Sequence[str] = ()) -> Steps[StoreReads]:
        """Count the request in its key's rate-limit window (429 when over), and read ``read``.

        A store that can (:class:`~govcore.types.PipelinedStore`) does both in one round trip,
        so the keys a request will need cost no trip of their own.

        Raises:
            RateLimitedError: the key made its limit of requests in the last window.
        """
        limit = self.rate_limit(principal)
        if limit is None:
            # Nothing to count, so no window is kept; the keys are read as a store without
            # pipelining reads them after an admission, one by one.
            values: dict[str, bytes | None] = {}
            for name in read:
                values[name] = yield from perform(Get(name))
            return StoreReads(values)
        key = rate_window_key(principal.key_id)

        def decide(raw: bytes | None, now: float) -> StoreWrite[float | None]:
            if raw is not None and len(raw) % WINDOW_ENTRY_BYTES:
                raise self.corrupt(key, "rate-limit window", ValueError("not whole entries"))
            return admit(raw, now, limit=limit)

        admission = yield from perform(
            Admit(key, limit, WINDOW_SECONDS, tuple(read), Service.mutation(decide))
        )
        if admission.wait is not None:
            seconds = retry_after_seconds(admission.wait)
            raise RateLimitedError(
                f"rate limit of {limit} requests per {WINDOW_SECONDS} seconds exceeded; "
                f"retry after {seconds} s",
                window_seconds=WINDOW_SECONDS,
                retry_after=seconds,
            )
        return admission.reads

    def tenant(self, principal: Principal) -> CompiledTenant:
        """The compiled policy set of the caller's tenant."""
        return self.tenants[principal.tenant]

    # --- retrieval and stored data -------------------------------------------------------------

    def retrieval(self, operation: Callable[[], T]) -> T:
        """Run a retrieval; the exception types the retriever declares become a 503."""
        try:
            return operation()
        except GovcoreError:
            raise
        except self._retriever_errors as exc:
            raise BackendError(f"retrieval is unavailable ({type(exc).__name__})") from exc

    @staticmethod
    def mutation(step: Callable[..., T]) -> Callable[..., T]:
        """``step`` (a mutation run inside the store) with its bugs raised as
        :class:`InternalError`, so no store can mistake them for its own failures."""

        def guarded(*args: Any) -> T:
            try:
                return step(*args)
            except GovcoreError:
                raise
            except Exception as exc:
                _log.exception("internal error inside a store update")
                raise InternalError() from exc

        return guarded

    def decode_state(self, raw: bytes, key: str) -> ConversationState:
        """A stored conversation state, or a 503 (logged) when it cannot be read.

        Bytes this service wrote or read last under ``key`` give the state it kept of them
        (:class:`DecodedStates`), without decoding them again.
        """
        known = self.states.get(key, raw)
        if known is not None:
            return known
        try:
            state = ConversationState.from_bytes(raw)
        except _DECODE_ERRORS as exc:
            raise self.corrupt(key, "conversation state", exc) from exc
        self.states.put(key, raw, state)
        return state

    def encode_state(self, state: ConversationState, key: str) -> bytes:
        """``state`` as the bytes to store under ``key``, kept as their decoding (the next call
        of the conversation reads them without decoding)."""
        raw = state.to_bytes()
        self.states.put(key, raw, state)
        return raw

    def decode_binding_log(self, state: ConversationState, key: str) -> tuple[BindingRecord, ...]:
        """The events of a stored binding log, or a 503 (logged) when it cannot be read."""
        try:
            return state.binding_log.records()
        except _DECODE_ERRORS as exc:
            raise self.corrupt(key, "binding log", exc) from exc

    @staticmethod
    def corrupt(key: str, what: str, cause: BaseException) -> BackendError:
        """The error for stored data that cannot be read, logged for an operator."""
        _log.error("unreadable %s in the store at %r: %s", what, key, cause)
        return BackendError(f"the stored {what} is unreadable")

    # --- the decision log ----------------------------------------------------------------------

    def log_decision(
        self,
        principal: Principal,
        endpoint: str,
        session_id: str,
        trace_id: str,
        policy_ids: Sequence[str],
        verdict: str,
        violations: int,
        score: float,
        started: float,
        text: str | None,
        *,
        policy_set: PolicySet | None = None,
        shadow: ShadowDiff | None = None,
    ) -> None:
        """Queue one decision record; never blocks on the sink.

        ``policy_set``: the one that decided, when it is not the tenant's live set (a shadow's
        candidate, whose record carries ``shadow``).
        """
        if policy_set is None:
            policy_set = self.tenants[principal.tenant].policy_set
        self.decisions.record(
            Decision(
                decision_id=random_id(),
                trace_id=trace_id,
                tenant=principal.tenant,
                key_id=principal.key_id,
                endpoint=endpoint,
                session_id=session_id,
                policy_ids=tuple(policy_ids),
                verdict=verdict,
                violations=violations,
                risk_score=score,
                duration_ms=round((time.perf_counter() - started) * 1000, 3),
                ts=self.clock(),
                text=text if self.settings.decision_log_include_text else None,
                policy_set_version=policy_set.version,
                policy_set_label=policy_set.label,
                shadow=shadow,
            )
        )
