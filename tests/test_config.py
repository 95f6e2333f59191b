"""Loading and validating configurations and policy documents."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import govcore
from govcore.backends import settings_models
from govcore.cli import main
from govcore.config import MAX_CONFIG_DEPTH, GovernanceSettings, load_config
from tests.support import EXAMPLE_CONFIG, SHIPPED_DEFAULTS, config, policy


def _problems(raw: Any) -> list[str]:
    with pytest.raises(govcore.ConfigError) as caught:
        load_config(raw)
    return [str(p) for p in caught.value.problems]


def test_example_config_loads() -> None:
    """The shipped example configuration is valid and has 15 to 25 policies."""
    loaded = load_config(EXAMPLE_CONFIG)
    assert set(loaded.tenants) == {"northwind"}
    assert 15 <= len(loaded.tenants["northwind"]) <= 25


def test_mapping_config_with_defaults() -> None:
    """Settings are optional and default as the contract says."""
    loaded = load_config(config())
    assert loaded.settings.conversation_ttl_seconds == 4 * 3600
    assert loaded.settings.default_rate_limit_per_minute == 120
    assert loaded.settings.release_after_unselected_turns == 3


def test_policies_from_directory_and_json_file(tmp_path: Path) -> None:
    """Policies load from a directory of YAML and JSON files, relative to the config file."""
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "a.yaml").write_text(yaml.safe_dump([policy("a"), policy("b")]))
    (folder / "c.json").write_text(json.dumps(policy("c")))
    (folder / "notes.txt").write_text("ignored")
    (tmp_path / "gov.json").write_text(
        json.dumps({"tenants": {"t": {"policies": "policies"}}, "keys": []})
    )
    loaded = load_config(tmp_path / "gov.json")
    assert [p.id for p in loaded.tenants["t"].policies] == ["a", "b", "c"]


def test_every_problem_is_reported_with_its_place() -> None:
    """One ConfigError lists every problem, each naming policy id, field and reason."""
    raw = config()
    raw["tenants"]["acme"]["policies"] = [
        policy("p1", severity="high"),
        policy("p2", enforcement="block"),
        policy("p3", detect=[{"regex": "(a)\\1"}]),
        policy("p4", detect=[{"terms": ["x"], "pii": "email"}]),
        policy("p5", colour="red"),
        policy("p6", tools=[{"tool": "send_*"}]),
        policy("p1"),
    ]
    raw["keys"].append({"key": "gk_unknown_tenant_key", "tenant": "nobody"})
    raw["surprise"] = True
    problems = _problems(raw)
    text = "\n".join(problems)
    assert "surprise: unknown field" in text
    assert "(policy 'p1'): severity" in text
    assert "(policy 'p2'): enforcement" in text
    assert "'block'" in text
    assert "(policy 'p3'): detect[0].regex: regex does not compile" in text
    assert "(policy 'p4'): detect[0]: a detect rule needs exactly one of regex, terms, pii" in text
    assert "(policy 'p5'): colour: unknown field" in text
    assert "(policy 'p6'): tools[0]" in text
    assert "unknown tenant 'nobody'" in text
    assert len(problems) == 8


def test_duplicate_policy_ids_are_refused() -> None:
    """Two policies of a tenant may not share an id."""
    raw = config()
    raw["tenants"]["acme"]["policies"] = [policy("same"), policy("same")]
    assert any("duplicate policy id 'same'" in p for p in _problems(raw))


def test_file_problems_name_the_file(tmp_path: Path) -> None:
    """A problem inside a policy file names that file."""
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "bad.yaml").write_text(yaml.safe_dump([policy("x", severity=-1)]))
    (folder / "broken.yaml").write_text("- id: [unclosed\n")
    (tmp_path / "gov.yaml").write_text(yaml.safe_dump({"tenants": {"t": {"policies": "p"}}}))
    problems = _problems(tmp_path / "gov.yaml")
    assert any("bad.yaml[0] (policy 'x'): severity" in p for p in problems)
    assert any("broken.yaml: invalid YAML at line" in p for p in problems)


def test_missing_policy_path_and_unreadable_config(tmp_path: Path) -> None:
    """A policy path that does not exist, or a config file that is missing, is reported."""
    assert any(
        "no such file or directory" in p
        for p in _problems({"tenants": {"t": {"policies": str(tmp_path / "nope")}}})
    )
    assert any("cannot read" in p for p in _problems(tmp_path / "absent.yaml"))


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ({"tenant": "acme"}, "exactly one of key or key_sha256"),
        ({"key": "gk_aaaaaaaaaa", "key_sha256": "0" * 64, "tenant": "acme"}, "exactly one"),
        ({"key_sha256": "xyz", "tenant": "acme"}, "key_sha256"),
        ({"key": "gk_aaaaaaaaaa", "tenant": "acme", "scopes": ["admin"]}, "scopes[0]"),
        (
            {"key": "gk_aaaaaaaaaa", "tenant": "acme", "settings": {"tool_call_governance": "on"}},
            "tool_call_governance",
        ),
        (
            {
                "key": "gk_aaaaaaaaaa",
                "tenant": "acme",
                "settings": {"conversation_ttl_seconds": 10},
            },
            "conversation_ttl_seconds",
        ),
        ({"key": "gk_aaaaaaaaaa", "tenant": "acme", "settings": {"colour": 1}}, "colour"),
        ({"key": " gk_aaaaaaaaaa", "tenant": "acme"}, "start or end with whitespace"),
        ({"key": "gk_aaaaaaaaaa\u00a0", "tenant": "acme"}, "start or end with whitespace"),
        ({"key": "gk_aaaa\naaaaaa", "tenant": "acme"}, "control character (U+000A)"),
    ],
)
def test_bad_keys_are_refused(key: dict[str, Any], reason: str) -> None:
    """Key entries are validated field by field."""
    raw = config()
    raw["keys"] = [key]
    assert any(reason in p for p in _problems(raw))


def test_the_same_secret_twice_is_refused() -> None:
    """Two key entries may not carry the same secret, in clear or hashed."""
    raw = config()
    raw["keys"] = [
        {"key": "gk_same_secret_1", "tenant": "acme"},
        {"key": "gk_same_secret_1", "tenant": "globex"},
    ]
    assert any("the same secret" in p for p in _problems(raw))


def test_bad_settings_are_refused() -> None:
    """Settings are range-checked."""
    problems = _problems(config(conversation_ttl_seconds=5, retrieval_top_k=0))
    assert any("settings: conversation_ttl_seconds" in p for p in problems)
    assert any("settings: retrieval_top_k" in p for p in problems)


def test_validate_command_prints_every_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`govcore validate` exits non-zero and prints all problems, or OK for a good file."""
    raw = config()
    raw["tenants"]["acme"]["policies"] = [policy("a", severity="x"), policy("b", tags="t")]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw))
    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "2 problems" in err
    assert "(policy 'a')" in err
    assert "(policy 'b')" in err
    assert main(["validate", str(EXAMPLE_CONFIG)]) == 0
    assert "OK" in capsys.readouterr().out


