"""PeerGrader: Plackett–Luce with a reliability per grader (Raman & Joachims, KDD 2014)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import Bounds, brentq, line_search
from scipy.special import expit

from ..errors import ShouldStop, check_stop
from ..preferences import Preferences
from ..results import PeerGraderOutputs, RankingResult
from ._solver import check_common, log_sigmoid, run_lbfgs
from .plackett_luce import initial_scores

__all__ = ["peergrader", "peergrader_objective", "PeerGraderDesign"]

ETA_MIN = 1e-8
"""Lower bound of a reliability (reached only with a Gamma shape of exactly 1)."""


@dataclass(frozen=True)
class _GraderBlock:
    """Preferences of one length ``k`` as ``(n, k)`` matrices, with per-column stage weights.

    ``stage[r, t]`` is the weighted number of choice stages whose choice set is the
    suffix starting at column ``t`` (Breslow ties: a tied group of size ``d`` gives ``d``
    stages with the same set); ``win[r, t]`` is the weight of column ``t`` being chosen.
    Strict pairs (``pairs``) take a closed-form path: ``items`` is then the tuple
    ``(winners, losers)`` and ``stage``/``win`` are ``None``.
    """

    items: np.ndarray | tuple[np.ndarray, np.ndarray]
    grader: np.ndarray
    stage: np.ndarray | None
    win: np.ndarray | None
    weight: np.ndarray
    pairs: bool
    unit: bool


class PeerGraderDesign:
    """Per-length blocks of a :class:`Preferences` collection, with each row's grader.

    Built from :attr:`Preferences.stages` of the collection with each grader's identical
    preferences merged into one of summed weight (:meth:`Preferences.merge_duplicates`;
    exact, since the likelihood is a weighted sum over preferences and a grader's copies
    share its reliability); evaluates the reliability-scaled PL likelihood and its
    derivatives in a few vectorised passes over arrays of the total list length.

    Without ranker ids every preference is its own grader; identical preferences of equal
    weight then have identical terms in ``J``, so (``merge_copies``) they share one fitted
    reliability whose prior counts once per copy (``copies``): exact at the optimum, where
    each copy's concave ``η``-problem has the same solution. ``grader_of`` maps every ranker
    id to its fitted reliability (``None``: the identity).

    Parameters
    ----------
    prefs : Preferences
    merge_copies : bool
        Merge identical preferences of equal weight when there are no ranker ids.
    """

    def __init__(self, prefs: Preferences, merge_copies: bool = True):
        self.n_items = prefs.n_items
        self.n_rankers = prefs.n_rankers
        self.copies: np.ndarray | None = None
        self.grader_of: np.ndarray | None = None
        if merge_copies and not prefs.has_rankers and len(prefs):
            weights = prefs.weights
            tag = (None if weights.strides == (0,)
                   else np.unique(weights, return_inverse=True)[1].ravel())
            merged, index = prefs.pool_identical(tag)
            if index is not None:
                self.copies = np.bincount(index, minlength=len(merged)).astype(float)
                self.grader_of = index
                prefs = merged
        self.n_graders = prefs.n_rankers
        if prefs.has_rankers and prefs.is_pairwise and not prefs.has_ties and len(prefs):
            pair_block = _merged_pair_block(prefs)
            if pair_block is not None:
                self.blocks = [pair_block]
                return
        if prefs.has_rankers:
            merged = prefs.merge_duplicates()
            if len(merged) < len(prefs):
                prefs = merged
        grader = prefs.ranker_index
        weights = prefs.weights
        blocks = []
        for block in prefs.stages.blocks:
            n, k = block.items.shape
            w = weights[block.rows]
            pairs = k == 2 and block.multiplicity is None
            items, stage, win = block.items, None, None
            if pairs:
                items = (np.ascontiguousarray(items[:, 0]), np.ascontiguousarray(items[:, 1]))
            elif block.multiplicity is None:
                stage = np.zeros((n, k))
                stage[:, :-1] = w[:, None]
                win = stage
            else:
                stage = block.multiplicity * w[:, None]
                win = block.chosen * w[:, None]
            blocks.append(_GraderBlock(items=items, grader=grader[block.rows], stage=stage, win=win,
                                 weight=w, pairs=pairs, unit=bool(np.all(w == 1.0))))
        self.blocks = blocks

    def evaluate(self, s: np.ndarray, eta: np.ndarray, grad_s: bool = True,
                 curvature: bool = False
                 ) -> tuple[float, np.ndarray | None, np.ndarray, np.ndarray | None]:
        """Log-likelihood ``ℓ(s, η)`` and its derivatives.

        Returns ``(ℓ, ∂ℓ/∂s or None, ∂ℓ/∂η, ∂²ℓ/∂η² or None)``; the η-derivatives are per
        grader (``ℓ`` is separable over graders given ``s``).
        """
        value = 0.0
        d_s = np.zeros(self.n_items) if grad_s else None
        d_eta = np.zeros(self.n_graders)
        d2_eta = np.zeros(self.n_graders) if curvature else None
        for block in self.blocks:
            e = eta[block.grader]
            if block.pairs:
                winners, losers = block.items
                diff = s[winners] - s[losers]
                log_p, lose = log_sigmoid(e * diff)  # lose: chance the loser would win
                push = lose if block.unit else block.weight * lose
                value += float(log_p.sum()) if block.unit else _inner(block.weight, log_p)
                row_d = push * diff
                if d_s is not None:
                    g = push * e
                    d_s += (np.bincount(winners, weights=g, minlength=self.n_items)
                            - np.bincount(losers, weights=g, minlength=self.n_items))
                row_d2 = -push * (1.0 - lose) * diff**2 if curvature else None
            else:
                assert isinstance(block.items, np.ndarray)  # only pairs hold a tuple
                scores = s[block.items]
                row_value, row_d, row_d2, grad_x = _general_block(block, scores, e, curvature)
                value += row_value
                if d_s is not None:
                    d_s += np.bincount(block.items.ravel(), weights=(grad_x * e[:, None]).ravel(),
                                       minlength=self.n_items)
            d_eta += np.bincount(block.grader, weights=row_d, minlength=self.n_graders)
            if d2_eta is not None:
                d2_eta += np.bincount(block.grader, weights=row_d2, minlength=self.n_graders)
        return value, d_s, d_eta, d2_eta

    def score_curvature(self, s: np.ndarray, eta: np.ndarray) -> np.ndarray:
        """``−∂²ℓ/∂s_m²`` for every item: the diagonal of the likelihood's curvature in ``s``.

        Every choice stage whose set holds ``m`` adds ``w η² π_m (1 − π_m)``, with ``π_m``
        the chance that ``m`` is chosen from the set under worths ``exp(η s)``; zero for an
        item in no preference. Used to scale the variables of an L-BFGS fit
        (:func:`~coarsenrank_core.models.pl_gradient.pl_lbfgs`).
        """
        out = np.zeros(self.n_items)
        for block in self.blocks:
            e = eta[block.grader]
            if block.pairs:
                winners, losers = block.items
                p = expit(e * (s[winners] - s[losers]))
                c = p * (1.0 - p) * e * e
                if not block.unit:
                    c *= block.weight
                out += (np.bincount(winners, weights=c, minlength=self.n_items)
                        + np.bincount(losers, weights=c, minlength=self.n_items))
            else:
                assert isinstance(block.items, np.ndarray)  # only pairs hold a tuple
                c = _general_curvature(block, s[block.items] * e[:, None]) * (e * e)[:, None]
                out += np.bincount(block.items.ravel(), weights=c.ravel(),
                                   minlength=self.n_items)
        return out


def _general_curvature(block: _GraderBlock, x: np.ndarray) -> np.ndarray:
    """``Σ_j stage_j π_{t|j} (1 − π_{t|j})`` for every column ``t`` of a block.

    ``π_{t|j} = e^{x_t − L_j}`` is the chance of column ``t`` in the stage whose set starts
    at column ``j ≤ t`` (``L`` as in :func:`_general_block`). With ``π_t = e^{x_t − L_t}``
    the two sums are ``π_t Q_t`` and ``π_t² R_t``, where ``Q_t = Q_{t−1} e^{L_t − L_{t−1}}
    + stage_t`` and ``R`` the same with ``2(L_t − L_{t−1})``: exponents never positive.
    """
    n, k = x.shape
    log_sum = np.empty((n, k))
    log_sum[:, -1] = x[:, -1]
    for t in range(k - 2, -1, -1):
        log_sum[:, t] = np.logaddexp(x[:, t], log_sum[:, t + 1])
    stage = block.stage
    assert stage is not None  # lists of 3 or more, or ties
    first = np.empty((n, k))
    second = np.empty((n, k))
    first[:, 0] = second[:, 0] = stage[:, 0]
    for t in range(1, k):
        shrink = np.exp(log_sum[:, t] - log_sum[:, t - 1])
        first[:, t] = first[:, t - 1] * shrink + stage[:, t]
        second[:, t] = second[:, t - 1] * shrink * shrink + stage[:, t]
    chance = np.exp(x - log_sum)
    return chance * first - chance * chance * second


def _merged_pair_block(prefs: Preferences) -> _GraderBlock | None:
    """Strict pairs with each grader's identical pairs merged, as one pair block.

    The same rows, order and summed weights as :meth:`Preferences.merge_duplicates`
    (first copies in collection order), keyed by one 64-bit integer per pair instead of
    a row of bytes (Readlevel ×100: 0.07 s instead of 0.4 s). ``None`` when the key could
    overflow.
    """
    n_items, n_graders = prefs.n_items, max(prefs.n_rankers, 1)
    if float(n_items) * n_items * n_graders >= 2.0**62:
        return None
    winners, losers, grader = prefs.items[0::2], prefs.items[1::2], prefs.ranker_index
    key = (winners.astype(np.int64) * n_items + losers) * n_graders + grader
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    weight = np.bincount(inverse.ravel(), weights=prefs.weights, minlength=first.size)
    order = np.argsort(first)
    keep = first[order]
    weight = weight[order]
    return _GraderBlock(items=(winners[keep].astype(np.intp), losers[keep].astype(np.intp)),
                        grader=grader[keep].astype(np.intp), stage=None, win=None,
                        weight=weight, pairs=True, unit=bool(np.all(weight == 1.0)))


def _inner(x: np.ndarray, y: np.ndarray) -> float:
    """``x · y`` without BLAS: OpenBLAS threads a dot product of more than 10,000 entries,
    and on busy shared cores handing it to a second thread costs far more than the product
    (Readlevel ×100, 12,701 merged pairs: 0.5 ms against 3 µs a call)."""
    return float(np.einsum("i,i->", x, y))


def _general_block(block: _GraderBlock, scores: np.ndarray, e: np.ndarray,
                   curvature: bool) -> tuple[Any, ...]:
    """Stage-wise likelihood of one block by stable recurrences over its ``k`` columns.

    With ``x = η_g s`` and ``L_t = log Σ_{l ≥ t} e^{x_l}`` (the log choice-set sum of the
    stage starting at column ``t``), ``ℓ = Σ_t win_t x_t − stage_t L_t``. The ``η``-
    derivative is ``Σ_t win_t s_t − stage_t E_t[s]`` and the second derivative
    ``−Σ_t stage_t Var_t[s]``, moments under the stage's choice probabilities. Every
    exponential has a non-positive argument.
    """
    x = scores * e[:, None]
    n, k = x.shape
    log_sum = np.empty((n, k))
    mean = np.empty((n, k))
    log_sum[:, -1] = x[:, -1]
    mean[:, -1] = scores[:, -1]
    second = None
    if curvature:
        second = np.empty((n, k))
        second[:, -1] = scores[:, -1] ** 2
    for t in range(k - 2, -1, -1):
        log_sum[:, t] = np.logaddexp(x[:, t], log_sum[:, t + 1])
        p = np.exp(x[:, t] - log_sum[:, t])
        mean[:, t] = p * scores[:, t] + (1 - p) * mean[:, t + 1]
        if second is not None:
            second[:, t] = p * scores[:, t] ** 2 + (1 - p) * second[:, t + 1]
    stage, win = block.stage, block.win
    assert stage is not None and win is not None  # lists of 3 or more, or ties
    row_value = float(np.sum(win * x) - np.sum(stage * log_sum))
    row_d = np.sum(win * scores - stage * mean, axis=1)
    row_d2 = (-np.sum(stage * np.maximum(second - mean**2, 0.0), axis=1)
              if second is not None else None)
    # expected wins of column t: e^{x_t} Σ_{j ≤ t} stage_j e^{−L_j} = e^{x_t − L_t} Q_t
    running = np.empty((n, k))
    running[:, 0] = stage[:, 0]
    for t in range(1, k):
        running[:, t] = running[:, t - 1] * np.exp(log_sum[:, t] - log_sum[:, t - 1]) + stage[:, t]
    grad_x = win - np.exp(x - log_sum) * running
    return row_value, row_d, row_d2, grad_x


def _check_reliability_prior(prior: Sequence[float]) -> tuple[float, float]:
    shape, rate = (float(v) for v in prior)
    if not (shape >= 1 and rate > 0 and np.isfinite(shape) and np.isfinite(rate)):
        raise ValueError(f"the reliability prior needs shape >= 1 and rate > 0 "
                         f"(got shape={shape}, rate={rate})")
    return shape, rate


def _reliability_prior(design: PeerGraderDesign, eta: np.ndarray, shape: float,
                       rate: float) -> tuple[float, np.ndarray, np.ndarray]:
    """``Σ_g c_g [(a−1) log η_g − b η_g]`` with its first and second derivatives per grader
    (``c_g`` the copies a merged reliability stands for, else 1)."""
    d1 = (shape - 1) / eta - rate
    d2 = -(shape - 1) / eta**2
    terms = (shape - 1) * np.log(eta) - rate * eta
    if design.copies is None:
        return float(np.sum(terms)), d1, d2
    return _inner(design.copies, terms), design.copies * d1, design.copies * d2


def peergrader_objective(prefs: Preferences, scores: ArrayLike, reliability: ArrayLike,
                         l2: float = 1.0, reliability_prior: Sequence[float] = (10.0, 10.0),
                         design: PeerGraderDesign | None = None
                         ) -> tuple[float, np.ndarray, np.ndarray]:
    """The log-posterior PeerGrader maximises, with its gradients in ``s`` and ``η``.

    ``J(s, η) = Σ_n w_n log P(ρ_n | η_{g(n)} s) − (λ/2)‖s‖² + Σ_g [(a−1) log η_g − b η_g]``,
    where ``P(ρ | η s)`` is the PL probability with worths ``exp(η s_i)`` (Breslow ties),
    ``λ = l2`` and ``(a, b) = reliability_prior``.

    Returns
    -------
    (float, numpy.ndarray, numpy.ndarray)
        ``J``, ``∂J/∂s`` (M,) and ``∂J/∂η`` (one per ranker id; one per fitted
        reliability when ``design`` merges copies).
    """
    shape, rate = _check_reliability_prior(reliability_prior)
    design = PeerGraderDesign(prefs, merge_copies=False) if design is None else design
    s = np.asarray(scores, dtype=float)
    eta = np.asarray(reliability, dtype=float)
    value, d_s, d_eta, _ = design.evaluate(s, eta)
    assert d_s is not None  # grad_s=True
    prior, prior_d1, _ = _reliability_prior(design, eta, shape, rate)
    value += -0.5 * l2 * _inner(s, s) + prior
    return value, d_s - l2 * s, d_eta + prior_d1


def _update_reliability(design: PeerGraderDesign, s: np.ndarray, eta: np.ndarray, shape: float,
                        rate: float, tol: float, max_steps: int = 100) -> tuple[np.ndarray, int]:
    """Maximise ``J`` over every ``η_g`` at once by safeguarded Newton steps.

    Each grader's problem ``ℓ_g(η) + (a−1) log η − b η`` is one-dimensional and concave
    (``∂²ℓ_g/∂η² = −Σ w Var[s] ≤ 0`` and ``a ≥ 1``), so its root of the derivative is
    bracketed as the search proceeds; a Newton step that leaves the bracket is replaced by
    bisection (or doubling while no upper bound is known).
    """
    eta = eta.copy()
    low = np.full_like(eta, ETA_MIN)
    high = np.full_like(eta, np.inf)
    active = np.ones(eta.size, dtype=bool)
    step = 0
    while step < max_steps and active.any():
        step += 1
        _, _, d1, d2 = design.evaluate(s, eta, grad_s=False, curvature=True)
        _, prior_d1, prior_d2 = _reliability_prior(design, eta, shape, rate)
        d1 += prior_d1
        d2 += prior_d2
        low = np.where(active & (d1 > 0), eta, low)
        high = np.where(active & (d1 < 0), eta, high)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = eta - d1 / d2
        inside = np.isfinite(newton) & (d2 < 0) & (newton >= low) & (newton <= high)
        fallback = np.where(np.isfinite(high), 0.5 * (low + high), 2.0 * eta)
        new = np.maximum(np.where(inside, newton, fallback), ETA_MIN)
        new = np.where(active & (d1 != 0), new, eta)
        active &= np.abs(new - eta) > tol * np.maximum(eta, 1.0)
        eta = new
    return eta, step


def _best_scale(s: np.ndarray, eta: np.ndarray, l2: float, shape: float,
                rate: float, copies: np.ndarray | None = None) -> float:
    """The exact ``J``-maximising ``c`` for the move ``(s, η) → (c s, η / c)``.

    The likelihood depends on ``η_g s`` only, so along this ray only the priors change:
    ``−(λ/2) c² ‖s‖² + Σ_g [(a−1) log(η_g / c) − b η_g / c]``. Its stationarity condition,
    times ``c²``, is ``f(c) = b Σ η − (a−1) G c − λ ‖s‖² c³ = 0`` with ``f`` decreasing
    and ``f(0) > 0``: one positive root. Without this step, alternating over ``s`` and
    ``η`` creeps along the ridge ``η s = const`` that only the priors curve. ``copies``
    weights each ``η_g``'s prior (merged copies, :class:`PeerGraderDesign`).
    """
    quad = l2 * _inner(s, s)
    if copies is None:
        linear = (shape - 1) * eta.size
        const = rate * float(eta.sum())
    else:
        linear = (shape - 1) * float(copies.sum())
        const = rate * _inner(copies, eta)
    bounds = [const / linear] if linear > 0 else []
    if quad > 0:
        bounds.append(np.cbrt(const / quad))
    if not bounds or const <= 0:
        return 1.0

    def stationarity(c: float) -> float:
        return const - linear * c - quad * c**3

    high = min(bounds)  # f(high) <= 0 up to rounding
    if stationarity(high) >= 0:
        return float(high)
    return float(brentq(stationarity, 0.0, high, xtol=1e-14, rtol=1e-12))


def peergrader(prefs: Preferences, l2: float = 1.0,
               reliability_prior: Sequence[float] = (10.0, 10.0), max_outer: int = 100,
               max_iter: int = 2000, tol: float = 1e-6, inner_tol: float = 1e-8,
               solver: str = "joint", fit_reliability: bool = True,
               init: ArrayLike | str | None = "em", trace: bool = False, *,
               should_stop: ShouldStop | None = None) -> RankingResult:
    """Fit PeerGrader, PL with grader reliability ("PL+G" of Raman & Joachims, KDD 2014).

    Raman & Joachims' Plackett–Luce model (§4, "PL") gives grader ``g``'s ordering
    ``σ`` of the items it graded the probability
    ``Π_j exp(s_{σ(j)}) / Σ_{l ≥ j} exp(s_{σ(l)})``; their grader-reliability extension
    (§4, the "+G" variants) multiplies the scores by the grader's reliability ``η_g > 0``,
    so ``P(σ | s, η_g) = Π_j exp(η_g s_{σ(j)}) / Σ_{l ≥ j} exp(η_g s_{σ(l)})``: a reliable
    grader (large ``η_g``) orders nearly deterministically, ``η_g → 0`` gives random
    orders. With a Gaussian prior on the scores and a Gamma prior on the reliabilities,
    the MAP estimate maximises :func:`peergrader_objective`::

        J(s, η) = Σ_n w_n log P(ρ_n | s, η_{g(n)}) − (λ/2)‖s‖²
                  + Σ_g [(a − 1) log η_g − b η_g].

    Ties follow Breslow's rule, as everywhere in the package. Two solvers reach the same
    maximum (start ``s = 0``, ``η = 1``):

    - ``"alternating"``, the "iterative alternating-minimization" the CoarsenRank paper
      (§5, time complexity) describes for PeerGrader: L-BFGS over ``s`` with ``η`` fixed
      (warm-started), then every ``η_g`` exactly by a vectorised safeguarded Newton search
      (``J`` is separable over graders and concave in each ``η_g``), then the exact best
      common rescaling ``(c s, η / c)``; rounds repeat until the relative L1 changes of
      ``s`` and ``η`` in a round are both below ``tol``, or ``max_outer`` rounds.
    - ``"joint"`` (default): one L-BFGS run over ``(s, log η)`` (:func:`_lbfgs`, without
      BLAS), or one L-BFGS-B run over ``(s, η)`` with ``η ≥ 1e-8`` when ``a = 1``, where
      an optimum can sit at ``η = 0``. Alternating creeps along the coupling of ``s`` and
      ``η`` when the data dwarf the priors: on Readlevel ×100 (1.27 M pairs, 12,701 after
      merging each grader's copies) 100 rounds took 630 s without meeting ``tol = 1e-6``;
      the joint run takes about 720 iterations and 0.4 s.

    Graders are :attr:`Preferences.ranker_index`: without ranker ids every preference is
    its own grader, with its own reliability, which only the Gamma prior then restrains.
    Identical preferences of equal weight are then fitted with one shared reliability
    whose prior counts once per copy (:class:`PeerGraderDesign`): the same optimum, with
    one parameter per distinct preference (Readlevel ×100 without ids: 2,490 instead of
    1.27 M); each ranker id still gets its own entry of ``reliability``.
    With ``fit_reliability=False`` every ``η_g`` stays 1 and the fit is the PL MAP under
    the Gaussian prior: :func:`coarsenrank_core.models.pl_gradient.pl_lbfgs` with
    ``regularization=0, l2=λ`` (the same ``l2``).

    Parameters
    ----------
    prefs : Preferences
    l2 : float
        ``λ``: the precision of the Gaussian prior ``s_m ~ N(0, 1/λ)``, the term
        ``−(λ/2)‖s‖²``, as ``l2`` of :func:`~coarsenrank_core.models.pl_gradient.pl_lbfgs`.
        Default 1. (``regularization`` in this package always means the virtual-node
        weight of paper §6.1.)
    reliability_prior : (float, float)
        ``(a, b)``: shape and rate of the Gamma prior on every ``η_g``; ``a ≥ 1`` keeps each
        ``η``-problem concave. The default ``(10, 10)`` has mean 1 and standard deviation
        0.32: reliabilities move away from 1 only as far as a grader's data push them.
    max_outer : int
        Maximum number of alternating rounds (``"alternating"`` only).
    max_iter : int
        Maximum number of L-BFGS iterations of each ``s``-step (``"alternating"``) or of
        the whole joint run.
    tol : float
        ``"alternating"``: stop when the relative L1 changes of ``s`` and of ``η`` in one
        round are below it.
    inner_tol : float
        ``gtol`` of L-BFGS on ``J / N`` (``N`` the total weight); relative tolerance of
        the Newton search.
    solver : {"joint", "alternating"}
    fit_reliability : bool
        Estimate the reliabilities (True) or keep every ``η_g = 1`` (one ``s``-step).
    init : "em", None or array
        Initial scores: the centred log-worths of a short accelerated PL-EM
        (:func:`~coarsenrank_core.models.pl_gradient.em_start`, default), zeros (``None``), or
        given. Reliabilities start at 1.
    trace : bool
        Record ``J`` after every round (alternating) or L-BFGS iteration (joint).
    should_stop : callable, optional
        Called after every L-BFGS iteration; when it returns true the fit raises
        :class:`coarsenrank_core.errors.Cancelled`. Not recorded in ``params``.

    Returns
    -------
    RankingResult
        ``scores`` are ``s``; ``iterations`` counts rounds (alternating) or L-BFGS
        iterations (joint); ``extra`` is a
        :class:`~coarsenrank_core.results.PeerGraderOutputs`: ``reliability`` (``η``,
        indexed by ranker id), ``inner_iterations`` (L-BFGS iterations in all),
        ``newton_steps``, ``solver`` and ``objective`` (``J`` at the end).

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [2, 1, 0]], rankers=[0, 0, 1])
    >>> result = peergrader(prefs)
    >>> result.order.tolist()[0], bool(result.extra["reliability"][1] < 1)
    (0, True)
    """
    start = time.perf_counter()
    params = dict(l2=l2, reliability_prior=tuple(reliability_prior),
                  max_outer=max_outer, max_iter=max_iter, tol=tol, inner_tol=inner_tol,
                  solver=solver, fit_reliability=fit_reliability, init=init, trace=trace)
    check_common(max_iter, inner_tol, l2)
    shape, rate = _check_reliability_prior(reliability_prior)
    if max_outer < 1 or not tol >= 0:
        raise ValueError("max_outer must be >= 1 and tol >= 0")
    if solver not in ("joint", "alternating"):
        raise ValueError(f"solver must be 'joint' or 'alternating', not {solver!r}")
    design = PeerGraderDesign(prefs)
    scale = 1.0 / max(prefs.total_weight, 1.0)
    s = initial_scores(init, prefs.n_items, prefs)
    eta = np.ones(design.n_graders)
    if fit_reliability and solver == "joint":
        s, eta, fit = _fit_joint(design, s, l2, shape, rate, scale, max_iter,
                                 inner_tol, trace, should_stop)
        rounds, inner, newton, converged, change = (fit["nit"], fit["nit"], 0, fit["success"],
                                                    fit["change"])
        values = fit["values"]
    else:
        s, eta, rounds, inner, newton, converged, change, values = _fit_alternating(
            design, s, eta, l2, shape, rate, scale, max_outer, max_iter, tol,
            inner_tol, fit_reliability, trace, should_stop)
    objective = peergrader_objective(prefs, s, eta, l2, (shape, rate), design)[0]
    if design.grader_of is not None:  # one reliability per ranker id (copies share one)
        eta = eta[design.grader_of]
    return RankingResult(
        method="peergrader", scores=s, iterations=rounds, converged=converged,
        seconds=time.perf_counter() - start, change=change, tau=None, params=params,
        trace=np.asarray(values) if trace else None,
        extra=PeerGraderOutputs(reliability=eta, inner_iterations=int(inner),
                                newton_steps=int(newton),
                                solver=solver if fit_reliability else "fixed",
                                objective=float(objective)))


def _lbfgs(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: np.ndarray,
           max_iter: int, tol: float, trace: bool, sign: float,
           should_stop: ShouldStop | None = None, memory: int = 10,
           ftol: float = 1e-15) -> dict[str, Any]:
    """Minimise ``fun`` (value and gradient) by L-BFGS without BLAS.

    The two-loop recursion of Nocedal & Wright (*Numerical Optimization*, 2nd ed., 2006,
    Algorithms 7.4 and 7.5; Liu & Nocedal 1989) with the last ``memory`` steps, the initial
    scaling ``sᵀy / yᵀy``, and scipy's strong-Wolfe line search
    (:func:`scipy.optimize.line_search`, ``c₁ = 10⁻⁴``, ``c₂ = 0.9``). It stops as
    L-BFGS-B does in :func:`~coarsenrank_core.models._solver.run_lbfgs`: when every
    gradient entry is at most ``tol`` or one step lowers the value by at most ``ftol``
    relative (both count as converged), or after ``max_iter`` iterations.

    Why not scipy's L-BFGS-B: its Fortran-turned-C core calls threaded OpenBLAS routines
    on the ``n × memory`` history at every iteration, and on busy shared cores each call
    waits for a second thread; PeerGrader on Readlevel ×100 (1,114 parameters, about 700
    iterations) took 4-6 s of CPU there, against 0.3 s here with the same iterations and
    optimum. The dot products below avoid BLAS as :func:`_inner` does.

    Returns the dictionary of :func:`~coarsenrank_core.models._solver.run_lbfgs`.
    """
    cache: dict[bytes, tuple[float, np.ndarray]] = {}

    def evaluate(x: np.ndarray) -> tuple[float, np.ndarray]:
        key = x.tobytes()
        if key not in cache:  # the line search asks for the value and the gradient apart
            if len(cache) > 4:
                cache.clear()
            value, grad = fun(x)
            cache[key] = (float(value), np.asarray(grad, dtype=float))
        return cache[key]

    x = np.array(x0, dtype=float)
    value, grad = evaluate(x)
    steps: list[np.ndarray] = []
    moves: list[np.ndarray] = []  # gradient changes
    curvatures: list[float] = []  # 1 / sᵀy
    values: list[float] = []
    before = None
    nit, success, message, change = 0, False, "iteration limit reached", 0.0
    while True:
        if np.max(np.abs(grad), initial=0.0) <= tol:
            success, message = True, "every gradient entry is at most tol"
            break
        if nit >= max_iter:
            break
        direction = grad.copy()
        alphas = []
        for step, move, rho in zip(steps[::-1], moves[::-1], curvatures[::-1]):
            alphas.append(rho * _inner(step, direction))
            direction -= alphas[-1] * move
        if steps:
            direction *= _inner(steps[-1], moves[-1]) / _inner(moves[-1], moves[-1])
        else:
            direction /= max(np.sqrt(_inner(grad, grad)), np.finfo(float).tiny)
        for step, move, rho, alpha in zip(steps, moves, curvatures, alphas[::-1]):
            direction += (alpha - rho * _inner(move, direction)) * step
        direction = -direction
        found = line_search(lambda z: evaluate(z)[0], lambda z: evaluate(z)[1], x, direction,
                            grad, value, before)
        if found[0] is None:
            if steps:  # forget the history and try steepest descent once
                for history in (steps, moves, curvatures):
                    history.clear()
                continue
            message = "the line search found no acceptable step"
            break
        new = x + found[0] * direction
        new_value, new_grad = evaluate(new)
        step, move = new - x, new_grad - grad
        sy = _inner(step, move)
        if sy > 1e-12 * np.sqrt(_inner(step, step) * _inner(move, move)):
            steps.append(step)
            moves.append(move)
            curvatures.append(1.0 / sy)
            if len(steps) > memory:
                del steps[0], moves[0], curvatures[0]
        size = float(np.abs(x).sum())
        change = float(np.abs(step).sum()) / size if size > 0 else float("inf")
        before, value, grad, x = value, new_value, new_grad, new
        nit += 1
        if trace:
            values.append(sign * value)
        check_stop(should_stop, f"PeerGrader was stopped after {nit} iterations.")
        if before - value <= ftol * max(abs(before), abs(value), 1.0):
            success, message = True, "the value stopped decreasing"
            break
    return {"x": x, "nit": nit, "success": success, "change": change, "fun": value,
            "grad": grad, "message": message, "values": np.array(values)}


def _fit_joint(design: PeerGraderDesign, s: np.ndarray, l2: float, shape: float, rate: float,
               scale: float, max_iter: int, tol: float, trace: bool,
               should_stop: ShouldStop | None = None
               ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """One L-BFGS run over ``(s, u)``: ``u = log η`` when ``a > 1``, else ``u = η ≥ ETA_MIN``.

    With ``a > 1`` every reliability's optimum is interior and ``log η`` conditions the
    problem better (Readlevel ×100: about 700 iterations against over 2000 on ``η``); the
    run is then unconstrained, by :func:`_lbfgs`. With ``a = 1`` an optimum can sit on the
    bound, which L-BFGS-B (:func:`~coarsenrank_core.models._solver.run_lbfgs`) reaches
    exactly on ``η`` but ``log η`` only creeps towards.
    """
    n_items = s.size
    log_scale = shape > 1
    # a reliability shared by c copies has c times a copy's curvature: L-BFGS runs on
    # √c · log η, which puts them on one scale (Readlevel ×100 without ids: about 40 %
    # fewer iterations)
    root = (np.sqrt(design.copies) if log_scale and design.copies is not None
            else np.ones(design.n_graders))

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        scores, u = x[:n_items], x[n_items:]
        if log_scale:
            u = u / root
        eta = np.exp(u) if log_scale else u
        value, d_s, d_eta, _ = design.evaluate(scores, eta)
        assert d_s is not None  # grad_s=True
        prior, prior_d1, _ = _reliability_prior(design, eta, shape, rate)
        value += -0.5 * l2 * _inner(scores, scores) + prior
        d_eta += prior_d1
        grad = np.concatenate([d_s - l2 * scores,
                               d_eta * eta / root if log_scale else d_eta])
        return -scale * value, -scale * grad

    if log_scale:  # unconstrained: L-BFGS without BLAS (see _lbfgs)
        fit = _lbfgs(loss, np.concatenate([s, np.zeros(design.n_graders)]), max_iter, tol,
                     trace, sign=-1.0 / scale, should_stop=should_stop)
    else:
        bounds = Bounds(np.concatenate([np.full(n_items, -np.inf),
                                        np.full(design.n_graders, ETA_MIN)]), np.inf)
        fit = run_lbfgs(loss, np.concatenate([s, np.ones(design.n_graders)]), max_iter, tol,
                        trace, sign=-1.0 / scale, bounds=bounds, should_stop=should_stop,
                        name="PeerGrader")
    u = fit["x"][n_items:]
    return fit["x"][:n_items], np.exp(u / root) if log_scale else u.copy(), fit


def _fit_alternating(design: PeerGraderDesign, s: np.ndarray, eta: np.ndarray, l2: float,
                     shape: float, rate: float, scale: float, max_outer: int,
                     max_iter: int, tol: float, inner_tol: float, fit_reliability: bool,
                     trace: bool, should_stop: ShouldStop | None = None) -> tuple[Any, ...]:
    """Rounds of: L-BFGS over ``s``, Newton over every ``η_g``, best common rescaling."""
    current = {"eta": eta}

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, d_s, _, _ = design.evaluate(x, current["eta"])
        assert d_s is not None  # grad_s=True
        value -= 0.5 * l2 * _inner(x, x)
        return -scale * value, -scale * (d_s - l2 * x)

    def relative(new: np.ndarray, old: np.ndarray) -> float:
        size = np.abs(old).sum()
        return float(np.abs(new - old).sum() / size) if size > 0 else float("inf")

    values, inner, newton, converged, change, rounds = [], 0, 0, False, float("inf"), 0
    while rounds < max_outer:
        rounds += 1
        old_s, old_eta = s, eta
        fit = run_lbfgs(loss, s, max_iter, inner_tol, trace=False, should_stop=should_stop,
                        name="PeerGrader")
        inner += fit["nit"]
        s = fit["x"]
        if not fit_reliability:
            converged, change = fit["success"], fit["change"]
            break
        eta, steps = _update_reliability(design, s, eta, shape, rate, inner_tol)
        newton += steps
        factor = _best_scale(s, eta, l2, shape, rate, design.copies)
        s, eta = s * factor, eta / factor
        current["eta"] = eta
        change = max(relative(s, old_s), relative(eta, old_eta))
        if trace:
            value = design.evaluate(s, eta, grad_s=False)[0]
            values.append(value - 0.5 * l2 * _inner(s, s)
                          + _reliability_prior(design, eta, shape, rate)[0])
        if change < tol:
            converged = True
            break
    return s, eta, rounds, inner, newton, converged, change, values
