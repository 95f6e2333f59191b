"""Keys, scopes, rate limits, idempotency, TTL precedence, size limits and refusal order."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

import govcore
from govcore.core.ratelimit import WINDOW_SECONDS, admit
from govcore.models import Identifier
from govcore.testing import FakeClock
from tests.support import (
    CHECK_KEY,
    FULL_KEY,
    HASHED_KEY,
    OTHER_TENANT_KEY,
    READ_KEY,
    REVOKED_KEY,
    SLOW_KEY,
    bearer,
    config,
    turn,
)

TURN_PATH = "/governance/conversation/turn"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def gov(clock: FakeClock) -> govcore.Governance:
    return govcore.Governance.from_config(config(), clock=clock)


def _post(gov: govcore.Governance, key: str | None, body: object, path: str = TURN_PATH):
    headers = bearer(key) if key else {}
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    return gov.handle("POST", path, headers, raw)


@pytest.mark.parametrize("key", [None, "gk_nobody_0000000", REVOKED_KEY])
def test_missing_unknown_and_revoked_keys_get_401(gov: govcore.Governance, key: str | None) -> None:
    """No key, an unknown key and a revoked key are all 401 with a JSON error body."""
    response = _post(gov, key, turn("s", "hi"))
    assert response.status == 401
    assert response.json()["error"] == "unauthenticated"
    with pytest.raises(govcore.AuthenticationError):
        gov.client(key or "").record_turn(turn("s", "hi"))


def test_malformed_authorization_headers_are_401(gov: govcore.Governance) -> None:
    """Only 'Bearer <key>' authenticates; header names are case-insensitive."""
    body = json.dumps(turn("s", "hi"))
    assert gov.handle("POST", TURN_PATH, {"Authorization": FULL_KEY}, body).status == 401
    assert gov.handle("POST", TURN_PATH, {"Authorization": f"Basic {FULL_KEY}"}, body).status == 401
    assert (
        gov.handle("POST", TURN_PATH, {"AUTHORIZATION": f"bearer {FULL_KEY}"}, body).status == 200
    )


# Every whitespace or line-break character str.strip() removes that HTTP does not: none of
# them may vanish from around a key.
NOT_HTTP_WHITESPACE = ["\u00a0", "\u2003", "\u0085", "\u2028", "\x0b", "\x0c", "\r", "\n"]


def _auth(gov: govcore.Governance, value: str) -> govcore.HttpResponse:
    return gov.handle("POST", TURN_PATH, {"Authorization": value}, json.dumps(turn("s", "hi")))


@pytest.mark.parametrize("char", NOT_HTTP_WHITESPACE, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize(
    "shape",
    [
        "Bearer {k}{c}",
        "Bearer {c}{k}",
        "{c}Bearer {k}",
        "Bearer {k}{c} ",
        "Bearer{c}{k}",
        "Bearer {k}{c}{k}",
    ],
)
def test_non_http_whitespace_around_or_inside_a_key_fails(
    gov: govcore.Governance, char: str, shape: str
) -> None:
    """A key next to any whitespace other than space and tab does not authenticate."""
    response = _auth(gov, shape.format(k=FULL_KEY, c=char))
    assert response.status == 401
    assert response.json()["error"] == "unauthenticated"


@pytest.mark.parametrize("char", NOT_HTTP_WHITESPACE, ids=lambda c: f"U+{ord(c):04X}")
def test_typed_client_compares_the_key_exactly(gov: govcore.Governance, char: str) -> None:
    """The typed client strips nothing from its key: whitespace on either side fails."""
    for key in (FULL_KEY + char, char + FULL_KEY, f" {FULL_KEY}"):
        with pytest.raises(govcore.AuthenticationError):
            gov.client(key).get_conversation("s")


@functools.cache
def _unlimited() -> govcore.Governance:
    """One instance for the properties below (a fixture is not reset between examples), built
    on first use; its rate limit is high enough for all of them."""
    return govcore.Governance.from_config(
        config(default_rate_limit_per_minute=1_000_000), clock=FakeClock()
    )


@settings(max_examples=100, deadline=None)
@given(
    before=st.text(alphabet=" \t", max_size=4),
    between=st.text(alphabet=" \t", min_size=1, max_size=4),
    after=st.text(alphabet=" \t", max_size=4),
    scheme=st.sampled_from(["Bearer", "bearer", "BEARER", "bEaReR"]),
)
def test_space_and_tab_around_the_key_still_authenticate(
    before: str, between: str, after: str, scheme: str
) -> None:
    """HTTP's optional whitespace (space, tab) around the value and after the scheme is
    ignored, and the scheme name is case-insensitive."""
    assert _auth(_unlimited(), f"{before}{scheme}{between}{FULL_KEY}{after}").status == 200


@settings(max_examples=200, deadline=None)
@given(
    junk=st.text(
        alphabet=st.characters(categories=["Zs", "Zl", "Zp", "Cc", "Cf"], exclude_characters=" \t"),
        min_size=1,
        max_size=3,
    ),
    where=st.sampled_from(["before", "after", "scheme"]),
)
def test_any_other_whitespace_or_control_breaks_the_key(junk: str, where: str) -> None:
    """Any separator, control or format character other than space and tab, placed before
    the key, after it or between scheme and key, makes the key fail."""
    value = {
        "before": f"Bearer {junk}{FULL_KEY}",
        "after": f"Bearer {FULL_KEY}{junk}",
        "scheme": f"Bearer{junk}{FULL_KEY}",
    }[where]
    assert _auth(_unlimited(), value).status == 401


def test_unknown_and_revoked_keys_get_identical_401s(gov: govcore.Governance) -> None:
    """A revoked key's 401 is byte-identical to an unknown key's, headers included."""
    unknown = _post(gov, "gk_nobody_0000000000000", turn("s", "hi"))
    revoked = _post(gov, REVOKED_KEY, turn("s", "hi"))
    assert unknown.status == revoked.status == 401
    assert unknown.body == revoked.body
    assert unknown.headers == revoked.headers
    messages = []
    for key in ("gk_nobody_0000000000000", REVOKED_KEY):
        with pytest.raises(govcore.AuthenticationError) as caught:
            gov.client(key).get_conversation("s")
        messages.append(caught.value.message)
    assert messages[0] == messages[1]


def test_revoked_key_use_is_logged_without_the_key(
    gov: govcore.Governance, caplog: pytest.LogCaptureFixture
) -> None:
    """Presenting a revoked key leaves a debug record that names the key id, not the key."""
    with caplog.at_level(logging.DEBUG, logger="govcore"):
        _post(gov, REVOKED_KEY, turn("s", "hi"))
    records = [r.getMessage() for r in caplog.records if "revoked" in r.getMessage()]
    assert len(records) == 1
    assert REVOKED_KEY not in records[0]
    assert hashlib.sha256(REVOKED_KEY.encode()).hexdigest()[:12] in records[0]


@pytest.mark.parametrize("value", [FULL_KEY, f"Basic {FULL_KEY}", "Token x", "Bearerx y"])
def test_a_missing_bearer_scheme_is_named(gov: govcore.Governance, value: str) -> None:
    """An Authorization header without the Bearer scheme is a 401 saying the scheme is
    required, and never quotes the header (it may be the key itself)."""
    response = _auth(gov, value)
    assert response.status == 401
    message = response.json()["message"]
    assert "Bearer scheme" in message
    assert "missing API key" not in message
    assert FULL_KEY not in message


@pytest.mark.parametrize("headers", [{}, {"Authorization": ""}, {"Authorization": " \t"}])
def test_no_header_says_the_key_is_missing(
    gov: govcore.Governance, headers: dict[str, str]
) -> None:
    """No Authorization header (or an empty one) is a 401 saying the key is missing."""
    response = gov.handle("POST", TURN_PATH, headers, json.dumps(turn("s", "hi")))
    assert response.status == 401
    assert response.json()["message"].startswith("missing API key")


@pytest.mark.parametrize("value", ["Bearer", "Bearer  ", "bearer\t"])
def test_a_bearer_scheme_without_a_key_says_the_key_is_missing(
    gov: govcore.Governance, value: str
) -> None:
    """The Bearer scheme with nothing after it is a 401 saying the key is missing."""
    response = _auth(gov, value)
    assert response.status == 401
    assert response.json()["message"].startswith("missing API key")


def test_key_stored_as_sha256_authenticates(gov: govcore.Governance) -> None:
    """A key configured only by its SHA-256 works with its secret."""
    assert _post(gov, HASHED_KEY, turn("s", "hi")).status == 200


def test_scope_is_checked(gov: govcore.Governance) -> None:
    """A key without governance:read may not record turns (403); one with it may."""
    assert _post(gov, CHECK_KEY, turn("s", "hi")).json()["error"] == "forbidden"
    assert _post(gov, READ_KEY, turn("s", "hi")).status == 200
    with pytest.raises(govcore.PermissionDeniedError):
        gov.client(CHECK_KEY).get_conversation("s")


def test_check_output_needs_the_feature_setting(gov: govcore.Governance) -> None:
    """checkOutput on a key without post_inference_checking is 403, even with a bad role."""
    body = turn("s", "hi", role="user", checkOutput=True)
    assert _post(gov, READ_KEY, body).status == 403
    # With the feature allowed, checkOutput with a non-assistant role is a validation error.
    response = _post(gov, FULL_KEY, body)
    assert response.status == 400
    assert response.json()["details"] == [
        {"field": "checkOutput", "message": "is valid only when turn.role is 'assistant'"}
    ]


def test_check_output_needs_the_check_scope(clock: FakeClock) -> None:
    """A key that may record turns but not check outputs gets 403 for checkOutput, even with
    post_inference_checking allowed, and its plain turns still pass."""
    raw = config()
    raw["keys"].append(
        {
            "key": "gk_test_read_with_feature_1",
            "tenant": "acme",
            "scopes": ["governance:read"],
            "settings": {"post_inference_checking": "allowed"},
        }
    )
    gov = govcore.Governance.from_config(raw, clock=clock)
    body = turn("s", "hi", role="assistant", checkOutput=True)
    refused = _post(gov, "gk_test_read_with_feature_1", body)
    assert refused.status == 403
    assert "governance:check" in refused.json()["message"]
    assert (
        _post(gov, "gk_test_read_with_feature_1", turn("s", "hi", role="assistant")).status == 200
    )


def test_refusal_order_401_429_403_400(gov: govcore.Governance, clock: FakeClock) -> None:
    """With every problem at once the order is 401, then 429, then 403, then 400."""
    bad_body = "{not json"
    assert _post(gov, REVOKED_KEY, bad_body).status == 401
    for _ in range(3):
        assert _post(gov, SLOW_KEY, turn("s", "hi")).status == 200
    assert _post(gov, SLOW_KEY, bad_body).status == 429
    clock.advance(61)
    assert _post(gov, CHECK_KEY, bad_body).status == 403
    assert _post(gov, READ_KEY, bad_body).status == 400


def test_rate_limit_window_and_headers(gov: govcore.Governance, clock: FakeClock) -> None:
    """The 4th request in a minute for a 3-a-minute key is 429 until the first ages out."""
    for _ in range(3):
        assert _post(gov, SLOW_KEY, turn("s", "hi")).status == 200
        clock.advance(10)
    refused = _post(gov, SLOW_KEY, turn("s", "hi"))
    assert refused.status == 429
    body = refused.json()
    assert body["error"] == "rate_limited"
    assert body["window_seconds"] == 60
    assert refused.headers["retry-after"] == "30"
    with pytest.raises(govcore.RateLimitedError) as caught:
        gov.client(SLOW_KEY).get_conversation("s")
    assert caught.value.retry_after == 30
    assert caught.value.window_seconds == 60
    clock.advance(30)
    assert _post(gov, SLOW_KEY, turn("s", "hi")).status == 200


@settings(max_examples=200, deadline=None)
@given(
    limit=st.integers(min_value=1, max_value=5),
    gaps=st.lists(st.sampled_from([0.0, 0.5, 7.0, 30.0, 59.5, 60.0, 61.0]), max_size=40),
)
def test_sliding_window_admits_exactly_the_limit_in_any_minute(
    limit: int, gaps: list[float]
) -> None:
    """Against a list of admitted times: a request is admitted when fewer than ``limit`` were
    admitted in the 60 seconds before it, else told to wait until the oldest of them ages out."""
    raw: bytes | None = None
    admitted: list[float] = []
    now = 1_000.0
    for gap in gaps:
        now += gap
        write = admit(raw, now=now, limit=limit)
        recent = [t for t in admitted if t > now - WINDOW_SECONDS]
        if len(recent) < limit:
            assert write.result is None
            admitted.append(now)
            raw = write.value
        else:
            assert write.value is None
            assert write.result == pytest.approx(recent[len(recent) - limit] + 60 - now)


def test_default_rate_limit_is_120_a_minute(gov: govcore.Governance) -> None:
    """A key without its own limit gets 120 requests a minute."""
    statuses = [
        gov.handle("GET", "/governance/conversation/x", bearer(READ_KEY), None).status
        for _ in range(121)
    ]
    assert statuses[:120] == [404] * 120
    assert statuses[120] == 429


def test_rate_limits_are_per_key(gov: govcore.Governance) -> None:
    """One key's exhausted window does not limit another key."""
    for _ in range(3):
        _post(gov, SLOW_KEY, turn("s", "hi"))
    assert _post(gov, SLOW_KEY, turn("s", "hi")).status == 429
    assert _post(gov, FULL_KEY, turn("s", "hi")).status == 200


