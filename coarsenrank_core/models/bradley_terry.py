"""CoarsenBT: the tempered Bradley–Terry model on fully rank-broken pairs, fitted by the same EM."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ShouldStop
from ..preferences import Preferences
from ..results import BradleyTerryOutputs, RankingResult
from .plackett_luce import Calibration, coarsen_pl

__all__ = ["coarsen_bt"]


def coarsen_bt(prefs: Preferences, alpha: float = np.inf,
               prior: Sequence[float] = (1.0, 2.0), calibration: Calibration = None,
               max_iter: int = 500, tol: float = 1e-8, init: ArrayLike | None = None, *,
               should_stop: ShouldStop | None = None) -> RankingResult:
    """Fit CoarsenBT (paper Eq. (18)): Bradley–Terry, tempered, on rank-broken pairs.

    Every preference is fully rank-broken (:meth:`Preferences.rank_break`): each ordered pair
    inside a list becomes one comparison with the list's weight and ranker. Two items tied
    in a list give a tied pair, which counts (Breslow) as each being chosen over the other
    from the set of the two. The tempered posterior is then maximised by the closed-form EM
    of :func:`coarsen_pl` (for pairs, PL is BT).

    ``τ = α / (α + N)`` takes ``N`` from the ORIGINAL preferences' total weight, not from
    the number of pairs, as the authors' released code does; a list of ``k`` items thus
    enters with ``k(k−1)/2`` pairs each tempered by the same ``τ``.

    Parameters
    ----------
    prefs : Preferences
    alpha, prior, calibration, max_iter, tol, init, should_stop
        As for :func:`coarsen_pl` (identical pairs are merged, EM is accelerated when run
        to a tolerance, and ``converged`` is ``None`` with ``tol = 0``).

    Returns
    -------
    RankingResult
        ``scores`` are BT worths; ``extra`` is a
        :class:`~coarsenrank_core.results.BradleyTerryOutputs` (``n_pairs``, the number of
        pairs fitted).
    """
    start = time.perf_counter()
    pairs = prefs.rank_break(keep_ties=True)
    fit = coarsen_pl(pairs, alpha=alpha, prior=prior, calibration=calibration,
                     max_iter=max_iter, tol=tol, init=init, n_for_tau=prefs.total_weight,
                     should_stop=should_stop)
    params = dict(alpha=alpha, prior=tuple(prior), calibration=calibration, max_iter=max_iter,
                  tol=tol, init=init)
    return RankingResult(method="coarsen-bt", scores=fit.scores, iterations=fit.iterations,
                         converged=fit.converged, seconds=time.perf_counter() - start,
                         change=fit.change, tau=fit.tau, params=params,
                         extra=BradleyTerryOutputs(n_pairs=len(pairs)))
