"""The ``secret`` detector's table of formats (govcore/detection/secrets/, docs/detection.md
"Secret formats"): every format's example, near misses of each family, glued secrets,
placeholders, the allow-list settings and the generic assignment rule."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import govcore
from govcore.core.stream_window import stream_step
from govcore.core.violations import redact
from govcore.detection.scanner import Scanner, compile_rules
from govcore.detection.secrets import (
    FAMILIES,
    GENERIC_CONFIDENCE,
    SecretFormat,
    SecretOptions,
    find_secrets,
    secret_formats,
)
from govcore.detection.secrets.formats import _format
from govcore.policy import PolicyDocument
from tests.detection.secret_cases import SECRET_CASES
from tests.support import policy

SECRET_FORMATS = secret_formats()

DOCS = Path(__file__).resolve().parents[2] / "docs" / "detection.md"


@cache
def _scanner(options: SecretOptions | None = None) -> Scanner:
    document = PolicyDocument.model_validate(
        policy("p", detect=[{"pii": "secret", "confidence": 1.0}])
    )
    return compile_rules(((document, r) for r in document.detect), secret_options=options)


def found(text: str, options: SecretOptions | None = None) -> list[str]:
    return [text[h.start : h.end] for h in _scanner(options).scan(text)]


def named(text: str) -> list[tuple[str, str]]:
    return [(m.name, text[m.start : m.end]) for m in find_secrets(text)]


def _expected_span(fmt: SecretFormat) -> str:
    """What the example's match must be: the token or block itself; for assignments, the value
    (the part after ``=``, ``:`` or the URL's ``user:``, without quotes)."""
    example = fmt.example
    if fmt.group != "assignments":
        return example
    if fmt.name == "url-credentials":
        return example.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    value = re.split(r"\s*[=:]\s*", example, maxsplit=1)[1]
    return value.strip("\"'")


# --- the table --------------------------------------------------------------------------------


def test_the_table_is_well_formed() -> None:
    names = [fmt.name for fmt in SECRET_FORMATS]
    assert len(names) == len(set(names))
    assert {fmt.family for fmt in SECRET_FORMATS} == set(FAMILIES)
    for fmt in SECRET_FORMATS:
        assert 0 < fmt.confidence <= 1
        if fmt.family == "generic":
            assert fmt.confidence == GENERIC_CONFIDENCE < 0.8
        elif fmt.confidence < 1.0:
            assert "weaker" in fmt.validator  # a vendor format below 1.0 says why


@pytest.mark.parametrize("fmt", SECRET_FORMATS, ids=lambda f: f.name)
def test_every_example_is_found_with_its_name_and_span(fmt: SecretFormat) -> None:
    """Each format's example, in prose, is one match of that format, with the exact span; the
    scanner reports the same span at the format's confidence."""
    text = f"Here it is: {fmt.example} (end)"
    span = _expected_span(fmt)
    start = text.index(span)
    [match] = find_secrets(text)
    assert (match.name, match.start, match.end) == (fmt.name, start, start + len(span))
    [hit] = _scanner().scan(text)
    assert (hit.start, hit.end, hit.confidence) == (start, start + len(span), fmt.confidence)


def _docs_table() -> str:
    rows = [
        "| name | family | what it looks like | validator | confidence | example |",
        "|---|---|---|---|---|---|",
    ]
    for fmt in SECRET_FORMATS:
        example = fmt.example.replace("\n", "\\n")
        if len(example) > 90:
            example = example[:87] + "..."
        rows.append(
            f"| `{fmt.name}` | {fmt.family} | {fmt.looks_like} | {fmt.validator} | "
            f"{fmt.confidence:g} | `{example}` |"
        )
    return "\n".join(rows)


def test_the_documented_table_is_the_code_table() -> None:
    """docs/detection.md shows the table of the code (the failure prints the table to paste)."""
    table = _docs_table()
    assert table in DOCS.read_text(encoding="utf-8"), table


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": "x-token",
        "family": "token",
        "group": "tokens",
        "looks_like": "`x_` and 20 letters",
        "pattern": "(?-i:x_[a-z]{20})",
        "validator": "${bounded}",
        "confidence": 1.0,
        "example": "x_" + "a" * 20,
    }
    entry.update(changes)
    return entry


