"""Choosing α from the data: the DIC sweep of paper §4.4 (corrected sampler) and a knee rule."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

from .frozen import FrozenDict, readonly_array
from .plackett_luce import coarsen_pl_gibbs
from .preferences import Preferences
from .results import tempering

__all__ = ["DICResult", "dic_sweep", "dic_point", "auto_alpha_grid", "knee_index"]


@dataclass(frozen=True)
class DICResult:
    """The DIC curve over a grid of α (paper Eq. DIC_eq, as corrected in the notes).

    Attributes
    ----------
    alphas, taus : numpy.ndarray
        The grid, increasing, and ``τ = α / (α + N)`` for each α.
    f : numpy.ndarray
        Posterior mean of the untempered log-likelihood ``log P_θ(R_N)`` (fit).
    g : numpy.ndarray
        ``log P_θ̄(R_N) − f`` with θ̄ the posterior mean (complexity).
    dic : numpy.ndarray
        ``g − f``: half of Spiegelhalter's DIC, with the same minimiser.
    best_alpha : float
        α of lowest DIC.
    knee_alpha : float
        α where the curve levels off (see :func:`knee_index`).
    seconds : float
        Wall-clock time of the sweep.
    params : Mapping
        The sweep's parameters as given.
    """

    alphas: np.ndarray
    taus: np.ndarray
    f: np.ndarray
    g: np.ndarray
    dic: np.ndarray
    best_alpha: float
    knee_alpha: float
    seconds: float
    params: FrozenDict = field(default_factory=lambda: FrozenDict({}))

    def __post_init__(self):
        for name in ("alphas", "taus", "f", "g", "dic"):
            object.__setattr__(self, name, readonly_array(getattr(self, name)))

    @property
    def best_index(self) -> int:
        """Position of ``best_alpha`` in the grid."""
        return int(np.argmin(self.dic))

    @property
    def knee_index(self) -> int:
        """Position of ``knee_alpha`` in the grid."""
        return int(np.flatnonzero(self.alphas == self.knee_alpha)[0])


def auto_alpha_grid(n_preferences: float, size: int = 15) -> np.ndarray:
    """A log-spaced grid of α from 1 to ``10 N`` (τ from about ``1/N`` to 0.91).

    Values are rounded to two significant figures so that they read well in a table.
    """
    if size < 2:
        raise ValueError("the grid needs at least 2 values")
    raw = np.geomspace(1.0, 10.0 * max(float(n_preferences), 1.0), size)
    digits = 1 - np.floor(np.log10(raw)).astype(int)
    rounded = np.array([round(v, int(d)) for v, d in zip(raw, digits)])
    return np.unique(rounded)


def knee_index(alphas, dic) -> int:
    """Index of the point where a DIC curve levels off (the "knee").

    Rule (Kneedle, Satopää et al. 2011, on the descending part): take the curve from the
    first α to the α of lowest DIC, on axes ``log α`` and DIC, both scaled to [0, 1]. The
    knee is the point that lies farthest below the straight line joining the two ends. If
    that part has fewer than three points, or no point lies below the line (the descent
    is straight or concave), the knee is the α of lowest DIC.

    Parameters
    ----------
    alphas : array
        Increasing grid of α.
    dic : array
        DIC at each α.
    """
    x = np.log(np.asarray(alphas, dtype=float))
    y = np.asarray(dic, dtype=float)
    best = int(np.argmin(y))
    if best < 2 or y[0] == y[best]:
        return best
    x_scaled = (x[: best + 1] - x[0]) / (x[best] - x[0])
    y_scaled = (y[: best + 1] - y[best]) / (y[0] - y[best])
    below_chord = (1.0 - x_scaled) - y_scaled
    knee = int(np.argmax(below_chord))
    return knee if below_chord[knee] > 1e-12 else best


def dic_point(prefs: Preferences, alpha: float, prior=(1.0, 2.0), burn_in: int = 100,
              n_draws: int = 50, thin: int = 1, random_state=None,
              warm_start=None) -> tuple[float, float]:
    """Return ``(f, g)`` at one α from an exact Gibbs run (paper Eq. DIC_eq)."""
    post = coarsen_pl_gibbs(prefs, alpha=alpha, prior=prior, burn_in=burn_in, n_draws=n_draws,
                            thin=thin, random_state=random_state, warm_start=warm_start)
    design = prefs.stages
    f = float(np.mean([design.log_likelihood(theta) for theta in post.draws]))
    g = design.log_likelihood(post.mean) - f
    return f, g


def dic_sweep(prefs: Preferences, alphas: Sequence[float] | None = None, prior=(1.0, 2.0),
              burn_in: int = 100, n_draws: int = 50, thin: int = 1, random_state=None,
              progress: Callable[[int, int], None] | None = None, n_jobs: int = 1,
              warm_start=None) -> DICResult:
    """Run the exact Gibbs sampler at every α of a grid and return the DIC curve.

    For each α: ``f(α)`` is the posterior mean of the untempered log-likelihood,
    ``g(α) = log P_θ̄(R_N) − f(α)`` and ``DIC = g − f`` (paper Eq. DIC_eq). The cost is one
    sampler run per α. Each α gets its own child seed of ``random_state``, so the curve
    does not depend on ``n_jobs`` or on the order in which points finish.

    Parameters
    ----------
    prefs : Preferences
    alphas : sequence of float, optional
        The grid; default :func:`auto_alpha_grid` of the total weight.
    prior : (float, float)
        Gamma(a, rate b) prior used at every α.
    burn_in, n_draws, thin : int
        Sampler settings (paper: 50 draws).
    random_state : None, int or numpy.random.Generator
        Master seed.
    progress : callable, optional
        Called as ``progress(done, total)`` after each α.
    n_jobs : int
        Worker processes; ``-1`` uses every core. ``1`` runs in this process.
    warm_start : None or True
        Passed to :func:`coarsen_pl_gibbs`.

    Returns
    -------
    DICResult
    """
    start = time.perf_counter()
    params = dict(alphas=None if alphas is None else tuple(alphas), prior=tuple(prior),
                  burn_in=burn_in, n_draws=n_draws, thin=thin, random_state=random_state,
                  n_jobs=n_jobs, warm_start=warm_start)
    grid = auto_alpha_grid(prefs.total_weight) if alphas is None else np.asarray(alphas, float)
    grid = np.unique(grid)
    if grid.size < 1 or not np.all(grid > 0):
        raise ValueError("alphas must be positive numbers")
    seeds = np.random.default_rng(random_state).spawn(grid.size)
    settings = dict(prior=prior, burn_in=burn_in, n_draws=n_draws, thin=thin,
                    warm_start=warm_start)
    f = np.empty(grid.size)
    g = np.empty(grid.size)
    workers = (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)
    if workers > 1 and grid.size > 1:
        with ProcessPoolExecutor(max_workers=min(workers, grid.size)) as pool:
            futures = {pool.submit(dic_point, prefs, float(alpha), random_state=seed, **settings): i
                       for i, (alpha, seed) in enumerate(zip(grid, seeds))}
            for done, future in enumerate(as_completed(futures), start=1):
                f[futures[future]], g[futures[future]] = future.result()
                if progress is not None:
                    progress(done, grid.size)
    else:
        for i, (alpha, seed) in enumerate(zip(grid, seeds)):
            f[i], g[i] = dic_point(prefs, float(alpha), random_state=seed, **settings)
            if progress is not None:
                progress(i + 1, grid.size)
    dic = g - f
    knee = knee_index(grid, dic)
    return DICResult(alphas=grid, taus=np.array([tempering(a, prefs.total_weight) for a in grid]),
                     f=f, g=g, dic=dic, best_alpha=float(grid[np.argmin(dic)]),
                     knee_alpha=float(grid[knee]), seconds=time.perf_counter() - start,
                     params=FrozenDict(params))
