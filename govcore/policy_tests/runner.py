"""Running policy test cases through the public API, as an application would call it.

The configuration is loaded as ``govcore validate`` loads it, and each case drives a typed client
(``record_turn``, ``post_inference``, ``check_tool_call``, ``explain_selection``) in a
conversation of its own. Why the runner has its own keys, store and clock:
docs/decisions/policy-tests.md.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from govcore.backends import shared_lookup
from govcore.backends.memory import MemoryStore
from govcore.client import GovernanceClient
from govcore.config import SCOPES, KeyConfig, LoadedConfig, load_config
from govcore.core.selection import SelectionExplanation
from govcore.decision_log import MemoryDecisionLog
from govcore.errors import GovcoreError
from govcore.explanation_text import explanation_lines
from govcore.governance import Governance
from govcore.models import ApplicablePolicy, TurnResponse, Violation
from govcore.policy_tests.cases import (
    Case,
    ConversationCase,
    OutputCase,
    ParsedFile,
    SelectionCase,
    ToolCallCase,
    TurnSpec,
    ViolationExpectation,
    parse_test_file,
)
from govcore.policy_tests.report import CaseResult, Mismatch, Outcome, PolicyTestReport

__all__ = [
    "TEST_EPOCH",
    "TEST_FILE_SUFFIXES",
    "discover_test_files",
    "find_test_files",
    "fixed_clock",
    "run_policy_tests",
]

_log = logging.getLogger("govcore")

TEST_FILE_SUFFIXES: Final = ("_test.yaml", "_test.yml")
"""How the names of test files end: what ``govcore test CONFIG`` finds beside the
configuration, and in a folder given as a test path."""

TEST_EPOCH: Final = 1_767_225_600.0
"""The time every test runs at: 2026-01-01T00:00:00Z. A fixed time makes every answer the same
on every run; no rule a test can check depends on the time (the TTL is hours)."""

# The wire's bound on recentContext entries: a longer conversation sends its latest turns.
_MAX_CONTEXT = 50


def fixed_clock() -> float:
    """The clock of the runner's service: always :data:`TEST_EPOCH`."""
    return TEST_EPOCH


