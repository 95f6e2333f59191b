"""Vendor token formats of the ``secret`` detector beyond the first table (cloud and
infrastructure, CI, observability, productivity, AI providers, chat webhooks): each format's
variants, its near misses (the prefix alone, too short, too long, glued inside a longer word,
public keys of the same vendor, look-alike identifiers), the checks behind the shapes (Bech32
checksums, base64 JSON parts, run lengths) and the vendors' own documentation examples."""

from __future__ import annotations

import random
import string

import pytest

from govcore.detection.secrets import SecretOptions, find_secrets, secret_formats
from tests.detection.test_secrets import found, named

SECRET_FORMATS = secret_formats()

EXAMPLE = {fmt.name: fmt.example for fmt in SECRET_FORMATS}
_RNG = random.Random(41)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def rand(length: int, alphabet: str = ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(length))


GUID = "3f2a9c1e-7b4d-4e8a-9c0f-5d1b2a3c4e6f"
TEAMS_PATH = f"{GUID}@{GUID.replace('3f2a', '8e71')}/IncomingWebhook/{rand(32, HEX)}/{GUID.replace('9c0f', 'a41d')}"

# --- variants of a format, each found with its name and whole span -----------------------------

VARIANTS = [
    ("hashicorp-vault-token", "hvb.AAAAAQ" + rand(130, ALNUM + "_-")),
    ("hashicorp-vault-token", "hvr." + rand(24)),
    ("doppler-token", "dp.pt." + rand(43)),
    ("doppler-token", "dp.scim." + rand(40)),
    ("doppler-token", "dp.audit." + rand(44)),
    ("databricks-token", "dapi" + rand(32, HEX) + "-2"),
    ("flyio-token", "fo1_" + rand(43, ALNUM + "_-")),
    ("flyio-token", "FlyV1 fm1r_" + rand(140, ALNUM + "+/") + "=="),
    ("planetscale-token", "pscale_pw_" + rand(43)),
    ("planetscale-token", "pscale_oauth_" + rand(32)),
    ("circleci-token", "CCIPRJ_" + rand(22) + "_" + rand(40, HEX)),
    ("new-relic-key", "NRII-" + rand(32, ALNUM + "_-")),
    ("langsmith-api-key", "lsv2_sk_" + rand(32, HEX) + "_" + rand(10, HEX)),
    ("mailchimp-api-key", rand(32, HEX) + "-us6"),
    ("dropbox-token", "sl.u." + rand(900, ALNUM + "_-")),
    ("notion-token", "ntn_" + rand(11, string.digits) + rand(35)),
    ("teams-webhook-url", "https://outlook.office.com/webhook/" + TEAMS_PATH),
    ("teams-webhook-url", "https://contoso-my.webhook.office.com/webhookb2/" + TEAMS_PATH),
    ("discord-webhook-url", "https://discordapp.com/api/webhooks/987654321098765432/" + rand(68)),
    (
        "discord-webhook-url",
        "https://ptb.discord.com/api/v10/webhooks/98765432109876543/" + rand(68),
    ),
    (
        "discord-webhook-url",
        "discord.com/api/webhooks/123456789012345678/" + rand(64, ALNUM + "_-"),
    ),
]


@pytest.mark.parametrize(("name", "token"), VARIANTS, ids=lambda v: str(v)[:24])
def test_variants_are_found_with_their_name_and_whole_span(name: str, token: str) -> None:
    text = f"Set it to {token} and restart."
    assert named(text) == [(name, token)]
    assert found(text) == [token]


@pytest.mark.parametrize(
    "name",
    ["hashicorp-vault-token", "azure-ad-client-secret", "planetscale-token", "linear-api-key"],
)
@pytest.mark.parametrize("after", [".", ",", ")", '"', "\n", "'s"])
def test_a_token_ends_before_the_punctuation_after_it(name: str, after: str) -> None:
    token = EXAMPLE[name]
    assert found(f'("{token}{after} next') == [token]


@pytest.mark.parametrize("before", ["see.", "x~", "(", "=", "secret: "])
def test_an_azure_secret_after_punctuation_is_found(before: str) -> None:
    """The pattern reads a run before the digit and ``Q~``; a run longer than 3 that is not glued
    (``see.abc8Q~...``) is looked at again from the word inside it."""
    token = EXAMPLE["azure-ad-client-secret"]
    text = f"value {before}{token} ok"
    assert named(text) == [("azure-ad-client-secret", token)]
    assert found(text) == [token]


# --- near misses ------------------------------------------------------------------------------

