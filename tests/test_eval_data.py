"""The held-out evaluation data is well formed: every label names a policy that can apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from govcore.policy import PolicySet

EVAL = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "eval"
DOMAINS = sorted(p.name for p in EVAL.iterdir() if p.is_dir())
KINDS = {"lexical", "paraphrase", "multi", "none", "distractor", "context"}


def _load(domain: str, name: str) -> Any:
    return yaml.safe_load((EVAL / domain / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("domain", DOMAINS)
def test_labels_name_policies_that_can_apply(domain: str) -> None:
    """Policies validate; every label names a policy of the domain, never an alwaysOn one, and
    an appliesWhen policy only where the item's attributes match."""
    policies = PolicySet.from_documents(domain, _load(domain, "policies.yaml"))
    always_on = {p.id for p in policies.policies if p.always_on}
    items = [(t["id"], t["expected"], t.get("attributes")) for t in _load(domain, "turns.yaml")]
    for conversation in _load(domain, "conversations.yaml"):
        for number, turn in enumerate(conversation["turns"]):
            attributes = turn.get("attributes", conversation.get("attributes"))
            items.append((f"{conversation['id']}#{number}", turn["expected_active"], attributes))
    for item_id, expected, attributes in items:
        for policy_id in expected:
            assert policy_id in policies.by_id, f"{item_id}: unknown policy {policy_id}"
            assert policy_id not in always_on, f"{item_id}: labels alwaysOn {policy_id}"
            assert policies.by_id[policy_id].applies_to(attributes), f"{item_id}: {policy_id}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_kind_of_turn_is_there(domain: str) -> None:
    """Each domain has turns of every kind, with unique ids."""
    turns = _load(domain, "turns.yaml")
    assert len({t["id"] for t in turns}) == len(turns)
    assert {t["kind"] for t in turns} == KINDS


def test_there_are_four_domains() -> None:
    """The four held-out domains are present."""
    assert DOMAINS == ["airline", "insurer", "it-helpdesk", "pharmacy"]
