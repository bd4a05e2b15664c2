"""What the offline model understands of a question: cities for the weather, a sum, or both;
or a pair of currencies (for an agent that offers `exchange_rate`, as
examples/exchange_rates.py does); or a tool named outright ("use echo with text=hi").

Places are split at "and", "&", ";" and commas, except that a part after a comma which names
the country or region of a real city called like the part before it, or no place at all,
joins it ("Paris, Texas" and "Paris, Narnia" are one place each, "Paris, Tokyo" two):
`tools.weather.places` decides, from ISO 3166 and the gazetteer.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = ["Intent", "understand"]

_SMALL_TALK = {
    r"\b(hi|hello|hey|good (morning|afternoon|evening))\b": (
        "Hello! Ask me about the weather somewhere, or give me a sum to work out."
    ),
    r"\b(thanks|thank you|cheers)\b": "You're welcome!",
    r"\b(who|what) are you\b": (
        "I'm the offline demo assistant: I can look up the weather and do arithmetic."
    ),
    r"\bhow are you\b": "Doing well, thanks — what can I look up for you?",
    r"\b(bye|goodbye|see you)\b": "Goodbye!",
}
_WEATHER = re.compile(
    r"(?i)\b(weather|temperature|forecast|hot|cold|warm|raining|rain|sunny|degrees|humid)\b"
)
_PLACE = re.compile(
    r"(?i)\b(?:in|for|at)\s+(.+?)\s*"
    r"(?:\?|!|\.(?:\s|$)|$|\b(?:today|tonight|now|right now|tomorrow)\b"
    r"|(?:,\s*|\s+)(?:and\s+)?(?:what|what's|how|calculate|compute|work out)\b)"
)
_SEPARATORS = re.compile(r"\s*(,|;|&|\band\b|\bor\b)\s*", re.IGNORECASE)
_WORD_OPS = (
    (re.compile(r"(?i)\bdivided by\b"), "/"),
    (re.compile(r"(?i)\b(times|multiplied by)\b"), "*"),
    (re.compile(r"(?i)\bplus\b"), "+"),
    (re.compile(r"(?i)\bminus\b"), "-"),
    (re.compile(r"(?<=\d)\s*[x×]\s*(?=[\d(])"), "*"),
    (re.compile("÷"), "/"),
    (re.compile(r"\^"), "**"),
)
_RATE = re.compile(r"(?i)\b(?:exchange|conversion)\s+rates?\b|\bconvert\b")
_PAIR = re.compile(r"(?i)\b([a-z]{3})\s*(?:to|in|into|/|->|→)\s*([a-z]{3})\b")
# "use echo with text=hi", "call the lookup tool with name='Ada Lovelace'": one call of any tool
# the request offers (an MCP server's too), its inputs as key=value, sent as text.
_NAMED_CALL = re.compile(
    r"(?is)^\s*(?:please\s+)?(?:use|call)\s+(?:the\s+)?([A-Za-z0-9_-]{1,64})(?:\s+tool)?"
    r"(?:\s+with\s+(.+?))?\s*[.?!]?\s*$"
)
_EXPRESSION = re.compile(r"[\d.\s+\-*/^%()]+")
_OPERATOR = re.compile(r"[\d)]\s*(?:\*\*|//|[-+*/^%])\s*[\d(.]")

HELP = (
    "I'm the offline demo assistant: ask me about the weather in one or more cities "
    '("weather in Paris and Tokyo?") or give me a sum ("what is 12 * 7?").'
)


Call = tuple[str, dict[str, str]]  # a tool's name and its input


@dataclass(frozen=True, slots=True)
class Intent:
    """What to do: call `tool` once per entry of `inputs` (and the `more` calls to other
    tools in the same reply), or just say `reply`."""

    tool: str | None = None
    inputs: tuple[dict[str, str], ...] = ()
    reply: str = ""
    more: tuple[Call, ...] = ()

    @property
    def calls(self) -> tuple[Call, ...]:
        """Every tool call, in order."""
        first = tuple((self.tool, tool_input) for tool_input in self.inputs) if self.tool else ()
        return first + self.more


def understand(question: str) -> Intent:
    """What the offline model will do about `question`: the weather and a sum asked in one
    question are both looked up in the same reply."""
    if (named := _named_call(question)) is not None:
        return named
    if (rate := _exchange_rate(question)) is not None:
        return rate
    if _WEATHER.search(question):
        intent = _weather(question)
        expression = _expression(question)
        if intent.tool is None or expression is None:
            return intent
        return Intent(intent.tool, intent.inputs, more=(("calculate", {"expression": expression}),))
    if (expression := _expression(question)) is not None:
        return Intent("calculate", ({"expression": expression},))
    for pattern, reply in _SMALL_TALK.items():
        if re.search(pattern, question, re.IGNORECASE):
            return Intent(reply=reply)
    return Intent(reply=HELP)


def _exchange_rate(question: str) -> Intent | None:
    """ "Exchange rate from USD to EUR?", "convert GBP into JPY": one `exchange_rate` call, for
    an agent that offers such a tool (examples/exchange_rates.py); to others, the help."""
    pair = _PAIR.search(question) if _RATE.search(question) else None
    if pair is None:
        return None
    base, quote = (code.upper() for code in pair.groups())
    return Intent("exchange_rate", ({"base": base, "quote": quote},), reply=HELP)


def _named_call(question: str) -> Intent | None:
    """A call of the tool named in the question, or None if it names none (or its inputs
    are not all key=value)."""
    match = _NAMED_CALL.match(question)
    if match is None:
        return None
    try:
        words = shlex.split(match[2] or "")
    except ValueError:  # a quote left open
        return None
    pairs = [word.strip(",").partition("=") for word in words if word.lower() != "and"]
    if any(not key or not sep for key, sep, _ in pairs):
        return None
    return Intent(match[1], ({key: value for key, _, value in pairs},))


def _weather(question: str) -> Intent:
    cities = _cities(question)
    if not cities:
        return Intent(reply="Which city would you like the weather for?")
    return Intent("get_weather", tuple({"city": city} for city in cities))


def _cities(question: str) -> list[str]:
    match = _PLACE.search(question)
    if match is None:
        return []
    pieces = _SEPARATORS.split(match[1])
    cities: list[str] = []
    for index in range(0, len(pieces), 2):
        part = pieces[index].strip(" '\"").removeprefix("the ")
        if not part or any(ch.isdigit() for ch in part):
            continue
        after_comma = index > 0 and pieces[index - 1] == ","
        if after_comma and cities and _narrows(cities[-1], part):
            cities[-1] = f"{cities[-1]}, {part}"
        else:
            cities.append(part)
    return list(dict.fromkeys(cities))


def _narrows(city: str, part: str) -> bool:
    """Whether `part`, after a comma, says where `city` is rather than naming another place:
    a region or country of a real city of that name, or no place at all ("Narnia")."""
    from tools.weather import places  # the gazetteer: only for a place after a comma

    name = city.partition(",")[0].strip()
    return places.is_region_of(name, part) or not places.cities_named(part)


def _expression(question: str) -> str | None:
    text = question
    for pattern, symbol in _WORD_OPS:
        text = pattern.sub(symbol, text)
    candidates = (m.group().strip() for m in _EXPRESSION.finditer(text))
    found = [c for c in candidates if _OPERATOR.search(c)]
    return max(found, key=len) if found else None
