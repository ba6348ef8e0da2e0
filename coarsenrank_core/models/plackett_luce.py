"""CoarsenPL: the tempered Plackett–Luce posterior, fitted by closed-form EM or exact Gibbs."""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import xlogy

from ..errors import Progress, ShouldStop, check_stop
from ..preferences import Preferences
from ..results import PosteriorResult, RankingResult, tempering
from ._solver import squarem_step
from .stages import StageDesign

#: ``calibration``: ``"auto"``, ``"paper"``, a constant C, or None (no calibration).
Calibration = str | float | None
#: The distinct choice sets of a design: set of each entry, item of each entry, counts.
_Sets = tuple[np.ndarray, np.ndarray, np.ndarray]

__all__ = ["coarsen_pl", "pl_em", "coarsen_pl_gibbs", "pl_log_likelihood",
           "tempered_log_posterior", "resolve_calibration", "em_start", "initial_scores"]


def _check_prior(prior: Sequence[float]) -> tuple[float, float]:
    a, b = (float(v) for v in prior)
    if not (a > 0 and b > 0 and np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"the Gamma prior needs a > 0 and b > 0 (got a={a}, b={b})")
    return a, b


def resolve_calibration(calibration: Calibration, n_items: int, a: float = 2.0,
                        tau: float = 1.0) -> float | None:
    """Turn the ``calibration`` argument into the constant C (or ``None``).

    ``None`` means no calibration; ``"paper"`` means ``M / 2`` (paper §6.1); a positive
    number is used as it is. ``"auto"`` means ``"paper"`` when ``a = 1`` and ``τ < 1`` and
    ``None`` otherwise.

    With ``a = 1``, ``τ < 1`` and no calibration the tempered MAP does not exist: the PL
    likelihood is scale-free, so EM shrinks θ towards 0 along the plain-PL direction and α
    has no effect on the order. That combination raises ``ValueError`` instead of returning
    a fit on which α is silently ignored.
    """
    if isinstance(calibration, str) and calibration == "auto":
        calibration = "paper" if a == 1.0 and tau < 1.0 else None
    if calibration is None:
        if a == 1.0 and tau < 1.0:
            raise ValueError(
                "with a = 1 and no calibration α has no effect (the PL likelihood is "
                "scale-free, so the tempered MAP shrinks to 0 along the plain-PL direction). "
                "Use calibration='paper' (θ ← (M/2)·θ/Σθ, paper §6.1), a number C, or a > 1.")
        return None
    if isinstance(calibration, str):
        if calibration != "paper":
            raise ValueError("calibration must be None, 'auto', 'paper' or a number, "
                             f"not {calibration!r}")
        return n_items / 2
    value = float(calibration)
    if not value > 0:
        raise ValueError(f"the calibration constant must be positive (got {value})")
    return value


def pl_log_likelihood(prefs: Preferences, scores: ArrayLike,
                      per_preference: bool = False) -> float | np.ndarray:
    """Plackett–Luce log-likelihood of the preferences (paper Eq. (19)).

    Ties follow Breslow's rule (see :func:`coarsen_pl`). Weights multiply each
    preference's contribution.

    Parameters
    ----------
    prefs : Preferences
    scores : array, shape (M,)
        Non-negative worths θ.
    per_preference : bool
        Return ``log P_θ(ρ_n)`` of every preference (unweighted) instead of the weighted sum.
    """
    design: StageDesign = prefs.stages
    return design.log_likelihood(np.asarray(scores, dtype=float), per_preference)


def tempered_log_posterior(prefs: Preferences, scores: ArrayLike, alpha: float = np.inf,
                           prior: Sequence[float] = (1.0, 2.0)) -> float:
    """The tempered log-posterior that EM increases (paper Eq. (26)).

    ``(a−1) Σ log θ − b Σ θ + τ Σ_n w_n log P_θ(ρ_n)``, up to a constant. Uses ``xlogy``
    so that ``θ_m = 0`` with ``a = 1`` contributes 0.
    """
    a, b = _check_prior(prior)
    theta = np.asarray(scores, dtype=float)
    tau = tempering(alpha, prefs.total_weight)
    return float(np.sum(xlogy(a - 1, theta)) - b * theta.sum()
                 + tau * pl_log_likelihood(prefs, theta))


#: Iterations between two calls of ``should_stop`` in the EM loops.
STOP_EVERY = 5


