"""How well each policy's ``examples`` select it, cross-validated (``govcore coverage``).

An example that is in the index selects its policy almost by construction: it is scored against
itself. What an author needs to know is whether a *new* message like it would, so each example
is sent by an index built without it. The examples are split into :data:`FOLDS` folds (example
``i`` of each policy goes to fold ``i mod FOLDS``, and an example with the same words as an
earlier one goes to that one's fold); for each fold the tenant's index is built,
with the configured retriever, from copies of the policies that lack that fold's examples, and
each held-out example is sent through the same selection a turn uses: as a turn's content with
no context, for an end user whose attributes satisfy its policy's ``appliesWhen``.

``alwaysOn`` policies are selected by every message, so they are left out of what a message
selects and their own examples are not sent: there is nothing to measure. Plain data in, plain
data out; the command line prints it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from govcore.backends import retriever_from_settings
from govcore.config import LoadedConfig
from govcore.core.selection import retrieval_depth, select_policies
from govcore.errors import ConfigError, GovcoreError
from govcore.policy import PolicySet
from govcore.retrieval.analysis import words_of
from govcore.retrieval.calibration import example_coverage
from govcore.service.tenants import satisfying_attributes
from govcore.types import RetrievalIndex, Retriever

__all__ = [
    "FOLDS",
    "ConfusedPair",
    "ExampleSelection",
    "PolicyReport",
    "TenantCoverage",
    "configuration_coverage",
    "tenant_coverage",
]

FOLDS = 5
"""How many folds the examples are split into: with the five examples per policy the docs
recommend, each fold holds out one example of each policy."""


@dataclass(frozen=True, slots=True)
class ExampleSelection:
    """What one held-out example selected when sent as a message.

    Attributes:
        example: the example's text.
        selected: the ids of the policies it selected, best first (``alwaysOn`` ones left out).
    """

    example: str
    selected: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PolicyReport:
    """How well one policy's examples select it.

    Attributes:
        policy_id: the policy.
        examples: how many examples it has.
        always_on: an ``alwaysOn`` policy: selected by every message, so not measured.
        recall: the share of its held-out examples that select it; ``None`` for a policy
            without examples or ``alwaysOn``.
        precision: of the held-out examples (of any policy) that select it, the share that
            are its own; ``None`` when none selects it.
        misses: its examples that do not select it, with what they select instead.
        selects_others: its examples that select another policy (whether or not they select
            it too), with everything they select.
        confused_with: other policy id to how many of its examples select that policy.
    """

    policy_id: str
    examples: int
    always_on: bool
    recall: float | None
    precision: float | None
    misses: tuple[ExampleSelection, ...] = ()
    selects_others: tuple[ExampleSelection, ...] = ()
    confused_with: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ConfusedPair:
    """Two policies that are hard to tell apart: examples of one select the other.

    Attributes:
        first, second: the two policy ids, in the tenant's policy order.
        first_selects_second: how many examples of ``first`` select ``second``.
        second_selects_first: how many examples of ``second`` select ``first``.
    """

    first: str
    second: str
    first_selects_second: int
    second_selects_first: int


@dataclass(frozen=True, slots=True)
class TenantCoverage:
    """One tenant's coverage report.

    Attributes:
        tenant: the tenant id.
        retriever: the retriever it was measured with (``settings.retriever``).
        folds: how many folds the examples were split into.
        policies: one report per policy, in the tenant's policy order.
        confused_pairs: the pairs of policies whose examples select each other (either way),
            most confused first.
        without_examples: ids of the policies (not ``alwaysOn``) that have no examples.
        always_on: ids of the ``alwaysOn`` policies.
        examples: how many examples were sent (those of policies that are not ``alwaysOn``).
        recall: the share of those that select their own policy; ``None`` when none was sent.
        precision: of all the selections those examples made, the share that were their own
            policy; ``None`` when they selected nothing.
        selected_nothing: how many of those examples selected no policy at all.
    """

    tenant: str
    retriever: str
    folds: int
    policies: tuple[PolicyReport, ...]
    confused_pairs: tuple[ConfusedPair, ...]
    without_examples: tuple[str, ...]
    always_on: tuple[str, ...]
    examples: int
    recall: float | None
    precision: float | None
    selected_nothing: int

    def below(self, min_recall: float) -> list[PolicyReport]:
        """The measured policies (with examples, not ``alwaysOn``) whose recall is below
        ``min_recall``; a policy without examples is never among them."""
        return [p for p in self.policies if p.recall is not None and p.recall < min_recall]


def configuration_coverage(config: LoadedConfig) -> list[TenantCoverage]:
    """Every tenant's coverage, with the retriever and top-K its settings name.

    Raises:
        ConfigError: the retriever cannot be built from the settings, or cannot index a
            tenant's policies.
    """
    settings = config.settings
    retrievers: dict[str, Retriever] = {}

    def retriever_for(language: str) -> Retriever:
        if language not in retrievers:
            retrievers[language] = retriever_from_settings(settings, language)
        return retrievers[language]

    return [
        tenant_coverage(
            policy_set,
            retriever_for(policy_set.language),
            settings.retrieval_top_k,
            retriever_name=settings.retriever,
        )
        for policy_set in config.tenants.values()
    ]


def tenant_coverage(
    policy_set: PolicySet,
    retriever: Retriever,
    top_k: int,
    *,
    retriever_name: str,
    folds: int = FOLDS,
) -> TenantCoverage:
    """Cross-validate one tenant's examples (see the module's docstring).

    Args:
        policy_set: the tenant's policies.
        retriever: builds the index of each fold.
        top_k: at most this many policies a message selects (``settings.retrieval_top_k``).
        retriever_name: the retriever's name, for the report.
        folds: how many folds the examples are split into.

    Raises:
        ConfigError: the retriever cannot index the policies.
    """
    policies = policy_set.policies
    always_on = set(policy_set.always_on)
    fold_of = _folds(policy_set, folds)
    held_out: list[tuple[int, str, tuple[int, ...]]] = []
    for fold in range(folds):
        sent = [
            (position, example)
            for position, policy in enumerate(policies)
            if position not in always_on
            for number, example in enumerate(policy.examples)
            if fold_of[position, number] == fold
        ]
        if not sent:
            continue  # no example in this fold: no index to build
        index = _fold_index(policy_set, retriever, fold, fold_of)
        for position, example in sent:
            hits = index.search(example, top_k=retrieval_depth(top_k))
            selected = select_policies(
                hits, policy_set, satisfying_attributes(policies[position]), top_k
            )
            chosen = tuple(
                policy_set.position[policy_id]
                for policy_id in selected
                if policy_set.position[policy_id] not in always_on
            )
            held_out.append((position, example, chosen))
    # Document order within each policy, whatever fold an example was sent in.
    held_out.sort(key=lambda row: row[0])
    counts = [0 if p in always_on else len(policy.examples) for p, policy in enumerate(policies)]
    coverage = example_coverage(held_out, counts)

    def ids(positions: Sequence[int]) -> tuple[str, ...]:
        return tuple(policies[p].id for p in positions)

    reports = []
    for position, policy in enumerate(policies):
        measured = coverage[position]
        reports.append(
            PolicyReport(
                policy_id=policy.id,
                examples=len(policy.examples),
                always_on=position in always_on,
                recall=measured.recall,
                precision=measured.precision,
                misses=tuple(
                    ExampleSelection(miss.example, ids(miss.selected)) for miss in measured.misses
                ),
                selects_others=tuple(
                    ExampleSelection(text, ids(chosen))
                    for owner, text, chosen in held_out
                    if owner == position and any(other != owner for other in chosen)
                ),
                confused_with={
                    policies[other].id: n for other, n in measured.confused_with.items()
                },
            )
        )
    selections = sum(len(chosen) for _, _, chosen in held_out)
    own = sum(owner in chosen for owner, _, chosen in held_out)
    return TenantCoverage(
        tenant=policy_set.tenant,
        retriever=retriever_name,
        folds=folds,
        policies=tuple(reports),
        confused_pairs=_confused_pairs(reports),
        without_examples=tuple(
            p.id for i, p in enumerate(policies) if not p.examples and i not in always_on
        ),
        always_on=tuple(policies[i].id for i in sorted(always_on)),
        examples=len(held_out),
        recall=own / len(held_out) if held_out else None,
        precision=own / selections if selections else None,
        selected_nothing=sum(1 for _, _, chosen in held_out if not chosen),
    )


def _folds(policy_set: PolicySet, folds: int) -> dict[tuple[int, int], int]:
    """The fold of each example, by (policy position, example number): example ``i`` of a
    policy goes to fold ``i mod folds``, except that an example with the same words as an
    earlier one (of any policy) goes to that one's fold, so that a copy left in the index
    cannot answer for it."""
    fold_of: dict[tuple[int, int], int] = {}
    first: dict[str, int] = {}
    for position, policy in enumerate(policy_set.policies):
        for number, example in enumerate(policy.examples):
            fold = first.setdefault(" ".join(words_of(example)), number % folds)
            fold_of[position, number] = fold
    return fold_of


def _fold_index(
    policy_set: PolicySet,
    retriever: Retriever,
    fold: int,
    fold_of: Mapping[tuple[int, int], int],
) -> RetrievalIndex:
    """The tenant's index without the examples of ``fold``: hit positions stay those of
    ``policy_set``, since the copies keep the policies' order."""
    copies = [
        policy.model_copy(
            update={
                "examples": [
                    e for n, e in enumerate(policy.examples) if fold_of[position, n] != fold
                ]
            }
        )
        for position, policy in enumerate(policy_set.policies)
    ]
    try:
        return retriever.index(copies)
    except GovcoreError:
        raise
    except Exception as exc:  # as when Governance compiles the tenant: a setup problem
        raise ConfigError(
            f"tenants.{policy_set.tenant}: the retriever could not index its policies "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def _confused_pairs(reports: Sequence[PolicyReport]) -> tuple[ConfusedPair, ...]:
    order = {report.policy_id: n for n, report in enumerate(reports)}
    counts = {report.policy_id: report.confused_with for report in reports}
    found: set[tuple[str, str]] = set()
    for report in reports:
        for other in report.confused_with:
            first, second = sorted((report.policy_id, other), key=order.__getitem__)
            found.add((first, second))
    pairs = [
        ConfusedPair(
            first=first,
            second=second,
            first_selects_second=counts[first].get(second, 0),
            second_selects_first=counts[second].get(first, 0),
        )
        for first, second in found
    ]
    pairs.sort(
        key=lambda p: (
            -(p.first_selects_second + p.second_selects_first),
            order[p.first],
            order[p.second],
        )
    )
    return tuple(pairs)
