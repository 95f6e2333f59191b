"""The sans-I/O conversation core: state in, state and diff out.

:func:`advance_conversation` decides, for one turn, which policies apply, which were released
and which binding events happened. It reads no clock, store or index: the facade gives it the
stored state, what retrieval selected, the end user's attributes and the time, and stores what it
returns. Everything here is deterministic, which the property tests rely on.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from govcore.core.render import BlockRenderer, render_injection_block
from govcore.policy import PolicyDocument, PolicySet
from govcore.types import TokenCounter

__all__ = [
    "MESSAGE_DIGEST_BYTES",
    "MESSAGE_DIGEST_CHARS",
    "AppliesWhenVerdicts",
    "Binding",
    "BindingEventKind",
    "BindingLog",
    "BindingRecord",
    "ConversationRules",
    "ConversationState",
    "MessageIds",
    "TurnOutcome",
    "advance_conversation",
    "iso_timestamp",
    "message_digest",
    "prioritise",
    "replayed_outcome",
    "verdicts_after",
]

_STATE_VERSION = 2

BindingEventKind = Literal["binding_started", "binding_released"]


def iso_timestamp(epoch_seconds: float) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z``: ``2026-11-22T03:21:00.000Z``."""
    moment = datetime.fromtimestamp(epoch_seconds, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Binding:
    """A policy applicable in a conversation: since which turn, and when last selected."""

    policy_id: str
    since_turn: int
    last_selected_turn: int

    def held_at(self, turn_index: int, rules: ConversationRules) -> bool:
        """Whether the binding still holds at ``turn_index`` if not selected there: it is
        released after ``rules.release_after_unselected_turns`` turns without selection."""
        return turn_index - self.last_selected_turn < rules.release_after_unselected_turns


class BindingRecord(NamedTuple):
    """A binding event as stored in the conversation's log.

    A named tuple, because a long conversation's log holds many and is decoded at every turn.
    """

    turn_index: int
    policy_id: str
    event: BindingEventKind
    ts: str


_EVENT_CODES: dict[str, int] = {"binding_started": 0, "binding_released": 1}

# The state's header line, compact; made once (json.dumps with options builds an encoder per
# call, and every turn writes a state).
_HEADER_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_EVENT_NAMES: tuple[BindingEventKind, ...] = ("binding_started", "binding_released")


class BindingLog:
    """A conversation's binding events, kept as one compact JSON line per event.

    A long conversation's log is the bulk of its state, and every turn reads and writes the
    state: so the log is appended and trimmed as bytes and decoded only when someone reads it
    (the snapshot), never on an ordinary turn.
    """

    __slots__ = ("_count", "_raw")

    def __init__(self, raw: bytes = b"", count: int = 0) -> None:
        self._raw = raw
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BindingLog):
            return NotImplemented
        return self._raw == other._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __repr__(self) -> str:
        return f"BindingLog({self._count} events)"

    @property
    def raw(self) -> bytes:
        """The encoded lines."""
        return self._raw

    def appended(
        self, records: Sequence[BindingRecord], limit: int, max_bytes: int | None = None
    ) -> BindingLog:
        """A log with ``records`` added, keeping the latest ``limit`` events, and only as many
        of the latest as fit in ``max_bytes`` encoded bytes."""
        if not records:
            return self
        # Only the policy id needs JSON escaping; turn, code and ISO timestamp are plain.
        lines = "".join(
            f"[{r.turn_index},{json.dumps(r.policy_id, ensure_ascii=False)},"
            f'{_EVENT_CODES[r.event]},"{r.ts}"]\n'
            for r in records
        ).encode()
        raw, count = self._raw + lines, self._count + len(records)
        cut = 0
        while count > limit or (max_bytes is not None and len(raw) - cut > max_bytes):
            cut = raw.index(b"\n", cut) + 1
            count -= 1
        return BindingLog(raw[cut:], count)

    def records(self) -> tuple[BindingRecord, ...]:
        """The events, oldest first."""
        return tuple(
            BindingRecord(turn, policy_id, _EVENT_NAMES[code], ts)
            for turn, policy_id, code, ts in map(json.loads, self._raw.splitlines())
        )


