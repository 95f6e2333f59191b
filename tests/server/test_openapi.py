"""The OpenAPI document: kept in docs/, served by the application, covering every endpoint and
every status it gives; and schemathesis against the application over ASGI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

import govcore
from govcore.openapi import openapi_document, openapi_json
from govcore.server import ThreadedGovernance, create_app
from govcore.service.endpoints import ENDPOINTS
from tests.server.conftest import call
from tests.support import CHECKS_KEY, checks_config

KEPT = Path(__file__).resolve().parent.parent.parent / "docs" / "openapi.json"
PREFIX = "/api/v1/agent"


def test_the_kept_document_is_the_generated_one() -> None:
    assert KEPT.read_text(encoding="utf-8") == openapi_json(), (
        "docs/openapi.json is out of date; regenerate it with "
        "`python -m govcore.openapi > docs/openapi.json`"
    )


def test_the_application_serves_the_document(app: Any) -> None:
    served = call(app, "GET", PREFIX + "/openapi.json")
    assert served.headers["content-type"] == "application/json"
    assert served.json() == openapi_document()


def test_every_endpoint_is_described_with_its_statuses() -> None:
    document = openapi_document()
    assert document["openapi"] == "3.1.0"
    schemes = document["components"]["securitySchemes"]
    assert schemes == {
        "apiKey": {
            "type": "http",
            "scheme": "bearer",
            "description": schemes["apiKey"]["description"],
        }
    }
    for endpoint in ENDPOINTS:
        operation = document["paths"][PREFIX + endpoint.path][endpoint.method.lower()]
        statuses = set(operation["responses"])
        success = "204" if endpoint.method == "DELETE" else "200"
        assert {success, "400", "401", "403", "429", "500", "503"} <= statuses, endpoint.name
        has_parameter = "{sessionId}" in endpoint.path
        assert ("404" in statuses) == has_parameter, endpoint.name
        assert ("requestBody" in operation) != has_parameter, endpoint.name
        retry = operation["responses"]["429"]["headers"]["retry-after"]
        assert retry["required"] is True
        assert operation["responses"]["401"]["headers"]["www-authenticate"]["required"] is True
    turn = document["paths"][PREFIX + "/governance/conversation/turn"]["post"]
    assert turn["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TurnRequest"
    }
    assert turn["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TurnResponse"
    }
    # The components are the wire models' schemas, by their camelCase names.
    turn_request = document["components"]["schemas"]["TurnRequest"]
    assert {"sessionId", "turn", "tokenBudget", "checkOutput"} <= set(turn_request["properties"])
    assert "session_id" not in turn_request["properties"]


def test_every_reference_resolves() -> None:
    document = openapi_document()
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    references = {part.split('"')[0] for part in text.split('"$ref": "#/components/schemas/')[1:]}
    assert references
    assert references <= set(schemas)


def test_every_field_is_described() -> None:
    """Every field of every schema carries a description (the wire models' own, from
    docs/api.md), so a field added without one fails here."""
    schemas = openapi_document()["components"]["schemas"]
    undescribed = [
        f"{name}.{field}"
        for name, schema in schemas.items()
        for field, field_schema in schema.get("properties", {}).items()
        if not field_schema.get("description")
    ]
    assert undescribed == []


# --- schemathesis -------------------------------------------------------------------------------

_governance = govcore.Governance.from_config(checks_config())
_app = create_app(ThreadedGovernance(_governance))
schema = schemathesis.openapi.from_asgi(PREFIX + "/openapi.json", _app)


@pytest.fixture(scope="module", autouse=True)
def _close_the_governance() -> Any:
    yield
    _governance.close()


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_application_keeps_to_its_schema(case: Any) -> None:
    """Generated requests with a valid key: no 5xx, and every answer is one the document
    declares (status, content type, headers, body schema)."""
    case.call_and_validate(
        headers={"Authorization": f"Bearer {CHECKS_KEY}"},
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_headers_conformance,
            response_schema_conformance,
        ],
    )
