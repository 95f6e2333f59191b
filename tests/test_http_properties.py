"""Property tests of the dispatcher ``Governance.handle`` (interface spec §5, §7; contract §1, §3, §4).

Whatever a caller sends (method, path, headers, body), ``handle`` returns a response with one of
the statuses the specification names, a JSON object body with ``application/json``, the error
fields of contract §3, and the headers that go with 405 and 429.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import govcore
from tests.support import (
    LIFECYCLE_FULL_KEY,
    LIFECYCLE_KEYS,
    LIFECYCLE_SLOW_KEY,
    SLOW_RATE,
    FakeClock,
)

_windows = itertools.count()
ALLOWED_STATUSES = frozenset({200, 204, 400, 401, 403, 404, 405, 429})
TURN_PATH = "/governance/conversation/turn"
PRE_PATH = "/governance/pre-inference"

VALID_TURN: dict[str, Any] = {
    "sessionId": "handle-turn",
    "turn": {"role": "user", "content": "I want a refund on my credit card"},
    "recentContext": ["hello", "my parcel is late"],
    "priorHistory": [{"role": "user", "content": "hi"}],
    "endUserContext": {"attributes": {"region": "EU", "tier": ["gold", 1]}},
    "policyAreaIds": ["payments", "privacy"],
    "tokenBudget": 600,
    "idempotencyKey": "idem-1",
    "checkOutput": False,
    "ttlSeconds": 600,
}
VALID_PRE: dict[str, Any] = {
    "sessionId": "handle-pre",
    "prompt": "Can I get a refund?",
    "recentMessages": ["hello", {"role": "assistant", "content": "hi"}],
    "context": {"surface": "chat", "nested": {"list": [1, 2.5, None, True]}},
    "endUserContext": None,
    "policyAreaIds": None,
    "tokenBudget": 600,
    "isUpdate": False,
}

# --- raw JSON tokens that json.dumps cannot write ----------------------------------------------

RAW_TOKENS = [
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e-400",
    "-0",
    "1" + "0" * 5000,
    "123456789012345678901234567890",
    '"\\ud800"',
    '"\\udfff"',
    '"a\\ud83db"',
    '"\\u0000"',
    '{"a": 1, "a": 2}',
    "[" * 300 + "]" * 300,
    '{"a":' * 300 + "1" + "}" * 300,
    "[" * 3000 + "]" * 3000,
    '{"a":' * 3000 + "1" + "}" * 3000,
]


def _sentinel(index: int) -> str:
    return f"\x00RAW{index}\x00"


def _substitute_raw(text: str) -> str:
    for index, token in enumerate(RAW_TOKENS):
        for quoted in (
            json.dumps(_sentinel(index)),
            json.dumps(_sentinel(index), ensure_ascii=False),
        ):
            text = text.replace(quoted, token)
    return text


raw_tokens = st.integers(0, len(RAW_TOKENS) - 1).map(_sentinel)
HUGE_NUMBER = _sentinel(RAW_TOKENS.index("1" + "0" * 5000))
"""Spliced in as a JSON number of 5001 digits."""
deep_values = st.builds(
    lambda depth, as_list: _nest(depth, as_list), st.integers(1, 300), st.booleans()
)


def _nest(depth: int, as_list: bool) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if as_list else {"k": value}
    return value


odd_strings = st.sampled_from(
    ["\ud800", "\udfff", "x\udc80y", "system", "assistant", "", " ", "\x00", "é", "🙂", "a" * 300]
)
FIELD_NAMES = sorted({*VALID_TURN, *VALID_PRE, "turn", "role", "content", "attributes"})
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | odd_strings
    | raw_tokens
)
json_values = (
    st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(FIELD_NAMES) | st.text(max_size=8) | odd_strings,
                children,
                max_size=4,
            )
        ),
        max_leaves=12,
    )
    | deep_values
)


def _containers(value: Any, found: list[Any]) -> list[Any]:
    if isinstance(value, dict | list):
        found.append(value)
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            _containers(item, found)
    return found


@st.composite
def mutated(draw: st.DrawFn, base: Mapping[str, Any]) -> Any:
    """A valid request with a few random changes: values replaced, fields removed or added."""
    document: Any = copy.deepcopy(dict(base))
    for _ in range(draw(st.integers(0, 4))):
        containers = _containers(document, [])
        target = draw(st.sampled_from(containers))
        operation = draw(st.sampled_from(["replace", "remove", "add", "tenant"]))
        if isinstance(target, list):
            if not target:
                target.append(draw(json_values))
                continue
            index = draw(st.integers(0, len(target) - 1))
            if operation == "remove":
                del target[index]
            else:
                target[index] = draw(json_values)
            continue
        keys = sorted(target)
        if operation == "replace" and keys:
            target[draw(st.sampled_from(keys))] = draw(json_values)
        elif operation == "remove" and keys:
            del target[draw(st.sampled_from(keys))]
        elif operation == "tenant":
            target[draw(st.sampled_from(["tenant", "tenantId", "tenant_id"]))] = "acme"
        else:
            name = draw(st.sampled_from(FIELD_NAMES) | st.text(max_size=8) | odd_strings)
            target[name] = draw(json_values)
    if draw(st.integers(0, 9)) == 0:
        document = draw(json_values)  # not even an object
    return document


@st.composite
def encoded(draw: st.DrawFn, documents: st.SearchStrategy[Any]) -> bytes | str:
    """A document as JSON text, with raw tokens spliced in, as str or (maybe invalid) UTF-8."""
    document = draw(documents)
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    text = _substitute_raw(text)
    if draw(st.booleans()):
        return text
    return text.encode("utf-8", "surrogatepass")


turn_bodies = encoded(mutated(VALID_TURN))
pre_bodies = encoded(mutated(VALID_PRE))
any_bodies = (
    st.none()
    | st.binary(max_size=64)
    | st.text(max_size=64)
    | st.sampled_from([b"", b"\xef\xbb\xbf{}", b"{", b"null", b"[]", b"\xff\xfe", "{}"])
    | encoded(json_values)
    | turn_bodies
    | pre_bodies
)

# --- methods, paths, headers ------------------------------------------------------------------

methods = (
    st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS", "get", "Post"])
    | st.text(max_size=8)
    | st.sampled_from(["\ud800", "P\udcffOST", "ＰＯＳＴ", "ß"])
)
segments = (
    st.text(max_size=12)
    | st.text(max_size=8).map(lambda s: quote(s, safe=""))
    | st.sampled_from(
        ["%", "%zz", "%ff", "%C3%A9", "%ED%A0%80", "%00", "a%2Fb", "..", ".", "turn", "x" * 300]
    )
    | odd_strings
)
routes = (
    st.sampled_from(
        [
            TURN_PATH,
            PRE_PATH,
            "/governance/conversation/",
            "/governance/conversation",
            "/governance",
            "/",
            "",
            "/governance/check-tool-call",
            "/governance/post-inference",
            "/governance/check-output/stream",
            "/governance/check-output/finalize",
        ]
    )
    | segments.map(lambda s: "/governance/conversation/" + s)
    | st.text(max_size=20)
)
prefixes = st.sampled_from(
    ["", "", "/api/v1/agent", "/api/v1/agent/", "/api/v2/agent", "api/v1/agent"]
)
tails = st.sampled_from(["", "", "/", "?", "?a=1", "#x", "?q=%ff&x", "//", "/extra"]) | st.text(
    max_size=6
).map(lambda s: "?" + s)
paths = st.builds(lambda prefix, route, tail: prefix + route + tail, prefixes, routes, tails)

auth_values = (
    st.sampled_from([f"Bearer {key}" for key in LIFECYCLE_KEYS])
    | st.sampled_from(
        [
            "Bearer",
            "Bearer ",
            f"bearer {LIFECYCLE_FULL_KEY}",
            f"BEARER   {LIFECYCLE_FULL_KEY}  ",
            "Basic abc",
            "",
        ]
    )
    | st.text(max_size=20).map(lambda s: "Bearer " + s)
    | st.text(max_size=20)
)
auth_names = st.sampled_from(["Authorization", "authorization", "AUTHORIZATION", "Authorisation"])
header_maps = st.none() | st.builds(
    lambda extra, auth: {**extra, **({auth[0]: auth[1]} if auth else {})},
    st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=3),
    st.none() | st.tuples(auth_names, auth_values),
)


def _header(response: govcore.HttpResponse, name: str) -> str | None:
    for key, value in response.headers.items():
        if key.lower() == name:
            return value
    return None


def check_response(response: Any) -> Any:
    """Assert the response invariants of contract §1, §3 and §4; return the parsed body."""
    assert isinstance(response, govcore.HttpResponse)
    assert response.status in ALLOWED_STATUSES, (response.status, response.body[:300])
    assert isinstance(response.headers, dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in response.headers.items())
    assert isinstance(response.body, bytes)
    if response.status == 204:
        assert response.body == b""
        assert response.json() is None
        return None
    assert response.body, "every status but 204 has a body"
    content_type = _header(response, "content-type")
    assert content_type is not None
    assert content_type.split(";")[0].strip() == "application/json"
    body = json.loads(response.body.decode("utf-8"))
    assert response.json() == body
    assert isinstance(body, dict)
    if response.status >= 400:
        assert isinstance(body.get("error"), str)
        assert body["error"]
        assert isinstance(body.get("message"), str)
    if response.status == 400:
        assert isinstance(body.get("details"), list)
        assert body["details"]
        assert all(isinstance(d, dict) and isinstance(d.get("field"), str) for d in body["details"])
    if response.status == 405:
        allow = _header(response, "allow")
        assert allow
    if response.status == 429:
        retry_after = _header(response, "retry-after")
        assert retry_after is not None
        assert int(retry_after) >= 1
        assert isinstance(body.get("window_seconds"), int)
    return body


SLOW = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(SLOW, max_examples=400)
@given(method=methods, path=paths, headers=header_maps, body=any_bodies)
# Found by this test (a UnicodeEncodeError escaped handle): a 405 echoing a lone surrogate.
@example(method="\ud800", path=TURN_PATH, headers=None, body=None)
def test_handle_answers_any_request(
    module_governance: govcore.Governance, method: str, path: str, headers: Any, body: Any
) -> None:
    """Any method, path, headers and body get an allowed status and a well-formed response."""
    check_response(module_governance.handle(method, path, headers, body))


@settings(SLOW, max_examples=300)
@given(
    endpoint=st.sampled_from([TURN_PATH, PRE_PATH, "/api/v1/agent" + TURN_PATH]),
    turn_body=turn_bodies,
    pre_body=pre_bodies,
)
def test_handle_answers_mutated_requests(
    module_governance: govcore.Governance,
    endpoint: str,
    turn_body: bytes | str,
    pre_body: bytes | str,
) -> None:
    """A valid request with random damage is answered 200 or 400, never anything else."""
    body = pre_body if endpoint == PRE_PATH else turn_body
    response = module_governance.handle(
        "POST", endpoint, {"Authorization": f"Bearer {LIFECYCLE_FULL_KEY}"}, body
    )
    check_response(response)
    assert response.status in {200, 400}


def test_handle_answers_valid_requests(module_governance: govcore.Governance) -> None:
    """The unmutated requests used as seeds are answered 200 (the mutation tests start valid)."""
    auth = {"Authorization": f"Bearer {LIFECYCLE_FULL_KEY}"}
    # A fresh idempotencyKey: the mutation tests may have used the seed's with another body.
    fresh_turn = {**VALID_TURN, "idempotencyKey": f"idem-valid-{next(_windows)}"}
    for path, document in ((TURN_PATH, fresh_turn), (PRE_PATH, VALID_PRE)):
        response = module_governance.handle("POST", path, auth, json.dumps(document))
        assert check_response(response) is not None
        assert response.status == 200


def _client_error(
    call: Callable[[dict[str, Any]], object], payload: dict[str, Any]
) -> govcore.GovcoreError | None:
    """Run a client call; return the GovcoreError it raised (any other exception propagates)."""
    try:
        call(payload)
    except govcore.GovcoreError as error:
        return error
    return None


def _parse_int(digits: str) -> int:
    # JSON numbers have no size limit; Python's int() refuses over 4300 digits, arithmetic not.
    if len(digits.lstrip("-")) <= 4000:
        return int(digits)
    return (-1 if digits.startswith("-") else 1) * 10 ** (len(digits.lstrip("-")) - 1)


@settings(SLOW, max_examples=150)
@given(document=st.one_of(mutated(VALID_TURN), mutated(VALID_PRE)), pre=st.booleans())
# Found by this test: a JSON number of more than 4300 digits in a free-form object.
@example(document={**VALID_PRE, "context": {"n": HUGE_NUMBER}}, pre=True)
@example(document={**VALID_TURN, "endUserContext": {"attributes": {"n": HUGE_NUMBER}}}, pre=False)
def test_client_raises_only_govcore_errors(
    module_governance: govcore.Governance, document: Any, pre: bool
) -> None:
    """The typed client answers a damaged mapping with a result or a GovcoreError, nothing else."""
    text = _substitute_raw(json.dumps(document))
    try:
        payload = json.loads(text, parse_int=_parse_int)
    except (ValueError, RecursionError):
        return  # not representable as a Python mapping: handle's business, tested above
    if not isinstance(payload, dict):
        return
    client = module_governance.client(LIFECYCLE_FULL_KEY)
    error = _client_error(client.pre_inference if pre else client.record_turn, payload)
    if isinstance(error, govcore.InvalidRequestError):
        assert error.details
    elif error is not None:
        assert error.status in ALLOWED_STATUSES


def _nested_text(depth: int, as_list: bool) -> str:
    return "[" * depth + "1" + "]" * depth if as_list else '{"k":' * depth + "1" + "}" * depth


NESTING_PLACES = [
    (PRE_PATH, VALID_PRE, ("context", "nested")),
    (PRE_PATH, VALID_PRE, ("context",)),
    (PRE_PATH, VALID_PRE, ("recentMessages",)),
    (PRE_PATH, VALID_PRE, ("endUserContext",)),
    (TURN_PATH, VALID_TURN, ("endUserContext", "attributes", "region")),
    (TURN_PATH, VALID_TURN, ("endUserContext", "attributes")),
    (TURN_PATH, VALID_TURN, ("turn", "content")),
    (TURN_PATH, VALID_TURN, ("extraField",)),
]


@settings(SLOW, max_examples=120)
@given(
    place=st.sampled_from(NESTING_PLACES),
    depth=st.integers(1, 1500),
    as_list=st.booleans(),
)
# Found by this test: pre-inference context nested 255 levels deep is a 500.
@example(place=NESTING_PLACES[0], depth=255, as_list=False)
def test_deep_nesting_is_answered(
    module_governance: govcore.Governance,
    place: tuple[str, dict[str, Any], tuple[str, ...]],
    depth: int,
    as_list: bool,
) -> None:
    """A deeply nested value anywhere in a request is a 200 or a 400, and a result or GovcoreError."""
    path, base, where = place
    document = copy.deepcopy(base)
    target = document
    for name in where[:-1]:
        target = target[name]
    target[where[-1]] = "\x00NESTED\x00"
    text = json.dumps(document).replace(json.dumps("\x00NESTED\x00"), _nested_text(depth, as_list))

    response = module_governance.handle(
        "POST", path, {"Authorization": f"Bearer {LIFECYCLE_FULL_KEY}"}, text
    )
    check_response(response)
    assert response.status in {200, 400}

    try:
        payload = json.loads(text)
    except RecursionError:
        return
    client = module_governance.client(LIFECYCLE_FULL_KEY)
    error = _client_error(client.pre_inference if path == PRE_PATH else client.record_turn, payload)
    assert error is None or error.status == 400


_methods_not_allowed = st.text(max_size=8).map(str.upper)


@settings(SLOW, max_examples=150)
@given(
    method=st.sampled_from(["PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT", ""])
    | _methods_not_allowed,
    path=st.sampled_from([TURN_PATH, PRE_PATH, "/governance/conversation/some-session"]),
)
def test_wrong_method_is_405_with_allow(
    module_governance: govcore.Governance, method: str, path: str
) -> None:
    """A known path with a method it does not serve is 405 with an allow header naming the methods."""
    allowed = {
        TURN_PATH: {"POST", "GET", "DELETE"},  # GET/DELETE read it as a session id "turn"
        PRE_PATH: {"POST"},
        "/governance/conversation/some-session": {"GET", "DELETE"},
    }[path]
    if method.upper() in allowed:
        return
    response = module_governance.handle(
        method, path, {"Authorization": f"Bearer {LIFECYCLE_FULL_KEY}"}, "{}"
    )
    check_response(response)
    assert response.status == 405
    allow = _header(response, "allow")
    assert allow is not None
    assert {m.strip() for m in allow.split(",")} == allowed


@settings(SLOW, max_examples=20)
@given(
    requests=st.lists(
        st.sampled_from(
            [
                ("POST", TURN_PATH),
                ("POST", PRE_PATH),
                ("GET", "/governance/conversation/slow"),
                ("DELETE", "/governance/conversation/slow"),
            ]
        ),
        min_size=SLOW_RATE + 1,
        max_size=SLOW_RATE + 4,
    )
)
def test_rate_limited_key_gets_429_with_retry_after(
    module_governance: govcore.Governance, module_clock: FakeClock, requests: list[tuple[str, str]]
) -> None:
    """Past its per-minute limit a key gets 429 with retry-after and window_seconds."""
    module_clock.advance(61)  # a fresh window for the slow key
    body = json.dumps({"sessionId": f"slow-{next(_windows)}", "prompt": "hi"})
    turn = json.dumps(
        {"sessionId": f"slow-{next(_windows)}", "turn": {"role": "user", "content": "hi"}}
    )
    for number, (method, path) in enumerate(requests):
        payload = turn if path == TURN_PATH else body if method == "POST" else None
        response = module_governance.handle(
            method, path, {"Authorization": f"Bearer {LIFECYCLE_SLOW_KEY}"}, payload
        )
        check_response(response)
        if number < SLOW_RATE:
            assert response.status != 429
        else:
            assert response.status == 429
            assert 1 <= int(_header(response, "retry-after") or "0") <= 60
            assert response.json()["window_seconds"] == 60