def test_idempotent_replay_is_byte_identical(gov: govcore.Governance, clock: FakeClock) -> None:
    """A replay within 5 minutes returns the first response byte for byte and records nothing."""
    body = turn("s", "can I get my money back", idempotencyKey="idem-1")
    first = _post(gov, FULL_KEY, body)
    clock.advance(299)
    again = _post(gov, FULL_KEY, json.dumps(body, indent=2))  # same request, other bytes
    assert again.status == 200
    assert again.body == first.body
    snapshot = gov.client(FULL_KEY).get_conversation("s")
    assert snapshot.turn_count == 1
    typed = gov.client(FULL_KEY).record_turn(body)
    assert typed.model_dump_json().encode() == first.body


def test_idempotency_key_with_another_body_is_400(gov: govcore.Governance) -> None:
    """The same key with a different body is refused, naming idempotencyKey."""
    _post(gov, FULL_KEY, turn("s", "first", idempotencyKey="idem-2"))
    response = _post(gov, FULL_KEY, turn("s", "second", idempotencyKey="idem-2"))
    assert response.status == 400
    assert response.json()["details"][0]["field"] == "idempotencyKey"


def test_idempotency_window_ends_after_5_minutes(gov: govcore.Governance, clock: FakeClock) -> None:
    """After 5 minutes the same key runs the request again."""
    body = turn("s", "hi", idempotencyKey="idem-3")
    _post(gov, FULL_KEY, body)
    clock.advance(300)
    assert _post(gov, FULL_KEY, body).json()["turnIndex"] == 2