def discover_test_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The test files under ``folder``: names ending in ``_test.yaml`` or ``_test.yml``, in it
    and its subfolders (hidden ones, whose names start with a dot, left out), sorted."""
    root = Path(folder)
    found = []
    for directory, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        found += [Path(directory) / f for f in files if _is_test_file(f)]
    return sorted(found)


def find_test_files(
    config: str | os.PathLike[str] | Mapping[str, Any],
    paths: Sequence[str | os.PathLike[str]] | None,
) -> list[Path]:
    """The test files to run: each file of ``paths`` and the test files under each folder of
    it; with no ``paths``, the test files in the configuration file's folder itself and under
    its ``tests`` subfolder.

    Not every subfolder of the configuration's: one may hold a virtual environment or vendored
    packages, and an installed govcore ships the example's test file.

    Raises:
        FileNotFoundError: a path that does not exist.
        ValueError: no ``paths`` for a configuration given as a mapping.
    """
    if paths is None:
        if isinstance(config, Mapping):
            raise ValueError("a configuration given as a mapping needs the paths of its tests")
        folder = Path(config).parent
        beside = sorted(p for p in folder.iterdir() if p.is_file() and _is_test_file(p.name))
        tests = folder / "tests"
        return beside + (discover_test_files(tests) if tests.is_dir() else [])
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files += discover_test_files(path)
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return list(dict.fromkeys(files))


def _is_test_file(name: str) -> bool:
    return name.endswith(TEST_FILE_SUFFIXES)


def run_policy_tests(
    config: str | os.PathLike[str] | Mapping[str, Any],
    paths: Sequence[str | os.PathLike[str]] | None = None,
) -> PolicyTestReport:
    """Run policy test files against a configuration.

    Args:
        config: the configuration, as :meth:`govcore.Governance.from_config` takes it.
        paths: test files and folders of them (see :func:`find_test_files`); ``None``: the test
            files beside the configuration file.

    Returns:
        One result per case, file by file in the order of the paths (a file that could not
        be read or parsed as a whole is one ``error`` result of kind ``file``); no results
        when no test file was found.

    Raises:
        ConfigError: the configuration is invalid.
        FileNotFoundError: a path that does not exist.
        ValueError: no ``paths`` for a configuration given as a mapping.
    """
    files = find_test_files(config, paths)
    with shared_lookup():  # as from_config: the loader's lookups and the build's share a read
        loaded = load_config(config)
        keys = {tenant: f"govcore-policy-test-key-{n}" for n, tenant in enumerate(loaded.tenants)}
        governance = Governance(
            _with_keys(loaded, keys),
            clock=fixed_clock,
            # Never the configured store or decision log: a test must not write to a
            # production Redis or log, nor see conversations other than its own.
            store=MemoryStore(clock=fixed_clock),
            decision_log=MemoryDecisionLog(1),
            tracing=False,
        )
    with governance:
        policies = {
            tenant: frozenset(p.id for p in governance.policy_set(tenant).policies)
            for tenant in governance.tenants
        }
        served = governance.served_versions()
        results: list[CaseResult] = []
        for number, file in enumerate(files):
            parsed = _parse(file, policies)
            client = governance.client(keys[parsed.tenant]) if parsed.tenant else None
            results += _run_file(parsed, client, f"policy-test-{number}")
    shown = "<mapping>" if isinstance(config, Mapping) else str(config)
    tested = dict.fromkeys(r.tenant for r in results if r.tenant)
    return PolicyTestReport(
        shown,
        tuple(str(f) for f in files),
        tuple(results),
        tuple((tenant, str(served[tenant])) for tenant in tested),
    )


def _with_keys(loaded: LoadedConfig, keys: Mapping[str, str]) -> LoadedConfig:
    """``loaded`` with the runner's keys instead of its own: one per tenant, with every scope
    and feature and no rate limit. The configured keys may be digests only, or lack a scope or
    feature a case needs; the tests check policies, not keys."""
    settings = {
        "post_inference_checking": "allowed",
        "tool_call_governance": "allowed",
        "rate_limit_per_minute": "unlimited",
    }
    # replace(), not a new LoadedConfig: whatever else a loaded configuration carries is kept.
    return dataclasses.replace(
        loaded,
        keys=tuple(
            KeyConfig.model_validate(
                {"key": secret, "tenant": tenant, "scopes": list(SCOPES), "settings": settings}
            )
            for tenant, secret in keys.items()
        ),
    )


def _parse(path: Path, policies: Mapping[str, frozenset[str]]) -> ParsedFile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return ParsedFile(str(path), problems=(f"cannot read: {exc.strerror}",))
    except UnicodeDecodeError:
        return ParsedFile(str(path), problems=("not UTF-8 text",))
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return ParsedFile(str(path), problems=(f"invalid YAML{at}: {problem}",))
    return parse_test_file(str(path), document, policies)


def _run_file(
    parsed: ParsedFile, client: GovernanceClient | None, session_prefix: str
) -> Iterator[CaseResult]:
    if parsed.problems or client is None:
        yield CaseResult(parsed.path, "", "file", "error", errors=parsed.problems)
        return
    entries: list[tuple[int, Case | None, CaseResult | None]] = [
        (case.index, case, None) for case in parsed.cases
    ]
    entries += [
        (
            b.index,
            None,
            CaseResult(
                parsed.path, b.name, "case", "error", errors=b.problems, tenant=parsed.tenant
            ),
        )
        for b in parsed.broken
    ]
    for index, case, broken in sorted(entries, key=lambda entry: entry[0]):
        if broken is not None:
            yield broken
            continue
        assert case is not None
        session_id = f"{session_prefix}-{index}"
        try:
            mismatches = _run_case(client, case, session_id)
        except GovcoreError as exc:
            yield CaseResult(
                parsed.path, case.name, case.kind, "error",
                errors=(f"the API refused a request of this case: {exc}",), tenant=parsed.tenant,
            )  # fmt: skip
            continue
        except Exception as exc:  # a case that breaks the runner is its own error, not the run's
            _log.exception("policy test case %r of %s could not run", case.name, parsed.path)
            yield CaseResult(
                parsed.path, case.name, case.kind, "error",
                errors=(f"the case could not run ({type(exc).__name__}: {exc})",),
                tenant=parsed.tenant,
            )  # fmt: skip
            continue
        finally:
            client.delete_conversation(session_id)  # keeps the store small over many cases
        outcome: Outcome = "failed" if mismatches else "passed"
        yield CaseResult(
            parsed.path, case.name, case.kind, outcome, tuple(mismatches), tenant=parsed.tenant
        )


def _run_case(client: GovernanceClient, case: Case, session_id: str) -> list[Mismatch]:
    if isinstance(case, SelectionCase):
        return _conversation(
            client, session_id, (case.turn,), case.attributes, case.history, case.context
        )
    if isinstance(case, ConversationCase):
        return _conversation(client, session_id, case.turns, case.attributes, case.history, ())
    if isinstance(case, OutputCase):
        return _output(client, session_id, case)
    return _tool_call(client, session_id, case)


# --- turns ------------------------------------------------------------------------------------


def _conversation(
    client: GovernanceClient,
    session_id: str,
    turns: Sequence[TurnSpec],
    attributes: Mapping[str, Any] | None,
    history: Sequence[tuple[str, str]],
    context: Sequence[str],
) -> list[Mismatch]:
    """Record ``turns`` in a new conversation and check each turn's expectations.

    The first turn carries ``history`` as ``priorHistory`` (the API reads it only then); each
    later turn carries the case's earlier turns as ``recentContext``, as an agent integration
    sends them; ``context`` is the first turn's own."""
    mismatches: list[Mismatch] = []
    earlier: list[str] = list(context)
    for number, turn in enumerate(turns):
        request: dict[str, Any] = {
            "sessionId": session_id,
            "turn": {"role": turn.role, "content": turn.message},
        }
        if earlier:
            request["recentContext"] = earlier[-_MAX_CONTEXT:]
        if attributes is not None:
            request["endUserContext"] = {"attributes": dict(attributes)}
        first_history = history if number == 0 else ()
        if first_history:
            request["priorHistory"] = [{"role": r, "content": c} for r, c in first_history]
        explanation = None
        if turn.expect.checks_anything:
            # Before the turn: with the session, the explanation counts what the conversation
            # holds from earlier turns, as the turn itself will. What retrieval reads of
            # priorHistory it reads as context, so the explanation gets it the same way.
            explained_context = [c for _, c in first_history] + earlier
            explanation = client.explain_selection(
                turn.message,
                session_id=session_id,
                recent_context=explained_context[-_MAX_CONTEXT:] or None,
                attributes=attributes,
            )
        response = client.record_turn(request)
        if explanation is not None:
            mismatches += _turn_mismatches(turn, response, explanation)
        earlier.append(turn.message)
    return mismatches


