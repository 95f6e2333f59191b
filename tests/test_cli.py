"""The command line: ``govcore demo`` from anywhere, ``govcore --version``, and a real wheel."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
import yaml

import govcore
from govcore import cli
from govcore.cli import _copy_tree, _parser, main
from tests.support import FREEZE_EXAMPLE_OF_CANCELLING, gym_config

ROOT = Path(__file__).resolve().parent.parent


def test_demo_runs_the_scripted_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    """`govcore demo` prints every turn's diff, active policies and injection block."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.count("+ newly applicable") == 12
    assert "injection block" in out
    assert "Applicable company policies" in out
    assert "ai-disclosure" in out
    assert "conversation deleted" in out


def test_demo_runs_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo reads its files from the package, not from the working directory."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo"]) == 0
    assert capsys.readouterr().out.count("+ newly applicable") == 12


@pytest.mark.parametrize("option", ["--config", "--script"])
def test_demo_names_a_missing_file(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A --config or --script that does not exist is exit status 2, naming the option."""
    assert main(["demo", option, "/nonexistent.yaml"]) == 2
    assert f"{option} /nonexistent.yaml: no such file" in capsys.readouterr().err


def test_demo_takes_another_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--script replaces the bundled conversation while the bundled configuration stays."""
    script = tmp_path / "one.yaml"
    script.write_text(
        "session_id: one\nturns:\n  - role: user\n    content: Can I get my money back?\n",
        encoding="utf-8",
    )
    assert main(["demo", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert out.count("+ newly applicable") == 1
    assert "conversation 'one'" in out


def test_version_option_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`govcore --version` prints "govcore <version>" and exits 0."""
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"govcore {govcore.__version__}\n"


def test_version_attribute_is_the_installed_distribution_version() -> None:
    """``govcore.__version__`` is the version the installed distribution declares."""
    assert govcore.__version__ == importlib.metadata.version("govcore")


def test_bundled_files_are_copied_out_of_a_zip_archive(tmp_path: Path) -> None:
    """A resource directory that is not on the file system (a zip) is copied out whole."""
    archive = tmp_path / "package.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("acme/govcore.yaml", "settings: {}\n")
        zipped.writestr("acme/policies/a.yaml", "[]\n")
    target = tmp_path / "out"
    target.mkdir()
    _copy_tree(zipfile.Path(archive, "acme/"), target)
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert copied == ["govcore.yaml", "policies/a.yaml"]
    assert (target / "policies" / "a.yaml").read_text(encoding="utf-8") == "[]\n"


def _fresh_venv_with_dependencies(where: Path) -> Path:
    """A new virtual environment that sees this one's installed packages, but not govcore.

    Installing govcore's dependencies (NumPy, SciPy, scikit-learn: over 200 MiB) into every
    test venv would take minutes and need the network; a ``.pth`` file pointing at this
    environment's site-packages gives the new one the dependencies. A ``.pth`` line only adds
    a path: the ``.pth`` files of that directory (this checkout's editable install) are not
    run, so ``import govcore`` finds the wheel installed into the new venv, nothing else.
    """
    venv.create(where, with_pip=True)
    python = where / ("Scripts" if os.name == "nt" else "bin") / "python"
    site_packages = subprocess.run(  # noqa: S603 - the venv just created
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")}
    (Path(site_packages) / "outer-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


@pytest.mark.slow
def test_installed_wheel_runs_the_demo_anywhere(tmp_path: Path) -> None:
    """A wheel built from the sources declares the backends and, installed in a fresh venv,
    runs ``govcore demo`` in an empty directory and reports the right version."""
    source = tmp_path / "source"
    source.mkdir()
    # Built from a copy so that the build leaves no build/ or egg-info in the checkout.
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "govcore", source / "govcore", ignore=shutil.ignore_patterns("*.pyc"))
    wheels = tmp_path / "wheels"
    subprocess.run(  # noqa: S603 - pip of this interpreter
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        check=True,
    )
    (wheel,) = wheels.glob("govcore-*.whl")
    with zipfile.ZipFile(wheel) as built:
        info = f"govcore-{govcore.__version__}.dist-info"
        entry_points = built.read(f"{info}/entry_points.txt").decode()
        metadata = built.read(f"{info}/METADATA").decode()
        shipped = set(built.namelist())
    assert f"\nVersion: {govcore.__version__}\n" in metadata
    assert "[govcore.stores]\nmemory = govcore.backends.memory:MemoryStore" in entry_points
    assert "redis+sentinel = govcore.backends.redis:RedisStore" in entry_points
    assert "rediss+sentinel = govcore.backends.redis:AsyncRedisStore" in entry_points
    retrievers = entry_points.split("[govcore.retrievers]\n", 1)[1].split("\n\n", 1)[0]
    assert set(retrievers.splitlines()) == {
        "tfidf = govcore.backends.tfidf:TfidfRetriever",
        "hybrid = govcore.backends.hybrid:HybridRetriever",
    }
    decision_logs = entry_points.split("[govcore.decision_logs]\n", 1)[1].split("\n\n", 1)[0]
    assert set(decision_logs.splitlines()) == {
        "memory = govcore.decision_log:MemoryDecisionLog",
        "path = govcore.decision_log:JsonlDecisionLog",
        "stream = govcore.backends.redis:RedisDecisionLog",
    }
    assert {"admit.lua", "commit.lua"} <= {
        Path(name).name for name in shipped if name.startswith("govcore/backends/redis_scripts/")
    }
    python = _fresh_venv_with_dependencies(tmp_path / "venv")
    subprocess.run(  # noqa: S603 - pip of the venv just created
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True
    )
    bin_dir = python.parent
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def run(*args: str) -> str:
        completed = subprocess.run(  # noqa: S603 - the venv just created
            args, cwd=elsewhere, capture_output=True, text=True, check=True
        )
        return completed.stdout

    where = run(str(python), "-c", "import govcore; print(govcore.__file__)")
    assert Path(where).resolve().is_relative_to((tmp_path / "venv").resolve())
    demo = run(str(bin_dir / "govcore"), "demo")
    assert demo.count("+ newly applicable") == 12
    assert "conversation deleted" in demo
    assert run(str(bin_dir / "govcore"), "--version") == f"govcore {govcore.__version__}\n"
    # The example's policy tests ship beside its configuration and pass from the wheel.
    installed = run(str(python), "-c", "import govcore; print(govcore.__file__)").strip()
    config = Path(installed).parent / "demo" / "acme" / "govcore.yaml"
    assert "govcore/demo/acme/northwind_test.yaml" in shipped
    assert " passed, 0 failed, 0 errors (" in run(str(bin_dir / "govcore"), "test", str(config))
    assert list(elsewhere.iterdir()) == []


DEMO_CONFIG = ROOT / "govcore" / "demo" / "acme" / "govcore.yaml"
DEMO_KEY = "gk_demo_northwind_full_0001"


def _govcore(*arguments: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # noqa: S603 - this interpreter, running govcore
        [sys.executable, "-m", "govcore", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    ("arguments", "statuses"),
    [
        (["demo"], {1}),
        (
            ["explain", str(DEMO_CONFIG), "Can I get my money back?", "--key", DEMO_KEY, "--all"],
            {1},
        ),
        (
            ["explain", str(DEMO_CONFIG), "Can I get my money back?", "--key", DEMO_KEY, "--json"],
            {1},
        ),
        (["validate", str(DEMO_CONFIG)], {1}),
        (["coverage", str(DEMO_CONFIG)], {1}),
        # argparse prints these itself and ignores an OSError as it writes: 0 or 1.
        (["--help"], {0, 1}),
        (["--version"], {0, 1}),
    ],
    ids=["demo", "explain", "explain-json", "validate", "coverage", "help", "version"],
)
def test_a_reader_gone_before_any_output_ends_the_command_quietly(
    arguments: list[str], statuses: set[int]
) -> None:
    """Like `govcore explain ... | head` when head has gone: exit status 1, and no traceback
    or 'Exception ignored' message on stderr."""
    with _govcore(*arguments) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()  # before the command has written anything: it is still starting
        err = process.stderr.read()
        assert process.wait(timeout=120) in statuses
    assert err.decode() == ""


def test_a_reader_gone_midway_ends_the_command_quietly() -> None:
    """`govcore demo | head -1`: the reader leaves after the first line, while the demo is still
    printing; the command ends without a word on stderr."""
    with _govcore("demo") as process:
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read()
        assert process.wait(timeout=120) in {0, 1}  # 0 if it had written everything already
    assert err.decode() == ""


def _commands() -> list[str]:
    """The subcommands the command line's parser knows."""
    (subparsers,) = [
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    ]
    return sorted(subparsers.choices)


def test_every_command_is_listed_where_the_docs_list_the_commands() -> None:
    """Each command of the parser is named in docs/architecture.md's line for cli.py, in the
    README as `govcore COMMAND`, and in the cli module's own summary."""
    commands = _commands()
    assert {"validate", "explain", "coverage", "demo", "serve"} <= set(commands)
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (listed,) = re.findall(r"cli\.py +govcore ([^\n]*)", architecture)
    listed_names = {name.strip() for name in listed.split(",")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in commands:
        assert command in listed_names, f"docs/architecture.md does not list {command!r}"
        assert f"govcore {command}" in readme, f"README.md does not mention govcore {command}"
        assert f"``{command}" in (cli.__doc__ or ""), f"govcore.cli's docstring lacks {command!r}"
    assert "--version" in listed_names


# --- govcore coverage ---------------------------------------------------------------------------


@pytest.fixture
def gym_file(tmp_path: Path) -> Path:
    path = tmp_path / "gym.yaml"
    path.write_text(yaml.safe_dump(gym_config()), encoding="utf-8")
    return path


def test_coverage_prints_a_table_per_tenant(
    gym_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`govcore coverage CONFIG` lists every policy with its examples, recall and precision,
    the examples that miss, the pairs hard to tell apart, the policies without examples and
    the alwaysOn ones, and exits 0 without --min-recall."""
    assert main(["coverage", str(gym_file)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:1].isalpha()}
    assert rows["locker-theft"] == ["5", "1.00", "1.00"]
    assert rows["membership-freeze"][:2] == ["5", "0.80"]
    assert rows["pool-hours"][:2] == ["0", "-"]
    assert rows["no-medical-advice"] == ["2", "always", "on"]
    assert f"misses {FREEZE_EXAMPLE_OF_CANCELLING!r} -> membership-cancellation" in out
    assert "membership-freeze / membership-cancellation: 1 / " in out
    assert "without examples (recall -; not measured): pool-hours" in out
    assert "always on (selected by every message; not measured): no-medical-advice" in out
    assert "total: 20 examples, recall 0.95" in out


def test_coverage_min_recall_fails_only_on_measured_policies(
    gym_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--min-recall exits 1 when a policy with examples is below it, naming it; 0 otherwise,
    though pool-hours (no examples) has no recall at all."""
    assert main(["coverage", str(gym_file), "--min-recall", "1.0"]) == 1
    out = capsys.readouterr().out
    assert "--min-recall 1: 1 policy below it" in out
    assert "ironworks/membership-freeze: recall 0.80" in out
    assert main(["coverage", str(gym_file), "--min-recall", "0.8"]) == 0
    assert main(["coverage", str(gym_file), "--min-recall", "0.0"]) == 0
    assert "every policy with examples reaches it" in capsys.readouterr().out


def test_coverage_json_is_one_document_of_the_documented_shape(
    gym_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json prints one JSON document with the keys docs/retrieval.md lists, and the same
    exit status as the table."""
    assert main(["coverage", str(gym_file), "--json", "--min-recall", "0.9"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"config", "min_recall", "below_min_recall", "tenants"}
    assert document["min_recall"] == 0.9
    assert document["below_min_recall"] == [
        {"tenant": "ironworks", "policy_id": "membership-freeze", "recall": 0.8}
    ]
    (tenant,) = document["tenants"]
    assert set(tenant) == {
        "tenant", "retriever", "folds", "policies", "confused_pairs", "without_examples",
        "always_on", "examples", "recall", "precision", "selected_nothing",
    }  # fmt: skip
    policies = {p["policy_id"]: p for p in tenant["policies"]}
    assert set(policies["membership-freeze"]) == {
        "policy_id", "examples", "always_on", "recall", "precision", "misses",
        "selects_others", "confused_with",
    }  # fmt: skip
    assert policies["membership-freeze"]["misses"] == [
        {"example": FREEZE_EXAMPLE_OF_CANCELLING, "selected": ["membership-cancellation"]}
    ]
    assert policies["pool-hours"]["recall"] is None
    assert set(tenant["confused_pairs"][0]) == {
        "first", "second", "first_selects_second", "second_selects_first",
    }  # fmt: skip
    assert tenant["without_examples"] == ["pool-hours"]
    documented = (ROOT / "docs" / "retrieval.md").read_text(encoding="utf-8")
    for key in (*document, *tenant, *policies["membership-freeze"], *tenant["confused_pairs"][0]):
        assert f"`{key}`" in documented, f"docs/retrieval.md does not document {key!r}"


def test_coverage_of_a_bad_configuration_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration error is exit status 2 (1 means a recall below --min-recall), with
    every problem on stderr."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"tenants": {"a": {"policies": [{"id": "x"}]}}}))
    assert main(["coverage", str(bad), "--min-recall", "0.5"]) == 2
    captured = capsys.readouterr()
    assert "problems" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "most"])
def test_coverage_refuses_a_min_recall_outside_0_to_1(
    gym_file: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--min-recall takes a share from 0 to 1; anything else is a usage error (status 2)."""
    with pytest.raises(SystemExit) as exited:
        main(["coverage", str(gym_file), "--min-recall", value])
    assert exited.value.code == 2
    assert "--min-recall: expected a number from 0 to 1" in capsys.readouterr().err
