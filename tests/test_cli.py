"""The demo command."""

from __future__ import annotations

import pytest

from govcore.cli import main


def test_demo_runs_the_scripted_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    """`govcore demo` prints every turn's diff, active policies and injection block."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert out.count("+ newly applicable") == 12
    assert "injection block" in out
    assert "Applicable company policies" in out
    assert "ai-disclosure" in out
    assert "conversation deleted" in out


def test_demo_without_examples_explains(capsys: pytest.CaptureFixture[str]) -> None:
    """Without the example files the demo says what it needs."""
    assert main(["demo", "--config", "/nonexistent.yaml"]) == 2
    assert "--config" in capsys.readouterr().err
