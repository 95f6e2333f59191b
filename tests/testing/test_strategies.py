"""The testing kit's strategies (govcore.testing.strategies), each used against the service.

Valid requests are answered 200 and invalid ones 400 naming the field; session ids likewise on
GET and DELETE; generated configurations build and serve; tool arguments never make the gate
fail; planted values are found exactly where they were planted, by a policy of their kind; and
a text streamed in any chunking gets the verdict one post-inference check gives it.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import govcore
from govcore.testing import SAMPLE_KEY, FakeClock, sample_config
from govcore.testing import strategies as gs

# Enough examples to meet every mutation and kind over a few runs, few enough that the module
# takes seconds; CI runs the same settings every time.
EXAMPLES = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(EXAMPLES, max_examples=12)
BODY_ENDPOINTS = [name for name, (method, _) in gs.ENDPOINTS.items() if method == "POST"]
BEARER = {"Authorization": f"Bearer {SAMPLE_KEY}"}
_sessions = itertools.count()


@pytest.fixture(scope="module")
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="module")
def governance(clock: FakeClock) -> Iterator[govcore.Governance]:
    with govcore.Governance.from_config(sample_config(), clock=clock) as governance:
        yield governance


def _post(governance: govcore.Governance, endpoint: str, body: Any) -> govcore.HttpResponse:
    method, path = gs.ENDPOINTS[endpoint]
    return governance.handle(method, path, BEARER, json.dumps(body))


def _fields(response: govcore.HttpResponse) -> list[str]:
    return [detail["field"] for detail in response.json()["details"]]


def _names(field: str, detail: str) -> bool:
    """Whether a detail's field is ``field`` or a place inside it."""
    return detail == field or detail.startswith((f"{field}.", f"{field}["))


# --- requests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS)
@settings(EXAMPLES, max_examples=60)
@given(data=st.data())
def test_valid_requests_are_answered_200(
    governance: govcore.Governance, clock: FakeClock, endpoint: str, data: st.DataObject
) -> None:
    """Every body of valid_requests is answered 200, through the dispatcher."""
    body = data.draw(gs.valid_requests(endpoint))
    # Past the idempotency window: a key drawn again with another body is a new use of it.
    clock.advance(301)
    response = _post(governance, endpoint, body)
    assert response.status == 200, response.json()


@pytest.mark.parametrize(
    ("endpoint", "field"),
    [(endpoint, field) for endpoint in BODY_ENDPOINTS for field in gs.invalid_fields(endpoint)],
)
@settings(EXAMPLES, max_examples=20)
@given(data=st.data())
def test_invalid_requests_are_refused_naming_their_field(
    governance: govcore.Governance, endpoint: str, field: str, data: st.DataObject
) -> None:
    """Every body of invalid_requests is answered 400, and each detail names its field (every
    field a mistake can be made in, each tried)."""
    invalid = data.draw(gs.invalid_requests(endpoint, field=field))
    assert invalid.field == field
    response = _post(governance, endpoint, invalid.body)
    assert response.status == 400, (invalid.reason, response.json())
    fields = _fields(response)
    assert fields, response.json()
    assert all(_names(invalid.field, field) for field in fields), (invalid, fields)


@EXAMPLES
@given(body=gs.valid_requests("record_turn"))
def test_valid_turns_are_accepted_by_the_typed_client(
    governance: govcore.Governance, clock: FakeClock, body: dict[str, Any]
) -> None:
    """The typed client takes the same valid bodies (as mappings) and records the turn."""
    clock.advance(301)
    result = governance.client(SAMPLE_KEY).record_turn(body)
    assert result.session_id == body["sessionId"]
    assert result.turn_index >= 1


