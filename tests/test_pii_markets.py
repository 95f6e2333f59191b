"""Markets in ``pii`` rules (govcore/pii_markets.py): a rule may name kinds, markets or a list
of both; the table agrees with the detector registry; each violation of a rule of several kinds
names its own kind, in the wire format the specification defines."""

from __future__ import annotations

from typing import Any

import pytest

import govcore
from govcore.detection.detectors import DETECTORS
from govcore.pii_markets import MARKET_ALIASES, MARKETS
from tests.support import OUTPUT_VIOLATION_FIELDS, STREAM_VIOLATION_FIELDS, UNLIMITED, policy

KEY = "gk_test_markets_000001"

# The EU's member states (ISO 3166-1 alpha-2, lower case; Greece's code is gr, not el).
EU_MEMBERS = frozenset(
    "at be bg hr cy cz dk ee fi fr de gr hu ie it lv lt lu mt nl pl pt ro sk si es se".split()
)


def governance(*rules: dict[str, Any]) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "tenants": {"t": {"policies": [policy("pii", detect=list(rules), enforcement="fix")]}},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "t",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "rate_limit_per_minute": UNLIMITED,
                    },
                }
            ],
        }
    )


def violations(gov: govcore.Governance, output: str) -> list[dict[str, Any]]:
    verdict = gov.client(KEY).post_inference({"sessionId": "s", "output": output})
    found: list[dict[str, Any]] = verdict.model_dump(mode="json", by_alias=True)["violations"]
    return found


# --- the table against the registry ---------------------------------------------------------


def test_every_market_names_only_registered_kinds() -> None:
    for market, kinds in MARKETS.items():
        assert kinds, market
        assert set(kinds) <= set(DETECTORS), (market, set(kinds) - set(DETECTORS))
        assert len(set(kinds)) == len(kinds), market


def test_every_registered_kind_belongs_to_a_market() -> None:
    """A kind added to the registry must be put in its country's market (and in ``eu`` for a
    member state), or in ``common`` when no country owns it."""
    placed = {kind for kinds in MARKETS.values() for kind in kinds}
    assert set(DETECTORS) - placed == set()


def test_common_holds_exactly_the_kinds_no_country_owns() -> None:
    countries = {
        kind for m, kinds in MARKETS.items() if m not in ("common", "eu") for kind in kinds
    }
    assert set(MARKETS["common"]) == set(DETECTORS) - countries


def test_eu_is_the_kinds_of_its_member_states() -> None:
    members = {kind for m, kinds in MARKETS.items() if m in EU_MEMBERS for kind in kinds}
    assert set(MARKETS["eu"]) == members
    assert not set(MARKETS["eu"]) & set(MARKETS["uk"])  # the UK left the EU in 2020


def test_market_names() -> None:
    """Lower-case ISO 3166-1 alpha-2 codes, plus eu and common; no market is also a kind."""
    for name in (*MARKETS, *MARKET_ALIASES):
        assert name in ("eu", "common") or (len(name) == 2 and name.isalpha() and name.islower())
        assert name not in DETECTORS
    assert MARKET_ALIASES == {"gb": "uk"}
    assert all(target in MARKETS for target in MARKET_ALIASES.values())


# --- configuration ---------------------------------------------------------------------------


UK_TEXT = "NINO AB 12 34 56 C, NHS number 943 476 5919, mail jo@example.com"


def test_a_single_kind_keeps_working() -> None:
    found = violations(governance({"pii": "email"}), UK_TEXT)
    assert [v["matchedText"] for v in found] == ["jo@example.com"]


@pytest.mark.parametrize("pii", ["uk", "gb", ["uk"], ["gb", "uk"], ["uk_nino", "uk_nhs"]])
def test_a_market_enables_its_kinds(pii: Any) -> None:
    found = violations(governance({"pii": pii}), UK_TEXT)
    assert [v["matchedText"] for v in found] == ["AB 12 34 56 C", "943 476 5919"]


