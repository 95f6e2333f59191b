"""Governance.reload: a configuration swapped in whole, with conversations kept."""

from __future__ import annotations

import asyncio
import copy
import threading
from pathlib import Path
from typing import Any

import pytest

import govcore
from govcore.testing import FakeClock
from tests.support import policy

KEY = "gk_clinic_staff_000000001"
NEW_KEY = "gk_clinic_staff_000000002"
START = 1_800_000_000.0

VISITING = policy(
    "visiting-hours",
    title="Visiting hours",
    summary="Visitors are welcome on the wards from two until eight in the evening.",
    text="Ward visiting hours run from 14:00 to 20:00; two visitors per bed at a time.",
    examples=["when can my family come to see me on the ward"],
)
MEDICATION = policy(
    "medication-advice",
    title="No dosage advice",
    summary="Never change or advise on a patient's medication dose; refer to the pharmacist.",
    text="Questions about doses of prescribed medicine go to the ward pharmacist.",
    severity=5,
    enforcement="fix",
    examples=["can I take two more of my pills tonight"],
)
CONSENT = policy(
    "consent",
    title="Consent before sharing",
    summary="Share a patient's records only with their written consent.",
    severity=4,
    alwaysOn=True,
)
RECORDS = policy(
    "patient-records",
    title="Records stay in the clinic",
    summary="Never paste record numbers into a chat.",
    detect=[{"regex": r"\bMRN-\d{6}\b", "replacement": "[record number]"}],
    enforcement="fix",
    severity=5,
)


def clinic(*policies: dict[str, Any], label: str | None = None, **settings: Any) -> dict[str, Any]:
    """A one-tenant configuration of ``policies`` with a key allowed everything."""
    tenant: dict[str, Any] = {"policies": list(policies)}
    if label is not None:
        tenant["label"] = label
    return copy.deepcopy(
        {
            "settings": settings,
            "tenants": {"clinic": tenant},
            "keys": [
                {
                    "key": KEY,
                    "tenant": "clinic",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                        "rate_limit_per_minute": "unlimited",
                    },
                }
            ],
        }
    )


def ids(policies: list[Any]) -> list[str]:
    return [p.id for p in policies]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


def test_a_removed_policy_is_released_at_the_next_turn_with_an_event(clock: FakeClock) -> None:
    """A conversation holding a policy the new configuration lacks keeps its state; its next
    turn releases the policy with a binding_released event and shows it as released."""
    gov = govcore.Governance.from_config(clinic(VISITING, MEDICATION, CONSENT), clock=clock)
    client = gov.client(KEY)
    first = client.record_turn(
        {"sessionId": "bed-12", "turn": {"role": "user", "content": "when can my family visit?"}}
    )
    assert "visiting-hours" in ids(first.active_policies)

    gov.reload(clinic(MEDICATION, CONSENT))
    clock.advance(5)
    second = client.record_turn(
        {"sessionId": "bed-12", "turn": {"role": "user", "content": "thank you"}}
    )

    assert second.turn_index == 2  # the conversation went on
    assert "visiting-hours" not in ids(second.active_policies)
    assert "visiting-hours" in ids(second.diff.newly_released)
    released = [e for e in second.diff.binding_events if e.event == "binding_released"]
    assert [(e.policy_id, e.turn_index) for e in released] == [("visiting-hours", 2)]
    snapshot = client.get_conversation("bed-12")
    assert any(
        e.policy_id == "visiting-hours" and e.event == "binding_released"
        for e in snapshot.binding_log
    )


def test_a_removed_policy_is_released_by_a_process_that_never_served_it(clock: FakeClock) -> None:
    """Another process on the same store, started on the new configuration, releases the
    policy too: the event is there, though it cannot describe a policy it never had."""
    store = govcore.MemoryStore(clock=clock)
    old = govcore.Governance.from_config(clinic(VISITING, CONSENT), clock=clock, store=store)
    old.client(KEY).record_turn(
        {"sessionId": "bed-3", "turn": {"role": "user", "content": "when can my family visit?"}}
    )
    new = govcore.Governance.from_config(clinic(CONSENT), clock=clock, store=store)
    turn = new.client(KEY).record_turn(
        {"sessionId": "bed-3", "turn": {"role": "user", "content": "and parking?"}}
    )
    assert [(e.policy_id, e.event) for e in turn.diff.binding_events] == [
        ("visiting-hours", "binding_released")
    ]
    assert "visiting-hours" not in ids(turn.active_policies)


def test_an_invalid_configuration_is_refused_and_the_old_one_keeps_serving(
    clock: FakeClock,
) -> None:
    """A reload that fails validation raises ConfigError naming the problem; nothing of it
    is served."""
    gov = govcore.Governance.from_config(clinic(VISITING, CONSENT, label="v1"), clock=clock)
    before = gov.served_versions()
    broken = clinic(VISITING, {**CONSENT, "severity": "high"}, label="v2")
    with pytest.raises(govcore.ConfigError, match="severity"):
        gov.reload(broken)
    assert gov.served_versions() == before
    assert before["clinic"].label == "v1"
    turn = gov.client(KEY).record_turn(
        {"sessionId": "s", "turn": {"role": "user", "content": "when can my family visit?"}}
    )
    assert "visiting-hours" in ids(turn.active_policies)