def _ids(policies: Sequence[ApplicablePolicy]) -> list[str]:
    return [p.id for p in policies]


def _listed(ids: Sequence[str]) -> str:
    return ", ".join(ids) if ids else "none"


def _turn_mismatches(
    turn: TurnSpec, response: TurnResponse, explanation: SelectionExplanation
) -> list[Mismatch]:
    expect = turn.expect
    active = _ids(response.active_policies)
    got = f"selected: {_listed(active)}"
    found: list[tuple[str, str, str]] = []  # key, expected, got
    missing = [p for p in expect.selects if p not in active]
    if missing:
        found.append(
            ("selects", f"{_listed(expect.selects)} selected", f"{got} (not {_listed(missing)})")
        )
    unwanted = [p for p in expect.does_not_select if p in active]
    if unwanted:
        found.append(
            (
                "does_not_select",
                f"none of {_listed(expect.does_not_select)} selected",
                f"{got} (also {_listed(unwanted)})",
            )
        )
    if expect.selects_exactly is not None:
        found += _exact_set("selects_exactly", expect.selects_exactly, active, got)
    if expect.started is not None:
        started = _ids(response.diff.newly_applicable)
        found += _exact_set("started", expect.started, started, f"started: {_listed(started)}")
    if expect.released is not None:
        released = _ids(response.diff.newly_released)
        found += _exact_set("released", expect.released, released, f"released: {_listed(released)}")
    if not found:
        return []
    lines = tuple(
        explanation_lines(
            explanation,
            also=expect.named_policies(),
            more_hint="`govcore explain --all` lists them",
        )
    )
    return [Mismatch(turn.place, key, exp, came, lines) for key, exp, came in found]


