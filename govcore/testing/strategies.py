"""Hypothesis strategies for property-based tests of code that uses govcore, and of govcore.

Requests (valid and invalid) for every endpoint of the interface, session ids, tool arguments,
policy documents and whole configurations, texts with planted values of every built-in ``pii``
kind together with where they are, and the ways a text can be streamed in pieces. docs/testing.md
lists them with an example each.

What "valid" means here is written from the interface and its documented limits (docs/api.md,
docs/decisions/request-limits.md, at the default settings), not read from govcore's own
validation: a valid request is answered 200 by a key with every scope and feature setting, the
first time its ``idempotencyKey`` is used and within the key's rate limit; an invalid one is
answered 400 with a detail naming :attr:`InvalidRequest.field`.

The planted values are made by this module's own generators, from each identifier's published
rule (Luhn, ISO 13616 mod 97, Verhoeff, the national check digits), never by asking govcore's
detectors; the filler text around them is made of words that none of the detectors can match.

Needs ``hypothesis`` (``pip install 'govcore[testing]'``); ``import govcore`` and
``import govcore.testing`` do not import this module.
"""

from __future__ import annotations

import hashlib
import ipaddress
import itertools
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from govcore import policy as _policy

__all__ = [
    "ENDPOINTS",
    "FILLER_WORDS",
    "PII_KINDS",
    "InvalidRequest",
    "PlantedSpan",
    "PlantedText",
    "chunkings",
    "configurations",
    "filler",
    "invalid_fields",
    "invalid_requests",
    "invalid_session_ids",
    "json_values",
    "planted_texts",
    "planted_values",
    "policy_documents",
    "session_ids",
    "texts",
    "texts_with_chunkings",
    "tool_arguments",
    "valid_requests",
]

# --- limits of the interface, at the default settings (docs/decisions/request-limits.md) -----

_MAX_ID = 256
_MAX_CONTENT_BYTES = 256 * 1024
_MAX_OUTPUT_BYTES = 1024 * 1024
_MAX_RECENT = 50
_MAX_AREAS = 100
_MAX_ATTRIBUTES = 100
_MAX_JSON_DEPTH = 32
_INT64 = 2**63
_TOKEN_BUDGET = (50, 4000)
_TTL = (300, 604_800)

ENDPOINTS: Final[Mapping[str, tuple[str, str]]] = {
    "record_turn": ("POST", "/governance/conversation/turn"),
    "pre_inference": ("POST", "/governance/pre-inference"),
    "post_inference": ("POST", "/governance/post-inference"),
    "check_tool_call": ("POST", "/governance/check-tool-call"),
    "check_output_stream": ("POST", "/governance/check-output/stream"),
    "finalize_output": ("POST", "/governance/check-output/finalize"),
    "get_conversation": ("GET", "/governance/conversation/{sessionId}"),
    "delete_conversation": ("DELETE", "/governance/conversation/{sessionId}"),
}
"""Each endpoint by the typed client's method name: its HTTP method and path (relative to the
mount). The first six take a JSON body (:func:`valid_requests`, :func:`invalid_requests`); the
last two a session id in the path (:func:`session_ids`, :func:`invalid_session_ids`)."""

_BODY_ENDPOINTS = tuple(name for name, (method, _) in ENDPOINTS.items() if method == "POST")


# --- text ------------------------------------------------------------------------------------

# Every code point but the surrogates: what a Python str holds that UTF-8 can carry.
_CHARACTERS = st.characters(codec="utf-8")


def texts(*, min_size: int = 0, max_size: int = 200) -> SearchStrategy[str]:
    """Any text that can be encoded as UTF-8: letters of every script, controls, emoji,
    combining marks, invisible characters; no unpaired surrogate.

    Args:
        min_size: the fewest code points.
        max_size: the most code points (keep it well under the 256 KiB content limit).
    """
    return st.text(_CHARACTERS, min_size=min_size, max_size=max_size)


# Characters an identifier may not hold (docs/decisions/request-limits.md, Identifiers): C0 and
# C1 controls, DEL, the line and paragraph separators, the interlinear annotation marks and the
# bidirectional controls.
_ID_CONTROLS = (
    [chr(c) for c in range(0x20)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + ["\u2028", "\u2029", "\ufff9", "\ufffa", "\ufffb"]
)
_BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e"]
_BIDI += ["\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f", "\u061c"]
_INVISIBLE = [" ", "\t", "\u00a0", "\u3000", "\u200b", "\u2060", "\ufeff", "\u00ad", "\u3164"]
_ID_CHARACTERS = st.characters(
    exclude_categories=("Cs", "Cc", "Zl", "Zp"),
    exclude_characters="".join(_BIDI) + "\ufff9\ufffa\ufffb",
)


@st.composite
def _session_id(draw: DrawFn) -> str:
    # One visible ASCII character makes the id not blank, whatever surrounds it.
    visible = draw(st.sampled_from(string.ascii_letters + string.digits + "-_.:"))
    before = draw(st.text(_ID_CHARACTERS, max_size=40))
    after = draw(st.text(_ID_CHARACTERS, max_size=40))
    return before + visible + after


def session_ids() -> SearchStrategy[str]:
    """Valid session ids (also valid as ``idempotencyKey`` and ``traceId``): 1 to 256 characters
    of any script, spaces inside allowed, no control, bidirectional control or unpaired
    surrogate, not blank. At most 81 characters, so a test can add a suffix of its own."""
    return _session_id()


def invalid_session_ids(*, for_path: bool = False) -> SearchStrategy[str]:
    """Session ids every endpoint refuses with 400 naming ``sessionId``: empty, longer than 256
    characters, blank (only whitespace or invisible characters), or holding a control
    character, a line separator or a bidirectional control.

    Args:
        for_path: ids for ``GET``/``DELETE conversation/{sessionId}``, percent-encoded by the
            caller: without the empty id (which leaves no path segment to refuse).
    """
    valid = session_ids()
    inserted = st.tuples(valid, st.sampled_from(_ID_CONTROLS + _BIDI), valid).map("".join)
    blank = st.lists(st.sampled_from(_INVISIBLE), min_size=1, max_size=8).map("".join)
    too_long = st.integers(_MAX_ID + 1, _MAX_ID + 64).map(lambda n: "s" * n)
    options = [inserted, blank, too_long]
    if not for_path:
        options.append(st.just(""))
    return st.one_of(options)


# --- JSON values and tool arguments ------------------------------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-_INT64, _INT64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    texts(max_size=40),
)


def json_values(*, max_leaves: int = 20) -> SearchStrategy[Any]:
    """Free-form JSON values as the interface accepts them (tool arguments, ``context``): null,
    booleans, integers within 64 bits, finite floats, text, and lists and objects of those.

    Args:
        max_leaves: the most scalars in one value; it also bounds the nesting, which stays
            within the interface's 32 levels as long as it is at most 31.
    """
    return st.recursive(
        _SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(texts(max_size=12), inner, max_size=4)
        ),
        max_leaves=min(max_leaves, _MAX_JSON_DEPTH - 1),
    )


def tool_arguments(*, max_leaves: int = 20) -> SearchStrategy[dict[str, Any]]:
    """A tool call's ``arguments``: a JSON object of :func:`json_values`.

    Args:
        max_leaves: as for :func:`json_values`.
    """
    return st.dictionaries(texts(max_size=12), json_values(max_leaves=max_leaves), max_size=5)


# --- valid requests ----------------------------------------------------------------------------

_ROLES = ("user", "assistant", "tool")
_ATTRIBUTE_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-_INT64, _INT64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    texts(max_size=20),
)
_END_USER_CONTEXT = st.fixed_dictionaries(
    {},
    optional={
        "attributes": st.none()
        | st.dictionaries(
            texts(max_size=16),
            _ATTRIBUTE_SCALARS | st.lists(_ATTRIBUTE_SCALARS, max_size=4),
            max_size=5,
        )
    },
)
_AREAS = st.lists(texts(min_size=1, max_size=16), max_size=4)
_CONTENT = texts(max_size=300)


