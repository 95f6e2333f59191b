"""Text analysis for retrieval: words, stop words, stems and paraphrase concepts."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources

import Stemmer

__all__ = [
    "DEFAULT_LANGUAGE",
    "Analyzer",
    "bounded_window",
    "ignored_words",
    "languages",
    "profiled_languages",
    "words_of",
]

# Letters and digits, any script; an apostrophe may join two parts ("don't", "customer's").
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# The same for ASCII text, as one byte-translation pass: letters lower-cased, digits and
# apostrophes kept, everything else a space. Several times faster than the pattern.
_ASCII_WORD_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57 or c == 39) else 32
    for c in range(256)
)


def words_of(text: str) -> list[str]:
    """The lower-cased words of ``text``."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()
    return _WORD.findall(text.lower())


_CACHE_LIMIT = 200_000
_WordEntry = tuple[str, bool, tuple[str, ...], bool]

DEFAULT_LANGUAGE = "english"


def languages() -> list[str]:
    """The languages text analysis supports: every Snowball stemmer's (``settings.language``)."""
    return [name for name in Stemmer.algorithms() if name != "porter"]


def profiled_languages() -> list[str]:
    """The languages govcore ships stop words and conversation words for."""
    folder = resources.files("govcore.retrieval.languages")
    return sorted(e.name.removesuffix(".txt") for e in folder.iterdir() if e.name.endswith(".txt"))


