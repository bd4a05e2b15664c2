"""The http(s) URL check for every configured endpoint, apart from the HTTP stack: settings
are read (and refused) before anything imports httpx."""

from __future__ import annotations

from urllib.parse import urlsplit

from errors import BadSetting

__all__ = ["check_http_url"]


def check_http_url(name: str, url: str) -> None:
    """Refuse, as `errors.BadSetting(name, …)`, a `url` that is not http(s) with a host (and a
    valid port, if any). The value is never echoed: it may carry a key."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in {"http", "https"} or not parts.hostname:
        raise BadSetting(name, "must be an http(s) URL")
