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
from govcore.server.reload import ConfigWatcher, files_state
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
    """A folder of policies is watched file by file; a file that appears changes the state."""
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "a.yaml").write_text("id: a\n", encoding="utf-8")
    config = tmp_path / "govcore.yaml"
    config.write_text("tenants:\n  t:\n    policies: policies\n", encoding="utf-8")
    before = files_state(config)
    assert [Path(state[0]).name for state in before] == ["govcore.yaml", "a.yaml"]
    (folder / "b.yml").write_text("id: b\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a policy\n", encoding="utf-8")
    assert [Path(state[0]).name for state in files_state(config)] == [
        "govcore.yaml",
        "a.yaml",
        "b.yml",
    ]


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
