"""Gating a tool call the way an agent runs one: allow it, run it with safer arguments, or block
it with a message the model can read; and checking a tool's result as output.

The typed clients' ``gate_tool_call`` and ``check_tool_result`` (both facades) are built on the
pure steps here: they make the checks, these functions decide from the answers, so the
blocking and the asyncio client decide alike. docs/decisions/tool-gating.md says why each
reaction and the message are what they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from govcore.errors import InvalidRequestError
from govcore.jsonable import jsonable_value
from govcore.models import ToolCallDecision
from govcore.verdicts import blocks

__all__ = [
    "FIX_REACTIONS",
    "FixReaction",
    "ToolGate",
    "after_recheck",
    "block_message",
    "check_fix_reaction",
    "first_gate",
    "tool_call_request",
    "tool_result_request",
    "tool_result_surface",
    "tool_result_text",
]

FixReaction = Literal["apply", "block", "retry"]
"""What ``gate_tool_call`` does with a call that a ``fix`` violation blocks:

- ``apply``: re-check the call with the ``suggestedArguments``; run it with them when they are
  allowed (``modify``), else block. Without a suggestion, block.
- ``block``: block, with a message saying which policy and what to change.
- ``retry``: block, and when the suggested arguments pass a re-check, tell the model them in the
  message so that it can call again with them (it decides; nothing runs on its behalf).
"""

FIX_REACTIONS: tuple[str, ...] = get_args(FixReaction)

ToolAction = Literal["allow", "modify", "block"]


@dataclass(frozen=True, slots=True)
class ToolGate:
    """What to do with one proposed tool call.

    Attributes:
        action: ``allow`` (run it as proposed), ``modify`` (run it with :attr:`arguments`, the
            safer ones) or ``block`` (do not run it; give the model :attr:`message`).
        arguments: what to run the tool with: the caller's own arguments on ``allow`` and
            ``block`` (as given, not their JSON form), the re-checked safer ones (JSON values)
            on ``modify``.
        message: on ``block``, sentences the model can read: which tool, which policy, why, and
            what to change (never the offending values themselves); ``None`` otherwise.
        decision: the check of the proposed call; ``None`` only when governance could not
            decide (built by the integrations, never by the clients).
        recheck: the check of the suggested arguments when they were checked (``apply`` and
            ``retry`` with a suggestion); ``None`` otherwise.
    """

    action: ToolAction
    arguments: dict[str, Any]
    message: str | None
    decision: ToolCallDecision | None
    recheck: ToolCallDecision | None = None

    @property
    def runs(self) -> bool:
        """Whether the tool runs (``allow`` or ``modify``)."""
        return self.action != "block"


def check_fix_reaction(on_fix: str) -> FixReaction:
    """``on_fix`` when it is a :data:`FixReaction`.

    Raises:
        InvalidRequestError: naming ``on_fix`` and the values it takes.
    """
    if on_fix in FIX_REACTIONS:
        return cast("FixReaction", on_fix)
    raise InvalidRequestError.for_field(
        "on_fix", f"is {on_fix!r}; expected one of {', '.join(FIX_REACTIONS)}"
    )


def tool_call_request(
    session_id: str, tool_name: str, arguments: Mapping[str, Any]
) -> dict[str, Any]:
    """The wire request of a proposed tool call (its arguments made JSON by the client)."""
    return {"sessionId": session_id, "toolName": tool_name, "arguments": arguments}


def first_gate(
    tool_name: str,
    arguments: Mapping[str, Any],
    decision: ToolCallDecision,
    on_fix: FixReaction,
) -> ToolGate | dict[str, Any]:
    """The gate after the check of the proposed call, or the suggested arguments that must be
    checked before deciding (``apply`` and ``retry`` with a suggestion)."""
    if decision.allow:
        return ToolGate("allow", dict(arguments), None, decision)
    suggested = decision.suggested_arguments
    if suggested is not None and on_fix != "block":
        return suggested
    return ToolGate("block", dict(arguments), block_message(tool_name, decision), decision)


def after_recheck(
    tool_name: str,
    arguments: Mapping[str, Any],
    decision: ToolCallDecision,
    suggested: dict[str, Any],
    recheck: ToolCallDecision,
    on_fix: FixReaction,
) -> ToolGate:
    """The gate once the suggested arguments were checked as well.

    Allowed safer arguments run the tool with them (``apply``), or are offered to the model in
    the block message (``retry``); safer arguments that are blocked in turn are never run nor
    offered, and the call is blocked for its own violations.
    """
    if not recheck.allow:
        return ToolGate(
            "block", dict(arguments), block_message(tool_name, decision), decision, recheck
        )
    if on_fix == "apply":
        return ToolGate("modify", suggested, None, decision, recheck)
    message = block_message(tool_name, decision, retry_with=suggested)
    return ToolGate("block", dict(arguments), message, decision, recheck)


def block_message(
    tool_name: str, decision: ToolCallDecision, *, retry_with: dict[str, Any] | None = None
) -> str:
    """The sentences a model reads for a blocked call.

    Names the tool, then each blocking policy with its explanation (what the rule requires);
    never the matched values, which may be the very data the policy protects. Ends with what the
    model can do: call again with ``retry_with``, or change the call or do without the tool.
    """
    reasons = dict.fromkeys(
        f"Policy {violation.policy_id}: {_sentence(violation.explanation)}"
        for violation in decision.violations
        if blocks(violation)
    )
    parts = [f"The call to the tool {tool_name} was blocked and did not run."]
    parts.extend(reasons)
    if retry_with is not None:
        safer = json.dumps(retry_with, ensure_ascii=False, allow_nan=False)
        parts.append(f"To go ahead, call {tool_name} again with these arguments: {safer}")
    else:
        parts.append(
            "Change the arguments as the policy requires, or answer without this tool; do not "
            "repeat the same call."
        )
    return " ".join(parts)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def tool_result_surface(tool_name: str, call_id: str | None) -> str:
    """Post-inference's ``surface`` of a tool's result: ``tool:<name>``, and ``#<call id>`` after
    it when the call has one (``tool:search_orders#call_7``)."""
    return f"tool:{tool_name}" if call_id is None else f"tool:{tool_name}#{call_id}"


def tool_result_text(result: Any) -> str:
    """The text a tool's result is checked as: a string as it is, anything else its JSON text
    (by the rules of :func:`~govcore.jsonable.jsonable_arguments`, keeping non-ASCII text as is
    so that detection reads what a user would).

    Raises:
        InvalidRequestError: a value with no JSON form, naming its path under ``result``.
    """
    if isinstance(result, str):
        return str.__str__(result)
    return json.dumps(jsonable_value(result, "result"), ensure_ascii=False, allow_nan=False)


def tool_result_request(
    session_id: str,
    tool_name: str,
    result: Any,
    call_id: str | None,
    trace_id: str | None,
) -> dict[str, Any]:
    """The post-inference request that checks a tool's result as output.

    Raises:
        InvalidRequestError: ``tool_name`` or ``call_id`` that is not non-empty text, or a
            result with no JSON form.
    """
    if not isinstance(tool_name, str) or not tool_name:
        raise InvalidRequestError.for_field("tool_name", "must be non-empty text")
    if call_id is not None and (not isinstance(call_id, str) or not call_id):
        raise InvalidRequestError.for_field("call_id", "must be non-empty text or None")
    request: dict[str, Any] = {
        "sessionId": session_id,
        "output": tool_result_text(result),
        "surface": tool_result_surface(tool_name, call_id),
    }
    if trace_id is not None:
        request["traceId"] = trace_id
    return request
