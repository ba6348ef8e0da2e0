"""The data cut into partitions, in one process: EM's sums are the local sums, and the Gibbs
sweeps seeded per partition sample the same posterior (the reference a Dask run equals)."""

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.dic import dic_sweep
from coarsenrank_core.models.partitioned import PartitionedDesign
from coarsenrank_core.models.plackett_luce import coarsen_pl, coarsen_pl_gibbs
from coarsenrank_core.simulate import pl_orderings, random_subsets


def lists(n=400, m=10, k=4, seed=3):
    rng = np.random.default_rng(seed)
    subsets = random_subsets(m, np.full(n, k), random_state=rng).reshape(n, k)
    orders = pl_orderings(subsets, np.linspace(1, -1, m), random_state=rng)
    return Preferences.from_arrays(orders.ravel(), np.full(n, k), n_items=m)


GRID = [2.0, 10.0, 50.0, 250.0, 1000.0, 4000.0]


def test_em_on_partitions_equals_local_em():
    prefs = lists()
    settings = dict(tol=1e-12, max_iter=500)
    local = coarsen_pl(prefs, 20.0, **settings)
    parted = coarsen_pl(prefs, 20.0, design=PartitionedDesign(prefs, 3), **settings)
    assert parted.iterations == local.iterations
    np.testing.assert_allclose(parted.scores, local.scores, rtol=1e-10)


def test_a_partitioned_chain_depends_only_on_the_seed_and_the_cut():
    prefs = lists()
    one = coarsen_pl_gibbs(prefs, 50.0, burn_in=10, n_draws=20, random_state=7,
                           design=PartitionedDesign(prefs, 3), warm_start=True)
    two = coarsen_pl_gibbs(prefs, 50.0, burn_in=10, n_draws=20, random_state=7,
                           design=PartitionedDesign(prefs, 3), warm_start=True)
    other = coarsen_pl_gibbs(prefs, 50.0, burn_in=10, n_draws=20, random_state=7,
                             design=PartitionedDesign(prefs, 2), warm_start=True)
    np.testing.assert_array_equal(one.draws, two.draws)
    assert not np.array_equal(one.draws, other.draws)


@pytest.mark.slow  # 8 seeds of two DIC sweeps
def test_the_partitioned_dic_curve_agrees_with_the_local_one_within_monte_carlo_error():
    # 8 seeds each way: the mean curves differ by less than 4 standard errors at every α
    prefs = lists()
    local = np.array([dic_sweep(prefs, alphas=GRID, random_state=s).dic for s in range(8)])
    parted = np.array([dic_sweep(prefs, alphas=GRID, random_state=s,
                                 design=PartitionedDesign(prefs, 3)).dic for s in range(8)])
    se = np.sqrt(local.var(axis=0, ddof=1) / 8 + parted.var(axis=0, ddof=1) / 8)
    z = (local.mean(axis=0) - parted.mean(axis=0)) / se
    assert np.all(np.abs(z) < 4), z
    assert not np.array_equal(local[0], parted[0])  # another random stream, as documented


@pytest.mark.parametrize("warm_start", [None, "chain"])
def test_the_dic_sweep_on_partitions_ignores_n_jobs(warm_start):
    prefs = lists(200)
    kw = dict(alphas=GRID[:4], burn_in=10, n_draws=10, random_state=1, warm_start=warm_start)
    one = dic_sweep(prefs, design=PartitionedDesign(prefs, 2), n_jobs=1, **kw)
    two = dic_sweep(prefs, design=PartitionedDesign(prefs, 2), n_jobs=2, **kw)
    np.testing.assert_array_equal(one.dic, two.dic)
