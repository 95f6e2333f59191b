"""Properties of the redaction and the risk score (docs/detection.md, "Violations, redaction and risk").

The suggested redaction never contains what a PII or secret violation matched, overlapping
matches resolve the same way every time with the most severe policy's replacement, and the risk
score stays in [0, 1], is 0 without violations and never falls when a violation is added.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.violations import redact
from govcore.detection.detectors import DEFAULT_REPLACEMENTS
from tests.support import (
    CHECKS_KEY,
    POLICY_OF_SAMPLE,
    SAMPLES,
    checks_governance,
    detect_scanner,
    policy,
    private_key_block,
    risk_of,
)

PII_POLICIES = {"card-data", "bank-details", "contact-data", "gov-ids", "secrets", "network"}
PII_SAMPLES = [s for s in SAMPLES if POLICY_OF_SAMPLE[s] in PII_POLICIES] + [
    private_key_block(lines=4, width=40)
]
INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\u202e", "\U000e0041"]
WORDS = [
    "please",
    "note",
    "the",
    "value",
    "is",
    "and",
    "then",
    "naïve",
    "—",
    "\n",
    "ok.",
    "guaranteed",
]


@functools.cache
def _gov() -> govcore.Governance:
    """One governance for the module's properties, built on first use (not at import)."""
    return checks_governance()


def _client() -> govcore.GovernanceClient:
    return _gov().client(CHECKS_KEY)


SCANNER = detect_scanner()
REPLACEMENTS = tuple(DEFAULT_REPLACEMENTS.values())


@st.composite
def pii_value(draw: st.DrawFn) -> str:
    """A planted PII or secret value, sometimes with an invisible character inside."""
    value = draw(st.sampled_from(PII_SAMPLES))
    if draw(st.booleans()):
        cut = draw(st.integers(1, len(value) - 1))
        value = value[:cut] + draw(st.sampled_from(INVISIBLE)) + value[cut:]
    return value


TEXTS = st.lists(
    st.one_of(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), pii_value()),
    min_size=1,
    max_size=10,
).map(" ".join)


@settings(max_examples=120, deadline=None)
@given(text=TEXTS)
def test_redaction_contains_no_matched_pii_or_secret(text: str) -> None:
    """The suggested redaction holds no matched text of a PII or secret violation, and no match at all."""
    verdict = _client().post_inference({"sessionId": "redact", "output": text})
    redaction = verdict.suggested_redaction
    for violation in verdict.violations:
        if violation.policy_id in PII_POLICIES:
            assert violation.matched_text not in redaction
    assert SCANNER.scan(redaction) == []
    again = _client().post_inference({"sessionId": "redact", "output": text})
    assert again.suggested_redaction == redaction


def _overlap_policies(severities: dict[str, float]) -> list[dict[str, Any]]:
    """Three policies whose rules overlap on "card 4111 1111 1111 1111"."""
    return [
        policy(
            "wide",
            severity=severities["wide"],
            detect=[{"regex": r"card [0-9 ]{19}", "replacement": "<W>"}],
        ),
        policy(
            "card",
            severity=severities["card"],
            detect=[{"pii": "credit_card", "replacement": "<C>"}],
        ),
        policy(
            "word",
            severity=severities["word"],
            detect=[{"terms": ["card"], "replacement": "<T>"}],
        ),
    ]


OVERLAP_TEXT = "my card 4111 1111 1111 1111 please"
REPLACEMENT_OF = {"wide": "<W>", "card": "<C>", "word": "<T>"}


