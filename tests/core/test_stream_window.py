"""Properties of the streaming check (spec §4.7, §4.8; docs/decisions/streaming.md).

A client sends the whole text so far with the previous ``watermark`` as ``lastCheckedOffset``,
and finally ``isFinal: true``. Whatever the text and however it is cut into deltas, the union
of ``newViolations`` is the violations of one ``post_inference`` of the whole text, each
reported once at its offset, and the watermark only moves forward within ``fullText``.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.stream_window import (
    STREAM_MATCH_HOLD,
    STREAM_TOKEN_HOLD,
    STREAM_TRIGGER,
    resume_stream,
    stream_record,
    stream_step,
)
from govcore.errors import InvalidRequestError
from tests.support import (
    CHECKS_KEY,
    SAMPLES,
    STREAM_VIOLATION_FIELDS,
    bearer,
    checks_governance,
    detect_scanner,
    private_key_block,
)

STREAM_FIELDS = {"sessionId", "newViolations", "watermark", "isComplete", "riskScore", "traceId"}
INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\u2060", "\u202e", "\U000e0041", "\ufeff"]
WORDS = [
    "the",
    "order",
    "shipped",
    "today,",
    "please",
    "call",
    "us.",
    "refund",
    "guaranteed",
    "warranty",
    "lifetime",
    "risk-free",
    "card",
    "2024",
    "12",
    "ok",
    "\n",
    "—",
    "naïve",
    "straße",
    "ＯＫ",
    "proj",
    # Combining marks and look-alikes: a base and its mark may arrive in two calls.
    "cafe\u0301",
    "e\u0301",
    "\u0301",
    "gu\u0430r\u0430nteed",  # Cyrillic а
    "r\u0435fund",  # Cyrillic е
    "\u0440\u0430\u0443\u0440\u0430l",  # Cyrillic раура + l
    "STRASSE",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji ZWJ sequence
    "\U0001f44d\U0001f3fd",  # an emoji with a skin tone
]
SCANNER = detect_scanner()


@functools.cache
def _gov() -> govcore.Governance:
    """One governance for the module's properties, built on first use (not at import)."""
    return checks_governance()


def _client() -> govcore.GovernanceClient:
    return _gov().client(CHECKS_KEY)


def _hide(value: str, positions: list[int], marks: list[str]) -> str:
    """``value`` with invisible ``marks`` inserted at ``positions`` (never at either end)."""
    if len(value) < 3:
        return value
    for position, mark in zip(positions, marks, strict=False):
        cut = 1 + position % (len(value) - 2)
        value = value[:cut] + mark + value[cut:]
    return value