def test_a_configuration_that_moves_the_store_needs_a_restart(clock: FakeClock) -> None:
    """settings.store names the store the facade built: a reload may not change it."""
    gov = govcore.Governance.from_config(clinic(CONSENT), clock=clock)
    with pytest.raises(govcore.ConfigError, match=r"settings\.store.*restart"):
        gov.reload(clinic(CONSENT, store="memory://?conv_mb=64"))
    with pytest.raises(govcore.ConfigError, match=r"settings\.decision_log_size.*restart"):
        gov.reload(clinic(CONSENT, decision_log_size=5))  # the memory log's own setting
    gov.reload(clinic(CONSENT, retrieval_top_k=3))  # a shared setting may change
    assert gov.settings.retrieval_top_k == 3


def test_keys_and_settings_change_with_the_policies(clock: FakeClock) -> None:
    """A key the new configuration adds works at once, one it drops is refused, and a client
    made before the reload serves the new configuration."""
    gov = govcore.Governance.from_config(clinic(CONSENT), clock=clock)
    old_client = gov.client(KEY)
    changed = clinic(CONSENT, RECORDS)
    changed["keys"] = [{"key": NEW_KEY, "tenant": "clinic"}]
    gov.reload(changed)
    with pytest.raises(govcore.AuthenticationError):
        old_client.get_conversation("anything")
    response = gov.handle(
        "POST",
        "/governance/conversation/turn",
        {"Authorization": f"Bearer {NEW_KEY}"},
        '{"sessionId": "s", "turn": {"role": "user", "content": "hello"}}',
    )
    assert response.status == 200
    assert [p["id"] for p in response.json()["activePolicies"]] == ["consent"]


def test_decisions_carry_the_version_they_were_decided_on(clock: FakeClock) -> None:
    """Each decision record names the content hash and label of the policy set that decided
    it, so a log shows which configuration each process served."""
    log = govcore.MemoryDecisionLog()
    gov = govcore.Governance.from_config(
        clinic(RECORDS, label="2026-11-01"), clock=clock, decision_log=log
    )
    client = gov.client(KEY)
    request = {"sessionId": "s", "output": "Her number is MRN-123456."}
    client.post_inference(request)
    gov.reload(clinic(RECORDS, CONSENT, label="2026-11-28"))
    client.post_inference(request)
    gov.flush()
    first, second = log.decisions()
    versions = gov.served_versions()["clinic"]
    assert (second.policy_set_version, second.policy_set_label) == (versions.version, "2026-11-28")
    assert first.policy_set_label == "2026-11-01"
    assert first.policy_set_version != second.policy_set_version
    assert '"policy_set_label":"2026-11-01"' in first.to_json()


def test_the_version_is_the_content_not_the_label(clock: FakeClock) -> None:
    """The same policies under another label keep their version; other policies change it."""
    gov = govcore.Governance.from_config(clinic(CONSENT, label="a"), clock=clock)
    first = gov.served_versions()["clinic"]
    gov.reload(clinic(CONSENT, label="b"))
    relabelled = gov.served_versions()["clinic"]
    gov.reload(clinic(CONSENT, VISITING, label="b"))
    changed = gov.served_versions()["clinic"]
    assert relabelled == govcore.PolicySetVersion(first.version, "b")
    assert changed.version != first.version


def test_a_request_in_flight_finishes_on_the_configuration_it_started_with() -> None:
    """A reload that lands while a turn is being decided (here: from the clock the turn
    reads inside its store update) does not change that turn; the next turn sees it."""
    gov: govcore.Governance | None = None
    reload_now = threading.Event()

    def clock() -> float:
        if reload_now.is_set() and gov is not None:
            reload_now.clear()
            gov.reload(clinic(MEDICATION))
        return START

    gov = govcore.Governance.from_config(clinic(CONSENT), clock=clock)
    client = gov.client(KEY)
    reload_now.set()
    during = client.record_turn({"sessionId": "s", "turn": {"role": "user", "content": "hi"}})
    assert not reload_now.is_set()  # the reload did happen mid-request
    assert ids(during.active_policies) == ["consent"]
    after = client.record_turn({"sessionId": "s", "turn": {"role": "user", "content": "hi"}})
    assert ids(after.active_policies) == []
    assert [(e.policy_id, e.event) for e in after.diff.binding_events] == [
        ("consent", "binding_released")
    ]


