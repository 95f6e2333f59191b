"""The Hyperscan engine reports exactly what the RE2 engine reports.

Each engine is asked through ``compile_rules(..., engine=...)`` and through a governance whose
``settings.detection_engine`` names it; RE2 is the reference. The texts are made of planted
values, near misses and evasions (invisible characters, full-width digits, look-alike letters,
combining marks), glued together or apart. Skipped without the hyperscan package (failed in
CI) and in a run on RE2 on purpose (``GOVCORE_DETECTION_ENGINE=re2``).
"""

from __future__ import annotations

import json
import os
import sys
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import govcore
from govcore.cli import main
from govcore.detection.detectors import DETECTORS
from govcore.detection.hyperscan_engine import MatchStarts, superset_pattern
from govcore.detection.scanner import Scanner, compile_rules
from govcore.errors import ConfigError
from govcore.policy import PolicyDocument
from govcore.settings import GovernanceSettings
from tests.support import ENGINE_VARIABLE, policy, require_hyperscan

require_hyperscan()

REGEXES = (
    r"REF-\d{6}",
    r"\bORD[0-9]{4,8}\b",
    r"[\p{L}]+@corp",
    r"(?-i:SECRET)[0-9]+",
    r"colou?r",
    r"\d{3}-\d{4}",
    r"é+t[ée]",
    r"[à-ÿ]{3}",
    r"\bx\b",
    r"a.c",
    r"^start",
    r"end$",
    r"\Qa.b\E",
    r"[^\p{L}\s]{4,}",
    r"\pN{5}",
    r"straße",
    r"жизнь",
    r"[\x{2010}-\x{2015}]+",
    r"\x{e9}cole",
    r"(?s:begin.*?finish)",
)
TERMS = (
    "refund",
    "guaranteed refund",
    "money back",
    "money back guarantee",
    "straße",
    "paypal",
    "café",
    "risk-free",
    "x",
)
PLANTED = (
    # Each kind's example, after the words it needs (a UK passport number only after its name).
    *(f"{d.example_after} {d.example}".lstrip() for d in DETECTORS.values()),
    "4111 1111 1111 1111",
    "5500-0000-0000-0004",
    "jane.doe+orders@example.co.uk",
    "DE89 3704 0044 0532 0130 00",
    "+1 (415) 555-2671",
    "phone 425 8829090",
    "SSN 123456789",
    "2001:db8::1",
    "AKIAZ4QW7RT2LX5PJN3K",
    "api_key = 'Zx81Qw93Lm27Vb64Nc05'",
    "REF-123456",
    "ORD12345",
    "SECRET42",
    "secret42",
    "colour",
    "555-1234",
    "été",
    "àéî",
    "a.b",
    "start",
    "end",
    "12345",
    "١٢٣٤٥",
    "école",
    "ÉCOLE",
    "begin\n...\nfinish",
    "STRASSE",
    "ЖИЗНЬ",
    "‐‑‒",
    # a letter and digits newer than Hyperscan's Unicode tables (RE2's \p{L} and \p{N} hold
    # them, Hyperscan's do not): the superset pattern must still let RE2 find them
    "\u0560\u0561@corp",
    "\u0560x@example.com",
    "\U0001e950\U0001e951\U0001e952\U0001e953\U0001e954",
    *TERMS,
)
NEAR_MISSES = (
    "4111 1111 1111 1112",
    "123-45-678",
    "jane@",
    "192.168.0.256",
    "REF-12345",
    "ORD123",
    "refunded",
    "moneyback",
    "DE89 3704 0044 0532 0130 01",
    "AKIA1234",
    "+1 (415)",
    "x1",
)
SEPARATORS = ("", " ", "\n", ", ", ".", "é", "-", "  ", "\t", "ß")


def _evaded(piece: str, evasion: int) -> str:
    """``piece`` written to slip past a rule while reading the same."""
    if evasion == 1 and len(piece) > 1:
        middle = len(piece) // 2
        return f"{piece[:middle]}\u200b{piece[middle:]}"  # a zero-width space inside
    if evasion == 2:
        return piece.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})  # full width
    if evasion == 3:
        return piece.translate({ord("a"): "а", ord("p"): "р", ord("e"): "е", ord("o"): "о"})
    if evasion == 4:
        return piece.replace("e", "e\u0301")  # a combining acute accent
    if evasion == 5:
        return piece.upper()
    if evasion == 6:
        return piece.replace(" ", "\u00a0")  # non-breaking spaces
    return piece


