"""Loading and validating a govcore configuration (docs/configuration.md).

A configuration is a mapping (as parsed from YAML or JSON) or the path of a YAML or JSON file.
Policies are given inline, or as the path (relative to the config file) of a file or directory of
YAML/JSON policy documents. Validation collects every problem before raising one
:class:`~govcore.errors.ConfigError` that names each place (file, tenant, policy id, field) and
reason, so ``govcore validate`` can print them all at once.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from govcore._suggest import field_at, field_path, unknown_field, unknown_field_at
from govcore.backends import backend_settings_keys, settings_models
from govcore.errors import ConfigError, ConfigProblem
from govcore.policy import PolicyDocument, PolicySet
from govcore.retrieval.analysis import DEFAULT_LANGUAGE, languages
from govcore.retrieval.lexicon import load_lexicon, shipped_lexicons
from govcore.settings import GovernanceSettings, SettingsSection, TtlSeconds, _ConfigModel
from govcore.text_rules import MAX_ID_LENGTH, check_identifier

__all__ = [
    "DEFAULT_SCOPES",
    "MAX_CONFIG_DEPTH",
    "MAX_LABEL_CHARS",
    "SCOPES",
    "GovernanceSettings",
    "KeyConfig",
    "KeySettings",
    "LoadedConfig",
    "ShadowConfig",
    "config_sources",
    "load_config",
    "load_settings",
    "policy_files",
]

Scope = Literal[
    "governance:read", "governance:check", "policies:read", "policies:ack", "feedback:write"
]
SCOPES: tuple[str, ...] = get_args(Scope)
# The default scopes cover the whole API: read and check.
DEFAULT_SCOPES: frozenset[str] = frozenset({"governance:read", "governance:check"})

FeatureSetting = Literal["disabled", "allowed"]


class KeySettings(_ConfigModel):
    """Per-key feature settings (docs/api.md, Authentication and permissions; same names)."""

    post_inference_checking: FeatureSetting = "disabled"
    tool_call_governance: FeatureSetting = "disabled"
    conversation_ttl_seconds: TtlSeconds | None = None
    rate_limit_per_minute: Annotated[int, Field(ge=1)] | Literal["unlimited"] | None = None
    """Requests per minute. Absent or ``null``: ``settings.default_rate_limit_per_minute``;
    ``unlimited``: no rate limit, for a trusted in-process caller (an agent framework's adapter
    running scenarios, a benchmark). A word rather than ``null``, which has always meant the
    default: a blank value in a file must never switch a limit off."""
    rationale_required: bool = False

    @property
    def rate_limited(self) -> bool:
        """Whether the key's requests are rate limited: all but those of a key that sets
        ``rate_limit_per_minute: unlimited``."""
        return self.rate_limit_per_minute != "unlimited"


class KeyConfig(_ConfigModel):
    """One API key: its secret (or the secret's SHA-256), tenant, scopes and settings."""

    key: Annotated[str, Field(min_length=8)] | None = None
    key_sha256: Annotated[str, Field(pattern=r"^[0-9a-fA-F]{64}$")] | None = None
    tenant: Annotated[str, Field(min_length=1)]
    scopes: list[Scope] | None = None
    revoked: bool = False
    settings: KeySettings = KeySettings()

    @field_validator("key")
    @classmethod
    def _sendable(cls, key: str | None) -> str | None:
        # A key is compared exactly after a header's spaces and tabs are removed: one that
        # starts or ends with whitespace, or holds a control, could never be presented.
        if key is not None:
            if key != key.strip():
                raise ValueError("a key must not start or end with whitespace")
            check_identifier(key)
        return key

    @model_validator(mode="after")
    def _one_secret(self) -> KeyConfig:
        if (self.key is None) == (self.key_sha256 is None):
            raise ValueError("a key needs exactly one of key or key_sha256")
        return self

    @property
    def digest(self) -> bytes:
        """SHA-256 of the secret: the only form govcore keeps in memory."""
        if self.key_sha256 is not None:
            return bytes.fromhex(self.key_sha256)
        assert self.key is not None
        return hashlib.sha256(self.key.encode()).digest()


@dataclass(frozen=True)
class LoadedConfig:
    """A validated configuration: settings, each tenant's policy set and the keys."""

    settings: GovernanceSettings
    tenants: Mapping[str, PolicySet]
    keys: tuple[KeyConfig, ...]
    shadows: Mapping[str, ShadowConfig] = field(default_factory=dict)
    """Per tenant that has one, the candidate policy set run in shadow (``tenants.<id>.shadow``)."""


@dataclass(frozen=True)
class ShadowConfig:
    """A candidate policy set run beside a tenant's live one on real traffic: its decisions
    are logged with their difference from the live ones, never answered."""

    policy_set: PolicySet
    sample_rate: float = 1.0
    """The share of conversations (by session id) whose requests the candidate also decides."""


MAX_CONFIG_DEPTH = 32
"""How deeply the mappings and lists of a configuration or policy document may nest. A real one
needs about ten levels; the bound keeps validation and error messages from recursing without
end on a hostile or generated document."""

_TOP_LEVEL = ("settings", "tenants", "keys")
_TENANT_FIELDS = ("policies", "language", "label", "shadow")
_SHADOW_FIELDS = ("policies", "label", "sample_rate")
MAX_LABEL_CHARS = 128
"""The longest policy-set label (``tenants.<id>.label``): a name for people and log lines."""
_POLICY_SUFFIXES = (".yaml", ".yml", ".json")


def load_config(config: Mapping[str, Any] | str | os.PathLike[str]) -> LoadedConfig:
    """Validate a configuration mapping or file.

    Args:
        config: a mapping in the format of docs/configuration.md, or the path of a YAML or JSON
            file holding one. Relative policy paths are resolved against the file's directory
            (against the working directory for a mapping).

    Returns:
        The validated configuration.

    Raises:
        ConfigError: listing every problem found.
    """
    problems: list[ConfigProblem] = []
    if isinstance(config, Mapping):
        raw: Any = config
        base_dir = Path.cwd()
        origin = ""
    else:
        path = Path(config)
        origin = str(path)
        base_dir = path.parent
        try:
            raw = _read_document(path)
        except ConfigError as exc:
            raise exc from None
        if raw is None:
            raw = {}
    if not isinstance(raw, Mapping):
        raise ConfigError([ConfigProblem(origin, "the configuration must be a mapping")])
    too_deep = _nesting_problem(raw, origin)
    if too_deep is not None:
        # Nothing else is checked: validating such a document could itself recurse too deeply.
        raise ConfigError([too_deep])

    def place(where: str) -> str:
        return f"{origin}: {where}" if origin else where

    for name in raw:
        if name not in _TOP_LEVEL:
            problems.append(ConfigProblem(place(str(name)), unknown_field(str(name), _TOP_LEVEL)))

    settings = GovernanceSettings()
    if raw.get("settings") is not None:
        settings = _load_settings(raw["settings"], base_dir, place, problems)

    tenants: dict[str, PolicySet] = {}
    shadows: dict[str, ShadowConfig] = {}
    raw_tenants = raw.get("tenants")
    if raw_tenants is None:
        problems.append(ConfigProblem(place("tenants"), "required"))
        raw_tenants = {}
    elif not isinstance(raw_tenants, Mapping):
        problems.append(ConfigProblem(place("tenants"), "must be a mapping of tenant id to tenant"))
        raw_tenants = {}
    for tenant_id, tenant in raw_tenants.items():
        where = place(f"tenants.{tenant_id}")
        reason = _tenant_id_problem(tenant_id)
        if reason is not None:
            # The id is quoted: it may hold the line breaks or controls it is refused for.
            problems.append(ConfigProblem(place(f"tenants[{tenant_id!r:.80}]"), reason))
            continue
        policy_set = _load_tenant(
            str(tenant_id), tenant, where, base_dir, problems, settings.language
        )
        if policy_set is not None:
            tenants[tenant_id] = policy_set
        if isinstance(tenant, Mapping):  # the shadow is checked even when the live set is not
            shadow = _load_shadow(
                str(tenant_id), tenant.get("language", settings.language), tenant.get("shadow"),
                where, base_dir, problems,
            )  # fmt: skip
            if shadow is not None:
                shadows[tenant_id] = shadow

    keys = _load_keys(raw.get("keys"), place("keys"), raw_tenants, problems)
    if problems:
        raise ConfigError(problems)
    return LoadedConfig(settings=settings, tenants=tenants, keys=tuple(keys), shadows=shadows)


def config_sources(config: str | os.PathLike[str]) -> list[Path]:
    """What a configuration file reads besides itself, as it names them: its tenants' policy
    paths (live and shadow; a file or a folder), and its lexicon files. What a watcher looks
    at to tell that a configuration changed on disk. A configuration that cannot be read or
    parsed names nothing (loading it says what is wrong).
    """
    path = Path(config)
    try:
        raw = _read_document(path)
    except (ConfigError, OSError, ValueError):
        return []
    if not isinstance(raw, Mapping):
        return []
    base_dir = path.parent
    sources: list[Path] = []
    tenants = raw.get("tenants")
    for tenant in tenants.values() if isinstance(tenants, Mapping) else ():
        if not isinstance(tenant, Mapping):
            continue
        shadow = tenant.get("shadow")
        for owner in (tenant, shadow if isinstance(shadow, Mapping) else {}):
            source = owner.get("policies")
            if isinstance(source, str):
                sources.append(base_dir / source)
    settings = raw.get("settings")
    lexicons = settings.get("lexicons") if isinstance(settings, Mapping) else None
    for name in lexicons if isinstance(lexicons, list) else ():
        if isinstance(name, str) and name not in shipped_lexicons():
            sources.append(base_dir / name)
    return sources


def policy_files(folder: Path) -> list[Path]:
    """The policy files of a folder, as the loader reads them (by name)."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in _POLICY_SUFFIXES)


def load_settings(
    raw: Mapping[str, Any], *, configuration_folder: Path | None = None
) -> GovernanceSettings:
    """Validate a ``settings:`` mapping alone: the shared keys and the backends' own.

    Args:
        raw: the mapping, as in a configuration.
        configuration_folder: what relative paths in it are relative to (lexicon files, the
            ``hybrid`` retriever's model folder and cache); default the working directory.

    Raises:
        ConfigError: listing every problem found.
    """
    problems: list[ConfigProblem] = []
    settings = _load_settings(raw, configuration_folder or Path.cwd(), str, problems)
    if problems:
        raise ConfigError(problems)
    return settings


def _load_settings(
    raw: Any, base_dir: Path, place: Callable[[str], str], problems: list[ConfigProblem]
) -> GovernanceSettings:
    """The shared settings, validated, carrying the sections of the backends whose keys
    ``raw`` holds (docs/decisions/backend-settings.md); the problems go to ``problems``."""
    settings = GovernanceSettings()
    shared = raw  # not a mapping: pydantic says what it must be
    if isinstance(raw, Mapping):
        shared = {k: v for k, v in raw.items() if k in GovernanceSettings.model_fields}
    try:
        settings = GovernanceSettings.model_validate(shared)
    except ValidationError as exc:
        problems.extend(_problems(exc, place("settings"), GovernanceSettings))
        valid = False
    else:
        settings = _resolve_lexicons(settings, base_dir, place, problems)
        valid = True
    if not isinstance(raw, Mapping):
        return settings
    others = {k: v for k, v in raw.items() if k not in GovernanceSettings.model_fields}
    named = [k for k in others if isinstance(k, str)]
    owners = settings_models(named, settings if valid else None)
    owned = {key for keys in owners.values() for key in keys}
    unknown = [k for k in others if k not in owned]
    if unknown:
        known = [*GovernanceSettings.model_fields, *backend_settings_keys()]
        for name in unknown:
            where = place(f"settings: {name}")
            problems.append(ConfigProblem(where, unknown_field(str(name), known)))
    sections: list[SettingsSection] = []
    for model, keys in owners.items():
        try:
            sections.append(
                model.model_validate(
                    {key: others[key] for key in keys},
                    context={"configuration_folder": base_dir},
                )
            )
        except ValidationError as exc:
            problems.extend(_problems(exc, place("settings"), model))
    return settings.with_sections(sections)


def _resolve_lexicons(
    settings: GovernanceSettings,
    base_dir: Path,
    place: Callable[[str], str],
    problems: list[ConfigProblem],
) -> GovernanceSettings:
    """Lexicon files resolved against the configuration's folder; each lexicon readable."""
    resolved: list[str] = []
    for i, name in enumerate(settings.lexicons):
        entry = name if name in shipped_lexicons() else str(base_dir / name)
        try:
            load_lexicon(entry)
        except (ValueError, OSError) as exc:
            problems.append(ConfigProblem(place(f"settings.lexicons[{i}]"), str(exc)))
        except Exception as exc:  # a YAML syntax error in the file
            problems.append(
                ConfigProblem(place(f"settings.lexicons[{i}]"), f"unreadable lexicon: {exc}")
            )
        resolved.append(entry)
    return settings.model_copy(update={"lexicons": resolved})


def _tenant_id_problem(tenant_id: object) -> str | None:
    """Why ``tenant_id`` cannot name a tenant, or ``None``: the identifier rule of requests."""
    if not isinstance(tenant_id, str) or not tenant_id:
        return "a tenant id must be a non-empty string"
    if len(tenant_id) > MAX_ID_LENGTH:
        return f"a tenant id has at most {MAX_ID_LENGTH} characters (this one has {len(tenant_id)})"
    try:
        check_identifier(tenant_id)
    except ValueError as exc:
        return f"the tenant id {exc}"
    return None


def _load_tenant(
    tenant_id: str,
    tenant: Any,
    where: str,
    base_dir: Path,
    problems: list[ConfigProblem],
    default_language: str,
) -> PolicySet | None:
    if not isinstance(tenant, Mapping):
        problems.append(ConfigProblem(where, "a tenant must be a mapping with 'policies'"))
        return None
    for name in tenant:
        if name not in _TENANT_FIELDS:
            problems.append(
                ConfigProblem(f"{where}.{name}", unknown_field(str(name), _TENANT_FIELDS))
            )
    language = tenant.get("language", default_language)
    if not isinstance(language, str) or language not in languages():
        problems.append(
            ConfigProblem(
                f"{where}.language",
                f"unknown language {language!r} (one of: {', '.join(languages())})",
            )
        )
    version_label = _label(tenant.get("label"), f"{where}.label", problems)
    source = tenant.get("policies")
    sourced: list[tuple[str, Any]] = []  # (place, raw document)
    if source is None:
        problems.append(ConfigProblem(f"{where}.policies", "required"))
        return None
    if isinstance(source, str):
        sourced = _read_policy_path(base_dir / source, f"{where}.policies", problems)
    elif isinstance(source, list):
        sourced = [(f"{where}.policies[{i}]", doc) for i, doc in enumerate(source)]
    else:
        problems.append(
            ConfigProblem(f"{where}.policies", "must be a list of policy documents or a path")
        )
        return None

    documents: list[PolicyDocument] = []
    first_place: dict[str, str] = {}
    failed = False
    for doc_place, doc in sourced:
        label = doc_place
        if isinstance(doc, Mapping) and isinstance(doc.get("id"), str):
            label = f"{doc_place} (policy {doc['id']!r})"
        try:
            policy = PolicyDocument.model_validate(doc)
        except ValidationError as exc:
            problems.extend(_problems(exc, label, PolicyDocument))
            failed = True
            continue
        if policy.id in first_place:
            problems.append(
                ConfigProblem(
                    label, f"duplicate policy id {policy.id!r} (first at {first_place[policy.id]})"
                )
            )
            failed = True
            continue
        first_place[policy.id] = doc_place
        documents.append(policy)
    if failed:
        return None
    return PolicySet(tenant_id, tuple(documents), language=language, label=version_label)


def _load_shadow(
    tenant_id: str,
    language: Any,
    raw: Any,
    where: str,
    base_dir: Path,
    problems: list[ConfigProblem],
) -> ShadowConfig | None:
    """A tenant's ``shadow``: a candidate policy set in the tenant's language, and the share
    of conversations it also decides."""
    if raw is None:
        return None
    where = f"{where}.shadow"
    if not isinstance(raw, Mapping):
        problems.append(
            ConfigProblem(where, "must be a mapping with 'policies' (and 'label', 'sample_rate')")
        )
        return None
    for name in raw:
        if name not in _SHADOW_FIELDS:
            problems.append(
                ConfigProblem(f"{where}.{name}", unknown_field(str(name), _SHADOW_FIELDS))
            )
    rate = raw.get("sample_rate", 1.0)
    rate_ok = not isinstance(rate, bool) and isinstance(rate, int | float) and 0.0 < rate <= 1.0
    if not rate_ok:
        problems.append(
            ConfigProblem(
                f"{where}.sample_rate", f"must be a number above 0 and at most 1, not {rate!r}"
            )
        )
    if not isinstance(language, str) or language not in languages():
        language = DEFAULT_LANGUAGE  # the tenant's own problem, reported there
    candidate = {name: raw[name] for name in ("policies", "label") if name in raw}
    policy_set = _load_tenant(
        tenant_id, {**candidate, "language": language}, where, base_dir, problems, language
    )
    if policy_set is None or not rate_ok:
        return None
    return ShadowConfig(policy_set, float(rate))


def _label(raw: Any, where: str, problems: list[ConfigProblem]) -> str | None:
    """A tenant's policy-set label: text a log line can show as it is, or ``None``."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        problems.append(ConfigProblem(where, "must be non-empty text (a release name, a commit)"))
        return None
    if len(raw) > MAX_LABEL_CHARS:
        problems.append(ConfigProblem(where, f"is longer than {MAX_LABEL_CHARS} characters"))
        return None
    try:
        check_identifier(raw)
    except ValueError as exc:
        problems.append(ConfigProblem(where, f"the label {exc}"))
        return None
    return raw


def _read_policy_path(
    path: Path, where: str, problems: list[ConfigProblem]
) -> list[tuple[str, Any]]:
    if path.is_dir():
        files = policy_files(path)
        if not files:
            problems.append(ConfigProblem(str(path), "no .yaml, .yml or .json policy files here"))
    elif path.is_file():
        files = [path]
    else:
        problems.append(ConfigProblem(where, f"no such file or directory: {path}"))
        return []
    sourced: list[tuple[str, Any]] = []
    for file in files:
        try:
            content = _read_document(file)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        if content is None:
            continue
        too_deep = _nesting_problem(content, str(file))
        if too_deep is not None:
            problems.append(too_deep)
            continue
        if isinstance(content, Mapping) and set(content) == {"policies"}:
            content = content["policies"]
        if isinstance(content, list):
            sourced.extend((f"{file}[{i}]", doc) for i, doc in enumerate(content))
        elif isinstance(content, Mapping):
            sourced.append((str(file), content))
        else:
            problems.append(ConfigProblem(str(file), "must hold a policy document or a list"))
    return sourced


def _load_keys(
    raw_keys: Any, where: str, tenants: Mapping[Any, Any], problems: list[ConfigProblem]
) -> list[KeyConfig]:
    if raw_keys is None:
        return []
    if not isinstance(raw_keys, list):
        problems.append(ConfigProblem(where, "must be a list of keys"))
        return []
    keys: list[KeyConfig] = []
    seen: dict[bytes, int] = {}
    for index, raw_key in enumerate(raw_keys):
        key_place = f"{where}[{index}]"
        try:
            key = KeyConfig.model_validate(raw_key)
        except ValidationError as exc:
            problems.extend(_problems(exc, key_place, KeyConfig))
            continue
        if key.tenant not in tenants:
            problems.append(ConfigProblem(f"{key_place}.tenant", f"unknown tenant {key.tenant!r}"))
        if key.digest in seen:
            problems.append(
                ConfigProblem(key_place, f"the same secret as {where}[{seen[key.digest]}]")
            )
        seen.setdefault(key.digest, index)
        keys.append(key)
    return keys


def _read_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([ConfigProblem(str(path), f"cannot read: {exc.strerror}")]) from None
    except UnicodeDecodeError:
        raise ConfigError([ConfigProblem(str(path), "not UTF-8 text")]) from None
    import yaml  # only configurations read from YAML files pay for its import (about 9 ms)

    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise ConfigError([ConfigProblem(str(path), reason)]) from None
    except RecursionError:
        # The parsers recurse once per level: far deeper than MAX_CONFIG_DEPTH never parses.
        reason = f"nested too deeply (the limit is {MAX_CONFIG_DEPTH} levels)"
        raise ConfigError([ConfigProblem(str(path), reason)]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([ConfigProblem(str(path), f"invalid YAML{at}: {problem}")]) from None


def _nesting_problem(document: Any, origin: str) -> ConfigProblem | None:
    """The first place where ``document`` nests deeper than ``MAX_CONFIG_DEPTH``, if any.

    YAML anchors let one list or mapping appear in many places, and even inside itself. Each
    container is therefore explored again only when reached deeper than before (at most
    ``MAX_CONFIG_DEPTH`` times), so a document of shared references costs time in proportion
    to its size, not to its unfolded size; a cycle gets deeper on every turn and is reported.
    """
    explored: dict[int, int] = {}  # id of a container -> deepest level it was found fine at

    def walk(value: Any, depth: int) -> list[str | int] | None:
        if isinstance(value, Mapping):
            items: Any = value.items()
        elif isinstance(value, list | tuple):
            items = enumerate(value)
        else:
            return None
        if depth > MAX_CONFIG_DEPTH:
            return []
        if explored.get(id(value), 0) >= depth:
            return None
        for step, item in items:
            path = walk(item, depth + 1)
            if path is not None:
                path.append(step)
                return path
        explored[id(value)] = depth
        return None

    path = walk(document, 1)
    if path is None:
        return None
    where = ""
    for step in reversed(path):
        if isinstance(step, int):
            where += f"[{step}]"
        else:
            name = str(step)
            name = name if len(name) <= 40 else f"{name[:40]}…"
            where += f".{name}" if where else name
    location = f"{origin}: {where}" if origin and where else origin or where
    return ConfigProblem(location, f"nested more than {MAX_CONFIG_DEPTH} levels deep")


def _problems(exc: ValidationError, where: str, model: type[BaseModel]) -> list[ConfigProblem]:
    found = []
    for error in exc.errors(include_url=False):
        field = field_path(error["loc"])
        message = _reason(error, model)
        location = f"{where}: {field}" if field else where
        found.append(ConfigProblem(location, message))
    return found


def _reason(error: Mapping[str, Any], model: type[BaseModel]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return unknown_field_at(model, error["loc"])
    if kind == "missing":
        return "required"
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if kind in {"literal_error", "enum"}:
        return f"{message} (got {error.get('input')!r})"
    if kind in _NUMBER_ERRORS:
        expected = _expected_number(field_at(model, error["loc"]))
        if expected is not None:
            return f"expected {expected}, got {error.get('input')!r}"
    return message


# pydantic's errors for a number of the wrong type or out of its range: their messages name
# neither the value given nor the range allowed ("Input should be a valid number").
_NUMBER_ERRORS = frozenset(
    {
        "float_parsing",
        "float_type",
        "int_parsing",
        "int_type",
        "int_from_float",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
    }
)


def _expected_number(field: FieldInfo | None) -> str | None:
    """What a numeric field takes, with its range: "a number from 0 to 10"."""
    if field is None:
        return None
    types: set[object] = set()
    constraints: list[object] = list(field.metadata)
    for option in (field.annotation, *get_args(field.annotation)):
        # An optional field's range sits on its union member: Annotated[int, Field(ge=1)] | None.
        types.add(getattr(option, "__origin__", option))
        for item in getattr(option, "__metadata__", ()):
            constraints.extend(item.metadata if isinstance(item, FieldInfo) else [item])
    if int in types and float not in types:
        noun = "a whole number"
    elif float in types:
        noun = "a number"
    else:
        return None
    bounds = _bounds(constraints)
    return f"{noun} {bounds}" if bounds else noun


def _bounds(constraints: Sequence[object]) -> str:
    """A range in words from annotated-types constraints: "from 0 to 10", "of at least 1"."""
    found = {}
    for item in constraints:
        for name in ("ge", "gt", "le", "lt"):
            value = getattr(item, name, None)
            if value is not None:
                found[name] = f"{value:g}"
    if "ge" in found and "le" in found:
        return f"from {found['ge']} to {found['le']}"
    words = {"ge": "of at least", "gt": "above", "le": "of at most", "lt": "below"}
    return " and ".join(f"{words[name]} {value}" for name, value in found.items())
