"""The detection engine: every ``detect`` rule of a policy set compiled into one scanner.

A :class:`Scanner` is built once per policy-set version (never per request) from the rules of
all policies. Scanning a text:

1. normalises it (:mod:`govcore.detection.normalize`), keeping a map back to original offsets;
2. runs one RE2 set over every regex and PII pattern to learn which of them occur at all, so the
   cost does not grow with the number of rules that do not match;
3. finds the spans of the patterns that occur (RE2: linear time whatever the pattern), and lets
   the PII validators accept, shorten or reject each candidate;
4. finds every ``terms`` rule's words and phrases with one leftmost-longest RE2 alternation,
   keeping matches on word boundaries;
5. per rule, keeps the leftmost-longest matches that do not overlap, and maps them back to the
   original text;
6. scans the surroundings of a match that touches its neighbour again with the match blanked
   out, to find the values it held back (a card number glued to an email's domain).

With the Hyperscan engine (:mod:`govcore.detection.hyperscan_engine`), steps 2 and 3 start each
RE2 search where Hyperscan's one pass over the text says the next match can begin, instead of
searching the whole text once per present pattern; RE2 still decides every match, so both
engines report the same hits.

Every pattern matches case-insensitively (policy authors get RE2 syntax; ``(?-i:...)`` turns
case sensitivity back on for part of a pattern).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import re2  # type: ignore[import-untyped]

from govcore.detection.chars import VALUE_START, is_word
from govcore.detection.detectors import CONTAINERS, DETECTORS, CandidatePattern
from govcore.detection.digit_runs import MIN_DIGITS, DigitRuns, digits_needed
from govcore.detection.hyperscan_engine import HyperscanSearch, MatchStarts, available
from govcore.detection.normalize import NormalizedText, normalize, skeleton_of
from govcore.detection.secrets import SecretOptions
from govcore.policy import DetectRule, PolicyDocument

__all__ = [
    "CompiledRule",
    "DetectionEngine",
    "EngineFallback",
    "Hit",
    "Scanner",
    "compile_rules",
    "resolve_engine",
]

RuleKind = Literal["regex", "terms", "pii"]
DetectionEngine = Literal["re2", "hyperscan", "auto"]
"""Which engine finds where matches are: ``auto`` is ``hyperscan`` when the ``hyperscan``
package (``govcore[hyperscan]``) is installed, else ``re2``."""

_OPTIONS = re2.Options()
_OPTIONS.case_sensitive = False
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 64 << 20  # room for the DFA of large rule sets before RE2 falls back

# The pybind11 RE2 object under ``re2.compile``: calling its Match directly skips a generator
# and a match object per call, which the public wrapper spends on every search.
_UNANCHORED = re2._Anchor.UNANCHORED

_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# The terms' alternation: leftmost-longest, so "money back guarantee" wins over "money back"
# at the same start; a large DFA budget, since it holds every term of the tenant.
_TERM_OPTIONS = re2.Options()
_TERM_OPTIONS.case_sensitive = False
_TERM_OPTIONS.longest_match = True
_TERM_OPTIONS.log_errors = False
_TERM_OPTIONS.max_mem = 256 << 20
# Candidates held back by a match are looked for again this far either side of it: more than
# a card number, an IBAN, a phone number or an address spans.
_FREED_REACH = 400
_FREED_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """One ``detect`` rule, ready to report violations."""

    index: int
    policy: PolicyDocument
    kind: RuleKind
    confidence: float
    replacement: str
    explanation: str | None
    label: str  # what the rule looks for, for default explanations


@dataclass(frozen=True, slots=True)
class Hit:
    """A match of one rule in the original text: ``text[start:end]``."""

    rule: CompiledRule
    start: int
    end: int
    confidence: float


@dataclass(frozen=True, slots=True)
class EngineFallback:
    """A pattern the Hyperscan engine leaves to RE2 (in the same scan), and why."""

    source: str
    """What the pattern is: a policy's regex or term, or a built-in detector's pattern."""
    pattern: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


def resolve_engine(engine: DetectionEngine) -> Literal["re2", "hyperscan"]:
    """The engine ``engine`` names: ``auto`` is ``hyperscan`` when it can be imported."""
    if engine == "auto":
        return "hyperscan" if available() else "re2"
    if engine == "hyperscan" and not available():
        raise ValueError(
            "the hyperscan detection engine needs the hyperscan package: "
            "pip install 'govcore[hyperscan]'"
        )
    return engine


@dataclass(frozen=True, slots=True)
class _Pattern:
    compiled: Any
    rules: tuple[int, ...]  # indices of the rules this pattern serves
    validator: Any | None  # PII validator, or None for a policy author's regex
    anchor: bytes | None = None
    reach: tuple[int, int] = (0, 0)
    restart_inside: bool = True


class Scanner:
    """All ``detect`` rules of a sequence of policies, compiled together."""

    def __init__(
        self,
        rules: Sequence[CompiledRule],
        patterns: Sequence[_Pattern],
        terms: dict[str, list[tuple[int, bool, bool]]],
        engine: Literal["re2", "hyperscan"] = "re2",
    ) -> None:
        self.rules = tuple(rules)
        self.engine = engine
        self._patterns = tuple(patterns)
        # Patterns of one shape (the same RE2 pattern, searched in the same windows: the
        # candidates of au_tfn, au_acn and ca_sin, of pl_pesel, tr_national_id and ng_nin) are
        # one entry of the set and of the Hyperscan database, and their searches of a text are
        # shared (_RememberedSearch): each pattern still keeps its own validator and walk.
        shape_ids: dict[tuple[str, bytes | None, tuple[int, int]], int] = {}
        members: list[list[int]] = []
        for index, pattern in enumerate(patterns):
            key = (pattern.compiled.pattern, pattern.anchor, pattern.reach)
            shape = shape_ids.setdefault(key, len(members))
            if shape == len(members):
                members.append([])
            members[shape].append(index)
        self._shape_patterns: tuple[tuple[int, ...], ...] = tuple(tuple(m) for m in members)
        # Shapes made only of digits and separators, nine digits or more (most national
        # identifiers, card numbers, SSNs): searched over the text's digit runs, not all of it.
        self._run_shapes = frozenset(
            shape
            for shape, m in enumerate(members)
            if patterns[m[0]].anchor is None
            and (digits_needed(patterns[m[0]].compiled.pattern) or 0) >= MIN_DIGITS
        )
        fallbacks: list[EngineFallback] = []
        # Hyperscan: one database of every other shape, scanned once per text. Terms stay one
        # RE2 alternation, and the digit-run shapes RE2 searches over the runs, both faster
        # than Hyperscan on them (docs/decisions/detection-engine.md).
        self._pattern_search: HyperscanSearch | None = None
        if engine == "hyperscan" and len(self._run_shapes) < len(members):
            search = HyperscanSearch(
                [
                    (shape, patterns[m[0]].compiled.pattern)
                    for shape, m in enumerate(members)
                    if shape not in self._run_shapes
                ],
                frozenset(
                    shape
                    for shape, m in enumerate(members)
                    if any(patterns[i].validator is not None for i in m)
                ),
            )
            self._pattern_search = search
            refused = sorted(
                (index, fallback.reason)
                for fallback in search.fallbacks
                for index in members[fallback.pattern_id]
            )
            fallbacks += [
                EngineFallback(self._source(index), patterns[index].compiled.pattern, reason)
                for index, reason in refused
            ]
        self.fallbacks: tuple[EngineFallback, ...] = tuple(fallbacks)
        # The shapes RE2 alone finds: all of them with the RE2 engine, the digit-run shapes
        # and those Hyperscan refused with the other. One RE2 set of them tells in one pass
        # which occur at all, so the cost of the rules that do not occur is one DFA step per
        # byte, however many there are. Present shapes are then searched one by one.
        self._re2_shapes: tuple[int, ...] = tuple(
            shape
            for shape in range(len(members))
            if self._pattern_search is None or shape not in self._pattern_search.compiled_ids
        )
        self._set: Any = None
        if self._re2_shapes:
            every = re2.Set.SearchSet(_OPTIONS)
            for shape in self._re2_shapes:
                every.Add(patterns[members[shape][0]].compiled.pattern)
            every.Compile()
            self._set = every
        self._terms = _TermMatcher(terms) if terms else None

    def _policies_of(self, rule_indices: Iterable[int]) -> str:
        ids = sorted({self.rules[i].policy.id for i in rule_indices})
        return "policy " + ", ".join(repr(i) for i in ids)

    def _source(self, pattern_index: int) -> str:
        pattern = self._patterns[pattern_index]
        if pattern.validator is None:
            return f"regex of {self._policies_of(pattern.rules)}"
        kind = self.rules[pattern.rules[0]].label
        written = [c.pattern for c in DETECTORS[kind].candidates()]
        compiled = pattern.compiled.pattern
        number = f" {written.index(compiled) + 1}" if compiled in written else ""
        return f"pattern{number} of the built-in detector {kind!r}"

    def database_size(self) -> int:
        """The bytes of the Hyperscan database (0 with the RE2 engine)."""
        return 0 if self._pattern_search is None else self._pattern_search.size()

    def __len__(self) -> int:
        return len(self.rules)

    def scan(
        self, text: str, start: int = 0, applicable: Container[str] | None = None
    ) -> list[Hit]:
        """The matches of every rule in ``text[start:]``, in original offsets, sorted.

        A candidate that a validator refused only because it stands against the letters or
        digits of another match ("a@b.com4111111111111111": the card number is glued to the
        email's domain) counts as standing alone: the other match is a thing of its own, and its
        redaction would set the candidate free anyway.

        Args:
            text: the text to check.
            start: where to begin; offsets stay relative to the whole of ``text``.
            applicable: ids of the policies whose rules count (all when None). Only their
                matches are reported, and only their matches free a neighbour: another
                policy's match is not redacted, so it sets nothing free.
        """
        hits = self._scan(text, start, applicable)
        found = len(hits)
        fresh = hits
        # A freed match may hold back another ("a@b.com123-45-6789 4111 1111 ..."): a few
        # rounds free chains of them; a longer chain is left to the redaction's own check.
        for _ in range(_FREED_ROUNDS):
            fresh = self._freed(text, start, hits, fresh, applicable)
            if not fresh:
                break
            hits = hits + fresh
        if len(hits) > found:
            hits.sort(key=_text_order)
        return hits

    def _freed(
        self,
        text: str,
        start: int,
        hits: list[Hit],
        fresh: list[Hit],
        applicable: Container[str] | None,
    ) -> list[Hit]:
        """Candidates the ``fresh`` hits held back: the text around each such hit is scanned
        again with every hit in it blanked out (spaces of the same length, so offsets hold).
        Overlapping regions are merged, so no character is scanned twice in a round, and a
        candidate that overlaps a blank (so any hit) is not one."""
        # A term's match stands on word boundaries, so the letters or digits a validator
        # refuses to stand against are never a term's: only pattern matches hold values back.
        glued = sorted(
            (h for h in fresh if h.rule.kind != "terms" and _holds_back(text, start, h)),
            key=lambda h: h.start,
        )
        if not glued:
            return []
        size = len(text)
        spans: list[tuple[int, int]] = []
        for h in glued:
            low, high = max(start, h.start - _FREED_REACH), min(size, h.end + _FREED_REACH)
            if spans and low <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], high))
            else:
                spans.append((low, high))
        by_start = sorted(hits, key=lambda h: h.start)
        starts = [h.start for h in by_start]
        longest = max(h.end - h.start for h in by_start)
        regions = []
        for low, high in spans:
            first, last = bisect_left(starts, low - longest), bisect_left(starts, high)
            blanked = [o for o in by_start[first:last] if low < o.end]
            regions.append((low, high, blanked))
        freed: list[Hit] = []
        for region_start, region_end, blanked in regions:
            pieces: list[str] = []
            blanks: list[tuple[int, int]] = []
            copied = region_start
            for h in sorted(blanked, key=lambda h: h.start):
                begin, end = max(h.start, copied), min(h.end, region_end)
                if end > begin:
                    pieces += [text[copied:begin], " " * (end - begin)]
                    blanks.append((begin, end))
                    copied = end
            pieces.append(text[copied:region_end])
            for found in self._scan("".join(pieces), 0, applicable):
                candidate = Hit(
                    found.rule,
                    found.start + region_start,
                    found.end + region_start,
                    found.confidence,
                )
                if (candidate.start == region_start > start) or (
                    candidate.end == region_end < size
                ):
                    continue  # cut by the region's edge: not a match of the text
                if any(a < candidate.end and candidate.start < b for a, b in blanks):
                    continue  # partly blank: not text of the original
                freed.append(candidate)
        return freed

    def _scan(self, text: str, start: int, applicable: Container[str] | None) -> list[Hit]:
        if not self.rules or start >= len(text):
            return []
        window = text[start:] if start else text
        normalized = normalize(window)
        found: dict[int, list[tuple[int, int, float]]] = {}
        found_terms: dict[int, list[tuple[int, int, float]]] = {}
        skeleton: NormalizedText | None = None
        data = normalized.text.encode("utf-8")
        # RE2 works on UTF-8 (``data``); byte offsets are converted back only when needed.
        chars = _CharOffsets(normalized.text, data)
        starts: dict[int, MatchStarts] = {}
        present: list[int] = []  # shapes
        if self._pattern_search is not None:
            reported = self._pattern_search.scan(data)
            if reported is None:  # too many reports: RE2 searches them all, without hints
                present += self._pattern_search.compiled_ids
            else:
                starts = reported
                present += starts
        if self._set is not None:
            # RE2 answers with positions in its set, in no particular order.
            present += [self._re2_shapes[i] for i in self._set.Match(data) or ()]
        if present:
            self._scan_patterns(normalized.text, data, chars, present, starts, found)
        if self._terms is not None:
            if len(data) == len(normalized.text):
                # ASCII is its own skeleton but for case, which the terms' search ignores.
                self._terms.scan(normalized.text, data, chars, found_terms)
                skeleton = normalized
            else:
                # Outside ASCII, terms are looked for in the skeleton (case folded,
                # confusables read as their prototypes), which needs a pass of its own.
                skeleton = skeleton_of(normalized)
                skeleton_data = skeleton.text.encode("utf-8")
                skeleton_chars = _CharOffsets(skeleton.text, skeleton_data)
                self._terms.scan(skeleton.text, skeleton_data, skeleton_chars, found_terms)
        if len(found) > 1:
            self._drop_contained(found)
        hits: list[Hit] = []
        for view, matches in ((normalized, found), (skeleton, found_terms)):
            if view is not None:
                self._add_hits(view, matches, start, applicable, hits)
        hits.sort(key=_text_order)
        return hits

    def _add_hits(
        self,
        view: NormalizedText,
        found: dict[int, list[tuple[int, int, float]]],
        start: int,
        applicable: Container[str] | None,
        hits: list[Hit],
    ) -> None:
        for rule_index, spans in found.items():
            rule = self.rules[rule_index]
            if applicable is not None and rule.policy.id not in applicable:
                continue
            # Overlapping secrets are one span: a value glued to a key block must not leave the
            # block's part outside the earlier match unredacted.
            kept = _merged(spans) if rule.label == "secret" else _leftmost_longest(spans)
            for view_start, view_end, factor in kept:
                orig_start, orig_end = view.original_span(view_start, view_end)
                hits.append(
                    Hit(
                        rule,
                        start + orig_start,
                        start + orig_end,
                        # Rounding removes float noise (0.9 x 0.7 is 0.6299999999999999);
                        # at 10 places it keeps 0.699995 below the 0.7 blocking threshold.
                        round(rule.confidence * factor, 10),
                    )
                )

    def _drop_contained(self, found: dict[int, list[tuple[int, int, float]]]) -> None:
        """Drop a built-in detector's match that lies inside a validated match of another kind:
        the digits of an IBAN are not also a phone number, a card number or an SSN, and the
        digits of a card number not a phone number. A match of a kind that contains nothing
        (phone, us_ssn) is dropped also when its span is exactly a container's."""
        containers: list[tuple[int, int, str]] = []
        for rule_index, spans in found.items():
            rule = self.rules[rule_index]
            if rule.kind == "pii" and rule.label in CONTAINERS:
                containers += [(b, e, rule.label) for b, e, factor in spans if factor == 1.0]
        if not containers:
            return
        containers.sort()
        starts = [c[0] for c in containers]
        longest = max(e - b for b, e, _ in containers)
        for rule_index, spans in found.items():
            rule = self.rules[rule_index]
            if rule.kind != "pii":
                continue
            # The same span is taken from a kind that explains nothing else (a phone number
            # that is exactly a validated NHS number), never from another container.
            same_span_too = rule.label not in CONTAINERS
            kept = []
            for span in spans:
                low = bisect_left(starts, span[0] - longest)
                high = bisect_left(starts, span[0] + 1)
                if not any(
                    b <= span[0]
                    and span[1] <= e
                    and (same_span_too or (b, e) != (span[0], span[1]))
                    and kind != rule.label
                    for b, e, kind in containers[low:high]
                ):
                    kept.append(span)
            spans[:] = kept

    def _scan_patterns(
        self,
        text: str,
        data: bytes,
        chars: _CharOffsets,
        present: list[int],
        starts: dict[int, MatchStarts],
        found: dict[int, list[tuple[int, int, float]]],
    ) -> None:
        """Every pattern of the ``present`` shapes, in pattern order (the order of a rule's
        spans decides between equal ones), each on its shape's search and hints."""
        work: list[tuple[int, Any, MatchStarts | None]] = []
        runs: DigitRuns | None = None
        for shape in present:
            indices = self._shape_patterns[shape]
            regexp = self._patterns[indices[0]].compiled._regexp
            if shape in self._run_shapes:
                runs = runs or DigitRuns(data)
                search = runs.search(regexp)
            else:
                search = regexp.Match
            if len(indices) > 1:
                search = _RememberedSearch(search)
            hints = starts.get(shape)
            work += [(index, search, hints) for index in indices]
        work.sort(key=lambda entry: entry[0])
        for pattern_index, search, hints in work:
            pattern = self._patterns[pattern_index]
            for begin, end, factor in _spans(pattern, text, data, chars, search, hints):
                for rule_index in pattern.rules:
                    found.setdefault(rule_index, []).append((begin, end, factor))


class _RememberedSearch:
    """The searches of one shape in one text (made for each text), shared by the patterns of
    that shape.

    ``search(anchor, data, position, end)`` answers as RE2's ``Match`` does (the leftmost
    match that begins at or after ``position`` and ends by ``end``, ``(-1, -1)`` for none),
    but without searching again where an earlier answer settles it: if a search from ``q``
    found its match at ``b`` (or none), a search from any ``p`` with ``q <= p <= b`` finds the
    same match. No match begins in ``[q, b)``, hence none in ``[p, b)``; the match at ``b`` is
    the one RE2 prefers among those beginning there, which does not depend on where the search
    began (RE2 reads the text around the searched range as context: ``\b`` and ``^`` at
    ``position`` see the character before it). Patterns of a shape mostly refuse the same
    candidates and walk the same positions, so the second and third walks cost lookups.
    """

    __slots__ = ("_answers", "_match")

    def __init__(self, match: Any) -> None:
        """``match``: RE2's ``Match`` of the shape's pattern, or a search with its answers."""
        self._match = match
        # Per end of the searched range: the positions searched from, sorted, and the answers.
        self._answers: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}

    def __call__(self, anchor: Any, data: bytes, position: int, end: int) -> list[tuple[int, int]]:
        positions, answers = self._answers.setdefault(end, ([], []))
        k = bisect_right(positions, position)
        if k:
            begin = answers[k - 1][0]
            if begin == -1 or begin >= position:
                return [answers[k - 1]]
        answer = self._match(anchor, data, position, end)[0]
        positions.insert(k, position)
        answers.insert(k, answer)
        return [answer]


