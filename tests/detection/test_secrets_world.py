"""The ``secret`` detector on forms found in chat answers, shell history and code: prose
assignments, quoted command-line values, call arguments, URLs without a user, tokens written
inside Japanese or Chinese sentences, key words spelled with look-alike letters, and the
placeholders of how-to guides that must stay quiet."""

from __future__ import annotations

import pytest

from tests.detection.scanning import SECRET, found
from tests.support import private_key_block

PASSWORD = "Mx1rsq4p0Gz^kD"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"The wifi password is {PASSWORD}", PASSWORD),
        (f"your new token was {PASSWORD}.", PASSWORD),
        (
            "docker login -u ci --password 'sunset horse Tiger correct #7'",
            "sunset horse Tiger correct #7",
        ),
        (
            'az storage blob list --account-key "Zq8mT3wL6bN1cY4pJ7hF0dS2gA5eK9uR" -c b',
            "Zq8mT3wL6bN1cY4pJ7hF0dS2gA5eK9uR",
        ),
        (
            'os.environ.setdefault("SLACK_SIGNING_SECRET", "d3ec5ba1a46003407c19419d1f35ac7c")',
            "d3ec5ba1a46003407c19419d1f35ac7c",
        ),
        (f"config.set('db_password', '{PASSWORD}')", PASSWORD),
        ("redis://:qjzXUdQ42hzz@cache.internal:6379/0", "qjzXUdQ42hzz"),
        (f"パスワード（password）: {PASSWORD}", PASSWORD),
    ],
)
def test_assignments_in_prose_commands_and_calls(text: str, secret: str) -> None:
    assert found(SECRET, text) == [secret]


@pytest.mark.parametrize(
    "token",
    [
        "gho_mu0NMhNQuRGrf2g96p9xJHtE5RWgE2YcuKA9",
        "glptt-37bd8a2fe90c2eb521f8fdeb4342ba1903c341be",
        "rk_test_HBX5NfWQEuiICMvS1nn3mJTf",
    ],
)
@pytest.mark.parametrize("template", ["このトークン{}は本番環境用です。", "令牌{}已过期"])
def test_a_token_inside_a_sentence_without_spaces_is_found(token: str, template: str) -> None:
    """Japanese and Chinese prose runs straight into a token: it is not a longer word."""
    assert found(SECRET, template.format(token)) == [token]


def test_a_telegram_token_in_the_bot_api_url() -> None:
    token = "2507134874:AAXsDsJZeMtEEepFRMobJIU76jOHGFgLQlY"
    assert found(SECRET, f"GET https://api.telegram.org/bot{token}/getMe") == [token]
    assert found(SECRET, f"robot{token}") == []  # any other word glued before it


@pytest.mark.parametrize(
    "key",
    ["\u0440\u0430ssword", "DB_\u0420\u0410SSWORD", "\u0430pi_key", "t\u043eken"],
    ids=["cyrillic-pa", "cyrillic-upper", "cyrillic-a", "cyrillic-o"],
)
def test_key_words_written_with_look_alike_letters(key: str) -> None:
    """A key word with Cyrillic letters that look Latin still names a secret."""
    assert found(SECRET, f"{key} = '{PASSWORD}'") == [PASSWORD]


@pytest.mark.parametrize(
    "text",
    [
        "the password is required",
        "the token was revoked yesterday",
        "token = 'github_pat_' + random_suffix()",
        "SLACK_BOT_TOKEN=xoxb-your-token",
        "Paste the key between the lines:\n-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        "DEPLOY_TOKEN_USER=gitlab+deploy-token-12",
        "TELEGRAM_BOT_TOKEN=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        "the password 'short' is too short",
        "<password></password>",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db}",
        '{"name": "DB_PASSWORD", "value": ""}',
        'credentials "app.terraform.io" {\n  token = var.tfc_token\n}',
    ],
)
def test_near_misses_stay_quiet(text: str) -> None:
    """Prose about a password, a token's prefix alone, a how-to's placeholders, a token's user
    name and a vendor's documentation example are not secrets."""
    assert found(SECRET, text) == []


@pytest.mark.parametrize(
    "key",
    [
        "Passwort",
        "Kennwort",
        "mot de passe",
        "contraseña",
        "senha",
        "wachtwoord",
        "hasło",
        "пароль",
        "パスワード",
        "密码",
        "비밀번호",
    ],
)
def test_password_named_in_other_languages(key: str) -> None:
    assert found(SECRET, f"{key}: {PASSWORD}") == [PASSWORD]


@pytest.mark.parametrize(
    "text",
    [
        f"CREATE USER app WITH PASSWORD '{PASSWORD}';",
        f"ALTER USER 'app'@'%' IDENTIFIED BY '{PASSWORD}';",
        f"<config><password>{PASSWORD}</password></config>",
        f'<add key="ApiSecret" value="{PASSWORD}" />',
        f'env:\n  - name: DB_PASSWORD\n    value: "{PASSWORD}"',
        f'{{"name": "DB_PASSWORD", "value": "{PASSWORD}"}}',
    ],
    ids=[
        "sql-with-password",
        "sql-identified-by",
        "xml",
        "appsettings",
        "k8s-env",
        "json-name-value",
    ],
)
def test_sql_xml_and_name_value_forms(text: str) -> None:
    assert found(SECRET, text) == [PASSWORD]


def test_a_value_glued_to_a_key_block_leaves_no_part_of_the_block() -> None:
    """``password=...`` running straight into ``-----BEGIN ... KEY-----``: the value ends where
    the armour begins, and the block is a match of its own, whole."""
    block = private_key_block()
    assert found(SECRET, f"password=hunter2secretX9{block}") == ["hunter2secretX9", block]
