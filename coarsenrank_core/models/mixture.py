"""PL with careless raters made explicit: a mixture of PL and uniformly random orders, by EM."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import xlogy

from ..errors import Progress, ShouldStop, check_stop
from ..preferences import Preferences
from ..results import MixtureOutputs, RankingResult
from ._solver import squarem_step
from .plackett_luce import STOP_EVERY
from .stages import StageDesign

__all__ = ["pl_mixture", "pl_mix", "pl_mix_ranker", "mixture_log_posterior", "turned_over"]

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
        row_ids = np.concatenate(rows) if rows else np.zeros(0, np.intp)
        col_ids = np.concatenate(cols) if cols else np.zeros(0, np.intp)
        self.win_matrix = csr_matrix((np.ones(row_ids.size), (row_ids, col_ids)),
                                     shape=(len(prefs), prefs.n_items))
        self.item_wins = self.win_matrix.T  # built once: every EM step multiplies by it

    def design(self, weights: np.ndarray) -> StageDesign:
        blocks = [dataclasses.replace(block, weights=weights[block.rows])
                  for block in self.base.blocks]
        wins = np.asarray(self.item_wins @ weights).ravel()
        return StageDesign(self.base.n_items, self.base.n_preferences, blocks, wins,
                           self.base.wins_count)


def _reversed(prefs: Preferences) -> Preferences:
    """Every preference upside down (tied groups keep their members): ``a > {b, c} > d`` ->
    ``d > {b, c} > a``."""
    from ..noise import reverse_preferences

    return reverse_preferences(prefs, 1.0, random_state=0).preferences


def _stacked(prefs: Preferences, reverse: Preferences,
             weights: np.ndarray | None = None) -> Preferences:
    """The preferences followed by their reverses, as one collection (unit weights unless
    ``weights``, one per list of the two)."""
    return Preferences.from_arrays(
        np.concatenate([prefs.items, reverse.items]),
        np.concatenate([prefs.lengths, reverse.lengths]),
        groups=np.concatenate([prefs.groups, reverse.groups]), n_items=prefs.n_items,
        weights=weights)


def turned_over(prefs: Preferences, weights: ArrayLike,
                reversed_weights: ArrayLike) -> Preferences:
    """Every list with weight ``weights``, followed by the same list upside down with weight
    ``reversed_weights`` (tied groups keep their members): the data of the upside-down
    mixture's M-step. Ranker ids are dropped."""
    return _stacked(prefs, _reversed(prefs), np.concatenate(
        [np.asarray(weights, dtype=float), np.asarray(reversed_weights, dtype=float)]))


class _Components:
    """Per-unit log-likelihood of each component: PL, uniform, and (optionally) reversed PL."""

    def __init__(self, prefs: Preferences, per: str, reversed_component: bool):
        self.prefs, self.per = prefs, per
        self.units, self.n_units = _units(prefs, per)
        self.weights = prefs.weights
        self.n = len(prefs)
        self.reverse = reversed_component
        self.data = _stacked(prefs, _reversed(prefs)) if reversed_component else prefs
        self.design = self.data.stages
        self.reweight = _Reweighted(self.data)
        uniform = prefs.stages.log_likelihood(np.ones(prefs.n_items), per_preference=True)
        self.uniform = self._per_unit(uniform)
        self.unit_weight = self.weights if per == "list" else np.ones(self.n_units)

    def _per_unit(self, values: np.ndarray) -> np.ndarray:
        if self.per == "list":
            return values
        return cast(np.ndarray, np.bincount(self.units, weights=self.weights * values,
                                            minlength=self.n_units))

    def log_terms(self, theta: np.ndarray, log_pi: np.ndarray) -> np.ndarray:
        """``log π_k + log P_k(R_u)``, shape (units, components): PL, uniform[, reversed]."""
        with np.errstate(divide="ignore"):
            pl = self.design.log_likelihood(theta, per_preference=True)
        columns = [self._per_unit(pl[:self.n]), self.uniform]
        if self.reverse:
            columns.append(self._per_unit(pl[self.n:]))
        return cast(np.ndarray, np.column_stack(columns) + log_pi[None, :])

    def theta_step(self, theta: np.ndarray, responsibility: np.ndarray, a: float,
                   b: float) -> np.ndarray:
        """One MM step of the expected complete-data log-posterior (paper Algorithm 1, τ = 1)."""
        per_pref = responsibility if self.per == "list" else responsibility[self.units]
        weights = [self.weights * per_pref[:, 0]]
        if self.reverse:
            weights.append(self.weights * per_pref[:, 2])
        design = self.reweight.design(np.concatenate(weights))
        return cast(np.ndarray, (design.wins + (a - 1)) / (design.exposure(theta) + b))


