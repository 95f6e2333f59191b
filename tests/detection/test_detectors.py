"""The registry of built-in PII detectors (govcore/detection/detectors/__init__.py) and everything
that must agree with it: ``PiiKind``, the default replacements, the containment rule, the table of
docs/detection.md. Every kind is checked here with its own example, so a kind added to the
registry is tested end to end before it has tests of its own."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import get_args

import pytest

from govcore.detection.detectors import (
    CONTAINERS,
    DEFAULT_REPLACEMENTS,
    DETECTORS,
    CandidatePattern,
    Detector,
)
from govcore.detection.scanner import explain
from govcore.policy import PII_KINDS, PiiKind
from tests.detection.scanning import found, scanner

DOCS = Path(__file__).resolve().parents[2] / "docs" / "detection.md"
KINDS = tuple(DETECTORS)


def _documented_kinds() -> list[str]:
    """The ``pii`` names of the "Built-in detectors" table, in order, each once."""
    section = DOCS.read_text(encoding="utf-8").split("## Built-in detectors", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = section.split("|---|", 1)[1]  # below the header row
    kinds: list[str] = []
    for name in re.findall(r"^\| `([a-z_]+)` \|", rows, flags=re.MULTILINE):
        if name not in kinds:
            kinds.append(name)
    return kinds


def test_pii_kind_is_the_registry() -> None:
    """The ``PiiKind`` a policy's ``pii`` rule is validated against names every registered
    detector, in the registry's order (the order of the config error's list)."""
    assert get_args(PiiKind) == KINDS
    assert PII_KINDS == KINDS


def test_the_documented_detectors_are_the_registry() -> None:
    """docs/detection.md has a row for every kind, in the registry's order, and no other."""
    assert _documented_kinds() == list(KINDS)


def test_default_replacements_and_containers_come_from_the_detectors() -> None:
    assert dict(DEFAULT_REPLACEMENTS) == {k: d.replacement for k, d in DETECTORS.items()}
    assert {k for k, d in DETECTORS.items() if d.contains_other_kinds} == CONTAINERS
    # The national identifiers explain their digits too: a validated NHS number or tax ID is not
    # also a phone number.
    assert {"email", "credit_card", "iban", "ip_address", "secret"} | {
        kind for kind in KINDS if kind[:3] in ("uk_", "es_", "it_", "pl_", "fi_", "se_", "de_")
    } == CONTAINERS


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_finds_its_example_and_names_it(kind: str) -> None:
    """A rule naming the kind finds the kind's example whole, replaces it with the kind's
    default replacement and explains it with the kind's explanation."""
    detector = DETECTORS[kind]
    text = " ".join(
        part for part in ("it is", detector.example_after, detector.example, "here") if part
    )
    assert found({"pii": kind}, text) == [detector.example]
    [hit] = scanner({"pii": kind}).scan(text)
    assert hit.rule.replacement == detector.replacement
    assert explain(hit).lower().startswith(detector.explanation.lower())
    assert detector.kind == kind


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_candidate_patterns(kind: str) -> None:
    assert DETECTORS[kind].candidates()
    assert all(isinstance(c, CandidatePattern) for c in DETECTORS[kind].candidates())


def test_a_detector_without_a_replacement_cannot_be_made() -> None:
    """The replacement is a required field, and an empty one is refused: a kind without its
    default replacement fails where it is written, not when a rule is compiled."""
    email = DETECTORS["email"]
    with pytest.raises(TypeError):
        Detector(  # type: ignore[call-arg]
            kind="x", explanation="contains an x", example="x", patterns=email.patterns
        )
    with pytest.raises(ValueError, match="replacement"):
        replace(email, replacement="")


# For each containing kind, a validated value of it (factor 1.0: a generic secret assignment, at
# 0.7, contains nothing) holding a match of another kind, found when the rule is off. An IP
# address holds no other kind's candidate; its flag is checked above.
INSIDE = {
    "uk_nhs": ("NHS number 943 476 5919", "phone"),
    "de_tax_id": ("Steuer-ID 86 095 742 719", "phone"),
    "email": ("a.123-45-6789@example.com", "us_ssn"),
    "credit_card": ("4222 2222 2222 2", "phone"),
    "iban": ("GB82 WEST 1234 5698 7654 32", "phone"),
    "ip_address": None,
    "secret": (
        "-----BEGIN RSA PRIVATE KEY-----\nComment: +44 20 7946 0958\n"
        "MIIEpQIBAAKCAQEAr7Wq0dVn3Jk9ZpT2mXcL8uQe4sHbYf1GxRtN6oA5vKiD2wMz\n"
        "-----END RSA PRIVATE KEY-----",
        "phone",
    ),
}


@pytest.mark.parametrize("container", sorted(CONTAINERS))
def test_a_match_inside_a_container_is_its_own(container: str) -> None:
    """Inside a validated match of a containing kind, no other kind's match is reported: the
    digits of a card number or an IBAN are not also a phone number."""
    if INSIDE.get(container) is None:
        pytest.skip(f"no other kind's candidate fits inside a {container} match")
    value, other = INSIDE[container]
    text = f"see {value} here"
    assert [h.rule.label for h in scanner({"pii": container}, {"pii": other}).scan(text)] == [
        container
    ]
