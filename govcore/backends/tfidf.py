"""The default retriever: TF-IDF over stemmed words and paraphrase concepts, cosine scoring.

This module is imported with ``govcore``, so it holds only what needs no numeric library:
the retriever's settings and its text analyzer. The algorithm (:class:`TfidfIndex`, NumPy,
SciPy and scikit-learn) lives in :mod:`govcore.retrieval.tfidf_index`, loaded when the first
index is built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from govcore.policy import PolicyDocument
from govcore.retrieval.analysis import DEFAULT_LANGUAGE, Analyzer
from govcore.retrieval.calibration import CalibrationOptions
from govcore.retrieval.lexicon import load_lexicon, merge_lexicons

if TYPE_CHECKING:
    from govcore.retrieval.tfidf_index import TfidfIndex
    from govcore.settings import GovernanceSettings

__all__ = ["DEFAULT_CALIBRATION", "TfidfIndex", "TfidfRetriever", "lexicon_of"]


DEFAULT_CALIBRATION = CalibrationOptions()
"""How a policy set with examples is calibrated unless a retriever is told otherwise."""


class TfidfRetriever:
    """Builds :class:`TfidfIndex` objects, weighted by scikit-learn's :class:`TfidfTransformer`.

    Args:
        min_relevance: the lowest cosine similarity a selected policy may have.
        relative_relevance: a selected policy also scores at least this fraction of the best
            policy's score, so a clear match does not drag weak neighbours in with it. The
            thresholds, ``single_term_factor`` and ``context_weight`` are chosen by
            leave-one-domain-out evaluation on five organisations' policies
            (``benchmarks/retrieval_eval.py``; docs/retrieval.md).
        min_query_terms: a message with fewer terms than this is scored as if the missing
            terms were there and matched nothing (its vector is scaled by
            ``sqrt(terms / min_query_terms)``): a two-word message sharing one word with a
            policy cannot reach a high score on that word alone. Independent of the policy
            set's size, unlike a floor on the norm.
        example_weight: a policy scores at least this fraction of the query's similarity to
            the closest of its ``examples`` phrases.
        max_query_terms: only this many of the query's heaviest terms are scored (the top-K
            agree with scoring every term in over 99% of cases on the benchmark corpus).
        context_weight: how much the recent-context turns count against the current turn.
        synonyms: paraphrase concepts (a lexicon: one-word concept to phrases that mean it).
        field_weights: how much one occurrence of a term counts in the title, in the lead
            (summary, tags and example phrases) and in the body (area and text): a title says
            more about what a policy is for than a sentence deep in its text.
        single_term_factor: the score of a policy that shares only one term with a message
            of several terms is multiplied by this.
        language: the language of text analysis (its stemmer, stop words and conversation
            words); see :func:`govcore.retrieval.analysis.languages`.
        context_discount: with recent context, a policy keeps the better of its score for the
            message alone and this times its score for the message read with its context, so
            that the current message leads and a new subject is not delayed.
        min_matched_idf: a policy whose matched evidence for the message (the summed IDF of
            the message's scored terms it contains, plus ``context_weight`` times the context's
            with context) is below this, or below half the message's own when that is lower,
            scores 0 on its text; its examples still count. An absolute floor, whatever the
            message's length, where the cosine is a share of it. 0 (the default) turns it off:
            held out, it took distractors down in some domains and up in others, with no gain
            in F1 (docs/decisions/selection-calibration.md).
        calibration: how a policy set with examples is calibrated
            (:class:`~govcore.retrieval.calibration.CalibrationOptions`); ``None`` never
            calibrates. A policy set with too few examples is never calibrated either.
    """

    DEFAULT_MIN_RELEVANCE = 0.16
    DEFAULT_RELATIVE_RELEVANCE = 0.7
    DEFAULT_MIN_QUERY_TERMS = 5.0
    DEFAULT_MAX_QUERY_TERMS = 48
    DEFAULT_EXAMPLE_WEIGHT = 0.4
    DEFAULT_SINGLE_TERM_FACTOR = 1.0
    DEFAULT_CONTEXT_WEIGHT = 1.0
    DEFAULT_CONTEXT_DISCOUNT = 1.0
    DEFAULT_MIN_MATCHED_IDF = 0.0

    def __init__(
        self,
        *,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = DEFAULT_RELATIVE_RELEVANCE,
        min_query_terms: float = DEFAULT_MIN_QUERY_TERMS,
        max_query_terms: int = DEFAULT_MAX_QUERY_TERMS,
        example_weight: float = DEFAULT_EXAMPLE_WEIGHT,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
        synonyms: Mapping[str, Sequence[str]] | None = None,
        language: str = DEFAULT_LANGUAGE,
        field_weights: tuple[int, int, int] = (3, 2, 1),
        single_term_factor: float = DEFAULT_SINGLE_TERM_FACTOR,
        context_discount: float = DEFAULT_CONTEXT_DISCOUNT,
        min_matched_idf: float = DEFAULT_MIN_MATCHED_IDF,
        calibration: CalibrationOptions | None = DEFAULT_CALIBRATION,
    ) -> None:
        if len(field_weights) != 3 or min(field_weights) < 0 or max(field_weights) == 0:
            raise ValueError("field_weights are three non-negative counts, not all 0")
        if not 0.0 <= context_discount <= 1.0:
            raise ValueError(f"context_discount must be in [0, 1], not {context_discount}")
        if not min_matched_idf >= 0.0:  # also refuses NaN
            raise ValueError(f"min_matched_idf must be at least 0, not {min_matched_idf}")
        self.context_discount = context_discount
        self.min_matched_idf = min_matched_idf
        self.calibration = calibration
        self.field_weights = tuple(field_weights)
        self.single_term_factor = single_term_factor
        self.min_relevance = min_relevance
        self.relative_relevance = relative_relevance
        self.min_query_terms = min_query_terms
        self.max_query_terms = max_query_terms
        self.example_weight = example_weight
        self.context_weight = context_weight
        self.language = language
        self.analyzer = Analyzer(synonyms, language)

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
        if settings.relative_relevance is not None:
            options["relative_relevance"] = settings.relative_relevance
        return cls(**options)

    def index(self, policies: Sequence[PolicyDocument]) -> TfidfIndex:
        """Count each policy's terms, weight them with scikit-learn, keep them transposed."""
        # Imported here, not at the top: NumPy, SciPy and scikit-learn take most of a second
        # to import, which a program that only imports govcore (or validates a file) never
        # needs to pay.
        from govcore.retrieval.tfidf_index import TfidfScoring, build_index

        title, lead, body = self.field_weights
        scoring = TfidfScoring(
            min_relevance=self.min_relevance,
            relative_relevance=self.relative_relevance,
            min_query_terms=self.min_query_terms,
            max_query_terms=self.max_query_terms,
            example_weight=self.example_weight,
            context_weight=self.context_weight,
            field_weights=(title, lead, body),
            single_term_factor=self.single_term_factor,
            context_discount=self.context_discount,
            min_matched_idf=self.min_matched_idf,
            calibration=self.calibration,
        )
        return build_index(policies, self.analyzer, scoring)


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
