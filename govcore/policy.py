"""The policy document format (docs/configuration.md) and the compiled policy set of a tenant."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, get_args

import re2  # type: ignore[import-untyped]
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from govcore._values import json_equal
from govcore.pattern_cost import pattern_cost
from govcore.pii_markets import resolve_pii
from govcore.text_rules import MAX_ID_LENGTH, check_identifier

__all__ = [
    "PII_KINDS",
    "Condition",
    "Conditions",
    "DetectRule",
    "Enforcement",
    "PiiKind",
    "PolicyDocument",
    "PolicySet",
    "ToolCallDetection",
    "ToolRule",
    "compile_regex",
    "judge_condition",
]


Enforcement = Literal["fix", "warning", "audit"]
"""How a policy is enforced; its violations carry it as their ``enforcementType``."""

ToolCallDetection = Literal["always", "whenActive"]
"""When a policy's ``detect`` rules read tool-call arguments (``detectInToolCalls``): on every
tool call of the tenant, or only in sessions where the policy is active (or ``alwaysOn``)."""

# The names of the built-in detectors' registry (govcore/detection/detectors), in its order. A
# Literal written out, not derived, so that type checkers and the config's error message know
# them; tests/detection/test_detectors.py checks that it is the registry's list.
PiiKind = Literal[
    "email",
    "credit_card",
    "iban",
    "phone",
    "us_ssn",
    "ip_address",
    "secret",
    "uk_nino",
    "uk_nhs",
    "uk_passport",
    "uk_driving_licence",
    "es_nif",
    "es_nie",
    "it_fiscal_code",
    "it_vat_code",
    "pl_pesel",
    "fi_personal_identity_code",
    "se_personnummer",
    "de_tax_id",
    "de_social_security",
    "de_id_card",
    "in_pan",
    "in_aadhaar",
    "in_gstin",
    "au_tfn",
    "au_abn",
    "au_acn",
    "au_medicare",
    "sg_nric_fin",
    "sg_uen",
    "kr_rrn",
    "th_tnin",
    "tr_national_id",
    "ca_sin",
    "ng_nin",
    "ph_tin",
    "aba_routing",
    "mac_address",
    "crypto",
]
PII_KINDS: tuple[str, ...] = get_args(PiiKind)

DEFAULT_RULE_CONFIDENCE = 0.9

# A dotted argument path: names separated by dots, each optionally followed by [*] or [n].
_ARGUMENT_PATH = re.compile(r"^[^.\[\]]+(\[(\*|\d+)\])*(\.[^.\[\]]+(\[(\*|\d+)\])*)*$")

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would otherwise print parse errors to stderr


# What RE2 leaves out on purpose, since it keeps matching linear in the text: RE2's own message
# names only the operator, which reads like a typo to an author used to PCRE or Python.
_LOOKAROUND_HINT = (
    "; RE2 has no look-around ((?=, (?!, (?<=, (?<!): match the context as part of the pattern "
    "instead (foo(?=bar) as foobar, whose match then covers bar too), or use a terms rule for "
    "whole words"
)
_BACKREFERENCE_HINT = "; RE2 has no backreferences (\\1): spell out the repeated text"


def _hint(reason: str) -> str:
    if reason.startswith("invalid perl operator: (?") and reason[-1] in "=!":
        return _LOOKAROUND_HINT
    if reason.startswith("invalid escape sequence: \\") and reason[-1:].isdigit():
        return _BACKREFERENCE_HINT
    return ""


def compile_regex(pattern: str) -> Any:
    """Compile a policy author's pattern with RE2 (linear-time matching whatever the pattern).

    Raises:
        ValueError: the pattern is not valid RE2 syntax, or costs more than checks may spend
            (:mod:`govcore.pattern_cost`).
    """
    try:
        compiled = re2.compile(pattern, options=_RE2_OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ValueError(
            f"regex does not compile (RE2 syntax): {reason}{_hint(str(reason))}"
        ) from None
    refusal = pattern_cost(pattern).refusal
    if refusal is not None:
        raise ValueError(refusal)
    return compiled


class _DocumentModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=False,
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        frozen=True,
    )


Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
Scalar = str | int | float | bool | None


class DetectRule(_DocumentModel):
    """What counts as a violation: exactly one of ``regex``, ``terms`` or ``pii``."""

    regex: Annotated[str, Field(min_length=1)] | None = None
    terms: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)] | None = None
    # A kind, a market (govcore/pii_markets.py) or a list of them, kept as written; the kinds
    # they stand for are ``pii_kinds``.
    pii: str | Annotated[list[str], Field(min_length=1)] | None = None
    confidence: Confidence = DEFAULT_RULE_CONFIDENCE
    replacement: str | None = None
    explanation: str | None = None

    @field_validator("regex")
    @classmethod
    def _regex_compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            compile_regex(pattern)
        return pattern

    @field_validator("pii", mode="before")
    @classmethod
    def _pii_is_names(cls, names: Any) -> Any:
        # One message for every wrong shape, rather than pydantic's one per member of the union.
        if names is None or isinstance(names, str):
            return names
        if isinstance(names, list) and names and all(isinstance(name, str) for name in names):
            return names
        raise ValueError(
            "pii must be a PII kind or market, or a non-empty list of them (pii: [uk, eu])"
        )

    @field_validator("pii")
    @classmethod
    def _pii_names_are_known(cls, names: str | list[str] | None) -> str | list[str] | None:
        if names is not None:
            resolve_pii([names] if isinstance(names, str) else names, PII_KINDS)
        return names

    @property
    def pii_kinds(self) -> tuple[str, ...]:
        """The built-in kinds the ``pii`` field enables (its markets resolved), each once, in
        the registry's order; empty for a regex or terms rule."""
        if self.pii is None:
            return ()
        return resolve_pii([self.pii] if isinstance(self.pii, str) else self.pii, PII_KINDS)

    @field_validator("terms")
    @classmethod
    def _terms_have_words(cls, terms: list[str] | None) -> list[str] | None:
        if terms is not None and any(not term.strip() for term in terms):
            raise ValueError("terms must not be blank")
        return terms

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> DetectRule:
        kinds = [k for k in ("regex", "terms", "pii") if getattr(self, k) is not None]
        if len(kinds) != 1:
            found = ", ".join(kinds) if kinds else "none"
            raise ValueError(
                f"a detect rule needs exactly one of regex, terms, pii (found {found})"
            )
        return self