def _turn_requests(role: str | None) -> SearchStrategy[dict[str, Any]]:
    roles = st.sampled_from(_ROLES) if role is None else st.just(role)
    return st.fixed_dictionaries(
        {
            "sessionId": session_ids(),
            "turn": st.fixed_dictionaries({"role": roles, "content": _CONTENT}),
        },
        optional={
            "recentContext": st.none() | st.lists(texts(max_size=60), max_size=4),
            "priorHistory": st.none()
            | st.lists(
                st.fixed_dictionaries(
                    {"role": st.sampled_from(_ROLES), "content": texts(max_size=60)}
                ),
                max_size=4,
            ),
            "endUserContext": st.none() | _END_USER_CONTEXT,
            "policyAreaIds": st.none() | _AREAS,
            "tokenBudget": st.integers(*_TOKEN_BUDGET),
            "idempotencyKey": st.none() | session_ids(),
            "ttlSeconds": st.none() | st.integers(*_TTL),
        },
    )


@st.composite
def _turn_request(draw: DrawFn) -> dict[str, Any]:
    body = draw(_turn_requests(None))
    # checkOutput: true is valid only on an assistant's turn (interface spec §4.1).
    if body["turn"]["role"] == "assistant":
        choice = draw(st.sampled_from(("absent", "true", "false")))
        if choice != "absent":
            body["checkOutput"] = choice == "true"
    elif draw(st.booleans()):
        body["checkOutput"] = False
    return body


def _pre_inference_requests() -> SearchStrategy[dict[str, Any]]:
    message = texts(max_size=60) | st.fixed_dictionaries(
        {"role": st.sampled_from(_ROLES), "content": texts(max_size=60)}
    )
    return st.fixed_dictionaries(
        {"sessionId": session_ids(), "prompt": _CONTENT},
        optional={
            "recentMessages": st.none() | st.lists(message, max_size=4),
            "context": st.none() | tool_arguments(max_leaves=8),
            "endUserContext": st.none() | _END_USER_CONTEXT,
            "policyAreaIds": st.none() | _AREAS,
            "tokenBudget": st.integers(*_TOKEN_BUDGET),
            "isUpdate": st.booleans(),
        },
    )


def _post_inference_requests() -> SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"sessionId": session_ids(), "output": texts(max_size=400)},
        optional={
            "prompt": st.none() | _CONTENT,
            "surface": st.none() | texts(max_size=20),
            "policyAreaIds": st.none() | _AREAS,
            "traceId": st.none() | session_ids(),
        },
    )


def _tool_call_requests() -> SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "sessionId": session_ids(),
            "toolName": texts(min_size=1, max_size=40),
            "arguments": tool_arguments(),
        },
        optional={"intent": st.just("proposed")},
    )


@st.composite
def _stream_request(draw: DrawFn, *, final: bool | None) -> dict[str, Any]:
    full_text = draw(texts(max_size=400))
    body: dict[str, Any] = {"sessionId": draw(session_ids()), "fullText": full_text}
    if draw(st.booleans()):
        # From 0 to the length of fullText, in code points (docs/api.md, Streaming check).
        body["lastCheckedOffset"] = draw(st.integers(0, len(full_text)))
    if final is None:
        if draw(st.booleans()):
            body["isFinal"] = draw(st.booleans())
    else:
        body["isFinal"] = final
    return body


_VALID: dict[str, Callable[[], SearchStrategy[dict[str, Any]]]] = {
    "record_turn": _turn_request,
    "pre_inference": _pre_inference_requests,
    "post_inference": _post_inference_requests,
    "check_tool_call": _tool_call_requests,
    "check_output_stream": lambda: _stream_request(final=None),
    "finalize_output": lambda: _stream_request(final=None),
}


def valid_requests(endpoint: str) -> SearchStrategy[dict[str, Any]]:
    """Bodies (wire field names, ready for ``json.dumps`` or a typed client) that
    ``endpoint`` answers with 200: every optional field present or absent, text of any script,
    the numbers across their whole range.

    Valid for a key with every scope and feature setting, within its rate limit, and (for a
    turn's ``idempotencyKey``) the first time the key is used in 5 minutes: a replay of one key
    with another body is refused by design. Texts stay short (hundreds of characters), far
    within the content limits.

    Args:
        endpoint: a body endpoint of :data:`ENDPOINTS` (``"record_turn"``, ``"pre_inference"``,
            ``"post_inference"``, ``"check_tool_call"``, ``"check_output_stream"``,
            ``"finalize_output"``).

    Raises:
        ValueError: ``endpoint`` is not one of those.
    """
    if endpoint not in _VALID:
        raise ValueError(f"no body endpoint {endpoint!r}; one of {', '.join(_BODY_ENDPOINTS)}")
    return _VALID[endpoint]()


# --- invalid requests --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InvalidRequest:
    """A request body the endpoint refuses with 400, and the field its answer names."""

    body: Any
    """The JSON body (usually an object; a JSON array or text for the ``body`` field)."""
    field: str
    """The offending field as a 400's ``details`` name it (``turn.role``, ``recentContext[0]``,
    ``body``); every detail of the answer names it or a place inside it."""
    reason: str
    """What is wrong, in words, for a failing test's report."""


_MISSING: Final = object()
"""A mutation's value that removes the field."""


@dataclass(frozen=True, slots=True)
class _Mutation:
    """One way to make a valid body invalid: the value put at ``field`` (``_MISSING`` removes
    it), or for a rule across fields, ``rewrite`` makes the invalid body from the valid one."""

    field: str
    values: SearchStrategy[Any]
    reason: str
    rewrite: Callable[[DrawFn, dict[str, Any]], Any] | None = None


def _place(body: dict[str, Any], path: str, value: Any) -> None:
    """Set (or with ``_MISSING`` remove) the value at a dotted path with ``[n]`` list steps;
    missing objects and lists on the way are made."""
    steps: list[str | int] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        steps.append(name)
        steps.extend(int(index) for index in rest.rstrip("]").split("][") if index)
    target: Any = body
    for step, following in itertools.pairwise(steps):
        if isinstance(step, int):
            while len(target) <= step:
                target.append({} if isinstance(following, str) else [])
            target = target[step]
        else:
            if not isinstance(target.get(step), dict | list):
                target[step] = [] if isinstance(following, int) else {}
            target = target[step]
    last = steps[-1]
    if value is _MISSING:
        if isinstance(target, dict):
            target.pop(last, None)
        return
    if isinstance(last, int):
        while len(target) <= last:
            target.append(None)
    target[last] = value


_NOT_TEXT: SearchStrategy[Any] = st.sampled_from([5, 2.5, True, None, [], {}])
_NOT_INT: SearchStrategy[Any] = st.sampled_from(["600", 600.5, True, None, [], {}])
_NOT_BOOL: SearchStrategy[Any] = st.sampled_from(["true", 1, 0, None, [], {}])
_NOT_OBJECT: SearchStrategy[Any] = st.sampled_from([[], "x", 5, True])


