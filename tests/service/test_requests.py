"""Every request has a bounded cost and a bounded answer: error sizes, unknown-field storms,
attribute storms and the size of tool-call arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.errors import (
    MAX_DETAILS,
    MAX_FIELD_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_REASON_CHARS,
    FieldProblem,
    InvalidRequestError,
)
from govcore.models import MAX_ATTRIBUTES, ToolCallRequest, TurnRequest
from govcore.service import requests
from govcore.service.requests import check_tool_arguments, validate_request
from govcore.testing import FakeClock
from tests.support import FULL_KEY, bearer, config, turn

TURN_PATH = "/governance/conversation/turn"
TOOL_PATH = "/governance/check-tool-call"
KIB = 1024

# The largest a 400 body can be: message and details at their character limits, every
# character a 12-byte JSON escape (an astral character as two \uXXXX), plus the JSON around.
WORST_ERROR_BODY = 12 * (MAX_MESSAGE_CHARS + MAX_DETAILS * (MAX_FIELD_CHARS + MAX_REASON_CHARS))
WORST_ERROR_BODY += 100 + 40 * MAX_DETAILS


@pytest.fixture(scope="module")
def gov() -> govcore.Governance:
    # A rate limit high enough for every request of this module.
    return govcore.Governance.from_config(
        config(default_rate_limit_per_minute=100_000), clock=FakeClock()
    )


def _post(gov: govcore.Governance, path: str, body: Any) -> govcore.HttpResponse:
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    return gov.handle("POST", path, bearer(FULL_KEY), raw)


def _tool_call(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "s", "toolName": "send_email", "arguments": arguments}


# --- unknown-field storms ------------------------------------------------------------------


def test_a_400k_unknown_field_body_gets_a_small_answer(gov: govcore.Governance) -> None:
    """400,000 unknown fields are refused with 20 details and a message counting the rest."""
    body = turn("s", "hi")
    body.update({f"x{i}": 0 for i in range(400_000)})
    response = _post(gov, TURN_PATH, body)
    assert response.status == 400
    assert len(response.body) < 4 * KIB
    answer = response.json()
    assert len(answer["details"]) == MAX_DETAILS
    assert answer["details"][0] == {"field": "x0", "message": "unknown field"}
    assert "399995 more" in answer["message"]
    assert f"details lists the first {MAX_DETAILS}" in answer["message"]


def test_the_typed_client_gets_the_same_capped_error(gov: govcore.Governance) -> None:
    """The typed client raises the same capped InvalidRequestError for an unknown-field storm."""
    body = turn("s", "hi")
    body.update({f"field_{i}": i for i in range(50_000)})
    with pytest.raises(govcore.InvalidRequestError) as caught:
        gov.client(FULL_KEY).record_turn(body)
    assert len(caught.value.details) == MAX_DETAILS
    assert "49995 more" in caught.value.message


_STORM_ENTRY: dict[str, Any] = {"role": "user", "content": "x", **{f"u{i}": 0 for i in range(50)}}


@pytest.mark.parametrize(
    "body",
    [
        {**turn("s", "hi"), **{f"x{i}": 0 for i in range(100_000)}},
        turn("s", "hi", priorHistory=[_STORM_ENTRY] * 1000),
        turn("s", "hi", recentContext=None, turn={"role": "user", "content": "x", "a": 1})
        | {"endUserContext": {f"e{i}": 1 for i in range(30)}},
    ],
    ids=["top-level", "in-list-items", "in-nested-objects"],
)
def test_an_unknown_field_storm_never_reaches_pydantic(
    monkeypatch: pytest.MonkeyPatch, body: dict[str, Any]
) -> None:
    """More than 20 unknown fields are refused by counting keys: pydantic never validates the
    body (it would build an error for every key) and only 20 names are looked up for a
    suggestion."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("pydantic validated a storm")

    suggested: list[str] = []

    def suggest(name: str, candidates: Any) -> str:
        suggested.append(name)
        return "unknown field"

    monkeypatch.setattr(TurnRequest, "model_validate", refuse)
    monkeypatch.setattr(requests, "unknown_field", suggest)
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(TurnRequest, body)
    assert len(suggested) == MAX_DETAILS
    assert len(caught.value.details) == MAX_DETAILS


