"""The ``uk_nino`` detector: UK National Insurance numbers (``AB 12 34 56 C``), two prefix
letters that HMRC allocates, six digits and a suffix A to D.

The number has no check digit, so it is a shape: with its suffix it is found anywhere (0.85 of
the rule's confidence, 1.0 after a word such as "National Insurance" or "NINO"); without its
suffix only after such a word. In lower case (``ab 12 34 56 c``, as some forms store it) it is
found only after such a word: a lower-case token of that shape is more often a sort code's line
("sc 12-34-56 a/c") or a build id.
"""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors.base import DECIMAL_DIGIT, CandidatePattern, Detector, bounded
from govcore.detection.detectors.national import context_words, named_before

__all__ = ["DETECTOR"]

# HMRC: the first letter is never D, F, I, Q, U or V, the second never D, F, I, O, Q, U or V,
# and these pairs are not allocated (administrative or temporary prefixes).
_NOT_FIRST = frozenset("DFIQUV")
_NOT_SECOND = frozenset("DFIOQUV")
_NOT_ALLOCATED = frozenset(("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))

_NINO_WORDS = context_words(
    "national insurance",
    "national insurance number",
    "NI number",
    "NI no",
    "NI no.",
    "NINO",
    "NI#",
)


def _prefix_ok(prefix: str) -> bool:
    return (
        prefix.isascii()
        and prefix.isupper()
        and prefix[0] not in _NOT_FIRST
        and prefix[1] not in _NOT_SECOND
        and prefix not in _NOT_ALLOCATED
    )


def _nino(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    return _checked(text, start, end, text[start : start + 2], text[end - 1], 0.85)


def _lower_case_nino(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    return _checked(text, start, end, text[start : start + 2].upper(), text[end - 1].upper(), None)


def _checked(
    text: str, start: int, end: int, prefix: str, suffix: str, unnamed: float | None
) -> tuple[int, int, float] | None:
    """The validation of both cases, given the prefix's and the last character's capitals;
    ``unnamed``: the factor of a number with its suffix and no name before it (``None``: such
    a number is not reported)."""
    if not _prefix_ok(prefix):
        return None
    named = named_before(text, start, _NINO_WORDS)
    if named:
        factor = 1.0
    elif unnamed is None:
        return None
    else:
        factor = unnamed
    if suffix.isalpha():
        if suffix in "ABCD" and bounded(text, start, end, glues):
            return start, end, factor
        # "AB 12 34 56 Apples", "... 56 Cat": the letter begins a word, the number ends
        # before it.
        end -= 1
        while text[end - 1] in " -":
            end -= 1
    if named and bounded(text, start, end, glues):
        return start, end, 1.0
    return None


_ND = DECIMAL_DIGIT

DETECTOR = Detector(
    kind="uk_nino",
    explanation="contains a UK National Insurance number",
    replacement="[NI number removed]",
    example="AB 12 34 56 C",
    patterns=(
        CandidatePattern(
            # Capitals only (the scanner folds case unless told not to): "ab123456c" in a hash
            # or a product code is no candidate.
            rf"(?-i:\b[A-Z]{{2}}[ \-]?{_ND}{{2}}[ \-]?{_ND}{{2}}[ \-]?{_ND}{{2}}(?:[ \-]?[A-Z])?)",
            _nino,
        ),
        CandidatePattern(
            rf"(?-i:\b[a-z]{{2}}[ \-]?{_ND}{{2}}[ \-]?{_ND}{{2}}[ \-]?{_ND}{{2}}(?:[ \-]?[a-z])?)",
            _lower_case_nino,
        ),
    ),
    contains_other_kinds=True,
)