def _nested(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return {"deep": value}


def _beyond(low: int, high: int) -> SearchStrategy[int]:
    """Integers outside ``low..high``: often the first one beyond a bound, where a wrong bound
    shows."""
    below = st.integers(min_value=-_INT64, max_value=low - 1)
    above = st.integers(min_value=high + 1, max_value=_INT64 - 1)
    return st.one_of(st.just(high + 1), st.just(low - 1), below, above)


def _too_big(limit: int) -> SearchStrategy[str]:
    # ASCII, so the byte count is the character count.
    return st.just("x" * (limit + 1))


def _not_an_object(draw: DrawFn, body: dict[str, Any]) -> Any:
    return draw(_NOT_OBJECT)


def _offset_beyond_the_text(draw: DrawFn, body: dict[str, Any]) -> Any:
    body["lastCheckedOffset"] = len(body["fullText"]) + draw(st.integers(1, 100))
    return body


def _check_output_not_the_assistants(draw: DrawFn, body: dict[str, Any]) -> Any:
    body["turn"]["role"] = draw(st.sampled_from(("user", "tool")))
    body["checkOutput"] = True
    return body


_BODY = _Mutation("body", st.nothing(), "the body is not a JSON object", _not_an_object)
_COMMON = (
    _BODY,
    _Mutation("sessionId", invalid_session_ids(), "an invalid session id"),
    _Mutation("sessionId", st.just(_MISSING), "sessionId is required"),
    _Mutation("sessionId", _NOT_TEXT, "sessionId is not a string"),
    _Mutation("tenantId", texts(max_size=10), "a tenant is never sent in a body"),
    _Mutation(
        "unknownField",
        _SCALARS,
        "a field the interface does not define",
    ),
)
_TOKEN_BUDGETS = (
    _Mutation(
        "tokenBudget",
        _beyond(*_TOKEN_BUDGET),
        "tokenBudget outside 50..4000",
    ),
    _Mutation("tokenBudget", _NOT_INT, "tokenBudget is not an integer"),
)
_AREA_MUTATIONS = (
    _Mutation("policyAreaIds[0]", st.just(""), "an empty area id"),
    _Mutation("policyAreaIds[0]", _NOT_TEXT, "an area id is not a string"),
    _Mutation(
        "policyAreaIds",
        st.just([f"area{i}" for i in range(_MAX_AREAS + 1)]),
        "more than 100 area ids",
    ),
)
_ATTRIBUTE_MUTATIONS = (
    _Mutation(
        "endUserContext.attributes",
        st.just({f"a{i}": i for i in range(_MAX_ATTRIBUTES + 1)}),
        "more than 100 attributes",
    ),
    _Mutation(
        "endUserContext.attributes.nested",
        st.just({"an": "object"}),
        "an attribute's value is an object",
    ),
    _Mutation("endUserContext", _NOT_OBJECT, "endUserContext is not an object"),
)

_MUTATIONS: dict[str, tuple[_Mutation, ...]] = {
    "record_turn": (
        *_COMMON,
        *_TOKEN_BUDGETS,
        *_AREA_MUTATIONS,
        *_ATTRIBUTE_MUTATIONS,
        _Mutation("turn", st.just(_MISSING), "turn is required"),
        _Mutation("turn", _NOT_OBJECT, "turn is not an object"),
        _Mutation("turn.role", st.sampled_from(["system", "bot", "", 1]), "an unknown role"),
        _Mutation("turn.content", _NOT_TEXT, "content is not a string"),
        _Mutation("turn.content", _too_big(_MAX_CONTENT_BYTES), "content over 256 KiB"),
        _Mutation(
            "recentContext",
            st.just(["earlier"] * (_MAX_RECENT + 1)),
            "more than 50 recentContext entries",
        ),
        _Mutation("recentContext[0]", _NOT_TEXT, "a recentContext entry is not a string"),
        _Mutation(
            "priorHistory[0].role",
            st.nothing(),
            "an unknown role in priorHistory",
            lambda draw, body: {
                **body,
                "priorHistory": [
                    {"role": draw(st.sampled_from(["system", "narrator"])), "content": "earlier"}
                ],
            },
        ),
        _Mutation("idempotencyKey", invalid_session_ids(), "an invalid idempotency key"),
        _Mutation(
            "ttlSeconds",
            _beyond(*_TTL),
            "ttlSeconds outside 300..604800",
        ),
        _Mutation("checkOutput", _NOT_BOOL, "checkOutput is not a boolean"),
        _Mutation(
            "checkOutput",
            st.nothing(),
            "checkOutput on a turn that is not the assistant's",
            _check_output_not_the_assistants,
        ),
    ),
    "pre_inference": (
        *_COMMON,
        *_TOKEN_BUDGETS,
        *_AREA_MUTATIONS,
        *_ATTRIBUTE_MUTATIONS,
        _Mutation("prompt", st.just(_MISSING), "prompt is required"),
        _Mutation("prompt", _NOT_TEXT, "prompt is not a string"),
        _Mutation("prompt", _too_big(_MAX_CONTENT_BYTES), "prompt over 256 KiB"),
        _Mutation(
            "recentMessages",
            st.just(["earlier"] * (_MAX_RECENT + 1)),
            "more than 50 recentMessages",
        ),
        _Mutation("recentMessages[0]", st.sampled_from([5, None, True]), "not a message"),
        _Mutation("context", _NOT_OBJECT, "context is not an object"),
        _Mutation("isUpdate", _NOT_BOOL, "isUpdate is not a boolean"),
    ),
    "post_inference": (
        *_COMMON,
        *_AREA_MUTATIONS,
        _Mutation("output", st.just(_MISSING), "output is required"),
        _Mutation("output", _NOT_TEXT, "output is not a string"),
        _Mutation("output", _too_big(_MAX_OUTPUT_BYTES), "output over 1 MiB"),
        _Mutation("prompt", st.sampled_from([5, True, []]), "prompt is not a string"),
        _Mutation("surface", st.sampled_from([5, True, {}]), "surface is not a string"),
        _Mutation("traceId", invalid_session_ids(), "an invalid trace id"),
    ),
    "check_tool_call": (
        *_COMMON,
        _Mutation("toolName", st.just(_MISSING), "toolName is required"),
        _Mutation("toolName", st.just(""), "an empty tool name"),
        _Mutation("toolName", st.just("t" * (_MAX_ID + 1)), "a tool name over 256 characters"),
        _Mutation("toolName", _NOT_TEXT, "toolName is not a string"),
        _Mutation("arguments", st.just(_MISSING), "arguments is required"),
        _Mutation("arguments", _NOT_OBJECT, "arguments is not an object"),
        _Mutation(
            "arguments",
            st.integers(_MAX_JSON_DEPTH, _MAX_JSON_DEPTH + 8).map(_nested),
            "arguments nested more than 32 levels",
        ),
        _Mutation(
            "arguments",
            st.sampled_from([{"n": _INT64}, {"n": [-_INT64 - 1]}]),
            "an integer beyond 64 bits",
        ),
        _Mutation("intent", st.sampled_from(["executed", "", 1]), "an unknown intent"),
    ),
}
_STREAM_MUTATIONS = (
    *_COMMON,
    _Mutation("fullText", st.just(_MISSING), "fullText is required"),
    _Mutation("fullText", _NOT_TEXT, "fullText is not a string"),
    _Mutation("fullText", _too_big(_MAX_OUTPUT_BYTES), "fullText over 1 MiB"),
    _Mutation("lastCheckedOffset", st.integers(-1000, -1), "a negative offset"),
    _Mutation("lastCheckedOffset", _NOT_INT, "lastCheckedOffset is not an integer"),
    _Mutation(
        "lastCheckedOffset",
        st.nothing(),
        "lastCheckedOffset beyond the end of fullText",
        _offset_beyond_the_text,
    ),
    _Mutation("isFinal", _NOT_BOOL, "isFinal is not a boolean"),
)
_MUTATIONS["check_output_stream"] = _STREAM_MUTATIONS
_MUTATIONS["finalize_output"] = _STREAM_MUTATIONS


@st.composite
def _invalid_request(
    draw: DrawFn, endpoint: str, mutations: tuple[_Mutation, ...]
) -> InvalidRequest:
    mutation = draw(st.sampled_from(mutations))
    body = draw(valid_requests(endpoint))
    if mutation.rewrite is not None:
        return InvalidRequest(mutation.rewrite(draw, body), mutation.field, mutation.reason)
    _place(body, mutation.field, draw(mutation.values))
    return InvalidRequest(body, mutation.field, mutation.reason)


def invalid_fields(endpoint: str) -> tuple[str, ...]:
    """The fields :func:`invalid_requests` of ``endpoint`` can name, sorted (``body``,
    ``sessionId``, ``turn.role``, ``recentContext[0]``...): one test per field makes sure each
    kind of mistake is tried.

    Args:
        endpoint: a body endpoint of :data:`ENDPOINTS`, as for :func:`valid_requests`.

    Raises:
        ValueError: ``endpoint`` is not a body endpoint of :data:`ENDPOINTS`.
    """
    return tuple(sorted({mutation.field for mutation in _mutations_of(endpoint)}))


def _mutations_of(endpoint: str) -> tuple[_Mutation, ...]:
    if endpoint not in _MUTATIONS:
        raise ValueError(f"no body endpoint {endpoint!r}; one of {', '.join(_BODY_ENDPOINTS)}")
    return _MUTATIONS[endpoint]


def invalid_requests(endpoint: str, *, field: str | None = None) -> SearchStrategy[InvalidRequest]:
    """Bodies ``endpoint`` refuses with 400, each a valid body (:func:`valid_requests`) with
    exactly one thing wrong, and the field the answer names: a required field missing, a value
    of the wrong JSON type (strict parsing: ``"600"`` is no integer), a number out of its range
    (its first value beyond each bound among them), an invalid identifier, a list or text over
    its limit, an unknown field, a tenant id, free JSON nested too deeply, a rule across fields
    broken (``checkOutput`` on a user's turn, an offset beyond ``fullText``), or a body that is
    no JSON object (field ``body``).

    Args:
        endpoint: a body endpoint of :data:`ENDPOINTS`, as for :func:`valid_requests`.
        field: only mistakes named by this field (one of :func:`invalid_fields`); by default
            any.

    Raises:
        ValueError: ``endpoint`` is not one of those, or ``field`` is not one of its fields.
    """
    mutations = _mutations_of(endpoint)
    if field is not None:
        mutations = tuple(m for m in mutations if m.field == field)
        if not mutations:
            raise ValueError(
                f"{endpoint} has no invalid requests naming {field!r}; "
                f"one of {', '.join(invalid_fields(endpoint))}"
            )
    return _invalid_request(endpoint, mutations)


# --- policy documents and configurations ---------------------------------------------------------

PII_KINDS: Final[tuple[str, ...]] = _policy.PII_KINDS
"""The built-in ``pii`` kinds (docs/detection.md), each of which :func:`planted_values` can
make values of."""

_WORD_TEXT = st.text(string.ascii_letters + string.digits + " ,.'-éßøΩж", min_size=1, max_size=40)
_SLUG = st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=12)


