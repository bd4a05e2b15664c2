"""Scripts under scripts/ loaded as modules, for the tests that drive them in process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["BENCH", "DEMO", "PLACES_TABLE", "WALK", "load_script"]

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
BENCH = SCRIPTS / "bench.py"
DEMO = SCRIPTS / "demo.py"
WALK = SCRIPTS / "walk.py"
PLACES_TABLE = SCRIPTS / "places_table.py"


def load_script(path: Path, name: str) -> ModuleType:
    """The script at `path` as a fresh module called `name` (registered in sys.modules, where
    dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
