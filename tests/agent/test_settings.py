"""Settings from the environment."""

from __future__ import annotations

import pytest

from agent.settings import DEFAULT_MODEL, Settings
from errors import BadSetting
from tests.agent.helpers import SECRET
from tools import Endpoints


def test_no_key_means_offline_with_a_banner_saying_how_to_use_claude() -> None:
    """Without ANTHROPIC_API_KEY the app runs offline and says how to change that."""
    settings = Settings.from_env({})
    assert settings.offline is True
    assert settings.banner is not None
    assert "ANTHROPIC_API_KEY" in settings.banner


def test_a_key_means_claude_with_the_default_model() -> None:
    """With a key: online, claude-sonnet-4-6, no banner."""
    settings = Settings.from_env({"ANTHROPIC_API_KEY": SECRET})
    assert (settings.offline, settings.model, settings.banner) == (False, DEFAULT_MODEL, None)


@pytest.mark.parametrize(
    ("env", "flag", "offline"),
    [
        ({}, False, False),
        ({}, True, True),
        ({"AGENT_OFFLINE": "1"}, False, True),
        ({"AGENT_OFFLINE": "true"}, False, True),
        ({"AGENT_OFFLINE": "yes"}, False, True),
        ({"AGENT_OFFLINE": "on"}, False, True),
        ({"AGENT_OFFLINE": " On "}, False, True),
        ({"AGENT_OFFLINE": "0"}, False, False),
        ({"AGENT_OFFLINE": "false"}, False, False),
        ({"AGENT_OFFLINE": ""}, False, False),
        ({"AGENT_OFFLINE": "0"}, True, True),
    ],
    ids=[
        "key only",
        "--offline",
        "=1",
        "=true",
        "=yes",
        "=on",
        "= On (spaced)",
        "=0",
        "=false",
        "=empty",
        "--offline beats =0",
    ],
)
def test_offline_can_be_forced_even_with_a_key(
    env: dict[str, str], flag: bool, offline: bool
) -> None:
    """AGENT_OFFLINE=1/true/yes/on or --offline force offline; 0, false or empty do not."""
    settings = Settings.from_env({"ANTHROPIC_API_KEY": SECRET, **env}, offline=flag)
    assert settings.offline is offline


def test_the_claude_key_is_given_only_when_online() -> None:
    """claude_key: the key online; None offline, even with a key."""
    assert Settings.from_env({"ANTHROPIC_API_KEY": SECRET}).claude_key == SECRET
    assert Settings.from_env({"ANTHROPIC_API_KEY": SECRET}, offline=True).claude_key is None
    assert Settings.from_env({}).claude_key is None


def test_online_settings_without_a_key_are_refused() -> None:
    """Settings(offline=False) with no key is a caller's mistake, caught at once."""
    with pytest.raises(ValueError, match="api_key"):
        Settings(offline=False)


def test_model_base_url_and_log_file_come_from_the_environment() -> None:
    """AGENT_MODEL, ANTHROPIC_BASE_URL and AGENT_LOG_FILE are read; --model wins."""
    env = {
        "AGENT_MODEL": "claude-opus-4-6",
        "ANTHROPIC_BASE_URL": "http://x.test",
        "AGENT_LOG_FILE": "/tmp/a.log",
    }
    settings = Settings.from_env(env)
    assert (settings.model, settings.base_url, settings.log_file) == (
        "claude-opus-4-6",
        "http://x.test",
        "/tmp/a.log",
    )
    assert Settings.from_env(env, model="claude-haiku-4-6").model == "claude-haiku-4-6"


def test_weather_endpoints_come_from_the_environment() -> None:
    """WTTR_URL and the Open-Meteo URLs are passed to the tools."""
    settings = Settings.from_env({"WTTR_URL": "http://wttr.test/"})
    assert settings.endpoints.wttr_url == "http://wttr.test"


