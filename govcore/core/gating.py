"""Tool-call gating (pure): the ``tools`` rules and the ``detect`` rules on arguments."""

from __future__ import annotations

import fnmatch
import json
import math
import operator
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import NoneType
from typing import Any

from govcore._values import json_equal
from govcore.core.verdict import Finding, is_safe, risk_score
from govcore.core.violations import replace_matches
from govcore.detection.normalize import normalize
from govcore.detection.scanner import DetectionEngine, Hit, Scanner, compile_rules, explain
from govcore.detection.secrets import SecretOptions
from govcore.policy import PolicyDocument, ToolRule

__all__ = [
    "CompiledToolRule",
    "DetectScope",
    "PoliciesExcept",
    "ToolCallOutcome",
    "compile_tool_rules",
    "gate_tool_call",
]

Path = tuple[str | int, ...]
_SEPARATOR = "\n\x00\n"  # between joined argument texts: no detector matches across it
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|\d+)\]")


@dataclass(frozen=True, slots=True)
class CompiledToolRule:
    """A tool rule with its argument path parsed and its detect rules compiled."""

    policy: PolicyDocument
    rule: ToolRule
    steps: tuple[str | int | None, ...]  # key, index, or None for [*]
    scanner: Scanner | None
    tool: re.Pattern[str]  # the rule's glob, over tool names as _tool_key makes them


def _tool_key(name: str) -> str:
    """A tool name as rules match it: normalised (NFKC, invisible characters removed), without
    surrounding whitespace, case-folded. "SHELL_exec", " shell_exec" and "shell\u200b_exec"
    are shell_exec to a deny rule, as they may well be to the runtime that resolves them."""
    return normalize(name).text.strip().casefold()


@dataclass(slots=True)
class ToolCallOutcome:
    """The decision on a proposed tool call."""

    findings: list[Finding]
    suggested_arguments: dict[str, Any] | None
    allow: bool
    risk_score: float
    policy_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DetectScope:
    """Which policies' ``detect`` rules read a tool call's arguments, built once per policy set.

    A policy with ``detectInToolCalls: always`` (the default) is enforced on every tool call of
    the tenant, active in the session or not, unless the session's end-user attributes were
    judged not to match its ``appliesWhen``; one with ``whenActive`` only in a session where it
    is active (docs/decisions/tool-calls.md). A policy active in the session or ``alwaysOn`` is
    always enforced, as it was before ``detectInToolCalls``: the rule only ever adds policies.
    """

    when_active: frozenset[str]
    """``whenActive`` policies that are not ``alwaysOn``: they need the session."""
    conditional: frozenset[str]
    """``always`` policies with ``appliesWhen``, not ``alwaysOn``: a session's verdict may rule
    them out."""

    @classmethod
    def of(cls, policies: Sequence[PolicyDocument]) -> DetectScope:
        """The scope of a policy set's policies (those without detect rules never scan)."""
        scanning = [p for p in policies if p.detect]
        return cls(
            when_active=frozenset(
                p.id for p in scanning if p.detect_in_tool_calls == "whenActive" and not p.always_on
            ),
            conditional=frozenset(
                p.id
                for p in scanning
                if p.detect_in_tool_calls == "always" and p.applies_when and not p.always_on
            ),
        )

    def applicable(
        self, active: Collection[str], ruled_out: Collection[str]
    ) -> Container[str] | None:
        """The ids of the policies whose detect rules apply to a tool call of a session.

        Args:
            active: the session's active policies (none for an unknown session).
            ruled_out: the policies whose ``appliesWhen`` the session's end-user attributes
                were judged not to match.

        Returns:
            ``None`` for every policy (the common case), else every policy but the excluded
            ones: a test against the few excluded, so the cost does not grow with the tenant.
        """
        excluded = {pid for pid in self.when_active if pid not in active}
        excluded.update(pid for pid in ruled_out if pid in self.conditional and pid not in active)
        return PoliciesExcept(frozenset(excluded)) if excluded else None