TermOwners = tuple[tuple[int, bool, bool], ...]
"""The rules a term belongs to: ``(rule index, needs a word boundary before, ... after)``."""


class _TermMatcher:
    """Every ``terms`` rule's words and phrases, found in one leftmost-longest RE2 search.

    All terms are one alternation. Where a term begins or ends with an ASCII letter or digit,
    an ASCII word boundary (``\\b``) in the pattern lets RE2 pass over occurrences inside longer
    words at DFA speed; every match's boundaries are then checked for real (Unicode letters and
    digits). A phrase's words may be separated by any run of up to 16 whitespace characters.
    After each match the search resumes at its next character, so terms of other rules that
    overlap it are found too; shorter terms that begin where it begins ("money back" inside
    "money back guarantee") come from a table built with the scanner.
    """

    def __init__(self, terms: dict[str, list[tuple[int, bool, bool]]]) -> None:
        self._owners: dict[str, TermOwners] = {key: tuple(owners) for key, owners in terms.items()}
        self._regexp: Any = re2.compile(
            "|".join(_term_pattern(key) for key in terms), _TERM_OPTIONS
        )._regexp
        self._prefixes: dict[str, tuple[str, ...]] = {}
        for key in terms:
            shorter = tuple(key[:end] for end in range(1, len(key)) if key[:end] in self._owners)
            if shorter:
                self._prefixes[key] = shorter

    def scan(
        self,
        text: str,
        data: bytes,
        chars: _CharOffsets,
        found: dict[int, list[tuple[int, int, float]]],
    ) -> None:
        """Terms in ``text``: the normalised text when it is ASCII, its skeleton otherwise
        (``data`` is its UTF-8 form)."""
        search = self._regexp.Match
        position, size = 0, len(data)
        while position < size:
            begin_byte, end_byte = search(_UNANCHORED, data, position, size)[0]
            if begin_byte == -1:
                return
            position = begin_byte + 1
            begin, end = chars.char(begin_byte), chars.char(end_byte)
            matched = text[begin:end]
            key = " ".join(matched.lower().split())
            owners = self._owners.get(key)
            if owners is None:
                continue  # RE2's case folding and Python's lower case disagree: not this term
            if " " not in key or _LONG_GAP.search(text, begin, end) is None:
                _add_term_hits(text, begin, end, owners, found)
            for prefix in self._prefixes.get(key, ()):
                prefix_end = begin + _prefix_end(matched, len(prefix))
                _add_term_hits(text, begin, prefix_end, self._owners[prefix], found)


