"""Governance inside agent frameworks.

:class:`GovernedConversation` is what every adapter is built on, and what a team writing its
own glue uses directly: record turns (once each, by the framework's message ids), put the
policies into the instructions, gate tool calls, check tool results and answers, and hold a
streamed answer back until it is checked, failing closed when govcore cannot decide.

One module per framework, each behind its extra, imports its framework only when imported:
``govcore.integrations.pydantic_ai``, ``.langchain``, ``.openai_agents``, ``.litellm`` and
``.mcp`` (docs/integrations.md).
"""

from __future__ import annotations

from govcore.integrations.base import (
    WITHHELD_TEXT,
    CheckedText,
    FailMode,
    GovernanceUnavailableError,
    GovernedConversation,
)

__all__ = [
    "WITHHELD_TEXT",
    "CheckedText",
    "FailMode",
    "GovernanceUnavailableError",
    "GovernedConversation",
]