pieces = st.tuples(
    st.sampled_from(PLANTED + NEAR_MISSES), st.integers(0, 8), st.sampled_from(SEPARATORS)
)
texts = st.lists(pieces, max_size=12).map(
    lambda parts: "".join(_evaded(piece, evasion) + sep for piece, evasion, sep in parts)
)
rule_sets = st.lists(
    st.one_of(
        st.sampled_from(tuple(DETECTORS)).map(lambda kind: {"pii": kind}),
        st.sampled_from(REGEXES).map(lambda regex: {"regex": regex}),
        st.lists(st.sampled_from(TERMS), min_size=1, max_size=4, unique=True).map(
            lambda terms: {"terms": terms}
        ),
    ),
    min_size=1,
    max_size=6,
)


@cache
def _scanners(rules_json: str) -> tuple[Scanner, Scanner]:
    document = PolicyDocument.model_validate(policy("p", detect=json.loads(rules_json)))
    rules = [(document, rule) for rule in document.detect]
    return compile_rules(rules, engine="re2"), compile_rules(rules, engine="hyperscan")


def _hits(scanner: Scanner, text: str, start: int = 0) -> list[tuple[int, int, int, float]]:
    return [(h.rule.index, h.start, h.end, h.confidence) for h in scanner.scan(text, start)]


EVERY_RULE = [
    *({"pii": kind} for kind in DETECTORS),
    *({"regex": regex} for regex in REGEXES),
    {"terms": list(TERMS)},
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, start=st.integers(0, 40))
def test_every_rule_reports_the_same_hits_on_both_engines(text: str, start: int) -> None:
    re2_scanner, hyperscan_scanner = _scanners(json.dumps(EVERY_RULE))
    assert hyperscan_scanner.engine == "hyperscan"
    assert _hits(hyperscan_scanner, text, start) == _hits(re2_scanner, text, start)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets, text=texts)
def test_random_rule_sets_report_the_same_hits_on_both_engines(
    rules: list[dict[str, Any]], text: str
) -> None:
    re2_scanner, hyperscan_scanner = _scanners(json.dumps(rules, sort_keys=True))
    assert _hits(hyperscan_scanner, text) == _hits(re2_scanner, text)


def test_the_planted_values_are_found_so_the_comparison_is_not_of_empty_lists() -> None:
    re2_scanner, hyperscan_scanner = _scanners(json.dumps(EVERY_RULE))
    text = " | ".join(PLANTED)
    hits = _hits(hyperscan_scanner, text)
    kinds = {hyperscan_scanner.rules[index].label for index, *_ in hits}
    assert set(DETECTORS) <= kinds
    assert {"pattern", "term"} <= kinds
    assert hits == _hits(re2_scanner, text)


def test_a_text_that_makes_too_many_reports_is_searched_as_re2_would() -> None:
    """A long run of digits makes every digit pattern report at almost every byte; past its
    budget the Hyperscan pass stops and RE2 searches every pattern without hints: the same hits,
    at about RE2's cost instead of millions of reports held in Python."""
    re2_scanner, hyperscan_scanner = _scanners(json.dumps(EVERY_RULE))
    search = hyperscan_scanner._pattern_search
    assert search is not None
    dense = "1" * 30_000
    assert search.scan(dense.encode()) is None  # over budget
    text = dense + " | " + " | ".join(PLANTED) + " " + "7" * 30_000
    hits = _hits(hyperscan_scanner, text)
    assert len(hits) > len(PLANTED) // 2
    assert hits == _hits(re2_scanner, text)


def _governance(engine: str) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "settings": {"detection_engine": engine},
            "tenants": {
                "t": {
                    "policies": [
                        policy(
                            "p",
                            enforcement="fix",
                            alwaysOn=True,
                            detect=[
                                *({"pii": kind} for kind in DETECTORS),
                                {"regex": r"REF-\d{6}"},
                                {"regex": r"[\p{L}]+@corp"},
                                {"terms": ["refund", "money back guarantee", "straße"]},
                            ],
                        )
                    ]
                }
            },
            "keys": [
                {
                    "key": "gk_engines_test_0001",
                    "tenant": "t",
                    "settings": {"post_inference_checking": "allowed"},
                }
            ],
        }
    )