def _exact_set(
    key: str, expected: Sequence[str], actual: Sequence[str], got: str
) -> list[tuple[str, str, str]]:
    if set(expected) == set(actual):
        return []
    missing = [p for p in expected if p not in actual]
    extra = [p for p in actual if p not in expected]
    notes = [f"missing {_listed(missing)}"] * bool(missing) + [f"extra {_listed(extra)}"] * bool(
        extra
    )
    return [(key, f"exactly {_listed(expected)}", f"{got} ({'; '.join(notes)})")]


# --- checks -----------------------------------------------------------------------------------


def _output(client: GovernanceClient, session_id: str, case: OutputCase) -> list[Mismatch]:
    verdict = client.post_inference({"sessionId": session_id, "output": case.output})
    mismatches = []
    if case.safe is not None and verdict.safe != case.safe:
        mismatches.append(Mismatch("", "safe", _json(case.safe), _json(verdict.safe)))
    if case.violations is not None:
        mismatches += _violation_mismatches(case.violations, verdict.violations)
    redaction = verdict.suggested_redaction
    if case.redaction is not None and redaction != case.redaction:
        mismatches.append(Mismatch("", "redaction", repr(case.redaction), repr(redaction)))
    for text in case.redaction_contains:
        if text not in redaction:
            mismatches.append(
                Mismatch("", "redaction_contains", f"to contain {text!r}", repr(redaction))
            )
    for text in case.redaction_excludes:
        if text in redaction:
            mismatches.append(
                Mismatch("", "redaction_excludes", f"not to contain {text!r}", repr(redaction))
            )
    return mismatches


def _tool_call(client: GovernanceClient, session_id: str, case: ToolCallCase) -> list[Mismatch]:
    mismatches = []
    if case.turns:
        mismatches += _conversation(client, session_id, case.turns, case.attributes, (), ())
    decision = client.check_tool_call(
        {"sessionId": session_id, "toolName": case.tool, "arguments": dict(case.arguments)}
    )
    if case.allow is not None and decision.allow != case.allow:
        mismatches.append(Mismatch("", "allow", _json(case.allow), _json(decision.allow)))
    if case.violations is not None:
        mismatches += _violation_mismatches(case.violations, decision.violations)
    if case.has_suggested_arguments and not _same_json(
        decision.suggested_arguments, case.suggested_arguments
    ):
        mismatches.append(
            Mismatch(
                "",
                "suggested_arguments",
                _json(case.suggested_arguments),
                _json(decision.suggested_arguments),
            )
        )
    return mismatches


def _violation_mismatches(
    expected: Sequence[ViolationExpectation], violations: Sequence[Violation]
) -> list[Mismatch]:
    matched: dict[str, list[str]] = defaultdict(list)
    for violation in violations:
        matched[violation.policy_id].append(violation.matched_text)
    holds = set(matched) == {e.policy for e in expected} and all(
        (e.count is None or len(matched[e.policy]) == e.count)
        and all(text in matched[e.policy] for text in e.matched)
        for e in expected
    )
    if holds:
        return []
    return [Mismatch("", "violations", _expected_violations(expected), _found(matched))]


def _expected_violations(expected: Sequence[ViolationExpectation]) -> str:
    if not expected:
        return "none"
    parts = []
    for e in expected:
        details = [f"{e.count}"] if e.count is not None else []
        details += [f"matching {text!r}" for text in e.matched]
        parts.append(f"{e.policy} ({', '.join(details)})" if details else e.policy)
    return "; ".join(parts)


def _found(matched: Mapping[str, Sequence[str]]) -> str:
    if not matched:
        return "none"
    return "; ".join(
        f"{policy} ({len(texts)}: {', '.join(repr(t) for t in texts)})"
        for policy, texts in matched.items()
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def _same_json(got: Any, expected: Any) -> bool:
    """Equal as JSON values: ``true`` is not ``1`` (as Python's ``==`` would have it), while
    ``500`` and ``500.0`` are the same number."""
    if isinstance(got, bool) or isinstance(expected, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(got, Mapping) and isinstance(expected, Mapping):
        return got.keys() == expected.keys() and all(_same_json(got[k], expected[k]) for k in got)
    if isinstance(got, list) and isinstance(expected, list):
        return len(got) == len(expected) and all(map(_same_json, got, expected))
    if isinstance(got, list | Mapping) or isinstance(expected, list | Mapping):
        return False
    return bool(got == expected)
