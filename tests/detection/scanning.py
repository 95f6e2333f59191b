"""Scanners of a few rules for the detection tests: each rule set is compiled on its own with
``govcore.detection.scanner.compile_rules`` (cached), and ``found`` gives the original text of
every hit."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from govcore.detection.scanner import Scanner, compile_rules
from govcore.policy import PolicyDocument
from tests.support import policy

ZWSP, SOFT_HYPHEN, RLO, TAG_A, WORD_JOINER = "\u200b", "\u00ad", "\u202e", "\U000e0041", "\u2060"


@cache
def _scanner(rules_json: str) -> Scanner:
    document = PolicyDocument.model_validate(policy("p", detect=json.loads(rules_json)))
    return compile_rules((document, rule) for rule in document.detect)


def scanner(*rules: dict[str, Any]) -> Scanner:
    """A scanner of one policy with ``rules`` (cached per rule set)."""
    return _scanner(json.dumps(rules, sort_keys=True))


def found(rule: dict[str, Any], text: str) -> list[str]:
    """The original text of every hit of ``rule`` in ``text``, in order."""
    return [text[hit.start : hit.end] for hit in scanner(rule).scan(text)]


CARD = {"pii": "credit_card"}


IBAN = {"pii": "iban"}


EMAIL = {"pii": "email"}


PHONE = {"pii": "phone"}


SSN = {"pii": "us_ssn"}


IP = {"pii": "ip_address"}


SECRET = {"pii": "secret"}