def coarsen_pl(prefs: Preferences, alpha: float = np.inf,
               prior: Sequence[float] = (1.0, 2.0), calibration: Calibration = "auto",
               max_iter: int = 500, tol: float = 1e-8, init: ArrayLike | None = None,
               trace: bool = False, *, n_for_tau: float | None = None,
               accelerate: bool | None = None, should_stop: ShouldStop | None = None,
               design: Any = None) -> RankingResult:
    """Fit CoarsenPL by the closed-form EM of paper Algorithm 1.

    Each iteration computes ``E[ξ] = 1/η`` for every choice stage (paper Eq. (27))
    and then ``θ_m = (τ W_m + a − 1) / (τ D_m + b)`` (paper Eq. (29)), where ``W_m`` counts the
    stages item ``m`` wins and ``D_m`` sums
    ``1/η`` over the stages whose choice set holds ``m``; preference weights multiply both
    sums. Without calibration this is an MM
    algorithm: the tempered log-posterior never decreases and the fixed point is its
    maximum (MAP). With ``a = 1`` items that never win reach ``θ = 0`` exactly.

    Identical preferences are merged into one of summed weight first
    (:attr:`Preferences.pooled`): the sums above are weighted, so the iterates are the same
    up to rounding. When the fit runs to a tolerance the iterations are accelerated by
    SQUAREM (Varadhan & Roland 2008), which converges to the same fixed point with far
    fewer passes over the data.

    Ties use Breslow's rule: a tied group at a stage counts as each of its members being
    chosen from the same remaining set. A trailing group of size ``d ≥ 2`` therefore adds
    ``d`` stages; a trailing single item adds none.

    Parameters
    ----------
    prefs : Preferences
    alpha : float
        Size of the KL neighbourhood's exponential prior; ``τ = α / (α + N)`` with ``N`` the
        total weight (paper Eq. (20)). ``inf`` gives the plain PL-EM (``τ = 1``).
    prior : (float, float)
        Gamma(a, rate b) prior of every θ_m; EM needs ``a ≥ 1``.
    calibration : "auto", None, "paper" or float
        After each step rescale ``θ ← C θ / Σθ`` (paper §6.1). ``None``: no calibration,
        the exact MAP. ``"paper"``: ``C = M / 2``. Calibration breaks monotonicity.
        ``"auto"`` (default): ``"paper"`` when ``a = 1`` and ``α < ∞``, else ``None``.
        With ``a = 1`` and ``α < ∞`` the uncalibrated MAP does not exist and α would have
        no effect on the order, so ``None`` raises ``ValueError`` there.
    max_iter : int
        Maximum number of EM steps (each is one pass over the data, also inside SQUAREM).
    tol : float
        Stop when ``Σ|θ_new − θ| / Σ|θ| < tol`` for a plain EM step. ``0`` runs exactly
        ``max_iter`` plain EM iterations (the paper's timing protocol) and ``converged``
        is then ``None``: there is no stopping rule.
    init : array, optional
        Initial scores; default ``a / b`` for every item, as the authors do.
    trace : bool
        Record the tempered log-posterior after every update (costs one likelihood
        evaluation per update).
    n_for_tau : float, optional
        The ``N`` in ``τ = α / (α + N)``; default the total weight of ``prefs``. CoarsenBT
        passes the number of original preferences here.
    accelerate : bool, optional
        Use SQUAREM; default: when ``tol > 0``. ``False`` runs plain EM.
    should_stop : callable, optional
        Called every :data:`STOP_EVERY` iterations; when it returns true the fit raises
        :class:`coarsenrank_core.errors.Cancelled`. Not recorded in ``params``.
    design : optional
        The sums of the data to use instead of ``prefs.pooled.stages``: any object with
        ``wins``, ``exposure(theta, scale)`` and ``log_likelihood(theta)`` over the same
        preferences (e.g. :class:`coarsenrank_core.dask_fit.DaskStages`, whose sums are
        a map over partitions and a reduce). Not recorded in ``params``.

    Returns
    -------
    RankingResult
        ``scores`` are the worths θ; ``tau``, ``iterations``, ``converged``, ``change`` and
        (with ``trace=True``) ``trace`` are filled. ``method`` is ``"coarsen-pl"``.

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]])
    >>> coarsen_pl(prefs, alpha=10).order.tolist()
    [0, 1, 2]
    """
    start = time.perf_counter()
    params = dict(alpha=alpha, prior=tuple(prior), calibration=calibration, max_iter=max_iter,
                  tol=tol, init=init, trace=trace, n_for_tau=n_for_tau, accelerate=accelerate)
    a, b = _check_prior(prior)
    if a < 1:
        raise ValueError(f"EM needs a >= 1 (got a={a}): for a < 1 the M-step can turn negative. "
                         "Use coarsen_pl_gibbs, which works for any a > 0.")
    if max_iter < 1 or tol < 0:
        raise ValueError("max_iter must be >= 1 and tol >= 0")
    tau = tempering(alpha, prefs.total_weight if n_for_tau is None else n_for_tau)
    const = resolve_calibration(calibration, prefs.n_items, a, tau)
    design = prefs.pooled.stages if design is None else design
    theta = np.full(prefs.n_items, a / b) if init is None else np.array(init, dtype=float)
    if theta.shape != (prefs.n_items,) or np.any(theta < 0) or not np.all(np.isfinite(theta)):
        raise ValueError("init must hold M non-negative finite scores")
    numerator = tau * design.wins + (a - 1)
    tiny = np.finfo(float).tiny

    def relative_change(current: np.ndarray, new: np.ndarray) -> float:
        return float(np.abs(new - current).sum() / max(np.abs(current).sum(), tiny))

    def residual(current: np.ndarray, new: np.ndarray) -> float:
        return float(np.abs(new - current).sum())

    def step(current: np.ndarray) -> np.ndarray:
        new = cast(np.ndarray, numerator / (design.exposure(current, tau) + b))
        if const is not None:
            new *= const / new.sum()
        return new

    use_squarem = tol > 0 if accelerate is None else bool(accelerate)
    values = []
    change, met, iteration, step_max = np.inf, False, 0, 1.0
    checked = 0
    while iteration < max_iter:
        if iteration - checked >= STOP_EVERY:
            checked = iteration
            check_stop(should_stop, f"EM was stopped after {iteration} of at most "
                                    f"{max_iter} iterations.")
        if use_squarem and max_iter - iteration >= 3:
            theta, change, used, step_max = squarem_step(step, theta, step_max,
                                                         relative_change, residual=residual)
            iteration += used
        else:
            new = step(theta)
            change = relative_change(theta, new)
            theta = new
            iteration += 1
        if trace:
            values.append(float(np.sum(xlogy(a - 1, theta)) - b * theta.sum()
                                + tau * design.log_likelihood(theta)))
        met = change < tol or change == 0.0
        if met and tol > 0:
            break
    return RankingResult(method="coarsen-pl", scores=theta, iterations=iteration,
                         converged=bool(met) if tol > 0 else None,
                         seconds=time.perf_counter() - start, change=change, tau=tau,
                         params=params, trace=np.array(values) if trace else None)


