"""The default retriever: TF-IDF over stemmed words and paraphrase concepts, cosine scoring.

This module is imported with ``govcore``, so it holds only what needs no numeric library:
the retriever's settings and text analysis. The index itself (:class:`TfidfIndex`, NumPy,
SciPy and scikit-learn) lives in :mod:`govcore.retrieval.tfidf_index`, loaded when the first
index is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from govcore.policy import PolicyDocument
from govcore.retrieval.analysis import DEFAULT_LANGUAGE, Analyzer
from govcore.retrieval.lexicon import load_lexicon, merge_lexicons

if TYPE_CHECKING:
    from govcore.config import GovernanceSettings
    from govcore.retrieval.tfidf_index import Columns, TfidfIndex

__all__ = ["TfidfIndex", "TfidfRetriever", "lexicon_of"]

# How much each occurrence of a term counts, by the field of the policy it is in: a title or an
# example phrase says more about what a policy is for than a sentence deep in its text.
_TITLE_WEIGHT = 3
_LEAD_WEIGHT = 2  # summary, tags and example phrases
_BODY_WEIGHT = 1  # area and text


class TfidfRetriever:
    """Builds :class:`TfidfIndex` objects, weighted by scikit-learn's :class:`TfidfTransformer`.

    Args:
        min_relevance: the lowest cosine similarity a selected policy may have.
        relative_relevance: a selected policy also scores at least this fraction of the best
            policy's score, so a clear match does not drag weak neighbours in with it. Both
            defaults are calibrated on the labelled evaluation set in ``benchmarks/``.
        query_norm_floor: queries are scaled by ``1 / max(norm, floor)`` rather than
            ``1 / norm``: scores are cosines for ordinary queries, but a two-word message that
            shares one word with a policy cannot reach a high score on that word alone.
        example_weight: a policy scores at least this fraction of the query's similarity to
            the closest of its ``examples`` phrases.
        max_query_terms: only this many of the query's heaviest terms are scored (the top-K
            agree with scoring every term in over 99% of cases on the benchmark corpus).
        context_weight: how much the recent-context turns count against the current turn.
        synonyms: paraphrase concepts (a lexicon: one-word concept to phrases that mean it).
        language: the language of text analysis (its stemmer, stop words and conversation
            words); see :func:`govcore.retrieval.analysis.languages`.
    """

    DEFAULT_MIN_RELEVANCE = 0.12
    DEFAULT_RELATIVE_RELEVANCE = 0.6
    DEFAULT_QUERY_NORM_FLOOR = 8.0
    DEFAULT_MAX_QUERY_TERMS = 48
    DEFAULT_EXAMPLE_WEIGHT = 0.4

    def __init__(
        self,
        *,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = DEFAULT_RELATIVE_RELEVANCE,
        query_norm_floor: float = DEFAULT_QUERY_NORM_FLOOR,
        max_query_terms: int = DEFAULT_MAX_QUERY_TERMS,
        example_weight: float = DEFAULT_EXAMPLE_WEIGHT,
        context_weight: float = 0.5,
        synonyms: Mapping[str, Sequence[str]] | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> None:
        self.min_relevance = min_relevance
        self.relative_relevance = relative_relevance
        self.query_norm_floor = query_norm_floor
        self.max_query_terms = max_query_terms
        self.example_weight = example_weight
        self.context_weight = context_weight
        self.language = language
        self._analyzer = Analyzer(synonyms, language)

    @classmethod
    def from_settings(
        cls, settings: GovernanceSettings, *, language: str | None = None
    ) -> TfidfRetriever:
        """The retriever a configuration asks for: its lexicons, synonyms, minimum relevance
        and language (``language`` overrides ``settings.language``, for one tenant's index)."""
        options: dict[str, Any] = {
            "synonyms": lexicon_of(settings),
            "language": language or settings.language,
        }
        if settings.min_relevance is not None:
            options["min_relevance"] = settings.min_relevance
        return cls(**options)

    def index(self, policies: Sequence[PolicyDocument]) -> TfidfIndex:
        """Count each policy's terms, weight them with scikit-learn, keep them transposed."""
        # Imported here, not at the top: NumPy, SciPy and scikit-learn take most of a second
        # to import, which a program that only imports govcore (or validates a file) never
        # needs to pay.
        from govcore.retrieval.tfidf_index import build_index

        return build_index(self, policies)

    def _policy_terms(self, policy: PolicyDocument) -> dict[str, int]:
        # Fields of equal weight are analysed together: one pass per weight, not per field.
        by_weight = (
            (_TITLE_WEIGHT, policy.title),
            (_LEAD_WEIGHT, "\n".join([policy.summary, *policy.tags, *policy.examples])),
            (_BODY_WEIGHT, f"{policy.area or ''}\n{policy.text}"),
        )
        terms: dict[str, int] = {}
        for weight, text in by_weight:
            self._analyzer.term_counts(text, weight, into=terms)
        return terms

    def _query_weights(
        self, query: str, context: Sequence[str], columns_of: Callable[[str], Columns]
    ) -> dict[int, float]:
        weights: dict[int, float] = {}
        segments = [(query, 1.0)] + [(c, self.context_weight) for c in context]
        for text, weight in segments:
            if weight <= 0.0 or not text:
                continue
            for column, tf in columns_of(text):
                weights[column] = weights.get(column, 0.0) + weight * tf
        return weights


def lexicon_of(settings: GovernanceSettings) -> dict[str, tuple[str, ...]]:
    """The paraphrase lexicon a configuration asks for: ``settings.lexicons`` (in order), then
    ``settings.synonyms``."""
    return merge_lexicons([*(load_lexicon(name) for name in settings.lexicons), settings.synonyms])


def __getattr__(name: str) -> Any:
    """Resolve ``TfidfIndex`` on first access, so importing this module loads no NumPy."""
    if name == "TfidfIndex":
        from govcore.retrieval.tfidf_index import TfidfIndex

        return TfidfIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