def _regex_rules() -> SearchStrategy[dict[str, Any]]:
    # Alternations of lower-case words: every pattern compiles in RE2 and costs little.
    words = st.lists(st.text(string.ascii_lowercase, min_size=3, max_size=10), min_size=1)
    return words.map(lambda ws: {"regex": "|".join(ws[:4])})


def _detect_rules() -> SearchStrategy[dict[str, Any]]:
    kind = (
        _regex_rules()
        | st.lists(
            st.text(string.ascii_lowercase + " ", min_size=1, max_size=16).filter(str.strip),
            min_size=1,
            max_size=4,
        ).map(lambda terms: {"terms": terms})
        | st.sampled_from(PII_KINDS).map(lambda k: {"pii": k})
        | st.lists(st.sampled_from(PII_KINDS), min_size=1, max_size=4, unique=True).map(
            lambda ks: {"pii": ks}
        )
    )
    extras = st.fixed_dictionaries(
        {},
        optional={
            "confidence": st.floats(0.0, 1.0),
            "replacement": _WORD_TEXT,
            "explanation": _WORD_TEXT,
        },
    )
    return st.tuples(kind, extras).map(lambda pair: {**pair[0], **pair[1]})


def _tool_rules() -> SearchStrategy[dict[str, Any]]:
    tool = st.sampled_from(["send_email", "refund", "db.*", "*", "transfer_funds"])
    deny = st.fixed_dictionaries({"tool": tool, "deny": st.just(True)})

    @st.composite
    def argument(draw: DrawFn) -> dict[str, Any]:
        rule: dict[str, Any] = {
            "tool": draw(tool),
            "argument": draw(st.sampled_from(["amount", "to", "items[*].price", "a.b[0]"])),
        }
        checks = draw(
            st.lists(
                st.sampled_from(["max", "min", "oneOf", "detect"]),
                min_size=1,
                max_size=4,
                unique=True,
            )
        )
        low, high = sorted(draw(st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000))))
        if "max" in checks:
            rule["max"] = high
        if "min" in checks:
            rule["min"] = low
        if "oneOf" in checks:
            rule["oneOf"] = draw(st.lists(_ATTRIBUTE_SCALARS, min_size=1, max_size=3))
        if "detect" in checks:
            rule["detect"] = draw(st.lists(_detect_rules(), min_size=1, max_size=2))
        if draw(st.booleans()):
            rule["confidence"] = draw(st.floats(0.0, 1.0))
        return rule

    return deny | argument()


@st.composite
def _policy_document(draw: DrawFn, policy_id: str | None, areas: Sequence[str]) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": policy_id if policy_id is not None else draw(_SLUG),
        "title": draw(_WORD_TEXT),
        "summary": draw(_WORD_TEXT),
        # Whole and half severities, as the interface shows them, and any in between.
        "severity": draw(st.integers(0, 20).map(lambda n: n / 2) | st.floats(0.0, 10.0)),
        "enforcement": draw(st.sampled_from(["fix", "warning", "audit"])),
        "citationRef": draw(_WORD_TEXT),
    }
    optional: dict[str, SearchStrategy[Any]] = {
        "text": _WORD_TEXT,
        "tags": st.lists(_SLUG, max_size=3),
        "alwaysOn": st.booleans(),
        "appliesWhen": st.dictionaries(
            st.sampled_from(["region", "tier", "channel"]),
            _ATTRIBUTE_SCALARS | st.lists(_ATTRIBUTE_SCALARS, max_size=3),
            max_size=2,
        ),
        "examples": st.lists(_WORD_TEXT, max_size=3),
        "detect": st.lists(_detect_rules(), max_size=3),
        "detectInToolCalls": st.sampled_from(["always", "whenActive"]),
        "tools": st.lists(_tool_rules(), max_size=2),
    }
    if areas:
        optional["area"] = st.sampled_from(list(areas))
    for name, values in optional.items():
        if draw(st.booleans()):
            document[name] = draw(values)
    return document


def policy_documents(
    *, policy_id: str | None = None, areas: Sequence[str] = ("privacy", "payments", "conduct")
) -> SearchStrategy[dict[str, Any]]:
    """Policy documents (camelCase, as in a policy file) that a configuration accepts: the
    required fields, and any of the optional ones (``text``, ``tags``, ``area``, ``alwaysOn``,
    ``appliesWhen``, ``examples``, ``detect`` rules of every kind, ``detectInToolCalls``,
    ``tools`` rules that deny or check an argument).

    Args:
        policy_id: the id every document gets; by default a short slug.
        areas: the areas a document's ``area`` is drawn from; empty for none.
    """
    return _policy_document(policy_id, areas)


_FULL_KEY_SETTINGS: Final[Mapping[str, Any]] = {
    "post_inference_checking": "allowed",
    "tool_call_governance": "allowed",
    "rate_limit_per_minute": "unlimited",
}
_ALL_SCOPES = ["governance:read", "governance:check", "policies:read", "policies:ack"]
_ALL_SCOPES.append("feedback:write")


@st.composite
def _configuration(
    draw: DrawFn, min_policies: int, max_policies: int, tenants: int
) -> dict[str, Any]:
    config: dict[str, Any] = {"tenants": {}, "keys": []}
    for number in range(tenants):
        tenant = f"tenant-{number}"
        count = draw(st.integers(min_policies, max_policies))
        config["tenants"][tenant] = {
            "policies": [draw(policy_documents(policy_id=f"p{i}")) for i in range(count)]
        }
        config["keys"].append(
            {
                "key": f"gk_generated_{tenant}_key",
                "tenant": tenant,
                "scopes": list(_ALL_SCOPES),
                "settings": dict(_FULL_KEY_SETTINGS),
            }
        )
    if draw(st.booleans()):
        config["settings"] = {"conversation_ttl_seconds": draw(st.integers(*_TTL))}
    return config


def configurations(
    *, min_policies: int = 0, max_policies: int = 8, tenants: int = 1
) -> SearchStrategy[dict[str, Any]]:
    """Whole configurations that ``Governance.from_config`` accepts: ``tenants`` tenants named
    ``tenant-0``, ``tenant-1``, ... each with its policies (:func:`policy_documents`, ids
    ``p0``, ``p1``, ...) and one key ``gk_generated_<tenant>_key`` with every scope, every
    feature setting allowed and no rate limit.

    Args:
        min_policies: the fewest policies of a tenant.
        max_policies: the most policies of a tenant (the size of the configuration).
        tenants: how many tenants.
    """
    return _configuration(min_policies, max_policies, tenants)


