"""Reloading what the server serves: /readyz names the versions, ConfigWatcher reloads on a
file change and on SIGHUP and refuses a bad configuration, and ``govcore serve`` does both as
a real process."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import govcore
from govcore.server import ThreadedGovernance, create_app
from govcore.server.reload import ConfigFiles, ConfigWatcher, files_state
from tests.server.conftest import call
from tests.support import policy

KEY = "gk_library_desk_0000001"
LOANS = policy(
    "loan-limits",
    title="Loan limits",
    summary="A member borrows at most twelve items at once.",
    alwaysOn=True,
)
FINES = policy("late-fines", title="Late fines", summary="Fines are waived for children.")


def write_config(folder: Path, *policies: dict[str, Any], label: str = "v1") -> Path:
    """A configuration file whose one tenant reads its policies from a file beside it."""
    (folder / "policies.json").write_text(json.dumps(list(policies)), encoding="utf-8")
    config = folder / "govcore.json"
    config.write_text(
        json.dumps(
            {
                "tenants": {"library": {"policies": "policies.json", "label": label}},
                "keys": [{"key": KEY, "tenant": "library"}],
            }
        ),
        encoding="utf-8",
    )
    return config


def touch_later(path: Path) -> None:
    """Move ``path``'s modification time on, so a change is seen even on a coarse clock."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def test_readiness_names_the_policy_sets_served(tmp_path: Path) -> None:
    """/readyz says which policy set each tenant is served and one version for them all; the
    configuration version is the same in every process serving the same policy sets."""
    config = write_config(tmp_path, LOANS, label="spring")
    with (
        govcore.Governance.from_config(config) as gov,
        govcore.Governance.from_config(config) as twin,
    ):
        body = call(create_app(ThreadedGovernance(gov)), "GET", "/readyz").json()
        twin_body = call(create_app(ThreadedGovernance(twin)), "GET", "/readyz").json()
        served = gov.served_versions()["library"]
        assert body["policySets"] == {"library": {"version": served.version, "label": "spring"}}
        assert body["configVersion"] == twin_body["configVersion"]
        gov.reload(write_config(tmp_path, LOANS, FINES, label="summer"))
        after = call(create_app(ThreadedGovernance(gov)), "GET", "/readyz").json()
        assert after["configVersion"] != body["configVersion"]
        assert after["policySets"]["library"]["label"] == "summer"


def test_with_a_metrics_token_readiness_names_tenants_only_to_its_bearer(tmp_path: Path) -> None:
    """The policy sets name tenants, as /metrics labels do: with a metrics token set, only a
    request bearing it sees them; the configuration version is shown to every probe."""
    with govcore.Governance.from_config(write_config(tmp_path, LOANS)) as gov:
        app = create_app(ThreadedGovernance(gov), metrics_token="probe-secret")
        anonymous = call(app, "GET", "/readyz").json()
        bearer = call(
            app, "GET", "/readyz", headers={"Authorization": "Bearer probe-secret"}
        ).json()
    assert "policySets" not in anonymous
    assert anonymous["configVersion"] == bearer["configVersion"]
    assert set(bearer["policySets"]) == {"library"}


def run_watcher(
    config: Path,
    steps: Callable[[govcore.AsyncGovernance, ConfigWatcher], Any],
    *,
    interval: float | None,
) -> None:
    async def scenario() -> None:
        agov = govcore.AsyncGovernance.from_config(config)
        watcher = ConfigWatcher(
            agov.areload, config, interval=interval, versions=agov.served_versions
        )
        await watcher.start()
        try:
            await steps(agov, watcher)
        finally:
            await watcher.stop()
            await agov.aclose()

    asyncio.run(scenario())


