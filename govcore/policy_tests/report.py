"""The results of a policy test run: as text for a person, and as JUnit XML for a CI server."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["CaseResult", "Mismatch", "Outcome", "PolicyTestReport"]

Outcome = Literal["passed", "failed", "error"]


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One expectation that did not hold.

    Attributes:
        place: where in the case (``turns[2]``), or ``""`` for the case itself.
        key: the expectation's key in the test file (``selects``, ``safe``, ...).
        expected: what the file expects, in words.
        got: what came.
        explanation: for a selection, the lines ``govcore explain`` prints for the turn.
    """

    place: str
    key: str
    expected: str
    got: str
    explanation: tuple[str, ...] = ()

    @property
    def field(self) -> str:
        """``place.key`` or ``key``."""
        return f"{self.place}.{self.key}" if self.place else self.key


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one case, or of a test file that could not be run.

    Attributes:
        file: the test file.
        name: the case's name; ``""`` for the file itself.
        kind: ``selection``, ``output``, ``tool call``, ``conversation``, or ``file``.
        outcome: ``passed``, ``failed`` (an expectation did not hold) or ``error`` (the case
            could not be run: a problem in the file, or a request the API refused).
        mismatches: each expectation that did not hold.
        errors: for an error, what was wrong.
        tenant: the tenant the case ran against (``""`` for a file that could not be parsed).
    """

    file: str
    name: str
    kind: str
    outcome: Outcome
    mismatches: tuple[Mismatch, ...] = ()
    errors: tuple[str, ...] = ()
    tenant: str = ""

    @property
    def title(self) -> str:
        """``file: "name" (kind)``, or the file alone for the file's own problems."""
        if self.kind == "file":
            return f"{self.file} (test file)"
        return f'{self.file}: "{self.name}" ({self.kind})'

    def details(self) -> list[str]:
        """What went wrong, one line each, indented for the report (nothing when it passed)."""
        lines = [f"  {problem}" for problem in self.errors]
        for number, mismatch in enumerate(self.mismatches):
            lines += [
                f"  {mismatch.field}:",
                f"    expected: {mismatch.expected}",
                f"    got:      {mismatch.got}",
            ]
            following = self.mismatches[number + 1 : number + 2]
            # Mismatches of one turn share its explanation: shown once, after the last.
            if mismatch.explanation and not (
                following and following[0].explanation == mismatch.explanation
            ):
                lines.append("    why (as govcore explain shows the turn):")
                lines += [f"      {line}".rstrip() for line in mismatch.explanation]
        return lines


_LABELS: dict[Outcome, str] = {"passed": "PASS ", "failed": "FAIL ", "error": "ERROR"}


@dataclass(frozen=True, slots=True)
class PolicyTestReport:
    """Every result of a run, in the order the cases ran.

    Attributes:
        config: the configuration tested (its path, or ``<mapping>``).
        files: the test files run, in order.
        results: one per case (a file that could not be parsed is one ``error`` result).
        versions: ``(tenant, policy set)`` for each tenant the cases ran against, the policy
            set as ``govcore validate`` names it (its label and content hash), so that a report
            says which policies it is about.
    """

    config: str
    files: tuple[str, ...]
    results: tuple[CaseResult, ...]
    versions: tuple[tuple[str, str], ...] = ()

    def count(self, outcome: Outcome) -> int:
        """How many results have ``outcome``."""
        return sum(1 for result in self.results if result.outcome == outcome)

    @property
    def passed(self) -> bool:
        """Whether there was something to run and all of it passed."""
        return bool(self.results) and self.count("passed") == len(self.results)

    def summary(self) -> str:
        """``12 passed, 1 failed, 0 errors (13 cases in 2 files)``."""
        errors = self.count("error")
        return (
            f"{self.count('passed')} passed, {self.count('failed')} failed, "
            f"{errors} error{'' if errors == 1 else 's'} "
            f"({_count(len(self.results), 'case')} in {_count(len(self.files), 'file')})"
        )

    def lines(self, *, verbose: bool = False) -> Iterator[str]:
        """The report as text: each failure and error with its details (and with ``verbose``,
        each passing case), then :meth:`summary`; first, the policy set of each tenant."""
        for tenant, version in self.versions:
            yield f"tenant {tenant}: policy set {version}"
        for result in self.results:
            if result.outcome == "passed" and not verbose:
                continue
            yield f"{_LABELS[result.outcome]} {result.title}"
            yield from result.details()
        yield self.summary()

    def junit_xml(self) -> str:
        """The report as JUnit XML: a ``testsuite`` per test file, a ``testcase`` per case (per
        file, for a file that could not be parsed), ``failure`` or ``error`` inside with the
        details of the text report."""
        suites = ElementTree.Element(
            "testsuites",
            name="govcore test",
            tests=str(len(self.results)),
            failures=str(self.count("failed")),
            errors=str(self.count("error")),
        )
        for file in self.files:
            results = [r for r in self.results if r.file == file]
            suite = ElementTree.SubElement(
                suites,
                "testsuite",
                name=_xml_text(file),
                tests=str(len(results)),
                failures=str(sum(r.outcome == "failed" for r in results)),
                errors=str(sum(r.outcome == "error" for r in results)),
                skipped="0",
            )
            tenant = next((r.tenant for r in results if r.tenant), "")
            version = dict(self.versions).get(tenant)
            if version is not None:
                properties = ElementTree.SubElement(suite, "properties")
                for name, value in (("tenant", tenant), ("policy_set", version)):
                    ElementTree.SubElement(properties, "property", name=name, value=value)
            for result in results:
                case = ElementTree.SubElement(
                    suite,
                    "testcase",
                    name=_xml_text(result.name or file),
                    classname=_xml_text(Path(file).stem),
                    file=_xml_text(file),
                )
                if result.outcome == "passed":
                    continue
                details = result.details()
                element = ElementTree.SubElement(
                    case,
                    "failure" if result.outcome == "failed" else "error",
                    message=_xml_text(_first(result)),
                    type="policy test failure"
                    if result.outcome == "failed"
                    else "policy test error",
                )
                element.text = _xml_text("\n".join(line[2:] for line in details))
        ElementTree.indent(suites)
        body = ElementTree.tostring(suites, encoding="unicode")
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _first(result: CaseResult) -> str:
    """A one-line message for a failure or error: its first problem."""
    if result.errors:
        return result.errors[0] + (
            f" (and {len(result.errors) - 1} more)" if len(result.errors) > 1 else ""
        )
    first = result.mismatches[0]
    return f"{first.field}: expected {first.expected}, got {first.got}"


# What XML 1.0 cannot hold at all, even escaped: controls other than tab, LF and CR, lone
# surrogates and U+FFFE/U+FFFF. A test's text may hold them; they are shown as U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
