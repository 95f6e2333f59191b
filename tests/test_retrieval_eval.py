"""benchmarks/retrieval_eval.py's own rules: onsets, examples files, calibrated indexes."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from govcore.policy import PolicyDocument
from govcore.types import RetrievalHit

HARNESS = Path(__file__).resolve().parent.parent / "benchmarks" / "retrieval_eval.py"


@pytest.fixture(scope="module")
def ev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("retrieval_eval", HARNESS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["retrieval_eval"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def _policy(pid: str, **extra: Any) -> PolicyDocument:
    return PolicyDocument.model_validate(
        {
            "id": pid,
            "title": f"Policy {pid}",
            "summary": "s",
            "severity": 1,
            "enforcement": "audit",
            "citationRef": "c",
            **extra,
        }
    )


def _conversation(ev: ModuleType, expected: Sequence[set[str]]) -> Any:
    turns = tuple(ev.Turn("user", f"turn {k}", frozenset(e)) for k, e in enumerate(expected))
    return ev.Conversation("c", "d", turns)


def test_onsets_count_the_turns_until_active_while_expected(ev: ModuleType) -> None:
    """a is expected from turn 0 and active from turn 1 (lag 1); b becomes expected at turn 1
    and is active at once (lag 0); c is expected at turns 3 and 4 and never active; a expected
    again at turn 5, after a gap, is a new onset, active at turn 5 (lag 0)."""
    conv = _conversation(ev, [{"a"}, {"a", "b"}, {"b"}, {"c"}, {"c"}, {"a"}])
    actives = [set(), {"a", "b"}, {"b"}, set(), {"a"}, {"a"}]
    figures = ev.ConvFigures.of(conv, [frozenset(a) for a in actives], frozenset())
    assert figures.lags == [1, 0, None, 0]
    summary = figures.summary()
    assert summary["onsets"] == 4
    assert summary["on_time_rate"] == 0.5
    assert summary["mean_lag_turns"] == pytest.approx(1 / 3)
    assert summary["never_active_rate"] == 0.25


def test_a_policy_active_only_after_it_stops_being_expected_never_was(ev: ModuleType) -> None:
    conv = _conversation(ev, [{"a"}, set(), set()])
    actives = [frozenset(), frozenset({"a"}), frozenset()]
    assert ev.ConvFigures.of(conv, actives, frozenset()).lags == [None]


def test_always_on_policies_are_no_onsets(ev: ModuleType) -> None:
    conv = _conversation(ev, [{"a", "on"}])
    figures = ev.ConvFigures.of(conv, [frozenset({"a"})], frozenset({"on"}))
    assert figures.lags == [0]
    assert figures.jaccards == [1.0]


def test_examples_are_appended_and_unknown_ids_refused(ev: ModuleType, tmp_path: Path) -> None:
    domain = ev.Domain("d", (_policy("a", examples=["own one"]), _policy("b")), [])
    path = tmp_path / "examples.yaml"
    path.write_text("a: [first, second]\n", encoding="utf-8")
    with_examples = ev.with_examples(domain, ev.read_examples(path, domain))
    assert [p.examples for p in with_examples.policies] == [["own one", "first", "second"], []]
    path.write_text("zz: [first]\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="'zz' is not a policy of d"):
        ev.read_examples(path, domain)


def test_a_missing_examples_file_leaves_the_domain_as_written(
    ev: ModuleType, tmp_path: Path
) -> None:
    plain = {
        name: ev.Domain(name, (_policy("a"),), []) for name in (ev.NORTHWIND, *ev.BLIND_DOMAINS)
    }
    (tmp_path / "insurer").mkdir()
    (tmp_path / "insurer" / "examples.yaml").write_text("a: [hello there]\n", encoding="utf-8")
    mode = ev.load_mode("with", plain, tmp_path)
    assert mode.domains["insurer"].policies[0].examples == ["hello there"]
    assert mode.domains["airline"] is plain["airline"]
    assert mode.sources["airline"].startswith("WARNING: no examples file")


class _CalibratedIndex:
    """Selects the first policy whatever the text: its own thresholds, not the grid's."""

    calibration = "per tenant"

    def search(
        self, query: str, *, top_k: int, context: Sequence[str] = (), **_: Any
    ) -> list[RetrievalHit]:
        return [RetrievalHit(position=0, score=0.01)]


def test_a_calibrated_index_is_not_swept(ev: ModuleType) -> None:
    """Its own selection counts at every grid point, though its scores pass no floor."""
    policies = (_policy("a"), _policy("b"))

    def build(_options: Any, _policies: Any) -> Any:
        return (lambda text, context: np.zeros(2)), _CalibratedIndex()

    system = ev.System("fake", True, [{}], (0.0, 0.5), (0.0, 0.7), build)
    items = [
        ev.Item("1", "d", "lexical", "x", frozenset({"a"})),
        ev.Item("2", "d", "none", "y", frozenset()),
    ]
    domain = ev.Domain("d", policies, items)
    scored = ev.score_domain(system, {}, domain, items, 2)
    assert scored.calibrated
    assert scored.stats.tolist() == [[[1, 0, 0]] * 4, [[0, 1, 0]] * 4]
    setting = ev.Setting((), 0.5, 0.7)
    assert scored.item_selection(0, setting, domain, items[0]) == ["a"]
    assert "min_relevance" not in setting.retriever_options(own_thresholds=True)
    assert setting.label(own_thresholds=True) == "own thresholds"
