"""A BERT sentence-transformers model's forward pass in NumPy: the engine of ``govcore[semantic]``.

The semantic retriever needs one small encoder (all-MiniLM-L6-v2: 6 layers, 22.7 million
parameters). Running it needs none of PyTorch: the weights are read from the folder's
``model.safetensors`` with ``safetensors``, texts are tokenised with ``tokenizers`` from its
``tokenizer.json``, and the rest is a dozen matrix products a layer in float32. The vectors
equal sentence-transformers' within 3e-7 on 40 varied texts (``tests/backends/test_bert_numpy.py``
checks them, to 1e-5, against vectors sentence-transformers computed); the libraries take tens
of megabytes instead of about a gigabyte (``docs/decisions/semantic-retrieval.md``).

The engine runs exactly one kind of model, and refuses any other with the reason (see
:func:`unsupported_reason`): a BERT encoder (``BertModel``, absolute positions, exact GELU),
followed by mean pooling (and L2 normalisation, which every embedder applies). Anything else
(another architecture, CLS or max pooling, a Dense layer, a prompt) would give other vectors
than the model's authors meant, so :func:`~govcore.backends.sentence_embedding.shared_embedder`
leaves such a folder to sentence-transformers.

``safetensors``, ``tokenizers``, ``threadpoolctl`` and SciPy are imported when the first
embedder is built, never with ``govcore``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from govcore.backends.model_files import EXTRA_INSTALL, fingerprint, model_error, model_folder
from govcore.errors import ConfigError, ConfigProblem

__all__ = ["BertNumpyEmbedder", "unsupported_reason"]

Floats = npt.NDArray[np.float32]

BATCH_TOKENS = 4096
"""A batch of texts (index building) holds at most this many tokens, padding included. The
attention scores of a batch take ``heads * BATCH_TOKENS * length`` floats: 48 MiB for 256-token
texts with 12 heads, and a batch of short texts is still dozens of texts."""

# The modules of a sentence-transformers folder this engine runs, by the last part of the
# class name in modules.json (the package moved them between releases: models.Transformer,
# sentence_transformer.modules.Transformer, base.modules.transformer.Transformer).
_TRANSFORMER, _POOLING, _NORMALIZE = "Transformer", "Pooling", "Normalize"

_POOLING_MODES_OFF = (
    "pooling_mode_cls_token",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


@dataclass(frozen=True, slots=True)
class _Architecture:
    """What the engine reads from a model folder's configuration files."""

    layers: int
    heads: int
    hidden: int
    max_positions: int
    layer_norm_eps: float
    max_seq_length: int
    weights: Path
    tokenizer: Path


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer's weights, transposed once so that every product is ``x @ w``."""

    qkv: Floats  # (hidden, 3 * hidden): query, key and value in one product
    qkv_bias: Floats
    attention_out: Floats
    attention_out_bias: Floats
    attention_norm: tuple[Floats, Floats]
    intermediate: Floats
    intermediate_bias: Floats
    output: Floats
    output_bias: Floats
    output_norm: tuple[Floats, Floats]


def unsupported_reason(folder: Path) -> str | None:
    """Why this engine cannot run the model in ``folder`` exactly, or ``None`` when it can."""
    try:
        _architecture(folder)
    except _UnsupportedModelError as refusal:
        return str(refusal)
    return None


