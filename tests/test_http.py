"""The transport-neutral dispatcher: routing, bodies, headers and error shapes."""

from __future__ import annotations

import json

import pytest

import govcore
from govcore.testing import FakeClock
from tests.support import FULL_KEY, bearer, config, turn


@pytest.fixture(scope="module")
def gov() -> govcore.Governance:
    # A clock that never moves would exhaust the rate limit; each reading moves it a second.
    clock = FakeClock()

    def ticking() -> float:
        clock.advance(1.0)
        return clock.now

    return govcore.Governance.from_config(
        config(default_rate_limit_per_minute=100_000), clock=ticking
    )


def test_turn_round_trip_with_prefix_and_query(gov: govcore.Governance) -> None:
    """The /api/v1/agent prefix and a query string are accepted; the body is JSON."""
    response = gov.handle(
        "post",
        "/api/v1/agent/governance/conversation/turn?x=1",
        bearer(FULL_KEY),
        json.dumps(turn("h1", "refund")).encode(),
    )
    assert response.status == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json()["sessionId"] == "h1"


def test_body_is_the_typed_model_dump(gov: govcore.Governance) -> None:
    """handle's body equals the typed result's model_dump(mode='json', by_alias=True)."""
    response = gov.handle(
        "POST",
        "/governance/pre-inference",
        bearer(FULL_KEY),
        json.dumps({"sessionId": "p", "prompt": "what about refunds"}),
    )
    typed = gov.client(FULL_KEY).pre_inference({"sessionId": "p", "prompt": "what about refunds"})
    expected = typed.model_dump(mode="json", by_alias=True)
    assert response.json() == {**expected, "cacheHit": False}


def test_get_and_delete_by_path(gov: govcore.Governance) -> None:
    """GET reads a percent-encoded session id; DELETE answers 204 with no body."""
    gov.handle(
        "POST", "/governance/conversation/turn", bearer(FULL_KEY), json.dumps(turn("a b/c", "hi"))
    )
    got = gov.handle("GET", "/governance/conversation/a%20b%2Fc", bearer(FULL_KEY), None)
    assert got.status == 200
    assert got.json()["sessionId"] == "a b/c"
    deleted = gov.handle("DELETE", "/governance/conversation/a%20b%2Fc", bearer(FULL_KEY), None)
    assert deleted.status == 204
    assert deleted.body == b""
    assert deleted.json() is None
    assert "content-type" not in deleted.headers
    assert (
        gov.handle("GET", "/governance/conversation/a%20b%2Fc", bearer(FULL_KEY), None).status
        == 404
    )


@pytest.mark.parametrize(
    "path",
    [
        "/governance/nothing",
        "/governance",
        "/",
        "",
        "/api/v1/agent",
        "/governance/conversation/",
        "/governance/conversation/a/b",
        "/governance/check-tool-call/x",
        "governance/pre-inference",
    ],
)
def test_unknown_paths_are_404(gov: govcore.Governance, path: str) -> None:
    """Paths that name no endpoint are 404 with a JSON error."""
    response = gov.handle("POST", path, bearer(FULL_KEY), "{}")
    assert response.status == 404
    assert response.json()["error"] == "not_found"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/governance/pre-inference", "POST"),
        ("PUT", "/governance/conversation/s1", "DELETE, GET"),
        ("POST", "/governance/conversation/s1", "DELETE, GET"),
        ("PATCH", "/governance/conversation/turn", "DELETE, GET, POST"),
    ],
)
def test_wrong_method_is_405_with_allow(
    gov: govcore.Governance, method: str, path: str, allow: str
) -> None:
    """A known path with a wrong method is 405 and lists the allowed methods."""
    response = gov.handle(method, path, bearer(FULL_KEY), None)
    assert response.status == 405
    assert response.headers["allow"] == allow


@pytest.mark.parametrize(
    "body",
    [
        None,
        b"",
        b"{",
        b"[]",
        b'"text"',
        b"\xff\xfe",
        b'{"a": NaN}',
        b'{"a": Infinity}',
        b'{"sessionId": "s", "sessionId": "t"}',
        b"[" * 100_000,
    ],
)
def test_malformed_bodies_are_400(gov: govcore.Governance, body: bytes | None) -> None:
    """Empty, non-JSON, non-object, non-UTF-8, NaN and repeated-key bodies are 400 'body'."""
    response = gov.handle("POST", "/governance/conversation/turn", bearer(FULL_KEY), body)
    assert response.status == 400
    payload = response.json()
    assert payload["error"] == "invalid_request"
    assert payload["details"][0]["field"] == "body"


