"""What ``import govcore`` loads: the numeric stack only once an index is built."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import policy

_HEAVY = ("numpy", "scipy", "sklearn")


def _loaded_after(code: str, watched: tuple[str, ...] = _HEAVY) -> list[str]:
    """Run ``code`` in a fresh interpreter; which of the ``watched`` modules it left imported."""
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps([m for m in {watched!r} if m in sys.modules]))"
    )
    completed = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(completed.stdout.splitlines()[-1])
    return loaded


def test_import_govcore_loads_no_numeric_library() -> None:
    """Importing govcore (and its CLI) imports neither scikit-learn, SciPy nor NumPy."""
    assert _loaded_after("import govcore, govcore.cli, govcore.backends") == []


def test_import_govcore_leaves_yaml_and_rapidfuzz_for_later() -> None:
    """PyYAML loads with the first YAML file read, RapidFuzz with the first misspelt field."""
    assert _loaded_after("import govcore", ("yaml", "rapidfuzz")) == []
    assert _loaded_after(
        "import govcore\ntry:\n    govcore.Governance.from_config({'tenant': {}})\n"
        "except govcore.ConfigError:\n    pass",
        ("rapidfuzz",),
    ) == ["rapidfuzz"]


def test_building_an_index_loads_the_numeric_stack() -> None:
    """The first index built is what brings scikit-learn and SciPy in (the probe can see them)."""
    code = (
        "from govcore.backends.tfidf import TfidfRetriever\n"
        "from govcore.policy import PolicyDocument\n"
        f"TfidfRetriever().index([PolicyDocument.model_validate({policy('refunds')!r})])"
    )
    assert _loaded_after(code) == list(_HEAVY)


def test_tfidf_index_class_is_still_importable_from_the_backend() -> None:
    """``from govcore.backends.tfidf import TfidfIndex`` gives the class the retriever builds."""
    from govcore.backends import tfidf
    from govcore.backends.tfidf import TfidfIndex, TfidfRetriever
    from govcore.policy import PolicyDocument

    index = TfidfRetriever().index([PolicyDocument.model_validate(policy("refunds"))])
    assert isinstance(index, TfidfIndex)
    with pytest.raises(AttributeError, match="NoSuchName"):
        _ = tfidf.NoSuchName


def test_import_govcore_reads_no_backend_declaration_and_imports_no_backend() -> None:
    """Backends are looked up when one is built, not when govcore is imported: no entry point
    of govcore's groups is read (pydantic reads its own plugins' group) and no backend module
    is imported."""
    probe = (
        "import importlib.metadata, json, sys\n"
        "read = []\n"
        "original = importlib.metadata.entry_points\n"
        "def recording(**params):\n"
        "    read.append(params.get('group'))\n"
        "    return original(**params)\n"
        "importlib.metadata.entry_points = recording\n"
        "import govcore, govcore.cli, govcore.config\n"
        "backends = [m for m in sys.modules if m.startswith('govcore.backends.')]\n"
        "print(json.dumps([read, backends]))\n"
    )
    completed = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    read, backends = json.loads(completed.stdout.splitlines()[-1])
    assert all(group is not None and not group.startswith("govcore.") for group in read), read
    assert backends == ["govcore.backends.url_redaction"]


def test_telemetry_packages_load_only_when_used() -> None:
    """``import govcore`` imports neither prometheus-client nor the OpenTelemetry API; a facade
    with metrics off and tracing off imports neither while it answers; one with metrics on
    imports prometheus-client."""
    watched = ("prometheus_client", "opentelemetry.trace")
    assert _loaded_after("import govcore", watched) == []
    answer = (
        "import govcore\n"
        "config = {'tenants': {'t': {'policies': []}}, 'keys': [{'key': 'gk_import_key_000001',"
        " 'tenant': 't'}]}\n"
        "gov = govcore.Governance.from_config(config, OPTIONS)\n"
        "gov.client('gk_import_key_000001').record_turn("
        "{'sessionId': 's', 'turn': {'role': 'user', 'content': 'hi'}})"
    )
    assert _loaded_after(answer.replace("OPTIONS", "tracing=False"), watched) == []
    with_metrics = answer.replace("OPTIONS", "tracing=False, metrics=True")
    assert _loaded_after(with_metrics, watched) == ["prometheus_client"]