def test_idempotency_keys_are_per_tenant(gov: govcore.Governance) -> None:
    """Another tenant using the same idempotency key gets its own result."""
    _post(gov, FULL_KEY, turn("s", "hi", idempotencyKey="shared"))
    other = _post(gov, OTHER_TENANT_KEY, turn("s", "something else", idempotencyKey="shared"))
    assert other.status == 200
    assert other.json()["turnIndex"] == 1


def test_sessions_belong_to_their_tenant(gov: govcore.Governance) -> None:
    """Another tenant's key sees 404 for a session id, and its own turns start afresh."""
    _post(gov, FULL_KEY, turn("shared-id", "hello"))
    assert (
        gov.handle(
            "GET", "/governance/conversation/shared-id", bearer(OTHER_TENANT_KEY), None
        ).status
        == 404
    )
    assert _post(gov, OTHER_TENANT_KEY, turn("shared-id", "hi")).json()["turnIndex"] == 1
    assert gov.client(FULL_KEY).get_conversation("shared-id").turn_count == 1


def test_ttl_precedence(clock: FakeClock) -> None:
    """Request ttlSeconds beats the key's setting, which beats the config default."""
    gov = govcore.Governance.from_config(config(conversation_ttl_seconds=1000), clock=clock)
    full, slow = gov.client(FULL_KEY), gov.client(SLOW_KEY)
    full.record_turn(turn("default", "hi"))
    slow.record_turn(turn("key", "hi"))
    full.record_turn(turn("request", "hi", ttlSeconds=300))
    clock.advance(299)
    for session in ("default", "key", "request"):
        full.get_conversation(session)
    clock.advance(1)  # 300 s: the request's TTL is over
    with pytest.raises(govcore.NotFoundError):
        full.get_conversation("request")
    clock.advance(300)  # 600 s: the key's TTL is over
    with pytest.raises(govcore.NotFoundError):
        full.get_conversation("key")
    full.get_conversation("default")
    clock.advance(400)  # 1000 s
    with pytest.raises(govcore.NotFoundError):
        full.get_conversation("default")