@dataclass(frozen=True, slots=True)
class PoliciesExcept(Container[str]):
    """Every policy id but ``excluded``, as a container the scanner tests ids against."""

    excluded: frozenset[str]

    def __contains__(self, policy_id: object) -> bool:
        return policy_id not in self.excluded


def compile_tool_rules(
    policies: Sequence[PolicyDocument],
    secret_options: SecretOptions | None = None,
    engine: DetectionEngine = "re2",
) -> tuple[CompiledToolRule, ...]:
    """Parse every policy's tool rules once (``secret_options`` and ``engine``: as for
    ``compile_rules``)."""
    compiled = []
    for policy in policies:
        for rule in policy.tools:
            steps: tuple[str | int | None, ...] = ()
            if rule.argument is not None:
                steps = tuple(
                    key if key else (None if index == "*" else int(index))
                    for key, index in _STEP.findall(rule.argument)
                )
            detect = rule.detect
            if detect and "confidence" in rule.model_fields_set:
                # The tool rule's own confidence, like its explanation, is said of what its
                # detect rules find there, so it overrides theirs.
                detect = [r.model_copy(update={"confidence": rule.confidence}) for r in detect]
            scanner = (
                compile_rules(
                    ((policy, r) for r in detect), secret_options=secret_options, engine=engine
                )
                if detect
                else None
            )
            tool = re.compile(fnmatch.translate(_tool_key(rule.tool)))
            compiled.append(CompiledToolRule(policy, rule, steps, scanner, tool))
    return tuple(compiled)


def _resolve(
    value: Any, steps: Sequence[str | int | None], path: Path = ()
) -> Iterator[tuple[Path, Any]]:
    if not steps:
        yield path, value
        return
    step, rest = steps[0], steps[1:]
    if isinstance(step, str):
        if isinstance(value, Mapping) and step in value:
            yield from _resolve(value[step], rest, (*path, step))
    elif step is None:
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield from _resolve(item, rest, (*path, index))
        elif value is not None:
            # "one or many": a single value where a list was expected is checked as its item
            yield from _resolve(value, rest, path)
    elif isinstance(value, list):
        if 0 <= step < len(value):
            yield from _resolve(value[step], rest, (*path, step))
    elif step == 0 and value is not None:
        yield from _resolve(value, rest, path)  # one value where a list was expected: item 0


def _texts(
    value: Any, path: Path, keys: bool, into: list[tuple[Path, bool, str]]
) -> list[tuple[Path, bool, str]]:
    """Every text ``detect`` rules read in the arguments, as ``(path, is_key, text)``: each
    string, each number as its JSON text, and with ``keys`` each object key (its path is that
    of the entry it names)."""
    if isinstance(value, str):
        into.append((path, False, value))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _texts(item, (*path, index), keys, into)
    elif isinstance(value, dict) or _is_mapping(value):
        for key, item in value.items():
            if keys:
                into.append(((*path, key), True, key))
            _texts(item, (*path, key), keys, into)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        into.append((path, False, _number_text(value)))
    return into


def _number_text(number: int | float) -> str:
    """A number as JSON encoders write it: the digits a dispatcher passes on, so that a card
    number or an id sent as a number is read like the same text in a string. An integral float
    below 1e21 is written as an integer (``4111111111111111.0`` is ``4111111111111111``), as
    JavaScript and Go write it; another float in Python's shortest form (``-12.5``, ``1e+21``)."""
    if isinstance(number, int):
        return int.__repr__(number)  # an IntEnum member reads as its value
    if number.is_integer() and abs(number) < 1e21:
        return int.__repr__(int(number))
    return float.__repr__(number)


