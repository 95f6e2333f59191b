"""The shipped language profiles (``govcore/retrieval/languages/<language>.txt``).

A profile lists the words of a language that never become retrieval terms: its function words
(``[stop words]``) and the words of conversation itself (``[conversation]``). These tests read
the files with their own parser, not analysis.py's, so that a format the loader silently
misreads is caught here.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from importlib import resources

import pytest
import Stemmer

from govcore.retrieval.analysis import Analyzer, ignored_words, profiled_languages, words_of

PROFILED = ("german", "french", "spanish", "italian", "portuguese", "dutch")
SECTIONS = {"stop words": 150, "conversation": 80}  # section -> the fewest words it may hold

_SECTION = re.compile(r"\[([a-z ]+)\]")


def _profile_text(language: str) -> str:
    folder = resources.files("govcore.retrieval.languages")
    return folder.joinpath(f"{language}.txt").read_text("utf-8")


def _sections(language: str) -> dict[str, list[str]]:
    """Section name -> its words in file order (duplicates kept, for the tests to find)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, raw in enumerate(_profile_text(language).splitlines(), start=1):
        line = raw.partition("#")[0].strip()
        if not line:
            continue
        header = _SECTION.fullmatch(line)
        if header:
            assert header[1] not in sections, f"{language}.txt:{number}: [{header[1]}] repeated"
            current = sections[header[1]] = []
            continue
        assert "[" not in line, f"{language}.txt:{number}: {line!r}"
        assert "]" not in line, f"{language}.txt:{number}: {line!r}"
        assert current is not None, f"{language}.txt:{number}: words before any [section]"
        current.extend(line.split())
    return sections


def _words(language: str) -> list[str]:
    return [word for words in _sections(language).values() for word in words]


def _stems(language: str, words: str) -> list[str]:
    stemmer = Stemmer.Stemmer(language)
    return [stemmer.stemWord(word) for word in words.split()]


def test_the_six_languages_are_shipped_under_their_stemmer_names() -> None:
    shipped = profiled_languages()
    assert set(PROFILED) <= set(shipped)
    assert set(shipped) <= set(Stemmer.algorithms())


@pytest.mark.parametrize("language", profiled_languages())
def test_a_profile_is_lower_case_single_words(language: str) -> None:
    words = _words(language)
    assert words
    assert [w for w in words if w != w.lower()] == []
    assert [w for w in words if not unicodedata.is_normalized("NFC", w)] == []
    # Each word must be one token as the tokenizer produces it, or it could never match.
    assert [w for w in words if words_of(w) != [w]] == []
    assert set(words) <= ignored_words(language)


@pytest.mark.parametrize("language", PROFILED)
def test_a_profile_has_stop_words_and_conversation_words_each_listed_once(language: str) -> None:
    sections = _sections(language)
    assert set(sections) == set(SECTIONS)
    assert [w for w, n in Counter(_words(language)).items() if n > 1] == []
    for section, fewest in SECTIONS.items():
        assert len(sections[section]) >= fewest, (language, section, len(sections[section]))
    # Letters only: an elided form is listed as its part before the apostrophe ("qu", "dell").
    assert [w for w in _words(language) if not w.isalpha()] == []
    # Without English's code-side list, what the loader reads is exactly the file.
    assert ignored_words(language) == frozenset(_words(language))


@pytest.mark.parametrize(
    ("language", "message", "kept", "dropped"),
    [
        (
            "german",
            "Hallo, ich möchte bitte wissen, wann meine Lieferung endlich kommt. Danke!",
            "Lieferung",
            "hallo ich möchte bitte wissen wann meine danke",
        ),
        (
            "french",
            "Bonjour, pourriez-vous me dire quand ma commande sera livrée ? Merci",
            "commande livrée",
            "bonjour pourriez vous me dire quand ma sera merci",
        ),
        (
            "french",
            "Qu'est-ce que je dois faire aujourd'hui pour être remboursé ?",
            "remboursé",
            # "qu'est" is checked as "qu", "aujourd'hui" as "aujourd".
            "qu ce que je dois faire aujourd pour être",
        ),
        (
            "spanish",
            "Hola, quiero saber cuándo llega mi pedido, ¿me puedes ayudar? Gracias",
            "pedido",
            "hola quiero saber cuándo mi me puedes ayudar gracias",
        ),
        (
            "italian",
            "Buongiorno, vorrei sapere quando arriva il mio ordine e lo stato dell'ordine, grazie",
            "ordine stato",
            "buongiorno vorrei sapere quando il mio lo dell grazie",
        ),
        (
            "portuguese",
            "Olá, gostaria de saber quando chega a minha encomenda, pode me ajudar? Obrigado",
            "encomenda",
            "olá gostaria de saber quando minha pode me ajudar obrigado",
        ),
        (
            "dutch",
            "Hallo, ik wil graag weten wanneer mijn bestelling komt, kunnen jullie helpen? Bedankt",
            "bestelling",
            "hallo ik wil graag weten wanneer mijn kunnen jullie helpen bedankt",
        ),
    ],
)
def test_a_customer_message_keeps_its_subject_and_drops_the_rest(
    language: str, message: str, kept: str, dropped: str
) -> None:
    terms = Analyzer(language=language).term_counts(message)
    unprofiled = Analyzer(language=language, stop_words=()).term_counts(message)
    for stem in _stems(language, kept.lower()):
        assert stem in terms
    for stem in _stems(language, dropped):
        # The near miss: without the profile the word would have been a term.
        assert stem in unprofiled, stem
        assert stem not in terms, stem


@pytest.mark.parametrize(
    ("language", "content_words"),
    [
        ("german", "rückerstattung lieferung rechnung konto kündigung tagen"),
        ("french", "remboursement livraison compte facture commande bon"),
        ("spanish", "reembolso envío cuenta factura pedido vale estado"),
        ("italian", "rimborso spedizione conto fattura ordine stato buono"),
        ("portuguese", "reembolso entrega conta fatura encomenda legal estado dias"),
        ("dutch", "terugbetaling levering rekening factuur bestelling bon dagen"),
    ],
)
def test_content_words_are_not_in_a_profile(language: str, content_words: str) -> None:
    """Words that carry a policy subject stay terms, including the ones that look like
    conversation ("bon", "vale", "legal") or like a function word ("estado", "stato")."""
    assert set(content_words.split()) & ignored_words(language) == set()