def _term_pattern(key: str) -> str:
    """A term's alternative: its words with a run of whitespace for each space, and an ASCII
    word boundary at an end that is an ASCII letter or digit (runs of more than 16 spaces are
    refused after matching: a counted repeat would make the alternation several times dearer)."""
    body = f"{_SPACE}+".join(re2.escape(word) for word in key.split(" "))
    if _is_ascii_word(key[0]):
        body = r"\b" + body
    if _is_ascii_word(key[-1]):
        body += r"\b"
    return body


def _is_ascii_word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _prefix_end(matched: str, length: int) -> int:
    """Where, in ``matched``, the first ``length`` characters of its single-spaced form end."""
    taken = index = 0
    while taken < length:
        if matched[index].isspace():
            while matched[index].isspace():
                index += 1
        else:
            index += 1
        taken += 1
    return index


def _add_term_hits(
    text: str,
    begin: int,
    end: int,
    owners: TermOwners,
    found: dict[int, list[tuple[int, int, float]]],
) -> None:
    """Record an occurrence for each rule whose word boundaries it stands on."""
    before_ok = begin == 0 or not is_word(text[begin - 1])
    after_ok = end == len(text) or not is_word(text[end])
    for rule_index, needs_before, needs_after in owners:
        if (before_ok or not needs_before) and (after_ok or not needs_after):
            found.setdefault(rule_index, []).append((begin, end, 1.0))