def test_from_config_raises_config_error() -> None:
    """Governance.from_config raises ConfigError, a GovcoreError, for a bad config."""
    with pytest.raises(govcore.ConfigError) as caught:
        govcore.Governance.from_config({"tenants": "nope"})
    assert isinstance(caught.value, govcore.GovcoreError)
    assert "tenants" in str(caught.value)


def test_unknown_fields_name_the_field_probably_meant() -> None:
    """A misspelt field is refused with the known field it is closest to, at every level."""
    raw = config()
    raw["setting"] = {}
    raw["tenants"]["acme"]["policy"] = []
    raw["tenants"]["acme"]["policies"] = [
        policy("p1", enforcment="fix"),
        policy("p2", detect=[{"pii": "email", "confidense": 0.5}]),
        policy("p3", tools=[{"tool": "send_*", "argumnet": "to", "max": 3}]),
    ]
    raw["keys"][0]["scope"] = ["governance:read"]
    text = "\n".join(_problems(raw))
    assert "setting: unknown field (did you mean 'settings'?)" in text
    assert "acme.policy: unknown field (did you mean 'policies'?)" in text
    assert "(policy 'p1'): enforcment: unknown field (did you mean 'enforcement'?)" in text
    assert "detect[0].confidense: unknown field (did you mean 'confidence'?)" in text
    assert "tools[0].argumnet: unknown field (did you mean 'argument'?)" in text
    assert "keys[0]: scope: unknown field (did you mean 'scopes'?)" in text


def test_unknown_field_far_from_every_known_one_has_no_suggestion() -> None:
    raw = config()
    raw["tenants"]["acme"]["policies"] = [policy("p1", colour="red")]
    assert any(p.endswith("colour: unknown field") for p in _problems(raw))


