"""The offline scripted model: a first-class backend for the demo, the REPL and tests.

It understands the demo's questions (`understand`): cities for the weather, a sum, or both;
a pair of currencies (for an agent that offers `exchange_rate`, as examples/exchange_rates.py
does); small talk; or a tool named outright ("use echo with text=hi", its inputs typed as
the tool's schema asks). It answers with real tool calls (several at once for several
cities, and a sum alongside), and words its answer from the tool results as a person
relaying them would: a sum in the person's own notation ("2^10 = 1024", "1,000 * 3 =
3,000"), another tool's JSON as plain words. Its help lists the tools it is offered, MCP
servers' too. It returns the agent's light `Reply`, so offline mode never loads the
anthropic SDK.

What it cannot read whole it says so, rather than guessing at a part: a sum it cannot read
(`offline._sums`), a place with digits in it. Places are read whole, short forms and initials
included ("St. Louis", "Ft. Worth", "Washington, D.C."): a period ends a place only after a
word that is not a short form or an initial. Several places are split at "and", "&", ";",
"or", "vs", "than" and commas, each "in …" of a question counted; a part after a comma
which names the country or region of a real city called like the part before it, or no
place at all, joins it ("Paris, Texas" and "Paris, Narnia" are one place each, "Paris,
Tokyo" two): `tools.weather.places` decides, from ISO 3166 and the gazetteer.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.conversation import DATA_TAG
from agent.models import ModelRequest, Reply, Text, ToolCall
from offline._sums import Sum, read_sum, shown

__all__ = [
    "HELP",
    "OFFLINE_MODEL",
    "Intent",
    "OfflineModel",
    "answer_from_results",
    "help_text",
    "understand",
]

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
    r"(?i)\b(weather|temperature|forecast|hot|hotter|cold|colder|warm|warmer|raining|rain"
    r"|rainy|sunny|snowing|windy|degrees|humid)\b"
)
# A period ends a place, except after a short form or an initial ("St. Louis", "D.C.").
_PERIOD = r"(?<!\bst)(?<!\bste)(?<!\bft)(?<!\bmt)(?<!\b[^\W\d_])\.(?:\s|$)"
_PLACE = re.compile(
    r"(?i)\b(?:in|for|at)\s+(.+?)\s*"
    rf"(?:\?|!|{_PERIOD}|$|\b(?:today|tonight|now|right now|tomorrow)\b"
    r"|(?:,\s*|\s+)(?:and\s+)?(?:what|what's|how|calculate|compute|work out)\b)"
)
# "Weather in Paris? And Tokyo?": a place named after the question that asked.
_MORE = re.compile(
    r"(?i)\s*(?:and|or|also|what about|how about)\s+(?:in\s+|for\s+|at\s+)?(.+?)\s*"
    rf"(?:\?|!|{_PERIOD}|$)"
)
_SEPARATORS = re.compile(
    r"\s*(,|;|&|\band\b|\bor\b|\bvs\b\.?|\bversus\b|\bthan\b|\bcompared (?:to|with)\b)\s*",
    re.IGNORECASE,
)
_DATE = re.compile(r"\d+([-/.])\d+\1\d+")  # "2025-03-01" in a weather question is no sum
_LEADING = re.compile(r"(?i)^(?:(?:and|in|at|for)\s+)+")
_RATE = re.compile(r"(?i)\b(?:exchange|conversion)\s+rates?\b|\bconvert\b")
_PAIR = re.compile(r"(?i)\b([a-z]{3})\s*(?:to|in|into|/|->|→)\s*([a-z]{3})\b")
# "use echo with text=hi", "call the lookup tool with name='Ada Lovelace'": one call of any tool
# the request offers (an MCP server's too), its inputs as key=value.
_NAMED_CALL = re.compile(
    r"(?is)^\s*(?:please\s+)?(?:use|call)\s+(?:the\s+)?([A-Za-z0-9_-]{1,64})(?:\s+tool)?"
    r"(?:\s+with\s+(.+?))?\s*[.?!]?\s*$"
)

HELP = (
    "I'm the offline demo assistant: ask me about the weather in one or more cities "
    '("weather in Paris and Tokyo?") or give me a sum ("what is 12 * 7?").'
)


Call = tuple[str, dict[str, Any]]  # a tool's name and its input


@dataclass(frozen=True, slots=True)
class Intent:
    """What to do: call `tool` once per entry of `inputs` (and the `more` calls to other
    tools in the same reply), or just say `reply`. `sums` are the sums being worked out, as
    the person wrote them; `unread`, what the model could not read and will say so."""

    tool: str | None = None
    inputs: tuple[dict[str, Any], ...] = ()
    reply: str = ""
    more: tuple[Call, ...] = ()
    sums: tuple[Sum, ...] = ()
    unread: tuple[str, ...] = ()

    @property
    def calls(self) -> tuple[Call, ...]:
        """Every tool call, in order."""
        first = tuple((self.tool, tool_input) for tool_input in self.inputs) if self.tool else ()
        return first + self.more


def understand(question: str) -> Intent:
    """What the offline model will do about `question`: the weather and a sum asked in one
    question are both looked up in the same reply; what it cannot read, it says."""
    if (named := _named_call(question)) is not None:
        return named
    if (rate := _rate_call(question)) is not None:
        return rate
    found = read_sum(question)
    if _WEATHER.search(question):
        cities, unread = _cities(question)
        if isinstance(found, Sum):
            more: tuple[Call, ...] = (("calculate", {"expression": found.expression}),)
            sums: tuple[Sum, ...] = (found,)
        else:
            more, sums = (), ()
            unread += [found.reply()] if found and not _DATE.fullmatch(found.written) else []
        if not cities:
            said = " ".join(unread) or "Which city would you like the weather for?"
            return Intent(reply=said)
        inputs = tuple({"city": city} for city in cities)
        return Intent("get_weather", inputs, more=more, sums=sums, unread=tuple(unread))
    if isinstance(found, Sum):
        return Intent("calculate", ({"expression": found.expression},), sums=(found,))
    if found is not None:
        return Intent(reply=found.reply())
    for pattern, reply in _SMALL_TALK.items():
        if re.search(pattern, question, re.IGNORECASE):
            return Intent(reply=reply)
    return Intent(reply=HELP)


def _rate_call(question: str) -> Intent | None:
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


def _cities(question: str) -> tuple[list[str], list[str]]:
    """The places a weather question names, and what it says that cannot be a place."""
    cities: list[str] = []
    unread: list[str] = []
    for match in _PLACE.finditer(question):
        spans = [match[1]]
        if (more := _MORE.match(question, match.end())) is not None:
            spans.append(more[1])
        for span in spans:
            _add_places(span, cities, unread)
    return list(dict.fromkeys(cities)), [f"I couldn't read “{part}” as a place." for part in unread]


def _add_places(span: str, cities: list[str], unread: list[str]) -> None:
    pieces = _SEPARATORS.split(span)
    for index in range(0, len(pieces), 2):
        part = _LEADING.sub("", pieces[index].strip(" '\"")).removeprefix("the ")
        if not part:
            continue
        if any(ch.isdigit() for ch in part):
            unread.append(part)
            continue
        after_comma = index > 0 and pieces[index - 1] == ","
        if after_comma and cities and _narrows(cities[-1], part):
            cities[-1] = f"{cities[-1]}, {part}"
        else:
            cities.append(part)


def _narrows(city: str, part: str) -> bool:
    """Whether `part`, after a comma, says where `city` is rather than naming another place:
    a region or country of a real city of that name, or no place at all ("Narnia")."""
    from tools.weather import places  # the gazetteer: only for a place after a comma

    name = city.partition(",")[0].strip()
    return places.is_region_of(name, part) or not places.cities_named(part)


OFFLINE_MODEL = "offline-scripted"


class OfflineModel:
    """Stateless: each answer is decided from the messages alone. `name` labels it in the
    timeline (a second one can stand in as the fallback model)."""

    def __init__(self, name: str = OFFLINE_MODEL) -> None:
        self.name = name
        self._ids = itertools.count(1)

    async def create(self, request: ModelRequest) -> Reply:
        """Tool calls for a new question, or an answer worded from tool results; or, when a
        call failed with input it never meant, the call it meant."""
        messages = request.messages
        results = [b for b in _blocks(messages[-1]["content"]) if b.get("type") == "tool_result"]
        if not results:
            intent = understand(_question(messages[-1]["content"]))
            calls = _typed(request, intent.calls)
            if calls and _may_call(request, calls):
                return self._reply(request, _preface(calls, intent.sums), calls)
            return self._reply(request, _instead(request, intent))
        calls_made = _calls(messages[-2]["content"]) if len(messages) > 1 else {}
        sent = [(call.get("name"), call.get("input")) for call in calls_made.values()]
        intent = understand(_last_question(messages))
        unsent = tuple(c for c in _typed(request, intent.calls) if c not in sent)
        failed = any(result.get("is_error") for result in results)
        if failed and unsent and _may_call(request, unsent):
            text = "That input was wrong; trying again. " + _preface(unsent, intent.sums)
            return self._reply(request, text, unsent)
        answer = answer_from_results(calls_made, results, intent.sums)
        return self._reply(request, " ".join((answer, *intent.unread)).strip())

    async def aclose(self) -> None:
        """Nothing to release."""

    def _reply(self, request: ModelRequest, text: str, calls: tuple[Call, ...] = ()) -> Reply:
        """Say `text` (to `on_text` too), then make `calls`, if any."""
        if request.on_text is not None:
            request.on_text(text + "\n" if calls else text)
        uses = [ToolCall(self._next("toolu"), tool, {**tool_input}) for tool, tool_input in calls]
        stop_reason = "tool_use" if calls else "end_turn"
        return Reply((Text(text), *uses), stop_reason, model=self.name, id=self._next("msg"))

    def _next(self, prefix: str) -> str:
        return f"{prefix}_offline_{next(self._ids):04d}"


def _may_call(request: ModelRequest, calls: tuple[Call, ...]) -> bool:
    """Whether the request allows tool use and offers every tool of `calls`."""
    if request.tool_choice is not None and request.tool_choice["type"] == "none":
        return False
    return all(tool in _offered(request) for tool, _ in calls)


def _instead(request: ModelRequest, intent: Intent) -> str:
    """What to say when there is no call to make: the intent's reply, the help with the
    tools on offer, or why a call cannot be made."""
    missing = [tool for tool, _ in intent.calls if tool not in _offered(request)]
    if missing and intent.tool != "exchange_rate":
        return f"There is no tool called {missing[0]} here. {help_text(request.tools)}"
    if missing or intent.reply == HELP:
        return help_text(request.tools)
    return intent.reply or "I can't look that up right now."


def _offered(request: ModelRequest) -> dict[str, Mapping[str, Any]]:
    return {str(d.get("name")): d for d in request.tools if isinstance(d, Mapping)}


def help_text(tools: Sequence[Mapping[str, Any]]) -> str:
    """The help: what to ask, and each tool on offer with its inputs, to be named outright
    as "use TOOL with key=value" (an MCP server's tools too)."""
    listed = [_tool_line(tool) for tool in tools if tool.get("name")]
    if not listed:
        return HELP
    others = [tool for tool in tools if tool.get("name") not in _OWN_TOOLS]
    example = _example(others[0]) if others else "use calculate with expression=2+2"
    return (
        f"{HELP} Or name a tool and its inputs, as “use TOOL with key=value” "
        f"(“{example}”). Tools here: {'; '.join(listed)}."
    )


_OWN_TOOLS = {"get_weather", "calculate", "exchange_rate"}


def _example(tool: Mapping[str, Any]) -> str:
    """ "use echo with text=…": how to name a tool, with its first input."""
    first = next(iter(_inputs(tool)), None)
    return f"use {tool['name']} with {first}=…" if first else f"use {tool['name']}"


def _tool_line(tool: Mapping[str, Any]) -> str:
    """ "add (a, b)": a tool's name and its inputs."""
    inputs = ", ".join(str(key) for key in _inputs(tool))
    return f"{tool['name']} ({inputs})" if inputs else str(tool["name"])


def _inputs(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    """A tool's inputs, by name: the properties of its input schema."""
    return (tool.get("input_schema") or {}).get("properties") or {}


def _typed(request: ModelRequest, calls: tuple[Call, ...]) -> tuple[Call, ...]:
    """`calls` with each input given as the tool's schema asks: "2" as 2 for an integer,
    "true" as True for a boolean; text where it cannot be read so, for the tool to refuse."""
    offered = _offered(request)
    typed: list[Call] = []
    for tool, tool_input in calls:
        schema = _inputs(offered.get(tool, {}))
        typed.append(
            (tool, {key: _value(value, schema.get(key)) for key, value in tool_input.items()})
        )
    return tuple(typed)


def _value(value: Any, schema: object) -> Any:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if not isinstance(value, str):
        return value
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            number = float(value)
            return int(number) if number.is_integer() and "." not in value else number
    except ValueError:
        return value
    if kind == "boolean" and value.lower() in {"true", "false"}:
        return value.lower() == "true"
    return value


def _blocks(content: object) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, Sequence):
        return []
    return [block for block in content if isinstance(block, Mapping)]


def _question(content: object) -> str:
    return " ".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def _last_question(messages: Sequence[Any]) -> str:
    """The text of the latest user message that is a question, not tool results."""
    for message in reversed(messages):
        blocks = _blocks(message["content"])
        if message["role"] == "user" and not any(b.get("type") == "tool_result" for b in blocks):
            return _question(message["content"])
    return ""


def _calls(content: object) -> dict[str, Mapping[str, Any]]:
    return {str(b.get("id")): b for b in _blocks(content) if b.get("type") == "tool_use"}


def _preface(calls: tuple[Call, ...], sums: Sequence[Sum] = ()) -> str:
    """The sentence said before making `calls`, weather first, sums as the person wrote
    them."""
    cities = [str(i.get("city", "?")) for tool, i in calls if tool == "get_weather"]
    rates = [i for tool, i in calls if tool == "exchange_rate"]
    written = {s.expression: s.written for s in sums}
    worked = [str(i.get("expression", "?")) for tool, i in calls if tool == "calculate"]
    worked = [written.get(expression, expression) for expression in worked]
    others = list(dict.fromkeys(tool for tool, _ in calls if tool not in _OWN_TOOLS))
    if rates:
        return f"Let me look up the {rates[0].get('base')} to {rates[0].get('quote')} rate."
    if others:
        return f"Let me ask {_join(others)}."
    if cities and worked:
        return f"Let me check the weather in {_join(cities)} and work out {_join(worked)}."
    if cities:
        return f"Let me check the weather in {_join(cities)}."
    return "Let me work that out."


# A tool result from outside the project comes wrapped as data (`agent.conversation.to_model`).
_DATA = re.compile(f'^<{DATA_TAG} source="[^"]*">\n(.*)\n</{DATA_TAG}>$', re.DOTALL)


def answer_from_results(
    calls: Mapping[str, Mapping[str, Any]], results: list[Any], sums: Sequence[Sum] = ()
) -> str:
    """One sentence per tool result; `calls` maps tool_use ids to their tool_use blocks,
    `sums` are the sums asked, as the person wrote them."""
    written = {s.expression: s for s in sums}
    sentences = [_sentence(calls.get(str(r.get("tool_use_id")), {}), r, written) for r in results]
    return " ".join(sentence for sentence in sentences if sentence)


def _sentence(
    call: Mapping[str, Any], result: Mapping[str, Any], written: Mapping[str, Sum]
) -> str:
    text = " ".join(str(b.get("text", "")) for b in _blocks(result.get("content"))).strip()
    text = _DATA.sub(r"\1", text).strip()  # a tool from outside: its answer, as data
    if result.get("is_error"):
        return f"Sorry — {_as_clause(text)}" if text else "Sorry — that didn't work."
    name = call.get("name")
    data = _json(text)
    if name is not None and name not in _OWN_TOOLS:  # another tool's (an MCP server's, say)
        return _words(data) if isinstance(data, dict | list) else text  # its JSON in words
    if not isinstance(data, dict):
        return text
    if name == "exchange_rate":
        return _rate_sentence(data)
    if name == "calculate" or "result" in data:
        expression = data.get("expression") or _input(call, "expression") or "That"
        asked = written.get(str(expression))
        if asked is None:
            return f"{expression} = {shown(data.get('result'))}."
        return f"{asked.written} = {shown(data.get('result'), grouped=asked.grouped)}."
    return _weather_sentence(call, data)


def _words(value: Any) -> str:
    """JSON as plain words: keys and values ("temperature: 12; sky: clear"), one value alone
    as itself."""
    if isinstance(value, dict):
        if len(value) == 1:
            return _words(next(iter(value.values())))
        return "; ".join(f"{str(key).replace('_', ' ')}: {_words(v)}" for key, v in value.items())
    if isinstance(value, list):
        return ", ".join(_words(item) for item in value) or "nothing"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _weather_sentence(call: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    city = data.get("city") or _input(call, "city") or "there"
    if data.get("degraded") or data.get("temperature") is None:
        note = data.get("message") or data.get("note")
        return str(note) if note else f"I couldn't get the current weather for {city} right now."
    condition = str(data.get("condition") or "").lower()
    sentence = f"In {city} it's {data['temperature']}" + (f" and {condition}" if condition else "")
    humidity = data.get("humidity")
    if humidity is not None:
        sentence += f", with {humidity}{'%' if isinstance(humidity, int | float) else ''} humidity"
    note = data.get("note")
    return sentence + "." + (f" ({note})" if isinstance(note, str) and note else "")


def _rate_sentence(data: Mapping[str, Any]) -> str:
    """ "1 USD is 0.852966 EUR (the rate of 2025-09-30, from open.er-api.com)." """
    base, quote, rate = data.get("base"), data.get("quote"), data.get("rate")
    if not (base and quote and isinstance(rate, int | float)):
        return "I couldn't read that exchange rate."
    sentence = f"1 {base} is {rate} {quote}"
    if data.get("date") and data.get("source"):
        return f"{sentence} (the rate of {data['date']}, from {data['source']})."
    return sentence + "."


def _as_clause(sentence: str) -> str:
    """ "Getting the weather …" reads on after a dash as "getting the weather …"."""
    first, _, rest = sentence.partition(" ")
    if first.endswith("ing") and first[:1].isupper() and first[1:].islower():
        return f"{first.lower()} {rest}".strip()
    return sentence


def _input(call: Mapping[str, Any], key: str) -> str | None:
    value = (call.get("input") or {}).get(key)
    return str(value) if value else None


def _json(text: str) -> Any:
    """`text` read as JSON; None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