# Whitespace between the words of a phrase: what str.split() splits on (after NFKC, which makes
# most Unicode spaces plain ones). A run of more than 16 separates the words for good, so that a
# phrase still ends within reach of its start, as streaming needs.
_SPACE = r"[\t\n\x{0b}\x{0c}\r \x{1c}-\x{1f}\x{85}\x{1680}\x{2028}\x{2029}]"
_LONG_GAP = re.compile(r"\s{17}")


class _CharOffsets:
    """Converts byte offsets of a text's UTF-8 form into character offsets."""

    def __init__(self, text: str, data: bytes) -> None:
        self._identity = len(text) == len(data)
        self._byte_starts: list[int] = []
        self._extra_after: list[int] = []
        if self._identity:
            return
        extra = 0
        for run in _NON_ASCII_RUN.finditer(text):
            for index in range(run.start(), run.end()):
                self._byte_starts.append(index + extra)
                extra += len(text[index].encode("utf-8")) - 1
                self._extra_after.append(extra)

    def char(self, byte_offset: int) -> int:
        if self._identity:
            return byte_offset
        k = bisect_left(self._byte_starts, byte_offset)
        return byte_offset - (self._extra_after[k - 1] if k else 0)

    def byte(self, char_offset: int) -> int:
        if self._identity:
            return char_offset
        # Characters before char_offset: a non-ASCII one at byte b sits at char b - extra.
        lo, hi = 0, len(self._byte_starts)
        while lo < hi:
            mid = (lo + hi) // 2
            extra_before = self._extra_after[mid - 1] if mid else 0
            if self._byte_starts[mid] - extra_before < char_offset:
                lo = mid + 1
            else:
                hi = mid
        return char_offset + (self._extra_after[lo - 1] if lo else 0)


