"""Deprecated: the decision log moved to :mod:`govcore.decision_log`.

Kept for one release so that code importing ``govcore.decisions`` keeps working, with a
:class:`DeprecationWarning`; ``docs/decisions/`` holds design records, which the old name
suggested. The public names are exported from :mod:`govcore` itself, unchanged. Nothing in
govcore imports this module.
"""

from __future__ import annotations

import warnings

# The builder moved to the registry of every backend; importable here too, as it was.
from govcore.backends import decision_log_from_settings  # noqa: F401
from govcore.decision_log import (
    Decision,
    DecisionLog,
    DecisionQueue,
    JsonlDecisionLog,
    MemoryDecisionLog,
)

__all__ = ["Decision", "DecisionLog", "DecisionQueue", "JsonlDecisionLog", "MemoryDecisionLog"]

warnings.warn(
    "govcore.decisions is renamed govcore.decision_log (or import the names from govcore); "
    "the old name goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