async def eventually(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait until ``condition`` holds (a bound on waiting, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


def test_a_changed_policy_file_is_reloaded(tmp_path: Path) -> None:
    """The watcher looks at the policy files the configuration names, not only at the
    configuration file: an edited policy file is served after the next look."""
    config = write_config(tmp_path, LOANS)

    async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
        before = agov.served_versions()["library"].version
        (tmp_path / "policies.json").write_text(json.dumps([LOANS, FINES]), encoding="utf-8")
        touch_later(tmp_path / "policies.json")
        await eventually(lambda: watcher.reloads == 1)
        assert agov.served_versions()["library"].version != before
        assert agov.policy_set("library").by_id.keys() == {"loan-limits", "late-fines"}

    run_watcher(config, steps, interval=0.05)


def test_a_broken_edit_is_refused_and_the_old_configuration_keeps_serving(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A policy file edited into an invalid one is refused, logged with the reason, and the
    configuration served before keeps answering; fixing the file is picked up."""
    config = write_config(tmp_path, LOANS)

    async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
        before = agov.served_versions()
        (tmp_path / "policies.json").write_text('[{"id": "half-written"', encoding="utf-8")
        touch_later(tmp_path / "policies.json")
        await eventually(lambda: watcher.refusals == 1)
        assert agov.served_versions() == before
        turn = await agov.client(KEY).record_turn(
            {"sessionId": "s", "turn": {"role": "user", "content": "hello"}}
        )
        assert [p.id for p in turn.active_policies] == ["loan-limits"]
        (tmp_path / "policies.json").write_text(json.dumps([FINES]), encoding="utf-8")
        touch_later(tmp_path / "policies.json")
        await eventually(lambda: watcher.reloads == 1)
        assert set(agov.policy_set("library").by_id) == {"late-fines"}

    with caplog.at_level("ERROR", logger="govcore.reload"):
        run_watcher(config, steps, interval=0.05)
    assert any("not reloaded" in r.getMessage() for r in caplog.records)


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_sighup_reloads(tmp_path: Path) -> None:
    """With file watching off, SIGHUP is what reloads."""
    config = write_config(tmp_path, LOANS, label="one")

    async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
        write_config(tmp_path, LOANS, label="two")
        await asyncio.sleep(0.1)
        assert watcher.reloads == 0  # nothing looks at the files
        os.kill(os.getpid(), signal.SIGHUP)
        await eventually(lambda: watcher.reloads == 1)
        assert agov.served_versions()["library"].label == "two"

    run_watcher(config, steps, interval=None)


def test_the_files_watched_are_the_configuration_and_its_policies(tmp_path: Path) -> None:
    """A folder of policies is watched file by file (a file that appears changes the state),
    and so are the shadow's policies and the lexicon files."""
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "a.yaml").write_text("id: a\n", encoding="utf-8")
    config = tmp_path / "govcore.yaml"
    config.write_text(
        "settings:\n  lexicons: [words.yaml, retail]\n"
        "tenants:\n  t:\n    policies: policies\n    shadow:\n      policies: next.json\n",
        encoding="utf-8",
    )
    names = [Path(state[0]).name for state in files_state(config)]
    assert names == ["govcore.yaml", "policies", "a.yaml", "next.json", "words.yaml"]
    before = files_state(config)
    (folder / "b.yml").write_text("id: b\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a policy\n", encoding="utf-8")
    names = [Path(state[0]).name for state in files_state(config)]
    assert names == ["govcore.yaml", "policies", "a.yaml", "b.yml", "next.json", "words.yaml"]
    (tmp_path / "next.json").write_text("[]", encoding="utf-8")  # the shadow's file appears
    assert files_state(config)[-2] != before[-2]


def test_an_edit_of_the_shadow_policies_is_reloaded(tmp_path: Path) -> None:
    """Starting a shadow's candidate files changing is a reload like any other."""
    (tmp_path / "next.json").write_text(json.dumps([LOANS]), encoding="utf-8")
    config = write_config(tmp_path, LOANS)
    document = json.loads(config.read_text(encoding="utf-8"))
    document["tenants"]["library"]["shadow"] = {"policies": "next.json", "label": "next"}
    config.write_text(json.dumps(document), encoding="utf-8")

    async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
        (tmp_path / "next.json").write_text(json.dumps([LOANS, FINES]), encoding="utf-8")
        touch_later(tmp_path / "next.json")
        await eventually(lambda: watcher.reloads == 1)

    run_watcher(config, steps, interval=0.05)


def test_a_failing_look_neither_stops_the_watcher_nor_its_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look at the files that raises is logged and tried again; stopping still works."""
    config = write_config(tmp_path, LOANS)
    real_state = ConfigFiles.state
    failures = {"left": 3}

    def flaky(self: ConfigFiles) -> Any:
        if failures["left"]:
            failures["left"] -= 1
            raise PermissionError("not now")
        return real_state(self)

    async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
        monkeypatch.setattr(ConfigFiles, "state", flaky)
        await eventually(lambda: failures["left"] == 0)
        write_config(tmp_path, LOANS, FINES, label="v2")
        touch_later(config)
        await eventually(lambda: watcher.reloads == 1)
        assert agov.served_versions()["library"].label == "v2"

    run_watcher(config, steps, interval=0.02)


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_a_burst_of_sighups_is_one_reload_and_stop_restores_the_handler(
    tmp_path: Path,
) -> None:
    """Ten signals at once (each handled by the loop in turn) make one reload, and the SIGHUP
    handler from before the watcher is back once it stops."""
    config = write_config(tmp_path, LOANS)
    seen: list[int] = []
    previous = signal.signal(signal.SIGHUP, lambda number, frame: seen.append(number))
    try:

        async def steps(agov: govcore.AsyncGovernance, watcher: ConfigWatcher) -> None:
            for _ in range(10):  # no await between: the loop sees them all at once
                os.kill(os.getpid(), signal.SIGHUP)
            await eventually(lambda: watcher.reloads >= 1)
            await asyncio.sleep(0.5)
            assert watcher.reloads == 1

        run_watcher(config, steps, interval=None)
        os.kill(os.getpid(), signal.SIGHUP)
        assert seen == [signal.SIGHUP]
    finally:
        signal.signal(signal.SIGHUP, previous)


@contextlib.contextmanager
def _client(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=10.0) as client:
        yield client


def _wait_for_label(client: httpx.Client, label: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        body: dict[str, Any] = client.get("/readyz").json()
        if body["policySets"]["library"]["label"] == label:
            return body
        assert time.monotonic() < deadline, f"still serving {body}"
        time.sleep(0.1)


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_serve_reloads_on_file_change_and_on_sighup(
    tmp_path: Path, running_server: Callable[..., Any]
) -> None:
    """A real ``govcore serve``: an edit of the configuration is served without a restart,
    a broken edit is refused while the server keeps answering, and SIGHUP reloads too."""
    config = write_config(tmp_path, LOANS, label="first")
    with (
        running_server(config, options=("--watch-interval", "0.2")) as server,
        _client(server.base_url) as client,
    ):
        turn = client.post(
            "/api/v1/agent/governance/conversation/turn",
            headers={"Authorization": f"Bearer {KEY}"},
            json={"sessionId": "s", "turn": {"role": "user", "content": "hi"}},
        )
        assert turn.status_code == 200
        write_config(tmp_path, LOANS, FINES, label="second")
        touch_later(config)
        _wait_for_label(client, "second")

        config.write_text("tenants: [not, a, mapping", encoding="utf-8")
        touch_later(config)
        deadline = time.monotonic() + 30
        while "not reloaded" not in server.log():
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.1)
        assert _wait_for_label(client, "second")["status"] == "ready"

        again = client.post(
            "/api/v1/agent/governance/conversation/turn",
            headers={"Authorization": f"Bearer {KEY}"},
            json={"sessionId": "s", "turn": {"role": "user", "content": "hi"}},
        )
        assert again.json()["turnIndex"] == 2  # the conversation kept its state


@pytest.mark.skipif(importlib.util.find_spec("uvicorn") is None, reason="needs the server extra")
def test_serve_without_watching_reloads_on_sighup(
    tmp_path: Path, running_server: Callable[..., Any]
) -> None:
    """``--watch-interval 0``: an edit is not looked at; SIGHUP reloads."""
    config = write_config(tmp_path, LOANS, label="first")
    with (
        running_server(config, options=("--watch-interval", "0")) as server,
        _client(server.base_url) as client,
    ):
        write_config(tmp_path, LOANS, label="second")
        touch_later(config)
        time.sleep(0.5)
        assert client.get("/readyz").json()["policySets"]["library"]["label"] == "first"
        os.kill(server.process.pid, signal.SIGHUP)
        _wait_for_label(client, "second")


def test_readiness_names_a_shadow_and_its_rate(tmp_path: Path) -> None:
    """A tenant's shadow is part of what a process serves: /readyz shows it, and a fleet whose
    workers run different shadows has different configuration versions."""
    config = write_config(tmp_path, LOANS)
    document = json.loads(config.read_text(encoding="utf-8"))
    document["tenants"]["library"]["policies"] = [LOANS]  # a mapping reads no relative path
    with govcore.Governance.from_config(document) as plain:
        plain_body = call(create_app(ThreadedGovernance(plain)), "GET", "/readyz").json()
    document["tenants"]["library"]["shadow"] = {
        "policies": [LOANS, FINES], "label": "next", "sample_rate": 0.5,
    }  # fmt: skip
    with govcore.Governance.from_config(document) as shadowed:
        body = call(create_app(ThreadedGovernance(shadowed)), "GET", "/readyz").json()
        candidate = shadowed.shadow_versions()["library"][0]
    assert body["policySets"]["library"]["shadow"] == {
        "version": candidate.version, "label": "next", "sampleRate": 0.5,
    }  # fmt: skip
    assert "shadow" not in plain_body["policySets"]["library"]
    assert body["configVersion"] != plain_body["configVersion"]
