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