def pl_em(prefs: Preferences, prior: Sequence[float] = (1.0, 2.0),
          calibration: Calibration = "auto", max_iter: int = 500, tol: float = 1e-8,
          init: ArrayLike | None = None, trace: bool = False, *,
          accelerate: bool | None = None,
          should_stop: ShouldStop | None = None, design: Any = None) -> RankingResult:
    """Plain Plackett–Luce by EM (Caron & Doucet 2012): :func:`coarsen_pl` with ``α = ∞``.

    The paper's "PL-EM" baseline. It takes no ``alpha``, so a comparison that passes one
    α to every method leaves it untempered.
    """
    fit = coarsen_pl(prefs, alpha=np.inf, prior=prior, calibration=calibration,
                     max_iter=max_iter, tol=tol, init=init, trace=trace,
                     accelerate=accelerate, should_stop=should_stop, design=design)
    return replace(fit, method="pl-em")


#: Preferences per block from which the sampler walks the list positions one vectorised
#: step at a time; below it a block is summed with ``numpy.cumsum`` (along the short axis
#: of a wide block that costs several times more than the steps).
POSITION_STEP_ROWS = 64


class _SweepBlock:
    """One block of a :class:`_SweepLayout`: ``n`` preferences of ``k`` items, position-major.

    ``items`` is ``(k, n)`` (``intp``); ``stages`` the positions that open a choice set
    (``k − 1`` for strict orders, ``k`` with ties, where ``counts`` is zero at the
    positions that open none). ``counts`` is the weighted number of stages at each set:
    ``None`` (one each), ``(n,)`` row weights, or ``(k, n)`` with ties.
    """

    def __init__(self, block: Any, tau: float) -> None:
        self.items = np.ascontiguousarray(np.asarray(block.items).T, dtype=np.intp)
        k, n = self.items.shape
        self.flat = self.items.ravel()
        self.n = n
        self.step = n >= POSITION_STEP_ROWS
        # buffers reused by every sweep (a fresh array of this size costs page faults)
        self.values = np.empty((k, n))
        self.eta = np.empty((k, n))
        self.running = np.empty((k, n))
        self.per_stage = np.empty((k, n))
        weights = None if block.weights is None else np.asarray(block.weights, dtype=float)
        self.tied = block.multiplicity is not None
        self.heavy: np.ndarray | None = None
        if self.tied:
            counts = np.asarray(block.multiplicity, dtype=float)
            if weights is not None:
                counts = counts * weights[:, None]
            self.stages = k
            self.counts: np.ndarray | None = np.ascontiguousarray(counts.T)
            shape = tau * counts  # (n, k), drawn in this row-major order
            self.positive = shape > 0
            self.shape = shape[self.positive]
        else:
            self.stages = k - 1
            self.counts = weights
            self.xi = np.empty((n, k - 1))
            if weights is not None:
                heavy = np.flatnonzero(weights != 1.0)
                if heavy.size:
                    self.heavy = heavy
                    self.shape = np.ascontiguousarray(np.broadcast_to(
                        (tau * weights[heavy])[:, None], (heavy.size, k - 1)))

    def set_sums(self, theta: np.ndarray) -> np.ndarray:
        """``η`` of every position: the sum of θ from that position to the end, ``(k, n)``."""
        values = np.take(theta, self.items, out=self.values)
        if not self.step:
            self.eta[::-1] = np.cumsum(values[::-1], axis=0)
            return self.eta
        eta = self.eta
        eta[-1] = values[-1]
        for j in range(eta.shape[0] - 2, -1, -1):
            np.add(eta[j + 1], values[j], out=eta[j])
        return eta

    def draw(self, tau: float, rng: np.random.Generator) -> np.ndarray:
        """Unit-rate ``Gamma(τ·counts)`` draws of every stage, ``(stages, n)`` (a view).

        Drawn in the row-major order of :meth:`StageDesign.sample_exposure`, so that a seed
        gives the same chain as that layout.
        """
        if self.tied:
            some = np.zeros((self.n, self.stages))
            some[self.positive] = rng.standard_gamma(self.shape)
            return cast(np.ndarray, some.T)
        xi: np.ndarray = rng.standard_gamma(tau, size=(self.n, self.stages), out=self.xi)
        if self.heavy is not None:
            xi[self.heavy] = rng.standard_gamma(self.shape)
        return cast(np.ndarray, xi.T)

    def add_exposure(self, per_stage: np.ndarray, out: np.ndarray) -> None:
        """Add to ``out[m]`` the per-stage values of every stage whose set holds ``m``."""
        running, stages = self.running, self.stages
        if not self.step:
            running[:stages] = np.cumsum(per_stage, axis=0)
        else:
            running[0] = per_stage[0]
            for j in range(1, stages):
                np.add(running[j - 1], per_stage[j], out=running[j])
        if stages < running.shape[0]:  # strict: the last item is in every set of its list
            running[stages] = running[stages - 1]
        out += np.bincount(self.flat, weights=running.ravel(), minlength=out.size)

    def log_set_sums(self, eta: np.ndarray) -> float:
        """``Σ counts · log η`` over the stages (the denominator of Eq. (19))."""
        logs = np.log(eta[:self.stages])
        if self.counts is None:
            return float(logs.sum())
        if self.tied:
            return float(np.sum(self.counts * logs))
        return float(np.einsum("jn,n->", logs, self.counts))  # no BLAS, see _dot