@EXAMPLES
@given(session_id=gs.session_ids())
def test_valid_session_ids_are_read_and_deleted(
    governance: govcore.Governance, session_id: str
) -> None:
    """A valid session id in the path: 404 before a turn, 200 after it, 204 on DELETE."""
    path = f"/governance/conversation/{quote(session_id, safe='')}"
    governance.handle("DELETE", path, BEARER, None)  # a session drawn before starts afresh
    assert governance.handle("GET", path, BEARER, None).status == 404
    turn = {"sessionId": session_id, "turn": {"role": "user", "content": "hello"}}
    assert _post(governance, "record_turn", turn).status == 200
    snapshot = governance.handle("GET", path, BEARER, None)
    assert snapshot.status == 200
    assert snapshot.json()["sessionId"] == session_id
    assert governance.handle("DELETE", path, BEARER, None).status == 204


@pytest.mark.parametrize("method", ["GET", "DELETE"])
@EXAMPLES
@given(session_id=gs.invalid_session_ids(for_path=True))
def test_invalid_session_ids_in_the_path_are_refused(
    governance: govcore.Governance, method: str, session_id: str
) -> None:
    """An invalid session id in the path of GET or DELETE is answered 400 naming sessionId."""
    path = f"/governance/conversation/{quote(session_id, safe='')}"
    response = governance.handle(method, path, BEARER, None)
    assert response.status == 400, response.json()
    assert _fields(response) == ["sessionId"]


@EXAMPLES
@given(session_id=gs.invalid_session_ids())
def test_invalid_session_ids_are_refused_by_the_typed_client(
    governance: govcore.Governance, session_id: str
) -> None:
    """The typed client raises InvalidRequestError naming sessionId, empty ids included."""
    client = governance.client(SAMPLE_KEY)
    for call in (client.get_conversation, client.delete_conversation):
        with pytest.raises(govcore.InvalidRequestError) as refused:
            call(session_id)
        assert [detail.field for detail in refused.value.details] == ["sessionId"]


@EXAMPLES
@given(
    tool=st.sampled_from(["refund", "delete_account", "send_email"]) | gs.texts(min_size=1),
    arguments=gs.tool_arguments(),
)
def test_any_tool_arguments_get_a_decision(
    governance: govcore.Governance, tool: str, arguments: dict[str, Any]
) -> None:
    """Whatever the arguments, check-tool-call answers 200 with a decision whose allow follows
    the block rule over its violations."""
    session = f"tools-{next(_sessions)}"
    body = {"sessionId": session, "toolName": tool, "arguments": arguments}
    response = _post(governance, "check_tool_call", body)
    assert response.status == 200, response.json()
    decision = response.json()
    blocking = [
        v
        for v in decision["violations"]
        if v["enforcementType"] == "fix" and v["confidence"] >= 0.7
    ]
    assert decision["allow"] is (not blocking)


# --- configurations ----------------------------------------------------------------------------


@pytest.mark.parametrize(("most", "tenants"), [(2, 1), (8, 2)])
@FEW
@given(data=st.data())
def test_generated_configurations_build_and_serve(
    most: int, tenants: int, data: st.DataObject
) -> None:
    """A generated configuration builds, and its keys record turns and check outputs."""
    config = data.draw(gs.configurations(max_policies=most, tenants=tenants))
    with govcore.Governance.from_config(config, clock=FakeClock()) as governance:
        for key in config["keys"]:
            client = governance.client(key["key"])
            turn = client.record_turn(
                {"sessionId": "s", "turn": {"role": "user", "content": "a refund please"}}
            )
            assert {p.id for p in turn.active_policies} <= {
                p["id"] for p in config["tenants"][key["tenant"]]["policies"]
            }
            client.post_inference({"sessionId": "s", "output": "jane@example.com"})


@FEW
@given(document=gs.policy_documents())
def test_generated_policy_documents_are_accepted(document: dict[str, Any]) -> None:
    """A generated policy document is accepted in a configuration and listed by its id."""
    config = sample_config()
    config["tenants"]["sample"]["policies"] = [document]
    with govcore.Governance.from_config(config, clock=FakeClock()) as governance:
        explained = governance.client(SAMPLE_KEY).explain_selection("hello")
    assert [c.policy_id for c in explained.candidates] == [document["id"]]


# --- planted values ----------------------------------------------------------------------------


