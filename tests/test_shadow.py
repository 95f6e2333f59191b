"""Shadow mode: a candidate policy set decides beside the live one, only in the decision log.

The oracle for what the candidate decides is a second governance serving the candidate as its
live policy set: for stateless checks and for a conversation's first turn they must agree; for
a later turn, the candidate's selection is what a rollout at that turn would select (the live
governance reloaded with the candidate, from the same conversation state).
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

import govcore
from govcore import cli
from govcore.backends.tfidf import TfidfRetriever
from govcore.testing import FakeClock
from tests.support import policy

KEY = "gk_bank_agent_0000000001"
START = 1_800_000_000.0

OVERDRAFT = policy(
    "overdraft-fees",
    title="Overdraft fees",
    summary="Explain overdraft fees before agreeing to an arranged overdraft.",
    text="An arranged overdraft costs a daily fee; say so before the customer agrees.",
    examples=["can I go overdrawn on my current account", "how much does an overdraft cost"],
)
MORTGAGE = policy(
    "mortgage-advice",
    title="No mortgage advice in chat",
    summary="Mortgage product recommendations need a regulated adviser appointment.",
    text="Do not recommend a mortgage product; book an appointment with a mortgage adviser.",
    examples=["which mortgage should I pick", "is a fixed rate mortgage better for me"],
    severity=4,
)
ACCOUNT_NUMBERS = policy(
    "account-numbers",
    title="Account numbers stay out of chat",
    summary="Never repeat a full account number.",
    enforcement="fix",
    severity=5,
    detect=[{"regex": r"\b\d{8}\b", "replacement": "[account number]"}],
)
CARD_NUMBERS = policy(
    "card-numbers",
    title="No card numbers",
    summary="Never repeat a card number.",
    enforcement="fix",
    severity=5,
    detect=[{"pii": "credit_card"}],
)
TRANSFER_LIMIT = policy(
    "transfer-limit",
    title="Transfer limit",
    summary="Chat may not move more than 1000 in one transfer.",
    severity=4,
    enforcement="fix",
    tools=[{"tool": "transfer", "argument": "amount", "max": 1000}],
)
LIVE = [OVERDRAFT, ACCOUNT_NUMBERS, TRANSFER_LIMIT]
CANDIDATE = [OVERDRAFT, MORTGAGE, CARD_NUMBERS, {**TRANSFER_LIMIT, "tools": [
    {"tool": "transfer", "argument": "amount", "max": 500}]}]  # fmt: skip


def bank(
    policies: list[dict[str, Any]],
    shadow: list[dict[str, Any]] | None = None,
    rate: float | None = None,
    **settings: Any,
) -> dict[str, Any]:
    tenant: dict[str, Any] = {"policies": policies, "label": "live"}
    if shadow is not None:
        tenant["shadow"] = {"policies": shadow, "label": "candidate"}
        if rate is not None:
            tenant["shadow"]["sample_rate"] = rate
    return copy.deepcopy(
        {
            "settings": settings,
            "tenants": {"bank": tenant},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "bank",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                        "rate_limit_per_minute": "unlimited",
                    },
                }
            ],
        }
    )


def governance(
    config: dict[str, Any], log: govcore.MemoryDecisionLog | None = None
) -> govcore.Governance:
    """A governance on a fake clock with predictable trace ids; its decision log is ``log``,
    else the one its settings name."""
    counter = itertools.count()
    return govcore.Governance.from_config(
        config,
        clock=FakeClock(START),
        decision_log=log,
        trace_ids=lambda: f"{next(counter):032x}",
    )


def shadow_records(log: govcore.MemoryDecisionLog) -> list[govcore.Decision]:
    return [d for d in log.decisions() if d.shadow is not None]


TRAFFIC: list[tuple[str, dict[str, Any]]] = [
    ("/governance/conversation/turn",
     {"sessionId": "a", "turn": {"role": "user", "content": "Which mortgage should I pick?"}}),
    ("/governance/conversation/turn",
     {"sessionId": "b", "turn": {"role": "user", "content": "Can I go overdrawn this month?"}}),
    ("/governance/pre-inference", {"sessionId": "c", "prompt": "is a fixed rate mortgage better"}),
    ("/governance/post-inference",
     {"sessionId": "d", "output": "Your account 12345678 and card 4111 1111 1111 1111."}),
    ("/governance/post-inference", {"sessionId": "e", "output": "Card 4111 1111 1111 1111."}),
    ("/governance/check-tool-call",
     {"sessionId": "f", "toolName": "transfer", "arguments": {"amount": 800}}),
    ("/governance/check-tool-call",
     {"sessionId": "g", "toolName": "transfer", "arguments": {"amount": 1200}}),
    ("/governance/check-output/finalize",
     {"sessionId": "h", "fullText": "Reference 87654321.", "isFinal": True}),
]  # fmt: skip


def send(gov: govcore.Governance, path: str, body: dict[str, Any]) -> govcore.HttpResponse:
    return gov.handle("POST", path, {"Authorization": f"Bearer {KEY}"}, json.dumps(body))


def test_answers_are_the_live_set_s_whatever_the_shadow_decides() -> None:
    """With a shadow policy set, every answer is byte for byte the answer without one."""
    with_shadow = governance(bank(LIVE, shadow=CANDIDATE))
    without = governance(bank(LIVE))
    for path, body in TRAFFIC:
        got, expected = send(with_shadow, path, body), send(without, path, body)
        assert (got.status, got.body) == (expected.status, expected.body), path


def test_the_candidate_decides_as_it_would_if_it_were_live() -> None:
    """Each shadow record holds what a governance serving the candidate answers to the same
    request (first turns and stateless checks), and the live answer it was compared with."""
    log = govcore.MemoryDecisionLog()
    shadowed = governance(bank(LIVE, shadow=CANDIDATE), log)
    candidate_live = governance(bank(CANDIDATE))
    expected: list[tuple[str, str, tuple[str, ...], str, tuple[str, ...]]] = []
    for path, body in TRAFFIC:
        live = send(shadowed, path, body).json()
        as_candidate = send(candidate_live, path, body).json()
        endpoint = path.removeprefix("/governance/")
        expected.append(
            (endpoint, *_judgement(endpoint, as_candidate), *_judgement(endpoint, live))
        )
    shadowed.flush()
    records = shadow_records(log)
    got = [
        (r.endpoint, r.verdict, r.policy_ids, r.shadow.live_verdict, r.shadow.live_policy_ids)
        for r in records
        if r.shadow is not None
    ]
    assert got == expected
    record = records[0]
    assert record.shadow is not None
    assert record.policy_set_label == "candidate"
    assert record.policy_set_version == candidate_live.served_versions()["bank"].version
    assert record.shadow.live_policy_set_version == shadowed.served_versions()["bank"].version


def _judgement(endpoint: str, answer: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The verdict and policies of an answer, as a shadow record states them."""
    if endpoint == "conversation/turn":
        return "selection", tuple(p["id"] for p in answer["activePolicies"])
    if endpoint == "pre-inference":
        return "selection", tuple(p["id"] for p in answer["applicablePolicies"])
    ids = tuple(dict.fromkeys(v["policyId"] for v in answer["violations"]))
    if endpoint == "check-tool-call":
        return ("allow" if answer["allow"] else "block"), ids
    return ("safe" if answer["safe"] else "unsafe"), ids


