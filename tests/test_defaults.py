"""The shared defaults: every public fitter, the registry, the α rule and the pages agree."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from coarsenrank_core import defaults
from coarsenrank_core.alpha import CONSENSUS_METHOD, DEFAULT_RULE, choose_alpha, consensus_fit
from coarsenrank_core.dic import DIC_DRAWS, auto_alpha_grid, dic_sweep
from coarsenrank_core.registry import METHODS
from tests.helpers import simulate

#: Where an engine fitter's own default still differs from its registry entry, and why. The
#: test below fails when a new difference appears *and* when one of these goes away, so the
#: list stays exact. ``alpha``: the registry's ``"auto"`` runs ``choose_alpha``, which sits
#: above the models (tests/test_architecture.py), so an engine fitter alone defaults to
#: α = ∞; the package's exported fitters (``coarsenrank_core.coarsen_pl`` …) are the
#: registry's (tested below).
#: ``random_state``: the registry pins the seed so that pages and the CLI repeat.
KNOWN_DIFFERENCES = {
    ("pl-em", "calibration"), ("coarsen-pl", "calibration"), ("coarsen-bt", "calibration"),
    ("coarsen-th", "alpha"), ("coarsen-bt", "alpha"), ("coarsen-pl", "alpha"),
    ("coarsen-pl-gibbs", "alpha"), ("coarsen-pl-gibbs", "n_draws"),
    ("coarsen-pl-gibbs", "random_state"),
}


def same(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def own_default(function, name: str):
    parameter = inspect.signature(function).parameters.get(name)
    return inspect.Parameter.empty if parameter is None else parameter.default


def test_registry_entries_and_their_fitters_agree_except_the_listed_differences():
    differ = set()
    for method in METHODS.values():
        for name, value in method.defaults.items():
            own = own_default(method.function, name)
            assert own is not inspect.Parameter.empty, f"{method.id}: {name} is not a parameter"
            if not same(own, value):
                differ.add((method.id, name))
    assert differ == KNOWN_DIFFERENCES


#: The mixtures keep priors of their own (the registry entries say which).
OWN_PRIORS = ("pl-mix", "pl-mix-ranker", "consensus")


def test_every_fitter_that_takes_a_prior_defaults_to_the_shared_prior():
    checked = []
    for method in METHODS.values():
        if method.id in OWN_PRIORS:
            continue
        prior = own_default(method.function, "prior")
        if prior is not inspect.Parameter.empty:
            assert same(tuple(prior), defaults.PRIOR), method.id
            assert same(tuple(method.defaults.get("prior", prior)), defaults.PRIOR), method.id
            checked.append(method.id)
    assert {"pl-em", "coarsen-pl", "coarsen-pl-gibbs"} <= set(checked)


def test_the_em_entries_use_the_shared_em_settings():
    for method_id in ("pl-em", "coarsen-pl", "coarsen-bt"):
        entry = METHODS[method_id].defaults
        assert {k: entry[k] for k in defaults.EM_SETTINGS} == dict(defaults.EM_SETTINGS)
    gibbs = METHODS["coarsen-pl-gibbs"].defaults
    assert (gibbs["burn_in"], gibbs["n_draws"]) == (defaults.GIBBS_BURN_IN, defaults.GIBBS_DRAWS)


def test_the_alpha_rule_and_its_sweep_use_the_shared_settings():
    assert DEFAULT_RULE == defaults.ALPHA_RULE
    assert own_default(choose_alpha, "rule") == defaults.ALPHA_RULE
    assert DIC_DRAWS == dict(defaults.DIC_SETTINGS)
    assert own_default(choose_alpha, "burn_in") == defaults.DIC_SETTINGS["burn_in"]
    assert own_default(choose_alpha, "n_draws") == defaults.DIC_SETTINGS["n_draws"]
    assert same(tuple(own_default(choose_alpha, "prior")), defaults.PRIOR)
    assert same(tuple(own_default(dic_sweep, "prior")), defaults.PRIOR)
    # dic_sweep's own default is the sweep choose_alpha runs (the chained one)
    assert {k: own_default(dic_sweep, k) for k in defaults.DIC_SETTINGS} == dict(
        defaults.DIC_SETTINGS)
    assert own_default(auto_alpha_grid, "size") == defaults.ALPHA_GRID_SIZE
    assert len(auto_alpha_grid(40.0)) == defaults.ALPHA_GRID_SIZE


def test_the_pages_use_the_one_quick_to_choose_size():
    pytest.importorskip("streamlit")
    import ui.alpha  # the dashboard's one rule (needs streamlit)
    import ui.compute
    import ui.shell
    import ui.state

    assert ui.alpha.QUICK_CHOICE_ENTRIES is defaults.QUICK_CHOICE_ENTRIES
    for module in (ui.compute, ui.shell, ui.state):  # no second threshold of their own
        assert not [n for n in vars(module) if "QUICK" in n or "CHOICE_LIMIT" in n], module


def test_consensus_fit_is_the_registry_consensus_method_at_that_alpha():
    prefs = simulate(np.linspace(0.0, 2.0, 6), 40, seed=3)
    for alpha in (2.0, 30.0, np.inf):
        direct = consensus_fit(prefs, alpha)
        registry = METHODS[CONSENSUS_METHOD].run(prefs, alpha=alpha)
        assert direct.method == registry.method == CONSENSUS_METHOD
        np.testing.assert_array_equal(direct.scores, registry.scores)