@pytest.mark.parametrize(
    "output",
    [
        "Card 4111\u200b1111 1111 1111, mail jane@example.com4111111111111111 now.",
        "Ｒｅｆｕｎｄ: REF-１２３４５６ to ｊａｎｅ@ｅｘａｍｐｌｅ.ｃｏｍ, STRASSE 5, élan@corp",
        "IBAN DE89 3704 0044 0532 0130 00. 4111 1111 1111 1111 money  back\nguarantee",
        "ref\u00adund, +1 (415) 555-2671, 123-45-6789, 192.168.10.24, AKIAZ4QW7RT2LX5PJN3K",
    ],
)
def test_post_inference_answers_the_same_on_both_engines(output: str) -> None:
    answers = []
    for engine in ("re2", "hyperscan"):
        with _governance(engine) as gov:
            response = gov.client("gk_engines_test_0001").post_inference(
                {"sessionId": "s", "output": output}
            )
        answer = response.model_dump(by_alias=True)
        answer.pop("traceId")
        answers.append(answer)
    assert answers[0]["violations"], "the output must hold violations to compare"
    assert answers[1] == answers[0]


def test_superset_patterns_match_non_ascii_where_re2_does() -> None:
    assert superset_pattern(r"\p{L}+@x") == r"[\x{41}-\x{5a}\x{61}-\x{7a}\x{80}-\x{10FFFF}]+@x"
    assert superset_pattern("café") == r"caf[\x{80}-\x{10FFFF}]"
    # quoted text is literal, so its full stop is escaped; ASCII syntax is left alone
    assert superset_pattern(r"\Qa.b\E(x|y)\b[a-z]") == r"a\x{2e}b(x|y)\b[a-z]"
    # a non-ASCII character without case, and a class of them, stay as written
    assert superset_pattern("\u2010") == r"\x{2010}"
    assert superset_pattern(r"[\x{85}\x{2028}]") == r"[\x{85}\x{2028}]"


def test_a_search_skips_only_text_where_no_match_begins() -> None:
    # reports (end, leftmost start): matches ending at 10 began at 4 or later, at 30 at 25
    starts = MatchStarts([(30, 25), (10, 4), (12, 4)])
    assert starts.search_from(0) == 4
    assert starts.search_from(6) == 6  # a match ending at 10 or 12 may begin anywhere after 4
    assert starts.search_from(12) == 25
    assert starts.search_from(30) is None


def test_validate_lists_the_patterns_left_to_re2(tmp_path: Any, capsys: Any) -> None:
    config = {
        "settings": {"detection_engine": "hyperscan"},
        "tenants": {
            "acme": {
                "policies": [
                    policy("p", detect=[{"regex": r"x\Cy"}, {"regex": "REF-[0-9]{6}"}]),
                ]
            }
        },
        "keys": [],
    }
    path = tmp_path / "govcore.json"
    path.write_text(json.dumps(config))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "tenants.acme: the hyperscan engine leaves to RE2" in out
    assert r"regex of policy 'p': \C (any byte)" in out
    assert "REF-" not in out  # a pattern Hyperscan compiles is not listed


def test_hyperscan_without_the_package_is_a_config_error(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "hyperscan", None)
    with pytest.raises(ConfigError, match=r"detection_engine: .*govcore\[hyperscan\]"):
        govcore.Governance.from_config(
            {"settings": {"detection_engine": "hyperscan"}, "tenants": {}, "keys": []}
        )
    # auto falls back to RE2, which needs nothing
    with govcore.Governance.from_config(
        {"settings": {"detection_engine": "auto"}, "tenants": {}, "keys": []}
    ) as gov:
        assert gov.detection_engine() == "re2"


def test_the_default_engine_is_re2_whatever_is_installed() -> None:
    """A configuration that names no engine runs on RE2 (the contract's default), with or
    without the hyperscan package; auto and hyperscan are chosen on purpose."""
    if os.environ.get(ENGINE_VARIABLE) == "hyperscan":
        pytest.skip("this run makes Hyperscan the default on purpose (tests/conftest.py)")
    settings = GovernanceSettings()
    assert settings.detection_engine == "re2"
    with govcore.Governance.from_config({"tenants": {}, "keys": []}) as gov:
        assert gov.detection_engine() == "re2"