# --- planted values --------------------------------------------------------------------------

FILLER_WORDS: Final[tuple[str, ...]] = (
    "the", "quiet", "river", "runs", "under", "old", "stone", "bridges", "while", "morning",
    "light", "falls", "across", "green", "hills", "and", "small", "birds", "sing", "over",
    "fields", "of", "wheat", "near", "wooden", "fence", "every", "autumn", "leaves", "turn",
    "gold", "before", "winter", "snow", "covers", "valley", "roads", "slowly", "bright",
)  # fmt: skip
"""Lower-case ASCII words none of the detectors can match, alone or side by side: no digits,
no ``@``, no word that names an identifier (``phone``, ``tin``, ``pan``...), no run of
letters a token format or a code could take (no two capitals, no hex run of six)."""


def filler(*, min_words: int = 0, max_words: int = 8) -> SearchStrategy[str]:
    """Text of :data:`FILLER_WORDS` separated by single spaces: safe to put around planted
    values, since no detector finds anything in it.

    Args:
        min_words: the fewest words.
        max_words: the most words.
    """
    return st.lists(st.sampled_from(FILLER_WORDS), min_size=min_words, max_size=max_words).map(
        " ".join
    )


@dataclass(frozen=True, slots=True)
class PlantedSpan:
    """Where a planted value is in its text."""

    start: int
    """Code point offset of its first character (as a streaming violation's ``offset``)."""
    end: int
    """Code point offset just after its last character."""
    kind: str
    """The ``pii`` kind that must find it."""
    value: str
    """The value itself: ``text[start:end]``."""


@dataclass(frozen=True, slots=True)
class PlantedText:
    """A text with values of ``pii`` kinds planted in it, and where they are."""

    text: str
    spans: tuple[PlantedSpan, ...]
    """In text order."""


def _digits(count: int, low: int = 0) -> SearchStrategy[list[int]]:
    return st.lists(st.integers(low, 9), min_size=count, max_size=count)


def _luhn_check(payload: Sequence[int]) -> int:
    """The digit that makes ``payload`` + it pass Luhn (ISO/IEC 7812-1, annex B)."""
    total = 0
    for position, value in enumerate(reversed(payload)):
        if position % 2 == 0:  # these are doubled once the check digit is appended
            value *= 2
            value = value - 9 if value > 9 else value
        total += value
    return (10 - total % 10) % 10


def _join(values: Sequence[int]) -> str:
    return "".join(map(str, values))


def _grouped(text: str, sizes: Sequence[int], separator: str) -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(text[at : at + size])
        at += size
    return separator.join(parts)


def _valid_day(year: int, month: int, day: int) -> bool:
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    return day <= days[month - 1]


# A date of birth, drawn as a real one: year, month, day.
_DATES = st.tuples(st.integers(1920, 2019), st.integers(1, 12), st.integers(1, 28))


@dataclass(frozen=True, slots=True)
class _Planted:
    before: str  # the words that name the value, written just before it (may be "")
    value: str


@st.composite
def _email(draw: DrawFn) -> _Planted:
    word = st.text(string.ascii_lowercase, min_size=1, max_size=10)
    local = ".".join(draw(st.lists(word, min_size=1, max_size=3)))
    domain = ".".join(draw(st.lists(word, min_size=1, max_size=2)))
    top = draw(st.sampled_from(["com", "org", "net", "io", "dev", "de", "uk"]))
    return _Planted("", f"{local}@{domain}.{top}")


@st.composite
def _credit_card(draw: DrawFn) -> _Planted:
    # Issuers' prefixes and lengths (ISO/IEC 7812): Visa 4 (16), Mastercard 51-55 and
    # 2221-2720 (16), Amex 34/37 (15, written 4-6-5), Discover 6011 (16).
    prefix, length = draw(
        st.sampled_from([([4], 16), ([5, 1], 16), ([5, 5], 16), ([2, 2, 2, 1], 16),
                         ([3, 4], 15), ([3, 7], 15), ([6, 0, 1, 1], 16)])
    )  # fmt: skip
    body = [*prefix, *draw(_digits(length - 1 - len(prefix)))]
    if len(set(body)) == 1:
        body[-1] = (body[-1] + 1) % 10  # a card is never one digit repeated
    number = _join([*body, _luhn_check(body)])
    separator = draw(st.sampled_from(["", " ", "-"]))
    sizes = (4, 6, 5) if length == 15 else (4, 4, 4, 4)
    return _Planted("", _grouped(number, sizes, separator) if separator else number)


_IBAN_COUNTRIES = {  # country: (letters of the bank code, digits after them)
    "GB": (4, 14), "DE": (0, 18), "FR": (0, 23), "NL": (4, 10), "ES": (0, 20),
    "BE": (0, 12), "CH": (0, 17), "AT": (0, 16), "PL": (0, 24), "IE": (4, 14),
}  # fmt: skip


@st.composite
def _iban(draw: DrawFn) -> _Planted:
    country = draw(st.sampled_from(sorted(_IBAN_COUNTRIES)))
    letters, digits = _IBAN_COUNTRIES[country]
    bban = draw(st.text(string.ascii_uppercase, min_size=letters, max_size=letters))
    bban += _join(draw(_digits(digits)))
    # ISO 13616: check digits 98 - (BBAN + country + "00" as a number) mod 97, letters A=10...
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    iban = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    if draw(st.booleans()):
        iban = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    return _Planted("", iban)


@st.composite
def _phone(draw: DrawFn) -> _Planted:
    country = draw(st.sampled_from(["1", "33", "44", "49", "61", "81"]))
    groups = [
        _join(draw(_digits(draw(st.integers(2, 4)), low=1))),
        _join(draw(_digits(3))),
        _join(draw(_digits(4))),
    ]
    return _Planted("", f"+{country} " + " ".join(groups))


@st.composite
def _us_ssn(draw: DrawFn) -> _Planted:
    area = draw(st.integers(1, 899).filter(lambda a: a != 666))
    group = draw(st.integers(1, 99))
    serial = draw(st.integers(1, 9999))
    separator = draw(st.sampled_from(["-", " ", "."]))
    return _Planted("", f"{area:03d}{separator}{group:02d}{separator}{serial:04d}")


@st.composite
def _ip_address(draw: DrawFn) -> _Planted:
    if draw(st.booleans()):
        return _Planted("", ".".join(str(draw(st.integers(0, 255))) for _ in range(4)))
    # A global-looking IPv6 address: the first group non-zero, so it is never "::" alone.
    number = draw(st.integers(1 << 125, (1 << 128) - 1))
    return _Planted("", ipaddress.IPv6Address(number).compressed)


# Token characters without vowels, x, X or 0: no placeholder word ("example", "your") and no
# filler run ("xxxxxxxx", "00000000") can occur, which would make the value a documented
# example rather than a secret (docs/detection.md, Known examples).
_DRAWN_CHARACTERS = "BCDFGHJKLMNPQRSTVWZbcdfghjkmnpqrstvwz123456789"
_DRAWN_CAPITALS = "BCDFGHJKLMNPQRSTVWZ123456789"


@st.composite
def _secret(draw: DrawFn) -> _Planted:
    def token(size: int, alphabet: str = _DRAWN_CHARACTERS) -> str:
        return draw(st.text(alphabet, min_size=size, max_size=size))

    shape = draw(
        st.sampled_from(["github", "aws", "gitlab", "stripe", "slack", "google", "openai"])
    )
    if shape == "github":
        value = draw(st.sampled_from(["ghp_", "gho_", "ghs_"])) + token(36)
    elif shape == "aws":
        value = "AKIA" + token(16, _DRAWN_CAPITALS)
    elif shape == "gitlab":
        value = "glpat-" + token(20)
    elif shape == "stripe":
        value = "sk_live_" + token(24)
    elif shape == "google":
        value = "AIza" + token(35)
    elif shape == "openai":
        value = "sk-proj-" + token(32)
    else:
        value = f"xoxb-{token(11, '123456789')}-{token(11, '123456789')}-{token(12)}"
    return _Planted("", value)