def _pii_governance(kinds: list[str]) -> govcore.Governance:
    """A governance whose one policy has a ``pii`` rule of exactly ``kinds``."""
    config = sample_config()
    config["tenants"]["sample"]["policies"] = [
        {
            "id": "pii",
            "title": "No identifiers",
            "summary": "Never disclose an identifier.",
            "severity": 8,
            "enforcement": "fix",
            "citationRef": "PII 1",
            "detect": [{"pii": kinds}],
        }
    ]
    return govcore.Governance.from_config(config, clock=FakeClock())


@pytest.fixture(scope="module")
def every_kind() -> Iterator[govcore.Governance]:
    with _pii_governance(list(gs.PII_KINDS)) as governance:
        yield governance


@pytest.fixture(scope="module")
def one_kind() -> Iterator[dict[str, govcore.Governance]]:
    """A governance per pii kind, made when a test first asks for the kind."""
    made: dict[str, govcore.Governance] = {}
    yield made
    for governance in made.values():
        governance.close()


@pytest.mark.parametrize("kind", gs.PII_KINDS)
@settings(EXAMPLES, max_examples=15)
@given(data=st.data())
def test_planted_values_are_found_exactly_where_planted(
    one_kind: dict[str, govcore.Governance], kind: str, data: st.DataObject
) -> None:
    """A policy with a ``pii`` rule of one kind finds exactly the planted values of that kind:
    a one-call stream check reports each at its offset, post-inference each matched text."""
    planted = data.draw(gs.planted_texts([kind]))
    if kind not in one_kind:
        one_kind[kind] = _pii_governance([kind])
    client = one_kind[kind].client(SAMPLE_KEY)
    streamed = client.check_output_stream(
        {"sessionId": f"planted-{next(_sessions)}", "fullText": planted.text, "isFinal": True}
    )
    checked = client.post_inference({"sessionId": "planted", "output": planted.text})
    found = [(v.offset, v.offset + len(v.matched_text)) for v in streamed.new_violations]
    assert sorted(found) == [(s.start, s.end) for s in planted.spans], planted
    assert [v.matched_text for v in checked.violations] == [s.value for s in planted.spans]
    assert checked.policy_citations == ["pii"]


@settings(EXAMPLES, max_examples=60)
@given(planted=gs.planted_texts(max_values=4))
def test_planted_values_of_every_kind_are_found_with_every_kind_on(
    every_kind: govcore.Governance, planted: gs.PlantedText
) -> None:
    """With every pii kind in one rule, each planted value is reported at its span (a value can
    also be another kind's, which may report it too: nine digits pass more than one check)."""
    streamed = every_kind.client(SAMPLE_KEY).check_output_stream(
        {"sessionId": f"every-{next(_sessions)}", "fullText": planted.text, "isFinal": True}
    )
    found = {(v.offset, v.offset + len(v.matched_text)) for v in streamed.new_violations}
    assert {(s.start, s.end) for s in planted.spans} <= found, planted


@EXAMPLES
@given(planted=gs.planted_texts(min_values=1, max_values=5))
def test_planted_texts_say_where_their_values_are(planted: gs.PlantedText) -> None:
    """Each span holds its value, spans are in order and apart, and the rest is filler words."""
    rest, at = [], 0
    for span in planted.spans:
        assert planted.text[span.start : span.end] == span.value
        assert span.start > at or at == 0
        rest.append(planted.text[at : span.start])
        at = span.end
    rest.append(planted.text[at:])
    words = " ".join(rest).split()
    names = {"NI", "number", "NHS", "passport", "driving", "licence", "PESEL", "Steuer-ID"}
    names |= {"Ausweisnummer", "PAN", "TFN", "ABN", "ACN", "Medicare", "UEN", "TCKN", "SIN"}
    names |= {"NIN", "TIN", "routing"}
    assert set(words) <= set(gs.FILLER_WORDS) | names


@EXAMPLES
@given(text=gs.filler(max_words=40))
def test_filler_holds_nothing_any_detector_finds(every_kind: govcore.Governance, text: str) -> None:
    """With every pii kind on, filler text is safe and has no violation."""
    verdict = every_kind.client(SAMPLE_KEY).post_inference({"sessionId": "f", "output": text})
    assert verdict.violations == []


