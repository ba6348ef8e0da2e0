"""Frozen result records returned by every fitting method."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .frozen import FrozenDict, readonly_array, restore_readonly
from .outputs import Outputs

__all__ = ["RankingResult", "PosteriorResult", "tempering"]

_BLOCK_ENTRIES = 1 << 22
"""Entries (draws × items) handled at a time by the rank summaries: 32 MB of float64."""


def tempering(alpha: float, n: float) -> float:
    """The tempering power ``τ = α / (α + N)`` (paper Eq. (20)); ``α = inf`` gives 1."""
    alpha = float(alpha)
    if not alpha > 0:
        raise ValueError(f"alpha must be positive (got {alpha}); use inf for the plain model")
    return 1.0 if np.isinf(alpha) else alpha / (alpha + float(n))


@dataclass(frozen=True)
class RankingResult:
    """What a rank-aggregation method returns.

    Attributes
    ----------
    method : str
        Registry id of the method that produced the result.
    scores : numpy.ndarray, shape (M,)
        One score per item id; higher is better. Only the order is comparable across
        methods (PL worths, log-worths, Borda points, …).
    iterations : int
        Iterations (or passes) run.
    converged : bool or None
        Whether the stopping rule was met before the iteration limit; ``None`` when the run
        had no stopping rule (e.g. CrowdBT with ``tol=0`` runs a fixed number of passes).
    seconds : float
        Wall-clock time of the fit.
    change : float
        Relative change of the scores at the last iteration (``nan`` when not iterative).
    tau : float or None
        The tempering power ``α / (α + N)`` for CoarsenRank methods.
    params : Mapping
        The parameters as the caller gave them.
    trace : numpy.ndarray or None
        Objective value after every iteration, when requested.
    extra : Outputs
        Method-specific outputs (e.g. rater reliabilities): a frozen record of
        :mod:`coarsenrank_core.outputs` whose class is the method family's
        (:class:`~coarsenrank_core.outputs.CrowdBTOutputs`,
        :class:`~coarsenrank_core.outputs.PeerGraderOutputs`,
        :class:`~coarsenrank_core.outputs.MixtureOutputs`,
        :class:`~coarsenrank_core.outputs.GradientOutputs`,
        :class:`~coarsenrank_core.outputs.ThurstoneOutputs`,
        :class:`~coarsenrank_core.outputs.BradleyTerryOutputs`), or an empty
        :class:`~coarsenrank_core.outputs.Outputs` for methods with nothing more to report.
        Its arrays are read-only; it reads as attributes (``extra.reliability``) or as a
        read-only mapping (``extra["reliability"]``). Anything else raises ``TypeError``.

    The record is frozen and its arrays are read-only copies, also after unpickling
    (``st.cache_data`` and worker processes pickle results).
    """

    method: str
    scores: np.ndarray
    iterations: int
    converged: bool | None
    seconds: float
    change: float = float("nan")
    tau: float | None = None
    params: Mapping = field(default_factory=dict)
    trace: np.ndarray | None = None
    extra: Outputs = field(default_factory=Outputs)

    def __post_init__(self):
        if not isinstance(self.extra, Outputs):
            raise TypeError("extra must be a record of coarsenrank_core.outputs (an Outputs), "
                            f"not {type(self.extra).__name__}")
        object.__setattr__(self, "scores", readonly_array(self.scores))
        object.__setattr__(self, "trace", readonly_array(self.trace))
        object.__setattr__(self, "params", FrozenDict(dict(self.params)))

    def __setstate__(self, state):
        restore_readonly(self, state)

    @property
    def order(self) -> np.ndarray:
        """Item ids, best first (equal scores keep id order)."""
        return np.argsort(-self.scores, kind="stable")

    @property
    def ranks(self) -> np.ndarray:
        """1-based rank of every item id in :attr:`order`."""
        ranks = np.empty(self.scores.size, dtype=np.intp)
        ranks[self.order] = np.arange(1, self.scores.size + 1)
        return ranks


@dataclass(frozen=True)
class PosteriorResult(RankingResult):
    """A Gibbs-sampling result: :class:`RankingResult` plus the posterior draws.

    ``scores`` is the posterior mean. ``lower``/``upper`` bound the central
    ``interval_level`` credible interval of each item's score. ``max_split_rhat`` is the
    sampler's diagnostic: the largest split-R̂ (BDA3 §11.4) over the items' log-draws
    (values near 1 mean the two halves of the chain agree; ``nan`` with fewer than 4
    draws). ``converged`` is ``None``: a sampler has no stopping rule.
    """

    draws: np.ndarray = None  # type: ignore[assignment]
    lower: np.ndarray = None  # type: ignore[assignment]
    upper: np.ndarray = None  # type: ignore[assignment]
    interval_level: float = 0.9
    max_split_rhat: float = float("nan")

    def __post_init__(self):
        super().__post_init__()
        for name in ("draws", "lower", "upper"):
            object.__setattr__(self, name, readonly_array(getattr(self, name)))

    @property
    def mean(self) -> np.ndarray:
        """Posterior mean of the scores (the same array as ``scores``)."""
        return self.scores

    @cached_property
    def draw_ranks(self) -> np.ndarray:
        """Rank (0 = best) of every item in every draw, shape ``(n_draws, M)`` (computed once).

        Stored as ``int32`` and sorted a block of draws at a time, so the temporaries stay
        small next to the draws themselves.
        """
        n_draws, n_items = self.draws.shape
        ranks = np.empty((n_draws, n_items), dtype=np.int32 if n_items < 2**31 else np.intp)
        positions = np.arange(n_items, dtype=ranks.dtype)[None, :]
        step = max(1, _BLOCK_ENTRIES // max(n_items, 1))
        for lo in range(0, n_draws, step):
            order = np.argsort(-self.draws[lo:lo + step], axis=1, kind="stable")
            np.put_along_axis(ranks[lo:lo + step], order, positions, axis=1)
        ranks.flags.writeable = False
        return ranks

    def rank_probabilities(self, top: int | None = 30, block: int = 256) -> np.ndarray:
        """``P[m, r]``: posterior probability that item ``m`` is at rank ``r`` (0 = best).

        Only the best ``top`` ranks are kept, for every item: the result has shape
        ``(M, min(top, M))``, so memory grows linearly in M (an ``M × M`` table of a
        15,000-item upload would need gigabytes). Column ``0`` is each item's chance of
        being first; ``P[order[:top], :top]`` is the heatmap of the ``top`` best items (by
        posterior mean) over the ``top`` best ranks. Every column sums to 1; a row sums to
        the item's chance of being in the top ``top`` (1 for every item when ``top ≥ M``).

        Parameters
        ----------
        top : int or None
            Number of leading ranks kept; ``None`` keeps all M (an ``M × M`` array: only
            for small M).
        block : int
            Draws counted at a time; the temporaries hold ``block × M`` entries.

        Returns
        -------
        numpy.ndarray, shape (M, min(top, M))
        """
        n_draws, n_items = self.draws.shape
        width = n_items if top is None else min(int(top), n_items)
        if width < 0 or block < 1:
            raise ValueError("top must be non-negative (or None) and block positive")
        ranks = self.draw_ranks
        counts = np.zeros(n_items * width, dtype=np.int64)
        for lo in range(0, n_draws, block):
            chunk = ranks[lo:lo + block]
            kept = chunk < width
            cells = np.nonzero(kept)[1] * width + chunk[kept]
            counts += np.bincount(cells, minlength=n_items * width)
        return counts.reshape(n_items, width) / max(n_draws, 1)

    def rank_interval(self, level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Central credible interval of every item's 1-based rank (a block of items at a time)."""
        level = self.interval_level if level is None else level
        ranks = self.draw_ranks
        n_draws, n_items = ranks.shape
        tail = (1 - level) / 2
        low = np.empty(n_items, dtype=int)
        high = np.empty(n_items, dtype=int)
        step = max(1, _BLOCK_ENTRIES // max(n_draws, 1))
        for lo in range(0, n_items, step):
            block = ranks[:, lo:lo + step] + 1
            low[lo:lo + step] = np.floor(np.quantile(block, tail, axis=0))
            high[lo:lo + step] = np.ceil(np.quantile(block, 1 - tail, axis=0))
        return low, high