class BertNumpyEmbedder:
    """An :class:`~govcore.retrieval.embedding.Embedder` computing a BERT sentence-transformers
    model in NumPy (float32), from local files only.

    Texts are tokenised with the model's special tokens and truncated to its
    ``max_seq_length`` (``sentence_bert_config.json``), as sentence-transformers does. Many texts
    are embedded in batches of texts of similar length, padded and masked, so that a text's
    vector does not depend on the texts beside it (beyond float rounding, under 1e-6).

    Thread-safe: the weights are only read, and the tokenizer, which the ``tokenizers``
    library does not let two threads use at once, is behind a lock held only while tokenising.
    Concurrent calls run side by side, each on the thread that made it; one call runs on one
    core.

    OpenBLAS, which NumPy's wheels bring, runs a product on one thread per core by default,
    and its threads wait for each other whenever another thread or process keeps a core busy,
    the ordinary state of a server. Measured on two cores shared with other work (load
    average 5 to 8): a 14-token message took 72 ms at the median and 329 ms at p95 on two
    BLAS threads, 14 and 19 ms on one; 300 texts of an index 59 to 94 s on two, 7 to 9 s on
    one. So the engine sets BLAS to ``blas_threads`` (one) when it is built. That setting
    belongs to the whole process (OpenBLAS has one), and is not put back after each call:
    switching to one thread for each call and back after it made four threads embedding 144
    short texts at once take 78 s, against 1.8 s with one thread set once. The host's own
    NumPy and SciPy work then runs on one BLAS thread too; ``blas_threads=None`` leaves the
    setting alone.

    Args:
        model: a model a Python package ships (``all-MiniLM-L6-v2``), or the folder of a
            sentence-transformers model.
        blas_threads: the number of BLAS threads of the process, set when the engine is built
            (``None``: leave it as it is).

    Raises:
        ConfigError: ``safetensors`` or ``tokenizers`` is not installed (about
            ``settings.retriever``), or the model cannot be found or is not one this engine
            runs exactly (about ``settings.semantic_model``, with the reason).
    """

    def __init__(self, model: str, *, blas_threads: int | None = 1) -> None:
        if blas_threads is not None and blas_threads < 1:
            raise ValueError(f"blas_threads must be at least 1, not {blas_threads}")
        try:
            import scipy.special
            from safetensors.numpy import load_file
            from threadpoolctl import ThreadpoolController
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(
                [
                    ConfigProblem(
                        "settings.retriever",
                        f"the semantic retriever needs safetensors, tokenizers and threadpoolctl "
                        f"({exc.name or exc} cannot be imported): {EXTRA_INSTALL}",
                    )
                ]
            ) from None
        folder = model_folder(model)
        try:
            architecture = _architecture(folder)
        except _UnsupportedModelError as refusal:
            raise model_error(str(refusal)) from None
        try:
            weights = load_file(str(architecture.weights))
            tokenizer = Tokenizer.from_file(str(architecture.tokenizer))
        except Exception as exc:  # the libraries raise their own types for a damaged file
            raise model_error(
                f"cannot read the model in {str(folder)!r}: {type(exc).__name__}: {exc}"
            ) from exc
        # The tokenizer.json of a sentence-transformers folder often says "pad to 128, truncate
        # at 128" (what the tokenizer was trained with); sentence-transformers overrides both
        # with max_seq_length and no padding, and so does this engine.
        tokenizer.enable_truncation(architecture.max_seq_length)
        tokenizer.no_padding()
        self._erf: Callable[[Floats], Floats] = scipy.special.erf
        if blas_threads is not None:
            # Applied now and for good: the limiter is dropped without restoring (see above).
            ThreadpoolController().limit(limits=blas_threads, user_api="blas")
        self._tokenizer: Any = tokenizer
        self._tokenizer_lock = threading.Lock()
        self._architecture = architecture
        self._load(weights, folder)
        self.model = model
        self.folder = folder
        self._identity = (
            f"bert-numpy:{folder.name}:{fingerprint(folder)}:"
            f"max_seq_length={architecture.max_seq_length}:dimension={architecture.hidden}"
        )

    @property
    def identity(self) -> str:
        """The engine, the model folder's name and fingerprint, and the settings that change
        vectors."""
        return self._identity

    @property
    def dimension(self) -> int:
        """The length of the model's sentence vectors (384 for all-MiniLM-L6-v2)."""
        return self._architecture.hidden

    @property
    def max_seq_length(self) -> int:
        """Tokens read of a text (special tokens included); the rest is cut off."""
        return self._architecture.max_seq_length

    def embed(self, texts: Sequence[str]) -> Floats:
        """Unit-length float32 vectors of ``texts``, one row each."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        with self._tokenizer_lock:
            encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=True)
        ids = [np.asarray(encoding.ids, dtype=np.int64) for encoding in encodings]
        for batch in _batches([len(row) for row in ids]):
            out[batch] = self._sentences([ids[i] for i in batch])
        return out

    # --- the model -------------------------------------------------------------------------

    def _load(self, weights: dict[str, npt.NDArray[Any]], folder: Path) -> None:
        architecture = self._architecture

        def weight(name: str, shape: tuple[int, ...]) -> Floats:
            array = weights.get(name)
            if array is None:
                raise model_error(f"{folder.name}/model.safetensors has no weight {name!r}")
            if array.shape != shape:
                raise model_error(
                    f"{folder.name}/model.safetensors: {name!r} has shape {array.shape}, "
                    f"not {shape} as config.json implies"
                )
            return np.ascontiguousarray(array, dtype=np.float32)

        hidden = architecture.hidden
        word = weights.get("embeddings.word_embeddings.weight")
        if word is None or word.ndim != 2 or word.shape[1] != hidden:
            raise model_error(f"{folder.name}/model.safetensors has no word embeddings of {hidden}")
        self._word = np.ascontiguousarray(word, dtype=np.float32)
        self._positions = weight(
            "embeddings.position_embeddings.weight", (architecture.max_positions, hidden)
        )
        # Single texts are all segment 0 (sentence-transformers passes no token_type_ids, and
        # the model then uses zeros).
        types = weights.get("embeddings.token_type_embeddings.weight")
        if types is None or types.ndim != 2 or types.shape[1] != hidden:
            raise model_error(f"{folder.name}/model.safetensors has no token type embeddings")
        self._segment = np.ascontiguousarray(types[0], dtype=np.float32)
        self._embedding_norm = (
            weight("embeddings.LayerNorm.weight", (hidden,)),
            weight("embeddings.LayerNorm.bias", (hidden,)),
        )
        layers = []
        for n in range(architecture.layers):
            p = f"encoder.layer.{n}."
            intermediate = weights.get(p + "intermediate.dense.weight")
            width = intermediate.shape[0] if intermediate is not None else 0
            parts = ("query", "key", "value")
            layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(
                        np.concatenate(
                            [
                                weight(f"{p}attention.self.{q}.weight", (hidden, hidden))
                                for q in parts
                            ]
                        ).T
                    ),
                    qkv_bias=np.concatenate(
                        [weight(f"{p}attention.self.{q}.bias", (hidden,)) for q in parts]
                    ),
                    attention_out=np.ascontiguousarray(
                        weight(p + "attention.output.dense.weight", (hidden, hidden)).T
                    ),
                    attention_out_bias=weight(p + "attention.output.dense.bias", (hidden,)),
                    attention_norm=(
                        weight(p + "attention.output.LayerNorm.weight", (hidden,)),
                        weight(p + "attention.output.LayerNorm.bias", (hidden,)),
                    ),
                    intermediate=np.ascontiguousarray(
                        weight(p + "intermediate.dense.weight", (width, hidden)).T
                    ),
                    intermediate_bias=weight(p + "intermediate.dense.bias", (width,)),
                    output=np.ascontiguousarray(
                        weight(p + "output.dense.weight", (hidden, width)).T
                    ),
                    output_bias=weight(p + "output.dense.bias", (hidden,)),
                    output_norm=(
                        weight(p + "output.LayerNorm.weight", (hidden,)),
                        weight(p + "output.LayerNorm.bias", (hidden,)),
                    ),
                )
            )
        self._layers = tuple(layers)

    def _sentences(self, ids: list[npt.NDArray[np.int64]]) -> Floats:
        """The sentence vectors of a batch of token id rows (padded here to the longest)."""
        architecture = self._architecture
        count, length = len(ids), max(len(row) for row in ids)
        tokens = np.zeros((count, length), dtype=np.int64)
        mask = np.zeros((count, length), dtype=np.float32)
        for i, row in enumerate(ids):
            tokens[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        x = self._word[tokens] + self._positions[:length] + self._segment
        x = self._layer_norm(x, self._embedding_norm)
        # Padded keys get -inf before the softmax: exp(-inf) is exactly 0, so a padded text's
        # real tokens attend to the same keys with the same weights as when it is alone.
        key_bias = np.where(mask > 0, np.float32(0.0), np.float32(-np.inf))[:, None, None, :]
        heads, hidden = architecture.heads, architecture.hidden
        size = hidden // heads
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in self._layers:
            qkv = x @ layer.qkv + layer.qkv_bias  # (count, length, 3 * hidden)
            qkv = qkv.reshape(count, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
            query, key, value = qkv[0], qkv[1], qkv[2]  # (count, heads, length, size)
            scores = (query @ key.transpose(0, 1, 3, 2)) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ value).transpose(0, 2, 1, 3).reshape(count, length, hidden)
            attended = context @ layer.attention_out + layer.attention_out_bias
            x = self._layer_norm(attended + x, layer.attention_norm)
            inner = x @ layer.intermediate + layer.intermediate_bias
            inner = self._gelu(inner)
            x = self._layer_norm(inner @ layer.output + layer.output_bias + x, layer.output_norm)
        # Mean pooling over the real tokens (sentence-transformers' Pooling, mean mode).
        summed = np.einsum("bl,blh->bh", mask, x)
        pooled: Floats = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        # Unit length whether or not the folder has a Normalize module: the Embedder protocol
        # asks for it, and the sentence-transformers route normalises too. As
        # torch.nn.functional.normalize: x / max(||x||, 1e-12).
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        pooled = pooled / np.maximum(norms, np.float32(1e-12))
        return pooled.astype(np.float32, copy=False)

    def _layer_norm(self, x: Floats, norm: tuple[Floats, Floats]) -> Floats:
        weight, bias = norm
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = np.mean(centred * centred, axis=-1, keepdims=True)
        eps = np.float32(self._architecture.layer_norm_eps)
        normalised: Floats = centred / np.sqrt(variance + eps) * weight + bias
        return normalised

    def _gelu(self, x: Floats) -> Floats:
        # The exact GELU of BERT's "gelu" (PyTorch's default), not the tanh approximation.
        result: Floats = np.float32(0.5) * x * (np.float32(1.0) + self._erf(x * _SQRT_HALF))
        return result


_SQRT_HALF = np.float32(np.sqrt(0.5))


def _batches(lengths: Sequence[int]) -> list[list[int]]:
    """The positions of the texts grouped into batches of similar length, longest first.

    A batch holds at most :data:`BATCH_TOKENS` tokens once padded, and no text shorter than
    three quarters of its first (longest) one, so that padding costs at most a third more work.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current:
            longest = lengths[current[0]]
            if (len(current) + 1) * longest > BATCH_TOKENS or 4 * lengths[i] < 3 * longest:
                batches.append(current)
                current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