class ToolRule(_DocumentModel):
    """A constraint on tool calls: ``deny: true``, or ``argument`` with checks on its value."""

    tool: Annotated[str, Field(min_length=1)]
    deny: bool | None = None
    argument: str | None = None
    max: float | None = None
    min: float | None = None
    one_of: Annotated[list[Scalar], Field(min_length=1)] | None = None
    detect: list[DetectRule] | None = None
    confidence: Confidence = DEFAULT_RULE_CONFIDENCE
    explanation: str | None = None

    @field_validator("argument")
    @classmethod
    def _argument_is_a_path(cls, path: str | None) -> str | None:
        if path is not None and not _ARGUMENT_PATH.match(path):
            raise ValueError(f"{path!r} is not a dotted argument path such as 'items[*].amount'")
        return path

    @model_validator(mode="after")
    def _deny_or_argument(self) -> ToolRule:
        checks = [k for k in ("max", "min", "one_of", "detect") if getattr(self, k) is not None]
        if self.deny is not None and not self.deny:
            raise ValueError("deny, when given, must be true")
        if self.deny and self.argument is not None:
            raise ValueError("a tool rule has either deny: true or argument, not both")
        if self.deny and checks:
            raise ValueError("deny: true takes no max, min, oneOf or detect")
        if not self.deny and self.argument is None:
            raise ValueError("a tool rule needs deny: true or an argument")
        if self.argument is not None and not checks:
            raise ValueError("an argument rule needs at least one of max, min, oneOf, detect")
        if self.max is not None and self.min is not None and self.min > self.max:
            raise ValueError("min is greater than max")
        return self


