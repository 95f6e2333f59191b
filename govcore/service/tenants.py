"""Everything requests need from a tenant's policy set, compiled once per policy-set version."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from govcore.core.gating import CompiledToolRule, DetectScope, compile_tool_rules
from govcore.core.selection import retrieval_depth, select_policies
from govcore.detection.scanner import DetectionEngine, EngineFallback, Scanner, compile_rules
from govcore.detection.secrets import SecretOptions
from govcore.errors import ConfigError, GovcoreError
from govcore.policy import PolicyDocument, PolicySet
from govcore.service.wire import PolicyViews, policy_views
from govcore.types import RetrievalIndex, Retriever

__all__ = [
    "CompiledTenant",
    "ExampleMiss",
    "compile_tenants",
    "examples_that_miss",
    "satisfying_attributes",
]

# RE2 builds its automata lazily: a first scan at compile time keeps that off a caller's time.
_WARM_UP_TEXT = (
    "Reach me at a@example.com or +1 415 555 0100; card 4111 1111 1111 1111; "
    "export DB_PASSWORD=Zq8mLx2vR9tYp4w"  # compiles the secret assignment patterns now
)


@dataclass(frozen=True, slots=True)
class CompiledTenant:
    """A tenant's policy set with its retrieval index, scanner, policy maps and tool rules."""

    policy_set: PolicySet
    index: RetrievalIndex
    scanner: Scanner
    policies_by_area: Mapping[str, frozenset[str]]  # area -> ids of its policies
    tool_rules: tuple[CompiledToolRule, ...]
    detect_scope: DetectScope  # whose detect rules read a tool call's arguments
    views: PolicyViews  # the policies as the API shows them, by id

    def policies_in_areas(self, areas: frozenset[str] | None) -> frozenset[str] | None:
        """The ids of the policies in ``areas`` (``None``: every policy)."""
        if areas is None:
            return None
        return frozenset().union(*(self.policies_by_area.get(area, ()) for area in areas))


def compile_tenants(
    policy_sets: Mapping[str, PolicySet],
    retriever_for: Callable[[str], Retriever],
    secret_options: SecretOptions | None = None,
    engine: DetectionEngine = "re2",
    compiled: Mapping[str, CompiledTenant] | None = None,
) -> dict[str, CompiledTenant]:
    """Compile each tenant's policy set, indexed by the retriever of its language; tenants
    whose policies (and language) are identical share the work. ``secret_options``: the known
    values the ``secret`` detector does not report, and ``engine`` the detection engine (both
    from the settings). ``compiled``: tenants compiled already with the same retrievers and
    settings (a reload's previous configuration), reused for the policy sets whose version
    they have, so a reload compiles only what changed."""
    by_version: dict[str, CompiledTenant] = {
        tenant.policy_set.version: tenant for tenant in (compiled or {}).values()
    }
    tenants: dict[str, CompiledTenant] = {}
    for tenant_id, policy_set in policy_sets.items():
        built = by_version.get(policy_set.version)
        if built is None:
            try:
                built = by_version[policy_set.version] = _compile(
                    policy_set, retriever_for(policy_set.language), secret_options, engine
                )
            except GovcoreError:
                raise
            except Exception as exc:  # a retriever that cannot index is a setup problem
                raise ConfigError(
                    f"tenants.{tenant_id}: the retriever could not index its policies "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
        tenants[tenant_id] = (
            built if built.policy_set is policy_set else replace(built, policy_set=policy_set)
        )
    return tenants


def _compile(
    policy_set: PolicySet,
    retriever: Retriever,
    secret_options: SecretOptions | None,
    engine: DetectionEngine,
) -> CompiledTenant:
    scanner = compile_rules(
        ((policy, rule) for policy in policy_set.policies for rule in policy.detect),
        secret_options=secret_options,
        engine=engine,
    )
    by_area: dict[str, set[str]] = {}
    for policy in policy_set.policies:
        if policy.area is not None:
            by_area.setdefault(policy.area, set()).add(policy.id)
    scanner.scan(_WARM_UP_TEXT)
    return CompiledTenant(
        policy_set=policy_set,
        index=retriever.index(policy_set.policies),
        scanner=scanner,
        policies_by_area={area: frozenset(ids) for area, ids in by_area.items()},
        tool_rules=compile_tool_rules(policy_set.policies, secret_options, engine),
        detect_scope=DetectScope.of(policy_set.policies),
        views=policy_views(policy_set),
    )


@dataclass(frozen=True, slots=True)
class ExampleMiss:
    """A policy's ``examples`` phrase that, sent as a message, does not select its policy."""

    tenant: str
    policy_id: str
    example: str
    selected: tuple[str, ...]  # what the phrase selects instead


def examples_that_miss(tenant: CompiledTenant, top_k: int) -> list[ExampleMiss]:
    """Each example phrase of the tenant's policies that a turn made of it would not select.

    The phrase is scored as a turn's content with no context, for an end user whose
    attributes satisfy the policy's ``appliesWhen`` (the first listed value of each).
    """
    policy_set = tenant.policy_set
    misses = []
    for policy in policy_set.policies:
        attributes = satisfying_attributes(policy)
        for example in policy.examples:
            hits = tenant.index.search(example, top_k=retrieval_depth(top_k))
            selected = select_policies(hits, policy_set, attributes, top_k)
            if policy.id not in selected:
                misses.append(ExampleMiss(policy_set.tenant, policy.id, example, tuple(selected)))
    return misses


def engine_fallbacks(tenant: CompiledTenant) -> list[EngineFallback]:
    """The patterns of the tenant's ``detect`` rules (output and tool rules) that the Hyperscan
    engine leaves to RE2, each once; none with the RE2 engine."""
    scanners = [tenant.scanner, *(r.scanner for r in tenant.tool_rules if r.scanner is not None)]
    return list(dict.fromkeys(f for scanner in scanners for f in scanner.fallbacks))


def satisfying_attributes(policy: PolicyDocument) -> dict[str, Any]:
    """End-user attributes that satisfy the policy's ``appliesWhen``: the first listed value
    of each entry. Its examples are sent as messages of such an end user."""
    return {
        name: value[0] if isinstance(value, list) and value else value
        for name, value in (policy.applies_when or {}).items()
    }
