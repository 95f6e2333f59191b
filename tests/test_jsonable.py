"""jsonable_arguments: common non-JSON values given their JSON form, anything else refused with
its path and type; the typed clients apply it to tool-call arguments, the wire stays strict."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, SecretStr, field_serializer

import govcore
from tests.tool_gate_support import GATE_KEY, gate_governance


class Colour(enum.Enum):
    RED = "red"
    NESTED = ("a", 1)


class Size(enum.IntEnum):
    LARGE = 3


class Tier(enum.StrEnum):
    GOLD = "gold"


class Sku(str):
    """A str subclass, as some libraries make their identifiers."""


class Address(BaseModel):
    city: str
    since: date


@dataclasses.dataclass
class Line:
    sku: uuid.UUID
    price: Decimal


ORDER_ID = uuid.UUID("12345678-1234-5678-1234-567812345678")


def test_each_common_type_gets_its_json_form() -> None:
    """Dates are ISO 8601, decimals exact text, enums their values, models and dataclasses
    objects, tuples lists, sets sorted lists, paths text."""
    arguments = {
        "when": datetime(2026, 11, 27, 15, 30, tzinfo=UTC),
        "day": date(2026, 11, 27),
        "at": time(9, 5),
        "price": Decimal("19.990"),
        "order": ORDER_ID,
        "colour": Colour.RED,
        "pair": Colour.NESTED,
        "size": Size.LARGE,
        "tier": Tier.GOLD,
        "address": Address(city="Lyon", since=date(2020, 1, 2)),
        "line": Line(sku=ORDER_ID, price=Decimal("2.50")),
        "dims": (1, 2.5),
        "tags": {"b", "a", "c"},
        "mixed": frozenset({1}),
        "file": PurePosixPath("reports/week.csv"),
        "plain": {"n": None, "ok": True},
    }
    assert govcore.jsonable_arguments(arguments) == {
        "when": "2026-11-27T15:30:00+00:00",
        "day": "2026-11-27",
        "at": "09:05:00",
        "price": "19.990",
        "order": "12345678-1234-5678-1234-567812345678",
        "colour": "red",
        "pair": ["a", 1],
        "size": 3,
        "tier": "gold",
        "address": {"city": "Lyon", "since": "2020-01-02"},
        "line": {"sku": "12345678-1234-5678-1234-567812345678", "price": "2.50"},
        "dims": [1, 2.5],
        "tags": ["a", "b", "c"],
        "mixed": [1],
        "file": "reports/week.csv",
        "plain": {"n": None, "ok": True},
    }
    assert type(govcore.jsonable_arguments({"size": Size.LARGE})["size"]) is int
    assert type(govcore.jsonable_arguments({"sku": Sku("A-1")})["sku"]) is str


def test_the_arguments_given_are_left_as_they_were() -> None:
    """Nothing is converted in place."""
    arguments = {"dims": [(1, 2)], "day": date(2026, 1, 1)}
    govcore.jsonable_arguments(arguments)
    assert arguments == {"dims": [(1, 2)], "day": date(2026, 1, 1)}


@pytest.mark.parametrize(
    ("arguments", "field", "words"),
    [
        ({"items": [{"price": object()}]}, "arguments.items[0].price", "a object"),
        ({"blob": b"raw"}, "arguments.blob", "a bytes"),
        ({"ratio": math.nan}, "arguments.ratio", "nan"),
        ({"nested": {3: "x"}}, "arguments.nested", "JSON keys are text"),
        ({"gap": timedelta(days=1)}, "arguments.gap", "datetime.timedelta"),
    ],
)
def test_a_value_with_no_json_form_is_refused_with_its_path_and_type(
    arguments: dict[str, Any], field: str, words: str
) -> None:
    """The refusal names where the value is and what it is."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        govcore.jsonable_arguments(arguments)
    [problem] = caught.value.details
    assert problem.field == field
    assert words in problem.message


def test_a_value_that_contains_itself_is_refused() -> None:
    """A cycle is refused as too deep, not a RecursionError."""
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(govcore.InvalidRequestError, match="levels deep"):
        govcore.jsonable_arguments({"loop": looped})


