"""CoarsenPL and PL-EM whose sums over the data are a map over Dask partitions and a reduce."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .models.plackett_luce import coarsen_pl
from .preferences import Preferences
from .results import RankingResult

__all__ = ["DaskStages", "coarsen_pl_dask"]

DASK_MISSING = ("Fitting on Dask needs the optional extra: pip install 'coarsenrank[dask]' "
                "(dask[distributed]).")


def _wins(part: Preferences) -> np.ndarray:
    return np.asarray(part.stages.wins, dtype=float)


def _exposure(part: Preferences, theta: np.ndarray, scale: float) -> np.ndarray:
    return part.stages.exposure(theta, scale)


def _log_likelihood(part: Preferences, theta: np.ndarray) -> float:
    return float(part.stages.log_likelihood(theta))


class DaskStages:
    """The choice stages of a collection, cut into partitions held by Dask workers.

    Every sum EM needs is a map over the partitions and a sum on the driver: the wins of
    each item once (paper Eq. (29)'s ``W``), then at every step the per-item exposure
    ``Σ w/η`` (Eq. (27) summed as in Eq. (29)). Each worker keeps its partition's stage
    layout between steps; only θ (M numbers) goes out and M numbers per partition come
    back.

    Parameters
    ----------
    prefs : Preferences
        Identical preferences are merged first (:attr:`Preferences.pooled`), as locally.
    client : distributed.Client
    n_partitions : int
        How many contiguous parts the preferences are cut into.
    """

    def __init__(self, prefs: Preferences, client, n_partitions: int):
        pooled = prefs.pooled
        cuts = np.array_split(np.arange(len(pooled)), max(1, min(n_partitions, len(pooled))))
        self.client = client
        self.parts = client.scatter([pooled.subset(rows) for rows in cuts if rows.size],
                                    hash=False)  # own keys: equal data elsewhere is released apart
        self.wins = np.sum(client.gather(client.map(_wins, self.parts, pure=False)), axis=0)

    def _reduce(self, function, *args) -> list:
        futures = [self.client.submit(function, part, *args, pure=False) for part in self.parts]
        return self.client.gather(futures)

    def exposure(self, theta: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """``scale · Σ w/η`` per item, summed over the partitions."""
        return np.sum(self._reduce(_exposure, np.asarray(theta, dtype=float), scale), axis=0)

    def log_likelihood(self, theta: np.ndarray) -> float:
        """The untempered PL log-likelihood (paper Eq. (19)), summed over the partitions."""
        return float(sum(self._reduce(_log_likelihood, np.asarray(theta, dtype=float))))


def coarsen_pl_dask(prefs: Preferences, alpha: float = np.inf, *, scheduler: str | None = None,
                    n_partitions: int = 4, n_workers: int | None = None,
                    **kwargs) -> RankingResult:
    """:func:`~coarsenrank_core.models.plackett_luce.coarsen_pl` (PL-EM with ``alpha=inf``)
    with each EM step a map over Dask partitions and a sum on the driver.

    The driver updates θ and runs SQUAREM exactly as locally; only the order of the sums
    differs, so the fit equals the local one to rounding (to the stopping tolerance).

    Parameters
    ----------
    prefs : Preferences
    alpha : float
    scheduler : str, optional
        Address of a running scheduler; default a ``LocalCluster`` on this machine.
    n_partitions : int
    n_workers : int, optional
        Workers of the local cluster (default: the cores, at most 4).
    **kwargs
        Passed to :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl`.
    """
    try:
        import distributed
    except ImportError:
        raise ImportError(DASK_MISSING) from None
    if scheduler is None:
        import os

        workers = n_workers or max(1, min(4, os.cpu_count() or 1))
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            fit = coarsen_pl(prefs, alpha, design=DaskStages(prefs, client, n_partitions),
                             **kwargs)
    else:
        with distributed.Client(scheduler) as client:
            fit = coarsen_pl(prefs, alpha, design=DaskStages(prefs, client, n_partitions),
                             **kwargs)
    return fit if np.isfinite(alpha) else replace(fit, method="pl-em")
