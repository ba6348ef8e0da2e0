"""PL with careless raters made explicit: a mixture of PL and uniformly random orders, by EM."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from scipy.special import expit, xlogy

from .preferences import Preferences
from .results import RankingResult
from .stages import StageDesign

__all__ = ["pl_mixture", "pl_mix", "pl_mix_rater", "mixture_log_posterior"]

_EDGE = 1e-12


def _units(prefs: Preferences, per: str) -> tuple[np.ndarray, int]:
    if per == "list":
        return np.arange(len(prefs)), len(prefs)
    if per == "ranker":
        return prefs.ranker_index, prefs.n_rankers
    raise ValueError(f"per must be 'list' or 'ranker', not {per!r}")


class _Reweighted:
    """The stage layout of ``prefs`` with preference weights that change every EM step.

    The blocks keep their index arrays; only their weights are swapped, and the win counts
    are one sparse product (no Python loop over preferences).
    """

    def __init__(self, prefs: Preferences):
        from scipy.sparse import csr_matrix

        self.base = prefs.stages
        rows, cols = [], []
        for block in self.base.blocks:
            if block.chosen is None:
                width = block.width
                rows.append(np.repeat(block.rows, width - 1))
                cols.append(block.items[:, :-1].ravel())
            else:
                rows.append(np.broadcast_to(block.rows[:, None], block.chosen.shape)[
                    block.chosen])
                cols.append(block.items[block.chosen])
        rows = np.concatenate(rows) if rows else np.zeros(0, np.intp)
        cols = np.concatenate(cols) if cols else np.zeros(0, np.intp)
        self.win_matrix = csr_matrix((np.ones(rows.size), (rows, cols)),
                                     shape=(len(prefs), prefs.n_items))

    def design(self, weights: np.ndarray) -> StageDesign:
        blocks = [dataclasses.replace(block, weights=weights[block.rows])
                  for block in self.base.blocks]
        wins = np.asarray(self.win_matrix.T @ weights).ravel()
        return StageDesign(self.base.n_items, self.base.n_preferences, blocks, wins,
                           self.base.wins_count)


def mixture_log_posterior(prefs: Preferences, scores, pi: float, per: str = "list",
                          prior=(2.0, 1.0)) -> float:
    """The objective EM increases (up to a constant).

    ``Σ_u w_u log[(1 − π) P_θ(R_u) + π U(R_u)] + Σ_m [(a − 1) log θ_m − b θ_m]``, where a
    unit ``u`` is one list (``per="list"``, each of weight ``w``) or all lists of one ranker
    (``per="ranker"``, weights multiplying the log-likelihoods), ``P_θ`` is the
    Plackett–Luce likelihood (paper Eq. PL_model, ties by Breslow's rule) and ``U`` the
    probability of the same lists when every order is equally likely (PL with equal worths).
    """
    a, b = prior
    theta = np.asarray(scores, dtype=float)
    pl, uniform, weight = _unit_log_likelihoods(prefs, prefs.stages, theta, per)
    mixed = np.logaddexp(np.log1p(-pi) + pl, np.log(pi) + uniform)
    return float(np.dot(weight, mixed) + np.sum(xlogy(a - 1, theta)) - b * theta.sum())


def _unit_log_likelihoods(prefs, design, theta, per):
    """PL and uniform log-likelihood per unit, and the weight that multiplies each unit."""
    units, n_units = _units(prefs, per)
    pl = design.log_likelihood(theta, per_preference=True)
    uniform = design.log_likelihood(np.ones(prefs.n_items), per_preference=True)
    if per == "list":
        return pl, uniform, prefs.weights
    w = prefs.weights
    return (np.bincount(units, weights=w * pl, minlength=n_units),
            np.bincount(units, weights=w * uniform, minlength=n_units),
            np.ones(n_units))


def pl_mixture(prefs: Preferences, per: str = "list", prior=(2.0, 1.0), pi_init: float = 0.2,
               max_iter: int = 1000, tol: float = 1e-8, init=None) -> RankingResult:
    """Fit "PL or a uniformly random order" by expectation–maximisation.

    Each unit (a list, or all lists of one ranker) comes from Plackett–Luce with worths θ
    with probability ``1 − π``, or is a uniformly random order (every item equally likely
    at every choice stage, ties by Breslow's rule as in PL) with probability ``π``.

    E-step: ``r_u = π U_u / (π U_u + (1 − π) P_θ(R_u))``, the posterior probability that
    unit ``u`` is noise. M-step: ``π = Σ w_u r_u / Σ w_u`` and one minorise–maximise step of
    the prior-regularised PL likelihood with every preference weighted by ``w (1 − r)``:
    ``θ_m = (W'_m + a − 1) / (D'_m + b)`` (the update of paper Algorithm 1 with τ = 1).
    Each iteration never decreases :func:`mixture_log_posterior` (a generalised EM), so the
    fixed point is a local maximum of the posterior over θ and the maximum-likelihood π.

    Parameters
    ----------
    prefs : Preferences
        Partial lists, ties and weights are all allowed. ``per="list"`` treats a weight as a
        number of identical lists, each with its own noise label.
    per : {"list", "ranker"}
        What shares one noise label.
    prior : (float, float)
        Gamma(a, rate b) prior of every θ_m; ``a > 1`` makes the posterior mode exist (the PL
        likelihood is scale-free).
    pi_init : float
        Initial π, in (0, 1).
    max_iter, tol : int, float
        Stop when the relative change of θ and the change of π fall below ``tol``.
    init : array, optional
        Initial worths; default ``a / b`` for every item.

    Returns
    -------
    RankingResult
        ``scores`` are θ. ``extra`` holds ``noise_probability`` (one per list or per ranker
        id), ``pi``, ``per`` and ``log_posterior``.
    """
    start = time.perf_counter()
    params = dict(per=per, prior=tuple(prior), pi_init=pi_init, max_iter=max_iter, tol=tol,
                  init=init)
    a, b = (float(v) for v in prior)
    if not (a >= 1 and b > 0):
        raise ValueError(f"the mixture's EM needs a >= 1 and b > 0 (got a={a}, b={b})")
    if not 0 < pi_init < 1:
        raise ValueError("pi_init must lie strictly between 0 and 1")
    if max_iter < 1 or tol < 0:
        raise ValueError("max_iter must be >= 1 and tol >= 0")
    units, n_units = _units(prefs, per)
    theta = np.full(prefs.n_items, a / b) if init is None else np.array(init, dtype=float)
    if theta.shape != (prefs.n_items,) or np.any(theta <= 0):
        raise ValueError("init must hold M positive worths")
    reweight = _Reweighted(prefs)
    base = prefs.stages
    weights = prefs.weights
    pi = float(pi_init)
    uniform = base.log_likelihood(np.ones(prefs.n_items), per_preference=True)
    uniform_unit = (uniform if per == "list"
                    else np.bincount(units, weights=weights * uniform, minlength=n_units))
    unit_weight = weights if per == "list" else np.ones(n_units)
    change, converged, iteration = np.inf, False, 0
    noise = np.full(n_units, pi)
    while iteration < max_iter:
        iteration += 1
        pl = base.log_likelihood(theta, per_preference=True)
        pl_unit = pl if per == "list" else np.bincount(units, weights=weights * pl,
                                                       minlength=n_units)
        noise = expit(np.log(pi) - np.log1p(-pi) + uniform_unit - pl_unit)
        new_pi = float(np.clip(np.dot(unit_weight, noise) / unit_weight.sum(), _EDGE,
                               1 - _EDGE))
        careful = weights * (1.0 - (noise if per == "list" else noise[units]))
        design = reweight.design(careful)
        new = (design.wins + (a - 1)) / (design.exposure(theta) + b)
        change = float(np.abs(new - theta).sum() / np.abs(theta).sum()) + abs(new_pi - pi)
        theta, pi = new, new_pi
        converged = change < tol
        if converged and tol > 0:
            break
    pl = base.log_likelihood(theta, per_preference=True)
    pl_unit = pl if per == "list" else np.bincount(units, weights=weights * pl,
                                                   minlength=n_units)
    noise = expit(np.log(pi) - np.log1p(-pi) + uniform_unit - pl_unit)
    objective = float(np.dot(unit_weight, np.logaddexp(np.log1p(-pi) + pl_unit,
                                                       np.log(pi) + uniform_unit))
                      + np.sum(xlogy(a - 1, theta)) - b * theta.sum())
    method = "pl-mix" if per == "list" else "pl-mix-rater"
    return RankingResult(method=method, scores=theta, iterations=iteration,
                         converged=converged, seconds=time.perf_counter() - start,
                         change=change, params=params,
                         extra={"noise_probability": noise, "pi": pi, "per": per,
                                "log_posterior": objective})


def pl_mix(prefs: Preferences, prior=(2.0, 1.0), pi_init: float = 0.2, max_iter: int = 1000,
           tol: float = 1e-8, init=None) -> RankingResult:
    """PL plus uniform noise per list (:func:`pl_mixture` with ``per="list"``)."""
    return pl_mixture(prefs, per="list", prior=prior, pi_init=pi_init, max_iter=max_iter,
                      tol=tol, init=init)


def pl_mix_rater(prefs: Preferences, prior=(2.0, 1.0), pi_init: float = 0.2,
                 max_iter: int = 1000, tol: float = 1e-8, init=None) -> RankingResult:
    """PL plus uniform noise per ranker (:func:`pl_mixture` with ``per="ranker"``).

    A ranker is careful (all their lists from PL(θ)) or answers every list at random.
    Without ranker ids every list is its own ranker, which is :func:`pl_mix`.
    """
    return pl_mixture(prefs, per="ranker", prior=prior, pi_init=pi_init, max_iter=max_iter,
                      tol=tol, init=init)