def test_a_later_turn_is_judged_as_a_rollout_at_that_turn_would_decide() -> None:
    """At turn 3 the shadow record holds what the live governance, reloaded with the
    candidate after turn 2, answers at turn 3: a rollout keeps conversations' state."""
    turns = [
        "How much does an overdraft cost?",
        "And per day?",
        "Which mortgage should I pick?",
    ]
    log = govcore.MemoryDecisionLog()
    shadowed = governance(bank(LIVE, shadow=CANDIDATE), log)
    rolled_out = governance(bank(LIVE))
    for number, content in enumerate(turns, start=1):
        body = {"sessionId": "s", "turn": {"role": "user", "content": content}}
        send(shadowed, "/governance/conversation/turn", body)
        if number == len(turns):
            rolled_out.reload(bank(CANDIDATE))
        answer = send(rolled_out, "/governance/conversation/turn", body).json()
    shadowed.flush()
    last = shadow_records(log)[-1]
    assert last.policy_ids == tuple(p["id"] for p in answer["activePolicies"])
    assert "overdraft-fees" in last.policy_ids  # held from the earlier turns, as live holds it


def test_conversations_are_sampled_whole_at_the_sample_rate() -> None:
    """At a rate of 0.3 about that share of conversations is shadowed, every turn of a
    sampled one and none of the others."""
    log = govcore.MemoryDecisionLog(maxlen=100_000)
    gov = governance(bank(LIVE, shadow=CANDIDATE, rate=0.3), log)
    sessions = [f"session-{n}" for n in range(400)]
    for session in sessions:
        for content in ("hello", "can I go overdrawn"):
            send(gov, "/governance/conversation/turn",
                 {"sessionId": session, "turn": {"role": "user", "content": content}})  # fmt: skip
    gov.flush()
    per_session: dict[str, int] = {}
    for record in shadow_records(log):
        per_session[record.session_id] = per_session.get(record.session_id, 0) + 1
    assert set(per_session.values()) == {2}
    assert 0.22 < len(per_session) / len(sessions) < 0.38


