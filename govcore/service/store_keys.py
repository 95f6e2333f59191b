"""Store keys: the one place they are made.

A key is ``namespace:`` followed by its parts, each but the last prefixed with its length, so
no tenant id or session id, whatever characters it holds, can make two records share a key:
tenant ``a`` with session ``b:c`` is ``conv:{1:a}:b:c``, tenant ``a:b`` with session ``c`` is
``conv:{3:a:b}:c``.

The braces are a hash tag (the store protocol's rule): the records a turn commits together (the
conversation and its idempotency record) and the session's stream record carry the tenant as
their tag, so a sharded store keeps them in one shard. A tenant's records therefore share one
shard of a Redis Cluster; other tenants spread over the others (docs/deploying.md).
"""

from __future__ import annotations

__all__ = [
    "CONVERSATION",
    "IDEMPOTENCY",
    "PRE_INFERENCE",
    "RATE_WINDOW",
    "STREAM",
    "conversation_key",
    "idempotency_key",
    "pre_inference_key",
    "rate_window_key",
    "stream_key",
]

CONVERSATION = "conv"
IDEMPOTENCY = "idem"
RATE_WINDOW = "rate"
PRE_INFERENCE = "pre"
STREAM = "strm"


def _key(namespace: str, *parts: str) -> str:
    *prefixed, last = parts
    return ":".join([namespace, *(f"{len(part)}:{part}" for part in prefixed), last])


def _tenant_key(namespace: str, tenant: str, *parts: str) -> str:
    """A key of ``tenant``'s records: the tenant, length-prefixed, is its hash tag."""
    return _key(namespace + ":{" + f"{len(tenant)}:{tenant}" + "}", *parts)


def conversation_key(tenant: str, session_id: str) -> str:
    """Where a conversation's state lives."""
    return _tenant_key(CONVERSATION, tenant, session_id)


def idempotency_key(tenant: str, endpoint: str, key: str) -> str:
    """Where the record of an ``idempotencyKey`` of a tenant's endpoint lives."""
    return _tenant_key(IDEMPOTENCY, tenant, endpoint, key)


def rate_window_key(key_id: str) -> str:
    """Where an API key's rate-limit window lives."""
    return _key(RATE_WINDOW, key_id)


def pre_inference_key(tenant: str, fingerprint: str) -> str:
    """Where a tenant's cached pre-inference answer for a request fingerprint lives."""
    return _key(PRE_INFERENCE, tenant, fingerprint)


def stream_key(tenant: str, session_id: str) -> str:
    """Where the record of what a session's streaming check has checked lives."""
    return _tenant_key(STREAM, tenant, session_id)
