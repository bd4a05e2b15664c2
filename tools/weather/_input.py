"""`get_weather`'s description and input: all the model sees of the tool, and light."""

from __future__ import annotations

import unicodedata

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["DESCRIPTION", "WeatherInput"]

DESCRIPTION = (
    "Get the current weather for a city: temperature, conditions and, when known, humidity. "
    "Use it when the user asks about weather, temperature or rain somewhere. "
    "Give a region or country after a comma when a name is shared ('Paris, Texas'). "
    '"city" in the answer names the place it is for; a "note" says when that is not the '
    "place asked for. "
    'If every weather service is down, the answer has "degraded": true and no numbers; '
    "tell the user the weather is unavailable rather than guessing."
)


class WeatherInput(BaseModel):
    """The tool's input, validated before any request is made."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    city: str = Field(
        min_length=1,
        max_length=100,
        description="The city's name, e.g. 'Paris', 'New York' or 'Paris, Texas'.",
    )

    @field_validator("city")
    @classmethod
    def _looks_like_a_name(cls, value: str) -> str:
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            raise ValueError("contains control characters")
        if not any(ch.isalpha() for ch in value):
            raise ValueError("contains no letters")
        return value