def test_content_size_limit_names_field_and_limit(clock: FakeClock) -> None:
    """Turn content beyond the limit is refused with 400 naming the field and the limit."""
    gov = govcore.Governance.from_config(config(max_content_bytes=2048), clock=clock)
    response = _post(gov, FULL_KEY, turn("s", "é" * 1025))  # 2050 bytes of UTF-8
    assert response.status == 400
    detail = response.json()["details"][0]
    assert detail["field"] == "turn.content"
    assert "2048" in detail["message"]
    assert _post(gov, FULL_KEY, turn("s", "a" * 2048)).status == 200
    context = _post(gov, FULL_KEY, turn("s", "hi", recentContext=["ok", "x" * 3000]))
    assert context.json()["details"][0]["field"] == "recentContext[1]"


def test_whole_body_limit(clock: FakeClock) -> None:
    """A body beyond max_body_bytes is refused before parsing."""
    gov = govcore.Governance.from_config(config(max_body_bytes=4096), clock=clock)
    response = _post(gov, FULL_KEY, turn("s", "a" * 5000))
    assert response.status == 400
    assert response.json()["details"][0]["field"] == "body"


def test_rationale_required_follows_the_key(gov: govcore.Governance) -> None:
    """pre-inference's rationaleRequired is the key's rationale_required setting."""
    request = {"sessionId": "p", "prompt": "refund please"}
    assert gov.client(FULL_KEY).pre_inference(request).rationale_required is True
    assert gov.client(READ_KEY).pre_inference(request).rationale_required is False


