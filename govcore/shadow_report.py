"""``govcore shadow-report``: what a candidate policy set run in shadow would have changed.

It reads a JSON-lines decision log (``settings.decision_log_path``) and summarises its shadow
records (those with a ``shadow`` member; see :class:`govcore.decision_log.ShadowDiff`):

- **selections** (turns and pre-inference calls): how many were compared, how many the
  candidate would have changed, and per policy how often it would have been gained (selected
  by the candidate only) or lost (by the live set only);
- **verdicts** (output checks and tool calls): how many were compared, how many the candidate
  would have flipped, in which direction (``safe -> unsafe``, ``allow -> block``, ...), and per
  policy how often its violations would have been gained or lost, and how often it was among
  the policies of a flipped verdict (gained or lost there).

Records of other kinds are counted and otherwise skipped; a line that is not a JSON object is
counted as unreadable, never fatal: a log cut short by a crash still gives its report.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from govcore.service.shadow import SELECTION

__all__ = ["PolicyChanges", "ShadowReport", "read_shadow_report"]


@dataclass
class PolicyChanges:
    """How often a candidate would have changed decisions about one policy."""

    gained: int = 0
    """Decisions where the candidate has the policy and the live set has not."""
    lost: int = 0
    """Decisions where the live set has the policy and the candidate has not."""
    in_flips: int = 0
    """Verdicts the candidate flips where the policy was gained or lost (verdicts only)."""


@dataclass
class _Kind:
    compared: int = 0
    changed: int = 0
    by_endpoint: Counter[str] = field(default_factory=Counter)
    changed_by_endpoint: Counter[str] = field(default_factory=Counter)
    policies: dict[str, PolicyChanges] = field(default_factory=dict)

    def policy(self, policy_id: str) -> PolicyChanges:
        return self.policies.setdefault(policy_id, PolicyChanges())

    def as_dict(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "changed": self.changed,
            "by_endpoint": {
                endpoint: {"compared": n, "changed": self.changed_by_endpoint[endpoint]}
                for endpoint, n in sorted(self.by_endpoint.items())
            },
            "policies": {
                pid: {"gained": c.gained, "lost": c.lost, "in_flips": c.in_flips}
                for pid, c in sorted(self.policies.items())
            },
        }


@dataclass
class ShadowReport:
    """The summary of a decision log's shadow records (see the module)."""

    lines: int = 0
    """Lines read (blank lines aside)."""
    unreadable: int = 0
    """Lines that are not a JSON object."""
    live_records: int = 0
    """Records without ``shadow``: the live decisions."""
    versions: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    """Shadow records by (tenant, live version, candidate version, candidate label)."""
    selections: _Kind = field(default_factory=_Kind)
    verdicts: _Kind = field(default_factory=_Kind)
    flips: Counter[str] = field(default_factory=Counter)
    """Flipped verdicts by direction, such as ``safe -> unsafe``."""

    @property
    def shadow_records(self) -> int:
        """Shadow records read."""
        return self.selections.compared + self.verdicts.compared

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one decision record (a JSON object of the decision log)."""
        shadow = record.get("shadow")
        if not isinstance(shadow, Mapping):
            self.live_records += 1
            return
        endpoint = str(record.get("endpoint", "?"))
        verdict = str(record.get("verdict", "?"))
        live_verdict = str(shadow.get("live_verdict", "?"))
        gained = _ids(shadow.get("gained"))
        lost = _ids(shadow.get("lost"))
        self.versions[
            (
                str(record.get("tenant", "?")),
                str(shadow.get("live_policy_set_version", "?")),
                str(record.get("policy_set_version", "?")),
                str(record.get("policy_set_label") or ""),
            )
        ] += 1
        kind = self.selections if verdict == SELECTION else self.verdicts
        kind.compared += 1
        kind.by_endpoint[endpoint] += 1
        flipped = kind is self.verdicts and verdict != live_verdict
        if gained or lost or flipped:
            kind.changed += 1
            kind.changed_by_endpoint[endpoint] += 1
        for pid in gained:
            kind.policy(pid).gained += 1
        for pid in lost:
            kind.policy(pid).lost += 1
        if flipped:
            self.flips[f"{live_verdict} -> {verdict}"] += 1
            for pid in dict.fromkeys([*gained, *lost]):
                kind.policy(pid).in_flips += 1

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``govcore shadow-report --json``)."""
        return {
            "lines": self.lines,
            "unreadable_lines": self.unreadable,
            "live_records": self.live_records,
            "shadow_records": self.shadow_records,
            "versions": [
                {
                    "tenant": tenant,
                    "live_version": live,
                    "candidate_version": candidate,
                    "candidate_label": label or None,
                    "records": count,
                }
                for (tenant, live, candidate, label), count in sorted(self.versions.items())
            ],
            "selections": self.selections.as_dict(),
            "verdicts": {**self.verdicts.as_dict(), "flips": dict(sorted(self.flips.items()))},
        }

    def write_text(self, out: TextIO) -> None:
        """The report for people."""
        print(
            f"{self.shadow_records} shadow records, {self.live_records} live records"
            + (f", {self.unreadable} unreadable lines" if self.unreadable else ""),
            file=out,
        )
        for (tenant, live, candidate, label), count in sorted(self.versions.items()):
            named = f"{label} ({candidate})" if label else candidate
            print(f"  tenant {tenant}: live {live} vs candidate {named}: {count}", file=out)
        _write_kind("Selections", "would have changed", self.selections, out, with_flips=False)
        _write_kind("Verdicts", "would have flipped or changed", self.verdicts, out, True)
        if self.flips:
            flips = ", ".join(f"{direction}: {n}" for direction, n in sorted(self.flips.items()))
            print(f"  flipped: {flips}", file=out)


def _write_kind(title: str, what: str, kind: _Kind, out: TextIO, with_flips: bool) -> None:
    print(file=out)
    print(f"{title}: {kind.compared} compared, {kind.changed} {what}", file=out)
    for endpoint, n in sorted(kind.by_endpoint.items()):
        print(f"  {endpoint}: {kind.changed_by_endpoint[endpoint]} of {n}", file=out)
    if not kind.policies:
        return
    header = f"  {'policy':<32} {'gained':>7} {'lost':>7}" + (
        f" {'in flips':>9}" if with_flips else ""
    )
    print(header, file=out)
    ranked = sorted(
        kind.policies.items(), key=lambda item: (-(item[1].gained + item[1].lost), item[0])
    )
    for pid, changes in ranked:
        line = f"  {pid:<32} {changes.gained:>7} {changes.lost:>7}"
        if with_flips:
            line += f" {changes.in_flips:>9}"
        print(line, file=out)


def _ids(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def read_shadow_report(lines: Iterable[str]) -> ShadowReport:
    """The report of the decision-log lines ``lines`` (JSON objects, one a line)."""
    report = ShadowReport()
    for line in lines:
        if not line.strip():
            continue
        report.lines += 1
        try:
            record = json.loads(line)
        except ValueError:
            report.unreadable += 1
            continue
        if not isinstance(record, dict):
            report.unreadable += 1
            continue
        report.add(record)
    return report