def test_a_list_of_markets_and_kinds() -> None:
    text = f"{UK_TEXT}, DNI 12345678Z, SSN 123-45-6789"
    found = violations(governance({"pii": ["uk", "eu", "email"]}), text)
    assert [v["matchedText"] for v in found] == [
        "AB 12 34 56 C",
        "943 476 5919",
        "jo@example.com",
        "12345678Z",
    ]
    every = violations(governance({"pii": ["common", "uk", "eu", "us"]}), text)
    assert "123-45-6789" in [v["matchedText"] for v in every]


def test_each_violation_names_its_kind_in_the_wire_format() -> None:
    """A rule of several kinds: each violation's default explanation and enforcementText say
    which kind it is, and the violation carries exactly the specification's fields."""
    gov = governance({"pii": ["uk", "email"]})
    found = violations(gov, UK_TEXT)
    assert [(v["explanation"], v["enforcementText"]) for v in found] == [
        ("Contains a UK National Insurance number (policy pii).", "[NI number removed]"),
        ("Contains an NHS number (policy pii).", "[NHS number removed]"),
        ("Contains an email address (policy pii).", "[email removed]"),
    ]
    assert all(set(v) == OUTPUT_VIOLATION_FIELDS for v in found)
    stream = gov.client(KEY).check_output_stream(
        {"sessionId": "s", "fullText": UK_TEXT, "lastCheckedOffset": 0, "isFinal": True}
    )
    streamed = stream.model_dump(mode="json", by_alias=True)["newViolations"]
    assert [v["enforcementText"] for v in streamed] == [v["enforcementText"] for v in found]
    assert all(set(v) == STREAM_VIOLATION_FIELDS for v in streamed)


def test_a_rules_own_replacement_and_explanation_apply_to_every_kind() -> None:
    rule = {"pii": "uk", "replacement": "[UK id]", "explanation": "A UK identifier."}
    found = violations(governance(rule), UK_TEXT)
    assert [(v["explanation"], v["enforcementText"]) for v in found] == [
        ("A UK identifier.", "[UK id]"),
        ("A UK identifier.", "[UK id]"),
    ]


def test_two_kinds_of_one_rule_on_the_same_span_are_one_violation() -> None:
    """A validated NHS number written as a phone number is the NHS number's, not a second
    violation of the same policy."""
    found = violations(governance({"pii": ["phone", "uk_nhs"]}), "NHS number 943 476 5919")
    assert [(v["matchedText"], v["enforcementText"]) for v in found] == [
        ("943 476 5919", "[NHS number removed]")
    ]


@pytest.mark.parametrize(
    ("pii", "named"),
    [("uk_nin", "'uk_nin'"), (["uk", "europe"], "'europe'"), ("UK", "'UK'"), ("", "''")],
)
def test_an_unknown_name_is_a_config_error_listing_kinds_and_markets(pii: Any, named: str) -> None:
    with pytest.raises(govcore.ConfigError) as caught:
        governance({"pii": pii})
    message = str(caught.value)
    assert f"unknown PII kind or market {named}" in message
    assert "detect[0].pii" in message
    assert "policy 'pii'" in message
    assert all(kind in message for kind in DETECTORS)
    assert all(market in message for market in MARKETS)
    assert "uk (or gb)" in message


def test_a_close_name_is_suggested() -> None:
    with pytest.raises(govcore.ConfigError, match=r"did you mean 'uk_nino'\?"):
        governance({"pii": "uk_nnio"})


@pytest.mark.parametrize("pii", [[], 5, ["email", 3], {"uk": True}])
def test_a_value_of_the_wrong_shape_is_refused_once(pii: Any) -> None:
    with pytest.raises(govcore.ConfigError) as caught:
        governance({"pii": pii})
    assert str(caught.value).count("detect[0].pii") == 1
    assert "a non-empty list of them" in str(caught.value)