class PolicyDocument(_DocumentModel):
    """One written policy, as a policy author writes it (docs/configuration.md).

    ``examples`` is govcore's own addition: phrasings of end-user messages the policy is about,
    indexed for retrieval only (see docs/retrieval.md).
    """

    # Policy ids reach API answers, injection blocks and logs: the identifier rule of requests.
    id: Annotated[
        str, Field(min_length=1, max_length=MAX_ID_LENGTH), AfterValidator(check_identifier)
    ]
    title: Annotated[str, Field(min_length=1)]
    summary: str
    text: str = ""
    severity: Annotated[float, Field(ge=0.0, le=10.0)]
    enforcement: Enforcement
    citation_ref: Annotated[str, Field(min_length=1)]
    tags: list[str] = Field(default_factory=list)
    area: Annotated[str, Field(min_length=1)] | None = None
    always_on: bool = False
    applies_when: dict[str, Scalar | list[Scalar]] | None = None
    examples: list[str] = Field(default_factory=list)
    detect: list[DetectRule] = Field(default_factory=list)
    # "always" by default: a selection miss must not let a card number out through a tool
    # (docs/decisions/tool-calls.md).
    detect_in_tool_calls: ToolCallDetection = "always"
    tools: list[ToolRule] = Field(default_factory=list)

    @field_validator("severity")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("severity must be a finite number")
        return value

    def applies_to(self, attributes: Mapping[str, Any] | None) -> bool:
        """Whether ``appliesWhen`` matches the end user's attributes.

        Every entry must match: the attribute is present and equals the value (or one of the
        values, when a list is given); a list-valued attribute matches when any item does.
        """
        return self.judge_attributes(attributes) is True

    def judge_attributes(self, attributes: Mapping[str, Any] | None) -> bool | None:
        """What the end user's attributes say of ``appliesWhen``, when they say anything.

        ``True`` when every entry matches (always, for a policy without ``appliesWhen``);
        ``False`` when an attribute it names is present with no allowed value; ``None`` when
        they decide neither way: no attribute it names is present, or those present match but
        another named one is missing. :meth:`applies_to` reads ``None`` as no match; a
        conversation keeps its last decision instead (docs/decisions/applies-when.md).
        """
        if not self.applies_when:
            return True
        return judge_condition(self.applies_when, attributes)


Condition = Mapping[str, Scalar | list[Scalar]]
"""An ``appliesWhen`` mapping: attribute name to a value or a list of values."""


def judge_condition(condition: Condition, attributes: Mapping[str, Any] | None) -> bool | None:
    """What ``attributes`` decide of ``condition`` (as :meth:`PolicyDocument.judge_attributes`)."""
    missing = False
    for name, wanted in condition.items():
        if not attributes or name not in attributes:
            missing = True
            continue
        allowed = wanted if isinstance(wanted, list) else [wanted]
        have = attributes[name]
        values = have if isinstance(have, list) else [have]
        if not any(json_equal(v, a) for v in values for a in allowed):
            return False
    return None if missing else True