class _SweepLayout:
    """The choice stages of a :class:`~coarsenrank_core.models.stages.StageDesign`, for Gibbs.

    Every block of ``n`` preferences of ``k`` items becomes a ``(k, n)`` matrix of item ids,
    so that the set sums ``η`` and, per item, the sums over the stages whose set holds it
    are one vectorised pass per list position. A sweep also returns ``Σ counts · log η`` of
    the θ it started from, so the untempered log-likelihood of every kept draw (paper
    Eq. (19)) costs one ``log`` per stage instead of a second pass over the data.
    """

    def __init__(self, design: Any, tau: float) -> None:
        self.tau = tau
        self.wins = np.asarray(design.wins, dtype=float)
        self.blocks = [_SweepBlock(block, tau) for block in design.blocks]

    def sweep(self, theta: np.ndarray, rng: np.random.Generator,
              log_likelihood: bool = False) -> tuple[np.ndarray, float]:
        """``Σ ξ`` per item with ``ξ ~ Gamma(τ·counts, η)`` (Algorithm 2, Eq. (30)).

        Returns the exposure and, when asked, the untempered log-likelihood of ``theta``
        (``nan`` otherwise).
        """
        out = np.zeros(self.wins.size)
        denominator = 0.0
        for block in self.blocks:
            eta = block.set_sums(theta)
            xi = block.draw(self.tau, rng)
            per_stage = np.divide(xi, eta[:block.stages], out=block.per_stage[:block.stages])
            block.add_exposure(per_stage, out)
            if log_likelihood:
                denominator += block.log_set_sums(eta)
        value = (float(np.sum(xlogy(self.wins, theta))) - denominator if log_likelihood
                 else float("nan"))
        return out, value

    def log_likelihood(self, theta: np.ndarray) -> float:
        """Untempered PL log-likelihood of ``theta`` (paper Eq. (19))."""
        return float(np.sum(xlogy(self.wins, theta))) - sum(
            block.log_set_sums(block.set_sums(theta)) for block in self.blocks)