def _is_mapping(value: Any) -> bool:
    """A mapping other than a dict (rare: requests are JSON); leaves answer without the ABC."""
    return not isinstance(value, str | int | float | NoneType) and isinstance(value, Mapping)


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON data: new dicts and lists, the same immutable leaves."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    if isinstance(value, dict) or _is_mapping(value):
        return {key: _copy_json(item) for key, item in value.items()}
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict | list):
        # As the caller wrote it: JSON, not Python's repr ("['EUR']").
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def _path_text(path: Path) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or "arguments"


def _detect_text(value: Any) -> str | None:
    """The text a tool rule's ``detect`` rules read at its path: a string, or a number's JSON
    text; ``None`` for anything else (a boolean, null, an object or a list)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_text(value)
    return None


def _rename_keys(arguments: Any, path: Path, renamed: Mapping[str, str]) -> None:
    """Rename keys of the object at ``path`` in place, keeping the order of its entries. A new
    name already taken (by another entry, or by an earlier renamed key) gets `` (2)``,
    `` (3)``...: two entries redacted to the same name both stay."""
    target = arguments
    for step in path:
        target = target[step]
    kept = {key for key in target if key not in renamed}
    entries = list(target.items())
    target.clear()
    for key, value in entries:
        name = renamed.get(key)
        if name is not None:
            candidate, count = name, 1
            while candidate in kept:
                count += 1
                candidate = f"{name} ({count})"
            kept.add(candidate)
            key = candidate
        target[key] = value


def _set(arguments: Any, path: Path, value: Any) -> None:
    target = arguments
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def _fixed_number(original: Any, bound: float) -> Any:
    if isinstance(original, str):
        return str(int(bound)) if bound.is_integer() else str(bound)
    if isinstance(original, int) and bound.is_integer():
        return int(bound)
    return bound


def gate_tool_call(
    tool_name: str,
    arguments: Mapping[str, Any],
    *,
    scanner: Scanner,
    applicable_policies: Container[str] | None,
    tool_rules: Sequence[CompiledToolRule],
    check_keys: bool = True,
) -> ToolCallOutcome:
    """Decide a proposed tool call.

    Args:
        tool_name: the tool to be called.
        arguments: its proposed arguments.
        scanner: the tenant's detect rules; only those of ``applicable_policies`` (as
            :meth:`DetectScope.applicable` chooses them; ``None``: all) are applied.
        tool_rules: the tenant's tool rules (each applies when its glob matches ``tool_name``).
        check_keys: whether ``scanner`` also reads object keys (numbers and strings it
            always reads; a number is read as its JSON text).

    Returns:
        The findings (without ``replacement`` and ``offset``), the suggested arguments
        (the offending values replaced where a fix exists: a string or number with matches
        by its redacted text, a key with matches renamed to its redacted text; else ``None``),
        ``allow`` (false
        exactly when a ``fix`` violation has confidence >= 0.7) and the risk score.
    """
    found: list[Finding] = []
    fixes: dict[Path, Any] = {}

    def add(policy: PolicyDocument, matched: str, explanation: str, confidence: float) -> None:
        found.append(
            Finding(
                policy_id=policy.id,
                matched_text=matched,
                explanation=explanation,
                severity=policy.severity,
                confidence=confidence,
                enforcement=policy.enforcement,
            )
        )

    # texts to redact, with their matches: by path, and whether the text is the path's key
    matched: dict[tuple[Path, bool], tuple[str, list[Hit]]] = {}

    def report(
        path: Path, is_key: bool, text: str, hits: Sequence[Hit], explanation: str | None
    ) -> None:
        for hit in hits:
            add(
                hit.rule.policy,
                text[hit.start : hit.end],
                explanation or explain(hit),
                hit.confidence,
            )
        if hits:
            matched.setdefault((path, is_key), (text, []))[1].extend(hits)

    # detect rules of the applicable policies, on every text of the arguments: one scan over
    # all of them joined, each hit given back to its text (a hit across two texts is dropped)
    texts = _texts(arguments, (), check_keys, [])
    starts: list[int] = []
    position = 0
    for _, _, text in texts:
        starts.append(position)
        position += len(text) + len(_SEPARATOR)
    per_text: dict[int, list[Hit]] = {}
    joined = _SEPARATOR.join(text for _, _, text in texts)
    # an empty collection of applicable policies scans nothing
    none_apply = isinstance(applicable_policies, Collection) and not applicable_policies
    wanted = joined and not none_apply
    for hit in scanner.scan(joined, applicable=applicable_policies) if wanted else ():
        owner = bisect_right(starts, hit.start) - 1
        offset = starts[owner]
        if hit.end - offset <= len(texts[owner][2]):
            per_text.setdefault(owner, []).append(
                Hit(hit.rule, hit.start - offset, hit.end - offset, hit.confidence)
            )
    for owner, hits in per_text.items():
        path, is_key, text = texts[owner]
        report(path, is_key, text, hits, None)

    tool_key = _tool_key(tool_name)
    for compiled in tool_rules:
        rule = compiled.rule
        if compiled.tool.match(tool_key) is None:
            continue
        policy = compiled.policy
        if rule.deny:
            add(
                policy,
                tool_name,
                rule.explanation or f"Policy {policy.id} does not allow calling {tool_name}.",
                rule.confidence,
            )
            continue
        for path, value in _resolve(arguments, compiled.steps):
            where = _path_text(path)
            if rule.max is not None or rule.min is not None:
                number = _number(value)
                if number is None:
                    add(
                        policy,
                        _text(value),
                        rule.explanation or f"{where} must be a number.",
                        rule.confidence,
                    )
                else:
                    limits: tuple[
                        tuple[
                            float | None,
                            str,
                            Callable[[float, float], float],
                            Callable[[float, float], bool],
                        ],
                        ...,
                    ] = (
                        (rule.max, "above the maximum", min, operator.gt),
                        (rule.min, "below the minimum", max, operator.lt),
                    )
                    for bound, words, stricter, beyond in limits:
                        if bound is None or not beyond(number, bound):
                            continue
                        add(
                            policy,
                            _text(value),
                            rule.explanation or f"{where} is {words} of {bound:g}.",
                            rule.confidence,
                        )
                        # Another rule may already have fixed this value: keep the stricter.
                        earlier = _number(fixes.get(path))
                        fixed = bound if earlier is None else stricter(bound, earlier)
                        fixes[path] = _fixed_number(value, fixed)
                        break
            if rule.one_of is not None and not any(
                json_equal(value, allowed) for allowed in rule.one_of
            ):
                options = ", ".join(_text(v) for v in rule.one_of)
                add(
                    policy,
                    _text(value),
                    rule.explanation or f"{where} must be one of: {options}.",
                    rule.confidence,
                )
            if compiled.scanner is not None:
                at_path = _detect_text(value)
                if at_path is not None:
                    hits = compiled.scanner.scan(at_path)
                    report(path, False, at_path, hits, rule.explanation)

    renames: dict[Path, dict[str, str]] = {}  # object path -> key -> its redacted name
    for (path, is_key), (text, hits) in matched.items():
        # a text with matches is fixed by its redaction (a number becomes that text)
        if is_key:
            renames.setdefault(path[:-1], {})[text] = replace_matches(text, hits)
        else:
            fixes[path] = replace_matches(text, hits)

    suggested: dict[str, Any] | None = None
    if fixes or renames:
        suggested = _copy_json(arguments)
        for path, value in fixes.items():
            _set(suggested, path, value)
        # Deepest objects first: the paths of renamed keys are written with the original
        # keys, which stay in place until the objects above them are renamed.
        for path in sorted(renames, key=len, reverse=True):
            _rename_keys(suggested, path, renames[path])
    return ToolCallOutcome(
        findings=found,
        suggested_arguments=suggested,
        allow=is_safe(found),
        risk_score=risk_score(found),
        policy_ids=list(dict.fromkeys(f.policy_id for f in found)),
    )
