"""Adversarial inputs complete quickly (docs/detection.md: RE2, linear time whatever the pattern).

Each check runs in a forked child process that is killed when it overruns, so a regression to
exponential time fails the test instead of hanging the suite. The limit (2 s for a 100 KB output)
is generous: this guards against catastrophic backtracking and blow-ups, it is no benchmark.

They assert wall-clock times, so they are marked ``timing`` and left out of the default run;
``pytest -m timing`` runs them (docs/performance.md).
"""

from __future__ import annotations

import functools
import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import pytest

import govcore
from govcore.detection.detectors import DETECTORS
from govcore.testing import FakeClock
from tests.support import policy

LIMIT_SECONDS = 2.0
SIZE = 100_000
KEY = "gk_test_pathological_01"
PATHOLOGICAL_REGEXES = [
    r"(a+)+$",
    r"(x+x+)+y",
    r"(a|aa)+$",
    r"^(\w+\s?)*$",
    # (.*a){20} is refused at load now (its DFA blows up): tests/detection/test_pattern_cost.py
    r"(a|a?)+b",
]
ALL_PII = list(DETECTORS)  # every built-in kind


def _governance() -> govcore.Governance:
    config = {
        "tenants": {
            "t": {
                "policies": [
                    policy("regexes", detect=[{"regex": r} for r in PATHOLOGICAL_REGEXES]),
                    policy("pii", enforcement="fix", detect=[{"pii": k} for k in ALL_PII]),
                ]
            }
        },
        "keys": [
            {
                "key": KEY,
                "tenant": "t",
                "settings": {"post_inference_checking": "allowed", "rate_limit_per_minute": 10**6},
            }
        ],
    }
    return govcore.Governance.from_config(config, clock=FakeClock())


pytestmark = pytest.mark.timing


@functools.cache
def _client() -> Any:
    return _governance().client(KEY)


def _post_inference(text: str) -> int:
    return len(_client().post_inference({"sessionId": "slow", "output": text}).violations)


def _stream(text: str) -> int:
    request = {"sessionId": "slow", "fullText": text, "lastCheckedOffset": 0, "isFinal": False}
    return len(_client().check_output_stream(request).new_violations)


def _elapsed_in_child(check: Callable[[str], Any], text: str) -> float:
    """Seconds ``check(text)`` takes in a forked child; fails the test if it overruns."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)

    def run() -> None:
        started = time.perf_counter()
        check(text)
        sender.send(time.perf_counter() - started)

    child = context.Process(target=run, daemon=True)
    child.start()
    try:
        if not receiver.poll(LIMIT_SECONDS + 0.5):
            pytest.fail(f"{check.__name__} of {len(text)} characters did not finish in time")
        return float(receiver.recv())
    finally:
        if child.is_alive():
            child.kill()
        child.join()


REGEX_INPUTS = {
    "a-then-bang": "a" * SIZE + "!",
    "x-run": "x" * SIZE,
    "words-then-bang": "a " * (SIZE // 2) + "!",
    "a-with-zero-width": "a\u200b" * (SIZE // 2) + "!",
}
PII_INPUTS = {
    "digits": "1" * SIZE,
    "digit-dash": "1-" * (SIZE // 2),
    "dotted-digits": "1." * (SIZE // 2),
    "at-signs": "@" * SIZE,
    "a-at": "a@" * (SIZE // 2),
    "dotted-local": "a.b@c." * (SIZE // 6),
    "colons": "a:" * (SIZE // 2),
    "plus-digits": "+1 " * (SIZE // 3),
    "key-headers": "-----BEGIN RSA PRIVATE KEY-----\n" * (SIZE // 32),
    "key-headers-one-end": "-----BEGIN PRIVATE KEY-----\n" * (SIZE // 28 - 1)
    + "-----END PRIVATE KEY-----",
    "jwt-like": "eyJabcdefgh." * (SIZE // 12),
    "assignments": "password=" * (SIZE // 9),
    "full-width-digits": "４" * SIZE,
    "quotes": '"a"@' * (SIZE // 4),
    "spaced-digits": "1 " * (SIZE // 2),
    "spaced-pairs": "12 " * (SIZE // 3),
    "card-groups": "4111 " * (SIZE // 5),
    "iban-then-digits": "DE89" + " 1" * ((SIZE - 4) // 2),
    "glued-secret-and-key": ("password=hunter2secretX9-----BEGIN RSA PRIVATE KEY-----\n" * SIZE)[
        :SIZE
    ],
}


@pytest.mark.parametrize("name", list(REGEX_INPUTS))
def test_pathological_regexes_are_linear_on_adversarial_output(name: str) -> None:
    """Backtracking-prone author regexes check a 100 KB adversarial output in under 2 seconds."""
    assert _elapsed_in_child(_post_inference, REGEX_INPUTS[name]) < LIMIT_SECONDS


@pytest.mark.parametrize("name", list(PII_INPUTS))
def test_detectors_are_fast_on_adversarial_output(name: str) -> None:
    """Every built-in detector checks a 100 KB adversarial output in under 2 seconds."""
    assert _elapsed_in_child(_post_inference, PII_INPUTS[name]) < LIMIT_SECONDS


@pytest.mark.parametrize("name", ["key-headers", "key-headers-one-end", "digit-dash", "a-at"])
def test_stream_check_is_fast_on_adversarial_output(name: str) -> None:
    """A streaming check of a 100 KB adversarial text completes in under 2 seconds."""
    assert _elapsed_in_child(_stream, PII_INPUTS[name]) < LIMIT_SECONDS


@pytest.mark.parametrize(
    "unit",
    ["4111 1111 1111 1111 ", "GB82 WEST 1234 5698 7654 32 ", "GB82 "],
    ids=["spaced-cards", "spaced-ibans", "iban-prefixes"],
)
def test_many_spaced_cards_or_ibans_are_checked_quickly(unit: str) -> None:
    """A list of many space-separated card numbers or IBANs (100 KB) is checked in under 2 seconds."""
    assert _elapsed_in_child(_post_inference, unit * (SIZE // len(unit))) < LIMIT_SECONDS
