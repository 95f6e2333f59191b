"""Text analysis for retrieval: words, stop words, stems and paraphrase concepts."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import Stemmer

from govcore.retrieval.lexicon import BUILTIN_SYNONYMS

__all__ = ["CONVERSATION_WORDS", "Analyzer", "bounded_window", "words_of"]

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

# Words of conversation itself (greetings, thanks, filler, generic verbs and praise): they
# carry no policy subject, yet in a small policy set their IDF is high enough for "tell me a
# joke" to match a policy that happens to say "tell".
CONVERSATION_WORDS = frozenset(
    """
    hi hello hey hiya bye goodbye morning afternoon evening night today tonight tomorrow
    yesterday thanks thank thx cheers please pls ok okay okey yes yeah yep yup no nope nah sure
    maybe perhaps lol haha hahaha hmm um uh oh wow cool great good nice fine perfect awesome
    amazing lovely brilliant excellent fantastic wonderful terrific super best better worse bad
    love like likes liked loving hope hoping hoped wish want wants wanted wanting need needs
    needed know knows knew think thinks thought guess feel feels felt tell tells told say says
    said ask asks asked let lets make makes made try tries tried look looks looking looked
    really actually honestly basically literally just anyway anyways well also still pretty
    quite thing things stuff bit lot lots way kind sort day days time times question questions
    help helps helped helpful wondering wonder quick quickly soon right glad happy sorry
    appreciate appreciated does did doing done
    """.split()
)
# What is left of negated contractions once the part after the apostrophe is cut off.
_CONTRACTION_BASES = frozenset(
    "don doesn didn isn aren wasn weren won wouldn shouldn couldn can haven hasn hadn mustn "
    "shan ain let".split()
)


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

    Lower-cased words become their Snowball stems, stop words and bare numbers dropped; and
    wherever a phrase of the synonym lexicon occurs, the term of its concept is added, so that
    "money back" also yields "refund". What each distinct word yields is cached, and the text is
    walked word by word only when it holds a word that may start a phrase.

    ``stop_words`` defaults to scikit-learn's English list, which is then imported (only
    then: see the import inside ``__init__``).
    """

    def __init__(
        self,
        synonyms: Mapping[str, Sequence[str]] = BUILTIN_SYNONYMS,
        stop_words: Iterable[str] | None = None,
    ) -> None:
        if stop_words is None:
            # scikit-learn's English list; imported here, not at the top, because importing
            # scikit-learn takes most of a second and ``import govcore`` must not pay it.
            from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

            stop_words = ENGLISH_STOP_WORDS
        self._stemmer = Stemmer.Stemmer("english")
        self._stop_words = frozenset(stop_words) | _CONTRACTION_BASES | CONVERSATION_WORDS
        # word -> (stem, kept as a term, concept terms a single word stands for, whether its
        # stem starts a phrase)
        self._words: dict[str, _WordEntry] = {}
        self._single: dict[str, list[str]] = {}
        # first stem -> second stem -> [(the remaining stems, concept)]
        self._phrases: dict[str, dict[str, list[tuple[tuple[str, ...], str]]]] = {}
        for concept, phrases in synonyms.items():
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
        return str(self._stemmer.stemWord(word.strip("'").split("'", 1)[0]))

    def _learn(self, word: str) -> _WordEntry:
        if len(self._words) >= _CACHE_LIMIT:
            # A new dictionary rather than clear(): threads reading the old one carry on safely.
            self._words = {}
        base = word.strip("'").split("'", 1)[0]  # "don't" -> "don", "customer's" -> "customer"
        stem = self._stem(base)
        kept = len(base) > 1 and base not in self._stop_words and not base.isdigit()
        entry = (stem, kept, tuple(self._single.get(stem, ())), stem in self._phrases)
        self._words[word] = entry
        return entry
