"""Calibration of policy selection from a tenant's own ``examples`` (pure: NumPy).

A policy's ``examples`` are messages its author says it is for, so every other policy's
examples are messages it is *not* for, written in the same business's words; the shipped
generic messages (:func:`off_topic_messages`: chit-chat and off-topic requests in seven
languages) are messages no policy is for. Calibration scores all of them against the index at
build time and gives each policy a threshold of its own: the score that at most
``false_positive_rate`` of the messages not meant for it reach (never below the index's
minimum relevance, never above ``max_threshold``). A policy whose words many other topics
share gets a higher bar; one with a vocabulary of its own keeps the minimum.

Why negatives, not positives: an example left out and sent as a message scores far lower
against its own policy than real messages do (measured on five domains' blind-written
examples: a median TF-IDF score of 0.03 to 0.05 left out, against 0.18 to 0.22 for the
labelled messages), so a threshold fitted to reach the examples would sit too low for real
traffic. What the messages a policy is not for reach does not depend on that: it measures how
far the policy's vocabulary reaches into the tenant's other topics and into small talk.

A calibrated index multiplies each policy's score by ``min_relevance / threshold``, so the
usual floor (``min_relevance``, and the relative cut) selects exactly the policies that clear
their own thresholds, and relevances stay comparable across policies. Everything is
deterministic: the same policies give the same thresholds. The thresholds are computed once per
policy-set version, when the index is built, and kept with it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from itertools import islice

import numpy as np
import numpy.typing as npt
import yaml

__all__ = [
    "Calibration",
    "CalibrationOptions",
    "ExampleOutcome",
    "PolicyCoverage",
    "calibration_messages",
    "enough_examples",
    "example_coverage",
    "fit_thresholds",
    "off_topic_messages",
    "sample_examples",
]

Scores = npt.NDArray[np.float64]

# Rows of the negatives' score matrix scored at once: bounds memory at 10,000 policies.
_CHUNK = 256


@dataclass(frozen=True, slots=True)
class CalibrationOptions:
    """How a policy set is calibrated from its examples.

    Attributes:
        false_positive_rate: a policy's threshold is the score that at most this share of
            the messages not meant for it (other policies' examples, generic messages) reach.
        max_threshold: no policy's threshold is set above this (a policy every other topic
            resembles still has to be selectable by its own words).
        min_examples: a policy set with fewer examples in all is not calibrated.
        min_policies: ... nor one with fewer policies that have examples (other policies'
            examples are the business's own negatives: there must be some).
        max_queries: at most this many examples are scored (a deterministic sample spread
            over the policies), which bounds the time for very large sets.
    """

    false_positive_rate: float = 0.02
    max_threshold: float = 0.5
    min_examples: int = 10
    min_policies: int = 3
    max_queries: int = 4000

    def __post_init__(self) -> None:
        if not 0.0 < self.false_positive_rate < 1.0:
            raise ValueError(
                f"false_positive_rate must be between 0 and 1, not {self.false_positive_rate}"
            )


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per-policy thresholds fitted on the messages each policy is not for.

    Attributes:
        thresholds: per policy (in index order), the lowest score that selects it.
        floor: the index's minimum relevance, which every threshold is at least.
        options: what it was fitted with.
        negatives: how many messages were scored (examples and generic ones).
        raised: how many policies got a threshold above ``floor``.
    """

    thresholds: Scores
    floor: float
    options: CalibrationOptions
    negatives: int
    raised: int

    factors: Scores = field(init=False, repr=False)
    """What each policy's score is multiplied by: ``floor / threshold``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "factors", self.floor / self.thresholds)

    def relevance(self, scores: Scores, *, in_place: bool = False) -> Scores:
        """``scores`` scaled so that ``floor`` is each policy's own threshold: a new array, or
        ``scores`` itself scaled with ``in_place`` (for a caller's own temporary array)."""
        scaled = np.multiply(scores, self.factors, out=scores if in_place else None)
        return np.minimum(scaled, 1.0, out=scaled)

    def describe(self) -> dict[str, float]:
        """The fitted numbers an explanation reports, by name."""
        return {
            "calibrated_policies": float(self.raised),
            "calibration_false_positive_rate": self.options.false_positive_rate,
            "highest_policy_threshold": float(self.thresholds.max(initial=self.floor)),
        }


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    """What one held-out example selected."""

    policy: int
    example: str
    selected: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PolicyCoverage:
    """How well a policy's examples select it, held out (for ``govcore coverage``).

    Attributes:
        policy: its position.
        examples: how many examples it has.
        recall: the share of its held-out examples that select it (``None`` without any).
        precision: the share of held-out examples selecting it that are its own (``None``
            when none selects it).
        misses: its examples that do not select it, with what they select instead.
        confused_with: other policies that its examples select, with how many.
    """

    policy: int
    examples: int
    recall: float | None
    precision: float | None
    misses: tuple[ExampleOutcome, ...] = ()
    confused_with: Mapping[int, int] = field(default_factory=dict)


def enough_examples(
    example_counts: Sequence[int], options: CalibrationOptions, floor: float = 1.0
) -> bool:
    """Whether a policy set has the examples calibration needs, for an index whose minimum
    relevance is ``floor`` (a floor of 0 leaves nothing to scale a threshold to: with
    ``min_relevance: 0`` nothing is calibrated)."""
    return (
        floor > 0.0
        and sum(example_counts) >= options.min_examples
        and sum(1 for c in example_counts if c > 0) >= options.min_policies
    )


def fit_thresholds(
    negatives: Iterable[tuple[int, Scores]],
    count: int,
    size: int,
    floor: float,
    options: CalibrationOptions,
) -> Calibration:
    """Each policy's threshold from the messages it is not for.

    Args:
        negatives: for each message scored (see :func:`calibration_messages`), the policy it
            is an example of (-1 for a generic message) and its uncalibrated scores of every
            policy. A message counts as a negative for every policy but its own.
        count: how many messages ``negatives`` yields.
        size: how many policies the index has.
        floor: the index's minimum relevance.
        options: the calibration's settings.
    """
    keep = max(1, int(np.ceil(options.false_positive_rate * count)) + 1)
    per_policy = np.zeros(size, np.int64)
    top = np.zeros((0, size))
    stream = iter(negatives)
    # Only the top few scores per policy are needed for the quantile: the score matrix is
    # never held whole (10,000 policies x 4,500 messages would be 360 MB).
    while part := list(islice(stream, _CHUNK)):
        chunk = np.vstack([scores for _, scores in part])
        own = np.array([owner for owner, _ in part])
        mine = own[:, None] == np.arange(size)[None, :]
        chunk[mine] = 0.0
        per_policy += len(own) - mine.sum(axis=0)
        top = np.vstack([top, chunk])
        if len(top) > keep:
            top = -np.partition(-top, keep - 1, axis=0)[:keep]
    if len(top):
        ranked = -np.sort(-top, axis=0)
        k = np.clip(
            np.floor(options.false_positive_rate * per_policy).astype(np.int64), 0, len(top) - 1
        )
        quantile = ranked[k, np.arange(size)]
    else:
        quantile = np.zeros(size)
    # Just above the (k+1)-th highest negative score: that one no longer clears the bar.
    thresholds = np.clip(np.nextafter(quantile, np.inf), floor, max(floor, options.max_threshold))
    return Calibration(
        thresholds=thresholds,
        floor=floor,
        options=options,
        negatives=count,
        raised=int(np.count_nonzero(thresholds > floor)),
    )


def calibration_messages(
    owners: Sequence[int], options: CalibrationOptions
) -> tuple[list[int], tuple[str, ...]]:
    """What calibration scores: the example rows (a sample of at most ``max_queries``) and
    the shipped generic messages."""
    return sample_examples(owners, options.max_queries), off_topic_messages()


def example_coverage(
    held_out_selections: Sequence[tuple[int, str, Iterable[int]]],
    example_counts: Sequence[int],
) -> tuple[PolicyCoverage, ...]:
    """Per policy, how its held-out examples fared.

    Args:
        held_out_selections: for each example sent as a message by an index that did not
            hold it: its policy, its text and the policies it selected.
        example_counts: per policy, how many examples it has.
    """
    size = len(example_counts)
    own_hits = [0] * size
    own_total = [0] * size
    selected_total = [0] * size
    selected_right = [0] * size
    misses: dict[int, list[ExampleOutcome]] = {}
    confused: dict[int, dict[int, int]] = {}
    for owner, text, selected in held_out_selections:
        chosen = tuple(selected)
        for position in chosen:
            selected_total[position] += 1
            selected_right[position] += position == owner
        own_total[owner] += 1
        if owner in chosen:
            own_hits[owner] += 1
        else:
            misses.setdefault(owner, []).append(ExampleOutcome(owner, text, chosen))
        for other in chosen:
            if other != owner:
                counts = confused.setdefault(owner, {})
                counts[other] = counts.get(other, 0) + 1
    return tuple(
        PolicyCoverage(
            policy=p,
            examples=example_counts[p],
            recall=own_hits[p] / own_total[p] if own_total[p] else None,
            precision=selected_right[p] / selected_total[p] if selected_total[p] else None,
            misses=tuple(misses.get(p, ())),
            confused_with=dict(sorted(confused.get(p, {}).items())),
        )
        for p in range(size)
    )


def sample_examples(owners: Sequence[int], max_queries: int) -> list[int]:
    """Which examples (by row) are scored: all of them up to ``max_queries``, else a
    deterministic spread that takes every policy's first example before anyone's second."""
    if len(owners) <= max_queries:
        return list(range(len(owners)))
    rank_in_policy: dict[int, int] = {}
    keyed = []
    for row, owner in enumerate(owners):
        rank = rank_in_policy.get(owner, 0)
        rank_in_policy[owner] = rank + 1
        keyed.append((rank, owner, row))
    keyed.sort()
    return sorted(row for _, _, row in keyed[:max_queries])


@functools.cache
def off_topic_messages() -> tuple[str, ...]:
    """The shipped generic messages no policy is for: chit-chat and off-topic requests, in
    English, French, German, Spanish, Italian, Portuguese and Dutch."""
    text = resources.files("govcore.retrieval").joinpath("off_topic.yaml").read_text("utf-8")
    by_language: Mapping[str, Iterable[str]] = yaml.safe_load(text)
    # A few short replies (":)", "ok") are the same in several languages: kept once.
    return tuple(dict.fromkeys(m for messages in by_language.values() for m in messages))
