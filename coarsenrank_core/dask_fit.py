"""CoarsenPL, PL-EM and the DIC sweep whose sums over the data are a map over Dask partitions
and a reduce."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import CancelledError
from dataclasses import replace

import numpy as np

from .defaults import EM_SETTINGS
from .errors import ClusterError
from .io.on_dask import dask_client as reader_client
from .models.partitioned import PartitionedDesign, forget_layouts
from .models.plackett_luce import coarsen_pl
from .preferences import Preferences
from .results import RankingResult

__all__ = ["DaskStages", "coarsen_pl_dask", "dic_sweep_dask", "dask_client", "DASK_MISSING"]

DASK_MISSING = ("Fitting on Dask needs the optional extra: pip install 'coarsenrank[dask]' "
                "(dask[distributed]).")


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError(DASK_MISSING) from None
    return distributed


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, n_workers: int | None = None) -> Iterator:
    """The readers' :func:`~coarsenrank_core.io.on_dask.dask_client` (the scheduler at
    ``scheduler``, or a ``LocalCluster`` for the block), raising ``ImportError`` with the
    extra to install when dask[distributed] is missing."""
    _distributed()
    with reader_client(scheduler, n_workers) as client:
        yield client


class DaskStages(PartitionedDesign):
    """The choice stages of a collection, cut into partitions held by Dask workers.

    Every sum EM needs is a map over the partitions and a sum on the driver: the wins of
    each item once (paper Eq. (29)'s ``W``), then at every step the per-item exposure
    ``Σ w/η`` (Eq. (27) summed as in Eq. (29)). Every Gibbs sweep of the DIC search is
    the same map: each partition draws its stages' ξ from its own per-sweep seed
    (:mod:`coarsenrank_core.models.partitioned`) and returns ``Σ ξ`` per item; the driver
    draws θ. Each worker keeps its partition (and its sampler layout) between steps; only
    θ (M numbers) goes out and M numbers per partition come back. The results equal
    :class:`~coarsenrank_core.models.partitioned.PartitionedDesign` with as many parts,
    run in one process.

    A task whose worker dies is run again elsewhere by Dask, or the map is submitted again
    after the lost partitions are scattered again from the driver; a task's draws depend
    only on (seed, partition, sweep), so the re-run gives the same numbers. Without the
    driver's copies (``keep_local=False``) a lost partition raises
    :class:`~coarsenrank_core.errors.ClusterError` instead of an answer without it.

    Parameters
    ----------
    prefs : Preferences
        Identical preferences are merged first (:attr:`Preferences.pooled`), as locally.
    client : distributed.Client
    n_partitions : int
        How many contiguous parts the preferences are cut into.
    keep_local : bool
        The driver keeps its copy of every partition (default) and scatters a lost one
        again, so a fit survives the death of any worker. ``False`` frees the driver's
        copies; a partition lost with its worker then raises
        :class:`~coarsenrank_core.errors.ClusterError`. (Extra replicas on the workers
        would not do: Dask's active memory manager drops replicas nobody asked for.)
    """

    #: Times a map is submitted again after a worker died under it.
    RETRIES = 3

    def __init__(self, prefs: Preferences, client, n_partitions: int, *,
                 keep_local: bool = True):
        self.client = client
        self.keep_local = bool(keep_local)
        self.local: list[Preferences] = []
        self.known_workers = self._workers()
        super().__init__(prefs, n_partitions)

    def _place(self, parts: list[Preferences]) -> list:
        if self.keep_local:
            self.local = parts
        # own keys (hash=False): equal data of another fit is released apart
        return self.client.scatter(parts, hash=False)

    def _gather(self, futures: list) -> list:
        return self.client.gather(futures)

    def _workers(self) -> frozenset:
        """The addresses of the scheduler's workers (empty when it cannot say)."""
        try:
            return frozenset(self.client.scheduler_info().get("workers", {}))
        except Exception:  # noqa: BLE001 - a scheduler that cannot answer
            return frozenset()

    def _lost(self) -> list[int]:
        """The partitions no live worker holds (their futures cancelled, or no holder)."""
        lost = [i for i, part in enumerate(self.parts) if part.status != "finished"]
        held = [part for i, part in enumerate(self.parts) if i not in lost]
        try:
            holders = self.client.who_has(held) if held else {}
        except Exception:  # noqa: BLE001 - a scheduler that cannot answer: assume lost
            return list(range(len(self.parts)))
        return sorted(lost + [i for i, part in enumerate(self.parts)
                              if i not in lost and not holders.get(part.key)])

    def _recover(self, lost: list[int]) -> None:
        """Scatter the driver's copies of the lost partitions again, or raise."""
        if not self.keep_local:
            raise ClusterError(
                f"The Dask cluster lost {len(lost)} of {len(self.parts)} partitions: a worker "
                "died holding the only copy of a partition; no partial answer was returned. "
                "Run again (keep_local=True scatters a lost partition again), or with the "
                "local engine.")
        fresh = self.client.scatter([self.local[i] for i in lost], hash=False)
        for i, future in zip(lost, fresh):
            self.parts[i] = future

    def _run(self, submit) -> list:
        """Gather the futures ``submit()`` makes. When a worker died under them, the lost
        partitions are scattered again from the driver's copies and the map submitted again
        (each task is a pure function of its partition and arguments, a sweep's draws of
        its seed, so a re-run gives the same numbers), at most :attr:`RETRIES` times; else
        :class:`~coarsenrank_core.errors.ClusterError`, never a partial sum."""
        distributed = _distributed()
        for _attempt in range(self.RETRIES + 1):
            before = self.known_workers  # asked once, then after each failure: no cost a step
            try:
                return self._gather(submit())
            except Exception as error:  # noqa: BLE001 - sorted below
                failure = error
                self.known_workers = self._workers()
                cluster_failure = isinstance(error, (distributed.KilledWorker, CancelledError,
                                                     OSError))
                # workers that came or went (an adaptive cluster) make the task's own
                # error a cluster failure only when a partition was lost with them
                lost = self._lost() if cluster_failure or self.known_workers != before else []
                if not (cluster_failure or lost):
                    raise  # the task's own error (a bug or bad data): not the cluster's
                if lost:
                    self._recover(lost)
        raise ClusterError(
            f"The fit failed {self.RETRIES + 1} times on the Dask cluster "
            f"({type(failure).__name__}: {failure}); no partial answer was returned.")

    def _map(self, function, *args) -> list:
        return self._run(lambda: [self.client.submit(function, part, *args, pure=False)
                                  for part in self.parts])

    def _map_indexed(self, function, *args) -> list:
        return self._run(lambda: [self.client.submit(function, part, self.token, i, *args,
                                                     pure=False)
                                  for i, part in enumerate(self.parts)])

    def close(self) -> None:
        """Drop this design's sampler layouts on the workers."""
        with contextlib.suppress(Exception):
            self.client.run(forget_layouts, self.token)


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
        Passed to :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl`; unset ones take
        the registry's EM settings (:data:`~coarsenrank_core.defaults.EM_SETTINGS`), as
        ``coarsenrank rank --engine dask --method pl-em`` does.
    """
    settings = {**EM_SETTINGS, **kwargs}
    with dask_client(scheduler, n_workers) as client:
        design = DaskStages(prefs, client, n_partitions)
        try:
            fit = coarsen_pl(prefs, alpha, design=design, **settings)
        finally:
            design.close()
    return fit if np.isfinite(alpha) else replace(fit, method="pl-em")


def dic_sweep_dask(prefs: Preferences, *, scheduler: str | None = None, n_partitions: int = 4,
                   n_workers: int | None = None, **kwargs):
    """:func:`~coarsenrank_core.dic.dic_sweep` with every Gibbs sweep (and the EM warm
    starts) a map over Dask partitions, seeded per partition.

    The curve equals ``dic_sweep(prefs, design=PartitionedDesign(prefs, n_partitions))``
    run in one process with the same seed, and the unpartitioned curve within Monte-Carlo
    error (:mod:`coarsenrank_core.models.partitioned`).

    Parameters
    ----------
    prefs : Preferences
    scheduler : str, optional
        Address of a running scheduler; default a ``LocalCluster`` on this machine.
    n_partitions : int
        Parts the pooled preferences are cut into, each held by a worker.
    n_workers : int, optional
        Workers of the local cluster (default: the cores, at most 4).
    **kwargs
        Passed to :func:`~coarsenrank_core.dic.dic_sweep` (``alphas``, ``burn_in``,
        ``n_draws``, ``random_state``, ...).

    Returns
    -------
    DICResult
    """
    from .dic import dic_sweep

    with dask_client(scheduler, n_workers) as client:
        design = DaskStages(prefs, client, n_partitions)
        try:
            return dic_sweep(prefs, design=design, **kwargs)
        finally:
            design.close()