@functools.cache
def ignored_words(language: str) -> frozenset[str]:
    """The words of ``language`` that never become retrieval terms.

    Its stop words, the words of conversation itself (greetings, thanks, filler, generic verbs:
    they carry no policy subject) and contraction stubs, from the language's profile in
    ``govcore/retrieval/languages/``; English also takes scikit-learn's stop-word list. A
    language without a profile has none: its words are only stemmed, and IDF discounts the
    common ones.
    """
    words: set[str] = set()
    if language == DEFAULT_LANGUAGE:
        # Imported here, not at the top: importing scikit-learn takes most of a second and
        # ``import govcore`` must not pay it.
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        words |= ENGLISH_STOP_WORDS
    # The Porter variant of Dutch stemming shares the Dutch profile.
    profile_name = "dutch" if language == "dutch_porter" else language
    profile = resources.files("govcore.retrieval.languages").joinpath(f"{profile_name}.txt")
    if profile.is_file():
        for line in profile.read_text("utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("["):
                words.update(w.lower() for w in line.split())
    return frozenset(words)


def bounded_window(text: str, limit: int) -> str:
    """The first and last ``limit`` characters of ``text`` (all of it when shorter).

    Retrieval reads a long turn through this window so that its cost does not grow with the
    turn's length; the opening and the end of a message are where its subject usually is.
    """
    if len(text) <= 2 * limit:
        return text
    return f"{text[:limit]}\n{text[-limit:]}"


class Analyzer:
    """Turns text into retrieval terms with counts.

    Lower-cased words become their Snowball stems (in ``language``), with the language's
    ignored words (:func:`ignored_words`) and bare numbers dropped; and wherever a phrase of
    ``synonyms`` (a lexicon: concept to phrases) occurs, the term of its concept is added, so
    that with a retail lexicon "money back" also yields "refund". What each distinct word
    yields is cached, and the text is walked word by word only when it holds a word that may
    start a phrase.

    Raises:
        ValueError: an unknown language, or a synonym concept or phrase that is not words.
    """

    def __init__(
        self,
        synonyms: Mapping[str, Sequence[str]] | None = None,
        language: str = DEFAULT_LANGUAGE,
        stop_words: Iterable[str] | None = None,
    ) -> None:
        if language not in languages():
            raise ValueError(f"unknown language {language!r} (one of: {', '.join(languages())})")
        self.language = language
        self._stemmer = Stemmer.Stemmer(language)
        self._stop_words = ignored_words(language) if stop_words is None else frozenset(stop_words)
        # word -> (stem, kept as a term, concept terms a single word stands for, whether its
        # stem starts a phrase)
        self._words: dict[str, _WordEntry] = {}
        self._single: dict[str, list[str]] = {}
        # first stem -> second stem -> [(the remaining stems, concept)]
        self._phrases: dict[str, dict[str, list[tuple[tuple[str, ...], str]]]] = {}
        for concept, phrases in (synonyms or {}).items():
            concept_terms = [self._stem(w) for w in words_of(concept)]
            if len(concept_terms) != 1:
                raise ValueError(f"synonym concept {concept!r} must be one word")
            concept_term = concept_terms[0]
            for phrase in phrases:
                stems = tuple(self._stem(w) for w in words_of(phrase))
                if not stems:
                    raise ValueError(f"synonym phrase {phrase!r} of {concept!r} has no words")
                if len(stems) > 1:
                    by_second = self._phrases.setdefault(stems[0], {})
                    by_second.setdefault(stems[1], []).append((stems[2:], concept_term))
                elif stems[0] != concept_term:
                    concepts = self._single.setdefault(stems[0], [])
                    if concept_term not in concepts:
                        concepts.append(concept_term)

    def term_counts(
        self, text: str, weight: int = 1, into: dict[str, int] | None = None
    ) -> dict[str, int]:
        """The retrieval terms of ``text`` with how often each occurs, times ``weight``.

        With ``into``, the counts are added to that dictionary, which is returned.
        """
        words = words_of(text)
        terms: dict[str, int] = {} if into is None else into
        known = self._words
        counts = Counter(words)
        starts: set[str] = set()
        for word, count in counts.items():
            entry = known.get(word) or self._learn(word)
            if entry[1]:
                stem = entry[0]
                terms[stem] = terms.get(stem, 0) + count * weight
            if entry[2]:
                for concept in entry[2]:
                    terms[concept] = terms.get(concept, 0) + count * weight
            if entry[3]:
                starts.add(word)
        if starts:
            candidates = [i for i, word in enumerate(words) if word in starts]
            self._add_phrases(words, candidates, terms, weight)
        return terms

    def _add_phrases(
        self, words: list[str], candidates: list[int], terms: dict[str, int], weight: int
    ) -> None:
        known = self._words
        last = len(words) - 1
        for index in candidates:
            if index == last:
                continue
            # Looked up again rather than indexed: another thread may have started a new cache
            # since this text's words were learned.
            start = known.get(words[index]) or self._learn(words[index])
            by_second = self._phrases.get(start[0])
            if by_second is None:
                continue
            following = known.get(words[index + 1]) or self._learn(words[index + 1])
            matches = by_second.get(following[0])
            if matches is None:
                continue
            for rest, concept in matches:
                end = index + 2 + len(rest)
                if end > len(words):
                    continue
                if all(
                    (known.get(word) or self._learn(word))[0] == stem
                    for word, stem in zip(words[index + 2 : end], rest, strict=True)
                ):
                    terms[concept] = terms.get(concept, 0) + weight

    def _stem(self, word: str) -> str:
        return str(self._stemmer.stemWord(self._base(word)))

    def _base(self, word: str) -> str:
        """The part of a word with an apostrophe that carries its meaning: the part before it
        ("customer's", "don't" -> "don"), unless that part is an ignored word and the part
        after is a word of its own: an elided article or preposition ("l'adresse",
        "dell'ordine" -> "adresse", "ordine")."""
        head, _, tail = word.strip("'").partition("'")
        if len(tail) > 2 and head in self._stop_words:
            return tail
        return head

    def _learn(self, word: str) -> _WordEntry:
        if len(self._words) >= _CACHE_LIMIT:
            # A new dictionary rather than clear(): threads reading the old one carry on safely.
            self._words = {}
        base = self._base(word)
        stem = str(self._stemmer.stemWord(base))
        kept = len(base) > 1 and base not in self._stop_words and not base.isdigit()
        entry = (stem, kept, tuple(self._single.get(stem, ())), stem in self._phrases)
        self._words[word] = entry
        return entry