def test_a_replayed_turn_is_not_judged_again() -> None:
    """A replay (same messageId) records no turn, so the candidate judges nothing."""
    log = govcore.MemoryDecisionLog()
    gov = governance(bank(LIVE, shadow=CANDIDATE), log)
    client = gov.client(KEY)
    request = {"sessionId": "s", "turn": {"role": "user", "content": "hi"}}
    client.record_turn(request, message_id="m-1")
    client.record_turn(request, message_id="m-1")
    gov.flush()
    assert len(shadow_records(log)) == 1


def test_a_shadow_is_configured_with_its_policies_and_a_rate_in_range() -> None:
    """tenants.<id>.shadow takes policies, label and sample_rate (above 0, at most 1); any
    other key, a bad rate or a bad candidate policy is a ConfigError naming its place."""
    for shadow, place in (
        ({"policies": CANDIDATE, "sample_rate": 0}, r"shadow\.sample_rate"),
        ({"policies": CANDIDATE, "sample_rate": 1.5}, r"shadow\.sample_rate"),
        ({"policies": CANDIDATE, "sample_rate": True}, r"shadow\.sample_rate"),
        ({"policies": CANDIDATE, "language": "german"}, r"shadow\.language"),
        ({"policies": [{"id": "x"}]}, r"shadow\.policies\[0\]"),
        ({}, r"shadow\.policies"),
        ("candidate.yaml", r"tenants\.bank\.shadow"),
    ):
        config = bank(LIVE)
        config["tenants"]["bank"]["shadow"] = shadow
        with pytest.raises(govcore.ConfigError, match=place):
            govcore.Governance.from_config(config)


