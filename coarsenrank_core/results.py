"""Frozen result records of every method, and the typed records of what each reports besides."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

import numpy as np

from .frozen import FrozenDict, readonly_array, restore_readonly

__all__ = ["RankingResult", "PosteriorResult", "tempering", "Outputs", "BradleyTerryOutputs",
           "GradientOutputs", "ThurstoneOutputs", "PeerGraderOutputs", "CrowdBTOutputs",
           "MixtureOutputs", "ConsensusOutputs", "SpammerOutputs"]

# ------------------------------------------------------------------ method outputs
# Typed, read-only records of what each method (or noise injector) reports besides scores.
#
# Every fitting method returns a :class:`~coarsenrank_core.results.RankingResult` whose
# ``extra`` is one of the records below: :class:`Outputs` itself (empty) for the methods with
# nothing more to say (PL-EM, CoarsenPL, its Gibbs sampler, Borda, Copeland), or the
# subclass of its family. :class:`~coarsenrank_core.noise.NoiseResult` uses the same records
# for the injectors' facts.
#
# The records are frozen dataclasses: no field can be assigned, array fields are read-only
# copies (read-only again after unpickling), and they pickle, as ``st.cache_data`` and worker
# processes need. Each is also a read-only :class:`~collections.abc.Mapping` from field name
# to value, so ``result.extra.reliability`` and ``result.extra["reliability"]`` are the same
# array. A field left at ``None`` (an output the run did not produce, such as
# :attr:`ThurstoneOutputs.note`) is not a key of the mapping.

#: ``metadata`` of the array fields: each is stored as a read-only copy of this dtype.
_FLOATS: Mapping[str, Any] = {"dtype": float}
_IDS: Mapping[str, Any] = {"dtype": np.intp}


@dataclass(frozen=True, eq=False)
class Outputs(Mapping[str, Any]):
    """Method-specific outputs: the base record, empty itself.

    A read-only mapping from field name to value (fields left at ``None`` are not keys);
    the subclasses add the fields. Equality is the mapping's, as for a ``dict``.
    """

    def __post_init__(self):
        for spec in fields(self):
            value = getattr(self, spec.name)
            if "dtype" in spec.metadata:
                object.__setattr__(self, spec.name, readonly_array(value, spec.metadata["dtype"]))
            elif isinstance(value, np.ndarray):
                object.__setattr__(self, spec.name, readonly_array(value, value.dtype))

    def __setstate__(self, state):
        restore_readonly(self, state)

    def _names(self) -> list[str]:
        return [spec.name for spec in fields(self) if getattr(self, spec.name) is not None]

    def __getitem__(self, key: str) -> Any:
        if key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


@dataclass(frozen=True, eq=False)
class BradleyTerryOutputs(Outputs):
    """What CoarsenBT reports besides the scores.

    Attributes
    ----------
    n_pairs : int
        Number of pairs the lists were rank-broken into (and fitted).
    """

    n_pairs: int


@dataclass(frozen=True, eq=False)
class GradientOutputs(Outputs):
    """What the L-BFGS fit of Plackett–Luce (``"pl"``) reports besides the scores.

    Attributes
    ----------
    objective : float
        The maximised objective at the end of the fit.
    gradient_norm : float
        Largest absolute entry of its gradient there.
    message : str
        The optimiser's closing message.
    """

    objective: float
    gradient_norm: float
    message: str


@dataclass(frozen=True, eq=False)
class ThurstoneOutputs(GradientOutputs):
    """What CoarsenTH reports besides the scores: :class:`GradientOutputs` plus the pairs.

    Attributes
    ----------
    objective, gradient_norm, message
        As for :class:`GradientOutputs`.
    n_pairs : int
        Number of strict pairs the lists were rank-broken into.
    slope : float
        Slope of the logistic link that stands in for the normal CDF.
    note : str or None
        Why the fit says nothing about the order (every preference entirely tied);
        ``None`` (and then not a key) otherwise.
    """

    n_pairs: int
    slope: float
    note: str | None = None


@dataclass(frozen=True, eq=False)
class PeerGraderOutputs(Outputs):
    """What PeerGrader reports besides the scores.

    Attributes
    ----------
    reliability : numpy.ndarray of float, shape (R,)
        Reliability ``η`` of every ranker id.
    inner_iterations : int
        L-BFGS iterations in all.
    newton_steps : int
        Newton steps of the reliability updates (0 for the joint solver).
    solver : str
        ``"joint"``, ``"alternating"``, or ``"fixed"`` when the reliabilities were not fitted.
    objective : float
        The objective ``J`` at the end.
    """

    reliability: np.ndarray = field(metadata=_FLOATS)
    inner_iterations: int
    newton_steps: int
    solver: str
    objective: float


@dataclass(frozen=True, eq=False)
class CrowdBTOutputs(Outputs):
    """What CrowdBT reports besides the scores (the posterior means).

    Attributes
    ----------
    reliability : numpy.ndarray of float, shape (R,)
        Posterior mean ``a / (a + b)`` of every ranker id's reliability.
    reliability_a, reliability_b : numpy.ndarray of float, shape (R,)
        The Beta parameters ``a`` and ``b`` of every ranker id's reliability.
    score_variance : numpy.ndarray of float, shape (M,)
        Posterior variance ``σ²`` of every item's score.
    """

    reliability: np.ndarray = field(metadata=_FLOATS)
    reliability_a: np.ndarray = field(metadata=_FLOATS)
    reliability_b: np.ndarray = field(metadata=_FLOATS)
    score_variance: np.ndarray = field(metadata=_FLOATS)


@dataclass(frozen=True, eq=False)
class MixtureOutputs(Outputs):
    """What the PL mixtures (``"pl-mix"``, ``"pl-mix-ranker"``) report besides the scores.

    Attributes
    ----------
    noise_probability : numpy.ndarray of float
        Posterior probability of not being a careful PL answer: one per list
        (``per="list"``) or per ranker id (``per="ranker"``).
    reversed_probability : numpy.ndarray of float
        The same shape: posterior probability of the upside-down component (zeros without it).
    pi : float
        Share of noise, uniform plus reversed.
    pi_uniform, pi_reversed : float
        The two parts of ``pi`` (``pi_reversed`` is 0 without the reversed component).
    per : str
        ``"list"`` or ``"ranker"``: what shares one noise label.
    log_posterior : float
        The objective EM increased, at the end.
    """

    noise_probability: np.ndarray = field(metadata=_FLOATS)
    reversed_probability: np.ndarray = field(metadata=_FLOATS)
    pi: float
    pi_uniform: float
    pi_reversed: float
    per: str
    log_posterior: float


@dataclass(frozen=True, eq=False)
class ConsensusOutputs(MixtureOutputs):
    """What the default consensus (``"consensus"``) reports besides the scores.

    Attributes
    ----------
    noise_probability, reversed_probability : numpy.ndarray of float
        As in :class:`MixtureOutputs`, from the careless-answer mixture that was fitted.
    pi, pi_uniform, pi_reversed : float
        The mixture's noise shares.
    per : str
        ``"list"`` or ``"ranker"`` when the mixture was kept; ``"none"`` when the plain
        Plackett–Luce fit was kept because the mixture was not significantly better.
    log_posterior : float
        The mixture's objective at the end (NaN when no mixture was fitted).
    likelihood_ratio : float
        ``2 (log-posterior of the mixture − log-posterior of plain PL)``, both with the
        mixture's prior: the statistic that decided whether careless answers are present.
    reversed_ratio : float
        ``2 (log-posterior with a third, upside-down component − without it)``: the statistic
        that decided whether some answers read upside down (NaN when not tested).
    reversed_kept : bool
        Whether the mixture holds that upside-down component: its answers then count
        turned over in the refit.
    """

    likelihood_ratio: float = 0.0
    reversed_ratio: float = float("nan")
    reversed_kept: bool = False


@dataclass(frozen=True, eq=False)
class SpammerOutputs(Outputs):
    """What the ``"spammers"`` noise injector reports about the copy it made.

    Attributes
    ----------
    spammers : numpy.ndarray of intp
        The ranker ids made spammers, sorted.
    """

    spammers: np.ndarray = field(metadata=_IDS)


# ------------------------------------------------------------------ results
_BLOCK_ENTRIES = 1 << 22
"""Entries (draws × items) handled at a time by the rank summaries: 32 MB of float64."""
#: Seed of the random order given to equal scores inside a draw (:func:`rank_draws`).
_TIE_BREAK_SEED = 20221


def rank_draws(draws: np.ndarray) -> np.ndarray:
    """Rank (0 = best) of every item in every draw (one row a draw, higher better), shape
    ``(n_draws, M)``.

    Items with equal scores in a draw (a bootstrap refit in which neither ever wins, or
    refits pulled to one value where the data cannot tell the items apart) share out their
    ranks at random, the same way on every call: each of them is first as often, so no
    interval or chance rests on the order of the item ids. Stored as ``int32`` and sorted a
    block of draws at a time, so the temporaries stay small next to the draws.
    """
    n_draws, n_items = draws.shape
    ranks = np.empty((n_draws, n_items), dtype=np.int32 if n_items < 2**31 else np.intp)
    positions = np.arange(n_items, dtype=ranks.dtype)[None, :]
    step = max(1, _BLOCK_ENTRIES // max(n_items, 1))
    for lo in range(0, n_draws, step):
        block = draws[lo:lo + step]
        ordered = np.negative(block)
        order = np.argsort(ordered, axis=1, kind="stable")
        ordered.sort(axis=1)  # in place: equal neighbours mark the draws with ties
        tied = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        del ordered
        # only draws holding equal scores are sorted again, by random keys of their own
        for row in tied:
            keys = np.random.default_rng((_TIE_BREAK_SEED, lo + row)).random(n_items)
            order[row] = np.lexsort((keys, -block[row]))
        np.put_along_axis(ranks[lo:lo + step], order, positions, axis=1)
    ranks.flags.writeable = False
    return ranks


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
        :mod:`coarsenrank_core.results` whose class is the method family's
        (:class:`~coarsenrank_core.results.CrowdBTOutputs`,
        :class:`~coarsenrank_core.results.PeerGraderOutputs`,
        :class:`~coarsenrank_core.results.MixtureOutputs`,
        :class:`~coarsenrank_core.results.GradientOutputs`,
        :class:`~coarsenrank_core.results.ThurstoneOutputs`,
        :class:`~coarsenrank_core.results.BradleyTerryOutputs`), or an empty
        :class:`~coarsenrank_core.results.Outputs` for methods with nothing more to report.
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
            raise TypeError("extra must be a record of coarsenrank_core.results (an Outputs), "
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
        """Rank (0 = best) of every item in every draw, shape ``(n_draws, M)`` (computed once
        by :func:`rank_draws`, whose ties are shared out at random)."""
        return rank_draws(self.draws)

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