# --- chunkings ---------------------------------------------------------------------------------


def test_invalid_requests_say_which_fields_they_cover() -> None:
    """invalid_fields lists the fields of the endpoint's mistakes; an unknown endpoint or field
    is refused."""
    assert {"body", "sessionId", "turn.role", "tokenBudget", "checkOutput"} <= set(
        gs.invalid_fields("record_turn")
    )
    with pytest.raises(ValueError, match="no body endpoint"):
        gs.invalid_requests("get_conversation")
    with pytest.raises(ValueError, match="no invalid requests naming 'fullText'"):
        gs.invalid_requests("record_turn", field="fullText")


@EXAMPLES
@given(pair=gs.texts_with_chunkings())
def test_chunkings_are_splits_into_nonempty_pieces(pair: tuple[str, list[str]]) -> None:
    """The pieces join back into the text and none is empty."""
    text, pieces = pair
    assert "".join(pieces) == text
    assert all(pieces)


def test_chunkings_reach_every_split_of_a_short_text() -> None:
    """All 2**(n-1) splits of a text of n code points are drawn (an astral character, a
    combining mark and a surrogate-free emoji sequence among them)."""
    text = "a\U0001f600e\u0301"
    seen: set[tuple[str, ...]] = set()

    @settings(max_examples=400, deadline=None, database=None)
    @given(pieces=gs.chunkings(text))
    def collect(pieces: list[str]) -> None:
        seen.add(tuple(pieces))

    collect()
    assert len(seen) == 2 ** (len(text) - 1)


def _stream(client: Any, session: str, pieces: list[str]) -> tuple[list[Any], Any]:
    """Stream ``pieces`` as a model would, each call sending the text so far from the last
    watermark, the last call final; then finalize. The stream's violations and the verdict."""
    violations: list[Any] = []
    text, watermark = "", 0
    for index, piece in enumerate(pieces):
        text += piece
        answer = client.check_output_stream(
            {
                "sessionId": session,
                "fullText": text,
                "lastCheckedOffset": watermark,
                "isFinal": index == len(pieces) - 1,
            }
        )
        violations.extend(answer.new_violations)
        watermark = answer.watermark
    verdict = client.finalize_output({"sessionId": session, "fullText": text, "isFinal": True})
    return violations, verdict


_SAMPLE_KINDS = ["email", "credit_card", "iban", "secret"]


@settings(EXAMPLES, max_examples=50)
@given(
    data=st.data(),
    # Long enough texts that calls before the last scan too (every 200 new characters).
    planted=gs.planted_texts(_SAMPLE_KINDS, min_values=0, max_values=4, filler_words=40)
    | st.builds(gs.PlantedText, gs.texts(max_size=600), st.just(())),
)
def test_any_chunking_streams_to_the_post_inference_verdict(
    governance: govcore.Governance, data: st.DataObject, planted: gs.PlantedText
) -> None:
    """Streamed in any pieces, a text gets the verdict one post-inference check gives it: the
    same safe, violations and redaction; the stream reports each planted value once, at its
    offset."""
    pieces = data.draw(gs.chunkings(planted.text, max_pieces=12))
    client = governance.client(SAMPLE_KEY)
    streamed, finalized = _stream(client, f"chunks-{next(_sessions)}", pieces)
    whole = client.post_inference({"sessionId": "whole", "output": planted.text})
    assert finalized.safe == whole.safe
    assert finalized.suggested_redaction == whole.suggested_redaction
    key = [(v.policy_id, v.matched_text) for v in whole.violations]
    assert [(v.policy_id, v.matched_text) for v in finalized.violations] == key
    assert Counter((v.policy_id, v.matched_text) for v in streamed) == Counter(key)
    planted_spans = {(s.start, s.end) for s in planted.spans}
    found = {(v.offset, v.offset + len(v.matched_text)) for v in streamed}
    assert planted_spans <= found
