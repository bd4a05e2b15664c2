"""The adversarial suite: real sockets on 127.0.0.1, servers the tests start and stop.

Every test asserts an outcome (answered or not, the sentence, counts, attempts, events),
never a duration: the bounds under test are injected small (a few tenths of a second), and
`GUARD_S` is only a hang guard.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/hostile/" in str(item.path):
            item.add_marker(pytest.mark.loopback)