def _holds_back(text: str, start: int, hit: Hit) -> bool:
    """Whether ``hit`` may have held back a candidate next to it: one whose validator refused it
    for standing against the hit's letters or digits ("a@b.com4111111111111111"), or whose
    pattern's leftmost candidate began inside the hit ("DE89 ... 0130 00 4111 1111 ...").
    Looked at in normalised text, so invisible characters do not count."""
    after = text[hit.end : hit.end + 8]
    if not after.isascii():
        after = normalize(after).text
    if _touches(after[:3]):
        return True
    before = text[max(start, hit.start - 8) : hit.start]
    if not before.isascii():
        before = normalize(before).text
    return _touches(before[-3:][::-1])


def _touches(side: str) -> bool:
    """``side``: the characters next to a match, nearest first. A letter or digit; up to two
    separators of numbers and then a digit (a number pattern runs on across them: "00. 4111");
    or a sign that is not a closing one, then no space ("b.com+1 415", "...000-jane@x.io"). A
    full stop, comma, quote or bracket ending a phrase or a JSON string does not touch."""
    if not side:
        return False
    if is_word(side[0]):
        return True
    separators = 0
    while separators < min(2, len(side)) and side[separators] in " -.":
        separators += 1
    if separators and separators < len(side) and side[separators].isdigit():
        return True
    return side[0] not in _CLOSING and len(side) > 1 and not side[1].isspace()