def test_arguments_must_be_a_mapping() -> None:
    """A list of arguments is refused naming arguments."""
    with pytest.raises(govcore.InvalidRequestError) as caught:
        govcore.jsonable_arguments([1, 2])  # type: ignore[arg-type]
    assert caught.value.details[0].field == "arguments"


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(exclude_categories=["Cs"])),
    st.dates(),
    st.datetimes(),
    st.times(),
    st.decimals(allow_nan=False, allow_infinity=False),
    st.uuids(),
    st.sampled_from([Colour.RED, Colour.NESTED, Size.LARGE, Tier.GOLD]),
)
_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.frozensets(st.one_of(st.integers(), st.text(max_size=5)), max_size=4),
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), _values, max_size=5))
def test_the_output_is_always_strict_json_and_a_fixed_point(arguments: dict[str, Any]) -> None:
    """Any mix of the accepted types becomes a value json.dumps takes without NaN, and
    converting it again changes nothing."""
    converted = govcore.jsonable_arguments(arguments)
    json.dumps(converted, allow_nan=False)
    assert govcore.jsonable_arguments(converted) == converted


@given(
    st.dictionaries(st.text(max_size=8), _values, max_size=5),
    st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=4), min_size=1, max_size=3),
)
def test_a_foreign_object_anywhere_is_refused_at_its_path(
    arguments: dict[str, Any], keys: list[str]
) -> None:
    """An object with no JSON form, put at any depth, is refused naming that path."""
    holder: dict[str, Any] = arguments
    for key in keys[:-1]:
        holder[key] = {}
        holder = holder[key]
    holder[keys[-1]] = object()
    with pytest.raises(govcore.InvalidRequestError) as caught:
        govcore.jsonable_arguments(arguments)
    assert caught.value.details[0].field == "arguments." + ".".join(keys)


# --- through the typed clients --------------------------------------------------------------


def test_the_typed_client_checks_arguments_in_their_json_form() -> None:
    """check_tool_call takes dates, decimals, UUIDs and models (the wire refused them); a
    suggestion is made from their JSON form."""
    client = gate_governance().client(GATE_KEY)
    decision = client.check_tool_call(
        {
            "sessionId": "s",
            "toolName": "issue_refund",
            "arguments": {"amount": 500, "on": date(2026, 1, 2), "order": ORDER_ID},
        }
    )
    assert not decision.allow
    assert decision.suggested_arguments == {
        "amount": 100,
        "on": "2026-01-02",
        "order": str(ORDER_ID),
    }


def test_the_typed_client_refuses_what_has_no_json_form_in_the_order_of_refusals() -> None:
    """A non-JSON argument is a 400 naming its path, after the key is checked (401 first)."""
    governance = gate_governance()
    request = {"sessionId": "s", "toolName": "t", "arguments": {"blob": b"x"}}
    with pytest.raises(govcore.InvalidRequestError) as caught:
        governance.client(GATE_KEY).check_tool_call(request)
    assert caught.value.details[0].field == "arguments.blob"
    with pytest.raises(govcore.AuthenticationError):
        governance.client("gk_not_a_known_key_000").check_tool_call(request)


def test_the_wire_stays_strict() -> None:
    """handle validates a tool call's arguments as they came: a body whose arguments hold the
    JSON text of a date is checked as that text, and a ToolCallRequest model cannot hold a
    date at all."""
    governance = gate_governance()
    response = governance.handle(
        "POST",
        "/governance/check-tool-call",
        {"Authorization": f"Bearer {GATE_KEY}"},
        json.dumps({"sessionId": "s", "toolName": "t", "arguments": {"on": "2026-01-02"}}),
    )
    assert response.status == 200
    with pytest.raises(ValueError, match="not JSON"):
        govcore.ToolCallRequest(session_id="s", tool_name="t", arguments={"on": date(2026, 1, 2)})


class Payment(BaseModel):
    """A tool's typed argument whose serialisation hides some of what the tool receives."""

    card: SecretStr
    memo: str = Field(default="", exclude=True)
    reference: str = ""

    @field_serializer("reference")
    def _masked(self, reference: str) -> str:
        return "***"


def test_what_a_model_hides_when_serialised_is_still_what_gets_checked() -> None:
    """A SecretStr, an excluded field and a custom serializer all show their real values: a
    check must see what the tool will receive."""
    card = "4111 1111 1111 1111"
    converted = govcore.jsonable_arguments(
        {
            "payment": Payment(card=SecretStr(card), memo=f"card {card}", reference=card),
            "pin": SecretStr("1234"),
        }
    )
    assert converted == {
        "payment": {"card": card, "memo": f"card {card}", "reference": card},
        "pin": "1234",
    }
