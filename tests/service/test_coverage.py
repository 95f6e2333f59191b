"""Cross-validated coverage of a tenant's examples (``govcore.service.coverage``)."""

from __future__ import annotations

import pytest

from govcore.config import load_config
from govcore.service.coverage import PolicyReport, TenantCoverage, configuration_coverage
from tests.support import FREEZE_EXAMPLE_OF_CANCELLING, gym_config


@pytest.fixture(scope="module")
def gym() -> TenantCoverage:
    (report,) = configuration_coverage(load_config(gym_config()))
    return report


def _policy(report: TenantCoverage, policy_id: str) -> PolicyReport:
    (found,) = [p for p in report.policies if p.policy_id == policy_id]
    return found


def test_a_policy_whose_examples_share_its_words_has_full_recall(gym: TenantCoverage) -> None:
    """Each locker-theft example, sent by an index without it, still selects its policy (the
    policy's own title and the other four examples speak of lockers and theft), and no other
    policy's example selects it."""
    locker = _policy(gym, "locker-theft")
    assert (locker.examples, locker.recall, locker.precision) == (5, 1.0, 1.0)
    assert locker.misses == ()
    assert locker.selects_others == ()


def test_examples_are_sent_by_an_end_user_the_policy_applies_to(gym: TenantCoverage) -> None:
    """personal-training applies only to premium plans: its examples are sent with attributes
    that satisfy its appliesWhen, so they select it."""
    assert _policy(gym, "personal-training").recall == 1.0


def test_an_example_in_another_policys_words_is_a_miss_and_a_confused_pair(
    gym: TenantCoverage,
) -> None:
    """Reasoned by hand: membership-freeze's fifth example is held out in fold 4 and speaks
    only of cancelling a contract with notice, words of membership-cancellation's title and
    summary, while it shares with membership-freeze only "membership" (in both titles). So it
    selects membership-cancellation and not its own policy; the other four examples say
    freeze, frozen or pause, membership-freeze's words alone, and select it: recall 4/5."""
    freeze = _policy(gym, "membership-freeze")
    assert freeze.recall == pytest.approx(0.8)
    (miss,) = freeze.misses
    assert miss.example == FREEZE_EXAMPLE_OF_CANCELLING
    assert miss.selected == ("membership-cancellation",)
    assert freeze.confused_with["membership-cancellation"] >= 1
    pairs = {(p.first, p.second): p for p in gym.confused_pairs}
    pair = pairs["membership-freeze", "membership-cancellation"]
    assert pair.first_selects_second == freeze.confused_with["membership-cancellation"]
    # Every confused pair is listed once, in the tenant's policy order.
    assert len(pairs) == len(gym.confused_pairs)


def test_precision_counts_other_policies_examples_that_select_it(gym: TenantCoverage) -> None:
    """membership-cancellation's precision is its own five examples over every held-out
    example that selects it: the freeze example about cancelling is one of those."""
    cancellation = _policy(gym, "membership-cancellation")
    assert cancellation.recall == 1.0
    selecting = 5 + _policy(gym, "membership-freeze").confused_with["membership-cancellation"]
    assert cancellation.precision == pytest.approx(5 / selecting)


def test_a_policy_without_examples_is_listed_and_not_measured(gym: TenantCoverage) -> None:
    """pool-hours has no examples: listed among those without, with no recall."""
    assert gym.without_examples == ("pool-hours",)
    pool = _policy(gym, "pool-hours")
    assert (pool.examples, pool.recall) == (0, None)


def test_always_on_policies_are_reported_and_left_out_of_selections(gym: TenantCoverage) -> None:
    """no-medical-advice is selected by every message: it is reported as always on, not
    measured, its examples are not sent, and no example counts as selecting it."""
    assert gym.always_on == ("no-medical-advice",)
    advice = _policy(gym, "no-medical-advice")
    assert (advice.always_on, advice.examples, advice.recall, advice.precision) == (
        True,
        2,
        None,
        None,
    )
    for report in gym.policies:
        assert "no-medical-advice" not in report.confused_with
        for outcome in (*report.misses, *report.selects_others):
            assert "no-medical-advice" not in outcome.selected


def test_the_tenant_totals_count_the_measured_examples(gym: TenantCoverage) -> None:
    """Four measured policies of five examples each are sent (the alwaysOn policy's two are
    not); the tenant's recall is the share of them that select their own policy."""
    assert (gym.tenant, gym.retriever, gym.folds) == ("ironworks", "tfidf", 5)
    assert gym.examples == 20
    misses = sum(len(p.misses) for p in gym.policies)
    assert gym.recall == pytest.approx((20 - misses) / 20)
    assert gym.selected_nothing == 0


def test_below_names_only_measured_policies_under_the_bar(gym: TenantCoverage) -> None:
    """``below(x)`` lists the policies with examples whose recall is under ``x``; a policy
    without examples or alwaysOn never fails it."""
    assert [p.policy_id for p in gym.below(1.0)] == ["membership-freeze"]
    assert gym.below(0.8) == []
    assert gym.below(0.0) == []


def test_a_repeated_example_does_not_answer_for_itself() -> None:
    """Five copies of one phrase are held out together: the copies left in the index would
    otherwise select the policy by the exact-phrase rule and report a recall it does not
    have."""
    config = gym_config()
    policies = config["tenants"]["ironworks"]["policies"]
    freeze = next(p for p in policies if p["id"] == "membership-freeze")
    freeze["examples"] = [FREEZE_EXAMPLE_OF_CANCELLING] * 5
    (report,) = configuration_coverage(load_config(config))
    assert _policy(report, "membership-freeze").recall == 0.0