def test_no_request_sees_a_half_swapped_configuration(clock: FakeClock) -> None:
    """Threads record turns and check outputs while another reloads back and forth between
    two configurations: every request succeeds, and each answer is wholly one configuration's
    (its always-on policy and its detect rule belong to the same one)."""
    first = clinic(
        policy("rule-a", title="Rule A", summary="A.", alwaysOn=True,
               detect=[{"terms": ["alpha"]}]),
    )  # fmt: skip
    second = clinic(
        policy("rule-b", title="Rule B", summary="B.", alwaysOn=True,
               detect=[{"terms": ["bravo"]}]),
    )  # fmt: skip
    gov = govcore.Governance.from_config(first, clock=clock)
    client = gov.client(KEY)
    failures: list[BaseException] = []
    answers: list[tuple[str, ...]] = []
    stop = threading.Event()

    reloaded = threading.Event()

    def traffic(worker: int) -> None:
        reloaded.wait(timeout=30)
        try:
            for n in range(60):
                turn = client.record_turn(
                    {
                        "sessionId": f"w{worker}-{n}",
                        "turn": {"role": "assistant", "content": "alpha bravo"},
                        "checkOutput": True,
                    }
                )
                assert turn.post_inference_check is not None
                found = {v.policy_id for v in turn.post_inference_check.violations}
                answers.append((*ids(turn.active_policies), *sorted(found)))
        except BaseException as exc:
            failures.append(exc)

    def reloads() -> None:
        flip = False
        while not stop.is_set():
            gov.reload(second if flip else first)
            reloaded.set()
            flip = not flip

    reloader = threading.Thread(target=reloads)
    workers = [threading.Thread(target=traffic, args=(w,)) for w in range(3)]
    reloader.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    reloader.join()
    assert failures == []
    assert set(answers) <= {("rule-a", "rule-a"), ("rule-b", "rule-b")}
    assert len(answers) == 180
    assert reloaded.is_set()


def test_a_tenant_label_must_be_printable_text() -> None:
    """A label is text a log line can show: empty text, a non-string or a line break is a
    ConfigError naming tenants.<id>.label."""
    for bad in ("", 7, "v1\nv2", "x" * 129):
        with pytest.raises(govcore.ConfigError, match=r"tenants\.clinic\.label"):
            govcore.Governance.from_config(clinic(CONSENT, label=bad))  # type: ignore[arg-type]


def test_the_asyncio_facade_reloads_too(clock: FakeClock) -> None:
    """AsyncGovernance.areload swaps the configuration the same way, off the event loop."""

    async def scenario() -> None:
        agov = govcore.AsyncGovernance.from_config(clinic(CONSENT), clock=clock)
        client = agov.client(KEY)
        await agov.areload(clinic(MEDICATION, CONSENT, label="next"))
        turn = await client.record_turn(
            {"sessionId": "s", "turn": {"role": "user", "content": "can I take two more pills?"}}
        )
        assert "medication-advice" in ids(turn.active_policies)
        assert agov.served_versions()["clinic"].label == "next"
        await agov.aclose()

    asyncio.run(scenario())


def test_a_cached_pre_inference_answer_is_not_served_after_a_reload(clock: FakeClock) -> None:
    """pre-inference's cached answers belong to the policy set that gave them: after a reload
    the same prompt is answered afresh, without the policy that was removed."""
    gov = govcore.Governance.from_config(clinic(VISITING, MEDICATION, CONSENT), clock=clock)
    client = gov.client(KEY)
    request = {"sessionId": "s", "prompt": "can I take two more of my pills tonight"}
    first = client.pre_inference(request)
    assert "medication-advice" in ids(first.applicable_policies)
    assert client.pre_inference(request).cache_hit
    gov.reload(clinic(VISITING, CONSENT))
    after = client.pre_inference(request)
    assert not after.cache_hit
    assert "medication-advice" not in ids(after.applicable_policies)
    assert client.pre_inference(request).cache_hit  # cached again, for the new version


def test_an_edited_lexicon_file_is_read_again_at_a_reload(tmp_path: Path) -> None:
    """The settings name a lexicon by its path, so they compare equal after an edit of the
    file; the reload reads the file's content again all the same."""
    lexicon = tmp_path / "clinic.yaml"
    lexicon.write_text("visit:\n  - nothing like it\n", encoding="utf-8")
    config = clinic(VISITING, CONSENT, lexicons=[str(lexicon)])
    gov = govcore.Governance.from_config(config)
    message = {"role": "user", "content": "zorblax florp for my nan"}
    before = gov.client(KEY).record_turn({"sessionId": "a", "turn": message})
    assert "visiting-hours" not in ids(before.active_policies)
    lexicon.write_text("visit:\n  - zorblax florp\n", encoding="utf-8")
    gov.reload(config)
    after = gov.client(KEY).record_turn({"sessionId": "b", "turn": message})
    fresh = (
        govcore.Governance.from_config(config)
        .client(KEY)
        .record_turn({"sessionId": "c", "turn": message})
    )
    assert ids(after.active_policies) == ids(fresh.active_policies)
    assert "visiting-hours" in ids(after.active_policies)
