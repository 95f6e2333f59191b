"""The embedding caches, with a small deterministic embedder (no model, no extra needed)."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from govcore.retrieval.embedding import (
    UNUSED_CACHE_DAYS,
    EmbeddingCache,
    QueryEmbeddings,
    content_key,
    default_cache_dir,
    resolve_cache_dir,
)


class HashEmbedder:
    """Unit vectors drawn from a hash of each text; counts what it is asked to embed."""

    def __init__(self, identity: str = "hash-8", dimension: int = 8) -> None:
        self.identity = identity
        self.dimension = dimension
        self.produced = dimension  # the length of the vectors it returns (a bug when different)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(list(texts))
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(f"{self.identity}:{text}".encode()).digest()[:8])
            row = np.random.default_rng(seed).standard_normal(self.produced)
            rows.append(row / np.linalg.norm(row))
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.produced)

    @property
    def texts_embedded(self) -> int:
        return sum(len(call) for call in self.calls)


TEXTS = ["refunds within thirty days", "no card numbers in chat", "delivery estimates"]


def test_a_second_cache_of_the_same_folder_reads_instead_of_computing(tmp_path: Path) -> None:
    """Vectors written by one cache are read back, equal, by another: the model is not run."""
    first, second = HashEmbedder(), HashEmbedder()
    written = EmbeddingCache(tmp_path).embeddings(first, TEXTS)
    read = EmbeddingCache(tmp_path).embeddings(second, TEXTS)
    assert first.texts_embedded == 3
    assert second.texts_embedded == 0
    np.testing.assert_array_equal(read, written)
    assert [p.name for p in tmp_path.iterdir()] == [f"{content_key('hash-8', TEXTS)}.npy"]


def test_the_key_covers_the_identity_and_every_text_exactly() -> None:
    """Another model, another text, another order or another split of the texts is another key."""
    key = content_key("m", ["a b", "c"])
    assert content_key("m", ["a b", "c"]) == key
    others = [
        content_key("n", ["a b", "c"]),
        content_key("m", ["a b", "c "]),
        content_key("m", ["c", "a b"]),
        content_key("m", ["a", "b", "c"]),
        content_key("m", ["a b\nc"]),
    ]
    assert len({key, *others}) == 6


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:100]), id="truncated"),
        pytest.param(lambda p: p.write_bytes(b"not a numpy file at all"), id="garbage"),
        pytest.param(lambda p: np.save(p, np.ones((3, 8), np.float64)), id="float64"),
        pytest.param(lambda p: np.save(p, np.ones((2, 8), np.float32)), id="shape"),
        pytest.param(lambda p: np.save(p, np.full((3, 8), 0.9, np.float32)), id="not-unit"),
        pytest.param(lambda p: np.save(p, np.array(["x"] * 3)), id="strings"),
    ],
)
def test_a_damaged_file_is_recomputed_and_overwritten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    """A truncated, corrupt or mis-shaped file gives the right vectors, a warning, and a good
    file for the next reader; never an exception."""
    embedder = HashEmbedder()
    expected = EmbeddingCache(tmp_path).embeddings(embedder, TEXTS)
    (path,) = tmp_path.iterdir()
    damage(path)  # type: ignore[operator]
    with caplog.at_level(logging.WARNING, logger="govcore.retrieval"):
        again = EmbeddingCache(tmp_path).embeddings(embedder, TEXTS)
    np.testing.assert_array_equal(again, expected)
    assert embedder.texts_embedded == 6
    assert any("recomputing" in record.getMessage() for record in caplog.records)
    np.testing.assert_array_equal(np.load(path), expected)


def test_no_directory_keeps_nothing(tmp_path: Path) -> None:
    """A cache without a folder computes every time and writes no file."""
    embedder = HashEmbedder()
    cache = EmbeddingCache(None)
    cache.embeddings(embedder, TEXTS)
    cache.embeddings(embedder, TEXTS)
    assert embedder.texts_embedded == 6
    assert cache.path_of("0" * 64) is None


def test_an_unwritable_folder_costs_only_the_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A cache folder that cannot be created (a file is in the way) is a warning, not an error."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    embedder = HashEmbedder()
    with caplog.at_level(logging.WARNING, logger="govcore.retrieval"):
        vectors = EmbeddingCache(blocker / "embeddings").embeddings(embedder, TEXTS)
    assert vectors.shape == (3, 8)
    assert any("not cached" in record.getMessage() for record in caplog.records)


def test_files_unused_for_long_are_removed_when_another_is_written(tmp_path: Path) -> None:
    """An old cache file and an old temporary file go; a recent one, and files that are not
    the cache's, stay."""
    embedder = HashEmbedder()
    cache = EmbeddingCache(tmp_path)
    cache.embeddings(embedder, ["old policy set"])
    (old,) = tmp_path.iterdir()
    recent = tmp_path / f"{'a' * 64}.npy"
    recent.write_bytes(b"")
    stale_temp = tmp_path / ".tmp-crashed.npy"
    stale_temp.write_bytes(b"")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not ours")
    long_ago = old.stat().st_mtime - (UNUSED_CACHE_DAYS + 1) * 86_400
    for path in (old, stale_temp, foreign):
        os.utime(path, (long_ago, long_ago))
    cache.embeddings(embedder, ["new policy set"])
    left = {p.name for p in tmp_path.iterdir()}
    assert old.name not in left
    assert stale_temp.name not in left
    assert {recent.name, foreign.name} <= left
    assert len(left) == 3