def mixture_log_posterior(prefs: Preferences, scores: ArrayLike, pi: float | ArrayLike,
                          per: str = "list", prior: Sequence[float] = (2.0, 1.0),
                          reversed_component: bool = False) -> float:
    """The objective EM increases (up to a constant).

    ``Σ_u w_u log[π_PL P_θ(R_u) + π_U U(R_u) (+ π_R P_θ(R_u reversed))] + Σ_m [(a − 1) log θ_m
    − b θ_m]``, where a unit ``u`` is one list (``per="list"``, of weight ``w``) or all lists
    of one ranker (``per="ranker"`` with ranker ids, weights multiplying the
    log-likelihoods; without ids each list is a unit as for ``"list"``), ``P_θ`` is the
    Plackett–Luce likelihood (paper Eq. (19), ties by Breslow's rule) and ``U`` the
    probability of the same lists when every order is equally likely (PL with equal worths).

    ``pi`` is the noise share π_U (a float; then π_PL = 1 − π_U), or the vector
    ``(π_PL, π_U[, π_R])``.
    """
    a, b = prior
    theta = np.asarray(scores, dtype=float)
    pis = np.atleast_1d(np.asarray(pi, dtype=float))
    if pis.size == 1:
        pis = np.array([1.0 - pis[0], pis[0]])
    parts = _Components(prefs, per if prefs.has_rankers else "list", reversed_component)
    with np.errstate(divide="ignore"):
        terms = parts.log_terms(theta, np.log(pis))
    mixed = np.logaddexp.reduce(terms, axis=1)
    return float(np.dot(parts.unit_weight, mixed) + np.sum(xlogy(a - 1, theta))
                 - b * theta.sum())


