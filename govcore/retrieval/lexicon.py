"""Paraphrase lexicons: opt-in data files of everyday phrasings for a domain's concepts.

Customers rarely use a policy's own words: in a shop, "can I get my money back" is about refunds.
A lexicon maps a one-word concept to phrases that mean it; the retrieval analyzer adds the
concept's term wherever one of those phrases occurs, in policies and in messages alike, so the
two meet. Phrases are matched on word stems ("sending it back" matches "send it back").

No lexicon is on by default: a lexicon is domain knowledge, and phrases that mean a concept in
one business misfire in another ("got fired" is an HR matter, not a fire). A configuration opts
in with ``settings.lexicons`` (a shipped lexicon's name, such as ``retail``, or a YAML file of
its own) and can add concepts with ``settings.synonyms``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["Lexicon", "load_lexicon", "merge_lexicons", "shipped_lexicons"]

Lexicon = Mapping[str, tuple[str, ...]]
"""A concept (one word) to the phrases that mean it."""

_PACKAGE = "govcore.retrieval.lexicons"


def shipped_lexicons() -> list[str]:
    """The names of the lexicons govcore ships (``retail``, ...)."""
    folder = resources.files(_PACKAGE)
    return sorted(
        entry.name.removesuffix(".yaml")
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml")
    )


def load_lexicon(name_or_path: str) -> dict[str, tuple[str, ...]]:
    """Read a shipped lexicon by name, or a lexicon file by path.

    Raises:
        ValueError: the name is neither shipped nor a readable file, or the file is not a
            mapping of concept to a list of phrases.
    """
    if name_or_path in shipped_lexicons():
        text = resources.files(_PACKAGE).joinpath(f"{name_or_path}.yaml").read_text("utf-8")
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(
                f"{name_or_path!r} is neither a shipped lexicon "
                f"({', '.join(shipped_lexicons())}) nor a file"
            )
        text = path.read_text("utf-8")
    import yaml  # loaded on first use only, like every reader of YAML in govcore

    return _validated(yaml.safe_load(text))


def _validated(raw: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise ValueError("a lexicon is a mapping of concept to a list of phrases")
    lexicon: dict[str, tuple[str, ...]] = {}
    for concept, phrases in raw.items():
        if not isinstance(concept, str) or not concept.strip():
            raise ValueError(f"lexicon concept {concept!r} is not a word")
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise ValueError(f"lexicon concept {concept!r} must list phrases (strings)")
        lexicon[concept] = tuple(phrases)
    return lexicon


def merge_lexicons(lexicons: Iterable[Mapping[str, Sequence[str]]]) -> dict[str, tuple[str, ...]]:
    """One lexicon holding every concept of ``lexicons``; a concept's phrases are pooled."""
    merged: dict[str, tuple[str, ...]] = {}
    for lexicon in lexicons:
        for concept, phrases in lexicon.items():
            merged[concept] = (*merged.get(concept, ()), *phrases)
    return merged
