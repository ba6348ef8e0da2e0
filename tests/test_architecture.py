"""The import graph of the engine and the dashboard: no cycles, and no import runs upward.

The graph is read from the source by an AST walk (no module is imported), over
``coarsenrank_core/`` and ``ui/``. Every ``import`` counts, at module level or inside a
function, so a cycle cannot hide in a lazy import.

The layers, lowest first. A module may import its own group and any group of a lower rank;
groups of the same rank (the models and the readers) never import each other.

Engine (``coarsenrank_core``):

0. ``base``: ``errors``, ``frozen``, ``defaults``, ``export`` and ``models.stages`` (pure
   NumPy structures every layer above uses);
1. ``data``: ``preferences``, ``results``;
2. ``transforms``: ``simulate``, ``noise``, ``metrics``, ``exposure``, ``connectivity``;
3. ``models`` (the fitters, ``coarsenrank_core.models.*``, and ``heterogeneity``, the
   random-effects spread of the rankers) and ``readers``
   (``coarsenrank_core.io.*``, the only place pandas is imported), side by side;
4. ``procedures``: ``dic``, ``alpha``, ``registry``, ``fitters``, ``uncertainty``, ``comparison``,
   ``experiments``, ``diagnostics`` (procedures that run the fitters);
5. ``front``: the package's ``__init__``/``__main__``, ``cli``, ``reproduce`` and ``paper``.

Dashboard (``ui``), all above the engine, which never imports it:

0. ``ui-base``: ``text``, ``theme``, ``samples``, ``liveness``, ``dataset``, ``phone``,
   ``poll_store``, ``glossary``, ``tables``;
1. ``ui-charts`` (``charts``) and ``ui-compute`` (``compute``, ``scenario``), side by side;
2. ``ui-state``: ``state``;
3. ``ui-views``: ``widgets``, ``alpha`` (the α controller), ``importer``, ``noise_report``,
   ``consensus_view``, ``poll``;
4. ``ui-share``: ``share``;
5. ``ui-shell``: ``shell`` and the package's ``__init__``.

Third parties: the engine never imports streamlit or plotly, and pandas or pyarrow only
in ``coarsenrank_core/io/``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("coarsenrank_core", "ui")

#: (group, rank, module-name prefixes); the longest matching prefix decides a module's group
LAYERS: list[tuple[str, int, tuple[str, ...]]] = [
    ("base", 0, ("coarsenrank_core.errors", "coarsenrank_core.frozen",
                 "coarsenrank_core.defaults", "coarsenrank_core.export",
                 "coarsenrank_core.models.stages")),
    ("data", 1, ("coarsenrank_core.preferences", "coarsenrank_core.results")),
    ("transforms", 2, ("coarsenrank_core.simulate", "coarsenrank_core.noise",
                       "coarsenrank_core.metrics", "coarsenrank_core.exposure",
                       "coarsenrank_core.connectivity")),
    ("models", 3, ("coarsenrank_core.models", "coarsenrank_core.heterogeneity")),
    ("readers", 3, ("coarsenrank_core.io",)),
    ("procedures", 4, ("coarsenrank_core.dic", "coarsenrank_core.alpha",
                       "coarsenrank_core.learning_rate",
                       "coarsenrank_core.fitters",
                       "coarsenrank_core.registry", "coarsenrank_core.uncertainty",
                       "coarsenrank_core.comparison", "coarsenrank_core.experiments",
                       "coarsenrank_core.diagnostics")),
    ("front", 5, ("coarsenrank_core", "coarsenrank_core.__main__", "coarsenrank_core.cli",
                  "coarsenrank_core.reproduce", "coarsenrank_core.paper")),
    ("ui-base", 10, ("ui.text", "ui.theme", "ui.samples", "ui.liveness", "ui.dataset",
                     "ui.phone", "ui.poll_store", "ui.glossary", "ui.tables")),
    ("ui-charts", 11, ("ui.charts",)),
    ("ui-compute", 11, ("ui.compute", "ui.scenario")),
    ("ui-state", 12, ("ui.state",)),
    ("ui-views", 13, ("ui.widgets", "ui.alpha", "ui.importer", "ui.noise_report",
                      "ui.consensus_view", "ui.poll")),
    ("ui-share", 14, ("ui.share",)),
    ("ui-shell", 15, ("ui", "ui.shell")),
]
ENGINE_NEVER = ("streamlit", "plotly")
READERS_ONLY = ("pandas", "pyarrow")


def module_files() -> dict[str, Path]:
    """Every module of the two packages by its dotted name (a package by its own name)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


