"""Choosing the tempering power τ from the data: Syring & Martin's calibration and SafeBayes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .frozen import FrozenDict, readonly_array, restore_readonly
from .models.plackett_luce import coarsen_pl, coarsen_pl_gibbs
from .preferences import MIN_WEIGHT, Preferences
from .results import PosteriorResult
from .uncertainty import shortest_rank_runs

__all__ = ["LearningRate", "tempered_posterior", "calibrate_tau", "safe_bayes_tau",
           "SAFE_BAYES_TAUS"]

#: τ values SafeBayes compares: 1, ½, …, 1/256.
SAFE_BAYES_TAUS = tuple(2.0 ** -np.arange(9))


@dataclass(frozen=True)
class LearningRate:
    """A tempering power ``τ`` chosen from the data.

    Attributes
    ----------
    rule : str
        ``"calibrated"`` (:func:`calibrate_tau`) or ``"safe-bayes"`` (:func:`safe_bayes_tau`).
    tau : float
        The chosen power on the likelihood; above 1 when the plain posterior over-covers.
    alpha : float
        The CoarsenRank α with ``τ = α / (α + N)`` (paper Eq. (20)); ``inf`` when ``τ ≥ 1``.
    taus, criterion : ndarray
        Every ``τ`` tried, in order, and what the rule measured there: coverage of the
        full-data ranks (calibration) or the cumulative log-loss per predicted list
        (SafeBayes).
    iterations : int
        Values of ``τ`` tried.
    converged : bool
        Calibration: coverage within ``tol`` of the level. SafeBayes: the minimum lies
        inside the grid, not at its lower end.
    seconds : float
    params : mapping
        The arguments, stored untouched.
    """

    rule: str
    tau: float
    alpha: float
    taus: np.ndarray
    criterion: np.ndarray
    iterations: int
    converged: bool
    seconds: float
    params: FrozenDict = field(default_factory=FrozenDict)

    def __post_init__(self):
        object.__setattr__(self, "taus", readonly_array(self.taus))
        object.__setattr__(self, "criterion", readonly_array(self.criterion))
        object.__setattr__(self, "params", FrozenDict(self.params))

    __setstate__ = restore_readonly


def _alpha_of(tau: float, n: float) -> float:
    return float(np.inf) if tau >= 1 else tau * n / (1 - tau)


def tempered_posterior(prefs: Preferences, tau: float, weights: np.ndarray | None = None,
                       n_draws: int = 200, burn_in: int = 100, random_state: Any = None,
                       warm_start: Any = None) -> PosteriorResult:
    """Gibbs draws from ``prior(θ) · Π_n P_θ(ρ_n)^{τ w_n}`` for any ``τ > 0``.

    The power sits on the weights (paper Eq. (20) with ``α = ∞``), so ``τ`` may exceed 1,
    which ``τ = α / (α + N)`` cannot.

    Parameters
    ----------
    prefs : Preferences
    tau : float
        Power on every preference's likelihood; positive.
    weights : array, shape (N,), optional
        Replaces the preferences' own weights (e.g. a bootstrap's).
    n_draws, burn_in : int
        Gibbs draws kept and sweeps discarded.
    random_state : None, int or numpy.random.Generator
    warm_start : optional
        As for :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl_gibbs`.

    Returns
    -------
    PosteriorResult
        Its ``tau`` and ``params`` are the sampler's (``α = ∞`` on the scaled weights).
    """
    if not tau > 0:
        raise ValueError(f"tau must be positive (got {tau})")
    base = np.asarray(prefs.weights if weights is None else weights, dtype=float)
    tempered = prefs._replace(weights=np.clip(tau * base, MIN_WEIGHT, None))
    return coarsen_pl_gibbs(tempered, alpha=np.inf, burn_in=burn_in, n_draws=n_draws,
                            random_state=random_state, warm_start=warm_start)


def calibrate_tau(prefs: Preferences, level: float = 0.9, n_boot: int = 25,
                  n_draws: int = 200, burn_in: int = 100, bounds: tuple = (2.0 ** -8, 4.0),
                  tol: float = 0.01, max_iter: int = 12, random_state: Any = 0
                  ) -> LearningRate:
    """The τ whose rank intervals cover the full-data ranks at ``level`` under the bootstrap.

    Syring & Martin's generalized posterior calibration (Biometrika 106, 2019, Algorithm 1)
    for rank intervals: draw ``n_boot`` Bayesian-bootstrap reweightings of the rankers
    (each list its own ranker without ids), sample the τ-posterior of each, and measure how
    often the ``level`` interval of an item's rank holds its rank in the full-data fit
    (PL-EM at α = ∞). An item's interval is read as the package's default reads its
    bootstrap: the shortest run of ranks holding at least ``level`` of the draws (a central
    interval of a diffuse posterior misses the first and last ranks, so its coverage stops
    rising near ``level`` and leaves τ unidentified). Coverage falls as τ grows; the root of
    ``coverage(τ) = level`` is found by bisection on ``log τ`` inside ``bounds``, with the
    same reweightings and sampler seeds at every τ (common random numbers), instead of the
    paper's stochastic-approximation steps, which solve the same equation.

    Parameters
    ----------
    prefs : Preferences
    level : float
        Nominal level of the rank intervals.
    n_boot : int
        Bootstrap reweightings.
    n_draws, burn_in : int
        Gibbs draws kept and discarded for each reweighting.
    bounds : (float, float)
        Smallest and largest τ tried.
    tol : float
        Stop when the coverage is this close to ``level``.
    max_iter : int
        Most values of τ tried.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    LearningRate
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1 (got {level})")
    start = time.perf_counter()
    params = dict(level=level, n_boot=n_boot, n_draws=n_draws, burn_in=burn_in,
                  bounds=tuple(bounds), tol=tol, max_iter=max_iter, random_state=random_state)
    rng = np.random.default_rng(random_state)
    fit = coarsen_pl(prefs, alpha=np.inf)
    full, reference = fit.scores, fit.ranks
    base = np.asarray(prefs.weights, dtype=float)
    shares = np.maximum(rng.exponential(size=(n_boot, prefs.n_rankers)), MIN_WEIGHT)
    weights = base * shares[:, prefs.ranker_index]
    seeds = rng.integers(2**63, size=n_boot)
    warm = full if np.all(full > 0) else None

    def coverage(tau: float) -> float:
        hits = []
        for b in range(n_boot):
            post = tempered_posterior(prefs, tau, weights[b], n_draws, burn_in, seeds[b], warm)
            low, high = shortest_rank_runs(post.draw_ranks, level)
            hits.append(np.mean((low <= reference) & (reference <= high)))
        return float(np.mean(hits))

    taus, values = [1.0], [coverage(1.0)]
    if abs(values[0] - level) > tol:
        too_wide = values[0] > level  # then a larger τ narrows the posterior
        lo, hi = (0.0, np.log(bounds[1])) if too_wide else (np.log(bounds[0]), 0.0)
        taus.append(float(np.exp(hi if too_wide else lo)))
        values.append(coverage(taus[-1]))
        bracketed = (values[-1] > level) != too_wide
        while bracketed and len(taus) < max_iter:
            mid = (lo + hi) / 2
            taus.append(float(np.exp(mid)))
            values.append(coverage(taus[-1]))
            if abs(values[-1] - level) <= tol:
                break
            lo, hi = (mid, hi) if values[-1] > level else (lo, mid)
    gaps = np.abs(np.asarray(values) - level)
    best = int(np.argmin(gaps))
    return LearningRate(rule="calibrated", tau=taus[best],
                        alpha=_alpha_of(taus[best], prefs.total_weight),
                        taus=np.asarray(taus), criterion=np.asarray(values),
                        iterations=len(taus), converged=bool(gaps[best] <= tol),
                        seconds=time.perf_counter() - start, params=FrozenDict(params))


def safe_bayes_tau(prefs: Preferences, taus=SAFE_BAYES_TAUS, n_blocks: int = 10,
                   n_draws: int = 100, burn_in: int = 100, random_state: Any = 0
                   ) -> LearningRate:
    """The τ whose posteriors predict the next rankers' lists best (R-log-SafeBayes).

    Grünwald & van Ommen (Bayesian Analysis 12, 2017): with the rankers in a random order
    and cut into ``n_blocks`` blocks, the τ-posterior of the first ``k`` blocks predicts
    block ``k + 1`` with the loss ``E_θ[−log P_θ(ρ)]`` (posterior mean of the PL log-loss,
    paper Eq. (19)); the τ of least cumulative loss is chosen. A misspecified model whose
    plain posterior is too sure of itself predicts worse at τ = 1 than at a smaller τ.

    Parameters
    ----------
    prefs : Preferences
    taus : sequence of float
        Powers compared, each in (0, 1].
    n_blocks : int
        Blocks of rankers (at least 2).
    n_draws, burn_in : int
        Gibbs draws kept and discarded for every posterior.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    LearningRate
        ``criterion`` is the cumulative log-loss per predicted list at each τ.
    """
    if n_blocks < 2:
        raise ValueError(f"n_blocks must be at least 2 (got {n_blocks})")
    taus = np.asarray(taus, dtype=float)
    if taus.size == 0 or np.any(taus <= 0) or np.any(taus > 1):
        raise ValueError("every tau must lie in (0, 1]")
    start = time.perf_counter()
    params = dict(taus=tuple(taus.tolist()), n_blocks=n_blocks, n_draws=n_draws,
                  burn_in=burn_in, random_state=random_state)
    rng = np.random.default_rng(random_state)
    n_units = prefs.n_rankers
    block_of_unit = np.empty(n_units, dtype=int)
    block_of_unit[rng.permutation(n_units)] = np.arange(n_units) * n_blocks // max(n_units, 1)
    block = block_of_unit[prefs.ranker_index]
    seeds = rng.integers(2**63, size=n_blocks)
    tests = [prefs.subset(block == k) for k in range(1, n_blocks)]
    predicted = sum(len(test) for test in tests)
    loss = np.zeros(taus.size)
    for k, test in enumerate(tests, 1):
        if len(test) == 0:
            continue
        train = prefs.subset(block < k)
        stages, weights = test.stages, np.asarray(test.weights, dtype=float)
        for t, tau in enumerate(taus):
            post = tempered_posterior(train, tau, None, n_draws, burn_in, seeds[k])
            logs = np.mean([stages.log_likelihood(draw, per_preference=True)
                            for draw in post.draws], axis=0)
            loss[t] -= float(np.sum(weights * logs))
    per_list = loss / max(predicted, 1)
    best = int(np.argmin(per_list))
    return LearningRate(rule="safe-bayes", tau=float(taus[best]),
                        alpha=_alpha_of(float(taus[best]), prefs.total_weight),
                        taus=taus, criterion=per_list, iterations=int(taus.size),
                        converged=bool(taus[best] > taus.min()),
                        seconds=time.perf_counter() - start, params=FrozenDict(params))
