"""The endpoint table: each endpoint is one row, and a new row is picked up by the OpenAPI
document, the dispatcher and the typed clients from the row alone."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import govcore
from govcore.client import AsyncGovernanceClient, GovernanceClient
from govcore.http import ROUTER, Router, dispatch
from govcore.openapi import openapi_document
from govcore.service.access import Principal
from govcore.service.effects import run_sync, without_effects
from govcore.service.endpoints import (
    ENDPOINTS,
    GET_CONVERSATION,
    RECORD_TURN,
    Endpoint,
    model_parser,
)
from govcore.service.shared import Result, Service
from govcore.types import StoreReads
from tests.support import FULL_KEY, READ_KEY, bearer, config

POLICIES_KEY = "gk_test_policies_read_01"
PREFIX = "/api/v1/agent"


# --- a worked example: GET /governance/policies, built here and not part of the interface ----


class PolicyQuery(BaseModel):
    """The query of the example endpoint (lax: a query string's values are text)."""

    model_config = ConfigDict(extra="forbid")

    area: str | None = None
    """only the policies of this area"""


class PolicyList(BaseModel):
    """The answer of the example endpoint."""

    model_config = ConfigDict(extra="forbid")

    ids: list[str]
    """the ids of the tenant's policies, in order"""


@without_effects
def list_policies(
    service: Service, principal: Principal, request: PolicyQuery, reads: StoreReads
) -> Result[PolicyList]:
    """The example handler: the key's tenant's policies, of one area when asked."""
    policies = service.tenant(principal).policy_set.policies
    return Result(PolicyList(ids=sorted(p.id for p in policies if request.area in (None, p.area))))


LIST_POLICIES: Endpoint[PolicyQuery, PolicyList] = Endpoint(
    name="list_policies",
    method="GET",
    path="/governance/policies",
    summary="List the policies",
    scope="policies:read",
    request="none",
    query=PolicyQuery,
    parse=model_parser(PolicyQuery),
    run=list_policies,
)
TABLE = (*ENDPOINTS, LIST_POLICIES)


def _config() -> dict[str, Any]:
    """The two-tenant configuration and a key with the reserved scope ``policies:read``."""
    document = config(default_rate_limit_per_minute=100_000)
    document["keys"].append(
        {"key": POLICIES_KEY, "tenant": "acme", "scopes": ["governance:read", "policies:read"]}
    )
    return document


@pytest.fixture
def gov() -> govcore.Governance:
    return govcore.Governance.from_config(_config())


def _handle(gov: govcore.Governance, method: str, path: str, key: str) -> govcore.HttpResponse:
    """``gov.handle`` over the table with the example row (the facade routes the interface's)."""
    steps = dispatch(gov._service, method, path, bearer(key), None, router=Router(TABLE))
    return run_sync(steps, gov._store)


def test_the_openapi_document_describes_a_new_row() -> None:
    """The row alone gives the operation: summary, scope, the query model's fields as query
    parameters with their descriptions, the answer's model, and only the statuses it can give."""
    document = openapi_document(endpoints=TABLE)
    operation = document["paths"][PREFIX + "/governance/policies"]["get"]
    assert operation["operationId"] == "listPolicies"
    assert operation["summary"] == "List the policies"
    assert "`policies:read`" in operation["description"]
    assert operation["parameters"] == [
        {
            "name": "area",
            "in": "query",
            "required": False,
            "description": "only the policies of this area",
            "schema": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        }
    ]
    assert "requestBody" not in operation
    assert set(operation["responses"]) == {"200", "400", "401", "403", "429", "500", "503"}
    assert operation["responses"]["400"]["description"].endswith(
        "the query string is not a valid request"
    )
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/PolicyList"}
    ids = document["components"]["schemas"]["PolicyList"]["properties"]["ids"]
    assert ids["description"] == "the ids of the tenant's policies, in order"
    # The interface's own document is unchanged by a table built elsewhere.
    assert PREFIX + "/governance/policies" not in openapi_document()["paths"]


def test_the_dispatcher_routes_a_new_row_and_validates_its_query(gov: govcore.Governance) -> None:
    """The dispatcher over the table answers the new route: the query string is parsed and
    validated as the row's query model, the row's scope is required, the order of refusals
    holds; the interface's own router does not know the route."""
    everything = _handle(gov, "GET", PREFIX + "/governance/policies", POLICIES_KEY)
    assert everything.status == 200
    assert everything.json()["ids"] == sorted(p.id for p in gov.policy_set("acme").policies)

    payments = _handle(gov, "GET", "/governance/policies?area=payments", POLICIES_KEY)
    assert payments.status == 200
    assert payments.json()["ids"] == ["card-data"]

    unknown = _handle(gov, "GET", "/governance/policies?areas=payments", POLICIES_KEY)
    assert unknown.status == 400
    assert [detail["field"] for detail in unknown.json()["details"]] == ["areas"]
    garbled = _handle(gov, "GET", "/governance/policies?area=%ff", POLICIES_KEY)
    assert (garbled.status, garbled.json()["details"][0]["field"]) == (400, "query")

    assert _handle(gov, "GET", "/governance/policies?areas=x", FULL_KEY).status == 403
    assert _handle(gov, "POST", "/governance/policies", POLICIES_KEY).status == 405
    assert gov.handle("GET", "/governance/policies", bearer(POLICIES_KEY)).status == 404


def test_both_clients_run_a_new_row(gov: govcore.Governance) -> None:
    """The clients' shared plumbing runs the new row with a model or a mapping of its fields,
    and answers what the dispatcher answers."""
    client = GovernanceClient(gov._serving, gov._store, POLICIES_KEY)
    typed = client._call(LIST_POLICIES, {"area": "payments"})
    assert isinstance(typed, PolicyList)
    dispatched = _handle(gov, "GET", "/governance/policies?area=payments", POLICIES_KEY)
    assert typed.model_dump(mode="json", by_alias=True) == dispatched.json()
    assert client._call(LIST_POLICIES, PolicyQuery(area="payments")) == typed
    with pytest.raises(govcore.PermissionDeniedError):
        GovernanceClient(gov._serving, gov._store, READ_KEY)._call(LIST_POLICIES, {})

    async def run_async_client() -> PolicyList:
        async with govcore.AsyncGovernance.from_config(_config()) as agov:
            async_client = AsyncGovernanceClient(agov._serving, agov._store, POLICIES_KEY)
            return await async_client._call(LIST_POLICIES, {"area": "payments"})

    assert asyncio.run(run_async_client()) == typed


def test_an_endpoint_without_a_query_model_ignores_a_query_string(gov: govcore.Governance) -> None:
    """'A query string, if any, is ignored' (the public contract) by every interface endpoint."""
    body = json.dumps({"sessionId": "q", "turn": {"role": "user", "content": "refund"}})
    with_query = gov.handle("POST", "/governance/conversation/turn?sessionId=x&turn=1",
                            bearer(FULL_KEY), body)  # fmt: skip
    assert with_query.status == 200
    assert with_query.json()["sessionId"] == "q"
    read = gov.handle("GET", "/governance/conversation/q?unknown=%ff", bearer(FULL_KEY), None)
    assert (read.status, read.json()["turnCount"]) == (200, 1)


def test_the_request_kind_of_every_row_matches_its_route() -> None:
    """Each interface row's request kind matches its route, and the routes reach the rows."""
    for endpoint in ENDPOINTS:
        has_parameter = endpoint.path.endswith("}")
        assert (endpoint.request == "path") == has_parameter, endpoint.name
        routed_path = endpoint.path.replace("{sessionId}", "s-1")
        assert ROUTER.route(endpoint.method, routed_path)[0] is endpoint


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"request": "body"}, "request='path' goes with a route ending in"),
        ({"parameter": None}, "request='path' goes with a route ending in"),
        ({"path": "/governance/conversation"}, "request='path' goes with a route ending in"),
        ({"not_found": None}, "say what it means with not_found"),
    ],
)
def test_a_row_that_contradicts_itself_is_refused_where_it_is_written(
    change: dict[str, Any], message: str
) -> None:
    """A path parameter needs a route ending in it, its description and its 404's meaning."""
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(GET_CONVERSATION, **change)


def test_a_query_model_goes_only_with_no_body_and_no_path_parameter() -> None:
    """A query model is the request of an endpoint that takes neither a body nor a parameter."""
    with pytest.raises(ValueError, match="query model"):
        dataclasses.replace(RECORD_TURN, query=PolicyQuery)


def test_the_body_limit_is_the_rows() -> None:
    """The tool call's tighter body limit is a field of its row; the others take the setting."""
    settings = govcore.Governance.from_config(_config()).settings
    limits = {endpoint.name: endpoint.body_limit(settings) for endpoint in ENDPOINTS}
    assert limits.pop("check_tool_call") < settings.max_body_bytes
    assert set(limits.values()) == {settings.max_body_bytes}
