"""Names as people write them: compared without case, accents or extra spaces, and a
"City, Region" question split into the name to search and the hints that narrow it."""

from __future__ import annotations

import unicodedata

__all__ = ["fold", "split_query"]


def fold(text: str) -> str:
    """Text to compare names by: case, accents and spacing ignored ("Zürich" → "zurich")."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(text.split()).casefold()


def split_query(city: str) -> tuple[str, tuple[str, ...]]:
    """ "Paris, France" → ("Paris", ("france",)): the name to search, and folded hints."""
    head, _, rest = city.partition(",")
    name = " ".join(head.split()) or city
    return name, tuple(hint for part in rest.split(",") if (hint := fold(part)))
