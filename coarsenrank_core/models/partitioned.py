"""The sums of EM and the sweeps of the Gibbs sampler over a collection cut into partitions.

:class:`PartitionedDesign` holds the pooled preferences in contiguous parts and computes
every sum that EM (paper Eq. (29)) and the exact Gibbs sampler (Algorithm 2, Eq. (30)) need
as a map over the parts and a sum in the caller. Here the map runs in this process; the
Dask engine (:class:`coarsenrank_core.dask_fit.DaskStages`) runs the same map functions on
workers. So a local partitioned run is the reference a Dask run must equal.

Seeding of the sampler. Each sweep draws one ``Gamma(τ·w, η)`` per choice stage. With the
stages split over partitions, partition ``p`` draws its stages at sweep ``s`` from its own
generator ``default_rng([entropy, p, s])``, where ``entropy`` is one integer the chain's own
generator gives at the start. The draws of a sweep therefore depend only on (seed,
partition, sweep), never on which worker runs the task or whether it ran before (a task
re-run after a worker died gives the same draws). θ is drawn by the chain's generator in
the caller, as without partitions. The chain has the same stationary distribution as the
unpartitioned sampler (every ξ is still an independent Gamma draw), but not the same random
stream: a partitioned run equals another partitioned run with the same seed and the same
number of parts exactly (to the rounding of the sums), and an unpartitioned run within
Monte-Carlo error.
"""

from __future__ import annotations

import threading
import uuid
import weakref
from collections.abc import Callable

import numpy as np

from ..preferences import Preferences
from .plackett_luce import _layout

__all__ = ["PartitionedDesign", "PartitionedSampler"]

#: Sampler layouts kept per process: one per (design, partition), for the latest τ.
_LAYOUTS: dict[tuple[str, int], tuple[float, object]] = {}
_LAYOUTS_LOCK = threading.Lock()


def part_layout(part: Preferences, token: str, index: int, tau: float):
    """The sampler layout of one partition at τ, built once per (design, partition, τ)."""
    with _LAYOUTS_LOCK:
        found = _LAYOUTS.get((token, index))
    if found is not None and found[0] == tau:
        return found[1]
    layout = _layout(part.stages, tau)
    with _LAYOUTS_LOCK:
        _LAYOUTS[(token, index)] = (tau, layout)
    return layout


def forget_layouts(token: str) -> int:
    """Drop the layouts of one design from this process's cache; return how many."""
    with _LAYOUTS_LOCK:
        keys = [k for k in _LAYOUTS if k[0] == token]
        for k in keys:
            del _LAYOUTS[k]
    return len(keys)


def part_wins(part: Preferences) -> np.ndarray:
    """The map of the wins ``W_m`` (paper Eq. (29)): stages won per item in one partition."""
    return np.asarray(part.stages.wins, dtype=float)


def part_exposure(part: Preferences, theta: np.ndarray, scale: float) -> np.ndarray:
    """The map of the denominators ``D_m`` (paper Eq. (29)): ``scale · Σ w/η`` per item over
    one partition's stages at ``theta``."""
    return part.stages.exposure(theta, scale)


def part_log_likelihood(part: Preferences, theta: np.ndarray) -> float:
    """One partition's share of the untempered PL log-likelihood (paper Eq. (19))."""
    return float(part.stages.log_likelihood(theta))


def part_sweep(part: Preferences, token: str, index: int, tau: float, theta: np.ndarray,
               entropy: int, sweep: int, log_likelihood: bool) -> tuple[np.ndarray, float]:
    """One Gibbs sweep over one partition's stages: ``Σ ξ`` per item and, when asked, the
    partition's share of the untempered log-likelihood of ``theta``."""
    rng = np.random.default_rng([entropy, index, sweep])
    return part_layout(part, token, index, tau).sweep(theta, rng, log_likelihood)


def summed(values: list) -> np.ndarray:
    """The partitions' vectors added in partition order (the same order everywhere)."""
    total = np.array(values[0], dtype=float, copy=True)
    for value in values[1:]:
        total += value
    return total


