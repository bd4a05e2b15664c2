"""Finding 5's start-up wiring: every configured secret is handed to the redactor by value.

The redactor itself (`errors.register_secret`) is another branch's; here it is injected as a
list's `append`, which is all the wiring needs.
"""

from __future__ import annotations

from agent.settings import MIN_LENGTH, Settings, configured_secrets, register_configured_secrets

KEY = "plainkey0123456789abcdef"  # no sk- prefix: no pattern knows it


def test_the_key_the_endpoint_queries_and_user_info_and_secret_env_values_are_registered() -> None:
    env = {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": "https://proxyuser:proxy%2Fpass@claude.test/v1",
        "OPEN_METEO_FORECAST_URL": "https://api.test/forecast?appid=weatherAPPID42&lang=en",
        "WTTR_URL": "https://wttr.test?auth=tok%3Dvalue99",
        "GITHUB_TOKEN": "ghtoken-abcdef",
        "DB_PASSWORD": "hunter22",
        "my_client_secret": "lowercase-name-too",
        "SIGNING_KEY": "   spaced-value   ",
        "HOME": "/home/someone",
        "SHORT_KEY": "abc",
    }
    registered: list[str] = []
    count = register_configured_secrets(Settings.from_env(env), env, registered.append)
    assert count == len(registered) == len(set(registered))
    assert {
        KEY,
        "proxyuser",
        "proxy%2Fpass",
        "proxy/pass",
        "weatherAPPID42",
        "tok%3Dvalue99",
        "tok=value99",
        "ghtoken-abcdef",
        "hunter22",
        "lowercase-name-too",
        "spaced-value",
    } <= set(registered)
    assert "/home/someone" not in registered  # not a secret's name
    assert not {"en", "abc"} & set(registered)  # too short to mask by value


def test_longer_values_come_first_so_no_part_of_one_is_masked_alone() -> None:
    """A value that contains another is registered before it."""
    env = {"A_KEY": "secret-value", "B_KEY": "secret-value-longer"}
    assert configured_secrets(Settings.from_env(env), env) == [
        "secret-value-longer",
        "secret-value",
    ]


def test_nothing_configured_registers_nothing() -> None:
    """Offline defaults: the public endpoints carry no secret."""
    registered: list[str] = []
    assert register_configured_secrets(Settings.from_env({}), {}, registered.append) == 0
    assert registered == []
    assert MIN_LENGTH > 2