def test_a_format_entry_fills_its_fragments_and_makes_its_check() -> None:
    fragments = {"bounded": "not glued", "nl": r"\n"}
    fmt = _format(
        _entry(pattern="a${nl}b", check={"name": "run_before", "marker": "_", "length": 1}),
        fragments,
    )
    assert (fmt.pattern, fmt.validator) == (r"a\nb", "not glued")
    assert fmt.check is not None
    assert fmt.check("x_y")
    assert not fmt.check("xx_y")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"pattern": "${nowhere}"}, "no fragment 'nowhere'"),
        ({"check": {"name": "crc32"}}, "unknown check"),
        ({"family": "weather"}, "unknown family or group"),
        ({"colour": "red"}, "unknown {'colour'}"),
    ],
)
def test_a_wrong_format_entry_is_refused_with_its_name(
    changes: dict[str, Any], message: str
) -> None:
    """A mistake in formats.toml names the format and what is wrong when the table is read."""
    with pytest.raises(ValueError, match=re.escape("format x-token: ")) as error:
        _format(_entry(**changes), {"bounded": "not glued"})
    assert message in str(error.value)


def test_the_table_is_read_once_and_not_at_import() -> None:
    """``import govcore`` does not read or compile the table (it costs more than the rest of
    the import); the first scan does, once."""
    probe = (
        "import govcore\n"
        "from govcore.detection.secrets.formats import secret_formats\n"
        "from govcore.detection.secrets.validators import format_table\n"
        "print(secret_formats.cache_info().currsize, format_table.cache_info().currsize)"
    )
    ran = subprocess.run(  # noqa: S603 - this interpreter
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert ran.stdout.split() == ["0", "0"]
    assert secret_formats() is secret_formats()


# --- near misses of each family ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # cloud
        "AKIAZ4QW7RT2LX5PJN3",  # one character short
        "xAKIAZ4QW7RT2LX5PJN3K",  # inside a longer word
        "AKIAZ4QW7RT2LX5PJN3KQ",  # longer than the format
        "akiaz4qw7rt2lx5pjn3k",  # wrong case
        "AIzaSyD4k9Qm2Xv7Lp0Rt5Wn8Jc3Hb6Fg1Ze2U",  # 34 after AIza
        "dop_v1_3f9a1c7e",
        # code hosting
        "ghp_short",
        "ghx_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u",
        "github_pat_short",
        "glpat-short",
        "glxyz-Xq3vR8mZ2kT7wL9bN4cY",
        # chat
        "xoxo-hugs-and-kisses-to-everyone",
        "https://example.com/xoxo-hugs-and-kisses-forever",
        "xoxb-short",
        "hooks.slack.com/services/T0A1B2C3D",
        "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GkXq2v",
        "NotAToken0000000000000000.abcdef.ghijklmnopqrstuvwxyz0123456",
        "5829136470:BBF3kR8mQ2xW7vL1bN4cY9pJ6hT0dS5gZ3e",
        "SK3f9a1c7e5b2d8f",
        "SG.short.short",
        "key-notahexvalue",
        # payment
        "sk_live_short",
        "pk_live_51Hq2xKz7RmT4wL9bN3cY8pJ",  # publishable keys are public
        "whsec_short",
        "shpat_short",
        # package registries
        "npm_short",
        "pypi-AgEIcHlwaS5vcmcshort",
        "rubygems_short",
        "dckr_pat_short",
        # AI providers
        "task-1234567890abcdefghijklmno",
        "sk-short",
        "hf_short",
        # tokens
        "eyJhbGciOiJIUzI1NiJ9",
        "eyJub3Rqc29uIjp9x.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJl",  # header is not JSON
        "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLXZhbHVl",  # no alg
        # private keys
        "-----BEGIN RSA PRIVATE KEY-----\nshort\n",
        "the header -----BEGIN PGP PRIVATE KEY BLOCK----- on its own",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "PuTTY-User-Key-File-3: ssh-ed25519 and nothing else",
        # generic
        "the password is long enough",
        "postgres://app:pass@db.internal/orders",
        "https://user@example.com/path",
    ],
)
def test_near_misses_are_not_secrets(text: str) -> None:
    assert found(text) == []
    assert find_secrets(text) == []


# --- private keys ------------------------------------------------------------------------------

BODY = "MIIEowIBAAKCAQEAx7u0Xj2yqVZpQ3k9vY2nB8s7T6f5eR4w\nq2p1o0nMIIEowIBAAKCAQEAx7u0Xj2yq"


@pytest.mark.parametrize(
    "armour",
    ["RSA ", "EC ", "DSA ", "", "ENCRYPTED ", "OPENSSH "],
    ids=["rsa", "ec", "dsa", "pkcs8", "encrypted", "openssh"],
)
def test_every_pem_armour_is_a_private_key_block(armour: str) -> None:
    block = f"-----BEGIN {armour}PRIVATE KEY-----\n{BODY}\n-----END {armour}PRIVATE KEY-----"
    assert named(f"key:\n{block}\nbye") == [("private-key-block", block)]