@settings(max_examples=60, deadline=None)
@given(
    severities=st.lists(
        st.sampled_from([0.5, 1, 2, 2.5, 3, 4, 4.5, 5, 7]), min_size=3, max_size=3, unique=True
    ),
    order=st.permutations([0, 1, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_overlapping_matches_take_the_most_severe_replacement(
    severities: list[float], order: list[int], seed: int
) -> None:
    """Overlapping matches become one span replaced by the most severe policy's text, whatever the order."""
    by_id = dict(zip(["wide", "card", "word"], severities, strict=True))
    policies = _overlap_policies(by_id)
    scanner = detect_scanner([policies[i] for i in order])
    hits = scanner.scan(OVERLAP_TEXT)
    assert {h.rule.policy.id for h in hits} == {"wide", "card", "word"}
    winner = max(by_id, key=by_id.__getitem__)
    expected = f"my {REPLACEMENT_OF[winner]} please"
    assert redact(OVERLAP_TEXT, hits) == expected
    shuffled = list(hits)
    random.Random(seed).shuffle(shuffled)
    assert redact(OVERLAP_TEXT, shuffled) == expected
    assert redact(OVERLAP_TEXT, shuffled, scanner) == expected


def test_equal_severity_overlap_prefers_the_earliest_match() -> None:
    """Between equally severe policies the earliest, then longest, match's replacement wins."""
    policies = _overlap_policies({"wide": 3, "card": 3, "word": 3})
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        scanner = detect_scanner([policies[i] for i in order])
        assert redact(OVERLAP_TEXT, scanner.scan(OVERLAP_TEXT)) == "my <W> please"


def _checking_client(policies: list[dict[str, Any]]) -> govcore.GovernanceClient:
    """A client of one tenant with ``policies`` and post-inference checking allowed."""
    config = {
        "tenants": {"t": {"policies": policies}},
        "keys": [
            {
                "key": "gk_test_overlap_000001",
                "tenant": "t",
                "settings": {"post_inference_checking": "allowed"},
            }
        ],
    }
    return govcore.Governance.from_config(config).client("gk_test_overlap_000001")


def test_post_inference_redaction_takes_the_most_severe_replacement() -> None:
    """Through post-inference the overlap is redacted with the most severe policy's text."""
    policies = _overlap_policies({"wide": 1, "card": 5, "word": 3})
    client = _checking_client(policies)
    verdict = client.post_inference({"sessionId": "s", "output": OVERLAP_TEXT})
    assert verdict.suggested_redaction == "my <C> please"
    assert sorted(v.policy_id for v in verdict.violations) == ["card", "wide", "word"]


def test_replacement_text_is_not_redacted_again() -> None:
    """One policy's enforcement text is kept as written even if another policy's rule matches it."""
    policies = [
        policy("card-data", severity=5, enforcement="fix", detect=[{"pii": "credit_card"}]),
        policy("card-talk", severity=2, detect=[{"terms": ["card number"]}]),
    ]
    client = _checking_client(policies)
    output = "Your card number is 4111 1111 1111 1111."
    verdict = client.post_inference({"sessionId": "s", "output": output})
    assert [v.enforcement_text for v in verdict.violations] == [
        "[removed]",
        "[card number removed]",
    ]
    assert verdict.suggested_redaction == "Your [removed] is [card number removed]."


# --- risk score -----------------------------------------------------------------------------

VIOLATION = st.tuples(
    st.floats(0, 1, allow_nan=False),
    st.one_of(st.floats(0, 10, allow_nan=False), st.sampled_from([0, 0.5, 2.5, 5, 10])),
)


@settings(max_examples=300, deadline=None)
@given(violations=st.lists(VIOLATION, max_size=12), extra=VIOLATION)
def test_risk_score_is_bounded_and_monotone(
    violations: list[tuple[float, float]], extra: tuple[float, float]
) -> None:
    """The risk is in [0, 1], and adding a violation never lowers it."""
    score = risk_of(violations)
    assert 0.0 <= score <= 1.0
    assert risk_of([*violations, extra]) >= score
    assert risk_of([extra, *violations]) >= score


def test_risk_score_of_no_violations_is_zero() -> None:
    """No violations means risk 0, and a certain violation of severity 5 or more means risk 1."""
    assert risk_of([]) == 0
    assert risk_of([(1.0, 5)]) == 1
    assert risk_of([(1.0, 9.5)]) == 1
    assert 0 < risk_of([(0.9, 1)]) < risk_of([(0.9, 1), (0.9, 1)]) < 1


@settings(max_examples=40, deadline=None)
@given(text=TEXTS)
def test_answered_risk_score_is_the_risk_of_the_violations(text: str) -> None:
    """Post-inference's `riskScore` is the risk score of its violations' confidence and severity."""
    verdict = _client().post_inference({"sessionId": "risk", "output": text})
    assert verdict.risk_score == risk_of((v.confidence, v.severity) for v in verdict.violations)
    assert (verdict.risk_score == 0) is (verdict.violations == [])


GLUE = ["", " ", ". ", "\u200b", "+", ":", "-"]


@st.composite
def glued_pii(draw: st.DrawFn) -> str:
    """PII values glued to each other by nothing, a space, punctuation or an invisible character."""
    values = draw(st.lists(pii_value(), min_size=2, max_size=4))
    text = values[0]
    for value in values[1:]:
        text += draw(st.sampled_from(GLUE)) + value
    return f"see {text} now"


@settings(max_examples=120, deadline=None)
@given(text=glued_pii())
@example(
    text="see ghp_A1b2C3d4A1b2C3d4A1b2C3d4A1b2C3d4A1b2C3d4DE89370400440532013000"
    "-jane.doe+orders@mail.example.co.uk now"
)
def test_every_replacement_in_the_redaction_is_a_reported_violation(text: str) -> None:
    """What the redaction removes, the verdict reports: a value that another match held back
    (a card number glued to an email's domain) is a violation, not only a replacement."""
    verdict = _client().post_inference({"sessionId": "redact", "output": text})
    redaction = verdict.suggested_redaction
    reported = Counter(v.enforcement_text for v in verdict.violations)
    for replacement in {v.enforcement_text for v in verdict.violations} | set(REPLACEMENTS):
        placed = redaction.count(replacement) - text.count(replacement)
        assert placed <= reported[replacement], (replacement, redaction, verdict.violations)
    assert SCANNER.scan(redaction) == []


def test_card_glued_to_an_email_is_reported() -> None:
    verdict = _client().post_inference(
        {"sessionId": "redact", "output": "x a@b.com4111111111111111 y"}
    )
    assert sorted(v.matched_text for v in verdict.violations) == ["4111111111111111", "a@b.com"]