def _nested(levels: int, leaf: Any = "x") -> Any:
    """``leaf`` inside ``levels`` lists, built without recursion."""
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [MAX_CONFIG_DEPTH, 1_000, 200_000])
def test_deep_nesting_in_a_mapping_is_a_config_error(levels: int) -> None:
    """A config nested deeper than the limit is a ConfigError naming where, never a
    RecursionError, however deep it goes."""
    raw = config()
    raw["tenants"]["acme"]["policies"][0]["appliesWhen"] = {"region": _nested(levels)}
    with pytest.raises(govcore.ConfigError) as caught:
        govcore.Governance.from_config(raw)
    (problem,) = caught.value.problems
    assert problem.location.startswith("tenants.acme.policies[0].appliesWhen.region[0][0]")
    assert f"nested more than {MAX_CONFIG_DEPTH} levels deep" in problem.reason


def test_nesting_up_to_the_limit_is_not_reported() -> None:
    """The root mapping counts as level one: 32 levels pass the nesting check, 33 do not."""
    raw = config()
    raw["extra"] = _nested(MAX_CONFIG_DEPTH - 1)  # root + 31 lists: 32 levels
    assert not any("nested" in p for p in _problems(raw))
    raw["extra"] = _nested(MAX_CONFIG_DEPTH)
    assert any("nested more than" in p for p in _problems(raw))


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("levels", [40, 1_500])
def test_deep_nesting_in_files_is_a_config_error(tmp_path: Path, suffix: str, levels: int) -> None:
    """A YAML or JSON config or policy file nested too deeply is a ConfigError naming the file,
    whether its parser copes with the depth or not."""
    deep = "[" * levels + "]" * levels
    (tmp_path / f"gov{suffix}").write_text('{"tenants": {"t": {"policies": ' + deep + "}}}")
    problems = _problems(tmp_path / f"gov{suffix}")
    assert len(problems) == 1
    assert problems[0].startswith(str(tmp_path / f"gov{suffix}"))
    assert "nested" in problems[0]
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / f"deep{suffix}").write_text(deep)
    (tmp_path / "gov2.yaml").write_text("tenants: {t: {policies: p}}\n")
    (problem,) = _problems(tmp_path / "gov2.yaml")
    assert problem.startswith(str(folder / f"deep{suffix}"))
    assert "nested" in problem


def test_self_referencing_yaml_is_a_config_error(tmp_path: Path) -> None:
    """A YAML anchor used inside itself (an endless structure) is reported as too deep."""
    (tmp_path / "gov.yaml").write_text("tenants: &loop {t: {policies: [*loop]}}\n")
    (problem,) = _problems(tmp_path / "gov.yaml")
    assert "nested more than" in problem


def test_shared_yaml_anchors_are_checked_once_per_depth(tmp_path: Path) -> None:
    """A 'billion laughs' document (anchors of anchors, 10^29 leaves unfolded) is reported as
    too deep without unfolding it."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 30)]
    lines.append("tenants: {t: {policies: [*l29, *l29]}}")
    (tmp_path / "gov.yaml").write_text("\n".join(lines) + "\n")
    (problem,) = _problems(tmp_path / "gov.yaml")
    assert "tenants.t.policies[0][0]" in problem
    assert "nested more than" in problem


BAD_IDS = ["a\nb", "nel\x85", "ab\u202ecd", "x\u2066y", "\u200f", "  ", "\u3164", "\x00"]


@pytest.mark.parametrize("bad", BAD_IDS, ids=ascii)
def test_invalid_policy_ids_are_refused_naming_the_place(bad: str) -> None:
    """A policy id with a control, a bidi control or nothing visible is a ConfigError naming
    the policy's place and the id field."""
    raw = config()
    raw["tenants"]["acme"]["policies"][1]["id"] = bad
    (problem,) = _problems(raw)
    assert problem.startswith("tenants.acme.policies[1]")
    assert ": id: " in problem
    assert "control character" in problem or "blank" in problem


@pytest.mark.parametrize("bad", BAD_IDS, ids=ascii)
def test_invalid_tenant_ids_are_refused_naming_the_place(bad: str) -> None:
    """A tenant id with a control, a bidi control or nothing visible is a ConfigError naming
    the tenant (quoted, so the message itself stays on one line)."""
    raw = config()
    raw["tenants"][bad] = raw["tenants"].pop("globex")
    raw["keys"] = [k for k in raw["keys"] if k["tenant"] == "acme"]
    (problem,) = _problems(raw)
    assert problem.startswith(f"tenants[{bad!r}]: the tenant id ")
    assert "\n" not in problem
    assert "\x85" not in problem


