"""The version of govcore, written once: the package, the CLI, the OpenAPI document and the
distribution (pyproject.toml reads it) all take it from here."""

from __future__ import annotations

__version__ = "0.1.0"
