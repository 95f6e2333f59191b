"""Sentence embeddings for retrieval: the :class:`Embedder` interface and its two caches.

Embedding a policy set is the slow part of building a semantic index (about 10 ms a text on
two CPU cores), so policy embeddings are kept on disk, one file per policy set and model,
named by a content hash: a restart or a second process with the same policies and model reads
them back instead of running the model. A query is embedded once per turn; the same text comes
back as ``recentContext`` on the next turns, so query embeddings are also kept in memory.

This module needs NumPy only; the libraries behind an :class:`Embedder` (``tokenizers`` and
``safetensors`` for the NumPy engine in :mod:`govcore.backends.bert_numpy`, PyTorch for
sentence-transformers) are imported by the embedder, so ``import govcore`` loads none of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = [
    "CACHE_FORMAT",
    "UNUSED_CACHE_DAYS",
    "Embedder",
    "EmbeddingCache",
    "QueryEmbeddings",
    "content_key",
    "default_cache_dir",
    "resolve_cache_dir",
]

_log = logging.getLogger("govcore.retrieval")

Vectors = npt.NDArray[np.float32]

CACHE_FORMAT = "govcore-embeddings-1"
"""Part of every cache key: a change of the file format or of how keys are made changes it,
so files written by another govcore version are never read as this one's."""

UNUSED_CACHE_DAYS = 30
"""A cache file neither read nor written for this many days is deleted (when another file is
written to the same folder): every edit of a policy set leaves its old file behind."""

# Only files of this shape are ever read or deleted, so a cache folder shared with anything
# else (or pointed at the wrong place) loses nothing that govcore did not write.
_CACHE_FILE = re.compile(r"[0-9a-f]{64}\.npy")
_TEMP_PREFIX = ".tmp-"
# A row of a cache file is accepted when its length is this close to 1 (rows are unit vectors);
# a flipped bit in a float32 almost always moves it further than that.
_NORM_TOLERANCE = 1e-3


class Embedder(Protocol):
    """Turns texts into unit-length vectors whose dot products are their similarities."""

    @property
    def identity(self) -> str:
        """Names the model and its weights: two embedders with the same identity give the same
        vectors, so it is part of the cache key (a changed model never reads stale vectors)."""
        ...

    @property
    def dimension(self) -> int:
        """The length of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The vectors of ``texts``: float32, shape ``(len(texts), dimension)``, each row of
        L2 norm 1. Must be safe to call from several threads at once."""
        ...


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/govcore/embeddings``, or ``~/.cache/govcore/embeddings``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    # The XDG specification says a relative XDG_CACHE_HOME is invalid and must be ignored.
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "govcore" / "embeddings"


def resolve_cache_dir(setting: str | Path | None) -> Path | None:
    """The folder ``settings.embedding_cache_dir`` names: ``None`` is the default user cache,
    ``""`` is no cache (``None`` returned), anything else a path (``~`` expanded)."""
    if setting is None:
        return default_cache_dir()
    if setting == "":
        return None
    return Path(setting).expanduser()


def content_key(identity: str, texts: Sequence[str]) -> str:
    """SHA-256 (hex) of the embedder identity and the exact texts, in order.

    Each part is length-prefixed, so no two different lists of texts can hash the same input
    (joining with a separator would let ``["a\\nb"]`` and ``["a", "b"]`` collide).
    """
    digest = hashlib.sha256()
    for part in (CACHE_FORMAT, identity, *texts):
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _check(vectors: Vectors, count: int, embedder: Embedder) -> Vectors:
    """The embedder's output as float32, after checking its shape (a wrong shape is a bug in
    the embedder that would otherwise surface as a wrong policy far from its cause)."""
    array = np.ascontiguousarray(vectors, dtype=np.float32)
    if array.shape != (count, embedder.dimension):
        raise ValueError(
            f"embedder {embedder.identity!r} returned shape {array.shape} for {count} texts, "
            f"not ({count}, {embedder.dimension})"
        )
    return array