@st.composite
def _uk_nino(draw: DrawFn) -> _Planted:
    first = draw(st.sampled_from([c for c in string.ascii_uppercase if c not in "DFIQUV"]))
    second = draw(st.sampled_from([c for c in string.ascii_uppercase if c not in "DFIOQUV"]))
    prefix = first + second
    if prefix in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
        prefix = "AB"  # HMRC does not allocate these pairs
    digits = _join(draw(_digits(6)))
    suffix = draw(st.sampled_from("ABCD"))
    if draw(st.booleans()):
        return _Planted("", f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}")
    return _Planted("NI number ", f"{prefix}{digits}{suffix}")


@st.composite
def _uk_nhs(draw: DrawFn) -> _Planted:
    body = draw(_digits(9))
    # NHS modulus 11: weights 10..2; 11 - remainder, 11 reads as 0, 10 is never issued.
    check = 11 - sum(w * d for w, d in zip(range(10, 1, -1), body, strict=True)) % 11
    check = 0 if check == 11 else check
    if check == 10 or len({*body, check}) == 1:
        body = [4, 0, 1, 0, 2, 3, 2, 1, 3]  # a fixed valid body, rather than discarding
        check = 7
    number = _join([*body, check])
    if draw(st.booleans()):
        return _Planted("", _grouped(number, (3, 3, 4), " "))
    return _Planted("NHS number ", number)


@st.composite
def _uk_passport(draw: DrawFn) -> _Planted:
    return _Planted("passport number ", _join(draw(_digits(9))))


@st.composite
def _uk_driving_licence(draw: DrawFn) -> _Planted:
    # DVLA layout: surname's first 5 letters padded with 9s, decade digit, month (+50 for
    # women), day, year digit, two initials (9 for none), a digit, two check letters.
    surname = draw(st.text(string.ascii_uppercase, min_size=1, max_size=5))
    year, month, day = draw(_DATES)
    month += draw(st.sampled_from([0, 50]))
    initials = draw(st.text(string.ascii_uppercase, min_size=1, max_size=1))
    initials += draw(st.sampled_from(string.ascii_uppercase + "9"))
    value = (
        f"{surname:9<5}{year % 100 // 10}{month:02d}{day:02d}{year % 10}{initials}"
        f"{draw(st.integers(0, 9))}{draw(st.text(string.ascii_uppercase, min_size=2, max_size=2))}"
    )
    return _Planted("driving licence ", value)


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


@st.composite
def _es_nif(draw: DrawFn) -> _Planted:
    number = draw(st.integers(1, 99_999_999))
    separator = draw(st.sampled_from(["", "-"]))
    return _Planted("", f"{number:08d}{separator}{_DNI_LETTERS[number % 23]}")


@st.composite
def _es_nie(draw: DrawFn) -> _Planted:
    prefix = draw(st.integers(0, 2))
    number = draw(st.integers(0, 9_999_999))
    letter = _DNI_LETTERS[(prefix * 10_000_000 + number) % 23]
    return _Planted("", f"{'XYZ'[prefix]}{number:07d}{letter}")


# The fiscal code's check: characters in odd places (1st, 3rd, ...) by this table, in even
# places by their rank (0-9, A-Z as 0-25); the sum mod 26 as a letter.
_FISCAL_ODD = {
    **dict(zip("0123456789", (1, 0, 5, 7, 9, 13, 15, 17, 19, 21), strict=True)),
    **dict(zip(string.ascii_uppercase, (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3,
                                        6, 8, 12, 14, 16, 10, 22, 25, 24, 23), strict=True)),
}  # fmt: skip


@st.composite
def _it_fiscal_code(draw: DrawFn) -> _Planted:
    letters = draw(st.text(string.ascii_uppercase, min_size=6, max_size=6))
    year, month, day = draw(_DATES)
    day += draw(st.sampled_from([0, 40]))  # women's day of birth plus 40
    place = draw(st.sampled_from(string.ascii_uppercase)) + _join(draw(_digits(3)))
    body = f"{letters}{year % 100:02d}{'ABCDEHLMPRST'[month - 1]}{day:02d}{place}"
    total = sum(
        _FISCAL_ODD[c] if i % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65)
        for i, c in enumerate(body)
    )
    return _Planted("", body + chr(65 + total % 26))


