"""The EM fitters the package exports: the registry's defaults, α chosen from the data."""

from __future__ import annotations

from typing import Any

from .preferences import Preferences
from .registry import AUTO_ALPHA, run_method
from .results import RankingResult

__all__ = ["coarsen_bt", "coarsen_pl", "coarsen_pl_gibbs", "coarsen_th", "pl_em"]


def coarsen_pl(prefs: Preferences, alpha: float | str = AUTO_ALPHA,
               **options: Any) -> RankingResult:
    """Fit CoarsenPL by the closed-form EM (paper Algorithm 1) with the registry's defaults.

    The same fit as ``run_method("coarsen-pl", prefs, alpha=alpha, **options)``, which is
    what the dashboard and ``coarsenrank rank --method coarsen-pl`` run.

    Parameters
    ----------
    prefs : Preferences
        The preferences to aggregate.
    alpha : float or str
        The neighbourhood size; ``τ = α/(α+N)`` tempers the likelihood (paper Eq. (13)).
        ``"auto"`` (the default) chooses it from the data by
        :func:`~coarsenrank_core.alpha.choose_alpha` (the knee of DIC against α, paper
        Eq. (35)); ``float("inf")`` is plain Plackett–Luce.
    **options
        Any other parameter of :func:`coarsenrank_core.models.coarsen_pl` (the engine's EM,
        whose own ``alpha`` defaults to ∞): ``prior``, ``max_iter``, ``tol``, ….

    Returns
    -------
    RankingResult
        Scores, order, iterations, convergence and timing; ``params["alpha"]`` is the α used.

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]] * 5)
    >>> coarsen_pl(prefs).order.tolist()
    [0, 1, 2]
    """
    return run_method("coarsen-pl", prefs, alpha=alpha, **options)


def coarsen_bt(prefs: Preferences, alpha: float | str = AUTO_ALPHA,
               **options: Any) -> RankingResult:
    """Fit CoarsenBT (paper Eq. (18)) with the registry's defaults; see :func:`coarsen_pl`.

    The same fit as ``run_method("coarsen-bt", prefs, alpha=alpha, **options)``; other
    parameters are those of :func:`coarsenrank_core.models.coarsen_bt`.
    """
    return run_method("coarsen-bt", prefs, alpha=alpha, **options)


def coarsen_th(prefs: Preferences, alpha: float | str = AUTO_ALPHA,
               **options: Any) -> RankingResult:
    """Fit CoarsenTH (paper Eq. (16)) with the registry's defaults; see :func:`coarsen_pl`.

    The same fit as ``run_method("coarsen-th", prefs, alpha=alpha, **options)``; other
    parameters are those of :func:`coarsenrank_core.models.coarsen_th`.
    """
    return run_method("coarsen-th", prefs, alpha=alpha, **options)


def coarsen_pl_gibbs(prefs: Preferences, alpha: float | str = AUTO_ALPHA,
                     **options: Any) -> RankingResult:
    """Sample CoarsenPL's tempered posterior by Gibbs (paper Algorithm 2), registry defaults.

    The same run as ``run_method("coarsen-pl-gibbs", prefs, alpha=alpha, **options)``: the
    registry's burn-in, number of draws and fixed ``random_state`` unless given. Other
    parameters are those of :func:`coarsenrank_core.models.coarsen_pl_gibbs`.
    """
    return run_method("coarsen-pl-gibbs", prefs, alpha=alpha, **options)


def pl_em(prefs: Preferences, **options: Any) -> RankingResult:
    """Fit plain Plackett–Luce by the same EM at α = ∞ (the paper's PL-EM baseline).

    The same fit as ``run_method("pl-em", prefs, **options)``, with the registry's prior
    and calibration, so it equals ``coarsen_pl(prefs, alpha=float("inf"))``. Other
    parameters are those of :func:`coarsenrank_core.models.pl_em`.
    """
    return run_method("pl-em", prefs, **options)
