"""The public API named in the engine issue works exactly as written there."""

import numpy as np

import coarsenrank_core


def test_the_documented_calls_run():
    from coarsenrank_core import (  # noqa: F401 - every documented name must import
        PreferenceFormatError,
        Preferences,
        coarsen_pl,
        coarsen_pl_gibbs,
        dic_sweep,
        kendall_tau_b,
        pairwise_accuracy,
        read_preferences,
        read_truth,
        simulate_pl,
    )

    lists = [[0, 1, 2], [1, {0, 2}], [2, 0], [0, 2, 1]]
    prefs = Preferences.from_lists(lists, n_items=None, item_names=None, rankers=None,
                                   weights=None)
    fit = coarsen_pl(prefs, alpha=200.0, prior=(1.0, 2.0), calibration=100.0, max_iter=15,
                     tol=0.0)
    assert isinstance(fit.scores, np.ndarray) and fit.scores.shape == (prefs.n_items,)
    post = coarsen_pl_gibbs(prefs, alpha=10.0, prior=(1.0, 2.0), burn_in=100, n_draws=50,
                            random_state=0)
    assert post.draws.shape == (50, 3)
    np.testing.assert_allclose(post.mean, post.draws.mean(axis=0))
    sweep = dic_sweep(prefs, alphas=None, burn_in=100, n_draws=50, random_state=0,
                      progress=None)
    for name in ("alphas", "f", "g", "dic"):
        assert getattr(sweep, name).shape == sweep.alphas.shape
    assert sweep.best_alpha in sweep.alphas
    assert sweep.alphas[0] <= sweep.knee_alpha <= sweep.alphas[-1]  # read between grid points
    choice = coarsenrank_core.choose_alpha(prefs, rule="knee", random_state=0)
    assert choice.rule == "knee" and choice.alpha == choice.evidence.knee_alpha
    assert issubclass(PreferenceFormatError, ValueError)


def test_package_exports_registry_and_compare_and_stays_light():
    assert "coarsen-pl" in coarsenrank_core.METHODS
    assert callable(coarsenrank_core.compare)
    assert set(coarsenrank_core.__all__) <= set(dir(coarsenrank_core))


def test_engine_imports_neither_ui_libraries_nor_pandas_outside_the_readers():
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, coarsenrank_core as c; c.coarsen_pl; c.dic_sweep; c.compare; "
            "c.METHODS; import coarsenrank_core.experiments, coarsenrank_core.noise; "
            "print(sorted(m for m in ('pandas', 'streamlit', 'plotly') if m in sys.modules))")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, check=True).stdout.strip()
    assert out == "[]"
    package = root / "coarsenrank_core"
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 40 and any(s.parent.name == "models" for s in sources)
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert "import streamlit" not in text and "import plotly" not in text, source
        if source.relative_to(package).parts[0] != "io":
            assert "import pandas" not in text and "from pandas" not in text, source


def test_no_public_name_is_shadowed_by_a_module_of_the_same_name():
    """Importing every engine module must not replace an exported function by a module."""
    import importlib
    import pkgutil
    import types

    import coarsenrank_core

    for info in pkgutil.walk_packages(coarsenrank_core.__path__, "coarsenrank_core."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    for name in coarsenrank_core.__all__:
        assert not isinstance(getattr(coarsenrank_core, name), types.ModuleType), name


def test_the_type_stub_names_every_public_name_from_the_module_that_defines_it():
    import ast
    from pathlib import Path

    stub = Path(coarsenrank_core.__file__).with_suffix(".pyi")
    stubbed = {}
    for node in ast.parse(stub.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert alias.asname == alias.name  # an explicit re-export for type checkers
                stubbed[alias.name] = node.module
    assert stubbed == coarsenrank_core._EXPORTS
    for name, module in stubbed.items():
        value = getattr(coarsenrank_core, name)
        if callable(value):  # functions and classes name where they are defined
            assert value.__module__.startswith(f"coarsenrank_core.{module}"), name


def test_the_models_package_exports_every_registry_fitter_not_named_like_its_module():
    import inspect

    import coarsenrank_core.models as models
    from coarsenrank_core.registry import METHODS

    fitters = {method.function.__name__: method.function for method in METHODS.values()}
    own_module = {name for name, f in fitters.items() if f.__module__.endswith("." + name)}
    assert own_module == {"crowdbt", "peergrader", "consensus"}
    assert set(models.__all__) == set(fitters) - own_module
    assert all(getattr(models, name) is fitters[name] for name in models.__all__)
    # the three stay reachable as modules of the package, not hidden by their functions
    for name in own_module:
        assert inspect.ismodule(getattr(models, name))