@st.composite
def _it_vat_code(draw: DrawFn) -> _Planted:
    serial = draw(_digits(7))
    if len(set(serial)) == 1:
        serial[0] = (serial[0] + 1) % 10
    office = draw(st.sampled_from([*range(1, 101), 120, 121, 888, 999]))
    body = [*serial, office // 100, office // 10 % 10, office % 10]
    return _Planted("", "IT" + _join([*body, _luhn_check(body)]))


@st.composite
def _pl_pesel(draw: DrawFn) -> _Planted:
    year, month, day = draw(_DATES)
    month += 20 if year >= 2000 else 0  # the century is in the month
    body = [int(c) for c in f"{year % 100:02d}{month:02d}{day:02d}"] + draw(_digits(4))
    check = (10 - sum(w * d for w, d in zip((1, 3, 7, 9) * 3, body, strict=False)) % 10) % 10
    return _Planted("PESEL ", _join([*body, check]))


@st.composite
def _fi_personal_identity_code(draw: DrawFn) -> _Planted:
    year, month, day = draw(_DATES)
    sign = "-" if year < 2000 else "A"
    individual = draw(st.integers(2, 899))
    number = int(f"{day:02d}{month:02d}{year % 100:02d}{individual:03d}")
    check = "0123456789ABCDEFHJKLMNPRSTUVWXY"[number % 31]
    return _Planted("", f"{day:02d}{month:02d}{year % 100:02d}{sign}{individual:03d}{check}")


@st.composite
def _se_personnummer(draw: DrawFn) -> _Planted:
    year, month, day = draw(_DATES)
    body = [int(c) for c in f"{year % 100:02d}{month:02d}{day:02d}"] + draw(_digits(3))
    number = _join([*body, _luhn_check(body)])
    return _Planted("", f"{number[:6]}-{number[6:]}")


def _mod_11_10(digits: Sequence[int]) -> int:
    """ISO/IEC 7064 MOD 11,10 check digit."""
    product = 10
    for value in digits:
        total = (value + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10


@st.composite
def _de_tax_id(draw: DrawFn) -> _Planted:
    # In the first ten digits exactly one digit occurs twice and the others at most once.
    distinct = draw(st.permutations(range(10)))[:9]
    repeated = draw(st.sampled_from(distinct))
    position = draw(st.integers(0, 9))
    body = [*distinct[:position], repeated, *distinct[position:]]
    if body[0] == 0:
        # The first digit is never 0: swap it with the first other digit (counts unchanged).
        other = next(i for i, d in enumerate(body) if d != 0)
        body[0], body[other] = body[other], body[0]
    value = _join([*body, _mod_11_10(body)])
    if draw(st.booleans()):
        return _Planted("Steuer-ID ", value)
    return _Planted("Steuer-ID ", _grouped(value, (2, 3, 3, 3), " "))


@st.composite
def _de_social_security(draw: DrawFn) -> _Planted:
    area = draw(st.integers(2, 89))
    year, month, day = draw(_DATES)
    letter = draw(st.sampled_from(string.ascii_uppercase))
    serial = draw(st.integers(0, 99))
    digits = [int(c) for c in f"{area:02d}{day:02d}{month:02d}{year % 100:02d}{serial:02d}"]
    rank = ord(letter) - 64
    spread = [*digits[:8], rank // 10, rank % 10, *digits[8:]]
    weights = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)
    check = sum(sum(divmod(v * w, 10)) for v, w in zip(spread, weights, strict=True)) % 10
    compact = f"{area:02d}{day:02d}{month:02d}{year % 100:02d}"
    if draw(st.booleans()):
        return _Planted("", f"{compact[:2]} {compact[2:]} {letter} {serial:02d}{check}")
    return _Planted("", f"{compact}{letter}{serial:02d}{check}")


_ID_CARD_LETTERS = "CFGHJKLMNPRTVWXYZ"


@st.composite
def _de_id_card(draw: DrawFn) -> _Planted:
    alphabet = string.digits + _ID_CARD_LETTERS
    serial = draw(st.sampled_from(_ID_CARD_LETTERS))
    rest = draw(st.text(alphabet, min_size=7, max_size=7))
    serial += rest + draw(st.sampled_from(string.digits))  # one digit inside at least
    # ICAO 9303: weights 7, 3, 1; digits by value, letters A=10 ... Z=35; mod 10.
    total = sum(int(c, 36) * (7, 3, 1)[i % 3] for i, c in enumerate(serial))
    return _Planted("Ausweisnummer ", f"{serial}{total % 10}")


@st.composite
def _in_pan(draw: DrawFn) -> _Planted:
    upper = string.ascii_uppercase
    letters = draw(st.text(upper, min_size=3, max_size=3))
    holder = draw(st.sampled_from("ABCFGHJLPT"))
    serial = draw(st.integers(1, 9999))
    value = (
        f"{letters}{holder}{draw(st.sampled_from(upper))}{serial:04d}{draw(st.sampled_from(upper))}"
    )
    return _Planted("PAN ", value)


# Verhoeff's dihedral group D5: multiplication and the permutation of each position.
_D5 = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6), (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4), (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2), (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def _verhoeff_check(payload: Sequence[int]) -> int:
    """The Verhoeff check digit of ``payload``: the one digit whose appending makes the
    checksum 0 (D5 has an inverse for every element, so exactly one does)."""
    for candidate in range(10):
        check = 0
        for position, value in enumerate(reversed([*payload, candidate])):
            check = _D5[check][_VERHOEFF_P[position % 8][value]]
        if check == 0:
            return candidate
    raise AssertionError("Verhoeff always has a check digit")


@st.composite
def _in_aadhaar(draw: DrawFn) -> _Planted:
    body = [draw(st.integers(2, 9)), *draw(_digits(10))]
    number = _join([*body, _verhoeff_check(body)])
    return _Planted("", _grouped(number, (4, 4, 4), " "))


_BASE36 = string.digits + string.ascii_uppercase


@st.composite
def _in_gstin(draw: DrawFn) -> _Planted:
    state = draw(st.integers(1, 38))
    pan = draw(_in_pan()).value
    entity = draw(st.sampled_from(_BASE36[1:]))
    body = f"{state:02d}{pan}{entity}Z"
    total = 0
    for position, char in enumerate(body):
        product = _BASE36.index(char) * (1 + position % 2)
        total += product // 36 + product % 36
    return _Planted("", body + _BASE36[(36 - total % 36) % 36])


def _solve_last(body: list[int], weights: Sequence[int], modulus: int) -> list[int] | None:
    """``body`` with a last digit that makes the weighted sum divisible by ``modulus``, or
    None when no digit 0-9 does."""
    for last in range(10):
        digits = [*body, last]
        if sum(w * d for w, d in zip(weights, digits, strict=True)) % modulus == 0:
            return digits
    return None


@st.composite
def _au_tfn(draw: DrawFn) -> _Planted:
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)
    digits = None
    while digits is None:  # one body in eleven has no check digit; draw another
        digits = _solve_last(draw(_digits(8)), weights, 11)
    return _Planted("TFN ", _grouped(_join(digits), (3, 3, 3), " "))


@st.composite
def _au_abn(draw: DrawFn) -> _Planted:
    weights = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)
    while True:
        body = [draw(st.integers(1, 9)), *draw(_digits(8))]
        # The ABR's rule: subtract 1 from the first digit, weight, sum divisible by 89.
        for penultimate in range(10):
            for last in range(10):
                digits = [*body, penultimate, last]
                adjusted = [digits[0] - 1, *digits[1:]]
                if sum(w * d for w, d in zip(weights, adjusted, strict=True)) % 89 == 0:
                    return _Planted("ABN ", _grouped(_join(digits), (2, 3, 3, 3), " "))


@st.composite
def _au_acn(draw: DrawFn) -> _Planted:
    body = draw(_digits(8))
    check = (10 - sum(w * d for w, d in zip(range(8, 0, -1), body, strict=True)) % 10) % 10
    return _Planted("ACN ", _grouped(_join([*body, check]), (3, 3, 3), " "))


@st.composite
def _au_medicare(draw: DrawFn) -> _Planted:
    body = [draw(st.integers(2, 6)), *draw(_digits(7))]
    check = sum(w * d for w, d in zip((1, 3, 7, 9) * 2, body, strict=True)) % 10
    number = _join([*body, check, draw(st.integers(1, 9))])
    return _Planted("Medicare ", _grouped(number, (4, 5, 1), " "))


_NRIC_SERIES = {"S": (0, "JZIHGFEDCBA"), "T": (4, "JZIHGFEDCBA"),
                "F": (0, "XWUTRQPNMLK"), "G": (4, "XWUTRQPNMLK")}  # fmt: skip


@st.composite
def _sg_nric_fin(draw: DrawFn) -> _Planted:
    prefix = draw(st.sampled_from(sorted(_NRIC_SERIES)))
    digits = draw(_digits(7))
    constant, letters = _NRIC_SERIES[prefix]
    total = constant + sum(w * d for w, d in zip((2, 7, 6, 5, 4, 3, 2), digits, strict=True))
    return _Planted("", f"{prefix}{_join(digits)}{letters[total % 11]}")


@st.composite
def _sg_uen(draw: DrawFn) -> _Planted:
    # A business's UEN: eight digits and a check letter (ACRA).
    digits = draw(_digits(8))
    total = sum(w * d for w, d in zip((10, 4, 9, 3, 8, 2, 7, 1), digits, strict=True))
    return _Planted("UEN ", _join(digits) + "XMKECAWLJDB"[total % 11])


@st.composite
def _kr_rrn(draw: DrawFn) -> _Planted:
    year, month, day = draw(_DATES)
    gender = draw(st.sampled_from([1, 2] if year < 2000 else [3, 4]))
    body = [int(c) for c in f"{year % 100:02d}{month:02d}{day:02d}"]
    body += [gender, *draw(_digits(5))]
    weights = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
    check = (11 - sum(w * d for w, d in zip(weights, body, strict=True)) % 11) % 10
    number = _join([*body, check])
    return _Planted("", f"{number[:6]}-{number[6:]}")


@st.composite
def _th_tnin(draw: DrawFn) -> _Planted:
    body = [draw(st.integers(1, 8)), *draw(_digits(11))]
    check = (11 - sum(w * d for w, d in zip(range(13, 1, -1), body, strict=True)) % 11) % 10
    return _Planted("", _grouped(_join([*body, check]), (1, 4, 5, 2, 1), "-"))


@st.composite
def _tr_national_id(draw: DrawFn) -> _Planted:
    body = [draw(st.integers(1, 9)), *draw(_digits(8))]
    tenth = (7 * sum(body[0:9:2]) - sum(body[1:8:2])) % 10
    eleventh = (sum(body) + tenth) % 10
    return _Planted("TCKN ", _join([*body, tenth, eleventh]))


@st.composite
def _ca_sin(draw: DrawFn) -> _Planted:
    body = [draw(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 9])), *draw(_digits(7))]
    return _Planted("SIN ", _grouped(_join([*body, _luhn_check(body)]), (3, 3, 3), " "))


@st.composite
def _ng_nin(draw: DrawFn) -> _Planted:
    body = draw(_digits(10))
    return _Planted("NIN ", _join([*body, _verhoeff_check(body)]))


@st.composite
def _ph_tin(draw: DrawFn) -> _Planted:
    while True:
        body = draw(_digits(8))
        check = sum(w * d for w, d in zip(range(9, 1, -1), body, strict=True)) % 11
        if check < 10:
            break
    number = _join([*body, check])
    return _Planted("TIN ", _grouped(number, (3, 3, 3), "-"))


_ROUTING_SYMBOLS = [*range(13), *range(21, 33), *range(61, 73), 80]


