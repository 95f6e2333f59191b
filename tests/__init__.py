"""govcore's test suite (a package, so modules can import ``tests.support``)."""

from __future__ import annotations