def test_unknown_fields_in_nested_objects_are_counted_too(gov: govcore.Governance) -> None:
    """Unknown fields spread over the entries of priorHistory are counted and capped alike,
    each named by its path."""
    entry: dict[str, Any] = {"role": "user", "content": "x"}
    entry.update({f"u{i}": 0 for i in range(100)})
    response = _post(gov, TURN_PATH, turn("s", "hi", priorHistory=[entry] * 1000))
    answer = response.json()
    assert response.status == 400
    assert len(answer["details"]) == MAX_DETAILS
    assert answer["details"][0]["field"] == "priorHistory[0].u0"
    assert "99995 more" in answer["message"]


def test_a_few_unknown_fields_are_reported_with_the_other_problems(
    gov: govcore.Governance,
) -> None:
    """Up to the cap, unknown fields are reported together with every other problem."""
    body = {"turn": {"role": "robot", "content": "hi"}, "sesionId": "s"}
    answer = _post(gov, TURN_PATH, body).json()
    fields = {d["field"]: d["message"] for d in answer["details"]}
    assert fields["sessionId"] == "required"
    assert fields["sesionId"] == "unknown field (did you mean 'sessionId'?)"
    assert "turn.role" in fields


@settings(max_examples=40, deadline=None)
@given(count=st.integers(min_value=0, max_value=300))
def test_any_number_of_unknown_fields_gives_at_most_20_details(count: int) -> None:
    """Whatever the number of unknown fields, details hold at most 20 of them and the message
    accounts for every one."""
    body: dict[str, Any] = turn("s", "hi")
    body.update({f"zz{i}": i for i in range(count)})
    if count == 0:
        assert validate_request(TurnRequest, body).session_id == "s"
        return
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(TurnRequest, body)
    details = caught.value.details
    assert len(details) == min(count, MAX_DETAILS)
    assert [d.field for d in details] == [f"zz{i}" for i in range(len(details))]
    if count > 5:
        assert f"(and {count - 5} more" in caught.value.message


# --- other error storms and long caller input ----------------------------------------------