def test_reading_a_file_marks_it_used(tmp_path: Path) -> None:
    """A cache file read back gets a fresh modification time, so it is not removed as unused."""
    embedder = HashEmbedder()
    EmbeddingCache(tmp_path).embeddings(embedder, TEXTS)
    (path,) = tmp_path.iterdir()
    long_ago = path.stat().st_mtime - (UNUSED_CACHE_DAYS + 1) * 86_400
    os.utime(path, (long_ago, long_ago))
    EmbeddingCache(tmp_path).embeddings(embedder, TEXTS)
    assert path.stat().st_mtime > long_ago + 86_400


def test_the_default_folder_follows_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``None`` is $XDG_CACHE_HOME/govcore/embeddings (or ~/.cache/...), ``""`` is no cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert resolve_cache_dir(None) == tmp_path / "govcore" / "embeddings"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    assert default_cache_dir() == Path.home() / ".cache" / "govcore" / "embeddings"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == Path.home() / ".cache" / "govcore" / "embeddings"
    assert resolve_cache_dir("") is None
    assert resolve_cache_dir(str(tmp_path / "x")) == tmp_path / "x"


def test_query_embeddings_are_kept_and_evicted_least_recent_first() -> None:
    """A text seen again is not embedded again; past the capacity the oldest use goes first;
    the texts not kept are embedded in one call."""
    embedder = HashEmbedder()
    queries = QueryEmbeddings(embedder, capacity=2)
    first = queries.embed(["a", "b"])
    assert embedder.calls == [["a", "b"]]
    np.testing.assert_array_equal(queries.embed(["b", "a"]), first[::-1])
    assert embedder.calls == [["a", "b"]]
    queries.embed(["c", "a", "c"])  # "b" is now the least recently used
    assert embedder.calls[-1] == ["c"]
    assert len(queries) == 2
    queries.embed(["b"])
    assert embedder.calls[-1] == ["b"]
    assert queries.embed([]).shape == (0, 8)


def test_an_embedder_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    """Vectors of another length than the embedder declares are a ValueError, not cached."""
    embedder = HashEmbedder()
    embedder.dimension = 9
    with pytest.raises(ValueError, match=r"shape \(3, 8\)"):
        EmbeddingCache(tmp_path).embeddings(embedder, TEXTS)
    assert list(tmp_path.iterdir()) == []


def test_importing_govcore_and_the_hybrid_module_loads_no_model_library() -> None:
    """Neither ``import govcore`` nor importing the hybrid retriever's module imports an
    engine's libraries (tokenizers, safetensors, threadpoolctl; PyTorch, transformers,
    sentence-transformers): only building an embedder does."""
    from tests.test_import import _loaded_after

    watched = (
        "tokenizers",
        "safetensors",
        "threadpoolctl",
        "torch",
        "transformers",
        "sentence_transformers",
    )
    assert _loaded_after("import govcore, govcore.backends", watched) == []
    assert _loaded_after("import govcore.backends.hybrid", watched) == []