def test_tenant_ids_are_at_most_256_characters() -> None:
    """A tenant id has the length limit of every other identifier: 256 characters."""
    raw = config()
    raw["tenants"]["t" * 256] = raw["tenants"].pop("globex")
    raw["keys"] = [k for k in raw["keys"] if k["tenant"] == "acme"]
    load_config(raw)
    raw["tenants"]["t" * 257] = raw["tenants"].pop("t" * 256)
    assert any("at most 256 characters" in p for p in _problems(raw))


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"store": "nosuch://user:s3cret@host/0"}, "settings.store"),
        ({"store": "redis://user:s3cret@[::1/0"}, "settings.store"),
        ({"retriever": "nosuch"}, "settings.retriever"),
        ({"decision_log_path": "/no/such/directory/decisions.jsonl"}, "decision_log_path"),
    ],
)
def test_validate_checks_what_only_building_reveals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: dict[str, Any], named: str
) -> None:
    """`govcore validate` refuses what `from_config` refuses beyond the file's shape: backends
    that do not resolve and a decision log that cannot be written; no credential is echoed."""
    path = tmp_path / "govcore.yaml"
    path.write_text(yaml.safe_dump(config(**settings)))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert named in err
    assert "s3cret" not in err
    with pytest.raises(govcore.ConfigError, match=named.replace(".", r"\.")):
        govcore.Governance.from_config(config(**settings))


def test_a_retriever_that_cannot_index_is_a_config_error() -> None:
    """A retriever raising while it indexes a tenant's policies is a ConfigError naming the
    tenant, not a bare exception from from_config."""

    class Broken:
        def index(self, policies: Any) -> Any:
            raise KeyError("field")

    with pytest.raises(govcore.ConfigError, match=r"tenants\.acme"):
        govcore.Governance.from_config(config(), retriever=Broken())


def _one_policy_config(document: dict[str, Any]) -> dict[str, Any]:
    raw = config()
    raw["tenants"]["acme"]["policies"] = [document]
    return raw


@pytest.mark.parametrize(
    ("severity", "given"), [("high", "'high'"), (11, "11"), (-1, "-1"), (None, "None")]
)
def test_a_bad_severity_names_the_value_and_the_range(severity: Any, given: str) -> None:
    """A severity that is no number, or out of range, is refused with the field, the value
    given and the range allowed (pydantic alone says "Input should be a valid number")."""
    problems = _problems(_one_policy_config(policy("p", severity=severity)))
    assert problems == [
        f"tenants.acme.policies[0] (policy 'p'): severity: expected a number from 0 to 10, "
        f"got {given}"
    ]


def test_bad_numeric_settings_name_the_value_and_the_range() -> None:
    """Whole-number settings and key settings say so, with their range and the value given."""
    raw = config(retrieval_top_k="six", min_relevance=2, default_rate_limit_per_minute=0)
    raw["keys"][0]["settings"] = {"conversation_ttl_seconds": 30}
    problems = _problems(raw)
    assert "settings: retrieval_top_k: expected a whole number from 1 to 100, got 'six'" in (
        problems
    )
    assert "settings: min_relevance: expected a number from 0 to 1, got 2" in problems
    assert (
        "settings: default_rate_limit_per_minute: expected a whole number of at least 1, got 0"
        in problems
    )
    assert any(
        p.endswith(
            "settings.conversation_ttl_seconds: expected a whole number from 300 to 604800, got 30"
        )
        for p in problems
    ), problems


@pytest.mark.parametrize("pattern", [r"\bfoo(?=bar)", r"foo(?!bar)", r"(?<=\$)\d+", r"(?<!x)y"])
def test_a_look_around_regex_says_re2_has_none_and_what_to_do(pattern: str) -> None:
    """RE2 says only "invalid perl operator: (?="; the ConfigError adds that RE2 has no
    look-around and how to do without it."""
    (problem,) = _problems(_one_policy_config(policy("p", detect=[{"regex": pattern}])))
    assert problem.startswith(
        "tenants.acme.policies[0] (policy 'p'): detect[0].regex: regex does not compile "
        "(RE2 syntax): invalid perl operator: (?"
    )
    assert "RE2 has no look-around" in problem
    assert "match the context as part of the pattern" in problem


def test_a_backreference_says_re2_has_none() -> None:
    """A backreference is refused saying RE2 has none; other syntax errors get no such hint."""
    (problem,) = _problems(_one_policy_config(policy("p", detect=[{"regex": r"(a)\1"}])))
    assert "invalid escape sequence: \\1; RE2 has no backreferences" in problem
    (problem,) = _problems(_one_policy_config(policy("p", detect=[{"regex": "a(?>b)"}])))
    assert problem.endswith("invalid perl operator: (?>")


# --- docs/configuration.md stays true ---------------------------------------------------------

