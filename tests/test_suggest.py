"""Suggestions of the field probably meant, for unknown fields in requests and configurations."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from govcore._suggest import closest_name

CAMEL_NAMES = st.lists(
    st.from_regex(r"[a-z]{2,8}([A-Z][a-z]{2,8}){0,2}", fullmatch=True), min_size=1, max_size=8
)


@given(CAMEL_NAMES, st.data())
def test_a_known_name_in_another_case_convention_finds_itself(
    names: list[str], data: st.DataObject
) -> None:
    """sessionId, session_id, SESSION-ID and sessionid all stand for sessionId."""
    name = data.draw(st.sampled_from(names))
    snake = re.sub(r"([A-Z])", r"_\1", name).lower()
    for variant in (name, snake, snake.upper().replace("_", "-"), name.lower()):
        meant = closest_name(variant, names)
        assert meant is not None
        assert meant.casefold() == name.casefold()


def test_one_letter_off_is_suggested_and_unrelated_names_are_not() -> None:
    fields = ["sessionId", "turn", "checkOutput", "tokenBudget"]
    assert closest_name("sesionId", fields) == "sessionId"
    assert closest_name("tokenBudjet", fields) == "tokenBudget"
    assert closest_name("colour", fields) is None
    # misspelt and in another case convention at once: compared folded on both sides
    assert closest_name("maxbdybites", ["maxBodyBytes", "maxOutputBytes"]) == "maxBodyBytes"
    assert closest_name("end_usr_ctx", ["endUserContext", "sessionId"]) == "endUserContext"
    assert closest_name("", fields) is None
    assert closest_name("turn", []) is None
