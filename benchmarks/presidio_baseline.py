"""Microsoft Presidio's pattern recognizers, the baseline that detection benchmarks run beside
govcore (installed only for benchmarks: ``pip install -e ".[bench]"``).

Only the regex-and-validator recognizers are used, without an NLP engine, for the built-in
detectors Presidio also has; it has no secret detector.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Any

PRESIDIO_ENTITY = {
    "CREDIT_CARD": "credit_card",
    "EMAIL_ADDRESS": "email",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ip_address",
    "US_SSN": "us_ssn",
    "PHONE_NUMBER": "phone",
}
"""Presidio's entity names, as govcore's ``pii`` kinds."""


def presidio_recognizers(entities: Iterable[str]) -> list[Any] | None:
    """Presidio's pattern recognizers for those of ``entities`` (govcore's ``pii`` kinds) it
    has; ``None`` when Presidio is not installed."""
    try:
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            EmailRecognizer,
            IbanRecognizer,
            IpRecognizer,
            PhoneRecognizer,
            UsSsnRecognizer,
        )
    except ImportError:
        return None
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    logging.getLogger("presidio-analyzer").setLevel(logging.CRITICAL)
    makers: dict[str, Any] = {
        "credit_card": CreditCardRecognizer,
        "email": EmailRecognizer,
        "iban": IbanRecognizer,
        "ip_address": IpRecognizer,
        "us_ssn": UsSsnRecognizer,
        "phone": PhoneRecognizer,
    }
    wanted = set(entities)
    recognizers = []
    for entity, make in makers.items():
        if entity in wanted:
            with contextlib.suppress(ImportError):  # the phone one needs `phonenumbers`
                recognizers.append(make())
    return recognizers


def analyze(recognizers: list[Any], text: str) -> list[Any]:
    """Every recognizer's results on ``text``."""
    results: list[Any] = []
    for recognizer in recognizers:
        results += recognizer.analyze(
            text, entities=recognizer.supported_entities, nlp_artifacts=None
        )
    return results
