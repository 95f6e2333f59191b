"""Sentence embeddings of a local model: which engine runs it, and the sentence-transformers one.

:func:`shared_embedder` is what the hybrid retriever calls. It runs a model with the NumPy
engine of ``govcore[semantic]`` (:class:`~govcore.backends.bert_numpy.BertNumpyEmbedder`)
whenever that engine can run it exactly, as it can all-MiniLM-L6-v2. Only a model folder the
NumPy engine refuses (another architecture or pooling) goes to sentence-transformers on
PyTorch (:class:`SentenceTransformerEmbedder`), which the extra does not install: it is used
when it is installed, and named in the error when it is not.

The model is never downloaded (:mod:`govcore.backends.model_files`). PyTorch and
sentence-transformers are imported when a :class:`SentenceTransformerEmbedder` is built,
never with ``govcore``.

The module is not called ``sentence_transformers``: a module named like the package it wraps
shadows that package for any tool that puts this folder on the import path.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from govcore.backends.bert_numpy import BertNumpyEmbedder, unsupported_reason
from govcore.backends.model_files import (
    SHIPPED_MODELS,
    fingerprint,
    model_error,
    model_folder,
)
from govcore.errors import ConfigError, ConfigProblem
from govcore.retrieval.embedding import Embedder

__all__ = [
    "SHIPPED_MODELS",
    "SentenceTransformerEmbedder",
    "fingerprint",
    "model_folder",
    "shared_embedder",
]

SMALL_CALL = 8
"""A call of the embedder with at most this many texts is a turn's query (see
``query_threads``), not a batch of an index being built."""

_ST_INSTALL = "pip install sentence-transformers torch"


class SentenceTransformerEmbedder:
    """An :class:`~govcore.retrieval.embedding.Embedder` running a sentence-transformers model
    in-process, from local files only.

    Args:
        model: a model a Python package ships (see :data:`SHIPPED_MODELS`), or the folder of a
            sentence-transformers model.
        device: the PyTorch device (``"cpu"``; ``"cuda"`` where there is one).
        batch_size: texts per model run when embedding many (index building).
        query_threads: a call with at most :data:`SMALL_CALL` texts (a turn's message and
            context) runs on this many PyTorch threads; ``None`` keeps PyTorch's setting (one
            thread per core). One thread costs about 3 ms more than two on an idle two-core
            machine (about 10 ms against 7 ms for a short message), but two threads that share
            their cores with any other busy thread wait for each other: 70 to 90 ms at the
            median, 200 ms at p90, measured with one other busy process. PyTorch's thread count
            belongs to the calling thread, so this changes nothing for other threads.

    Raises:
        ConfigError: sentence-transformers is not installed (about ``settings.retriever``), or
            the model cannot be found or loaded (about ``settings.semantic_model``).
    """

    def __init__(
        self,
        model: str,
        device: str = "cpu",
        *,
        batch_size: int = 32,
        query_threads: int | None = 1,
    ) -> None:
        if query_threads is not None and query_threads < 1:
            raise ValueError(f"query_threads must be at least 1, not {query_threads}")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                [
                    ConfigProblem(
                        "settings.retriever",
                        f"the sentence-transformers engine needs sentence-transformers and "
                        f"PyTorch ({exc.name or exc} cannot be imported): {_ST_INSTALL}",
                    )
                ]
            ) from None
        folder = model_folder(model)
        try:
            with _quiet_loading():
                loaded = SentenceTransformer(str(folder), device=device, local_files_only=True)
        except (OSError, ValueError, RuntimeError, KeyError) as exc:
            raise model_error(
                f"cannot load the model in {str(folder)!r}: {type(exc).__name__}: {exc}"
            ) from exc
        loaded.eval()
        self._torch: Any = torch
        self._model: Any = loaded
        self._batch_size = batch_size
        self._query_threads = query_threads
        # Fast tokenizers refuse concurrent use from several threads ("Already borrowed"), and
        # two threads sharing the cores run no faster than one after the other.
        self._lock = threading.Lock()
        self.model = model
        self.folder = folder
        dimension = _dimension_of(loaded)
        self._dimension = dimension
        self._identity = (
            f"sentence-transformers:{folder.name}:{fingerprint(folder)}:"
            f"max_seq_length={loaded.max_seq_length}:dimension={dimension}"
        )

    @property
    def identity(self) -> str:
        """The model folder's name and fingerprint, and the settings that change vectors."""
        return self._identity

    @property
    def dimension(self) -> int:
        """The length of the model's sentence vectors (384 for all-MiniLM-L6-v2)."""
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit-length float32 vectors of ``texts``, one row each."""
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        threads = self._query_threads if len(texts) <= SMALL_CALL else None
        with self._lock, self._torch.inference_mode(), _threads(self._torch, threads):
            vectors = self._model.encode(
                list(texts),
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


@functools.lru_cache(maxsize=8)
def shared_embedder(model: str, device: str = "cpu", blas_threads: int | None = 1) -> Embedder:
    """The embedder of ``model``, one per model and device in a process: the retrievers of
    several tenant languages (built from the same settings) share one copy of the model.

    The NumPy engine runs every model it can run exactly, on the CPU; sentence-transformers
    runs the others (and any model on another ``device``), when it is installed.
    ``blas_threads`` is the NumPy engine's setting of the process's BLAS threads (``None``
    leaves them as they are; ``settings.semantic_blas_threads``).

    Raises:
        ConfigError: the model cannot be found, its engine's libraries are not installed (the
            error says what to install), or it cannot be loaded.
    """
    folder = model_folder(model)
    refusal = unsupported_reason(folder)
    if refusal is None and device == "cpu":
        return BertNumpyEmbedder(model, blas_threads=blas_threads)
    if importlib.util.find_spec("sentence_transformers") is None:
        why = refusal if refusal is not None else f"device {device!r} is not the CPU"
        raise model_error(
            f"the NumPy engine of govcore[semantic] cannot run it ({why}); "
            f"sentence-transformers could: {_ST_INSTALL}"
        )
    return SentenceTransformerEmbedder(model, device)


def _dimension_of(model: Any) -> int:
    # Renamed in sentence-transformers 5 (get_sentence_embedding_dimension is deprecated there,
    # and a deprecation warning is an error under the test suite's settings).
    if hasattr(model, "get_embedding_dimension"):
        dimension = model.get_embedding_dimension()
    else:
        dimension = model.get_sentence_embedding_dimension()
    if not isinstance(dimension, int) or dimension <= 0:
        raise model_error("the model does not say the length of its sentence vectors")
    return dimension


@contextlib.contextmanager
def _threads(torch: Any, threads: int | None) -> Iterator[None]:
    """Run the block on ``threads`` PyTorch threads (``None``: as set), then restore."""
    before = torch.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """Load without the transformers library's progress bar ("Loading weights"), which would
    otherwise be printed to the host application's standard error on every start."""
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        yield
        return
    was_enabled = transformers_logging.is_progress_bar_enabled()
    if was_enabled:
        transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()