AGE = EXAMPLE["age-secret-key"]
MAPBOX = EXAMPLE["mapbox-secret-token"]
TERRAFORM_ID, TERRAFORM_TAIL = EXAMPLE["terraform-cloud-token"].split(".atlasv1.")

NEAR_MISSES = [
    # age: the prefix, one character short, a wrong checksum, lower case, glued
    "AGE-SECRET-KEY-1",
    AGE[:-1],
    AGE[:-1] + ("Q" if AGE[-1] != "Q" else "P"),
    AGE[:40] + ("Q" if AGE[40] != "Q" else "P") + AGE[41:],
    AGE.lower(),
    "X" + AGE,
    # Alibaba
    "LTAI",
    "LTAI12ab34cd",  # 8 after the prefix
    "LTAIServiceConfigLoader",  # an identifier, not a key id
    "xLTAI" + rand(20),
    "LTAI" + rand(24),  # longer than a key id
    # Azure AD client secrets
    "abc8Q~short",
    "abcxQ~" + rand(34),  # no digit before Q~
    "zJ7S8Q~" + rand(34),  # four characters before the digit: glued
    "file_J7S8Q~" + rand(34),
    # HashiCorp Vault
    "hvs.",
    "hvs.short",
    "hvs." + rand(23),
    "hvx." + rand(24),
    "hvs.ServiceProviderFactoryBeanImpl",
    "import acme.hvs.read_only_connection_pool",
    "xhvs." + rand(40),
    # Terraform Cloud
    "abc.atlasv1.",
    TERRAFORM_ID[1:] + ".atlasv1." + TERRAFORM_TAIL,  # 13 characters before .atlasv1.
    "Q" + TERRAFORM_ID + ".atlasv1." + TERRAFORM_TAIL,  # 15 characters before .atlasv1.
    TERRAFORM_ID + ".atlasv1." + TERRAFORM_TAIL[:59],
    # Doppler
    "dp.pt.",
    "dp.pt.short",
    "dp.pt." + rand(39),
    "dp.xx." + rand(43),
    # Databricks
    "dapi",
    "dapi" + rand(31, HEX),
    "dapi" + rand(32, "ABCDEF0123456789"),  # upper-case hex
    "xdapi" + rand(32, HEX),
    "dapi" + rand(40, HEX),
    # Heroku
    "HRKU-",
    "HRKU-AA" + rand(57),
    "HRKU-BB" + rand(58),
    # Fly.io
    "fo1_",
    "fo1_" + rand(42),
    "FlyV1 fm2_" + rand(99),
    "FlyV1 ",
    # Netlify, Supabase, PlanetScale, Pulumi
    "nfp_",
    "nfp_" + rand(35),
    "nfp_" + rand(37),
    "sbp_",
    "sbp_" + rand(39, HEX),
    "sbp_" + rand(40, "ghijklmnopqrstuvwxyz"),
    "pscale_tkn_",
    "pscale_tkn_" + rand(31),
    "pscale_key_" + rand(43),
    "pul-",
    "pul-" + rand(39, HEX),
    "pull-request-1234 merged",
    # Mapbox: public tokens, and a middle part that is not JSON
    MAPBOX.replace("sk.", "pk.", 1),
    "sk.eyJ",
    "sk.eyJ1IiBpcyBub3QganNvbjogYWNtZS1tYXBzISF9." + rand(22),
    # Bitbucket, Buildkite, CircleCI
    "ATBB",
    "ATBB" + rand(31),
    "xATBB" + rand(32),
    "bkua_",
    "bkua_" + rand(39, HEX),
    "CCIPAT_",
    "CCIPAT_" + rand(22) + "_" + rand(39, HEX),
    "CCIPAT_" + rand(21) + "_" + rand(40, HEX),
    # Discord and Teams webhooks
    "https://discord.com/api/webhooks/",
    "https://discord.com/api/webhooks/123456789012345678/short",
    "https://discord.com/api/webhooks/1234567890123456/" + rand(68),  # 16-digit id
    "https://discord.com/api/users/123456789012345678/" + rand(68),
    "https://acmecorp.webhook.office.com/webhookb2/",
    "https://acmecorp.webhook.office.com/webhookb2/" + TEAMS_PATH.split("/IncomingWebhook")[0],
    "https://acmecorp.webhook.office.com/webhookb2/" + TEAMS_PATH.replace("/Incoming", "/Outgoing"),
    # Mailchimp
    rand(31, HEX) + "-us18",
    rand(33, HEX) + "-us18",
    "g" + rand(32, HEX) + "-us18",
    rand(32, HEX) + "-uk1",
    "-us",
    # Grafana
    "glc_",
    "glc_eyJ" + rand(10),
    "glc_eyJvcmciOiBub3QganNvbiBhdCBhbGwsIHJlYWxseX0=",  # base64, not JSON
    "glsa_",
    "glsa_" + rand(32) + "_" + rand(7, HEX),
    "glsa_" + rand(32) + "_zzzzqqqq",
    # New Relic: browser keys are public; short keys
    "NRJS-" + rand(19, HEX),
    "NRAK-" + rand(26, string.ascii_uppercase),
    "NRAK-" + rand(27, string.ascii_lowercase),
    "NRII-",
    # Sentry
    "sntrys_",
    "sntrys_eyJvcmciOiBub3QganNvbiBhdCBhbGwsIHJlYWxseX0=_" + rand(43),
    "sntryu_" + rand(63, HEX),
    "sntryu_" + rand(64, "ABCDEF"),
    # Atlassian, Linear, Notion, Airtable, Figma, Postman
    "ATATT3",
    "ATATT3" + rand(185),
    "lin_api_",
    "lin_api_" + rand(39),
    "ntn_",
    "ntn_1234567890a" + rand(35),  # 10 digits
    "ntn_" + rand(11, string.digits) + rand(34),
    "secret_",
    "secret_" + rand(42),
    "secret_ProductionDatabaseConnectionStringFor",  # words, not a token
    "secret_key_base",
    "pat",
    "patent pending",
    "pat" + rand(14) + "." + rand(63, HEX),
    "pat" + rand(13) + "." + rand(64, HEX),
    "figd_",
    "figd_" + rand(35),
    "PMAK-",
    "PMAK-" + rand(24, HEX) + "-" + rand(33, HEX),
    # Dropbox: a short sl. is not a token
    "sl." + rand(129),
    "sl.short",
    "Use sl. for short",
    "xsl." + rand(136),
    # AI providers
    "gsk_",
    "gsk_" + rand(51),
    "r8_",
    "r8_" + rand(36),
    "r8_" + rand(38),
    "pplx-",
    "pplx-" + rand(47),
    "xai-",
    "xai-" + rand(79),
    "model: xai-grok-beta",
    "lsv2_pt_",
    "lsv2_pt_" + rand(32, HEX) + "_" + rand(9, HEX),
    "lsv2_xx_" + rand(32, HEX) + "_" + rand(10, HEX),
]