@dataclass(frozen=True, slots=True)
class AppliesWhenVerdicts:
    """What the end user's attributes last decided of each ``appliesWhen`` condition.

    A conversation keeps these so that a turn sent without attributes (an assistant's reply,
    typically) does not release a conditional policy that the user's turn before it made
    applicable (docs/decisions/applies-when.md). The specification says attributes are not
    stored, and they are not: only, per condition (by its fingerprint,
    :class:`govcore.policy.Conditions`), whether it matched. A policy whose ``appliesWhen``
    changed in a new configuration has a new fingerprint, so no verdict until attributes
    decide it again.
    """

    decided: Mapping[str, bool] = field(default_factory=dict)
    """Condition fingerprint to whether the end user's attributes matched it."""

    def __hash__(self) -> int:
        return hash(frozenset(self.decided.items()))

    def verdict(self, policy_set: PolicySet, policy_id: str) -> bool | None:
        """The stored verdict on the policy's condition, if there is one."""
        fingerprint = policy_set.conditions.of_policy.get(policy_id)
        return None if fingerprint is None else self.decided.get(fingerprint)

    def applies(self, policy_set: PolicySet, policy: PolicyDocument) -> bool:
        """Whether the policy may apply: it has no ``appliesWhen``, or its verdict is a match."""
        return not policy.applies_when or self.verdict(policy_set, policy.id) is True

    def ruled_out(self, policy_set: PolicySet) -> frozenset[str]:
        """The ids of the policies whose condition the attributes were judged not to match."""
        under = policy_set.conditions.policies
        return frozenset(
            pid
            for fingerprint, matched in self.decided.items()
            if not matched
            for pid in under.get(fingerprint, ())
        )

    def kept_for(self, policy_set: PolicySet, active: Iterable[str]) -> AppliesWhenVerdicts:
        """The verdicts a conversation stores after a turn: only the matches of conditions
        whose policies are active. They say no more of the end user than the active policy
        list beside them does; a condition that did not match, or whose policy is not active,
        is judged again from the attributes of a later turn."""
        active_ids = set(active)
        under = policy_set.conditions.policies
        return AppliesWhenVerdicts(
            {
                fp: True
                for fp, matched in self.decided.items()
                if matched and any(pid in active_ids for pid in under.get(fp, ()))
            }
        )

    def after(
        self, policy_set: PolicySet, attributes: Mapping[str, Any] | None
    ) -> AppliesWhenVerdicts:
        """The verdicts once a turn with ``attributes`` is recorded: each condition the
        attributes decide (:func:`govcore.policy.judge_condition`) is judged afresh, the others
        keep their verdict; verdicts on conditions no policy has any more are dropped."""
        if not attributes:
            return self
        conditions = policy_set.conditions
        decided = {fp: m for fp, m in self.decided.items() if fp in conditions.policies}
        decided.update(conditions.decided_by(attributes))
        return AppliesWhenVerdicts(decided)


MESSAGE_DIGEST_BYTES = 9
"""The bytes of a kept message id's digest: a new id collides with one of 1,000 kept ones with a
chance of about 1,000 / 2**72 (docs/decisions/integration-identifiers.md). A multiple of 3, so
that each digest is 12 whole base64 characters and the kept ids are searched and trimmed as
text, never decoded."""
MESSAGE_DIGEST_CHARS = MESSAGE_DIGEST_BYTES * 4 // 3


def message_digest(kind: Literal["message", "tool_call"], identifier: str) -> str:
    """The digest a conversation keeps of a framework's message id (or, for a tool turn without
    one, of its tool call id), as base64 text: the kind is hashed with it, so that a message id
    never matches a call id that happens to be spelled the same."""
    hashed = hashlib.blake2b(
        identifier.encode(), digest_size=MESSAGE_DIGEST_BYTES, person=kind.encode()
    )
    return base64.b64encode(hashed.digest()).decode()


