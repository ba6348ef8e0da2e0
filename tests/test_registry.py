"""Every registered method runs on pairs, lists and ties, and recovers a clear truth."""

import numpy as np
import pytest

from coarsenrank_core import METHODS, Preferences, RankingResult, pairwise_accuracy, run_method
from coarsenrank_core.registry import PAPER_METHODS
from coarsenrank_core.simulate import pl_orderings, random_subsets

PAPER_IDS = ["pl", "pl-em", "coarsen-pl", "coarsen-pl-gibbs", "coarsen-bt", "coarsen-th",
             "crowdbt", "peergrader", "borda", "copeland"]


def test_registry_has_the_required_ids_and_paper_methods():
    assert set(PAPER_IDS) <= set(METHODS)
    assert set(PAPER_METHODS) == {"pl", "pl-em", "crowdbt", "peergrader", "coarsen-th",
                                  "coarsen-bt", "coarsen-pl"}
    for method_id, method in METHODS.items():
        assert method.id == method_id and method.name and method.reference and method.summary
        assert method.ties, f"{method_id} states no tie rule"
        assert method.input in {"lists", "pairs"}
        assert set(method.defaults) <= set(method.parameters), method_id
    assert {m for m, spec in METHODS.items() if spec.tempered} == {
        "coarsen-pl", "coarsen-pl-gibbs", "coarsen-bt", "coarsen-th"}
    assert METHODS["coarsen-pl-gibbs"].uncertainty and METHODS["coarsen-pl-gibbs"].stochastic


def synthetic(n_items, kind, n_prefs=300, seed=0, spread=3.0):
    """Strongly separated PL worths (item 0 best) and preferences of one kind."""
    rng = np.random.default_rng(seed)
    log_worth = np.linspace(spread, -spread, n_items)
    length = {"pairs": 2, "lists": min(4, n_items), "ties": min(4, n_items)}[kind]
    items = random_subsets(n_items, np.full(n_prefs, length), random_state=rng)
    orders = pl_orderings(items.reshape(n_prefs, length), log_worth, random_state=rng)
    groups = None
    if kind == "ties":
        steps = (rng.random((n_prefs, length)) > 0.3).astype(int)
        steps[:, 0] = 0
        groups = np.cumsum(steps, axis=1).ravel()
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n_prefs, length), groups=groups,
                                    n_items=n_items, rankers=np.arange(n_prefs) % 15)
    return prefs, np.exp(log_worth)


@pytest.mark.parametrize("method_id", list(METHODS))
@pytest.mark.parametrize("n_items", [2, 3, 50])
@pytest.mark.parametrize("kind", ["pairs", "lists", "ties"])
def test_every_method_runs_on_pairs_lists_and_ties(method_id, n_items, kind):
    prefs, _ = synthetic(n_items, kind, n_prefs=120)
    result = run_method(method_id, prefs, alpha=50.0)
    assert isinstance(result, RankingResult)
    assert result.method == method_id
    assert result.scores.shape == (n_items,) and np.all(np.isfinite(result.scores))
    assert sorted(result.order.tolist()) == list(range(n_items))
    assert result.seconds >= 0 and result.iterations >= 1


@pytest.mark.parametrize("method_id", list(METHODS))
@pytest.mark.parametrize("kind", ["pairs", "lists", "ties"])
def test_every_method_recovers_a_strongly_separated_truth(method_id, kind):
    prefs, truth = synthetic(12, kind, n_prefs=600, seed=1)
    result = run_method(method_id, prefs, alpha=300.0)
    assert pairwise_accuracy(result.scores, truth) >= 0.95


def test_overrides_reach_only_methods_that_accept_them():
    prefs, _ = synthetic(5, "lists", n_prefs=50)
    plain = run_method("pl-em", prefs)
    assert run_method("pl-em", prefs, alpha=3.0).scores.tolist() == plain.scores.tolist()
    assert run_method("coarsen-pl", prefs, alpha=3.0).tau == pytest.approx(3 / 53)
    with pytest.raises(ValueError, match="unknown method"):
        run_method("nope", prefs)


def test_rankers_matter_only_to_methods_that_use_them():
    prefs, _ = synthetic(6, "lists", n_prefs=90, seed=3)
    anonymous = prefs.with_rankers(None)
    for method_id, method in METHODS.items():
        a = run_method(method_id, prefs).scores
        b = run_method(method_id, anonymous).scores
        if not method.uses_rankers:
            np.testing.assert_allclose(a, b, err_msg=method_id)


# ------------------------------------------------------------------ issue 10: contracts
def test_a_misspelt_or_foreign_parameter_raises():
    prefs, _ = synthetic(5, "lists", n_prefs=40)
    with pytest.raises(ValueError, match="alhpa"):
        run_method("coarsen-pl", prefs, alhpa=5.0)
    with pytest.raises(ValueError, match="passes"):
        run_method("coarsen-pl", prefs, passes=3)  # a CrowdBT parameter
    with pytest.raises(ValueError, match="unknown method"):
        run_method("coarsen-pl-typo", prefs)
    # the parameters a comparison hands to every method are ignored where not taken
    assert run_method("borda", prefs, alpha=5.0, random_state=1).method == "borda"


