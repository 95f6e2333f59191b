"""govcore's test suite (a package, so modules can import ``tests.support`` and ``tests.conftest``)."""

from __future__ import annotations