CONFIGURATION_DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def _doc_section(title: str) -> str:
    text = CONFIGURATION_DOC.read_text(encoding="utf-8")
    assert f"\n{title}\n" in text, f"docs/configuration.md lost its section {title!r}"
    return text.split(f"\n{title}\n", 1)[1].split("\n## ", 1)[0]


def _example_policy_files() -> list[str]:
    blocks = re.findall(
        r"^```yaml\n(.*?)^```",
        _doc_section("## Example policy files, one per rule kind"),
        re.M | re.S,
    )
    assert blocks, "no example policy file in docs/configuration.md"
    return blocks


def test_every_example_policy_file_of_the_docs_loads(tmp_path: Path) -> None:
    """Each example policy file of docs/configuration.md, saved as a file, loads through
    Governance.from_config; together they show every kind of rule."""
    directory = tmp_path / "policies"
    directory.mkdir()
    for number, block in enumerate(_example_policy_files()):
        (directory / f"{number:02}.yaml").write_text(block, encoding="utf-8")
        single = tmp_path / f"single-{number:02}.yaml"
        single.write_text(
            yaml.safe_dump(
                {
                    "tenants": {"acme": {"policies": f"policies/{number:02}.yaml"}},
                    "keys": [{"key": "gk_docs_example_key", "tenant": "acme"}],
                }
            ),
            encoding="utf-8",
        )
        with govcore.Governance.from_config(single) as gov:
            assert len(gov.policy_set("acme").policies) == 1, block
    loaded = load_config({"tenants": {"acme": {"policies": str(directory)}}, "keys": []})
    documents = loaded.tenants["acme"].policies
    rules = [rule for d in documents for rule in d.detect]
    tool_rules = [rule for d in documents for rule in d.tools]
    assert {
        kind for rule in rules for kind in ("regex", "terms", "pii") if getattr(rule, kind)
    } == {
        "regex",
        "terms",
        "pii",
    }
    assert any(rule.deny for rule in tool_rules)
    argument_checks = {
        check
        for rule in tool_rules
        if rule.argument
        for check in ("max", "min", "one_of", "detect")
        if getattr(rule, check) is not None
    }
    assert argument_checks == {"max", "min", "one_of", "detect"}


# Settings whose defaults may live in a backend's own settings rather than in GovernanceSettings
# (the configuration key stays the same): documented, but their defaults are looked up leniently.
# Defaults decided when the backend starts (None in the model): the docs name the place.
_DEFAULTS_ELSEWHERE = frozenset({"embedding_cache_dir"})


def _documented_settings() -> dict[str, str]:
    """Each setting of the table in docs/configuration.md's "Settings" section, with the
    default it documents (as written)."""
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \|", _doc_section("## Settings"), re.M)
    return dict(rows)


def _default_of(setting: str) -> Any:
    """The default of a setting, from the shared settings or from the settings model of the
    backend that owns it, as shipped (not as a run on another engine replaced it);
    ``LookupError`` when no one defines it."""
    if setting in SHIPPED_DEFAULTS:
        return SHIPPED_DEFAULTS[setting]
    field = GovernanceSettings.model_fields.get(setting)
    if field is None:
        owners = settings_models([setting])
        field = next((model.model_fields[setting] for model in owners), None)
    if field is None:
        raise LookupError(setting)
    return field.get_default(call_default_factory=True)


def _parse_documented_default(text: str) -> Any:
    value = text.strip().strip("`")
    if value == "none":
        return None
    if value in {"true", "false"}:
        return value == "true"
    try:
        return json.loads(value)  # numbers, {} and []
    except json.JSONDecodeError:
        return value


def test_every_setting_is_documented_with_its_default() -> None:
    """The Settings table of docs/configuration.md lists every setting with the default the
    code has; a setting whose default is decided elsewhere (None) is documented as `none` or
    as where it comes from ("the retriever's ...")."""
    documented = _documented_settings()
    missing = (set(GovernanceSettings.model_fields) | _DEFAULTS_ELSEWHERE) - set(documented)
    assert not missing, f"settings missing from docs/configuration.md: {sorted(missing)}"
    mismatches = []
    for setting, text in documented.items():
        try:
            default = _default_of(setting)
        except LookupError:
            if setting in _DEFAULTS_ELSEWHERE:
                continue
            mismatches.append(f"{setting}: documented, but no such setting")
            continue
        if default is None:
            if setting in _DEFAULTS_ELSEWHERE or text == "none" or text.startswith("the "):
                continue
        elif _parse_documented_default(text) == default:
            continue
        mismatches.append(f"{setting}: docs say {text!r}, the code's default is {default!r}")
    assert not mismatches, "docs/configuration.md disagrees with GovernanceSettings:\n" + "\n".join(
        mismatches
    )
