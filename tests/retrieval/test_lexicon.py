"""Text analysis per tenant (``settings.language``, a tenant's ``language``) and opt-in lexicons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import govcore
import govcore.config
from govcore.backends.hybrid import HybridSettings
from govcore.retrieval.analysis import Analyzer, ignored_words
from govcore.retrieval.lexicon import load_lexicon, shipped_lexicons
from govcore.testing import FakeClock

KEY = "gk_language_test_00001"
OTHER_KEY = "gk_language_test_00002"

RUECKERSTATTUNG = {
    "id": "rueckerstattung",
    "title": "Rückerstattung",
    "summary": "Eine Rückerstattung erfolgt innerhalb von 30 Tagen auf das ursprüngliche Konto.",
    "severity": 3,
    "enforcement": "warning",
    "citationRef": "DE-1",
}
LIEFERUNG = {
    "id": "lieferung",
    "title": "Lieferung",
    "summary": "Keine Zusagen zu Lieferterminen.",
    "severity": 2,
    "enforcement": "warning",
    "citationRef": "DE-2",
}
GERMAN_MESSAGE = "Bekomme ich Rückerstattungen für die beiden Bestellungen?"


def _client(config: dict[str, Any], key: str = KEY) -> govcore.GovernanceClient:
    return govcore.Governance.from_config(config, clock=FakeClock()).client(key)


def _config(settings: dict[str, Any], tenant: dict[str, Any]) -> dict[str, Any]:
    return {
        "settings": settings,
        "tenants": {"de": tenant, "en": {"policies": [{**LIEFERUNG, "id": "delivery"}]}},
        "keys": [{"key": KEY, "tenant": "de"}, {"key": OTHER_KEY, "tenant": "en"}],
    }


def test_german_stems_join_inflected_forms() -> None:
    """A plural meets its singular only with the German stemmer: the English one leaves
    "Rückerstattungen" whole (the near miss that shows the setting is what matters)."""
    policies = {"policies": [RUECKERSTATTUNG, LIEFERUNG]}
    german = _client(_config({"language": "german"}, policies))
    assert "rueckerstattung" in german.explain_selection(GERMAN_MESSAGE).selected
    english = _client(_config({}, policies))
    assert "rueckerstattung" not in english.explain_selection(GERMAN_MESSAGE).selected


def test_a_tenant_chooses_its_own_language() -> None:
    """``tenants.<id>.language`` overrides ``settings.language`` for that tenant only."""
    config = _config({}, {"policies": [RUECKERSTATTUNG, LIEFERUNG], "language": "german"})
    gov = govcore.Governance.from_config(config, clock=FakeClock())
    assert gov.policy_set("de").language == "german"
    assert gov.policy_set("en").language == "english"
    assert "rueckerstattung" in gov.client(KEY).explain_selection(GERMAN_MESSAGE).selected


@pytest.mark.parametrize(
    ("settings", "tenant", "where"),
    [
        ({"language": "klingon"}, {"policies": [LIEFERUNG]}, "settings: language"),
        ({}, {"policies": [LIEFERUNG], "language": "klingon"}, "tenants.de.language"),
        ({}, {"policies": [LIEFERUNG], "langauge": "german"}, "tenants.de.langauge"),
    ],
)
def test_an_unknown_language_is_a_config_error_naming_the_field(
    settings: dict[str, Any], tenant: dict[str, Any], where: str
) -> None:
    with pytest.raises(govcore.ConfigError) as error:
        govcore.Governance.from_config(_config(settings, tenant))
    assert where in str(error.value)


def test_english_ignores_conversation_words_and_stop_words() -> None:
    words = ignored_words("english")
    assert {"the", "thanks", "hello", "please"} <= words
    assert "refund" not in words
    # Languages without a profile ignore nothing: their words are only stemmed.
    assert ignored_words("basque") == frozenset()
    assert "the" in Analyzer(language="basque").term_counts("the thanks")
    assert "the" not in Analyzer(language="english").term_counts("the thanks")


# --- lexicons -------------------------------------------------------------------------------

REFUNDS = {
    "id": "refunds",
    "title": "Refund window",
    "summary": "Refunds within 30 days to the original payment method.",
    "severity": 3,
    "enforcement": "warning",
    "citationRef": "R-1",
}
DISMISSAL = {
    "id": "dismissal",
    "title": "Questions about dismissal",
    "summary": "Refer employees who were dismissed to HR; never discuss the reasons.",
    "severity": 5,
    "enforcement": "fix",
    "citationRef": "HR-4",
}


def _lexicon_config(settings: dict[str, Any]) -> dict[str, Any]:
    return {
        "settings": settings,
        "tenants": {"t": {"policies": [REFUNDS, DISMISSAL]}},
        "keys": [{"key": KEY, "tenant": "t"}],
    }


def test_no_lexicon_is_on_by_default() -> None:
    """Without a lexicon, "money back" is two words, not a refund; with the retail lexicon
    it means one."""
    message = "I just want my money back"
    plain = _client(_lexicon_config({}))
    assert "refunds" not in plain.explain_selection(message).selected
    retail = _client(_lexicon_config({"lexicons": ["retail"]}))
    assert "refunds" in retail.explain_selection(message).selected


def test_a_lexicon_file_relative_to_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "hr.yaml").write_text(yaml.safe_dump({"dismissal": ["got fired", "let go"]}))
    config = _lexicon_config({"lexicons": ["hr.yaml"]})
    path = tmp_path / "govcore.yaml"
    path.write_text(yaml.safe_dump(config))
    client = govcore.Governance.from_config(path, clock=FakeClock()).client(KEY)
    assert client.explain_selection("I got fired on Monday").selected == ["dismissal"]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "neither a shipped lexicon"),
        ("- just\n- a list\n", "mapping of concept"),
        ("refund: money back\n", "must list phrases"),
    ],
)
def test_a_bad_lexicon_is_a_config_error_naming_its_entry(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    if content is not None:
        (tmp_path / "bad.yaml").write_text(content)
    path = tmp_path / "govcore.yaml"
    path.write_text(yaml.safe_dump(_lexicon_config({"lexicons": ["retail", "bad.yaml"]})))
    with pytest.raises(govcore.ConfigError) as error:
        govcore.Governance.from_config(path)
    assert "settings.lexicons[1]" in str(error.value)
    assert reason in str(error.value)


def test_the_retail_lexicon_ships_and_loads() -> None:
    assert "retail" in shipped_lexicons()
    lexicon = load_lexicon("retail")
    assert "money back" in lexicon["refund"]
    assert all(" " not in concept for concept in lexicon)


def test_an_elided_article_does_not_hide_the_word_after_it() -> None:
    """French and Italian glue articles to the next word: "l'adresse" is about an address.
    English possessives and contractions keep their first part."""
    french = Analyzer(language="french").term_counts("Quelle est l'adresse de livraison ?")
    assert french == {"adress": 1, "livraison": 1}
    italian = Analyzer(language="italian").term_counts("lo stato dell'ordine")
    assert "ordin" in italian
    assert "dell" not in italian
    english = Analyzer().term_counts("don't touch the customer's refund, we've said")
    assert english == {"touch": 1, "custom": 1, "refund": 1}


def test_the_embedding_cache_and_a_model_folder_are_relative_to_the_configuration(
    tmp_path: Path,
) -> None:
    (tmp_path / "models" / "mine").mkdir(parents=True)
    path = tmp_path / "govcore.yaml"
    settings = {"embedding_cache_dir": "cache", "semantic_model": "models/mine"}
    path.write_text(yaml.safe_dump(_lexicon_config(settings)))
    loaded = govcore.config.load_config(path).settings.section(HybridSettings)
    assert loaded.embedding_cache_dir == str(tmp_path / "cache")
    assert loaded.semantic_model == str(tmp_path / "models" / "mine")
    # A packaged model's name and "" (no cache) are not paths.
    path.write_text(yaml.safe_dump(_lexicon_config({"embedding_cache_dir": ""})))
    loaded = govcore.config.load_config(path).settings.section(HybridSettings)
    assert loaded.embedding_cache_dir == ""
    assert loaded.semantic_model == "all-MiniLM-L6-v2"
