"""The ``secret`` detector through the scanner (govcore/detection/detectors/secret.py): common
formats found whole, also split by invisible characters or in full-width letters, near misses,
key blocks cut short. The formats themselves: tests/detection/test_secrets.py.

Every hit is checked to be a span of the original text: ``text[start:end]`` is what the caller
sent, invisible and full-width characters included.
"""

from __future__ import annotations

import pytest

from tests.detection.scanning import (
    RLO,
    SECRET,
    SOFT_HYPHEN,
    TAG_A,
    WORD_JOINER,
    ZWSP,
    found,
    scanner,
)

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA4f5wg5l2hKsTeNem/V41fGnJm6gOdrj8ym3rFkEU/wT8RDtn\n"
    "SgFEZOQpHEgQ7JL38xUfU0Y3g6aYw9QT0hJ7mCpz9Er5qLaMXJwZxzHzAahlfA0i\n"
    "-----END RSA PRIVATE KEY-----"
)


SECRETS = [
    "AKIAZ4QW7RT2LX5PJN3K",
    "ghp_" + "a1B2c3D4e5" * 4,
    "github_pat_" + "A" * 30,
    "xoxb-1234567890-abcdefghij",
    "xoxp-123456789012-abcdefghijkl",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "rk_test_" + "a" * 20,
    "glpat-" + "x7Rq" * 5,
    "AIza" + "B" * 35,
    JWT,
    PRIVATE_KEY,
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
]


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s[:12])
def test_secrets_of_common_formats_are_found_whole(secret: str) -> None:
    """AWS, GitHub, Slack, Stripe, GitLab, Google keys, JWTs and private-key blocks are secrets."""
    assert found(SECRET, f"use {secret} to log in") == [secret]


@pytest.mark.parametrize("hidden", [ZWSP, SOFT_HYPHEN, RLO, TAG_A, WORD_JOINER, "\ufeff"])
@pytest.mark.parametrize(
    "secret",
    ["AKIAZ4QW7RT2LX5PJN3K", "ghp_" + "a1B2c3D4e5" * 4, "xoxb-1234567890-abcdefghij", JWT],
    ids=lambda s: s[:6],
)
def test_secrets_split_by_invisible_characters_are_found(secret: str, hidden: str) -> None:
    """A secret with an invisible character inside is found, the invisible character included."""
    split = secret[:4] + hidden + secret[4:9] + hidden + secret[9:]
    assert found(SECRET, f"key: {split} ok") == [split]


def test_private_key_split_by_invisible_characters_is_found() -> None:
    """A private-key block with zero-width characters in its header is found whole."""
    block = PRIVATE_KEY.replace("PRIVATE KEY", f"PRI{ZWSP}VATE{SOFT_HYPHEN} KEY", 1)
    assert found(SECRET, f"here:\n{block}\nbye") == [block]


@pytest.mark.parametrize(
    "secret",
    ["ｇｈｐ＿" + "ａ１ｂ２" * 9, "ＡＫＩＡＺ４ＱＷ７ＲＴ２ＬＸ５ＰＪＮ３Ｋ", "ｅｙＪ" + JWT[3:]],
    ids=["github", "aws", "jwt"],
)
def test_secrets_in_full_width_letters_are_found(secret: str) -> None:
    """A secret written in full-width letters and digits is found like its ASCII form."""
    assert found(SECRET, f"key {secret} ok") == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "AKIA1234",
        "akiaiosfodnn7example",
        "xAKIAZ4QW7RT2LX5PJN3K",
        "ghp_short",
        "sk_live_short",
        "-----BEGIN RSA PRIVATE KEY-----\nshort\n",
        "the header -----BEGIN PRIVATE KEY----- on its own",
        "eyJhbGciOiJIUzI1NiJ9",
    ],
)
def test_secret_near_misses_are_not_found(text: str) -> None:
    """Too-short keys, wrong case, glued prefixes and a key header without key lines are no
    secret."""
    assert found(SECRET, text) == []


KEY_LINES = "MIIEowIBAAKCAQEAx7u0Xj2yqVZp\nQ3k9vY2nB8s7T6f5eR4w3q2p1o0n"


@pytest.mark.parametrize(
    ("block", "after"),
    [
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}", ""),
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}", "\nThanks, that is all"),
        (f"-----BEGIN PRIVATE KEY-----\r\n{KEY_LINES.replace(chr(10), chr(13) + chr(10))}", " ok"),
        ("-----BEGIN PRIVATE KEY-----\\nMIIEowIBAAKCAQEAx7u0Xj2yqVZp\\nQ3k9vY2nB8s7T6f5eR4", '"}'),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B"
            f"\n\n{KEY_LINES}",
            "",
        ),
    ],
)
def test_private_key_block_cut_short_is_found(block: str, after: str) -> None:
    """A block whose END line never comes (an output cut short, or JSON with escaped line
    breaks) is a secret up to its last line of key material; the prose after it is not."""
    assert found(SECRET, f"here:\n{block}{after}") == [block]


def test_credential_assignment_is_a_weaker_secret() -> None:
    """`password: ...` is found at 0.7 of the rule's confidence: the value, not the key."""
    text = "config: password: hunter2hunter2 done"
    hits = scanner(SECRET).scan(text)
    assert [text[h.start : h.end] for h in hits] == ["hunter2hunter2"]
    assert hits[0].confidence == pytest.approx(0.9 * 0.7)


@pytest.mark.parametrize(
    ("block", "after"),
    [
        (f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINES}\nabc=", "\nThanks"),
        (
            "-----BEGIN PRIVATE KEY-----\\r\\nMIIEowIBAAKCAQEAx7u0Xj2yqVZp\\r\\nQ3k9vY2nB8s7T6f5eR4w",
            '"',
        ),
    ],
    ids=["short-padded-last-line", "json-escaped-crlf"],
)
def test_private_key_block_cut_short_keeps_its_last_line_and_escaped_breaks(
    block: str, after: str
) -> None:
    assert found(SECRET, f"key: {block}{after}") == [block]
