"""Every engine module has its own test file (issue 10), so the rule stays true.

The rule, for every ``coarsenrank_core/**/*.py``:

* ``__init__.py`` and ``__main__.py`` are skipped (re-exports and the entry point; the CLI's
  tests run ``python -m coarsenrank_core``);
* modules of the readers' package ``coarsenrank_core/io/`` are covered together by the reader
  suites (``tests/test_readers.py``, ``tests/test_reader_safety.py``,
  ``tests/test_survey_exports.py``), which read every layout through the public readers; an
  io module may also have a ``tests/test_io_<name>.py`` of its own;
* every other module ``<name>.py`` has ``tests/test_<name>.py``, a private module's leading
  underscore dropped (``models/_solver.py`` -> ``tests/test_solver.py``). Modules of the same
  name in different packages share that file (``reproduce.py`` and ``paper/reproduce.py`` ->
  ``tests/test_reproduce.py``), which then tests each of them;
* the test file names the module it tests: it imports ``coarsenrank_core.<path>`` (as
  ``from coarsenrank_core.<path> import ...``, ``import coarsenrank_core.<path>`` or
  ``from coarsenrank_core.<package> import <name>``).

Test files for several modules, the dashboard and the browser (``test_app.py``,
``test_golden.py``, ...) may exist besides.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "coarsenrank_core"
TESTS = ROOT / "tests"
READER_SUITES = ("test_readers.py", "test_reader_safety.py", "test_survey_exports.py")


def engine_modules() -> list[Path]:
    """The modules the rule asks a test file of (see the module docstring)."""
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if path.name not in ("__init__.py", "__main__.py")
                  and "io" not in path.relative_to(PACKAGE).parts[:-1])


def own_test_file(module: Path) -> Path:
    return TESTS / f"test_{module.stem.lstrip('_')}.py"


def dotted(module: Path) -> str:
    return ".".join(("coarsenrank_core", *module.relative_to(PACKAGE).with_suffix("").parts))


def names_module(text: str, module: Path) -> bool:
    """Whether the test file's text imports the module (see the module docstring)."""
    path = dotted(module)
    package, name = path.rsplit(".", 1)
    return bool(re.search(rf"\b{re.escape(path)}\b", text)
                or re.search(rf"from {re.escape(package)} import [^\n]*\b{name}\b", text))


def test_the_rule_sees_the_engine():
    modules = {dotted(m) for m in engine_modules()}
    # the package's layout as the rule reads it: flat modules, models/ and paper/, not io/
    assert {"coarsenrank_core.preferences", "coarsenrank_core.models._solver",
            "coarsenrank_core.models.plackett_luce", "coarsenrank_core.paper.figures",
            "coarsenrank_core.reproduce", "coarsenrank_core.paper.reproduce"} <= modules
    assert not any(".io." in m or m.endswith(("__init__", "__main__")) for m in modules)
    assert own_test_file(PACKAGE / "models" / "_solver.py").name == "test_solver.py"


@pytest.mark.parametrize("module", engine_modules(),
                         ids=lambda m: str(m.relative_to(PACKAGE)))
def test_every_engine_module_has_its_own_test_file(module):
    expected = own_test_file(module)
    assert expected.is_file(), (
        f"{module.relative_to(ROOT)} has no {expected.relative_to(ROOT)}: add one (issue 10)")
    assert names_module(expected.read_text(encoding="utf-8"), module), (
        f"{expected.relative_to(ROOT)} does not import {dotted(module)}")


def test_the_reader_suites_cover_the_io_package():
    io_modules = [p for p in (PACKAGE / "io").glob("*.py") if p.name != "__init__.py"]
    assert len(io_modules) > 5
    for suite in READER_SUITES:
        text = (TESTS / suite).read_text(encoding="utf-8")
        assert "coarsenrank_core" in text and "def test_" in text, suite
    for own in TESTS.glob("test_io_*.py"):  # an io module's own file names a real module
        assert (PACKAGE / "io" / f"{own.stem.removeprefix('test_io_')}.py").is_file() or (
            PACKAGE / "io" / f"_{own.stem.removeprefix('test_io_')}.py").is_file(), own.name


def test_the_rule_would_catch_a_module_without_tests():
    module = PACKAGE / "models" / "not_a_module.py"
    assert not own_test_file(module).is_file()
    assert names_module("from coarsenrank_core.models.plackett_luce import coarsen_pl",
                        PACKAGE / "models" / "plackett_luce.py")
    assert names_module("from coarsenrank_core.models import crowdbt as module",
                        PACKAGE / "models" / "crowdbt.py")
    assert not names_module("from coarsenrank_core import coarsen_pl",
                            PACKAGE / "models" / "plackett_luce.py")
    assert not names_module("import coarsenrank_core.reproduce_extra",
                            PACKAGE / "reproduce.py")


def test_test_modules_are_put_in_their_tier_by_what_they_import():
    from tests.conftest import module_tiers

    assert module_tiers(TESTS / "test_app.py") == {"app"}
    assert module_tiers(TESTS / "test_charts.py") == {"app"}  # via tests.test_app's helpers
    assert module_tiers(TESTS / "test_browser.py") == {"browser"}
    assert module_tiers(TESTS / "test_load.py") == {"app"}  # websocket sessions, no Chromium
    assert module_tiers(TESTS / "test_preferences.py") == frozenset()


def test_the_fast_loop_leaves_out_the_app_and_browser_tiers():
    """``-m`` sees the tiers' marks: they are placed before pytest deselects by them."""
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
         "-m", "not slow and not app and not browser", "tests/test_app_default.py",
         "tests/test_load.py", "tests/test_browser.py", "tests/test_layout.py"],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=120)
    ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert ids and all(line.startswith("tests/test_layout.py::") for line in ids), \
        collected.stdout[-2000:]


def test_the_dev_extra_installs_every_test_tool_requirements_dev_lists():
    """``pip install -e ".[app,dev]"`` (CONTRIBUTING) must run the suite as
    ``requirements-dev.txt`` does: pytest's addopts ask for xdist's ``-n``."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    def name(requirement: str) -> str:
        return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()

    lines = (TESTS.parent / "requirements-dev.txt").read_text(encoding="utf-8").splitlines()
    tools = {name(line) for line in lines if line.strip() and not line.startswith(("#", "-"))}
    project = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    assert tools <= {name(r) for r in extras["dev"]}, tools - {name(r) for r in extras["dev"]}
    assert {"pytest-xdist", "websockets", "playwright"} <= tools
