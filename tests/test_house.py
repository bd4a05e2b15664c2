"""The house a reader walks (issue 17): one tool call touches few modules, imports run one way
down the layers, and the library edits no import machinery."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from benchmarks.harness import REPO
from tests.script_loader import WALK, load_script

# Each package may import only those below it; offline is wired in by the entry point alone.
LAYERS = ("agent", "tools", "resilience", "errors")
ENTRY_POINT = "agent/cli.py"


@pytest.fixture(scope="module")
def walk() -> object:
    return load_script(WALK, "walk_script")


def test_one_successful_tool_call_touches_at_most_twelve_modules(walk: object) -> None:
    """From the model's tool_use to its tool_result, offline: twelve project modules or fewer."""
    traced = walk.trace("What's the weather in Paris?")  # type: ignore[attr-defined]
    assert "tools/weather/_sources.py" in [n.replace(".", "/") + ".py" for n in traced.project]
    assert len(traced.project) <= 12, traced.project


def test_a_failed_attempt_and_a_fallback_touch_at_most_twenty(walk: object) -> None:
    """A 503 from Open-Meteo, a retry and the fallback to wttr.in: twenty modules or fewer."""
    traced = walk.trace("What's the weather in Paris?", primary_down=True)  # type: ignore[attr-defined]
    assert any(name.startswith("errors.") for name in traced.project)
    assert len(traced.project) <= 20, traced.project


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


@pytest.mark.parametrize("package", LAYERS)
def test_imports_run_one_way_down_the_layers(package: str) -> None:
    """No module imports a package above its own (agent → tools → resilience → errors), and
    only the command line imports the offline world."""
    above = set(LAYERS[: LAYERS.index(package)]) | {"offline", "benchmarks", "tests"}
    for path in sorted((REPO / package).rglob("*.py")):
        allowed = {"offline"} if path.relative_to(REPO).as_posix() == ENTRY_POINT else set()
        wrong = (_imports(path) & above) - allowed
        assert not wrong, f"{path.relative_to(REPO)} imports {sorted(wrong)}"


@pytest.mark.parametrize("package", [*LAYERS, "offline"])
def test_the_library_leaves_the_import_machinery_alone(package: str) -> None:
    """No import hook, no sys.modules assignment, no lazy module __getattr__."""
    for path in sorted((REPO / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "sys.meta_path" not in text, path
        assert "sys.modules[" not in text, path
        assert "def __getattr__(name" not in text, path


def test_the_files_the_readme_writes_are_ignored_by_git() -> None:
    """Each file a README command writes in the project folder is listed in .gitignore."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    written = re.findall(r"AGENT_LOG_FILE=(\S+)", readme) + re.findall(
        r"writes (\S+\.json)", readme
    )
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert written
    assert [name for name in written if name not in ignored] == []
