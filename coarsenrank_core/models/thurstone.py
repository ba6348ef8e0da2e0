"""CoarsenTH: the tempered Thurstone model on rank-broken pairs, logistic approximation, L-BFGS."""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import ArrayLike

from ..errors import Cancelled, ShouldStop
from ..preferences import Preferences
from ..results import RankingResult, ThurstoneOutputs, tempering
from ._solver import check_common, log_sigmoid, run_lbfgs, virtual_node_penalty
from .plackett_luce import initial_scores

__all__ = ["coarsen_th", "th_objective", "LOGISTIC_SLOPE", "pairs_of"]

LOGISTIC_SLOPE = 2.0 / np.sqrt(np.pi)
"""λ = 2/√π: the logistic σ(λΔ) has the slope of the probit Φ(Δ/√2) at Δ = 0 (Eq. (15))."""


def pairs_of(prefs: Preferences) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Winners, losers and weights of the fully rank-broken pairs (tied items give none)."""
    pairs = prefs.rank_break()
    return pairs.items[0::2], pairs.items[1::2], pairs.weights


def th_objective(scores: ArrayLike, winners: np.ndarray, losers: np.ndarray,
                 weights: np.ndarray | None = None, n_items: int | None = None,
                 tau: float = 1.0, regularization: float = 1.0,
                 slope: float = LOGISTIC_SLOPE) -> tuple[float, np.ndarray]:
    """The CoarsenTH objective (paper Eq. (16), log form) and its gradient.

    ``F(s) = τ Σ_p w_p log σ(λ (s_{i_p} − s_{j_p})) + regularization · R_λ(s)``, where pair
    ``p`` says ``i_p`` beat ``j_p`` and ``R_λ`` is the untempered virtual-node term of
    :func:`coarsenrank_core.models.pl_gradient.virtual_node_penalty` under the same link. The
    constant ``−Nτ log √(2π)`` of Eq. (16) is dropped; the prior ``π(θ)`` is the
    virtual-node term.

    Parameters
    ----------
    scores : array, shape (M,)
    winners, losers : array of int, shape (P,)
    weights : array, shape (P,), optional
        Pair weights (1 when omitted).
    n_items : int, optional
        M; defaults to ``len(scores)``.
    tau : float
        Tempering power of the data term.
    regularization : float
        Weight of the virtual-node comparisons.
    slope : float
        λ of the logistic link.

    Returns
    -------
    (float, numpy.ndarray)
        ``F(s)`` and ``∇F(s)``.
    """
    s = np.asarray(scores, dtype=float)
    n_items = s.size if n_items is None else n_items
    z = slope * (s[winners] - s[losers])
    log_lik, push = log_sigmoid(z)  # push = 1 − σ(z) = ∂ log σ(z) / ∂z
    if weights is not None:
        value = tau * float(weights @ log_lik)
        push *= weights
    else:
        value = tau * float(log_lik.sum())
    push *= tau * slope
    # float even without pairs (bincount of an empty array is integer, whatever the weights)
    grad = (np.bincount(winners, weights=push, minlength=n_items)
            - np.bincount(losers, weights=push, minlength=n_items)).astype(float, copy=False)
    if regularization:
        penalty, penalty_grad = virtual_node_penalty(s, slope)
        value += regularization * penalty
        grad += regularization * penalty_grad
    return value, grad


def coarsen_th(prefs: Preferences, alpha: float = np.inf, regularization: float = 1.0,
               max_iter: int = 1000, tol: float = 1e-8, init: ArrayLike | str | None = None,
               trace: bool = False, should_stop: ShouldStop | None = None) -> RankingResult:
    """Fit CoarsenTH, the coarsened Thurstone model (paper §3.2.1, Eq. (16)).

    Every preference is fully rank-broken into pairs (paper §6.1, after Khetan & Oh 2016):
    a list ``a > b > c`` of weight ``w`` gives ``a > b``, ``a > c`` and ``b > c``, each of
    weight ``w``. The Thurstone probability ``Φ((s_i − s_j)/√2)`` of pair ``i > j`` is
    replaced by ``σ(λ (s_i − s_j))`` with ``λ = 2/√π`` (paper Eq. (15)). L-BFGS from
    ``s = 0`` (paper Remark TH_Optimization) then maximises the concave objective
    :func:`th_objective`::

        τ Σ_pairs w log σ(λΔ) + reg · Σ_m [log σ(λ s_m) + log σ(−λ s_m)],

    with the virtual-node regularisation (paper §6.1) untempered, as in the released code.

    ``τ = α / (α + N)`` with ``N`` the total weight of the ORIGINAL preferences, not the
    number of pairs: the released code does this for CoarsenTH and CoarsenBT alike. Since
    only the ratio matters, the fit at ``(τ, reg)`` equals the untempered fit (``α = ∞``)
    with regularisation ``reg / τ``.

    Ties: items tied inside a preference give no pair (the rank-breaking of
    :meth:`Preferences.rank_break` emits none), so tied pairs, and a preference that is
    entirely tied, contribute nothing. When every preference is entirely tied there is no
    pair at all: the fit is then the maximum of the regulariser alone, every score is 0
    (all items equal), and ``extra["note"]`` says so.

    Parameters
    ----------
    prefs : Preferences
    alpha : float
        α of the KL neighbourhood; ``inf`` gives the plain (logistic) Thurstone model.
        The paper uses 4000 (Readlevel), 8 (BabyFace) and 950 (PeerGrading).
    regularization : float
        Weight of the virtual-node comparisons (1 in the paper's code).
    max_iter : int
        Maximum number of L-BFGS iterations; the default 1000 converges on the paper's
        data (Readlevel needs about 50 at α = 4000, 95 at α = ∞).
    tol : float
        Stop when every entry of the gradient of ``F / N`` is below ``tol`` (``gtol``).
    init : array, optional
        Initial scores; zeros by default.
    trace : bool
        Record ``F(s)`` after every iteration.
    should_stop : callable, optional
        Called without arguments before every evaluation of the objective (one or a few
        per L-BFGS iteration); when it returns true the fit raises
        :class:`coarsenrank_core.errors.Cancelled`. Not recorded in ``params``.

    Returns
    -------
    RankingResult
        ``scores`` are the Thurstone scores ``s``; ``tau`` is filled; ``extra`` is a
        :class:`~coarsenrank_core.results.ThurstoneOutputs`: ``n_pairs``, ``slope``,
        ``objective``, ``gradient_norm`` and ``message``, plus ``note`` when there is no
        pair to fit.

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]])
    >>> coarsen_th(prefs, alpha=10).order.tolist()
    [0, 1, 2]
    """
    start = time.perf_counter()
    params = dict(alpha=alpha, regularization=regularization, max_iter=max_iter, tol=tol,
                  init=init, trace=trace)
    check_common(max_iter, tol, regularization)
    tau = tempering(alpha, prefs.total_weight)
    pairs = prefs.rank_break().pooled  # identical pairs merged: the same weighted sums
    winners, losers, weights = pairs.items[0::2], pairs.items[1::2], pairs.weights
    n_pairs = int(prefs.count_pairs())
    if np.all(weights == 1.0):
        weights = None
    n_items = prefs.n_items
    scale = 1.0 / max(prefs.total_weight, 1.0)

    evaluations = 0

    def loss(s: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal evaluations
        if should_stop is not None and should_stop():
            raise Cancelled(f"CoarsenTH was stopped after {evaluations} evaluations of its "
                            "objective.")
        evaluations += 1
        value, grad = th_objective(s, winners, losers, weights, n_items, tau, regularization)
        return -scale * value, -scale * grad

    fit = run_lbfgs(loss, initial_scores(init, n_items), max_iter, tol, trace, sign=-1.0 / scale)
    note = None
    if winners.size == 0:
        note = ("No preference puts one item above another (every preference is entirely "
                "tied), so the data say nothing about the order: all items get equal scores.")
    extra = ThurstoneOutputs(objective=-fit["fun"] / scale,
                             gradient_norm=float(np.abs(fit["grad"]).max(initial=0.0)) / scale,
                             message=fit["message"], n_pairs=n_pairs, slope=LOGISTIC_SLOPE,
                             note=note)
    return RankingResult(
        method="coarsen-th", scores=fit["x"], iterations=fit["nit"],
        converged=fit["success"], seconds=time.perf_counter() - start, change=fit["change"],
        tau=tau, params=params, trace=fit["values"] if trace else None, extra=extra)
