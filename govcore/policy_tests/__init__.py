"""Policy tests: cases written in YAML beside a configuration, run through the public API.

``govcore test CONFIG [TESTS...]`` runs them from a shell; :func:`run_policy_tests` from Python::

    from govcore.policy_tests import run_policy_tests

    report = run_policy_tests("govcore.yaml")  # the *_test.yaml files beside it
    print("\\n".join(report.lines()))
    assert report.passed

The file format is in docs/policy-testing.md; the choices behind it in
docs/decisions/policy-tests.md.
"""

from __future__ import annotations

from govcore.policy_tests.report import CaseResult, Mismatch, Outcome, PolicyTestReport
from govcore.policy_tests.runner import (
    TEST_EPOCH,
    TEST_FILE_SUFFIXES,
    discover_test_files,
    find_test_files,
    run_policy_tests,
)

__all__ = [
    "TEST_EPOCH",
    "TEST_FILE_SUFFIXES",
    "CaseResult",
    "Mismatch",
    "Outcome",
    "PolicyTestReport",
    "discover_test_files",
    "find_test_files",
    "run_policy_tests",
]