_CLOSING = frozenset(" \t\n\r\"',;)]}>")
"""What ends a phrase, a quoted string or a bracket: a match next to one touches nothing."""


def _windows(pattern: _Pattern, data: bytes) -> list[tuple[int, int]]:
    """Byte ranges to search: all of ``data``, or merged windows around the pattern's anchor."""
    if pattern.anchor is None:
        return [(0, len(data))]
    before, after = pattern.reach
    windows: list[tuple[int, int]] = []
    position = data.find(pattern.anchor)
    while position != -1:
        lo, hi = max(0, position - before), min(len(data), position + after)
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
        position = data.find(pattern.anchor, position + 1)
    return windows


def _spans(
    pattern: _Pattern,
    text: str,
    data: bytes,
    chars: _CharOffsets,
    search: Any,
    starts: MatchStarts | None = None,
) -> Iterable[tuple[int, int, float]]:
    """Matches of ``pattern``, validated, as character spans ``(start, end, factor)``.

    A validator may accept a shorter span than the candidate (a card number followed by a year);
    the rest of the candidate is searched again, so nothing after the accepted part is lost.
    ``search``: RE2's ``Match`` of the pattern, or the shared search of its shape.
    ``starts``: where Hyperscan says the pattern's matches can begin (see
    :mod:`govcore.detection.hyperscan_engine`).
    """
    for lo, hi in _windows(pattern, data):
        yield from _window_spans(pattern, text, data, chars, lo, hi, search, starts)


