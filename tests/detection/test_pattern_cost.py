"""Regex rules that RE2 cannot run in small linear time are refused at load and by
``govcore validate`` (docs/decisions/pattern-cost.md); realistic patterns never are."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from govcore.cli import main
from govcore.config import load_config
from govcore.detection.detectors import DETECTORS
from govcore.errors import ConfigError
from govcore.pattern_cost import MAX_PROGRAM_SIZE, pattern_cost, probe_text
from govcore.policy import DetectRule
from tests.support import policy

_WORDS = [
    "".join(random.Random(i).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4 + i % 7))
    for i in range(500)
]

REALISTIC = [
    r"[\w.+-]+@[\w-]+\.[\w.]+",
    r"\b[A-Z]{2}-\d{5,8}\b",
    r"NW\d{8}",
    r"order-[a-z0-9]{8,64}",
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    r"\d{4}-\d{2}-\d{2}",
    r"(?:19|20)\d\d[-/.](?:0[1-9]|1[012])[-/.](?:0[1-9]|[12]\d|3[01])",
    r"\b(?:" + "|".join(_WORDS) + r")\b",
    r"\p{L}+\s+\p{Lu}\p{L}*",
    r"[\p{L}\p{N}]{3,40}",
    r"\p{Lu}\p{Ll}{1,60}",
    r"sk_live_[A-Za-z0-9]{16,250}",
    r"key[A-Za-z0-9]{16,250}",
    r"[A-Za-z0-9]{16,250}",
    r"(?i)api[_-]?key\s*[:=]\s*['\"]?[A-Za-z0-9_\-]{20,128}",
    r"AKIA[0-9A-Z]{16}",
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"(?:\+?1[-. ]?)?\(?\d{3}\)?[-. ]?\d{3}[-. ]?\d{4}",
    r"https?://[^\s/$.?#].[^\s]*",
    r".*password.*",
    r"(?s)BEGIN.{0,1000}END",
    r"[^\s@]{1,64}@[^\s@]{1,255}",
    r"[ab]{100}",  # near miss of [ab]*a[ab]{100}: nothing before the repeat starts a match
    r"x[ab]{100}",  # near miss: the prefix cannot occur inside the repeat
    *(c.pattern for detector in DETECTORS.values() for c in detector.candidates()),
]


@pytest.mark.parametrize("pattern", REALISTIC, ids=[p[:40] for p in REALISTIC])
def test_realistic_patterns_are_accepted(pattern: str) -> None:
    cost = pattern_cost(pattern)
    assert cost.refusal is None, cost.refusal
    assert cost.program_size <= MAX_PROGRAM_SIZE
    DetectRule.model_validate({"regex": pattern})


SLOW = [
    r"(a|b)*a(a|b){200}",
    r"(.*a){50}",
    r"[ab]*a[ab]{100}",
    r"a[ab]{100}",
    r".*a.{60}",
]


@pytest.mark.parametrize("pattern", SLOW)
def test_dfa_blow_ups_are_refused_as_too_slow(pattern: str) -> None:
    cost = pattern_cost(pattern)
    assert cost.refusal is not None
    assert cost.refusal.startswith("regex is too slow to scan: on text made of its own characters")
    assert "(at most 120)" in cost.refusal


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        # past RE2's own limit (8 MB for a pattern compiled alone): refused by RE2 itself
        (r"[\p{L}\p{N}]{500}", "regex does not compile (RE2 syntax): pattern too large"),
        (r"\p{L}{2,100}", "regex is too large: RE2 compiles it to 119,802 instructions"),
        (r"((a{100}){100}){100}", "regex does not compile (RE2 syntax): invalid repetition size"),
    ],
)
def test_huge_programs_are_refused_with_their_size(pattern: str, reason: str) -> None:
    with pytest.raises(ValueError, match=r"regex") as refused:
        DetectRule.model_validate({"regex": pattern})
    assert reason in str(refused.value)


def test_the_probe_text_is_made_of_the_patterns_own_characters() -> None:
    text = probe_text(r"(a|b)*a(a|b){200}")
    assert set(text) == set(b"ab")  # not the digits of {200}
    assert text == probe_text(r"(a|b)*a(a|b){200}")
    assert set(probe_text(r"\d-[xy]")) == set(b"07-xy")
    assert set(probe_text(r"\p{L}+").decode()) == set("éЖ5")


def _config(rule: dict[str, Any]) -> dict[str, Any]:
    return {
        "tenants": {
            "acme": {
                "policies": [
                    policy("ok", detect=[{"regex": "NW\\d{8}"}]),
                    policy("slow", tools=[{"tool": "*", "argument": "a", "detect": [rule]}]),
                ]
            }
        }
    }


def test_loading_names_the_tenant_policy_and_rule() -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(_config({"regex": "[ab]*a[ab]{100}"}))
    [problem] = refused.value.problems
    assert str(problem).startswith(
        "tenants.acme.policies[1] (policy 'slow'): tools[0].detect[0].regex: regex is too slow"
    )


def test_validate_reports_the_pattern(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config({"regex": "(a|b)*a(a|b){200}"})))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "policies[1] (policy 'slow'): tools[0].detect[0].regex: regex is too slow" in err