#: Fewest choice stages for which the sampler looks for stages that share their choice set
#: (below it a sweep costs microseconds either way, and a seed keeps the per-stage chain).
MERGE_MIN_STAGES = 4096
#: Most stages, and most sorted entries per stage, for which it looks (the search sorts
#: every stage's set once per design; long lists rarely share their longer sets).
MERGE_MAX_STAGES, MERGE_MAX_ENTRIES_PER_STAGE = 1 << 22, 16
#: Cost of one Gamma draw with its own shape and of one set entry in the two sparse
#: products, against one stage of the position-major sweep (measured: about 29 ns, 2 ns and
#: 30 ns on simulated lists of 5 and 10 items); the shared sets are used when they cost
#: less than this share of the position-major sweep.
SET_DRAW_COST, SET_ENTRY_COST, MERGE_WORTH = 1.0, 0.1, 0.7

_SHARED_SETS: weakref.WeakKeyDictionary[Any, _Sets | None] = weakref.WeakKeyDictionary()
_SHARED_SETS_LOCK = threading.Lock()


def _stage_sets(design: Any) -> _Sets | None:
    """The distinct choice sets of ``design``'s stages, when sharing them pays.

    Returns ``(set_of_entry, item_of_entry, counts)``: the items of every distinct set
    (one entry per member) and the weighted number of stages whose choice set it is, or
    ``None`` when the position-major sweep is cheaper. Computed once per design.
    """
    with _SHARED_SETS_LOCK:
        try:
            if design in _SHARED_SETS:
                return _SHARED_SETS[design]
        except TypeError:  # a design that cannot be weakly referenced: found every run
            pass
    stages = entries = 0
    for block in design.blocks:
        n, k = block.items.shape
        last = k if block.multiplicity is not None else k - 1
        stages += n * last
        entries += n * (last * (last + 3) // 2)  # the sorted sets: k(k+1)/2 − 1 when strict
    found = None
    if (MERGE_MIN_STAGES <= stages <= MERGE_MAX_STAGES
            and entries <= MERGE_MAX_ENTRIES_PER_STAGE * stages):
        found = _distinct_sets(design, stages)
    with _SHARED_SETS_LOCK, contextlib.suppress(TypeError):
        _SHARED_SETS[design] = found
    return found


def _distinct_sets(design: Any, stages: int) -> _Sets | None:
    by_size: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
    for block in design.blocks:
        items = np.asarray(block.items)
        n, k = items.shape
        weights = None if block.weights is None else np.asarray(block.weights, dtype=float)
        tied = block.multiplicity is not None
        for j in range(k if tied else k - 1):  # each list position opens one set per list
            members = np.sort(items[:, j:], axis=1)
            count = np.ones(n) if weights is None else weights
            if tied:
                count = np.asarray(block.multiplicity)[:, j] * count
                members, count = members[count > 0], count[count > 0]
            by_size.setdefault(k - j, []).append((members, count))
    set_of_entry, item_of_entry, counts = [], [], []
    offset = 0
    for size in sorted(by_size):
        table = np.ascontiguousarray(np.concatenate([m for m, _ in by_size[size]]),
                                     dtype=np.int64)
        keys = table.view(np.dtype((np.void, table.itemsize * size))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        counts.append(np.bincount(inverse.ravel(), minlength=first.size,
                                  weights=np.concatenate([c for _, c in by_size[size]])))
        item_of_entry.append(table[first].ravel())
        set_of_entry.append(np.repeat(np.arange(offset, offset + first.size), size))
        offset += first.size
    entries = sum(part.size for part in item_of_entry)
    if SET_DRAW_COST * offset + SET_ENTRY_COST * entries > MERGE_WORTH * stages:
        return None
    return (np.concatenate(set_of_entry), np.concatenate(item_of_entry).astype(np.intp),
            np.concatenate(counts))


class _SharedSetLayout:
    """The stages grouped by choice set: one Gamma draw per distinct set (exact).

    Stages whose choice sets are equal have the same ``η``, and they enter the θ-update only
    through the sum of their ``ξ``: ``c`` such stages (weighted) give
    ``Σ ξ ~ Gamma(c·τ, η)``, the identity that makes merging identical preferences exact
    (paper Algorithm 2, Eq. (30)). On full rankings of few items the sets repeat across
    lists: 5,000 lists of 10 items have 45,000 stages but at most 1,013 distinct sets.
    ``η`` and the exposure are two sparse products with the set–item incidence.
    """

    def __init__(self, design: Any, tau: float, sets: _Sets) -> None:
        from scipy.sparse import csr_matrix  # lazy: only the merged-set layout needs it

        set_of_entry, item_of_entry, counts = sets
        self.wins = np.asarray(design.wins, dtype=float)
        self.counts = counts
        self.shape = tau * counts
        incidence = csr_matrix((np.ones(item_of_entry.size), (set_of_entry, item_of_entry)),
                               shape=(counts.size, self.wins.size))
        self.incidence, self.transposed = incidence, incidence.T.tocsr()

    def sweep(self, theta: np.ndarray, rng: np.random.Generator,
              log_likelihood: bool = False) -> tuple[np.ndarray, float]:
        """As :meth:`_SweepLayout.sweep`, one draw per distinct set."""
        eta = self.incidence @ theta
        exposure = self.transposed @ (rng.standard_gamma(self.shape) / eta)
        value = (float(np.sum(xlogy(self.wins, theta)) - _dot(self.counts, np.log(eta)))
                 if log_likelihood else float("nan"))
        return exposure, value

    def log_likelihood(self, theta: np.ndarray) -> float:
        """Untempered PL log-likelihood of ``theta`` (paper Eq. (19))."""
        return float(np.sum(xlogy(self.wins, theta))
                     - _dot(self.counts, np.log(self.incidence @ theta)))


def _dot(x: np.ndarray, y: np.ndarray) -> float:
    """``x · y`` without BLAS: OpenBLAS threads a long dot product, and on a busy machine
    its threads' handover costs far more than the product (8 ms against 0.01 ms measured
    for 17,000 entries on two shared cores)."""
    return float(np.einsum("i,i->", x, y))


def _layout(design: Any, tau: float) -> _SweepLayout | _SharedSetLayout:
    """The cheaper of the two exact layouts of the sampler for this design."""
    sets = _stage_sets(design)
    return _SweepLayout(design, tau) if sets is None else _SharedSetLayout(design, tau, sets)


def _initial_scores(prefs: Preferences, alpha: float, prior: Sequence[float],
                    warm_start: Any, design: Any = None) -> np.ndarray:
    a, b = prior
    if warm_start is None or warm_start is False:
        return np.full(prefs.n_items, a / b)
    if warm_start is True:
        return cast(np.ndarray, coarsen_pl(prefs, alpha=alpha, prior=(max(a, 1.0), b),
                                           max_iter=10, tol=0.0,
                                           calibration="auto", design=design).scores.copy())
    if isinstance(warm_start, PosteriorResult):  # continue that chain from its last draw
        scores = warm_start.draws[-1]
    else:
        scores = warm_start.scores if isinstance(warm_start, RankingResult) else warm_start
    scores = np.array(scores, dtype=float)
    if scores.shape != (prefs.n_items,) or np.any(scores < 0):
        raise ValueError("warm_start must hold M non-negative scores")
    return scores


def coarsen_pl_gibbs(prefs: Preferences, alpha: float = np.inf,
                     prior: Sequence[float] = (1.0, 2.0), burn_in: int = 100,
                     n_draws: int = 50, thin: int = 1, random_state: Any = None,
                     warm_start: Any = None, interval: float = 0.9, *,
                     should_stop: ShouldStop | None = None,
                     progress: Progress | None = None,
                     design: Any = None) -> PosteriorResult:
    """Sample the tempered PL posterior exactly by Gibbs sampling (corrected Algorithm 2).

    With ``τ = α / (α + N)``, every choice stage of weight ``w`` and choice-set sum ``η``
    gets ``ξ ~ Gamma(shape w·τ, rate η)``, since ``∫ ξ^{wτ−1} e^{−ξη} dξ = Γ(wτ) η^{−wτ}``;
    then ``θ_m ~ Gamma(shape a + τ W_m, rate b + Σ ξ)`` over the stages whose choice set
    holds ``m``. τ sits in ξ's shape only. This samples ``prior(θ) Π_n P_θ(ρ_n)^{w_n τ}``
    exactly, for any ``a > 0``; the paper's printed sampler (Eqs. (30)–(31)) does not
    (README, "Where this package departs from the printed paper").

    The same Gamma identity makes merging identical preferences exact: ``w`` identical
    stages with ``ξ_i ~ Gamma(τ, η)`` enter the θ-update only through ``Σ ξ_i``, which is
    ``Gamma(wτ, η)``. The sampler therefore runs on :attr:`Preferences.pooled` (one stage
    per distinct choice set), with the same stationary distribution.

    The identity goes one step further: stages of *different* preferences whose choice sets
    are equal share ``η``, so ``c`` of them (weighted) take one ``Gamma(cτ, η)`` draw. When
    sets repeat enough to pay (full rankings of few items: the SUSHI shape, 5,000 lists of
    10 items, has 45,000 stages but 926 distinct sets) the sampler draws once per set,
    below NumPy's floor of one Gamma draw per stage; otherwise it lays the stages out
    position-major, so every step besides the Gamma draws is a vectorised pass per list
    position (about 1.35 times that floor). ``benchmarks/engine.py`` prints both.

    Parameters
    ----------
    prefs : Preferences
    alpha : float
        As for :func:`coarsen_pl`.
    prior : (float, float)
        Gamma(a, rate b) prior; any ``a > 0``.
    burn_in, n_draws, thin : int
        Sweeps discarded, draws kept, and sweeps per kept draw.
    random_state : None, int, numpy.random.Generator or SeedSequence
        Seed of the sampler.
    warm_start : None, True, array, RankingResult or PosteriorResult
        Initial θ: the prior mean ``a / b`` (None), 10 EM steps (True), given scores (an
        array or a fit, e.g. the EM consensus at the same α), or the last draw of an
        earlier chain (a PosteriorResult).
    interval : float
        Level of the central credible intervals in ``lower``/``upper``.
    should_stop : callable, optional
        Called every :data:`STOP_EVERY` sweeps; when it returns true the sampler raises
        :class:`coarsenrank_core.errors.Cancelled`. Not recorded in ``params``.
    progress : callable, optional
        ``progress(done, total)`` with the sweeps done of ``burn_in + n_draws · thin``,
        called every :data:`STOP_EVERY` sweeps and once at the end. Not recorded in
        ``params``.
    design : PartitionedDesign, optional
        The data cut into partitions (in this process,
        :class:`~coarsenrank_core.models.partitioned.PartitionedDesign`, or on Dask,
        :class:`~coarsenrank_core.dask_fit.DaskStages`): every sweep is a map over the
        partitions, each drawing from its own per-sweep seed, and the EM warm start uses
        the same sums. Same posterior; another random stream than without it. Not
        recorded in ``params``.

    Returns
    -------
    PosteriorResult
        ``draws`` (n_draws, M), ``scores``/``mean`` the posterior mean, ``lower``/``upper``,
        and the largest split-R̂ of the log-draws in ``max_split_rhat``. ``converged`` is
        ``None``: a sampler has no stopping rule.
    """
    return _gibbs(prefs, alpha, prior, burn_in, n_draws, thin, random_state, warm_start,
                  interval, should_stop, log_likelihood=False, progress=progress,
                  design=design)[0]


def coarsen_pl_gibbs_fit_trace(prefs: Preferences, alpha: float = np.inf,
                               prior: Sequence[float] = (1.0, 2.0), burn_in: int = 100,
                               n_draws: int = 50, thin: int = 1, random_state: Any = None,
                               warm_start: Any = None, interval: float = 0.9, *,
                               should_stop: ShouldStop | None = None,
                               progress: Progress | None = None, design: Any = None
                               ) -> tuple[PosteriorResult, np.ndarray]:
    """:func:`coarsen_pl_gibbs`, and the untempered log-likelihood of every kept draw.

    The second value holds ``log P_θ(R_N)`` (paper Eq. (19), weighted) of each row of
    ``draws``: the terms whose mean is ``f`` of the DIC (paper Eq. (33), §4.5). Each is
    read off the choice-set sums ``η`` that the next sweep computes anyway, so it costs one
    ``log`` per stage instead of a second pass over the data. Same chain, same draws as
    :func:`coarsen_pl_gibbs` with the same arguments.
    """
    post, values = _gibbs(prefs, alpha, prior, burn_in, n_draws, thin, random_state,
                          warm_start, interval, should_stop, log_likelihood=True,
                          progress=progress, design=design)
    assert values is not None
    return post, values


def _gibbs(prefs: Preferences, alpha: float, prior: Sequence[float], burn_in: int,
           n_draws: int, thin: int, random_state: Any, warm_start: Any, interval: float,
           should_stop: ShouldStop | None, log_likelihood: bool,
           progress: Progress | None = None,
           design: Any = None) -> tuple[PosteriorResult, np.ndarray | None]:
    start = time.perf_counter()
    params = dict(alpha=alpha, prior=tuple(prior), burn_in=burn_in, n_draws=n_draws, thin=thin,
                  random_state=random_state, warm_start=warm_start, interval=interval)
    a, b = _check_prior(prior)
    if burn_in < 0 or n_draws < 1 or thin < 1:
        raise ValueError("burn_in must be >= 0, n_draws >= 1 and thin >= 1")
    if not 0 < interval < 1:
        raise ValueError("interval must lie strictly between 0 and 1")
    rng = np.random.default_rng(random_state)
    tau = tempering(alpha, prefs.total_weight)
    layout = _layout(prefs.pooled.stages, tau) if design is None else design.sampler(tau, rng)
    theta = _initial_scores(prefs, alpha, (a, b), warm_start, design)
    shape = a + tau * layout.wins
    tiny = np.finfo(float).tiny
    draws = np.empty((n_draws, prefs.n_items))
    values = np.empty(n_draws) if log_likelihood else None
    total = burn_in + n_draws * thin
    current = -1  # the row of ``draws`` that theta is, or -1
    for sweep in range(total):
        if sweep % STOP_EVERY == 0 and sweep:
            check_stop(should_stop, f"The Gibbs sampler was stopped after {sweep} of "
                                    f"{total} sweeps.")
            if progress is not None:
                progress(sweep, total)
        exposure, value = layout.sweep(theta, rng, values is not None and current >= 0)
        if values is not None and current >= 0:
            values[current] = value
        theta = np.maximum(rng.standard_gamma(shape) / (b + exposure), tiny)
        kept = sweep - burn_in
        current = -1
        if kept >= 0 and (kept + 1) % thin == 0:
            current = kept // thin
            draws[current] = theta
    if values is not None:
        values[-1] = layout.log_likelihood(draws[-1])
    if progress is not None:
        progress(total, total)
    tail = (1 - interval) / 2
    lower, upper = np.quantile(draws, [tail, 1 - tail], axis=0)
    rhat = split_rhat(np.log(draws))
    post = PosteriorResult(
        method="coarsen-pl-gibbs", scores=draws.mean(axis=0), iterations=total,
        converged=None, seconds=time.perf_counter() - start, tau=tau, params=params,
        draws=draws, lower=lower, upper=upper, interval_level=interval, max_split_rhat=rhat)
    return post, values


def split_rhat(draws: np.ndarray) -> float:
    """Largest split-R̂ (Gelman et al., BDA3 §11.4) over the columns of ``draws``.

    The chain is cut into halves; values near 1 mean the halves agree. ``nan`` when there
    are fewer than 4 draws.
    """
    half = draws.shape[0] // 2
    if half < 2:
        return float("nan")
    chains = np.stack([draws[:half], draws[half:2 * half]])
    within = chains.var(axis=1, ddof=1).mean(axis=0)
    between = half * chains.mean(axis=1).var(axis=0, ddof=1)
    pooled = (half - 1) / half * within + between / half
    with np.errstate(divide="ignore", invalid="ignore"):
        rhat = np.sqrt(np.where(within > 0, pooled / within, 1.0))
    return float(np.max(rhat))


def em_start(prefs: Preferences, max_iter: int = 100, tol: float = 1e-6) -> np.ndarray:
    """Log-worths from a short accelerated PL-EM, centred: the warm start of the L-BFGS fits.

    Uses :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl` at ``α = ∞`` with a Gamma(2, 1)
    prior (so every worth stays positive and the scale is near 1, where the virtual-node
    and Gaussian terms of the L-BFGS objectives put it). It is only a starting point: the
    L-BFGS methods then converge to their own optimum.
    """
    if len(prefs) == 0:
        return np.zeros(prefs.n_items)
    theta = coarsen_pl(prefs, alpha=np.inf, prior=(2.0, 1.0), calibration=None,
                       max_iter=max_iter, tol=tol).scores
    s = np.log(np.maximum(theta, 1e-300))
    return cast(np.ndarray, s - s.mean())


def initial_scores(init: ArrayLike | str | None, n_items: int,
                   prefs: Preferences | None = None) -> np.ndarray:
    if isinstance(init, str):
        if init != "em" or prefs is None:
            raise ValueError(f"init must be None, 'em' or M scores, not {init!r}")
        return em_start(prefs)
    if init is None:
        return np.zeros(n_items)
    scores = np.array(init, dtype=float)
    if scores.shape != (n_items,) or not np.all(np.isfinite(scores)):
        raise ValueError("init must hold M finite scores")
    return scores