def _window_spans(
    pattern: _Pattern,
    text: str,
    data: bytes,
    chars: _CharOffsets,
    lo: int,
    hi: int,
    search: Any,
    starts: MatchStarts | None,
) -> Iterable[tuple[int, int, float]]:
    position = lo
    while position < hi:
        if starts is not None:
            # No match begins between here and where Hyperscan's reports say one can: the
            # search starts there and finds the match a search from here finds.
            skip_to = starts.search_from(position)
            if skip_to is None or skip_to >= hi:
                return
            position = skip_to
        begin_byte, end_byte = search(_UNANCHORED, data, position, hi)[0]
        if begin_byte == -1:
            return
        if begin_byte == end_byte:
            position = end_byte + 1
            continue
        position = end_byte
        begin, end = chars.char(begin_byte), chars.char(end_byte)
        if pattern.validator is None:
            yield begin, end, 1.0
            continue
        accepted = pattern.validator(text, begin, end)
        if accepted is None:
            if pattern.restart_inside:
                # Every place a match can begin is tried: a refused candidate ("2 4111 1111
                # 1111 1111", "Step 2" before a card) does not hide one that starts at a later
                # word inside it.
                following = _next_word_start(text, begin + 1, end)
                if following < end:
                    position = chars.byte(following)
            continue
        yield accepted
        if accepted[1] < end:
            # The validator kept a shorter match (a card number followed by a year): search
            # again right after it, so a match that began inside the candidate is not lost.
            position = chars.byte(accepted[1])


def _next_word_start(text: str, start: int, end: int) -> int:
    """The first position in ``[start, end)`` where a new value may begin, else ``end``."""
    found = VALUE_START.search(text, start, end)
    return end if found is None else found.start()


def _text_order(hit: Hit) -> tuple[int, int, int]:
    """The order of a scan's hits: by start, then end, then rule."""
    return hit.start, hit.end, hit.rule.index