PGP_BLOCK = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n"
    "Version: Keybase OpenPGP v1\n"
    "\n"
    "xcLYBGXk3R8BCADbZq8mT3wL6bN1cY4pJ7hF0dS2gA5eK9uRxWq4Zt8Kx2Rm7Vb1\n"
    "Ln5Pc9Hj3Fd6Sg0Ya2Eu7Wi4Oq1Xk8Zt3Rm6Vb9Ln2Pc5Hj8Fd1Sg4Ya7Eu0Wi3\n"
    "=q8Zt\n"
    "-----END PGP PRIVATE KEY BLOCK-----"
)


def test_a_pgp_private_key_block_is_found_whole_and_cut_short() -> None:
    assert named(f"here {PGP_BLOCK} done") == [("private-key-block", PGP_BLOCK)]
    cut = PGP_BLOCK[: PGP_BLOCK.index("\n=q8Zt")]
    assert named(f"here {cut}") == [("private-key-block-cut-short", cut)]


def test_an_open_pgp_block_holds_the_stream_watermark() -> None:
    """A PGP block whose END line has not arrived is held back like a PEM block."""
    opened = "Sure, here is the key:\n" + PGP_BLOCK.split("\n=q8Zt")[0][:150]
    text = "filler " * 40 + opened
    step = stream_step(text, 0, False, _scanner().scan)
    assert step.watermark <= text.index("-----BEGIN")


def test_a_json_escaped_block_cut_short_keeps_its_escaped_breaks() -> None:
    block = (
        "-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIIbZq8mT3wL6bN1cY4pJ7h\\nF0dS2gA5eK9uRxWq4Zt8Kx2R"
    )
    assert found(f'{{"key": "{block}"}}') == [block]


# --- glued secrets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "parts",
    [
        ["sk_live_" + "a" * 24, "sk_live_" + "b" * 24],
        ["ghp_" + "A1b2C3d4" * 5, "ghp_" + "Z9y8X7w6" * 5],
        ["AKIAZ4QW7RT2LX5PJN3K", "AKIAQ7RT2LX5PJN3KZ4W"],
        ["ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u", "sk_live_51Hq2xKz7RmT4wL9bN3cY8pJ"],
        ["xoxb-2468013579-1357924680-Zk8Qw3Rt6Yp1", "AKIAZ4QW7RT2LX5PJN3K"],
    ],
    ids=["stripe", "github", "aws", "github+stripe", "slack+aws"],
)
def test_glued_secrets_are_two_matches_and_both_are_redacted(parts: list[str]) -> None:
    text = "keys: " + "".join(parts) + " end"
    assert found(text) == parts
    hits = _scanner().scan(text)
    assert redact(text, hits, _scanner()) == "keys: [secret removed][secret removed] end"


# --- placeholders and the allow-list -------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "AKIAI44QH8DHBEXAMPLE",
        "ghp_" + "x" * 36,
        "ghp_" + "X" * 40,
        "sk_live_" + "0" * 24,
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk-proj-" + "x" * 30,
        "glpat-EXAMPLEEXAMPLEEXAMPLE",
        "xoxb-0000000000-DUMMYDUMMYDUMMY",
        "AIzaSyPLACEHOLDERplaceholder00000000000",
    ],
)
def test_published_examples_and_placeholders_are_not_reported(value: str) -> None:
    assert found(f"use {value} here") == []
    # ... unless known examples are switched off.
    assert found(f"use {value} here", SecretOptions(known_examples=False)) == [value]


def test_published_aws_secret_key_is_not_reported() -> None:
    text = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert found(text) == []
    assert found(text, SecretOptions(known_examples=False)) == [text.split(" = ")[1]]


def test_allow_listed_values_are_not_reported() -> None:
    token = "ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u"
    text = f"token {token} and password: S3cure!Passw0rd#2024"
    options = SecretOptions(allowlist=frozenset({token, "S3cure!Passw0rd#2024"}))
    assert found(text) == [token, "S3cure!Passw0rd#2024"]
    assert found(text, options) == []


def _governance(**settings: Any) -> govcore.Governance:
    return govcore.Governance.from_config(
        {
            "settings": settings,
            "tenants": {
                "acme": {
                    "policies": [
                        policy(
                            "secrets",
                            enforcement="fix",
                            alwaysOn=True,
                            detect=[{"pii": "secret"}],
                            tools=[{"tool": "*", "argument": "cmd", "detect": [{"pii": "secret"}]}],
                        )
                    ]
                }
            },
            "keys": [
                {
                    "key": "gk_secret_tests_0001",
                    "tenant": "acme",
                    "settings": {
                        "post_inference_checking": "allowed",
                        "tool_call_governance": "allowed",
                    },
                }
            ],
        }
    )