def pl_mixture(prefs: Preferences, per: str = "list", prior: Sequence[float] = (2.0, 1.0),
               pi_init: float = 0.2, max_iter: int = 1000, tol: float = 1e-8,
               init: ArrayLike | None = None, reversed_component: bool = False, *,
               accelerate: bool | None = None, should_stop: ShouldStop | None = None,
               progress: Progress | None = None) -> RankingResult:
    """Fit "PL or a uniformly random order" by expectation–maximisation.

    Each unit (a list, or all lists of one ranker) comes from Plackett–Luce with worths θ
    with probability ``π_PL = 1 − π``, or is a uniformly random order (every item equally
    likely at every choice stage, ties by Breslow's rule as in PL) with probability ``π``.
    With ``reversed_component=True`` a third component is a PL(θ) order written upside down
    (as the noise menu's reversed answers), with probability ``π_R``. The careful share is
    held at ``π_PL ≥ ½`` (so also ``π_R ≤ π_PL``): careful answers are the majority, which
    makes the model identifiable (otherwise the noise could take PL's place, one rater's
    many copies held careful and every other rater careless or upside down).

    E-step: the posterior probability of each component for each unit, e.g.
    ``r_u = π U_u / Σ_k π_k P_k(R_u)`` for noise. M-step: ``π_k = Σ w_u r_uk / Σ w_u`` and one
    minorise–maximise step of the prior-regularised PL likelihood in which every preference
    counts with weight ``w r_PL`` and its reverse with weight ``w r_R``:
    ``θ_m = (W'_m + a − 1) / (D'_m + b)`` (the update of paper Algorithm 1 with τ = 1),
    then (``a > 1``) the exact best common scale ``θ ← θ (a − 1) M / (b Σθ)``: every
    likelihood term is scale-free, so only the prior moves along ``θ → cθ``, and without
    this step plain MM creeps along that ray (Readlevel ×100: over 1,000 steps unconverged;
    with it 600-900).
    Each iteration never decreases :func:`mixture_log_posterior` (a generalised EM), so the
    fixed point is a local maximum of the posterior over θ and the maximum-likelihood π.

    Parameters
    ----------
    prefs : Preferences
        Partial lists, ties and weights are all allowed. ``per="list"`` treats a weight as a
        number of identical lists, each with its own noise label.
    per : {"list", "ranker"}
        What shares one noise label. Without ranker ids every list is its own ranker, so
        ``"ranker"`` fits exactly as ``"list"`` (a weight counts identical lists).
    prior : (float, float)
        Gamma(a, rate b) prior of every θ_m; ``a > 1`` makes the posterior mode exist (the PL
        likelihood is scale-free).
    pi_init : float
        Initial share of noise, in (0, 1) (split evenly with the reversed component).
    max_iter, tol : int, float
        Stop when the relative change of θ and the change of π fall below ``tol``.
    init : array, optional
        Initial worths; default ``a / b`` for every item.
    reversed_component : bool
        Add the "answers upside down" component.
    accelerate : bool, optional
        SQUAREM on ``(θ, π)`` (as in :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl`);
        default: when ``tol > 0``. ``False`` runs plain EM. ``max_iter`` counts EM steps.
    should_stop : callable, optional
        Called every :data:`~coarsenrank_core.models.plackett_luce.STOP_EVERY` iterations; when
        it returns true the fit raises :class:`coarsenrank_core.errors.Cancelled`.
    progress : callable, optional
        ``progress(done, total)`` with the EM steps done of at most ``max_iter``, at the same
        checks as ``should_stop`` and once at the end (``total, total``).

    Returns
    -------
    RankingResult
        ``scores`` are θ. ``extra`` is a :class:`~coarsenrank_core.results.MixtureOutputs`:
        ``noise_probability`` (one per list or per ranker
        id: the posterior probability of not being a careful PL answer), ``pi`` (the share of
        noise, uniform plus reversed), ``pi_uniform``, ``pi_reversed``,
        ``reversed_probability``, ``per`` and ``log_posterior``.
    """
    start = time.perf_counter()
    params = dict(per=per, prior=tuple(prior), pi_init=pi_init, max_iter=max_iter, tol=tol,
                  init=init, reversed_component=reversed_component)
    a, b = (float(v) for v in prior)
    if not (a >= 1 and b > 0):
        raise ValueError(f"the mixture's EM needs a >= 1 and b > 0 (got a={a}, b={b})")
    if not 0 < pi_init < 1:
        raise ValueError("pi_init must lie strictly between 0 and 1")
    if max_iter < 1 or tol < 0:
        raise ValueError("max_iter must be >= 1 and tol >= 0")
    # Identical lists are merged into one of summed weight first: exact, since a list of
    # weight w already counts as w identical lists with their own labels (per="list"), and
    # a ranker's copies share that ranker's label (per="ranker", merged within rankers)
    # Without ranker ids every list is its own ranker: per="ranker" is then per="list",
    # with a weight counting identical lists (as in pl_mix), and pools the same way
    # (Readlevel ×100 without ids: 2,490 distinct pairs instead of 1.27 M units)
    back = None
    fit_per = per if prefs.has_rankers else "list"
    if fit_per == "list":
        data, back = prefs.pooling
    else:
        data = prefs.merge_duplicates()
    parts = _Components(data, fit_per, reversed_component)
    theta = np.full(prefs.n_items, a / b) if init is None else np.array(init, dtype=float)
    if theta.shape != (prefs.n_items,) or np.any(theta <= 0):
        raise ValueError("init must hold M positive worths")
    pis = (np.array([1 - pi_init, pi_init / 2, pi_init / 2]) if reversed_component
           else np.array([1 - pi_init, pi_init]))
    total = parts.unit_weight.sum()
    def em_step(theta: np.ndarray, pis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        terms = parts.log_terms(theta, np.log(pis))
        responsibility = np.exp(terms - np.logaddexp.reduce(terms, axis=1)[:, None])
        new_pis = np.clip(parts.unit_weight @ responsibility / total, _EDGE, 1.0)
        new_pis /= new_pis.sum()
        if new_pis[0] < 0.5:
            # identifiability: careful answers are the majority (otherwise the noise could
            # take the place of PL: one rater's twenty copies held careful and sixteen
            # raters careless, or upside down); the maximiser of Σ r log π with π_PL ≥ ½
            # sets π_PL = ½ and shares the rest in proportion
            new_pis[1:] *= 0.5 / new_pis[1:].sum()
            new_pis[0] = 0.5
        new = parts.theta_step(theta, responsibility, a, b)
        if a > 1:  # the exact best common scale (every likelihood term is scale-free)
            new *= (a - 1) * new.size / (b * new.sum())
        return new, new_pis

    def change_of(theta: np.ndarray, pis: np.ndarray, new: np.ndarray,
                  new_pis: np.ndarray) -> float:
        return (float(np.abs(new - theta).sum() / np.abs(theta).sum())
                + float(np.abs(new_pis - pis).sum()))

    # SQUAREM works on the flat vector (θ, π): the extrapolation keeps Σπ = 1, and a point
    # is admissible only when θ and π are all positive
    m = theta.size

    def flat_step(x: np.ndarray) -> np.ndarray:
        return np.concatenate(em_step(x[:m], x[m:]))

    def flat_change(x: np.ndarray, new: np.ndarray) -> float:
        return change_of(x[:m], x[m:], new[:m], new[m:])

    def positive(x: np.ndarray) -> bool:
        return bool(np.all(x > 0) and np.all(np.isfinite(x)))

    use_squarem = tol > 0 if accelerate is None else bool(accelerate)
    change, converged, iteration, step_max = np.inf, False, 0, 1.0
    checked = 0
    while iteration < max_iter:
        if iteration - checked >= STOP_EVERY:
            checked = iteration
            check_stop(should_stop, f"The mixture's EM was stopped after {iteration} of at "
                                    f"most {max_iter} iterations.")
            if progress is not None:
                progress(iteration, max_iter)
        if use_squarem and max_iter - iteration >= 3:
            x, change, used, step_max = squarem_step(
                flat_step, np.concatenate([theta, pis]), step_max, flat_change,
                admissible=positive)
            theta, pis = x[:m], x[m:]
            iteration += used
        else:
            new, new_pis = em_step(theta, pis)
            iteration += 1
            change = change_of(theta, pis, new, new_pis)
            theta, pis = new, new_pis
        converged = change < tol
        if converged and tol > 0:
            break
    if progress is not None:
        progress(max_iter, max_iter)
    terms = parts.log_terms(theta, np.log(pis))
    mixed = np.logaddexp.reduce(terms, axis=1)
    responsibility = np.exp(terms - mixed[:, None])
    objective = float(np.dot(parts.unit_weight, mixed) + np.sum(xlogy(a - 1, theta))
                      - b * theta.sum())
    reversed_probability = (responsibility[:, 2] if reversed_component
                            else np.zeros(parts.n_units))
    noise_probability = 1.0 - responsibility[:, 0]
    if back is not None:  # one value per list of the data as given
        noise_probability, reversed_probability = (noise_probability[back],
                                                   reversed_probability[back])
    method = "pl-mix" if per == "list" else "pl-mix-ranker"
    return RankingResult(method=method, scores=theta, iterations=iteration,
                         converged=bool(converged) if tol > 0 else None,
                         seconds=time.perf_counter() - start, change=change, params=params,
                         extra=MixtureOutputs(
                             noise_probability=noise_probability,
                             reversed_probability=reversed_probability,
                             pi=float(1.0 - pis[0]), pi_uniform=float(pis[1]),
                             pi_reversed=float(pis[2]) if reversed_component else 0.0,
                             per=per, log_posterior=objective))


def pl_mix(prefs: Preferences, prior: Sequence[float] = (2.0, 1.0), pi_init: float = 0.2,
           max_iter: int = 1000, tol: float = 1e-8, init: ArrayLike | None = None,
           reversed_component: bool = False, *, should_stop: ShouldStop | None = None,
           progress: Progress | None = None) -> RankingResult:
    """PL plus uniform noise per list (:func:`pl_mixture` with ``per="list"``)."""
    return pl_mixture(prefs, per="list", prior=prior, pi_init=pi_init, max_iter=max_iter,
                      tol=tol, init=init, reversed_component=reversed_component,
                      should_stop=should_stop, progress=progress)


def pl_mix_ranker(prefs: Preferences, prior: Sequence[float] = (2.0, 1.0),
                  pi_init: float = 0.2, max_iter: int = 1000, tol: float = 1e-8,
                  init: ArrayLike | None = None, reversed_component: bool = False, *,
                  should_stop: ShouldStop | None = None,
                  progress: Progress | None = None) -> RankingResult:
    """PL plus uniform noise per ranker (:func:`pl_mixture` with ``per="ranker"``).

    A ranker is careful (all their lists from PL(θ)), answers every list at random, or
    (with ``reversed_component=True``) writes every list upside down. Without ranker ids
    every list is its own ranker, which is :func:`pl_mix`.
    """
    return pl_mixture(prefs, per="ranker", prior=prior, pi_init=pi_init, max_iter=max_iter,
                      tol=tol, init=init, reversed_component=reversed_component,
                      should_stop=should_stop, progress=progress)
