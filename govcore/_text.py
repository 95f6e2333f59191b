"""Text analysis for retrieval: words, stop words, stems and paraphrase concepts."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from govcore._lexicon import BUILTIN_SYNONYMS

__all__ = ["Analyzer", "bounded_window"]

# Letters and digits, any script; an apostrophe inside a word ("don't") is dropped.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_CACHE_LIMIT = 200_000
# Words of conversation itself (greetings, thanks, filler, generic verbs and praise): they
# carry no policy subject, yet in a small policy set their IDF is high enough for "tell me a
# joke" to match a policy that happens to say "tell".
CONVERSATION_WORDS = frozenset(
    [
        "hi",
        "hello",
        "hey",
        "hiya",
        "bye",
        "goodbye",
        "morning",
        "afternoon",
        "evening",
        "night",
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "thanks",
        "thank",
        "thx",
        "cheers",
        "please",
        "pls",
        "ok",
        "okay",
        "okey",
        "yes",
        "yeah",
        "yep",
        "yup",
        "no",
        "nope",
        "nah",
        "sure",
        "maybe",
        "perhaps",
        "lol",
        "haha",
        "hahaha",
        "hmm",
        "um",
        "uh",
        "oh",
        "wow",
        "cool",
        "great",
        "good",
        "nice",
        "fine",
        "perfect",
        "awesome",
        "amazing",
        "lovely",
        "brilliant",
        "excellent",
        "fantastic",
        "wonderful",
        "terrific",
        "super",
        "best",
        "better",
        "worse",
        "bad",
        "love",
        "like",
        "likes",
        "liked",
        "loving",
        "hope",
        "hoping",
        "hoped",
        "wish",
        "want",
        "wants",
        "wanted",
        "wanting",
        "need",
        "needs",
        "needed",
        "know",
        "knows",
        "knew",
        "think",
        "thinks",
        "thought",
        "guess",
        "feel",
        "feels",
        "felt",
        "tell",
        "tells",
        "told",
        "say",
        "says",
        "said",
        "ask",
        "asks",
        "asked",
        "let",
        "lets",
        "make",
        "makes",
        "made",
        "try",
        "tries",
        "tried",
        "look",
        "looks",
        "looking",
        "looked",
        "really",
        "actually",
        "honestly",
        "basically",
        "literally",
        "just",
        "anyway",
        "anyways",
        "well",
        "also",
        "still",
        "pretty",
        "quite",
        "thing",
        "things",
        "stuff",
        "bit",
        "lot",
        "lots",
        "way",
        "kind",
        "sort",
        "day",
        "days",
        "time",
        "times",
        "question",
        "questions",
        "help",
        "helps",
        "helped",
        "helpful",
        "wondering",
        "wonder",
        "quick",
        "quickly",
        "soon",
        "right",
        "okay-ish",
        "glad",
        "happy",
        "sorry",
        "appreciate",
        "appreciated",
    ]
)
# What is left of negated contractions once the apostrophe part is cut off.
_CONTRACTION_BASES = frozenset(
    [
        "don",
        "doesn",
        "didn",
        "isn",
        "aren",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "shouldn",
        "couldn",
        "can",
        "haven",
        "hasn",
        "hadn",
        "mustn",
        "shan",
        "ain",
        "let",
    ]
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
    """Turns text into retrieval terms.

    Lower-cased words become their Snowball stems, stop words and bare numbers dropped; and
    wherever a phrase of the synonym lexicon occurs, the term of its concept is added, so that
    "money back" also yields "refund". Results for each distinct word are cached.
    """

    def __init__(
        self,
        synonyms: Mapping[str, Sequence[str]] = BUILTIN_SYNONYMS,
        stop_words: Iterable[str] = ENGLISH_STOP_WORDS,
    ) -> None:
        self._stemmer = snowballstemmer.stemmer("english")
        self._stop_words = frozenset(stop_words) | _CONTRACTION_BASES | CONVERSATION_WORDS
        # word -> (stem, kept as a term, concept terms a single word stands for)
        self._words: dict[str, tuple[str, bool, tuple[str, ...]]] = {}
        self._single: dict[str, list[str]] = {}
        self._phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for concept, phrases in synonyms.items():
            concept_terms = [self._stem(w) for w in _WORD.findall(concept.lower())]
            if len(concept_terms) != 1:
                raise ValueError(f"synonym concept {concept!r} must be one word")
            concept_term = concept_terms[0]
            for phrase in phrases:
                stems = tuple(self._stem(w) for w in _WORD.findall(phrase.lower()))
                if not stems:
                    raise ValueError(f"synonym phrase {phrase!r} of {concept!r} has no words")
                if len(stems) == 1:
                    if stems[0] != concept_term and concept_term not in self._single.get(
                        stems[0], []
                    ):
                        self._single.setdefault(stems[0], []).append(concept_term)
                else:
                    self._phrases.setdefault(stems[0], []).append((stems, concept_term))
        self._phrase_starts = frozenset(self._phrases)

    def terms(self, text: str) -> list[str]:
        """The retrieval terms of ``text``, in order, with repeats."""
        words = self._words
        stems: list[str] = []
        terms: list[str] = []
        for word in _WORD.findall(text.lower()):
            entry = words.get(word)
            if entry is None:
                entry = self._learn(word)
            stem, kept, concepts = entry
            stems.append(stem)
            if kept:
                terms.append(stem)
            if concepts:
                terms.extend(concepts)
        if self._phrase_starts.isdisjoint(stems):
            return terms
        phrases = self._phrases
        for index, stem in enumerate(stems):
            candidates = phrases.get(stem)
            if candidates is None:
                continue
            for phrase, concept in candidates:
                if tuple(stems[index : index + len(phrase)]) == phrase:
                    terms.append(concept)
        return terms

    def _stem(self, word: str) -> str:
        return str(self._stemmer.stemWord(word.split("'", 1)[0]))

    def _learn(self, word: str) -> tuple[str, bool, tuple[str, ...]]:
        if len(self._words) >= _CACHE_LIMIT:
            self._words.clear()
        base = word.split("'", 1)[0]  # "don't" -> "don", "customer's" -> "customer"
        stem = self._stem(base)
        kept = len(base) > 1 and base not in self._stop_words and not base.isdigit()
        entry = (stem, kept, tuple(self._single.get(stem, ())))
        self._words[word] = entry
        return entry
