"""The ``secret`` detector: private keys, vendor tokens, JWTs and values assigned to keys named
like ``password`` or ``api_key``. Its formats and validators are :mod:`govcore.detection.secrets`;
its validators read the settings' known examples and allow-list, so its patterns are made for
them."""

from __future__ import annotations

from govcore.detection.detectors.base import CandidatePattern, Detector
from govcore.detection.secrets import SecretOptions, secret_patterns

__all__ = ["DETECTOR"]


def _patterns(options: SecretOptions) -> tuple[CandidatePattern, ...]:
    return tuple(
        CandidatePattern(p.pattern, p.validate, restart_inside=p.restart_inside)
        for p in secret_patterns(options)
    )


DETECTOR = Detector(
    kind="secret",
    # One explanation for every secret format: a violation names its detector kind, not the
    # format.
    explanation="contains a secret (a private key, an API key, an access token or a password)",
    replacement="[secret removed]",
    example="ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u",
    patterns=(),
    contains_other_kinds=True,
    configured=_patterns,
)
