"""govcore: govern AI agents with an organisation's written policies, in-process.

Start with :meth:`Governance.from_config`, then call :meth:`Governance.client` for typed access
or :meth:`Governance.handle` to serve the HTTP interface from any transport.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from govcore._version import __version__
from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.core.selection import CandidateExplanation, SelectionExplanation
from govcore.decision_log import (
    Decision,
    DecisionLog,
    DecisionQueue,
    JsonlDecisionLog,
    MemoryDecisionLog,
    ShadowDiff,
)
from govcore.errors import (
    AuthenticationError,
    BackendError,
    ConfigError,
    GovcoreError,
    InternalError,
    InvalidRequestError,
    MethodNotAllowedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
)
from govcore.governance import AsyncGovernance, Governance, PolicySetVersion
from govcore.http import HttpResponse
from govcore.jsonable import jsonable_arguments
from govcore.models import (
    ApplicablePolicy,
    BindingEvent,
    ConversationSnapshot,
    FinalizeOutputRequest,
    OutputViolation,
    PostInferenceRequest,
    PostInferenceResponse,
    PreInferenceRequest,
    PreInferenceResponse,
    StreamCheckRequest,
    StreamCheckResponse,
    StreamViolation,
    ToolCallDecision,
    ToolCallRequest,
    Turn,
    TurnDiff,
    TurnRequest,
    TurnResponse,
    Violation,
)
from govcore.policy import PolicyDocument, PolicySet
from govcore.stream_guard import StreamCheckClient, StreamGuard
from govcore.tool_gate import FixReaction, ToolGate
from govcore.types import (
    Admission,
    AsyncPipelinedStore,
    AsyncStore,
    Clock,
    ExplainableIndex,
    IndexExplanation,
    PipelinedStore,
    PolicyScore,
    RetrievalHit,
    RetrievalIndex,
    Retriever,
    Store,
    StoreCommit,
    StoreReads,
    StoreWrite,
)
from govcore.verdicts import BLOCK_CONFIDENCE, blocks, text_to_deliver

if _typing.TYPE_CHECKING:
    from govcore.backends.memory import AsyncMemoryStore, MemoryStore

# Names of backend modules, imported at first use: importing govcore imports no backend.
_LAZY = {
    "AsyncMemoryStore": "govcore.backends.memory",
    "MemoryStore": "govcore.backends.memory",
}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'govcore' has no attribute {name!r}")
    return getattr(_importlib.import_module(module), name)


# Plain code-point order (sorted()), which the exported-members test checks; ruff's own
# order would put constants first.
__all__ = [  # noqa: RUF022
    "Admission",
    "ApplicablePolicy",
    "AsyncGovernance",
    "AsyncGovernanceClient",
    "AsyncMemoryStore",
    "AsyncPipelinedStore",
    "AsyncStore",
    "AuthenticationError",
    "BLOCK_CONFIDENCE",
    "BackendError",
    "BindingEvent",
    "CandidateExplanation",
    "Clock",
    "ConfigError",
    "ConversationSnapshot",
    "Decision",
    "DecisionLog",
    "DecisionQueue",
    "ExplainableIndex",
    "FinalizeOutputRequest",
    "FixReaction",
    "GovcoreError",
    "Governance",
    "GovernanceClient",
    "HttpResponse",
    "IndexExplanation",
    "InternalError",
    "InvalidRequestError",
    "JsonlDecisionLog",
    "MemoryDecisionLog",
    "MemoryStore",
    "MethodNotAllowedError",
    "NotFoundError",
    "OutputViolation",
    "PermissionDeniedError",
    "PipelinedStore",
    "PolicyDocument",
    "PolicyScore",
    "PolicySet",
    "PolicySetVersion",
    "PostInferenceRequest",
    "PostInferenceResponse",
    "PreInferenceRequest",
    "PreInferenceResponse",
    "RateLimitedError",
    "RetrievalHit",
    "RetrievalIndex",
    "Retriever",
    "SelectionExplanation",
    "ShadowDiff",
    "Store",
    "StoreCommit",
    "StoreReads",
    "StoreWrite",
    "StreamCheckClient",
    "StreamCheckRequest",
    "StreamCheckResponse",
    "StreamGuard",
    "StreamViolation",
    "ToolCallDecision",
    "ToolCallRequest",
    "ToolGate",
    "Turn",
    "TurnDiff",
    "TurnRequest",
    "TurnResponse",
    "Violation",
    "__version__",
    "blocks",
    "jsonable_arguments",
    "text_to_deliver",
]
