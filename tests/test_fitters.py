"""The package's tempered fitters: ``coarsen_pl(prefs)`` is ``run_method("coarsen-pl", prefs)``."""

from __future__ import annotations

import inspect

import numpy as np

import coarsenrank_core
from coarsenrank_core import fitters
from coarsenrank_core.models import coarsen_pl as engine_coarsen_pl
from coarsenrank_core.registry import METHODS
from tests.helpers import simulate

#: The tempered fitters the package exports, by registry id.
EXPORTED_FITTERS = {"coarsen_pl": "coarsen-pl", "coarsen_bt": "coarsen-bt",
                    "coarsen_th": "coarsen-th", "coarsen_pl_gibbs": "coarsen-pl-gibbs"}


def test_the_package_fitters_are_the_registry_methods_with_their_defaults():
    prefs = simulate(np.linspace(0.0, 2.0, 6), 40, seed=3)
    for name, method_id in EXPORTED_FITTERS.items():
        exported = getattr(coarsenrank_core, name)
        assert exported is getattr(fitters, name)
        default = inspect.signature(exported).parameters["alpha"].default
        assert default == "auto" == METHODS[method_id].defaults["alpha"]
        if method_id == "coarsen-pl-gibbs":
            options = dict(burn_in=5, n_draws=5)
            same_fit = exported(prefs, **options)
            direct = METHODS[method_id].run(prefs, **options)
            np.testing.assert_array_equal(same_fit.draws, direct.draws)
        else:
            same_fit, direct = exported(prefs), METHODS[method_id].run(prefs)
        assert same_fit.params["alpha"] == direct.params["alpha"] < np.inf, name
        np.testing.assert_array_equal(same_fit.scores, direct.scores)
        assert same_fit.method == method_id
    # coarsen_pl(prefs) is not the engine's α = ∞ fit
    assert engine_coarsen_pl(prefs).params["alpha"] == np.inf


def test_options_reach_the_engine_and_a_typo_is_refused():
    prefs = simulate(np.linspace(0.0, 2.0, 6), 40, seed=4)
    fit = coarsenrank_core.coarsen_pl(prefs, alpha=30.0, max_iter=3, tol=0.0)
    assert fit.params["alpha"] == 30.0 and fit.iterations == 3
    try:
        coarsenrank_core.coarsen_pl(prefs, alhpa=30.0)
    except ValueError as error:
        assert "alhpa" in str(error)
    else:
        raise AssertionError("a misspelt option ran silently")


def test_the_package_pl_em_is_the_registry_entry_and_coarsen_pl_at_infinity():
    prefs = simulate(np.linspace(0.0, 2.0, 6), 40, seed=5)
    assert coarsenrank_core.pl_em is fitters.pl_em
    fit = coarsenrank_core.pl_em(prefs)
    np.testing.assert_array_equal(fit.scores, METHODS["pl-em"].run(prefs).scores)
    np.testing.assert_allclose(fit.scores, coarsenrank_core.coarsen_pl(prefs, alpha=np.inf).scores,
                               rtol=1e-8)
    assert fit.method == "pl-em"
