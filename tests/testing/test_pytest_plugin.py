"""govcore's pytest plugin (_govcore_pytest_plugin), run in pytest's own pytester.

The plugin is loaded by name here, with plugin autoloading off: the ``pytest11`` entry point
that loads it for an installed govcore is read from the installed distribution's metadata, which
an editable checkout gets only when it is installed again, and the other installed plugins only
slow the inner runs down.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ("-p", "_govcore_pytest_plugin", "-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def _this_checkout_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner pytest (a subprocess, in a temporary directory) imports govcore from this
    checkout, whatever PYTHONPATH held (a relative entry would point elsewhere there)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_fixtures_give_a_governance_a_client_and_its_clock(pytester: pytest.Pytester) -> None:
    """The default fixtures: a client of the sample configuration whose key may do everything,
    on a fake clock that moves the governance's time."""
    pytester.makepyfile(
        """
        import govcore
        from govcore.testing import SAMPLE_KEY, FakeClock


        def test_turn(govcore_client, govcore_governance, govcore_key):
            assert govcore_key == SAMPLE_KEY
            result = govcore_client.record_turn(
                {"sessionId": "s", "turn": {"role": "user", "content": "I want a refund"}}
            )
            assert result.turn_index == 1
            assert "refunds" in {p.id for p in result.active_policies}
            assert isinstance(govcore_governance, govcore.Governance)


        def test_every_feature(govcore_client):
            verdict = govcore_client.post_inference({"sessionId": "s", "output": "jane@example.com"})
            assert verdict.safe is False
            decision = govcore_client.check_tool_call(
                {"sessionId": "s", "toolName": "delete_account", "arguments": {}}
            )
            assert decision.allow is False


        def test_clock(govcore_client, govcore_clock):
            assert isinstance(govcore_clock, FakeClock)
            govcore_client.record_turn(
                {"sessionId": "t", "turn": {"role": "user", "content": "hi"}, "ttlSeconds": 300}
            )
            govcore_clock.advance(301)
            try:
                govcore_client.get_conversation("t")
            except govcore.NotFoundError:
                return
            raise AssertionError("the conversation outlived its TTL on the fake clock")


        def test_fresh_state(govcore_client):
            try:
                govcore_client.get_conversation("s")
            except govcore.NotFoundError:
                return
            raise AssertionError("state leaked from another test")
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=4)


def test_a_suite_overrides_the_configuration_and_key(pytester: pytest.Pytester) -> None:
    """A conftest's ``govcore_config`` and ``govcore_key`` replace the sample ones: here the
    demo deployment's file and its key."""
    demo = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
    pytester.makeconftest(
        f"""
        import pytest


        @pytest.fixture
        def govcore_config():
            return {str(demo)!r}


        @pytest.fixture
        def govcore_key():
            return "gk_demo_northwind_full_0001"
        """
    )
    pytester.makepyfile(
        """
        def test_demo(govcore_client):
            result = govcore_client.record_turn(
                {"sessionId": "s", "turn": {"role": "user", "content": "Can I get my money back?"}}
            )
            assert result.active_policies
        """
    )
    pytester.runpytest_subprocess(*PLUGIN).assert_outcomes(passed=1)


def test_without_the_plugin_its_fixtures_are_unknown(pytester: pytest.Pytester) -> None:
    """The fixtures come from the plugin: without it, a test asking for one errors."""
    pytester.makepyfile("def test_x(govcore_client):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'govcore_client' not found*"])


def test_the_entry_point_names_the_plugin() -> None:
    """pyproject.toml registers the plugin as ``govcore`` in the ``pytest11`` group."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"govcore": "_govcore_pytest_plugin"}
    assert "hypothesis" in " ".join(project["optional-dependencies"]["testing"])


def _loaded_after(code: str) -> list[str]:
    """Which of govcore and hypothesis ``code`` leaves imported, in a fresh interpreter."""
    probe = (
        f"{code}\nimport json, sys\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'govcore', 'hypothesis'})))"
    )
    completed = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    loaded: list[str] = json.loads(completed.stdout.splitlines()[-1])
    return loaded


def test_loading_the_plugin_imports_neither_govcore_nor_hypothesis() -> None:
    """pytest imports the plugin in every run where govcore is installed: that imports neither
    govcore (about 0.3 s) nor hypothesis, so a suite that uses no fixture of it waits for
    neither."""
    assert _loaded_after("import _govcore_pytest_plugin") == []


def test_only_the_strategies_import_hypothesis() -> None:
    """``import govcore`` and ``govcore.testing`` leave hypothesis unimported (a suite that does
    not use the strategies needs no hypothesis); the strategies import it."""
    assert _loaded_after("import govcore, govcore.testing") == ["govcore"]
    assert _loaded_after("import govcore.testing.strategies") == ["govcore", "hypothesis"]


@pytest.mark.slow
def test_an_installed_wheel_gives_pytest_the_fixtures(tmp_path: Path) -> None:
    """A wheel built from the sources, installed in a fresh venv, makes pytest load the plugin
    by its entry point: a suite there uses ``govcore_client`` with no option or conftest."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "_govcore_pytest_plugin.py"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "govcore", source / "govcore", ignore=shutil.ignore_patterns("*.pyc"))
    wheels = tmp_path / "wheels"
    subprocess.run(  # noqa: S603 - pip of this interpreter
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        check=True,
    )
    (wheel,) = wheels.glob("govcore-*.whl")
    where = tmp_path / "venv"
    venv.create(where, with_pip=True)
    python = where / ("Scripts" if os.name == "nt" else "bin") / "python"
    # The venv sees this environment's packages (pytest, govcore's dependencies) through a .pth
    # line, which adds the path without running that directory's .pth files, so the editable
    # checkout stays out and govcore is the installed wheel.
    site_packages = subprocess.run(  # noqa: S603 - the venv just created
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = sorted({p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")})
    (Path(site_packages) / "outer.pth").write_text("\n".join(outer) + "\n")
    subprocess.run(  # noqa: S603 - pip of the venv just created
        # --ignore-installed: the outer environment's govcore (an editable install, as CI's)
        # has the same version, and pip would otherwise leave the wheel uninstalled.
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)],
        check=True,
    )
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_uses_govcore.py").write_text(
        "import govcore\n\n\n"
        "def test_turn(govcore_client):\n"
        "    assert govcore.__file__.startswith(" + repr(str(where)) + ")\n"
        "    turn = {'sessionId': 's', 'turn': {'role': 'user', 'content': 'a refund'}}\n"
        "    assert govcore_client.record_turn(turn).turn_index == 1\n"
    )
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    environment.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    completed = subprocess.run(  # noqa: S603 - the venv just created
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
        cwd=suite,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "1 passed" in completed.stdout