def test_many_invalid_list_entries_give_at_most_20_details(
    gov: govcore.Governance, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thousand invalid priorHistory entries are counted, and only 20 of them are turned
    into details."""
    described: list[Any] = []
    detail = requests._detail
    monkeypatch.setattr(requests, "_detail", lambda *a: described.append(a) or detail(*a))
    history = [{"role": "robot", "content": 1}] * 1000
    answer = _post(gov, TURN_PATH, turn("s", "hi", priorHistory=history)).json()
    assert len(described) == MAX_DETAILS
    assert len(answer["details"]) == MAX_DETAILS
    assert answer["details"][0]["field"].startswith("priorHistory[0]")
    assert "details lists the first 20" in answer["message"]


@pytest.mark.parametrize(
    "attributes",
    [
        {f"a{i}": {} for i in range(200_000)},
        {"region": [{}] * 200_000},
    ],
    ids=["many-attributes", "many-values"],
)
def test_an_attribute_storm_is_one_problem(
    gov: govcore.Governance, attributes: dict[str, Any]
) -> None:
    """Too many end-user attributes, or values of one, are refused as a single problem
    before any of them is validated."""
    body = turn("s", "hi", endUserContext={"attributes": attributes})
    answer = _post(gov, TURN_PATH, body).json()
    assert answer["details"] == [
        {"field": "endUserContext.attributes", "message": answer["details"][0]["message"]}
    ]
    assert f"limit of {MAX_ATTRIBUTES}" in answer["message"]


def test_attributes_up_to_the_limit_are_accepted(gov: govcore.Governance) -> None:
    """A hundred attributes, each with up to a hundred values, are accepted."""
    attributes = {f"a{i}": list(range(MAX_ATTRIBUTES)) for i in range(MAX_ATTRIBUTES)}
    body = turn("s", "hi", endUserContext={"attributes": attributes})
    assert _post(gov, TURN_PATH, body).status == 200


def test_quoted_caller_input_is_cut(gov: govcore.Governance) -> None:
    """A megabyte-long repeated key and a megabyte-long unknown field name are quoted only in
    part: the message and each detail stay within their limits."""
    long_name = "k" * 1_000_000
    repeated = f'{{"sessionId": "s", "{long_name}": 1, "{long_name}": 2}}'
    for raw in (repeated, json.dumps(turn("s", "hi", **{long_name: 1}))):
        response = _post(gov, TURN_PATH, raw)
        assert response.status == 400
        answer = response.json()
        assert len(answer["message"]) <= MAX_MESSAGE_CHARS
        assert all(len(d["field"]) <= MAX_FIELD_CHARS for d in answer["details"])
        assert all(len(d["message"]) <= MAX_REASON_CHARS for d in answer["details"])
        assert len(response.body) < 4 * KIB


def test_the_worst_error_body_stays_within_its_bound(gov: govcore.Governance) -> None:
    """Twenty-five unknown fields with long astral-plane names, each escaped to 12 bytes a
    character, still give a body within the documented worst case."""
    body = turn("s", "hi")
    body.update({f"{i:02d}" + "😀" * 5000: 0 for i in range(25)})
    response = _post(gov, TURN_PATH, body)
    assert response.status == 400
    assert len(response.json()["details"]) == MAX_DETAILS
    assert len(response.body) <= WORST_ERROR_BODY


def test_direct_errors_with_many_details_say_how_many_were_left_out() -> None:
    """An InvalidRequestError built with more than 20 details keeps 20 and its message counts
    the rest."""
    error = InvalidRequestError(
        "invalid request", [FieldProblem(f"f{i}", "bad") for i in range(33)]
    )
    assert [d.field for d in error.details] == [f"f{i}" for i in range(MAX_DETAILS)]
    assert error.message == "invalid request (13 more not listed in details)"
    assert len(error.to_body()["details"]) == MAX_DETAILS


_PROBLEMS = st.lists(
    st.builds(FieldProblem, st.text(max_size=400), st.text(max_size=600)), max_size=60
)


@settings(max_examples=200, deadline=None)
@given(problems=_PROBLEMS, extra=st.integers(min_value=0, max_value=10**6))
def test_every_invalid_request_error_is_bounded(problems: list[FieldProblem], extra: int) -> None:
    """However many problems and however long their text, an InvalidRequestError keeps at
    most 20 details within their limits, a bounded message, and the count of the others."""
    direct = InvalidRequestError("invalid request: " + "x" * 5000, problems)
    for error in (direct, InvalidRequestError.listing(problems, total=len(problems) + extra)):
        assert len(error.details) == min(len(problems), MAX_DETAILS)
        assert all(len(d.field) <= MAX_FIELD_CHARS for d in error.details)
        assert all(len(d.message) <= MAX_REASON_CHARS for d in error.details)
        assert len(error.message) <= MAX_MESSAGE_CHARS
    # Only the error built directly says how many details it left out (listing says it itself).
    unlisted = len(problems) - MAX_DETAILS
    if unlisted > 0:
        assert direct.message.endswith(f"({unlisted} more not listed in details)")
    total = len(problems) + extra
    listed = InvalidRequestError.listing(problems, total=total)
    if total > min(len(problems), 5):
        assert f"(and {total - min(len(problems), 5)} more" in listed.message


# --- tool-call arguments -------------------------------------------------------------------


def test_an_oversize_tool_argument_is_refused_naming_arguments(gov: govcore.Governance) -> None:
    """Tool arguments beyond the default 256 KiB are a 400 naming arguments and the limit,
    with a small answer; the typed client raises the same error."""
    arguments = {"body": "a@b.co " * (300 * KIB // 7)}
    response = _post(gov, TOOL_PATH, _tool_call(arguments))
    assert response.status == 400
    answer = response.json()
    assert answer["details"][0]["field"] == "arguments"
    assert str(256 * KIB) in answer["details"][0]["message"]
    assert len(response.body) < KIB
    with pytest.raises(govcore.InvalidRequestError) as caught:
        gov.client(FULL_KEY).check_tool_call(_tool_call(arguments))
    assert caught.value.details[0].field == "arguments"


def test_the_tool_argument_limit_is_a_setting() -> None:
    """max_tool_arguments_bytes sets the limit: arguments of exactly that size pass, one byte
    more is refused."""
    gov = govcore.Governance.from_config(config(max_tool_arguments_bytes=2048), clock=FakeClock())
    padding = 2048 - len('{"v":""}')
    assert _post(gov, TOOL_PATH, _tool_call({"v": "x" * padding})).status == 200
    refused = _post(gov, TOOL_PATH, _tool_call({"v": "x" * (padding + 1)}))
    assert refused.status == 400
    assert "2048" in refused.json()["message"]


def test_the_tool_argument_limit_has_a_floor() -> None:
    """A limit below 1 KiB is a configuration error naming the setting."""
    with pytest.raises(govcore.ConfigError, match="max_tool_arguments_bytes"):
        govcore.Governance.from_config(config(max_tool_arguments_bytes=100))


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=40,
)


@settings(max_examples=100, deadline=None)
@given(arguments=st.dictionaries(st.text(max_size=8), _JSON, max_size=6), limit=st.integers(0, 600))
def test_tool_arguments_are_measured_as_compact_utf8_json(
    arguments: dict[str, Any], limit: int
) -> None:
    """Arguments are refused exactly when their compact JSON, in UTF-8, is longer than the
    limit."""
    validated = ToolCallRequest.model_validate(_tool_call(arguments)).arguments
    size = len(json.dumps(validated, separators=(",", ":"), ensure_ascii=False).encode())
    if size > limit:
        with pytest.raises(InvalidRequestError) as caught:
            check_tool_arguments(validated, limit)
        assert caught.value.details[0].field == "arguments"
    else:
        check_tool_arguments(validated, limit)


def test_a_tool_call_body_far_over_the_argument_limit_is_refused_before_parsing(
    gov: govcore.Governance,
) -> None:
    """A 7 MB tool call made of many small items is refused as a body before it is parsed: the
    answer is small and names the limit, whatever the body holds."""
    arguments = {"to": [["x@y.z"]] * 700_000}
    body = json.dumps({"sessionId": "s", "toolName": "send", "arguments": arguments})
    response = gov.handle("POST", "/governance/check-tool-call", bearer(FULL_KEY), body)
    assert response.status == 400
    assert len(response.body) < 400
    assert response.json()["details"][0]["field"] == "body"
    small = json.dumps({"sessionId": "s", "toolName": "send", "arguments": {"to": "x"}}, indent=8)
    assert gov.handle("POST", "/governance/check-tool-call", bearer(FULL_KEY), small).status == 200


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\ufff9", "\x85", "\u202e"])
def test_identifiers_refuse_line_separators_and_annotation_marks(
    gov: govcore.Governance, char: str
) -> None:
    """Session ids and idempotency keys with a line or paragraph separator, an annotation mark,
    NEL or a bidi override are refused with the field named."""
    for body in (
        turn(f"a{char}b", "hi"),
        turn("s", "hi", idempotencyKey=f"k{char}1"),
    ):
        response = gov.handle(
            "POST", "/governance/conversation/turn", bearer(FULL_KEY), json.dumps(body)
        )
        assert response.status == 400
        assert response.json()["details"][0]["field"] in {"sessionId", "idempotencyKey"}


def test_a_query_string_becomes_wire_fields() -> None:
    """Values are percent-decoded text; a repeated name is the list of its values, in order;
    a name without a value is the empty text."""
    assert requests.parse_query("area=pay%20ments&tag=a&tag=b&tag=c&empty&plus=a+b") == {
        "area": "pay ments",
        "tag": ["a", "b", "c"],
        "empty": "",
        "plus": "a b",
    }
    assert requests.parse_query("") == {}


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("area=%ff", "is not valid percent-encoded UTF-8"),
        ("&".join(f"f{i}=x" for i in range(requests.MAX_QUERY_FIELDS + 1)), "more than 100"),
    ],
)
def test_a_query_string_that_cannot_be_read_is_one_problem_on_query(
    query: str, reason: str
) -> None:
    """Undecodable text and too many fields are refused as 400 on ``query``, before any model
    sees them."""
    with pytest.raises(InvalidRequestError) as refused:
        requests.parse_query(query)
    (detail,) = refused.value.details
    assert detail.field == "query"
    assert reason in detail.message


def test_a_query_string_at_the_field_limit_is_read() -> None:
    """Exactly ``MAX_QUERY_FIELDS`` pairs are accepted."""
    query = "&".join(f"f{i}=x" for i in range(requests.MAX_QUERY_FIELDS))
    assert len(requests.parse_query(query)) == requests.MAX_QUERY_FIELDS