def _leftmost_longest(spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Non-overlapping spans, preferring the earliest start, then the longest."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    kept: list[tuple[int, int, float]] = []
    reach = -1
    for span in spans:
        if span[0] >= reach:
            kept.append(span)
            reach = span[1]
    return kept


def _candidates(secret_options: SecretOptions | None) -> tuple[tuple[str, CandidatePattern], ...]:
    """Every built-in detector's candidate patterns with its kind, in registry order; the
    ``secret`` ones bound to ``secret_options``."""
    return tuple(
        (kind, candidate)
        for kind, detector in DETECTORS.items()
        for candidate in detector.candidates(secret_options)
    )


def _merged(spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Overlapping spans joined into one, with the highest factor among them."""
    spans.sort(key=lambda s: (s[0], -s[1]))
    joined: list[tuple[int, int, float]] = []
    for start, end, factor in spans:
        if joined and start < joined[-1][1]:
            last_start, last_end, last_factor = joined[-1]
            joined[-1] = (last_start, max(last_end, end), max(last_factor, factor))
        else:
            joined.append((start, end, factor))
    return joined


def compile_rules(
    rules: Iterable[tuple[PolicyDocument, DetectRule]],
    *,
    secret_options: SecretOptions | None = None,
    engine: DetectionEngine = "re2",
) -> Scanner:
    """Compile ``(policy, rule)`` pairs into one :class:`Scanner`.

    ``secret_options``: the known values the ``secret`` detector does not report (default:
    the published examples, ``settings.secret_known_examples``, and no allow-list).
    ``engine``: ``settings.detection_engine`` (both engines report the same hits).

    Raises:
        ValueError: ``engine`` is ``hyperscan`` and the package is not installed.
    """
    resolved = resolve_engine(engine)
    candidates = _candidates(secret_options)
    compiled: list[CompiledRule] = []
    patterns: dict[tuple[str, int], tuple[Any, list[int], Any, Any]] = {}
    terms: dict[str, list[tuple[int, bool, bool]]] = {}
    for policy, rule in _one_kind_each(rules):
        index = len(compiled)
        label: str
        if rule.pii is not None:
            kind: RuleKind = "pii"
            [label] = rule.pii_kinds
            replacement = rule.replacement or DETECTORS[label].replacement
            for number, (candidate_kind, candidate) in enumerate(candidates):
                if candidate_kind == label:
                    key = (f"pii:{candidate_kind}", number)
                    entry = patterns.get(key)
                    if entry is None:
                        entry = patterns[key] = (
                            re2.compile(candidate.pattern, _OPTIONS),
                            [],
                            candidate.validate,
                            candidate,
                        )
                    entry[1].append(index)
        elif rule.regex is not None:
            kind, label = "regex", "pattern"
            replacement = rule.replacement or "[removed]"
            key = (rule.regex, -1)
            entry = patterns.get(key)
            if entry is None:
                entry = patterns[key] = (_compile_composed(rule.regex), [], None, None)
            entry[1].append(index)
        else:
            assert rule.terms is not None
            kind, label = "terms", "term"
            replacement = rule.replacement or "[removed]"
            for term in rule.terms:
                # Terms are matched on skeletons (see skeleton_view); whitespace inside a term
                # is one space, however it was written.
                folded = " ".join(skeleton_of(normalize(term)).text.split())
                if not folded:
                    continue
                owners = terms.setdefault(folded, [])
                owner = (index, is_word(folded[0]), is_word(folded[-1]))
                if owner not in owners:
                    owners.append(owner)
        compiled.append(
            CompiledRule(
                index=index,
                policy=policy,
                kind=kind,
                confidence=rule.confidence,
                replacement=replacement,
                explanation=rule.explanation,
                label=label,
            )
        )
    return Scanner(
        compiled,
        [
            _Pattern(
                p,
                tuple(owners),
                v,
                d.anchor if d else None,
                d.reach if d else (0, 0),
                d.restart_inside if d else True,
            )
            for p, owners, v, d in patterns.values()
        ],
        terms,
        resolved,
    )


def _one_kind_each(
    rules: Iterable[tuple[PolicyDocument, DetectRule]],
) -> Iterable[tuple[PolicyDocument, DetectRule]]:
    """The rules with each ``pii`` rule of several kinds (a list, or a market) split into one
    rule per kind, in the registry's order: each match then knows its kind, so a violation's
    default explanation and replacement name what was found, and per-kind bookkeeping
    (leftmost-longest matches, containment) works as for rules of one kind."""
    for policy, rule in rules:
        kinds = rule.pii_kinds
        if len(kinds) <= 1 and not isinstance(rule.pii, list):
            yield policy, rule
            continue
        for kind in kinds:
            yield policy, rule.model_copy(update={"pii": kind})


def _compile_composed(pattern: str) -> Any:
    """``pattern`` with its combining sequences composed (NFC), as the checked text is, so
    that a letter written with a combining mark matches; as written in the rare case where
    composing makes it something RE2 refuses (``=`` and a combining slash make ``≠``)."""
    composed = unicodedata.normalize("NFC", pattern)
    if composed != pattern:
        try:
            return re2.compile(composed, _OPTIONS)
        except re2.error:
            pass
    return re2.compile(pattern, _OPTIONS)


def explain(hit: Hit) -> str:
    """The violation's explanation: the rule's own, or one naming what was found."""
    rule = hit.rule
    if rule.explanation:
        return rule.explanation
    if rule.kind == "pii":
        explanation = DETECTORS[rule.label].explanation
        return f"{explanation[:1].upper()}{explanation[1:]} (policy {rule.policy.id})."
    if rule.kind == "terms":
        return f"Uses wording that policy {rule.policy.id} does not allow."
    return f"Matches a pattern that policy {rule.policy.id} does not allow."