def test_the_report_counts_what_the_decisions_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """govcore shadow-report over the JSON-lines log agrees with the answers of the live
    governance and of one serving the candidate, request by request."""
    path = tmp_path / "decisions.jsonl"
    shadowed = governance(bank(LIVE, shadow=CANDIDATE, decision_log_path=str(path)))
    candidate_live = governance(bank(CANDIDATE))
    changed = {"selection": 0, "verdict": 0}
    flips: dict[str, int] = {}
    gained: dict[str, int] = {}
    for path_, body in TRAFFIC:
        endpoint = path_.removeprefix("/governance/")
        live_verdict, live_ids = _judgement(endpoint, send(shadowed, path_, body).json())
        verdict, ids = _judgement(endpoint, send(candidate_live, path_, body).json())
        kind = "selection" if verdict == "selection" else "verdict"
        if set(ids) != set(live_ids) or verdict != live_verdict:
            changed[kind] += 1
        if verdict != live_verdict:
            flips[f"{live_verdict} -> {verdict}"] = flips.get(f"{live_verdict} -> {verdict}", 0) + 1
        for pid in set(ids) - set(live_ids):
            gained[pid] = gained.get(pid, 0) + 1
    shadowed.close()

    assert cli.main(["shadow-report", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["shadow_records"] == len(TRAFFIC)
    assert report["selections"]["changed"] == changed["selection"]
    assert report["verdicts"]["changed"] == changed["verdict"]
    assert report["verdicts"]["flips"] == flips
    reported_gains = {
        pid: counts["gained"]
        for kind in ("selections", "verdicts")
        for pid, counts in report[kind]["policies"].items()
        if counts["gained"]
    }
    assert reported_gains == gained
    assert report["versions"][0]["candidate_label"] == "candidate"

    assert cli.main(["shadow-report", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"{len(TRAFFIC)} shadow records" in text
    assert "mortgage-advice" in text


def test_the_report_survives_a_log_cut_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lines that are not JSON objects are counted as unreadable; the rest is reported."""
    path = tmp_path / "decisions.jsonl"
    record = {
        "endpoint": "post-inference", "verdict": "unsafe", "tenant": "t",
        "policy_set_version": "c", "policy_ids": ["p"],
        "shadow": {"live_policy_set_version": "l", "live_verdict": "safe",
                   "live_policy_ids": [], "gained": ["p"], "lost": []},
    }  # fmt: skip
    path.write_text(json.dumps(record) + '\n[1, 2]\n{"endpoint": "post-inf', encoding="utf-8")
    assert cli.main(["shadow-report", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["shadow_records"], report["unreadable_lines"]) == (1, 2)
    assert report["verdicts"]["flips"] == {"safe -> unsafe": 1}
    assert report["verdicts"]["policies"]["p"] == {"gained": 1, "lost": 0, "in_flips": 1}
    assert cli.main(["shadow-report", str(tmp_path / "missing")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_validate_names_each_version_and_the_shadow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """govcore validate lists each tenant's version with its label, and its shadow's."""
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(bank(LIVE, shadow=CANDIDATE, rate=0.25)), encoding="utf-8")
    assert cli.main(["validate", str(path)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    live = governance(bank(LIVE)).served_versions()["bank"].version
    candidate = governance(bank(CANDIDATE)).served_versions()["bank"].version
    assert line == (
        f"  tenants.bank: version live ({live}); shadow candidate ({candidate}) "
        "(4 policies, 25% of conversations)"
    )


def test_every_problem_of_a_shadow_is_listed_at_once() -> None:
    """A bad rate does not hide a bad candidate policy, and a broken live set does not hide
    its shadow's problems: the ConfigError lists them all."""
    config = bank([{**OVERDRAFT, "severity": "high"}])
    config["tenants"]["bank"]["shadow"] = {"policies": [{"id": "x"}], "sample_rate": 2}
    with pytest.raises(govcore.ConfigError) as raised:
        govcore.Governance.from_config(config)
    places = [problem.location for problem in raised.value.problems]
    assert any(p.startswith("tenants.bank.policies[0]") for p in places)
    assert "tenants.bank.shadow.sample_rate" in places
    assert any(p.startswith("tenants.bank.shadow.policies[0]") for p in places)


class _CandidateIndexFails:
    """A retriever whose index of the candidate's policies (the one holding
    ``mortgage-advice``) fails at every search: a broken candidate."""

    def __init__(self) -> None:
        self._tfidf = TfidfRetriever()

    def index(self, policies: Any) -> Any:
        built = self._tfidf.index(policies)
        if not any(p.id == "mortgage-advice" for p in policies):
            return built

        class Failing:
            def search(self, *args: Any, **kwargs: Any) -> Any:
                raise RuntimeError("candidate index broken")

            def __getattr__(self, name: str) -> Any:
                return getattr(built, name)

        return Failing()


def test_a_candidate_that_fails_changes_no_answer(caplog: pytest.LogCaptureFixture) -> None:
    """A candidate whose retrieval raises is logged; every answer is the live one, and no
    shadow record is written for the requests it failed on."""
    log = govcore.MemoryDecisionLog()
    counter = itertools.count()
    broken = govcore.Governance.from_config(
        bank(LIVE, shadow=CANDIDATE), clock=FakeClock(START), decision_log=log,
        retriever=_CandidateIndexFails(), trace_ids=lambda: f"{next(counter):032x}",
    )  # fmt: skip
    without = governance(bank(LIVE))
    with caplog.at_level("ERROR", logger="govcore"):
        for path, body in TRAFFIC:
            got, expected = send(broken, path, body), send(without, path, body)
            assert (got.status, got.body) == (expected.status, expected.body), path
    broken.flush()
    endpoints = {r.endpoint for r in shadow_records(log)}
    assert not endpoints & {"conversation/turn", "pre-inference"}  # their retrieval failed
    assert "post-inference" in endpoints  # checks need no retrieval: still judged
    assert any("shadow policy set" in r.getMessage() for r in caplog.records)