@st.composite
def planted(draw: st.DrawFn) -> str:
    """A value with a violation, or a long token, sometimes with invisible characters inside."""
    kind = draw(st.sampled_from(["sample", "sample", "key", "token", "token-secret"]))
    hide = draw(st.booleans())
    marks = draw(st.lists(st.sampled_from(INVISIBLE), max_size=3)) if hide else []
    positions = draw(st.lists(st.integers(0, 10_000), min_size=len(marks), max_size=len(marks)))
    if kind == "sample":
        return _hide(draw(st.sampled_from(SAMPLES)), positions, marks)
    if kind == "key":
        # Longer than the 200-character overlap; invisible characters only in the body lines.
        block = private_key_block(lines=draw(st.integers(1, 12)), width=draw(st.integers(8, 64)))
        header, body, footer = block.split("\n", 1)[0], *block.split("\n", 1)[1].rsplit("\n", 1)
        return "\n".join([header, _hide(body, positions, marks), footer])
    length = draw(st.one_of(st.integers(65, 600), st.integers(1000, 2000)))
    token = "".join(draw(st.lists(st.sampled_from("abcdefxyz0123/_-"), min_size=3, max_size=3)))
    token = (token * length)[:length]
    if kind == "token-secret":
        secret = draw(st.sampled_from(["AKIAZ4QW7RT2LX5PJN3K", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"]))
        token = f"https://example.com/cb?k={secret}&state={token}"
    return _hide(token, positions, marks)


TEXTS = st.lists(
    st.one_of(st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join), planted()),
    min_size=1,
    max_size=8,
).map(" ".join)
# Items glued to each other: a match then held back a neighbour ("a@b.com4111 1111 ...").
GLUE = ["", " ", ". ", "\u200b", "+", ":", "-", "/"]


@st.composite
def glued_texts(draw: st.DrawFn) -> str:
    items = draw(
        st.lists(
            st.one_of(st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join), planted()),
            min_size=2,
            max_size=6,
        )
    )
    text = items[0]
    for item in items[1:]:
        text += draw(st.sampled_from(GLUE)) + item
    return text


DELTAS = st.lists(
    st.one_of(st.just(1), st.integers(1, 40), st.integers(150, 250), st.just(500)),
    min_size=1,
    max_size=12,
)


def _chunks(text: str, sizes: list[int]) -> Iterator[str]:
    """``text`` cut into deltas of the given sizes, cycling through them."""
    position = 0
    for size in itertools.cycle(sizes):
        if position >= len(text):
            return
        yield text[position : position + size]
        position += size


def _stream(text: str, sizes: list[int]) -> list[tuple[str, str, int]]:
    """Drive ``check_output_stream`` like a client and check each reply; the union of reports."""
    reported: list[tuple[str, str, int]] = []
    watermark = 0
    sent = ""
    deltas = list(_chunks(text, sizes)) or [""]
    for index, delta in enumerate(deltas):
        sent += delta
        final = index == len(deltas) - 1
        request = {
            "sessionId": "stream",
            "fullText": sent,
            "lastCheckedOffset": watermark,
            "isFinal": final,
        }
        reply = _client().check_output_stream(request).model_dump(mode="json", by_alias=True)
        assert set(reply) == STREAM_FIELDS
        assert reply["sessionId"] == "stream"
        assert reply["isComplete"] is final
        assert watermark <= reply["watermark"] <= len(sent)
        assert 0 <= reply["riskScore"] <= 1
        for violation in reply["newViolations"]:
            assert set(violation) == STREAM_VIOLATION_FIELDS
            offset, matched = violation["offset"], violation["matchedText"]
            assert sent[offset : offset + len(matched)] == matched
            assert offset >= watermark
            reported.append((violation["policyId"], matched, offset))
        watermark = reply["watermark"]
    assert watermark == len(text)
    return reported


def _reference(text: str) -> Counter[tuple[str, str, int]]:
    """Where a check of the whole text finds each violation (one per policy and span)."""
    spans = {(h.rule.policy.id, h.start, h.end) for h in SCANNER.scan(text)}
    return Counter((pid, text[start:end], start) for pid, start, end in spans)


def _post_inference(text: str) -> Counter[tuple[str, str]]:
    verdict = _client().post_inference({"sessionId": "stream", "output": text})
    return Counter((v.policy_id, v.matched_text) for v in verdict.violations)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=TEXTS, sizes=DELTAS)
@example(text="card " + private_key_block(lines=8) + " end", sizes=[37])
@example(text="x " * 150 + "4111 1111 1111 1111 " + "y " * 150, sizes=[1])
@example(text="a" * 900 + " AKIAZ4QW7RT2LX5PJN3K guaranteed refund", sizes=[500])
def test_stream_reports_equal_one_check_of_the_whole_text(text: str, sizes: list[int]) -> None:
    """However the text is cut, the stream reports each violation of the whole text exactly once."""
    reported = _stream(text, sizes)
    assert len(reported) == len(set(reported)), "a violation was reported twice"
    assert Counter(reported) == _reference(text)
    assert Counter((pid, matched) for pid, matched, _ in reported) == _post_inference(text)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    words=st.lists(st.sampled_from(WORDS), min_size=40, max_size=160),
    cut=st.integers(0, 10_000),
    step=st.integers(150, 260),
)
def test_stream_split_between_a_letter_and_its_mark_equals_one_check(
    words: list[str], cut: int, step: int
) -> None:
    """Every delta but the first ends right after a letter whose combining mark comes first in
    the next one (where the text has such a letter): the stream still reports what one check of
    the whole text finds."""
    text = " ".join(words) + " guaranteed refu" + "\u0301" + "nd cafe" + "\u0301"
    letters_before_marks = [i for i in range(1, len(text)) if text[i] == "\u0301"]
    sizes: list[int] = []
    position = 0
    for mark in letters_before_marks[cut % max(1, len(letters_before_marks)) :]:
        if mark - position >= 1:
            sizes.append(mark - position)
            position = mark
    sizes.append(step)
    reported = _stream(text, sizes)
    assert len(reported) == len(set(reported)), "a violation was reported twice"
    assert Counter(reported) == _reference(text)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=glued_texts(), sizes=DELTAS)