def test_method_is_always_the_registry_id():
    prefs, _ = synthetic(5, "lists", n_prefs=40)
    assert run_method("coarsen-pl", prefs, alpha=np.inf).method == "coarsen-pl"
    assert run_method("pl-em", prefs).method == "pl-em"
    assert run_method("coarsen-bt", prefs, alpha=np.inf).method == "coarsen-bt"


@pytest.mark.parametrize("method_id", list(METHODS))
def test_converged_is_none_exactly_where_there_is_no_stopping_rule(method_id):
    from coarsenrank_core.experiments import fixed_iterations

    prefs, _ = synthetic(6, "lists", n_prefs=60)
    result = run_method(method_id, prefs, alpha=20.0)
    rule = method_id not in ("borda", "copeland", "coarsen-pl-gibbs", "crowdbt")
    assert (result.converged is None) == (not rule), method_id
    if rule:
        assert isinstance(result.converged, bool)
    fixed = run_method(method_id, prefs, alpha=20.0, **fixed_iterations(method_id, 3))
    if method_id in ("pl-em", "coarsen-pl", "coarsen-bt", "pl-mix", "pl-mix-ranker"):
        assert fixed.converged is None  # tol = 0: a fixed number of iterations


@pytest.mark.parametrize("method_id", list(METHODS))
def test_results_are_read_only(method_id):
    prefs, _ = synthetic(6, "lists", n_prefs=60)
    result = run_method(method_id, prefs, alpha=20.0)
    with pytest.raises((AttributeError, TypeError)):
        result.method = "x"
    with pytest.raises(ValueError):
        result.scores[0] = 1.0
    with pytest.raises(TypeError):
        result.extra["new"] = 1
    for value in result.extra.values():
        if isinstance(value, np.ndarray):
            assert not value.flags.writeable, method_id


def test_one_place_for_ids_defaults_and_the_paper_list():
    from coarsenrank_core.paper.figures import PAPER_METHOD_ORDER
    from coarsenrank_core.paper.reproduce import CHOSEN
    from coarsenrank_core.registry import check_methods, get_method

    assert set(PAPER_METHOD_ORDER) == set(PAPER_METHODS)
    for method_id, chosen in CHOSEN.items():
        assert chosen.items() <= dict(METHODS[method_id].defaults).items()
    assert get_method("pl") is METHODS["pl"]
    with pytest.raises(ValueError, match="'nope'"):
        check_methods(["pl", "nope"])


def test_one_name_per_meaning():
    import inspect

    from coarsenrank_core.models.crowdbt import crowdbt, crowdbt_update
    from coarsenrank_core.models.peergrader import peergrader
    from coarsenrank_core.models.pl_gradient import pl_lbfgs
    from coarsenrank_core.models.thurstone import coarsen_th

    assert "alpha" not in inspect.signature(crowdbt_update).parameters
    assert "reliability_prior" in inspect.signature(crowdbt).parameters
    assert "reliability_prior" in inspect.signature(peergrader).parameters
    # regularization is the virtual-node weight everywhere; a Gaussian precision is l2
    assert "regularization" not in inspect.signature(peergrader).parameters
    for function in (pl_lbfgs, coarsen_th):
        assert "regularization" in inspect.signature(function).parameters
    assert "l2" in inspect.signature(pl_lbfgs).parameters
    assert "l2" in inspect.signature(peergrader).parameters


def test_the_person_who_ranks_is_a_ranker_everywhere_in_the_api():
    import importlib
    import inspect
    import pkgutil
    import re

    import coarsenrank_core

    other_words = re.compile(r"rater|annotator|(?<!peer)grader", re.IGNORECASE)
    found = []
    for module_info in pkgutil.walk_packages(coarsenrank_core.__path__, "coarsenrank_core."):
        if module_info.name.endswith("__main__"):
            continue  # importing it runs the command line
        module = importlib.import_module(module_info.name)
        for name in getattr(module, "__all__", ()):
            found += [f"{module_info.name}.{name}"] if other_words.search(name) else []
            member = getattr(module, name)
            if callable(member):
                try:
                    parameters = inspect.signature(member).parameters
                except (TypeError, ValueError):
                    continue
                found += [f"{module_info.name}.{name}({p})" for p in parameters
                          if other_words.search(p)]
    found += [m for m in METHODS if other_words.search(m)]
    assert not found


# ------------------------------------------------------------------ issue 11: stopping
@pytest.mark.parametrize("method_id", [m for m in METHODS if "should_stop" in
                                       METHODS[m].parameters])
def test_every_long_fit_stops_when_asked(method_id):
    from coarsenrank_core.errors import Cancelled

    prefs, _ = synthetic(30, "lists", n_prefs=400)
    calls = []

    def stop():
        calls.append(1)
        return True

    with pytest.raises(Cancelled):
        run_method(method_id, prefs, alpha=20.0, should_stop=stop)
    assert 1 <= len(calls) <= 2


def test_every_iterative_method_takes_should_stop():
    iterative = set(METHODS) - {"borda", "copeland"}
    assert {m for m in METHODS if "should_stop" in METHODS[m].parameters} == iterative