def _reported(gov: govcore.Governance, text: str) -> list[str]:
    client = gov.client("gk_secret_tests_0001")
    verdict = client.post_inference({"sessionId": "s", "output": text})
    tool = client.check_tool_call(
        {"sessionId": "s", "toolName": "shell", "arguments": {"cmd": text}}
    )
    output = [v.matched_text for v in verdict.violations]
    # The tool rule's scanner is compiled with the same settings.
    assert {v.matched_text for v in tool.violations} == set(output)
    return output


def test_settings_reach_the_scanner_of_outputs_and_tool_calls() -> None:
    own = "ghp_R7tK2mQ9xV4bL8nW1cZ5pJ3hF6dS0gY2aE7u"
    text = f"keys AKIAIOSFODNN7EXAMPLE and {own}"
    assert _reported(_governance(), text) == [own]
    assert _reported(_governance(secret_allowlist=[own]), text) == []
    assert _reported(_governance(secret_known_examples=False), text) == [
        "AKIAIOSFODNN7EXAMPLE",
        own,
    ]


@pytest.mark.parametrize(
    ("settings", "field", "reason"),
    [
        ({"secret_allowlist": [" padded "]}, "secret_allowlist", "whitespace"),
        ({"secret_allowlist": ["ab"]}, "secret_allowlist", "at least 4"),
        ({"secret_allowlist": "ghp_one"}, "secret_allowlist", "list"),
        ({"secret_known_examples": "sometimes"}, "secret_known_examples", "bool"),
    ],
)
def test_bad_secret_settings_are_config_errors_naming_the_field(
    settings: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(govcore.ConfigError) as caught:
        _governance(**settings)
    message = str(caught.value)
    assert field in message
    assert reason in message.lower()


# --- generic assignments ----------------------------------------------------------------------


@pytest.mark.parametrize(("line", "value"), SECRET_CASES, ids=lambda c: str(c)[:30])
def test_the_labelled_set_is_classified_right(line: str, value: str | None) -> None:
    """The thresholds of the generic rule were chosen on this set (tests/detection/secret_cases.py)."""
    assert found(line) == ([value] if value else [])


def test_a_redaction_keeps_the_key() -> None:
    text = "password: S3cure!Passw0rd#2024\nhost: db"
    hits = _scanner().scan(text)
    assert redact(text, hits, _scanner()) == "password: [secret removed]\nhost: db"
    assert [h.confidence for h in hits] == [GENERIC_CONFIDENCE]


def test_a_vendor_token_assigned_to_a_key_keeps_its_format_and_confidence() -> None:
    token = "sk-proj-Hx4Zt8Kq2Rm7Vb1Ln5Pc9Jw3Fd6Sg0Ya"
    assert named(f'OPENAI_API_KEY="{token}"') == [("openai-api-key", token)]


# The forms of assignment: {key} and {value} are filled in.
FORMS = [
    "{key}={value}",
    'export {key}="{value}"',
    "{key}: {value}",
    '{{"{key}": "{value}"}}',
    "{key} = '{value}'",
    'self.{key} = "{value}"',
    ":{key} => '{value}'",
    "--{key}={value} --verbose",
    "--{key} {value} --verbose",
    "https://api.example.com/v1?{key}={value}&page=2",
    '{{\\"{key}\\": \\"{value}\\"}}',
    "[db]\n{key} = {value}\nport = 5432",
]
KEYS = [
    "password",
    "db_password",
    "DB_PASSWORD",
    "password_super_secure",
    "secret_access_key",
    "apiKey",
    "X-Api-Key",
    "api_key",
    "auth_token",
    "passwd",
    "client_secret",
    "credentials",
]
HIGH_ENTROPY = st.text(
    alphabet="abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%+/=@^",
    min_size=12,
    max_size=40,
).filter(
    lambda v: (
        v[0].isalnum()  # "/abc/def" is a path, which the rule leaves out
        and len(set(v)) >= 0.6 * len(v)
        and any(c.isdigit() for c in v)
        and any(c.isalpha() for c in v)
        and not re.search(r"(?i)xxx|your|example|sample|dummy|redacted|here", v)
    )
)


@settings(max_examples=150, deadline=None)
@given(value=HIGH_ENTROPY, key=st.sampled_from(KEYS), form=st.sampled_from(FORMS))
def test_a_random_secret_in_any_form_is_found_as_exactly_its_value(
    value: str, key: str, form: str
) -> None:
    text = form.format(key=key, value=value)
    [match] = find_secrets(text)
    assert text[match.start : match.end] == value
    assert found(text) == [value]


def test_settings_are_documented() -> None:
    configuration = (DOCS.parent / "configuration.md").read_text(encoding="utf-8")
    assert "`secret_allowlist`" in configuration
    assert "`secret_known_examples`" in configuration
