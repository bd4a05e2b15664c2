"""scripts/places_table.py: twenty hard place names, offline, each with its answers."""

from __future__ import annotations

import asyncio

from tests.script_loader import PLACES_TABLE, load_script


def test_the_table_has_a_row_for_each_place_and_answers_offline() -> None:
    """Twenty rows; the offline answer and, where recorded, the tool's place and note."""
    table = load_script(PLACES_TABLE, "places_table_script")
    rows = {row[1]: row for row in asyncio.run(table.rows())}
    assert len(rows) == 20
    assert rows["St"][3].startswith("Sorry — getting the weather for St stopped")
    assert rows["Washington, D.C."][3].startswith("In Washington, District of Columbia,")
    assert rows["Hollywood"][4:] == [
        "hollywood_open-meteo-ruby",
        "Hollywood, Florida, United States",
        "Several places are called Hollywood; this is Hollywood, Florida, United States. "
        "Others: Hollywood, California, United States.",
    ]
    assert rows["Londn"][4] == "none recorded"