def test_a_number_too_long_to_read_is_400_in_plain_words(gov: govcore.Governance) -> None:
    """Python refuses to read integers of over 4,300 digits; the caller hears why, not how."""
    body = '{"sessionId": "s", "turn": {"role": "user", "content": "x"}, "tokenBudget": %s}'
    response = gov.handle(
        "POST", "/governance/conversation/turn", bearer(FULL_KEY), body % ("9" * 5000)
    )
    assert response.status == 400
    assert response.json()["details"] == [
        {"field": "body", "message": "holds a number of more than 4300 digits"}
    ]


def test_error_bodies_have_code_and_message(gov: govcore.Governance) -> None:
    """Every error answer is JSON with an error code and a message."""
    for response in (
        gov.handle("GET", "/governance/conversation/x", {}, None),
        gov.handle("GET", "/governance/conversation/x", bearer(FULL_KEY), None),
        gov.handle("GET", "/nowhere", {}, None),
    ):
        body = response.json()
        assert set(body) >= {"error", "message"}
        assert response.headers["content-type"] == "application/json"


def test_unauthenticated_has_www_authenticate(gov: govcore.Governance) -> None:
    """401 answers say which scheme to use."""
    response = gov.handle("GET", "/governance/conversation/x", {}, None)
    assert response.status == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_str_and_bytes_bodies_are_equivalent(gov: govcore.Governance) -> None:
    """A body may be given as str or bytes."""
    text = json.dumps({"sessionId": "p2", "prompt": "héllo"})
    as_str = gov.handle("POST", "/governance/pre-inference", bearer(FULL_KEY), text)
    as_bytes = gov.handle(
        "POST", "/governance/pre-inference", bearer(FULL_KEY), text.encode("utf-8")
    )
    assert as_str.status == as_bytes.status == 200


@pytest.mark.parametrize(
    "headers",
    [
        [("Authorization", f"Bearer {FULL_KEY}")],
        [(b"authorization", f"Bearer {FULL_KEY}".encode())],
        ((b"content-type", b"application/json"), (b"AUTHORIZATION", f"Bearer {FULL_KEY}".encode())),
    ],
)
def test_headers_may_be_name_value_pairs(
    gov: govcore.Governance, headers: list[tuple[str | bytes, str | bytes]]
) -> None:
    """Pairs of str or bytes, as ASGI servers hand them over, carry the key like a mapping."""
    response = gov.handle("GET", "/governance/conversation/nobody", headers, None)
    assert response.status == 404


@pytest.mark.parametrize("headers", [[("Authorization",)], [42], "Authorization", 7, {1: 2}])
def test_headers_of_no_known_shape_count_as_none(gov: govcore.Governance, headers: object) -> None:
    response = gov.handle("GET", "/governance/conversation/nobody", headers, None)  # type: ignore[arg-type]
    assert response.status == 401


def test_two_different_authorization_headers_are_refused(gov: govcore.Governance) -> None:
    """Which of two keys a proxy in front went by cannot be known: 401, whichever is valid."""
    headers = [
        ("Authorization", f"Bearer {FULL_KEY}"),
        ("authorization", "Bearer gk_other_key_00001"),
    ]
    response = gov.handle("GET", "/governance/conversation/nobody", headers, None)
    assert response.status == 401
    assert "conflicting" in response.json()["message"]
    same_twice = [("Authorization", f"Bearer {FULL_KEY}")] * 2
    assert gov.handle("GET", "/governance/conversation/nobody", same_twice, None).status == 404


def test_routing_errors_quote_bounded_caller_input(gov: govcore.Governance) -> None:
    """A megabyte path or method gives a 404 or 405 whose body stays small."""
    long_path = "/governance/" + "x" * 1_000_000
    response = gov.handle("GET", long_path, bearer(FULL_KEY), None)
    assert response.status == 404
    assert len(response.body) < 1_000
    response = gov.handle("P" * 100_000, "/governance/conversation/turn", bearer(FULL_KEY), "{}")
    assert response.status == 405
    assert len(response.body) < 1_000
