"""Place names compared whole (`tools.weather.places`): short forms, punctuation, initials."""

from __future__ import annotations

import pytest

from tools.weather.places import hint_fits, is_fragment, name_key, spellings


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("St. Louis", ("St. Louis", "Saint Louis")),
        ("Ft. Worth", ("Ft. Worth", "Fort Worth")),
        ("Ste. Genevieve", ("Ste. Genevieve", "Sainte Genevieve")),
        ("Mt. Vernon", ("Mt. Vernon", "Mount Vernon")),
        ("Paris", ("Paris",)),
    ],
)
def test_short_forms_are_spelled_out_for_a_second_search(name: str, keys: tuple[str, ...]) -> None:
    """A name with short forms is searched as written, then written out."""
    assert spellings(name) == keys


def test_names_compare_whole() -> None:
    """St. John's, Saint Johns and saint-john’s are one name; Sète is not "St"."""
    assert name_key("St. John's") == name_key("Saint Johns") == name_key("saint-john’s")
    assert name_key("Ft. Worth") == name_key("Fort Worth")
    assert name_key("Sète") != name_key("St")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("St", True), ("St.", True), ("Mt", True), ("Saint", True), ("Bo", True), ("東京", False)],
)
def test_fragments_are_short_forms_or_under_three_latin_letters(name: str, fragment: bool) -> None:
    """Only short forms, or under three Latin letters, is a fragment; 東京 is a whole name."""
    assert is_fragment(name) is fragment


@pytest.mark.parametrize("hint", ["D.C.", "DC", "d. c.", "US-DC", "District of Columbia"])
def test_initials_in_a_hint_are_the_code_they_spell(hint: str) -> None:
    """ "D.C." fits Washington's region as "DC" and "District of Columbia" do."""
    assert hint_fits(hint, "US", ["District of Columbia"])
