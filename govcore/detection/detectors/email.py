"""The ``email`` detector: dot-atom and quoted local parts, IP-literal and Unicode domains, and
top-level domains that exist; not a URL's login, not a file name such as ``logo@2x.png``."""

from __future__ import annotations

import re
from importlib import resources

from govcore.detection.chars import SPACELESS_LETTERS, is_word
from govcore.detection.detectors.base import CandidatePattern, Detector
from govcore.detection.detectors.ip_address import ipv4_valid

__all__ = ["DETECTOR"]


def _unglued(candidate: str) -> tuple[int, int]:
    """The part of ``candidate`` that is the address when it mixes an ASCII address with
    letters of a script written without spaces: the local part starts after the last such
    letter, the domain ends before the first one that follows its last dot."""
    first, last = 0, len(candidate)
    if candidate.isascii():
        return first, last
    at = candidate.rfind("@")
    local, domain = candidate[:at], candidate[at + 1 :]
    glued = [m.end() for m in SPACELESS_LETTERS.finditer(local)]
    # Cut only where an ASCII local part remains: "用户@例子.广告" is an address as it is.
    if glued and glued[-1] < at and local[glued[-1] :].isascii() and not local.startswith('"'):
        first = glued[-1]
    dot = domain.rfind(".")
    tail = SPACELESS_LETTERS.search(domain, dot + 1)
    if tail is not None and domain[: tail.start()].isascii() and tail.start() > dot + 2:
        last = at + 1 + tail.start()
    return first, last


# Top-level domains that exist (docs/detection.md; scripts/make_tlds.py makes the file).
_TOP_LEVEL_DOMAINS = frozenset(
    line
    for line in resources.files("govcore.detection")
    .joinpath("top_level_domains.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line and not line.startswith("#")
)
# A key and "=" before an address, as in a query string or a setting ("user=jane@x.io").
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=(?=.)")


def _email(text: str, start: int, end: int) -> tuple[int, int, float] | None:
    cut_start, cut_end = _unglued(text[start:end])
    start, end = start + cut_start, start + cut_end
    at = text.rfind("@", start, end)
    # In a URL an address starts after the last "/", "?" or "&" ("https://x.io/a?to=jane@x.io"):
    # those are legal in a local part, but written there they delimit a path or a query.
    delimiter = max(text.rfind(char, start, at) for char in "/?&")
    if delimiter >= 0:
        start = delimiter + 1
    if text.endswith("://", 0, start) or _after_url_user(text, start):
        # "https://user@host", "https://user:password@host": a URL's login, not a mailbox;
        # a password there is the secret detector's.
        return None
    assigned = _ASSIGNED.match(text, start, end)
    if assigned is not None and "@" in text[assigned.end() : end]:
        start = assigned.end()
    local, _, domain = text[start:end].rpartition("@")
    if not local or len(local) > 64 or len(domain) > 255:
        return None
    if not local.startswith('"') and (
        local.startswith(".") or local.endswith(".") or ".." in local
    ):
        return None
    if domain.startswith("["):
        return start, end, 1.0
    if domain.replace(".", "").isdigit():
        # A bare IPv4 domain: four parts of at most 255, not followed by more of a number.
        glued = end < len(text) and (is_word(text[end]) or text.startswith(".", end))
        return None if glued or not ipv4_valid(domain) else (start, end, 1.0)
    top = domain.rsplit(".", 1)[-1].lower()
    if top.isascii() and top not in _TOP_LEVEL_DOMAINS:
        return None  # "logo@2x.png" is a file name
    if all(
        label and not label.startswith("-") and not label.endswith("-")
        for label in domain.split(".")
    ):
        return start, end, 1.0
    return None


def _after_url_user(text: str, start: int) -> bool:
    """Whether ``start`` follows "scheme://user:" (a URL's password comes next): "://" at most
    128 characters back, and nothing between that leaves a URL's user part. The bound keeps
    the answer the same wherever a streaming window starts (it sees 200 characters back)."""
    if start == 0 or text[start - 1] != ":":
        return False
    before = text[max(0, start - 128) : start - 1]
    scheme = before.rfind("://")
    return scheme >= 0 and not any(char in "/?#@ \t\r\n" for char in before[scheme + 3 :])


DETECTOR = Detector(
    kind="email",
    explanation="contains an email address",
    replacement="[email removed]",
    example="jane.doe@example.com",
    patterns=(
        CandidatePattern(
            # Unbounded repeats, lengths checked by the validator: counted repeats of large
            # Unicode classes would blow up RE2's DFA and send it to its slow engine.
            r"(?:\"[^\"\r\n@]+\"|[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.\-]+)@"
            r"(?:\[(?:IPv6:)?[0-9a-fA-F.:]+\]|[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*"
            # An IDNA top-level label ("xn--p1ai") first: leftmost-first RE2 would stop at "xn".
            r"\.(?:xn--[a-zA-Z0-9\-]*[a-zA-Z0-9]|\p{L}\p{L}+)"
            # A bare IPv4 address as the domain ("jane@192.0.2.7").
            r"|\p{Nd}{1,3}(?:\.\p{Nd}{1,3}){3})",
            _email,
            anchor=b"@",
            reach=(4 * 64 + 4, 4 * 255 + 4),
            restart_inside=False,
        ),
    ),
    # An address explains its digits: "jane@192.0.2.7" holds no IP address of its own.
    contains_other_kinds=True,
)
