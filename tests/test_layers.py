"""The layers import only downwards: core and detection are pure, nothing imports back up."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "govcore"

# What each layer may not import (module prefixes).
FORBIDDEN = {
    "core": (
        "govcore.service", "govcore.backends", "govcore.http", "govcore.governance",
        "govcore.client", "govcore.decision_log", "govcore.config", "govcore._clock",
        "time", "os", "pathlib", "socket", "threading", "logging", "random", "secrets",
    ),
    "detection": (
        "govcore.core", "govcore.service", "govcore.backends", "govcore.http",
        "govcore.governance", "govcore.client", "time", "os", "pathlib", "threading",
    ),
    "retrieval": (
        "govcore.core", "govcore.service", "govcore.backends", "govcore.http",
        "govcore.governance", "govcore.client",
    ),
    "service": ("govcore.http", "govcore.governance", "govcore.client"),
    "backends": ("govcore.service", "govcore.http", "govcore.governance", "govcore.client"),
}  # fmt: skip
# The only names the core takes from the wire models: type aliases, never a model.
CORE_MAY_TAKE_FROM_MODELS = {"Enforcement"}


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).glob("*.py"))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_nothing_above_it(layer: str) -> None:
    """No module of a layer imports a layer above it, or I/O and clocks where it must be pure."""
    for path in _modules(layer):
        for module, _ in _imports(path):
            for forbidden in FORBIDDEN[layer]:
                above = module == forbidden or module.startswith(forbidden + ".")
                assert not above, f"{path.relative_to(PACKAGE.parent)} imports {module}"


def test_core_builds_no_wire_model() -> None:
    """The core takes only type aliases from the wire models, never a model class."""
    for path in _modules("core"):
        for module, names in _imports(path):
            if module == "govcore.models":
                assert set(names) <= CORE_MAY_TAKE_FROM_MODELS, f"{path.name} imports {names}"


def test_only_the_facade_and_the_command_line_import_the_facade() -> None:
    """Nothing inside govcore imports the facade but the package root, the command line and the
    HTTP service (which, like the command line, sits above it)."""
    allowed = {"__init__.py", "governance.py", "cli.py"}
    for path in PACKAGE.rglob("*.py"):
        if path.name in allowed and path.parent == PACKAGE:
            continue
        if path.parent == PACKAGE / "server":
            continue
        for module, _ in _imports(path):
            assert module != "govcore.governance", f"{path.relative_to(PACKAGE.parent)}"


def test_the_layer_rules_can_fail() -> None:
    """The import scan sees a forbidden import when there is one (the rules are not vacuous)."""
    source = PACKAGE / "service" / "runtime.py"
    assert any(m.startswith("govcore.core") for m, _ in _imports(source))
    assert any(m == "govcore.service.endpoints" for m, _ in _imports(PACKAGE / "http.py"))