def test_the_key_never_appears_in_the_repr() -> None:
    """repr(settings) is safe to log."""
    assert SECRET not in repr(Settings.from_env({"ANTHROPIC_API_KEY": SECRET}))


def test_settings_are_frozen() -> None:
    """Settings are a value."""
    with pytest.raises(AttributeError):
        Settings().model = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    "url", ["ftp://claude.test", "claude.test", "http://", "http://[::1", "https://x:99999"]
)
def test_a_base_url_that_is_not_http_is_refused(url: str) -> None:
    """With a key: not http(s), no host, or unparseable is a ValueError naming
    ANTHROPIC_BASE_URL."""
    with pytest.raises(ValueError, match="ANTHROPIC_BASE_URL"):
        Settings.from_env({"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": url})


@pytest.mark.parametrize("url", ["ftp://claude.test", "claude.test", "http://x:port"])
def test_offline_a_base_url_that_is_not_http_is_set_aside(url: str) -> None:
    """Offline Claude is never called: the malformed ANTHROPIC_BASE_URL is dropped, not fatal."""
    assert Settings.from_env({"ANTHROPIC_BASE_URL": url}).base_url is None
    forced = {"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": url}
    assert Settings.from_env(forced, offline=True).base_url is None


def test_offline_a_malformed_weather_url_keeps_the_default() -> None:
    """Offline: a weather URL that is not http(s) keeps the default; a good one is kept."""
    env = {"WTTR_URL": "ftp://wttr.test", "OPEN_METEO_FORECAST_URL": "http://forecast.test/f"}
    endpoints = Settings.from_env(env).endpoints
    assert endpoints.wttr_url == Endpoints().wttr_url
    assert endpoints.forecast_url == "http://forecast.test/f"


def test_online_a_malformed_weather_url_is_refused() -> None:
    """With a key the weather URLs are called: a malformed one is refused, named."""
    with pytest.raises(BadSetting, match="WTTR_URL"):
        Settings.from_env({"ANTHROPIC_API_KEY": SECRET, "WTTR_URL": "ftp://wttr.test"})


@pytest.mark.parametrize("url", ["https://api.anthropic.com", "http://127.0.0.1:8080/", ""])
def test_an_http_base_url_or_none_is_accepted(url: str) -> None:
    """http(s) URLs with a host are kept; empty means unset."""
    assert Settings.from_env({"ANTHROPIC_BASE_URL": url}).base_url == (url or None)


def test_the_model_and_turn_timeouts_have_documented_defaults() -> None:
    """AGENT_MODEL_TIMEOUT 120 s (one attempt), AGENT_TURN_TIMEOUT 300 s (one question)."""
    settings = Settings.from_env({})
    assert (settings.model_timeout_s, settings.turn_timeout_s) == (120.0, 300.0)


def test_the_model_and_turn_timeouts_come_from_the_environment() -> None:
    """Seconds, fractions allowed, spaces ignored; empty keeps the default."""
    env = {"AGENT_MODEL_TIMEOUT": " 45 ", "AGENT_TURN_TIMEOUT": "90.5"}
    settings = Settings.from_env(env)
    assert (settings.model_timeout_s, settings.turn_timeout_s) == (45.0, 90.5)
    assert Settings.from_env({"AGENT_TURN_TIMEOUT": ""}).turn_timeout_s == 300.0


@pytest.mark.parametrize("name", ["AGENT_MODEL_TIMEOUT", "AGENT_TURN_TIMEOUT"])
@pytest.mark.parametrize("value", ["0", "-5", "soon", "nan", "inf", "1e999", f"{SECRET}"])
def test_a_timeout_that_is_not_a_positive_number_is_refused_by_name(name: str, value: str) -> None:
    """A usage error naming the variable, never echoing its value."""
    with pytest.raises(BadSetting) as caught:
        Settings.from_env({name: value})
    assert caught.value.name == name
    assert value not in str(caught.value)
