"""The README tells the truth."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_embedding_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's embedding example runs as written, from any directory."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert code is not None
    cwd = Path.cwd()
    os.chdir(ROOT / "docs")  # not the root: the example must not depend on where it runs
    try:
        exec(compile(code.group(1), "README.md", "exec"), {})  # noqa: S102
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "refund-window" in out
    assert out.strip().endswith("200 2")


def test_api_reference_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The complete Python examples of docs/api.md (those that load a configuration) run as
    written, from any directory."""
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, re.DOTALL) if "from_config(" in b]
    complete = [b for b in blocks if "import govcore" in b]
    assert len(complete) >= 2
    cwd = Path.cwd()
    os.chdir(ROOT / "docs")
    try:
        for block in complete:
            exec(compile(block, "docs/api.md", "exec"), {})  # noqa: S102
    finally:
        os.chdir(cwd)
    assert "404 not_found" in capsys.readouterr().out


def test_docs_links_resolve() -> None:
    """Every relative link of README.md and docs/ names a file of the repository."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
