"""The digit-run view (govcore/detection/digit_runs.py): which candidate patterns are searched
over a text's runs of digits and separators, and that such a search answers as RE2 does over
the whole text, from every position (RE2 on the whole text is the oracle)."""

from __future__ import annotations

import pytest
import re2  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from govcore.detection.detectors import DETECTORS
from govcore.detection.digit_runs import MIN_DIGITS, DigitRuns, digits_needed
from govcore.detection.scanner import _OPTIONS, _UNANCHORED

RUN_PATTERNS = sorted(
    {
        candidate.pattern
        for detector in DETECTORS.values()
        for candidate in detector.candidates()
        if (digits_needed(candidate.pattern) or 0) >= MIN_DIGITS
    }
)


@pytest.mark.parametrize(
    ("pattern", "needed"),
    [
        (r"\p{Nd}{3}[ -]?\p{Nd}{3}[ -]?\p{Nd}{3}", 9),
        (r"\p{Nd}(?:[ \-.]{0,2}\p{Nd}){12,22}", 13),
        (r"\p{Nd}{11}|\p{Nd}{2} \p{Nd}{3} \p{Nd}{3} \p{Nd}{3}", 11),
        (r"(?:\p{Nd}{2})?\p{Nd}{6}[\-+]?\p{Nd}{4}", 10),
        (r"[0-9]{4}\.[0-9]+", 5),
        (r"\p{Nd}{2}(?:-\p{Nd}*)?", 2),
    ],
)
def test_patterns_of_digits_and_separators_say_the_digits_they_need(
    pattern: str, needed: int
) -> None:
    assert digits_needed(pattern) == needed


@pytest.mark.parametrize(
    "pattern",
    [
        r"\b\p{Nd}{9}",  # reads the character before the match
        r"\p{Nd}{9}$",
        r"^\p{Nd}{9}",
        r"AU\p{Nd}{11}",  # a letter
        r"\p{Nd}{9}.",  # any character
        r"\p{Nd}{9}+?",  # lazy
        r"\d{9}",  # not written as the candidates write digits
        r"(\p{Nd}{9})",  # a capturing group
        r"(?-i:\p{Nd}{9})",
        r"[ -.]\p{Nd}{9}",  # a range from space to "." holds more than separators
        r"[^a]\p{Nd}{9}",
        r"\p{Nd}{9}[\n]",
        r"\p{Nd}{9}\x{2d}",
        r"\p{Nd}{9})",
        r"(?:\p{Nd}{9}",
        r"\p{Nd}{9,",
        r"[5-1]\p{Nd}{9}",
        # RE2 reads "{٩}" as three literal characters, not a count: a match holds "{"
        "\\p{Nd}{\u0669}",
        "\\p{Nd}{\uff19}",
        "\\p{Nd}{9,\u0669}",
        "\\p{Nd}{\u00b2}",
    ],
)
def test_other_patterns_are_searched_over_the_whole_text(pattern: str) -> None:
    assert digits_needed(pattern) is None


def test_most_numeric_identifiers_are_searched_over_runs() -> None:
    """The card number, the SSN and the digit-only national identifiers are; the patterns with
    letters or word boundaries (IBAN, phone, email, NINO) are not."""
    kinds = {
        kind
        for kind, detector in DETECTORS.items()
        for candidate in detector.candidates()
        if candidate.pattern in RUN_PATTERNS
    }
    assert {"credit_card", "us_ssn", "au_tfn", "pl_pesel", "in_aadhaar"} <= kinds
    assert not kinds & {"iban", "phone", "email", "uk_nino", "ip_address", "secret"}


_PIECES = st.sampled_from(
    [
        "4111 1111 1111 1111",
        "123-45-6789",
        "123 456 782",
        "12345678901",
        "٣٤٥٦٧٨٩٠١٢٣",  # Arabic-Indic digits
        "१२३",  # Devanagari digits
        "12",
        "9",
        " ",
        "-",
        ".",
        ":",
        "+",
        "\n",
        "a",
        "é",
        "(",
        "811228+9874",
        "2345:6789:0124",
        "4111.1111.1111.1111",
    ]
)

# Values written with each run separator, and numbers of other scripts, in prose.
_WRITTEN = (
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111.1111.1111.1111",
    "123-45-6789",
    "811228+9874",
    "19811228+9874",
    "2345:6789:0124",
    "1-1017-00230-70-8",
    "900101-1234568",
    "0260-0959-3",
    "123-456-782-000",
    "86 095 742 719",
    "٣٤٥٦٧٨٩٠١٢٣",
    "12345678901",
)


def _answers_as_re2(pattern: str, data: bytes) -> None:
    regexp = re2.compile(pattern, _OPTIONS)._regexp
    search = DigitRuns(data).search(regexp)
    for position in range(len(data) + 1):
        expected = regexp.Match(_UNANCHORED, data, position, len(data))[0]
        assert search(_UNANCHORED, data, position, len(data))[0] == expected, position


@pytest.mark.parametrize("pattern", RUN_PATTERNS)
def test_values_with_every_separator_are_found_over_runs(pattern: str) -> None:
    """Every value shape, with each separator the patterns allow, found from every position
    over the runs as RE2 finds it over the whole text."""
    prose = " and the order was sent, ".join(_WRITTEN)
    _answers_as_re2(pattern, f"Dear customer: {prose}; thanks ({prose}).".encode())


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(_PIECES, max_size=30),
    pattern=st.sampled_from(RUN_PATTERNS),
    positions=st.lists(st.integers(0, 1000), max_size=10),
)
def test_a_search_over_runs_answers_as_re2_over_the_whole_text(
    pieces: list[str], pattern: str, positions: list[int]
) -> None:
    """From every position (and some asked first, out of order), the search over the runs
    finds the match RE2 finds over the whole text, in the text's byte offsets. Prose around the
    pieces keeps the runs a small part of the text, as in an output (the view searches the
    whole text itself when the runs are most of it)."""
    prose = "the order was sent " * 12
    data = (prose + "".join(pieces) + prose).encode()
    regexp = re2.compile(pattern, _OPTIONS)._regexp
    search = DigitRuns(data).search(regexp)
    # Some positions asked first and out of order, then every position.
    asked = [min(p, len(data)) for p in positions] + list(range(len(data) + 1))
    for position in asked:
        expected = regexp.Match(_UNANCHORED, data, position, len(data))[0]
        assert search(_UNANCHORED, data, position, len(data))[0] == expected, position


def test_a_text_made_mostly_of_runs_is_searched_whole() -> None:
    """A run of digits as long as the text: searching the runs would skip nothing."""
    regexp = re2.compile(RUN_PATTERNS[0], _OPTIONS)._regexp
    data = b"1" * 1000
    assert DigitRuns(data).search(regexp) == regexp.Match
    assert DigitRuns(b"x" * 1000 + data[:100]).search(regexp) != regexp.Match