@dataclass(frozen=True, slots=True)
class MessageIds:
    """The digests of the message ids a conversation has recorded, oldest first, as one text of
    :data:`MESSAGE_DIGEST_CHARS` characters per digest.

    Kept as the very text the state stores, so that a turn carries them over, checks a replay
    (one search of a few kilobytes) and adds one without decoding anything.
    """

    packed: str = ""

    def __len__(self) -> int:
        return len(self.packed) // MESSAGE_DIGEST_CHARS

    def __contains__(self, digest: object) -> bool:
        if not isinstance(digest, str) or len(digest) != MESSAGE_DIGEST_CHARS:
            return False
        at = self.packed.find(digest)
        while at != -1:
            if at % MESSAGE_DIGEST_CHARS == 0:  # a match across two digests is no match
                return True
            at = self.packed.find(digest, at + 1)
        return False

    def added(self, digest: str, limit: int) -> MessageIds:
        """The ids with ``digest`` added, keeping the latest ``limit``."""
        packed = self.packed + digest
        return MessageIds(packed[-limit * MESSAGE_DIGEST_CHARS :])

    @classmethod
    def decoded(cls, text: str) -> MessageIds:
        """The ids as the state stored them.

        Raises:
            ValueError: not whole digests of base64 text.
        """
        # Length and ASCII only: a character outside base64 could only make a digest match
        # nothing, and checking each of 12,000 characters at every turn costs more than that.
        if len(text) % MESSAGE_DIGEST_CHARS or not text.isascii():
            raise ValueError("the message ids are not whole base64 digests")
        return cls(text)


@dataclass(frozen=True, slots=True)
class ConversationState:
    """What govcore keeps of a conversation between turns.

    ``bindings`` are the active policies in the priority order of the last turn;
    ``verdicts`` what the end user's attributes last decided of the ``appliesWhen`` policies;
    ``message_ids`` the digests of the frameworks' message ids recorded, the latest
    ``ConversationRules.message_ids_limit``.
    """

    turn_count: int
    bindings: tuple[Binding, ...]
    binding_log: BindingLog
    injection_block: str
    updated_at: float
    verdicts: AppliesWhenVerdicts = field(default_factory=AppliesWhenVerdicts)
    message_ids: MessageIds = field(default_factory=MessageIds)

    def to_bytes(self) -> bytes:
        """A compact JSON header line, then the binding log's lines."""
        header = {
            "v": _STATE_VERSION,
            "turns": self.turn_count,
            "active": [[b.policy_id, b.since_turn, b.last_selected_turn] for b in self.bindings],
            "block": self.injection_block,
            "updated": self.updated_at,
            "events": len(self.binding_log),
        }
        if self.verdicts.decided:
            # Only when there are verdicts, so the state of a conversation without attributes
            # is byte for byte what earlier versions wrote (and read).
            header["when"] = [[fp, int(matched)] for fp, matched in self.verdicts.decided.items()]
        if self.message_ids.packed:
            # Likewise only when a turn named its message: older states read and write unchanged.
            header["ids"] = self.message_ids.packed
        encoded = _HEADER_ENCODER.encode(header).encode()
        return encoded + b"\n" + self.binding_log.raw

    @classmethod
    def from_bytes(cls, raw: bytes) -> ConversationState:
        """Decode what :meth:`to_bytes` wrote (the log stays encoded until read). A state
        written before verdicts were kept has none: the same as a conversation whose turns
        never carried attributes.

        Raises:
            ValueError: the bytes are not a conversation state of a known version.
        """
        head, _, log = raw.partition(b"\n")  # compact JSON never holds a raw newline
        document: Any = json.loads(head)
        if not isinstance(document, dict) or document.get("v") != _STATE_VERSION:
            raise ValueError("not a govcore conversation state of a known version")
        events = int(document["events"])
        # One line per event: a cheap check (no decoding) that catches a cut or padded log
        # before turns append to it.
        if log.count(b"\n") != events or (log and not log.endswith(b"\n")):
            raise ValueError(f"the binding log does not hold {events} events")
        return cls(
            turn_count=int(document["turns"]),
            bindings=tuple(Binding(str(p), int(s), int(t)) for p, s, t in document["active"]),
            binding_log=BindingLog(log, events),
            injection_block=str(document["block"]),
            updated_at=float(document["updated"]),
            verdicts=AppliesWhenVerdicts({str(f): bool(m) for f, m in document.get("when", ())}),
            message_ids=MessageIds.decoded(str(document.get("ids", ""))),
        )