class _UnsupportedModelError(Exception):
    """A model folder this engine cannot run exactly; the message says why."""


def _architecture(folder: Path) -> _Architecture:
    """The numbers of the model in ``folder``, after checking it is one this engine runs.

    Raises:
        _UnsupportedModelError: a file is missing or unreadable, or the model is of another kind.
    """
    modules = _json(folder, "modules.json")
    if not all(isinstance(m, dict) for m in modules):
        raise _UnsupportedModelError(f"{folder.name}/modules.json is not a list of modules")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]) or not all(
        str(m.get("type", "")).startswith("sentence_transformers.") for m in modules
    ):
        found = ", ".join(str(m.get("type")) for m in modules)
        raise _UnsupportedModelError(
            f"the model's modules ({found}) are not a Transformer, a Pooling and optionally a "
            "Normalize module of sentence-transformers"
        )
    transformer = folder / str(modules[0].get("path", ""))
    pooling = folder / str(modules[1].get("path", ""))

    config = _json(transformer, "config.json")
    architectures = config.get("architectures") or ["BertModel"]
    if config.get("model_type") != "bert" or architectures != ["BertModel"]:
        raise _UnsupportedModelError(
            f"config.json describes a {config.get('model_type')!r} model "
            f"({', '.join(map(str, architectures))}), and this engine runs BertModel only"
        )
    checks = {
        "hidden_act": ("gelu", "exact GELU"),
        "position_embedding_type": ("absolute", "absolute position embeddings"),
        "is_decoder": (False, "an encoder"),
        "add_cross_attention": (False, "no cross-attention"),
    }
    for key, (expected, meaning) in checks.items():
        value = config.get(key, expected)
        if value != expected:
            raise _UnsupportedModelError(
                f"config.json has {key}={value!r}; this engine runs {meaning} only"
            )
    numbers = {}
    for key in (
        "num_hidden_layers",
        "num_attention_heads",
        "hidden_size",
        "max_position_embeddings",
    ):
        value = config.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise _UnsupportedModelError(f"config.json has no positive integer {key}")
        numbers[key] = value
    if numbers["hidden_size"] % numbers["num_attention_heads"]:
        raise _UnsupportedModelError(
            "config.json's hidden_size is not a multiple of num_attention_heads"
        )
    eps = config.get("layer_norm_eps", 1e-12)
    if not isinstance(eps, int | float) or isinstance(eps, bool) or not eps > 0:
        raise _UnsupportedModelError(
            f"config.json has layer_norm_eps={eps!r}, not a positive number"
        )

    sentence = _json(transformer, "sentence_bert_config.json")
    max_seq_length = sentence.get("max_seq_length")
    if not isinstance(max_seq_length, int) or max_seq_length < 2:
        raise _UnsupportedModelError(
            "sentence_bert_config.json has no max_seq_length of at least 2"
        )
    if sentence.get("do_lower_case", False):
        raise _UnsupportedModelError(
            "sentence_bert_config.json asks for do_lower_case, which is not run"
        )
    # sentence-transformers caps the length at the model's position table.
    max_seq_length = min(max_seq_length, numbers["max_position_embeddings"])

    pool = _json(pooling, "config.json")
    if pool.get("pooling_mode_mean_tokens") is not True or any(
        pool.get(mode) for mode in _POOLING_MODES_OFF
    ):
        raise _UnsupportedModelError(
            f"{pooling.name}/config.json asks for a pooling other than mean pooling alone"
        )
    if pool.get("include_prompt", True) is not True:
        raise _UnsupportedModelError(
            f"{pooling.name}/config.json leaves the prompt out of the pooling"
        )
    dimension = pool.get("word_embedding_dimension", numbers["hidden_size"])
    if dimension != numbers["hidden_size"]:
        raise _UnsupportedModelError(
            f"{pooling.name}/config.json pools {dimension} dimensions, the model has "
            f"{numbers['hidden_size']}"
        )

    if (folder / "config_sentence_transformers.json").is_file():
        options = _json(folder, "config_sentence_transformers.json")
        if options.get("default_prompt_name") or options.get("similarity_fn_name") not in (
            None,
            "cosine",
        ):
            raise _UnsupportedModelError(
                "config_sentence_transformers.json sets a default prompt or a similarity other "
                "than cosine"
            )

    for name in ("model.safetensors", "tokenizer.json"):
        if not (transformer / name).is_file():
            raise _UnsupportedModelError(f"the model folder has no {name}")
    return _Architecture(
        layers=numbers["num_hidden_layers"],
        heads=numbers["num_attention_heads"],
        hidden=numbers["hidden_size"],
        max_positions=numbers["max_position_embeddings"],
        layer_norm_eps=float(eps),
        max_seq_length=max_seq_length,
        weights=transformer / "model.safetensors",
        tokenizer=transformer / "tokenizer.json",
    )


def _json(folder: Path, name: str) -> Any:
    """The parsed JSON file ``name`` of ``folder``: a list for ``modules.json``, else a mapping."""
    path = folder / name
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _UnsupportedModelError(
            f"the model folder has no {path.relative_to(path.parents[1])}"
        ) from None
    except (OSError, ValueError) as exc:
        raise _UnsupportedModelError(f"cannot read {path.name}: {exc}") from None
    if not isinstance(value, list if name == "modules.json" else dict):
        raise _UnsupportedModelError(
            f"{path.name} holds no JSON {'list' if name == 'modules.json' else 'object'}"
        )
    return value
