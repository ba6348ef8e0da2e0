"""EM whose sums are a map over Dask partitions equals the local EM."""

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.dask_fit import DaskStages, coarsen_pl_dask
from coarsenrank_core.models.plackett_luce import coarsen_pl
from coarsenrank_core.registry import run_method
from coarsenrank_core.simulate import pl_orderings, random_subsets
from tests.helpers import distributed_or_skip

distributed = distributed_or_skip()


@pytest.fixture(scope="module")
def client():
    # in-process workers: the same map over partitions and sum on the driver, and a loaded
    # machine cannot lose a worker process (and its partitions) in the middle of a fit
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


def lists(n=600, m=12, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, 6, n)
    items = np.concatenate([rng.permutation(m)[:k] for k in lengths])
    return Preferences.from_arrays(items, lengths, n_items=m)


def test_the_partitioned_sums_are_the_local_sums(client):
    prefs = lists()
    stages = DaskStages(prefs, client, 3)
    local = prefs.pooled.stages
    theta = np.random.default_rng(1).random(prefs.n_items) + 0.1
    assert len(stages.parts) == 3
    np.testing.assert_allclose(stages.wins, local.wins, rtol=1e-13)
    np.testing.assert_allclose(stages.exposure(theta, 0.3), local.exposure(theta, 0.3),
                               rtol=1e-12)
    assert stages.log_likelihood(theta) == pytest.approx(local.log_likelihood(theta),
                                                         rel=1e-12)


@pytest.mark.parametrize("alpha", [20.0, np.inf])
def test_em_on_dask_equals_local_em_to_1e_10(client, alpha):
    rng = np.random.default_rng(3)
    subsets = random_subsets(10, np.full(400, 4), random_state=rng).reshape(400, 4)
    orders = pl_orderings(subsets, np.linspace(1, -1, 10), random_state=rng)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(400, 4), n_items=10)
    # to convergence (SQUAREM included) where it is quick, else 40 plain EM steps
    settings = (dict(tol=1e-12, max_iter=500) if np.isfinite(alpha)
                else dict(tol=0.0, max_iter=40))
    local = coarsen_pl(prefs, alpha, **settings)
    on_dask = coarsen_pl(prefs, alpha, **settings, design=DaskStages(prefs, client, 4))
    assert on_dask.iterations == local.iterations
    assert on_dask.converged == local.converged == (True if np.isfinite(alpha) else None)
    np.testing.assert_allclose(on_dask.scores, local.scores, rtol=1e-10)


@pytest.mark.slow
def test_the_convenience_starts_a_local_cluster_and_names_pl_em():
    prefs = lists(200, 6, seed=4)
    settings = dict(tol=0.0, max_iter=30)
    fit = coarsen_pl_dask(prefs, n_partitions=2, n_workers=1, **settings)
    assert fit.method == "pl-em" and fit.iterations == 30
    # with the registry's EM settings: the fit `rank --engine dask --method pl-em` gives
    np.testing.assert_allclose(fit.scores, run_method("pl-em", prefs, **settings).scores,
                               rtol=1e-10)
