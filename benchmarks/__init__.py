"""The parts of `scripts/bench.py`: a loopback fault server, three contenders, ratios and a soak.

Nothing here talks to anything but 127.0.0.1. The fault server runs in its own process so its work
does not share a GIL with the code being measured.
"""
