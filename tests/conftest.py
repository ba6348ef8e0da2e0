"""Shared test fixtures: where the paper's datasets live, and small preference sets."""

import ast
import functools
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder of the paper's datasets (``COARSENRANK_DATA``, default ``../shared/datasets``).

    Skips only when the folder is absent and ``CI`` is unset; on CI a missing folder fails.
    """
    if not DATA_DIR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"COARSENRANK_DATA={DATA_DIR} does not exist on CI")
        pytest.skip(f"the paper's datasets are not at {DATA_DIR} (set COARSENRANK_DATA)")
    return DATA_DIR


# -- AppTest ------------------------------------------------------------------------------------
@pytest.fixture(scope="session", autouse=True)
def _components_scanned_once():
    """Every new ``AppTest`` scans all installed packages for Streamlit components (0.5 s
    of reading package metadata each); the installed packages do not change during a
    run, so the scan is read once and handed to every AppTest of the process."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without v2 components scans nothing
        yield
        return
    scan = manifest_scanner.scan_component_manifests
    found = functools.cache(scan)
    manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(found())
    yield
    manifest_scanner.scan_component_manifests = scan


# -- Dask ---------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def dask_cluster():
    """One LocalCluster of two worker processes for the session, shared by the Dask tests
    that only send it work (starting one costs seconds). The tests that kill a worker, and
    the EM equivalence tests that need workers which cannot be lost, start their own."""
    from tests.helpers import distributed_or_skip

    distributed = distributed_or_skip()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster


# -- test tiers -------------------------------------------------------------------------------
# Each test module is marked by what it imports, so a new test file joins its tier without
# edits: ``app`` for Streamlit AppTest runs (``streamlit.testing``, or a helper module of
# app tests) and for sessions of a served app driven over its websocket (``websockets``),
# ``browser`` for a real Chromium (``playwright``). ``slow`` is placed by hand on the engine
# tests where the time goes. ``pytest -m "not slow and not app and not browser"`` is the
# fast loop; a plain ``pytest`` (and CI) runs every tier.

TIER_IMPORTS = {"app": ("streamlit.testing", "websockets"), "browser": ("playwright",)}


def _imported_modules(path: Path) -> set[str]:
    """The dotted names a test module imports at any depth (``from a.b import c`` gives ``a.b``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@functools.cache
def module_tiers(path: Path) -> frozenset[str]:
    """The tier markers of the test module at ``path``, following imports of other test modules."""
    if path.suffix != ".py" or ROOT / "tests" not in path.parents:
        return frozenset()
    tiers: set[str] = set()
    for name in _imported_modules(path):
        for tier, prefixes in TIER_IMPORTS.items():
            if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes):
                tiers.add(tier)
        if name.startswith("tests."):
            helper = ROOT / (name.replace(".", "/") + ".py")
            if helper.is_file() and helper != path:
                tiers |= module_tiers(helper)
    return frozenset(tiers)


#: The readers' random-layout property tests (``test_property_*``: each reads 25–100
#: hypothesis-built files in every layout) are ``slow``: together about 40 s of the fast loop.
SLOW_PROPERTY_MODULES = frozenset({"test_header_rules.py", "test_io_content.py",
                                   "test_survey_exports.py"})


#: The order in which the tiers' modules run: the longest tests first, so that on two
#: workers (``-n 2 --dist worksteal``) the queues end with short tests that the worker
#: done first can take over, instead of one worker finishing a two-minute browser test alone.
TIER_ORDER = ("browser", "slow", "app")


def _module_rank(items: list[pytest.Item]) -> dict[Path, int]:
    """Each module's place in :data:`TIER_ORDER` (after the last when in none of them)."""
    rank: dict[Path, int] = {}
    for item in items:
        marks = {mark.name for mark in item.iter_markers()}
        place = min((i for i, tier in enumerate(TIER_ORDER) if tier in marks),
                    default=len(TIER_ORDER))
        rank[item.path] = min(rank.get(item.path, place), place)
    return rank


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Mark every test with the tiers of the module it lives in (see ``module_tiers``) and
    the readers' property tests as ``slow`` (see ``SLOW_PROPERTY_MODULES``) before any
    plugin reads the marks (``-m`` deselects by them); once every plugin is done, run the
    modules in the order of :data:`TIER_ORDER`, each module's tests together and in the
    order collected."""
    for item in items:
        path = Path(item.path).resolve()
        for tier in module_tiers(path):
            item.add_marker(getattr(pytest.mark, tier))
        if path.name in SLOW_PROPERTY_MODULES and item.name.startswith("test_property_"):
            item.add_marker(pytest.mark.slow)
    yield
    rank = _module_rank(items)
    items.sort(key=lambda item: rank[item.path])