@example(text="x a@b.com4111 1111 1111 1111 y", sizes=[7])
@example(text="DE89 3704 0044 0532 0130 00. 4111 1111 1111 1111", sizes=[200])
@example(  # a URL's "user:" far back: the window of a stream call does not see it
    text="https://example.com/cb?k=AKIAZ4QW7RT2LX5PJN3K&state="
    + "a" * 400
    + ":jane.doe+orders@mail.example.co.uk4111 1111 1111 1111",
    sizes=[1],
)
@example(text="ref " + "00-" * 40 + "4111 1111 1111 1111 end", sizes=[1])
@example(text="see https://" + "u" * 300 + ":jane.doe@mail.example.co.uk ok", sizes=[1])
def test_glued_items_stream_as_one_check_finds_them(text: str, sizes: list[int]) -> None:
    """Items glued to each other are found alike by the stream and by one check, the one a
    match held back included."""
    reported = _stream(text, sizes)
    assert len(reported) == len(set(reported)), "a violation was reported twice"
    assert Counter(reported) == _reference(text)
    assert Counter((pid, matched) for pid, matched, _ in reported) == _post_inference(text)


@pytest.mark.parametrize("sizes", [[1400, 200], [1300, 250], [1000, 480, 100]])
def test_invisible_padding_does_not_shorten_the_streams_view(sizes: list[int]) -> None:
    """A run of zero-width spaces between a letter and a number: one check reads the number
    glued to the letter (no card), and so does the stream, whose overlap counts only text that
    normalisation keeps."""
    text = "x" + "\u200b" * 1500 + "4111111111111111 end of text " + "y" * 250
    assert _reference(text) == Counter()
    assert Counter(_stream(text, sizes)) == _reference(text)


@pytest.mark.parametrize(
    "header",
    [
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----begin rsa private key-----",
        "-----bEgIn RSA Private Key-----",
        "-----BEGIN RSA PRI\u200bVATE KEY-----",
        "-----BEGIN RSA PRIVATE\u00ad KEY-----",
        "-----ＢＥＧＩＮ RSA PRIVATE KEY-----",
    ],
    ids=["plain", "lower-case", "mixed-case", "zero-width", "soft-hyphen", "full-width"],
)
def test_stream_finds_a_long_private_key_whatever_its_header(header: str) -> None:
    """A private-key block longer than the overlap is reported once even if its header is
    obfuscated, and after other runs of dashes (a Markdown table's rule)."""
    block = private_key_block(lines=8).replace("-----BEGIN RSA PRIVATE KEY-----", header)
    text = f"| step | done |\n|-----|------|\n| 1 | yes |\nHere is the key:\n{block}\nand more."
    assert _post_inference(text) == Counter({("secrets", block): 1})
    assert [(pid, matched) for pid, matched, _ in _stream(text, [50])] == [("secrets", block)]