def partition_rows(n_rows: int, n_partitions: int) -> list[np.ndarray]:
    """The contiguous, non-empty row ranges of ``n_partitions`` parts."""
    cuts = np.array_split(np.arange(n_rows), max(1, min(int(n_partitions), n_rows)))
    return [rows for rows in cuts if rows.size]


class PartitionedDesign:
    """The pooled preferences cut into contiguous parts; every sum a map and a reduce.

    Usable as ``design=`` of :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl` (EM)
    and of :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl_gibbs`,
    :func:`~coarsenrank_core.dic.dic_sweep` and
    :func:`~coarsenrank_core.alpha.choose_alpha` (the sampler, seeded per partition as the
    module says).

    Parameters
    ----------
    prefs : Preferences
        Identical preferences are merged first (:attr:`Preferences.pooled`), as locally.
    n_partitions : int
        Parts to cut the pooled preferences into (contiguous row ranges; fewer when there
        are fewer rows).
    """

    def __init__(self, prefs: Preferences, n_partitions: int):
        pooled = prefs.pooled
        self.n_items = prefs.n_items
        self.token = uuid.uuid4().hex
        # this process's layouts go with the design (a Dask design's workers: close())
        weakref.finalize(self, forget_layouts, self.token)
        self.parts = self._place([pooled.subset(rows)
                                  for rows in partition_rows(len(pooled), n_partitions)])
        self.wins = summed(self._map(part_wins))

    # the two hooks a distributed design replaces
    def _place(self, parts: list[Preferences]) -> list:
        return parts

    def _map(self, function: Callable, *args) -> list:
        """``function(part, *args)`` for every part, in partition order."""
        return [function(part, *args) for part in self.parts]

    def _map_indexed(self, function: Callable, *args) -> list:
        """``function(part, token, index, *args)`` for every part, in partition order."""
        return [function(part, self.token, i, *args) for i, part in enumerate(self.parts)]

    @property
    def n_partitions(self) -> int:
        """How many non-empty parts the data were cut into (at most the asked number)."""
        return len(self.parts)

    def exposure(self, theta: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """``scale · Σ w/η`` per item, summed over the partitions."""
        return summed(self._map(part_exposure, np.asarray(theta, dtype=float), scale))

    def log_likelihood(self, theta: np.ndarray) -> float:
        """The untempered PL log-likelihood (paper Eq. (19)), summed over the partitions."""
        return float(sum(self._map(part_log_likelihood, np.asarray(theta, dtype=float))))

    def sampler(self, tau: float, rng: np.random.Generator) -> PartitionedSampler:
        """The sweeps of one Gibbs chain at τ; its partition seeds come from ``rng``."""
        return PartitionedSampler(self, tau, int(rng.integers(0, 2**63 - 1)))

    def close(self) -> None:
        """Drop this design's sampler layouts from the processes that hold them."""
        forget_layouts(self.token)


class PartitionedSampler:
    """The layout interface of the Gibbs sampler (``wins``, ``sweep``, ``log_likelihood``)
    over a :class:`PartitionedDesign`: each sweep is one map over the partitions."""

    def __init__(self, design: PartitionedDesign, tau: float, entropy: int):
        self.design, self.tau, self.entropy = design, float(tau), entropy
        self.wins = design.wins
        self.count = 0

    def sweep(self, theta: np.ndarray, rng: np.random.Generator,
              log_likelihood: bool = False) -> tuple[np.ndarray, float]:
        """``Σ ξ`` per item over every partition (``rng`` is not used: each partition
        draws from its own per-sweep generator)."""
        del rng
        results = self.design._map_indexed(part_sweep, self.tau, np.asarray(theta, float),
                                           self.entropy, self.count, bool(log_likelihood))
        self.count += 1
        exposure = summed([r[0] for r in results])
        value = float(sum(r[1] for r in results)) if log_likelihood else float("nan")
        return exposure, value

    def log_likelihood(self, theta: np.ndarray) -> float:
        """The untempered log-likelihood of ``theta`` (paper Eq. (19)), for DIC's ``f``."""
        return self.design.log_likelihood(theta)
