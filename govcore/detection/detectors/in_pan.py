"""The ``in_pan`` detector: Indian permanent account numbers, five letters, four digits and a
letter, the fourth letter the holder's type. The tenth character is a check letter whose rule the
Income Tax Department does not publish, so a PAN is a shape: weaker unless "PAN" names it."""

from __future__ import annotations

from govcore.detection.chars import glues
from govcore.detection.detectors._printed import label_pattern, labelled
from govcore.detection.detectors.base import CandidatePattern, Detector, bounded

__all__ = ["DETECTOR"]

# The fourth character: Association of persons, Body of individuals, Company, Firm,
# Government, Hindu undivided family, artificial Juridical person, Local authority, Person,
# Trust.
_HOLDER_TYPES = "ABCFGHJLPT"

_LABEL = label_pattern(
    r"pan(?:\s+(?:card|number|no\.?))?|permanent\s+account\s+(?:number|no\.?)", "पैन"
)


def _pan(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    if not bounded(text, start, end, glues):
        return None
    candidate = text[start:end]
    letters = candidate[:5] + candidate[9]
    if not (letters.isupper() or letters.islower()):
        return None  # "AbcPd1234e" is a word or a token, not a PAN as printed
    if candidate[5:9] == "0000":
        return None  # serials run from 0001: "AAAAA0000A" is a placeholder
    if labelled(text, start, _LABEL):
        return start, end, 1.0
    return start, end, 0.8 if letters.isupper() else 0.7


DETECTOR = Detector(
    kind="in_pan",
    explanation="contains an Indian PAN",
    replacement="[PAN removed]",
    example="ABCPD1234E",
    patterns=(CandidatePattern(rf"[a-z]{{3}}[{_HOLDER_TYPES.lower()}][a-z][0-9]{{4}}[a-z]", _pan),),
)
