"""Findings of an output check: one per policy and span, the most confident rule's."""

from __future__ import annotations

from govcore.core.verdict import Finding, blocks, is_safe
from govcore.core.violations import findings_of
from govcore.detection.scanner import compile_rules
from govcore.policy import PolicyDocument
from tests.support import policy

TEXT = "Please wire the money to account 12345678 today."


def _scanner(*confidences: float) -> object:
    document = PolicyDocument.model_validate(
        policy(
            "accounts",
            enforcement="fix",
            detect=[{"regex": r"account \d{8}", "confidence": c} for c in confidences],
        )
    )
    return compile_rules((document, rule) for rule in document.detect)


def test_two_rules_on_one_span_are_one_finding_with_the_higher_confidence() -> None:
    """Two rules of one policy matching the same text report once, at the best confidence,
    whichever rule comes first."""
    for confidences in [(0.4, 0.95), (0.95, 0.4)]:
        scanner = _scanner(*confidences)
        findings = findings_of(TEXT, scanner.scan(TEXT))  # type: ignore[attr-defined]
        assert [(f.matched_text, f.confidence) for f in findings] == [("account 12345678", 0.95)]


def test_finding_offsets_point_into_the_text() -> None:
    """Each finding's offset is where its matched text starts."""
    scanner = _scanner(0.9)
    [finding] = findings_of(TEXT, scanner.scan(TEXT))  # type: ignore[attr-defined]
    assert finding.offset is not None
    assert TEXT[finding.offset : finding.offset + len(finding.matched_text)] == finding.matched_text


def _finding(enforcement: str, confidence: float) -> Finding:
    return Finding("p", "x", "e", 5.0, confidence, enforcement)  # type: ignore[arg-type]


def test_the_one_verdict_rule() -> None:
    """Only a `fix` finding at confidence 0.7 or more blocks; near misses do not."""
    assert blocks(_finding("fix", 0.7))
    assert not blocks(_finding("fix", 0.6999))
    assert not blocks(_finding("warning", 1.0))
    assert not blocks(_finding("audit", 1.0))
    assert is_safe([_finding("warning", 1.0), _finding("fix", 0.5)])
    assert not is_safe([_finding("warning", 1.0), _finding("fix", 0.9)])
