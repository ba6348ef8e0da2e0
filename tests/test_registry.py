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