@pytest.mark.parametrize(
    "filler",
    ["数据保护政策适用于所有客户记录", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkrLw"],
    ids=["cjk", "base64"],
)
def test_text_without_spaces_moves_the_watermark(filler: str) -> None:
    """A stream with no spaces (CJK prose, a base64 blob) is not held back to its start, so each
    call scans a bounded window, and its reports still equal one check of the whole text."""
    text = (filler * 400)[:3000] + "&key=AKIAZ4QW7RT2LX5PJN3K&" + (filler * 400)[:3000]
    text += " card 4111 1111 1111 1111 " + (filler * 400)[:3000]
    watermark, sent, reported = 0, "", []
    for start in range(0, len(text), 200):
        sent = text[: start + 200]
        final = len(sent) == len(text)
        reply = _client().check_output_stream(
            {"sessionId": "s", "fullText": sent, "lastCheckedOffset": watermark, "isFinal": final}
        )
        if not final:
            assert reply.watermark >= len(sent) - STREAM_TOKEN_HOLD - STREAM_TRIGGER
        reported += [(v.policy_id, v.matched_text, v.offset) for v in reply.new_violations]
        watermark = reply.watermark
    assert Counter(reported) == _reference(text)
    assert {matched for _, matched, _ in reported} == {
        "AKIAZ4QW7RT2LX5PJN3K",
        "4111 1111 1111 1111",
    }


@pytest.mark.parametrize(
    "header",
    [
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----begin openssh private key-----",
        "-----Begin EC Private Key-----",
    ],
)
def test_an_opened_key_header_holds_the_watermark_after_other_runs_of_dashes(header: str) -> None:
    """The window rule alone (no match found yet) holds the watermark at the header of a
    private-key block whose end line has not come, in any case, also when runs of dashes come
    before it in the window (a Markdown table's rule, a forwarded message's separator)."""
    text = (
        "| a | b |\n|-----|------|\n---------- Forwarded message ----------\n-----Best, -----bye\n"
        + "intro text " * 10
        + header
        + "\nMIIEowIBAAKCAQEA"
        + " key material" * 30
    )
    step = stream_step(text, 0, False, lambda _text, _start: [])
    assert step.watermark == text.index(header)


def test_a_key_block_that_never_ends_holds_the_watermark_only_so_far() -> None:
    """An opened private-key block holds the watermark at its header while a key could still
    be arriving, then no more than STREAM_MATCH_HOLD characters back."""
    text = "intro -----BEGIN RSA PRIVATE KEY-----\n" + "MIIEow KCAQEA 4111 1111 1111 1111\n" * 1500
    header = text.index("-----BEGIN")
    watermarks = []
    watermark = 0
    for end in range(200, len(text), 200):
        reply = _client().check_output_stream(
            {"sessionId": "s", "fullText": text[:end], "lastCheckedOffset": watermark}
        )
        watermark = reply.watermark
        watermarks.append((end, watermark))
    assert all(w <= header for end, w in watermarks if end < header + STREAM_MATCH_HOLD)
    assert all(w >= end - STREAM_MATCH_HOLD - 200 for end, w in watermarks)
    assert watermarks[-1][1] > header


def test_call_below_the_trigger_reports_nothing_and_keeps_the_watermark() -> None:
    """A non-final call with fewer than 200 new characters checks nothing and keeps the watermark."""
    text = "4111 1111 1111 1111 " + "z" * 100
    reply = _client().check_output_stream(
        {"sessionId": "s", "fullText": text, "lastCheckedOffset": 0, "isFinal": False}
    )
    assert (reply.new_violations, reply.watermark, reply.is_complete) == ([], 0, False)
    final = _client().check_output_stream(
        {"sessionId": "s", "fullText": text, "lastCheckedOffset": 0, "isFinal": True}
    )
    assert [(v.matched_text, v.offset) for v in final.new_violations] == [
        ("4111 1111 1111 1111", 0)
    ]
    assert (final.watermark, final.is_complete) == (len(text), True)


@pytest.mark.parametrize("offset", [-1, -200, 11, 10_000])
def test_last_checked_offset_outside_full_text_is_400(offset: int) -> None:
    """`lastCheckedOffset` below 0 or beyond the end of `fullText` is refused with 400."""
    body = {"sessionId": "s", "fullText": "0123456789", "lastCheckedOffset": offset}
    with pytest.raises(InvalidRequestError) as caught:
        _client().check_output_stream(body)
    assert [d.field for d in caught.value.details] == ["lastCheckedOffset"]
    for path in ("/governance/check-output/stream", "/governance/check-output/finalize"):
        response = _gov().handle("POST", path, bearer(CHECKS_KEY), json.dumps(body))
        assert response.status == 400
        assert [d["field"] for d in response.json()["details"]] == ["lastCheckedOffset"]


def test_last_checked_offset_at_the_end_is_accepted() -> None:
    """`lastCheckedOffset` equal to the length of `fullText` is valid and reports nothing new."""
    reply = _client().check_output_stream(
        {"sessionId": "s", "fullText": "0123456789", "lastCheckedOffset": 10, "isFinal": True}
    )
    assert (reply.new_violations, reply.watermark, reply.is_complete) == ([], 10, True)


# --- StreamGuard ----------------------------------------------------------------------------

GUARD_TEXT = (
    "Sure! Your card 4111 1111 1111 1111 is on file. "
    + "We offer a lifetime warranty on every order. " * 6
    + private_key_block(lines=6)
    + " Contact jane.doe+orders@mail.example.co.uk or pay to GB82 WEST 1234 5698 7654 32. "
    + "Internal ref PROJ-4242, host 10.20.30.40, token AKIA\u200bZ4QW7RT2LX5PJN3K."
)


def _verdict(text: str) -> dict[str, Any]:
    verdict = _client().post_inference({"sessionId": "guard", "output": text})
    wire = verdict.model_dump(mode="json", by_alias=True)
    wire.pop("traceId")
    return wire


@pytest.mark.parametrize("delta_size", [1, 17, 200, 500])
@pytest.mark.parametrize("chunk_size", [1, 50, 200])
def test_stream_guard_wrap_matches_post_inference(delta_size: int, chunk_size: int) -> None:
    """`StreamGuard.wrap` without hold-back passes deltas through and ends with the violations
    and verdict of the text."""
    deltas = list(_chunks(GUARD_TEXT, [delta_size]))
    seen: list[Any] = []
    guard = govcore.StreamGuard(
        _client(),
        session_id="guard",
        chunk_size=chunk_size,
        on_violation=seen.append,
        hold_back=False,
    )
    assert list(guard.wrap(iter(deltas))) == deltas
    expected = _verdict(GUARD_TEXT)
    got = Counter((v.policy_id, v.matched_text) for v in guard.violations)
    assert got == Counter((v["policyId"], v["matchedText"]) for v in expected["violations"])
    assert seen == guard.violations
    assert guard.result is not None
    result = guard.result.model_dump(mode="json", by_alias=True)
    result.pop("traceId")
    assert result == expected
    assert guard.redaction == expected["suggestedRedaction"]
    assert guard.text == GUARD_TEXT


def test_stream_guard_awrap_matches_post_inference() -> None:
    """`StreamGuard.awrap` without hold-back over an async stream gives the same violations and
    verdict."""
    deltas = list(_chunks(GUARD_TEXT, [23]))

    async def model_stream() -> AsyncIterator[str]:
        for delta in deltas:
            await asyncio.sleep(0)
            yield delta

    async def consume(guard: govcore.StreamGuard) -> list[str]:
        return [delta async for delta in guard.awrap(model_stream())]

    guard = govcore.StreamGuard(_client(), session_id="guard", hold_back=False)
    assert asyncio.run(consume(guard)) == deltas
    expected = _verdict(GUARD_TEXT)
    got = Counter((v.policy_id, v.matched_text) for v in guard.violations)
    assert got == Counter((v["policyId"], v["matchedText"]) for v in expected["violations"])
    assert guard.result is not None
    result = guard.result.model_dump(mode="json", by_alias=True)
    result.pop("traceId")
    assert result == expected


def test_stream_guard_refuses_feeding_after_finish() -> None:
    """A finished guard refuses more deltas, and `finish` twice gives the same verdict."""
    guard = govcore.StreamGuard(_client(), session_id="guard")
    guard.feed("hello 4111 1111 1111 1111")
    verdict = guard.finish()
    assert guard.finish() is verdict
    with pytest.raises(RuntimeError):
        guard.feed("more")
    with pytest.raises(ValueError, match="chunk_size"):
        govcore.StreamGuard(_client(), session_id="guard", chunk_size=0)


@pytest.mark.parametrize(
    ("joined", "pieces_before_cut"),
    [
        ("e\u0301", 1),  # a letter and its combining mark
        ("e\u200b\u0301", 1),  # with an invisible character between them
        ("e\u0301\u0308", 2),  # two marks
        ("\U0001f468\u200d\U0001f469", 2),  # an emoji ZWJ sequence, cut after the joiner
        ("\U0001f468\u200d\U0001f469", 1),  # cut before the joiner
        ("\U0001f44d\U0001f3fd", 1),  # an emoji and its skin tone
    ],
)
def test_watermark_never_cuts_a_letter_from_its_marks(joined: str, pieces_before_cut: int) -> None:
    """Where the 64-character tail would put the watermark inside a sequence a reader sees as
    one character, it goes to the start of the sequence."""
    tail = " b" * 40
    lead = "a " * 150
    text = lead + joined + tail[: 64 - (len(joined) - pieces_before_cut)]
    assert len(text) - 64 == len(lead) + pieces_before_cut  # where the tail rule alone cuts
    step = stream_step(text, 0, False, lambda _text, _start: [])
    assert step.watermark == len(lead)


def test_watermark_stays_where_no_sequence_is_cut() -> None:
    text = "a " * 150 + "e" + " b" * 32
    step = stream_step(text, 0, False, lambda _text, _start: [])
    assert step.watermark == len(text) - 64


def test_a_record_of_the_earlier_format_makes_the_call_check_from_the_start() -> None:
    """A record written before the checksum chain (watermark digits, a colon, 16 bytes), or any
    record that does not decode, is no record: the call checks from the start."""
    text = "The order shipped today. " * 40
    written = stream_record(text, 900, resume_stream(text, 0, None))
    assert resume_stream(text, 900, written).start == 900
    for stored in (b"900:" + bytes(16), written[:-1], b"s1" + written[2:], b""):
        resumed = resume_stream(text, 900, stored)
        assert (resumed.start, resumed.verified) == (0, False)