@pytest.mark.parametrize("text", NEAR_MISSES, ids=lambda t: t[:32])
def test_near_misses_are_not_secrets(text: str) -> None:
    assert find_secrets(f"value: {text} (end)") == []
    assert found(f"value: {text} (end)") == []


# --- documentation examples -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "hvs.6j4cuewowBGit65rheNoceI7",  # Vault's dev-server tutorial
        "dapi1234567890ab1cde2f3ab456c7d89efa",  # Databricks' documentation
    ],
)
def test_vendor_documentation_examples_are_not_reported(value: str) -> None:
    text = f"export TOKEN_VALUE={value}"
    assert found(text) == []
    assert found(text, SecretOptions(known_examples=False)) == [value]


# --- glued and neighbouring tokens --------------------------------------------------------------


@pytest.mark.parametrize(
    "parts",
    [
        [EXAMPLE["grafana-service-account-token"], EXAMPLE["linear-api-key"]],
        [EXAMPLE["supabase-token"], EXAMPLE["supabase-token"].replace("sbp_1", "sbp_2")],
        [EXAMPLE["groq-api-key"], EXAMPLE["aws-access-key-id"]],
    ],
    ids=["grafana+linear", "supabase+supabase", "groq+aws"],
)
def test_glued_vendor_tokens_are_two_matches(parts: list[str]) -> None:
    assert found("keys: " + "".join(parts) + " end") == parts


def test_tokens_in_an_env_file_keep_their_vendor_names() -> None:
    lines = {
        "VAULT_TOKEN": "hashicorp-vault-token",
        "DOPPLER_TOKEN": "doppler-token",
        "GROQ_API_KEY": "groq-api-key",
        "SENTRY_AUTH_TOKEN": "sentry-org-token",
        "AZURE_CLIENT_SECRET": "azure-ad-client-secret",
        "DISCORD_WEBHOOK": "discord-webhook-url",
    }
    text = "\n".join(f"{key}={EXAMPLE[name]}" for key, name in lines.items())
    assert named(text) == [(name, EXAMPLE[name]) for name in lines.values()]
