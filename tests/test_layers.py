"""govcore's modules form layers that import only downwards, with no import cycle.

Every module of the package is placed in exactly one layer of :data:`LAYERS` (lowest first) and
may import only modules of its own layer or of layers below it. Every import counts: at module
level, inside functions, and under ``TYPE_CHECKING`` (a type a module needs is a dependency of its
design). docs/architecture.md draws the same list.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "govcore"

# The layers, lowest first: (name, module prefixes). A module belongs to the layer of its longest
# matching prefix; "govcore" alone is the package root, govcore/__init__.py.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("primitives", (
        "govcore._version", "govcore.errors", "govcore._values", "govcore._suggest",
        "govcore._clock", "govcore.pattern_cost", "govcore.text_rules", "govcore.jsonable",
    )),
    ("policy format", ("govcore.policy", "govcore.pii_markets", "govcore.types")),
    ("detection", ("govcore.detection",)),
    ("retrieval", ("govcore.retrieval",)),
    ("core", ("govcore.core",)),
    ("wire models", ("govcore.models", "govcore.verdicts")),
    ("settings", ("govcore.settings",)),
    ("decision log", ("govcore.decision_log",)),
    ("backends", ("govcore.backends",)),
    ("configuration", ("govcore.config",)),
    ("telemetry", ("govcore.telemetry",)),
    ("service", ("govcore.service",)),
    ("facade", (
        "govcore.client", "govcore.http", "govcore.governance", "govcore.stream_guard",
        "govcore.openapi", "govcore.tool_gate",
    )),
    ("package", ("govcore", "govcore.decisions")),
    ("integrations", ("govcore.integrations",)),
    ("applications", (
        "govcore.server", "govcore.cli", "govcore.__main__", "govcore.explanation_text",
        "govcore.policy_tests", "govcore.shadow_report",
    )),
    ("testing kit", ("govcore.testing",)),
]  # fmt: skip

# What the pure layers may not import at all: clocks, threads, the file system, randomness.
IMPURE = ("time", "os", "pathlib", "socket", "threading", "logging", "random", "secrets")
PURE_LAYERS = {"core": (*IMPURE, "govcore._clock"), "detection": IMPURE}


def module_name(path: Path) -> str:
    """The dotted name of a module file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the layer ``module`` belongs to."""
    best, best_length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or (prefix != "govcore" and module.startswith(prefix + "."))
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def _absolute(node: ast.ImportFrom, module: str) -> str:
    """The module an ``import from`` names, relative imports resolved against ``module``."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".")
    is_package = MODULES[module].name == "__init__.py"
    base = package[: len(package) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


@cache
def imports_of(module: str) -> tuple[str, ...]:
    """Every module ``module`` imports, anywhere in its source. ``from package import name``
    counts as importing ``package.name`` when that is a module of govcore, else ``package``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append(submodule if submodule in MODULES else source)
    return tuple(dict.fromkeys(found))


def _internal_imports(module: str) -> Iterator[str]:
    return (name for name in imports_of(module) if name in MODULES)


def test_every_module_has_a_layer() -> None:
    """Each module of the package, root modules and subpackages alike, is in a layer."""
    assert len(MODULES) > 50, "the scan found the package's modules"
    homeless = [module for module in MODULES if layer_of(module) < 0]
    assert homeless == [], f"add these modules to a layer of LAYERS: {homeless}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_nothing_above_its_layer(module: str) -> None:
    """A module imports only its own layer and the layers below it."""
    own = layer_of(module)
    above = [
        f"{name} ({LAYERS[layer_of(name)][0]})"
        for name in _internal_imports(module)
        if layer_of(name) > own
    ]
    assert above == [], f"{module} ({LAYERS[own][0]}) imports from above: {above}"


@pytest.mark.parametrize("layer", sorted(PURE_LAYERS))
def test_pure_layers_touch_no_clock_thread_or_file(layer: str) -> None:
    """The core and detection read no clock, start no thread and touch no file or socket."""
    index = next(i for i, (name, _) in enumerate(LAYERS) if name == layer)
    for module in (m for m in MODULES if layer_of(m) == index):
        for name in imports_of(module):
            for forbidden in PURE_LAYERS[layer]:
                assert not name.startswith(forbidden + "."), f"{module} imports {name}"
                assert name != forbidden, f"{module} imports {name}"


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    graph = {module: sorted(set(_internal_imports(module)) - {module}) for module in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return components


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or through others, type-only imports included."""
    assert _cycles() == []


WIRE_MODELS = frozenset(
    node.name
    for node in ast.walk(ast.parse(MODULES["govcore.models"].read_text(encoding="utf-8")))
    if isinstance(node, ast.ClassDef)
)


def wire_model_calls(tree: ast.AST) -> list[str]:
    """The calls in ``tree`` that build a wire model: a model class imported from
    ``govcore.models`` called by name, or called through the module (``models.TurnDiff(...)``)."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "govcore.models":
            names |= {a.asname or a.name for a in node.names if a.name in WIRE_MODELS}
        elif isinstance(node, ast.ImportFrom) and node.module == "govcore":
            modules |= {a.asname or a.name for a in node.names if a.name == "models"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name == "govcore.models" and a.asname}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in names:
            found.append(f"{node.lineno} {func.id}")
        elif (
            isinstance(func, ast.Attribute)
            and func.attr in WIRE_MODELS
            and isinstance(func.value, ast.Name)
            and func.value.id in modules
        ):
            found.append(f"{node.lineno} {func.value.id}.{func.attr}")
    return found


def test_only_the_wire_module_builds_wire_models() -> None:
    """The wire models are built in one place, ``service/wire.py``: no other module of the
    package calls a model class of ``govcore.models`` (requests are parsed, with
    ``model_validate``, never built)."""
    builders = [
        f"{module}:{call}"
        for module, path in MODULES.items()
        if module not in {"govcore.models", "govcore.service.wire"}
        for call in wire_model_calls(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert builders == []


def test_the_rules_can_fail() -> None:
    """The scan sees imports of every kind, so the rules above are not vacuous: a relative
    import, an import under TYPE_CHECKING and one inside a function are all found."""
    source = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from . import wire\n"
        "if TYPE_CHECKING:\n    from govcore.governance import Governance\n"
        "def f():\n    import govcore.cli\n"
    )
    nodes = [n for n in ast.walk(source) if isinstance(n, ast.Import | ast.ImportFrom)]
    relative = next(n for n in nodes if isinstance(n, ast.ImportFrom) and n.level == 1)
    assert _absolute(relative, "govcore.service.checks") == "govcore.service"
    assert layer_of("govcore.service.checks") < layer_of("govcore.governance")
    assert layer_of("govcore.core.verdict") < layer_of("govcore.models")
    assert layer_of("govcore") < layer_of("govcore.cli")
    assert len(nodes) == 4
    built = ast.parse(
        "from govcore.models import TurnDiff as Diff\nfrom govcore import models\n"
        "Diff(newly_applicable=[])\nmodels.BindingEvent()\nmodels.TurnRequest.model_validate({})\n"
    )
    assert wire_model_calls(built) == ["3 Diff", "4 models.BindingEvent"]
