"""The testing kit's public names: complete, sorted, documented, and listed in docs/testing.md."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType

import pytest

import govcore.testing
from govcore.policy import PII_KINDS
from govcore.testing import strategies

DOCS = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


@pytest.mark.parametrize("module", [govcore.testing, strategies], ids=lambda m: m.__name__)
def test_all_is_complete(module: ModuleType) -> None:
    """Every public function, class and constant of the module is in __all__ (which ruff's
    RUF022 keeps sorted: constants, then classes, then functions)."""
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and getattr(value, "__module__", module.__name__).startswith(module.__name__)
        and name != "annotations"
    }
    assert public - set(module.__all__) == set()
    for name in module.__all__:
        assert hasattr(module, name), name


def test_every_strategy_is_documented_in_code_and_on_the_testing_page() -> None:
    """Each function and class of the strategies has a docstring (with Args: when it takes
    any), and docs/testing.md names every public name of the module."""
    page = DOCS.read_text(encoding="utf-8")
    for name in strategies.__all__:
        value = getattr(strategies, name)
        if inspect.isfunction(value):
            assert value.__doc__, name
            if inspect.signature(value).parameters:
                assert "Args:" in value.__doc__, name
        elif inspect.isclass(value):
            assert value.__doc__, name
        assert f"`{name}" in page, f"docs/testing.md does not name {name}"


def test_the_kit_plants_every_pii_kind_govcore_has() -> None:
    """The strategies know every built-in pii kind: a kind added to govcore needs its generator
    here before this passes."""
    assert set(strategies.PII_KINDS) == set(PII_KINDS)