@dataclass(frozen=True, slots=True)
class ConversationRules:
    """The settings that shape a conversation's policy state."""

    release_after_unselected_turns: int = 3
    binding_log_limit: int = 500
    binding_log_max_bytes: int = 16 * 1024
    message_ids_limit: int = 1000


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """The result of one turn: the new state and what changed."""

    state: ConversationState
    turn_index: int
    active: tuple[PolicyDocument, ...]
    newly_applicable: tuple[PolicyDocument, ...]
    newly_released: tuple[PolicyDocument, ...]
    still_active: tuple[PolicyDocument, ...]
    events: tuple[BindingRecord, ...]
    token_estimate: int
    released_absent: tuple[str, ...] = ()
    """Ids of policies released because the policy set no longer has them (a new version
    removed them): released with an event, though the set cannot describe them."""


def prioritise(
    policies: Sequence[PolicyDocument],
    relevance: Mapping[str, float],
    position: Mapping[str, int],
) -> list[PolicyDocument]:
    """Most severe first, then most relevant this turn, then document order."""
    return sorted(policies, key=lambda p: (-p.severity, -relevance.get(p.id, 0.0), position[p.id]))


def verdicts_after(
    state: ConversationState | None, policy_set: PolicySet, attributes: Mapping[str, Any] | None
) -> AppliesWhenVerdicts:
    """The ``appliesWhen`` verdicts of a conversation once a turn with ``attributes`` is
    recorded: what selection filters the turn's hits with, and what the turn stores."""
    stored = state.verdicts if state is not None else AppliesWhenVerdicts()
    return stored.after(policy_set, attributes)