MODULES = module_files()


@functools.cache
def imports_of(name: str) -> list[tuple[str, int]]:
    """The absolute module names ``name`` imports (anywhere in its file), with line numbers.

    ``from pkg import sub`` names the module ``pkg.sub`` when that is a module of the two
    packages, else ``pkg`` (a name defined in it).
    """
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.append((sub if sub in MODULES else module, node.lineno))
    return found


def internal_edges() -> dict[str, set[str]]:
    return {name: {target for target, _ in imports_of(name)
                   if target in MODULES and target != name} for name in MODULES}


@functools.cache
def group_of(name: str) -> tuple[str, int]:
    matches = [(len(prefix), group, rank) for group, rank, prefixes in LAYERS
               for prefix in prefixes if name == prefix or name.startswith(prefix + ".")]
    assert matches, f"{name} is in no layer: add it to LAYERS in tests/test_architecture.py"
    _, group, rank = max(matches)
    return group, rank


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_both_packages_and_their_imports():
    edges = internal_edges()
    assert {"coarsenrank_core.registry", "coarsenrank_core.io.wide", "ui.compute"} <= set(edges)
    assert "coarsenrank_core.alpha" in edges["coarsenrank_core.registry"]
    assert "ui.dataset" in edges["ui.compute"]
    # ``from . import examples`` names the submodule, not the package
    assert "coarsenrank_core.io.examples" in edges["coarsenrank_core.io.formats"]
    assert "coarsenrank_core.io" not in edges["coarsenrank_core.io.formats"]


def test_the_cycle_finder_finds_a_cycle_through_three_modules():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = cycles(internal_edges())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_has_a_layer(name):
    group_of(name)


def test_no_import_runs_upward_or_sideways():
    wrong = []
    for name in sorted(MODULES):
        group, rank = group_of(name)
        for target, line in imports_of(name):
            if target not in MODULES or target == name:
                continue
            target_group, target_rank = group_of(target)
            if target_group != group and target_rank >= rank:
                wrong.append(f"{MODULES[name].relative_to(ROOT)}:{line} ({group}) imports "
                             f"{target} ({target_group})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_engine_imports_no_ui_library_and_pandas_only_in_the_readers():
    wrong = []
    for name in sorted(MODULES):
        if not name.startswith("coarsenrank_core"):
            continue
        readers = group_of(name)[0] == "readers"
        for target, line in imports_of(name):
            top = target.split(".")[0]
            if top == "ui" or top in ENGINE_NEVER or (top in READERS_ONLY and not readers):
                wrong.append(f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


#: Libraries measured and rejected for the runtime: python-calamine reads a workbook by
#: allocating its whole declared bounding box, so a 1.4 KB workbook holding a value in
#: XFD1048576 aborts the process ("memory allocation of 549755813888 bytes failed", exit 134)
#: and its reading cannot be stopped (README, "Workbooks are read with budgets").
RUNTIME_NEVER = ("python_calamine",)


def test_no_module_imports_a_rejected_library():
    wrong = [f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}"
             for name in sorted(MODULES) for target, line in imports_of(name)
             if target.split(".")[0] in RUNTIME_NEVER]
    assert not wrong, "\n".join(wrong)