@dataclass(frozen=True, slots=True)
class Conditions:
    """The distinct ``appliesWhen`` conditions of a policy set, each named by a fingerprint
    (the first 12 hex digits of SHA-256 over its canonical JSON).

    Policies usually share a few conditions (a region, a tier), so what a turn's attributes
    decide is judged once per condition, not per policy, and a conversation stores one verdict
    per condition. A fingerprint also ties a stored verdict to the condition it judged: a
    policy whose ``appliesWhen`` changed has a new one, and so no verdict.
    """

    of_policy: Mapping[str, str]
    """Policy id to the fingerprint of its condition (policies with ``appliesWhen`` only)."""
    policies: Mapping[str, tuple[str, ...]]
    """Fingerprint to the ids of the policies with that condition."""
    naming: Mapping[str, tuple[tuple[str, Condition], ...]]
    """Attribute name to the conditions (fingerprint, condition) that name it."""

    @classmethod
    def of(cls, policies: Iterable[PolicyDocument]) -> Conditions:
        of_policy: dict[str, str] = {}
        by_fingerprint: dict[str, list[str]] = {}
        naming: dict[str, dict[str, Condition]] = {}
        for policy in policies:
            if not policy.applies_when:
                continue
            fingerprint = hashlib.sha256(canonical_json(policy.applies_when).encode()).hexdigest()
            fingerprint = fingerprint[:12]
            of_policy[policy.id] = fingerprint
            by_fingerprint.setdefault(fingerprint, []).append(policy.id)
            for name in policy.applies_when:
                naming.setdefault(name, {})[fingerprint] = policy.applies_when
        return cls(
            of_policy=of_policy,
            policies={fp: tuple(ids) for fp, ids in by_fingerprint.items()},
            naming={name: tuple(found.items()) for name, found in naming.items()},
        )

    def decided_by(self, attributes: Mapping[str, Any]) -> dict[str, bool]:
        """The verdict on each condition ``attributes`` decide, by fingerprint: only conditions
        naming one of the attributes are judged."""
        decided: dict[str, bool] = {}
        for name in attributes:
            for fingerprint, condition in self.naming.get(name, ()):
                if fingerprint not in decided:
                    judged = judge_condition(condition, attributes)
                    if judged is not None:
                        decided[fingerprint] = judged
        return decided


@dataclass(frozen=True, eq=False)
class PolicySet:
    """A tenant's validated policies, in document order, with a content version.

    Everything compiled from a policy set (retrieval index, detectors) is built once per
    ``version`` and reused by every request.
    """

    tenant: str
    policies: tuple[PolicyDocument, ...]
    language: str = "english"
    """The language of the policies and of the tenant's conversations (text analysis)."""
    label: str | None = None
    """A name its authors gave this version (a release name, a commit), or ``None``; it is
    reported beside :attr:`version` and is not part of it."""
    version: str = field(init=False)
    """The content hash: equal policies (and language) give an equal version, whatever their
    label or tenant."""
    by_id: Mapping[str, PolicyDocument] = field(init=False, repr=False)
    position: Mapping[str, int] = field(init=False, repr=False)
    always_on: tuple[int, ...] = field(init=False, repr=False)
    conditions: Conditions = field(init=False, repr=False)

    def __post_init__(self) -> None:
        digest = hashlib.sha256(f"{self.language}\n".encode())
        for policy in self.policies:
            digest.update(policy.model_dump_json(by_alias=True).encode())
            digest.update(b"\n")
        object.__setattr__(self, "version", digest.hexdigest()[:16])
        object.__setattr__(self, "by_id", {p.id: p for p in self.policies})
        object.__setattr__(self, "position", {p.id: i for i, p in enumerate(self.policies)})
        object.__setattr__(
            self, "always_on", tuple(i for i, p in enumerate(self.policies) if p.always_on)
        )
        object.__setattr__(self, "conditions", Conditions.of(self.policies))

    @classmethod
    def from_documents(cls, tenant: str, documents: Iterable[Mapping[str, Any]]) -> PolicySet:
        """Validate raw policy documents (wire field names) into a policy set.

        Raises:
            pydantic.ValidationError: a document is invalid.
            ValueError: two documents share an id.
        """
        policies = tuple(PolicyDocument.model_validate(doc) for doc in documents)
        seen: set[str] = set()
        for policy in policies:
            if policy.id in seen:
                raise ValueError(f"duplicate policy id {policy.id!r}")
            seen.add(policy.id)
        return cls(tenant, policies)

    def __len__(self) -> int:
        return len(self.policies)


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