def advance_conversation(
    state: ConversationState | None,
    *,
    policy_set: PolicySet,
    selected: Mapping[str, float],
    attributes: Mapping[str, Any] | None,
    prior_turns: int,
    now: float,
    token_budget: int,
    count_tokens: TokenCounter,
    rules: ConversationRules,
    message_id: str | None = None,
    render: BlockRenderer = render_injection_block,
) -> TurnOutcome:
    """Record one turn.

    Args:
        state: the stored state, or ``None`` for the first call of a session.
        policy_set: the tenant's policies.
        selected: the policies retrieval selected at this turn (``alwaysOn`` ones included),
            already filtered by ``appliesWhen`` as :func:`verdicts_after` says, with their
            relevance.
        attributes: the end user's attributes at this turn, if it carried any (they update
            the stored verdicts, which decide ``appliesWhen`` of held policies).
        prior_turns: how many ``priorHistory`` entries came with the request; they count only
            on the first call.
        now: the current epoch time.
        token_budget: the budget of the injection block.
        count_tokens: the token estimate.
        rules: hold-and-release and log settings.
        message_id: the :func:`message_digest` of the turn's message id, kept with the state
            (the caller has made sure it is not kept already: :func:`replayed_outcome`).
        render: renders the injection block (a caller may keep the blocks it rendered).

    Returns:
        The new state and the diff. A policy that is not selected again for
        ``rules.release_after_unselected_turns`` consecutive turns is released; one whose
        ``appliesWhen`` attributes decided no longer matches, or that left the policy set, is
        released at once.
    """
    previous = state.turn_count if state is not None else prior_turns
    turn_index = previous + 1
    by_id = policy_set.by_id
    before = {b.policy_id: b for b in state.bindings} if state is not None else {}
    verdicts = verdicts_after(state, policy_set, attributes)

    bindings: dict[str, Binding] = {}
    released: list[str] = []
    for policy_id, binding in before.items():
        policy = by_id.get(policy_id)
        if policy_id in selected:
            bindings[policy_id] = Binding(policy_id, binding.since_turn, turn_index)
        elif (
            policy is not None
            and verdicts.applies(policy_set, policy)
            and binding.held_at(turn_index, rules)
        ):
            bindings[policy_id] = binding
        else:
            released.append(policy_id)
    started = [pid for pid in selected if pid not in before and pid in by_id]
    for policy_id in started:
        bindings[policy_id] = Binding(policy_id, turn_index, turn_index)

    position = policy_set.position
    active = prioritise([by_id[pid] for pid in bindings], selected, position)
    newly = [p for p in active if p.id not in before]
    still = [p for p in active if p.id in before]
    gone = prioritise([by_id[pid] for pid in released if pid in by_id], {}, position)
    absent = [pid for pid in released if pid not in by_id]
    gone_ids = [p.id for p in gone] + absent

    events: tuple[BindingRecord, ...] = ()
    if newly or gone_ids:  # most turns change nothing: no timestamp to format
        ts = iso_timestamp(now)
        events = tuple(
            [BindingRecord(turn_index, p.id, "binding_started", ts) for p in newly]
            + [BindingRecord(turn_index, pid, "binding_released", ts) for pid in gone_ids]
        )
    log = (state.binding_log if state is not None else BindingLog()).appended(
        events, rules.binding_log_limit, rules.binding_log_max_bytes
    )

    block, estimate = render(active, token_budget, count_tokens)
    new_state = ConversationState(
        turn_count=turn_index,
        bindings=tuple(bindings[p.id] for p in active),
        binding_log=log,
        injection_block=block,
        updated_at=now,
        verdicts=verdicts.kept_for(policy_set, bindings),
        message_ids=_ids_after(state, message_id, rules.message_ids_limit),
    )
    return TurnOutcome(
        state=new_state,
        turn_index=turn_index,
        active=tuple(active),
        newly_applicable=tuple(newly),
        newly_released=tuple(gone),
        still_active=tuple(still),
        events=events,
        token_estimate=estimate,
        released_absent=tuple(absent),
    )


def _ids_after(state: ConversationState | None, digest: str | None, limit: int) -> MessageIds:
    kept = state.message_ids if state is not None else MessageIds()
    return kept if digest is None else kept.added(digest, limit)


def replayed_outcome(
    state: ConversationState | None,
    message_id: str | None,
    *,
    policy_set: PolicySet,
    token_budget: int,
    count_tokens: TokenCounter,
    render: BlockRenderer = render_injection_block,
) -> TurnOutcome | None:
    """What a turn whose message the conversation has recorded already answers, or ``None``
    when it is a new turn (no message id, no conversation, or an id not kept).

    The replay records nothing: the outcome describes the conversation as it stands, its
    latest turn's index, its active policies (all of them still active, in the stored
    priority order, none newly applicable or released, no binding event), and their injection
    block rendered within this request's ``token_budget`` (so that ``tokenEstimate <=
    tokenBudget`` holds whatever budget the replay asks for). A policy that a new configuration
    removed is left out, as a snapshot leaves it out.
    """
    if state is None or message_id is None or message_id not in state.message_ids:
        return None
    by_id = policy_set.by_id
    active = tuple(by_id[b.policy_id] for b in state.bindings if b.policy_id in by_id)
    block, estimate = render(list(active), token_budget, count_tokens)
    return TurnOutcome(
        state=ConversationState(
            turn_count=state.turn_count,
            bindings=state.bindings,
            binding_log=state.binding_log,
            injection_block=block,
            updated_at=state.updated_at,
            verdicts=state.verdicts,
            message_ids=state.message_ids,
        ),
        turn_index=state.turn_count,
        active=active,
        newly_applicable=(),
        newly_released=(),
        still_active=active,
        events=(),
        token_estimate=estimate,
    )
