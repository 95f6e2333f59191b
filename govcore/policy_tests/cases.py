"""The policy test file format (docs/policy-testing.md), parsed strictly into cases.

A test file is YAML: an optional ``tenant`` and a list of ``cases``. Each case is one of four
kinds, told apart by the key that holds what it sends (``message``, ``output``, ``tool`` or
``turns``). Everything is checked before anything runs: an unknown key, a value of the wrong
type, or a policy id the tenant does not have is a problem naming the file, the case and the
field. A problem in one case makes that case an error and leaves the file's other cases to run;
a problem of the file itself (unreadable, not YAML, an unknown tenant) makes the whole file one
error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from govcore._suggest import closest_name, unknown_field

__all__ = [
    "ROLES",
    "BrokenCase",
    "Case",
    "ConversationCase",
    "OutputCase",
    "ParsedFile",
    "SelectionCase",
    "SelectionExpectation",
    "ToolCallCase",
    "TurnSpec",
    "ViolationExpectation",
    "parse_test_file",
]

ROLES: Final = ("user", "assistant", "tool")
"""The roles a turn may have (a ``system`` turn is refused by the API)."""

_FILE_KEYS = ("tenant", "cases")
# The key holding what a case sends decides its kind; a tool call may be preceded by turns.
_KIND_KEYS = ("message", "output", "tool", "turns")
_SELECTION_KEYS = ("selects", "does_not_select", "selects_exactly")
_TURN_KEYS = ("message", "role", *_SELECTION_KEYS, "started", "released")
_CASE_KEYS = {
    "selection": ("name", "message", "role", "context", "attributes", "history", *_SELECTION_KEYS),
    "output": (
        "name", "output", "safe", "violations", "redaction", "redaction_contains",
        "redaction_excludes",
    ),
    "tool call": (
        "name", "tool", "arguments", "attributes", "turns", "allow", "violations",
        "suggested_arguments",
    ),
    "conversation": ("name", "turns", "attributes", "history"),
}  # fmt: skip
_VIOLATION_KEYS = ("policy", "count", "matched")
_HISTORY_KEYS = ("role", "content")


@dataclass(frozen=True, slots=True)
class SelectionExpectation:
    """What must hold of the policies a turn leaves active (its ``activePolicies``).

    Attributes:
        selects: each of these is active after the turn.
        does_not_select: none of these is active after the turn.
        selects_exactly: the active policies are exactly these (order aside); ``None``: no
            such check.
        started: the policies that became applicable at this turn (``diff.newlyApplicable``)
            are exactly these; ``None``: no such check.
        released: the policies released at this turn (``diff.newlyReleased``) are exactly
            these; ``None``: no such check.
    """

    selects: tuple[str, ...] = ()
    does_not_select: tuple[str, ...] = ()
    selects_exactly: tuple[str, ...] | None = None
    started: tuple[str, ...] | None = None
    released: tuple[str, ...] | None = None

    @property
    def checks_anything(self) -> bool:
        """Whether any expectation is set."""
        return bool(
            self.selects
            or self.does_not_select
            or self.selects_exactly is not None
            or self.started is not None
            or self.released is not None
        )

    def named_policies(self) -> set[str]:
        """Every policy id the expectation names."""
        return {
            *self.selects,
            *self.does_not_select,
            *(self.selects_exactly or ()),
            *(self.started or ()),
            *(self.released or ()),
        }


@dataclass(frozen=True, slots=True)
class TurnSpec:
    """One turn a case records, and what must hold after it.

    Attributes:
        message: the turn's content.
        role: ``user``, ``assistant`` or ``tool``.
        expect: the expectations on the policies it leaves active.
        place: where it is in the case (``turns[2]``), or ``""`` for a selection case's message.
    """

    message: str
    role: str
    expect: SelectionExpectation
    place: str = ""


@dataclass(frozen=True, slots=True)
class ViolationExpectation:
    """The violations of one policy a check must report.

    Attributes:
        policy: the policy id.
        count: how many violations of it; ``None``: one or more.
        matched: texts each of which is the ``matchedText`` of one of its violations.
    """

    policy: str
    count: int | None = None
    matched: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SelectionCase:
    """A message sent as the first turn of a new conversation, and the policies it selects."""

    name: str
    index: int
    turn: TurnSpec
    context: tuple[str, ...] = ()
    attributes: Mapping[str, Any] | None = None
    history: tuple[tuple[str, str], ...] = ()
    kind: str = field(default="selection", init=False)


@dataclass(frozen=True, slots=True)
class ConversationCase:
    """Turns of one new conversation, and the active policies after each."""

    name: str
    index: int
    turns: tuple[TurnSpec, ...]
    attributes: Mapping[str, Any] | None = None
    history: tuple[tuple[str, str], ...] = ()
    kind: str = field(default="conversation", init=False)


@dataclass(frozen=True, slots=True)
class OutputCase:
    """A model output checked by post-inference, and the verdict expected."""

    name: str
    index: int
    output: str
    safe: bool | None = None
    violations: tuple[ViolationExpectation, ...] | None = None
    redaction: str | None = None
    redaction_contains: tuple[str, ...] = ()
    redaction_excludes: tuple[str, ...] = ()
    kind: str = field(default="output", init=False)


_UNSET: Final[Any] = object()


@dataclass(frozen=True, slots=True)
class ToolCallCase:
    """A proposed tool call (after the case's turns, if any), and the decision expected.

    ``suggested_arguments`` is the expected ``suggestedArguments``: a mapping, ``None`` for
    "nothing could be fixed", or unset (``has_suggested_arguments`` false) for no check.
    """

    name: str
    index: int
    tool: str
    arguments: Mapping[str, Any]
    turns: tuple[TurnSpec, ...] = ()
    attributes: Mapping[str, Any] | None = None
    allow: bool | None = None
    violations: tuple[ViolationExpectation, ...] | None = None
    suggested_arguments: Any = _UNSET
    kind: str = field(default="tool call", init=False)

    @property
    def has_suggested_arguments(self) -> bool:
        """Whether the case expects a ``suggestedArguments`` (an object or null)."""
        return self.suggested_arguments is not _UNSET


Case = SelectionCase | ConversationCase | OutputCase | ToolCallCase


@dataclass(frozen=True, slots=True)
class BrokenCase:
    """A case that could not be parsed: each problem as ``field: reason``."""

    name: str
    index: int
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """A test file, parsed.

    Attributes:
        path: the file, as given.
        tenant: the tenant its cases run as (``""`` when the file itself is broken).
        cases: the cases that parsed.
        broken: the cases that did not.
        problems: the file's own problems; when there are any, nothing of it runs.
    """

    path: str
    tenant: str = ""
    cases: tuple[Case, ...] = ()
    broken: tuple[BrokenCase, ...] = ()
    problems: tuple[str, ...] = ()


def parse_test_file(path: str, document: Any, tenants: Mapping[str, frozenset[str]]) -> ParsedFile:
    """Parse the YAML ``document`` of the test file ``path``.

    Args:
        path: the file's path, for messages.
        document: the file's content as YAML parsed it.
        tenants: each tenant's policy ids, in the configuration under test.

    Returns:
        The file's cases, its broken cases, or its own problems.
    """
    if not isinstance(document, Mapping):
        found = "empty" if document is None else f"a {_type_name(document)}"
        return ParsedFile(path, problems=(f"must be a mapping with 'cases', not {found}",))
    problems = [
        f"{key}: {unknown_field(str(key), _FILE_KEYS)}" for key in document if key not in _FILE_KEYS
    ]
    tenant = document.get("tenant")
    if tenant is None:
        if len(tenants) != 1:
            problems.append(
                f"tenant: required, since the configuration has {len(tenants)} tenants "
                f"({_listing(tenants)})"
            )
        else:
            (tenant,) = tenants
    elif not isinstance(tenant, str):
        problems.append(f"tenant: must be text, not {_described(tenant)}")
    elif tenant not in tenants:
        meant = closest_name(tenant, tenants)
        hint = f" (did you mean {meant!r}?)" if meant and meant != tenant else ""
        problems.append(
            f"tenant: unknown tenant {tenant!r}{hint}; the configuration has {_listing(tenants)}"
        )
    raw_cases = document.get("cases")
    if raw_cases is None:
        problems.append("cases: required (a list of test cases)")
    elif not isinstance(raw_cases, list):
        problems.append(f"cases: must be a list of test cases, not {_described(raw_cases)}")
    elif not raw_cases:
        problems.append("cases: empty; a test file holds at least one case")
    if problems:
        return ParsedFile(path, problems=tuple(problems))
    assert isinstance(tenant, str)
    assert isinstance(raw_cases, list)
    policies = tenants[tenant]
    cases: list[Case] = []
    broken: list[BrokenCase] = []
    names: dict[str, int] = {}
    for index, raw in enumerate(raw_cases):
        reader = _CaseReader(policies, tenant)
        name = raw.get("name") if isinstance(raw, Mapping) else None
        shown_name = name if isinstance(name, str) and name.strip() else f"cases[{index}]"
        case = reader.case(raw, index)
        if isinstance(name, str) and name.strip() and name in names:
            reader.problem("name", f"the same name as cases[{names[name]}]; names are unique")
        if isinstance(name, str):
            names.setdefault(name, index)
        if reader.problems or case is None:
            broken.append(BrokenCase(shown_name, index, tuple(reader.problems)))
        else:
            cases.append(case)
    return ParsedFile(path, tenant, tuple(cases), tuple(broken))


def _type_name(value: Any) -> str:
    """A YAML reader's name for a value's type."""
    names = {
        bool: "boolean",
        int: "number",
        float: "number",
        str: "text",
        list: "list",
        type(None): "null",
    }
    for kind, name in names.items():
        if type(value) is kind:
            return name
    return "mapping" if isinstance(value, Mapping) else type(value).__name__


def _described(value: Any) -> str:
    """A value in an error message: its type, and short scalars themselves."""
    if value is None:
        return "null"
    if isinstance(value, Mapping | list):
        return f"a {_type_name(value)}"
    text = repr(value)
    return f"{_type_name(value)} {text if len(text) <= 40 else text[:40] + '...'}"


def _listing(names: Sequence[str] | Mapping[str, Any] | frozenset[str]) -> str:
    return ", ".join(sorted(names)) or "none"


class _CaseReader:
    """Reads one case, collecting every problem as ``field: reason``."""

    def __init__(self, policies: frozenset[str], tenant: str) -> None:
        self._policies = policies
        self._tenant = tenant
        self.problems: list[str] = []

    def problem(self, place: str, reason: str) -> None:
        self.problems.append(f"{place}: {reason}")

    def case(self, raw: Any, index: int) -> Case | None:
        if not isinstance(raw, Mapping):
            self.problem(f"cases[{index}]", f"must be a mapping, not {_described(raw)}")
            return None
        name = self._text(raw, "name", required=True)
        given = [key for key in _KIND_KEYS if key in raw]
        if "tool" in given and "turns" in given:
            given.remove("turns")  # a tool call may follow turns
        if len(given) != 1:
            what = "none" if not given else " and ".join(repr(k) for k in given)
            self.problem(
                "case",
                f"has {what}; a case has exactly one of 'message' (selection), 'output' "
                "(output check), 'tool' (tool call) or 'turns' (conversation)",
            )
            return None
        kind = {"message": "selection", "output": "output", "tool": "tool call"}.get(
            given[0], "conversation"
        )
        allowed = _CASE_KEYS[kind]
        for key in raw:
            if key not in allowed:
                known = [k for keys in _CASE_KEYS.values() for k in keys]
                reason = unknown_field(str(key), allowed)
                if key in known:
                    reason = f"not a key of a {kind} case"
                elif key in _TURN_KEYS:
                    reason = "a key of a turn (under turns), not of a case"
                self.problem(str(key), reason)
        name = name or ""
        if kind == "selection":
            return self._selection(raw, name, index)
        if kind == "conversation":
            return self._conversation(raw, name, index)
        if kind == "output":
            return self._output(raw, name, index)
        return self._tool_call(raw, name, index)

    # --- the four kinds ---------------------------------------------------------------------

    def _selection(self, raw: Mapping[str, Any], name: str, index: int) -> SelectionCase | None:
        turn = self._turn(raw, "", selection_only=True)
        context = self._texts(raw, "context")
        history = self._history(raw)
        attributes = self._attributes(raw)
        if not any(key in raw for key in _SELECTION_KEYS):
            self._no_expectation(_SELECTION_KEYS)
        if turn is None:
            return None
        return SelectionCase(name, index, turn, context, attributes, history)

    def _conversation(
        self, raw: Mapping[str, Any], name: str, index: int
    ) -> ConversationCase | None:
        turns = self._turns(raw, required=True)
        attributes = self._attributes(raw)
        history = self._history(raw)
        raw_turns = raw.get("turns")
        if isinstance(raw_turns, list) and not any(
            isinstance(t, Mapping) and any(key in t for key in _TURN_KEYS[2:]) for t in raw_turns
        ):
            self._no_expectation(tuple(f"turns[].{k}" for k in _TURN_KEYS[2:]))
        return ConversationCase(name, index, turns, attributes, history)

    def _output(self, raw: Mapping[str, Any], name: str, index: int) -> OutputCase:
        output = self._text(raw, "output", required=True) or ""
        case = OutputCase(
            name,
            index,
            output,
            safe=self._boolean(raw, "safe"),
            violations=self._violations(raw),
            redaction=self._text(raw, "redaction"),
            redaction_contains=self._texts(raw, "redaction_contains"),
            redaction_excludes=self._texts(raw, "redaction_excludes"),
        )
        if (
            case.safe is None
            and case.violations is None
            and case.redaction is None
            and not case.redaction_contains
            and not case.redaction_excludes
        ):
            self._no_expectation(_CASE_KEYS["output"][2:])
        return case

    def _tool_call(self, raw: Mapping[str, Any], name: str, index: int) -> ToolCallCase:
        tool = self._text(raw, "tool", required=True) or ""
        arguments = raw.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
            self.problem("arguments", f"must be a mapping of argument names to values, not "
                         f"{_described(arguments)}")  # fmt: skip
            arguments = {}
        suggested = raw.get("suggested_arguments", _UNSET)
        if suggested is not _UNSET and suggested is not None and not isinstance(suggested, Mapping):
            self.problem(
                "suggested_arguments",
                f"must be a mapping (the arguments expected) or null (nothing could be fixed), "
                f"not {_described(suggested)}",
            )
        for key, value in (("arguments", arguments), ("suggested_arguments", suggested)):
            if isinstance(value, Mapping):
                found = _not_json(value, key)
                if found is not None:
                    self.problem(found[0], found[1])
        case = ToolCallCase(
            name,
            index,
            tool,
            dict(arguments),
            turns=self._turns(raw, required=False),
            attributes=self._attributes(raw),
            allow=self._boolean(raw, "allow"),
            violations=self._violations(raw),
            suggested_arguments=suggested,
        )
        if case.allow is None and case.violations is None and not case.has_suggested_arguments:
            self._no_expectation(("allow", "violations", "suggested_arguments"))
        return case

    def _no_expectation(self, keys: Sequence[str]) -> None:
        self.problem(
            "case",
            f"expects nothing, so it could never fail; give at least one of {', '.join(keys)}",
        )

    # --- parts ------------------------------------------------------------------------------

    def _turns(self, raw: Mapping[str, Any], *, required: bool) -> tuple[TurnSpec, ...]:
        value = raw.get("turns")
        if value is None:
            if required:
                self.problem("turns", "required (a list of turns)")
            return ()
        if not isinstance(value, list) or not value:
            self.problem("turns", f"must be a non-empty list of turns, not {_described(value)}")
            return ()
        turns = []
        for i, item in enumerate(value):
            place = f"turns[{i}]"
            if not isinstance(item, Mapping):
                self.problem(place, f"must be a mapping with 'message', not {_described(item)}")
                continue
            for key in item:
                if key not in _TURN_KEYS:
                    self.problem(f"{place}.{key}", unknown_field(str(key), _TURN_KEYS))
            turn = self._turn(item, place, selection_only=False)
            if turn is not None:
                turns.append(turn)
        return tuple(turns)

    def _turn(self, raw: Mapping[str, Any], place: str, *, selection_only: bool) -> TurnSpec | None:
        prefix = f"{place}." if place else ""
        message = self._text(raw, "message", required=True, prefix=prefix)
        role = raw.get("role", "user")
        if role not in ROLES:
            self.problem(f"{prefix}role", f"must be one of {', '.join(ROLES)}, not {role!r}")
        selects = self._policy_ids(raw, "selects", prefix) or ()
        does_not = self._policy_ids(raw, "does_not_select", prefix) or ()
        exactly = self._policy_ids(raw, "selects_exactly", prefix)
        started = None if selection_only else self._policy_ids(raw, "started", prefix)
        released = None if selection_only else self._policy_ids(raw, "released", prefix)
        if exactly is not None and (selects or does_not):
            self.problem(
                f"{prefix}selects_exactly",
                "goes alone: it already says what is selected and what is not "
                "(drop selects and does_not_select)",
            )
        both = sorted(set(selects) & set(does_not))
        if both:
            self.problem(f"{prefix}does_not_select", f"{', '.join(both)} also listed under selects")
        if message is None:
            return None
        expect = SelectionExpectation(selects, does_not, exactly, started, released)
        return TurnSpec(message, str(role), expect, place)

    def _history(self, raw: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        value = raw.get("history")
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problem("history", f"must be a list of {{role, content}}, not {_described(value)}")
            return ()
        entries = []
        for i, item in enumerate(value):
            place = f"history[{i}]"
            if not isinstance(item, Mapping):
                self.problem(place, f"must be a mapping with role and content, not "
                             f"{_described(item)}")  # fmt: skip
                continue
            for key in item:
                if key not in _HISTORY_KEYS:
                    self.problem(f"{place}.{key}", unknown_field(str(key), _HISTORY_KEYS))
            role = item.get("role")
            if role not in ROLES:
                self.problem(f"{place}.role", f"required, one of {', '.join(ROLES)} "
                             f"(got {role!r})")  # fmt: skip
            content = self._text(item, "content", required=True, prefix=f"{place}.")
            if role in ROLES and content is not None:
                entries.append((str(role), content))
        return tuple(entries)

    def _attributes(self, raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
        value = raw.get("attributes")
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.problem("attributes", f"must be a mapping of attribute names to values, not "
                         f"{_described(value)}")  # fmt: skip
            return None
        for name, item in value.items():
            if not isinstance(name, str):
                self.problem("attributes", f"attribute names are text, not {_described(name)}")
                continue
            values = item if isinstance(item, list) else [item]
            for one in values:
                if not _is_scalar(one):
                    self.problem(
                        f"attributes.{name}",
                        f"must be text, a number, a boolean, null or a list of those, not "
                        f"{_described(one)}",
                    )
                    break
        return dict(value)

    def _violations(self, raw: Mapping[str, Any]) -> tuple[ViolationExpectation, ...] | None:
        value = raw.get("violations", _UNSET)
        if value is _UNSET:
            return None
        if not isinstance(value, list):
            self.problem("violations", f"must be a list of policy ids or mappings with "
                         f"'policy', not {_described(value)}")  # fmt: skip
            return None
        expected: list[ViolationExpectation] = []
        seen: set[str] = set()
        for i, item in enumerate(value):
            place = f"violations[{i}]"
            if isinstance(item, str):
                item = {"policy": item}
                policy_place = place
            elif isinstance(item, Mapping):
                policy_place = f"{place}.policy"
                for key in item:
                    if key not in _VIOLATION_KEYS:
                        self.problem(f"{place}.{key}", unknown_field(str(key), _VIOLATION_KEYS))
            else:
                self.problem(place, f"must be a policy id or a mapping with 'policy', not "
                             f"{_described(item)}")  # fmt: skip
                continue
            policy = item.get("policy")
            if not isinstance(policy, str):
                self.problem(policy_place, f"required, a policy id (got {_described(policy)})")
                continue
            if not self._known(policy, policy_place):
                continue
            if policy in seen:
                self.problem(policy_place, f"{policy!r} listed twice; give count instead")
                continue
            seen.add(policy)
            count = item.get("count")
            if count is not None and (type(count) is not int or count < 1):
                self.problem(f"{place}.count", f"must be a whole number of at least 1, not "
                             f"{_described(count)}")  # fmt: skip
                count = None
            matched = item.get("matched", ())
            if isinstance(matched, str):
                matched = [matched]
            if not isinstance(matched, list | tuple) or not all(
                isinstance(m, str) for m in matched
            ):
                self.problem(f"{place}.matched", f"must be text or a list of texts, not "
                             f"{_described(matched)}")  # fmt: skip
                matched = ()
            expected.append(ViolationExpectation(policy, count, tuple(matched)))
        return tuple(expected)

    # --- scalars ----------------------------------------------------------------------------

    def _text(
        self, raw: Mapping[str, Any], key: str, *, required: bool = False, prefix: str = ""
    ) -> str | None:
        value = raw.get(key)
        if value is None:
            if required:
                self.problem(f"{prefix}{key}", "required (text)")
            return None
        if not isinstance(value, str):
            self.problem(f"{prefix}{key}", f"must be text, not {_described(value)} "
                         f"(quote it in YAML)")  # fmt: skip
            return None
        if required and key == "name" and not value.strip():
            self.problem(f"{prefix}{key}", "must not be empty")
            return None
        return value

    def _texts(self, raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
        value = raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problem(key, f"must be a list of texts, not {_described(value)}")
            return ()
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.problem(f"{key}[{i}]", f"must be text, not {_described(item)}")
                return ()
        return tuple(value)

    def _boolean(self, raw: Mapping[str, Any], key: str) -> bool | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.problem(key, f"must be true or false, not {_described(value)}")
            return None
        return value

    def _policy_ids(self, raw: Mapping[str, Any], key: str, prefix: str) -> tuple[str, ...] | None:
        if key not in raw:
            return None
        value = raw[key]
        place = f"{prefix}{key}"
        if not isinstance(value, list):
            self.problem(place, f"must be a list of policy ids, not {_described(value)}")
            return None
        if not value and key in ("selects", "does_not_select"):
            # An empty list would expect nothing; selects_exactly, started and released
            # with none listed do expect something: that there are none.
            self.problem(place, "empty; list at least one policy id")
            return None
        ids: list[str] = []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.problem(f"{place}[{i}]", f"must be a policy id, not {_described(item)}")
            elif item in ids:
                self.problem(f"{place}[{i}]", f"{item!r} listed twice")
            elif self._known(item, f"{place}[{i}]"):
                ids.append(item)
        return tuple(ids)

    def _known(self, policy: str, place: str) -> bool:
        """Whether the tenant has ``policy``; a problem naming it otherwise."""
        if policy in self._policies:
            return True
        meant = closest_name(policy, self._policies)
        hint = f" (did you mean {meant!r}?)" if meant else ""
        self.problem(
            place, f"unknown policy {policy!r}{hint}: tenant {self._tenant!r} has no such policy"
        )
        return False


def _is_scalar(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _not_json(value: Any, where: str) -> tuple[str, str] | None:
    """The first place in ``value`` that is not a JSON value (a YAML date or time, a set,
    NaN or infinity, a key that is not text), and why; ``None`` when it all is."""
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return where, f"is {value!r}, which JSON has no number for"
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _not_json(item, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return where, f"has the key {key!r}, which is not text (quote it in YAML)"
            found = _not_json(item, f"{where}.{key}")
            if found is not None:
                return found
        return None
    return where, (
        f"is {_described(value)}, not a JSON value (quote it in YAML to make it text, "
        f'as in "2026-01-01")'
    )