# Identifiers a caller chooses: refused when they hold a control character (NEL and the other
# C1 controls included), a bidirectional control, or nothing visible.
BAD_IDENTIFIERS = [
    "a\x00b",
    "a\nb",
    "tab\there",
    "nel\x85",
    "c1\x9f",
    "del\x7f",
    "ab\u202ecd",
    "\u202aab",
    "x\u2066y\u2069",
    "ltr\u200e",
    "rtl\u200f",
    "alm\u061c",
    " ",
    "   \u00a0\u3000",
    "\u200b",
    "\ufeff\u2060",
    "\u3164",
    "\u115f\ufe0f",
]


@pytest.mark.parametrize("bad", BAD_IDENTIFIERS, ids=ascii)
@pytest.mark.parametrize("field", ["sessionId", "idempotencyKey"])
def test_invalid_identifiers_are_refused_naming_the_field(
    gov: govcore.Governance, field: str, bad: str
) -> None:
    """A session id or idempotency key with a control, a bidi control or no visible character
    is a 400 whose details name the field."""
    body = turn("s", "hi", idempotencyKey="idem-ok")
    body[field] = bad
    response = _post(gov, FULL_KEY, body)
    assert response.status == 400
    assert [d["field"] for d in response.json()["details"]] == [field]
    with pytest.raises(govcore.InvalidRequestError) as caught:
        gov.client(FULL_KEY).record_turn(body)
    assert caught.value.details[0].field == field


@pytest.mark.parametrize("bad", BAD_IDENTIFIERS, ids=ascii)
def test_invalid_session_ids_in_paths_are_refused(gov: govcore.Governance, bad: str) -> None:
    """A session id in a path follows the same rule as one in a body."""
    response = gov.handle(
        "GET", f"/governance/conversation/{quote(bad, safe='')}", bearer(FULL_KEY), None
    )
    assert response.status == 400
    assert response.json()["details"][0]["field"] == "sessionId"


@pytest.mark.parametrize("good", ["s", "a b", "café-1", "客户/42", "x\u200dy", "🙂", "a" * 256])
def test_ordinary_identifiers_are_accepted(gov: govcore.Governance, good: str) -> None:
    """Identifiers with visible text, inner spaces, letters of any script or a joiner pass."""
    assert _post(gov, FULL_KEY, turn(good, "hi", idempotencyKey=good)).status == 200


_VISIBLE = st.text(alphabet=st.characters(categories=["L", "N", "P", "S"]), min_size=1, max_size=20)
_REFUSED_CHARS = st.one_of(
    st.characters(categories=["Cc"]),
    st.sampled_from(
        list("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
    ),
)


@settings(max_examples=300, deadline=None)
@given(text=_VISIBLE, bad=_REFUSED_CHARS, at=st.integers(min_value=0, max_value=20))
def test_identifier_rule_refuses_any_control_or_bidi_anywhere(text: str, bad: str, at: int) -> None:
    """A visible identifier is accepted, and inserting any Cc or bidi control anywhere in it
    makes it refused, naming that code point."""
    adapter: TypeAdapter[str] = TypeAdapter(Identifier)
    assert adapter.validate_python(text) == text
    spoiled = text[:at] + bad + text[at:]
    with pytest.raises(ValidationError) as caught:
        adapter.validate_python(spoiled)
    assert f"U+{ord(bad):04X}" in str(caught.value)


@settings(max_examples=200, deadline=None)
@given(
    blank=st.text(
        alphabet=st.one_of(
            st.characters(categories=["Zs", "Zl", "Zp"]),
            st.sampled_from(
                list(
                    "\u00ad\u034f\u115f\u1160\u180b\u200b\u200c\u200d\u2060\u3164\ufe00\ufeff\uffa0\U000e0020"
                )
            ),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_identifier_rule_refuses_blank_text(blank: str) -> None:
    """Text of only spaces, separators and default-ignorable characters is refused as blank."""
    adapter: TypeAdapter[str] = TypeAdapter(Identifier)
    with pytest.raises(ValidationError, match="blank"):
        adapter.validate_python(blank)