class EmbeddingCache:
    """Policy-set embeddings on disk: one ``.npy`` file per content hash.

    A file is written to a temporary name and renamed into place (``os.replace``), so a reader
    never sees half a file, and two processes writing the same key write the same bytes. A file
    that does not read back as the expected unit vectors (truncated, corrupt, another shape) is
    recomputed and overwritten, with a warning. A folder that cannot be created or written only
    costs the cache, with a warning: it never stops an index from being built.

    Args:
        directory: where the files live; ``None`` keeps nothing (every call computes).
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def path_of(self, key: str) -> Path | None:
        """The file of ``key`` (whether or not it exists), or ``None`` without a directory."""
        return None if self.directory is None else self.directory / f"{key}.npy"

    def embeddings(self, embedder: Embedder, texts: Sequence[str]) -> Vectors:
        """The vectors of ``texts``: read from the cache, or computed and then stored."""
        key = content_key(embedder.identity, texts)
        cached = self._read(key, (len(texts), embedder.dimension))
        if cached is not None:
            return cached
        vectors = _check(embedder.embed(texts), len(texts), embedder) if texts else None
        if vectors is None:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        self._write(key, vectors)
        return vectors

    def _read(self, key: str, shape: tuple[int, int]) -> Vectors | None:
        path = self.path_of(key)
        if path is None or not path.exists():
            return None
        try:
            loaded = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            _log.warning("embedding cache file %s is unreadable (%s); recomputing it", path, exc)
            return None
        if not isinstance(loaded, np.ndarray) or loaded.dtype != np.float32:
            _log.warning("embedding cache file %s holds no float32 array; recomputing it", path)
            return None
        if loaded.shape != shape:
            _log.warning(
                "embedding cache file %s has shape %s, not %s; recomputing it",
                path,
                loaded.shape,
                shape,
            )
            return None
        norms = np.linalg.norm(loaded, axis=1) if len(loaded) else np.ones(0)
        if not np.all(np.abs(norms - 1.0) <= _NORM_TOLERANCE):
            _log.warning("embedding cache file %s holds damaged vectors; recomputing it", path)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # marks it as used, for the clean-up of unused files
        return np.ascontiguousarray(loaded)

    def _write(self, key: str, vectors: Vectors) -> None:
        path = self.path_of(key)
        if path is None:
            return
        directory = path.parent
        temporary: str | None = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=".npy", dir=directory)
            with os.fdopen(handle, "wb") as file:
                np.save(file, vectors, allow_pickle=False)
            # No fsync: after a crash a torn file fails validation and is recomputed, which is
            # cheaper over time than syncing every write.
            os.replace(temporary, path)
            temporary = None
            self._remove_unused(path)
        except OSError as exc:
            _log.warning("cannot write the embedding cache file %s (%s); not cached", path, exc)
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)

    def _remove_unused(self, written: Path) -> None:
        """Delete this cache's files unused for :data:`UNUSED_CACHE_DAYS`, and temporary files
        a crashed writer left behind for over a day.

        The file just written gives "now" on the file system's own clock, so no clock is read.
        """
        now = written.stat().st_mtime
        for entry in os.scandir(written.parent):
            if _CACHE_FILE.fullmatch(entry.name):
                limit = UNUSED_CACHE_DAYS * 86_400.0
            elif entry.name.startswith(_TEMP_PREFIX):
                limit = 86_400.0
            else:
                continue
            try:
                if now - entry.stat().st_mtime > limit:
                    os.unlink(entry.path)
            except OSError:
                continue  # another process removed it first, or it is not ours to remove


class QueryEmbeddings:
    """The embeddings of recent query texts, least recently used first out.

    A turn's message comes back as ``recentContext`` on the next few turns; keeping its vector
    saves a model run for each of them. Thread-safe.

    Args:
        embedder: computes the vectors of texts not kept.
        capacity: how many texts are kept (a 384-float vector is 1.5 KiB).
    """

    def __init__(self, embedder: Embedder, capacity: int = 1024) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._kept: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The vectors of ``texts`` (shape ``(len(texts), dimension)``); the texts not kept are
        embedded together, in one call of the embedder."""
        rows: list[Vectors | None] = []
        with self._lock:
            for text in texts:
                row = self._kept.get(text)
                if row is not None:
                    self._kept.move_to_end(text)
                rows.append(row)
        missing = list(dict.fromkeys(t for t, row in zip(texts, rows, strict=True) if row is None))
        if missing:
            # The model runs outside the lock: other threads' cache hits need not wait for it.
            computed = _check(self._embedder.embed(missing), len(missing), self._embedder)
            fresh = {text: row.copy() for text, row in zip(missing, computed, strict=True)}
            with self._lock:
                for text, row in fresh.items():
                    self._kept[text] = row
                    self._kept.move_to_end(text)
                while len(self._kept) > self._capacity:
                    self._kept.popitem(last=False)
            rows = [fresh[t] if row is None else row for t, row in zip(texts, rows, strict=True)]
        if not rows:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        return np.stack([row for row in rows if row is not None])