@st.composite
def _aba_routing(draw: DrawFn) -> _Planted:
    symbol = draw(st.sampled_from(_ROUTING_SYMBOLS))
    body = [symbol // 10, symbol % 10, *draw(_digits(6))]
    # Weights 3, 7, 1 repeated; the weighted sum divides by 10 (the last weight is 1).
    partial = sum(w * d for w, d in zip((3, 7, 1) * 3, body, strict=False))
    return _Planted("routing number ", _join([*body, -partial % 10]))


@st.composite
def _mac_address(draw: DrawFn) -> _Planted:
    pairs = draw(st.lists(st.integers(0, 255), min_size=6, max_size=6))
    if all(p == 255 for p in pairs):
        pairs[0] = 0  # FF:FF:FF:FF:FF:FF is the broadcast address, no device's
    separator = draw(st.sampled_from([":", "-"]))
    text = separator.join(f"{p:02x}" for p in pairs)
    return _Planted("", text.upper() if draw(st.booleans()) else text)


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


@st.composite
def _crypto(draw: DrawFn) -> _Planted:
    if draw(st.booleans()):
        # An Ethereum address in lower case (no EIP-55 checksum to satisfy), not all zeros.
        digits = draw(st.text("0123456789abcdef", min_size=40, max_size=40))
        if set(digits) == {"0"}:
            digits = "1" + digits[1:]
        return _Planted("", "0x" + digits)
    # A Bitcoin Base58Check address: version 0x00 or 0x05, a 20-byte hash, and the first four
    # bytes of the double SHA-256 of those 21.
    payload = bytes([draw(st.sampled_from([0x00, 0x05]))]) + draw(
        st.binary(min_size=20, max_size=20)
    )
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    number, encoded = int.from_bytes(raw, "big"), ""
    while number:
        number, remainder = divmod(number, 58)
        encoded = _BASE58[remainder] + encoded
    zeros = len(raw) - len(raw.lstrip(b"\0"))
    return _Planted("", "1" * zeros + encoded)


_PLANTERS: dict[str, Callable[[], SearchStrategy[_Planted]]] = {
    "email": _email,
    "credit_card": _credit_card,
    "iban": _iban,
    "phone": _phone,
    "us_ssn": _us_ssn,
    "ip_address": _ip_address,
    "secret": _secret,
    "uk_nino": _uk_nino,
    "uk_nhs": _uk_nhs,
    "uk_passport": _uk_passport,
    "uk_driving_licence": _uk_driving_licence,
    "es_nif": _es_nif,
    "es_nie": _es_nie,
    "it_fiscal_code": _it_fiscal_code,
    "it_vat_code": _it_vat_code,
    "pl_pesel": _pl_pesel,
    "fi_personal_identity_code": _fi_personal_identity_code,
    "se_personnummer": _se_personnummer,
    "de_tax_id": _de_tax_id,
    "de_social_security": _de_social_security,
    "de_id_card": _de_id_card,
    "in_pan": _in_pan,
    "in_aadhaar": _in_aadhaar,
    "in_gstin": _in_gstin,
    "au_tfn": _au_tfn,
    "au_abn": _au_abn,
    "au_acn": _au_acn,
    "au_medicare": _au_medicare,
    "sg_nric_fin": _sg_nric_fin,
    "sg_uen": _sg_uen,
    "kr_rrn": _kr_rrn,
    "th_tnin": _th_tnin,
    "tr_national_id": _tr_national_id,
    "ca_sin": _ca_sin,
    "ng_nin": _ng_nin,
    "ph_tin": _ph_tin,
    "aba_routing": _aba_routing,
    "mac_address": _mac_address,
    "crypto": _crypto,
}


def planted_values(kind: str) -> SearchStrategy[tuple[str, str]]:
    """Values of one ``pii`` kind, valid by construction, as ``(before, value)``: ``value`` is
    the identifier as it is written (check digits computed, grouped as its authority prints
    it), ``before`` the words that name it and must stand just before it (``"TFN "``,
    ``"passport number "``), or ``""`` for a kind found without them.

    Args:
        kind: one of :data:`PII_KINDS`.

    Raises:
        ValueError: ``kind`` is not one of them.
    """
    if kind not in _PLANTERS:
        raise ValueError(f"unknown pii kind {kind!r}; one of {', '.join(PII_KINDS)}")
    return _PLANTERS[kind]().map(lambda planted: (planted.before, planted.value))


@st.composite
def _planted_text(
    draw: DrawFn, kinds: Sequence[str], min_values: int, max_values: int, filler_words: int
) -> PlantedText:
    count = draw(st.integers(min_values, max_values))
    text = draw(filler(max_words=filler_words))
    spans: list[PlantedSpan] = []
    for _ in range(count):
        kind = draw(st.sampled_from(list(kinds)))
        before, value = draw(planted_values(kind))
        # At least one filler word between values: two identifiers side by side can read as one
        # longer number ("4111 1111 1111 1111 4111 ..."), which is not what was planted.
        text = (
            f"{text} {draw(filler(min_words=1, max_words=max(1, filler_words)))} {before}"
            if spans or text
            else before
        )
        start = len(text)
        text += value
        spans.append(PlantedSpan(start, len(text), kind, value))
    tail = draw(filler(max_words=filler_words))
    if tail:
        text = f"{text} {tail}"
    return PlantedText(text, tuple(spans))


def planted_texts(
    kinds: Sequence[str] = PII_KINDS,
    *,
    min_values: int = 1,
    max_values: int = 3,
    filler_words: int = 8,
) -> SearchStrategy[PlantedText]:
    """Texts of :func:`filler` words with values of the given ``pii`` kinds planted in them
    (each with the words that name it, when its kind needs them), and the span of each value.

    A ``pii`` rule of exactly the planted kinds finds exactly the planted spans: the filler
    holds nothing any detector matches. (With every kind on, a nine-digit national number can
    also be another country's: those collisions are real and not excluded.)

    Args:
        kinds: the kinds to draw values of (default: every kind).
        min_values: the fewest values in a text.
        max_values: the most values in a text.
        filler_words: the most filler words before, between and after the values (at least
            one stands between two values); more makes longer texts.
    """
    unknown = [kind for kind in kinds if kind not in _PLANTERS]
    if unknown or not kinds:
        raise ValueError(f"unknown pii kinds {unknown!r}; from {', '.join(PII_KINDS)}")
    return _planted_text(tuple(kinds), min_values, max_values, filler_words)


# --- chunkings -------------------------------------------------------------------------------


def chunkings(text: str, *, max_pieces: int | None = None) -> SearchStrategy[list[str]]:
    """Splits of ``text`` into consecutive non-empty pieces that join back into it, as a model
    streams deltas: any code point boundary may be a cut (inside a word, between a letter and
    its combining mark, inside a planted value). Every split is possible; the empty text has
    only the split into no pieces.

    Args:
        text: the text to split.
        max_pieces: the most pieces (default: one per code point); at least 1.

    Raises:
        ValueError: ``max_pieces`` is below 1.
    """
    if max_pieces is not None and max_pieces < 1:
        raise ValueError(f"max_pieces must be at least 1, not {max_pieces}")
    if not text:
        return st.just([])
    most_cuts = len(text) - 1 if max_pieces is None else min(len(text), max_pieces) - 1
    cuts = st.lists(st.integers(1, len(text) - 1), max_size=most_cuts, unique=True)
    if len(text) == 1:
        cuts = st.just([])

    def split(points: list[int]) -> list[str]:
        bounds = [0, *sorted(points), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds)]

    return cuts.map(split)


def texts_with_chunkings(
    text_strategy: SearchStrategy[str] | None = None, *, max_pieces: int | None = None
) -> SearchStrategy[tuple[str, list[str]]]:
    """A text and one of its :func:`chunkings`, as ``(text, pieces)``.

    Args:
        text_strategy: where the text comes from (default: :func:`texts`).
        max_pieces: as for :func:`chunkings`.
    """
    source = texts() if text_strategy is None else text_strategy
    return source.flatmap(
        lambda text: chunkings(text, max_pieces=max_pieces).map(lambda pieces: (text, pieces))
    )
