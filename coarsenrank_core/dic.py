"""Choosing α from the data: the DIC sweep of paper §4.5 (corrected sampler) and a knee rule."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .defaults import DIC_BURN_IN, DIC_N_DRAWS, DIC_SETTINGS, DIC_WARM_START, PRIOR
from .errors import Cancelled, check_stop
from .frozen import FrozenDict, readonly_array, restore_readonly
from .models.plackett_luce import STOP_EVERY, coarsen_pl_gibbs_fit_trace
from .preferences import Preferences
from .results import tempering

__all__ = ["DICResult", "dic_sweep", "dic_point", "auto_alpha_grid", "knee_index", "knee_alpha",
           "smooth_curve", "DIC_DRAWS", "CHAIN_BURN_IN", "CHAIN_SEGMENTS"]

#: Sampler settings of every automatic sweep (the default rule, the pages, the CLI).
#: ``warm_start="chain"``: each of the :data:`CHAIN_SEGMENTS` chains starts from EM and
#: runs ``burn_in`` sweeps at its largest α; every smaller α continues the previous α's
#: chain with :data:`CHAIN_BURN_IN` sweeps. The paper's 50 draws are not enough (measured
#: over 8 seeds on Readlevel, BabyFace, PeerGrading, a careless-rater scenario and the
#: SUSHI shape, 15-α grids): they widen the seed-to-seed spread of the curve by 22–61 % and
#: shift it (up to 3.9 standard errors at α = 2.1 on BabyFace: ``g`` is read at the mean
#: of the draws), so 100 draws stay. A burn-in of 20 from EM keeps the curve as well (every
#: point within 2.5 standard errors of burn-in 100's, same spread); it stays 100 here
#: because the command line passes its ``--burn-in`` (default 100) to
#: :func:`~coarsenrank_core.alpha.choose_alpha`, and the dashboard's α must equal its.
DIC_DRAWS: dict = dict(DIC_SETTINGS)  # coarsenrank_core.defaults holds the values

#: Burn-in of every α after the first when the sweep continues one chain across the grid:
#: a chain already near the neighbouring posterior needs only a few sweeps. 10 (was 15):
#: over the same 8 seeds and datasets every point of the mean curve stays within 0.9
#: standard errors of 15's, the seed-to-seed spread within 4 %, and the median knee moves
#: by at most 0.13 of a grid step (``tests/test_dic_warm_start.py`` checks the curve
#: against cold starts).
CHAIN_BURN_IN = 10

#: Chains a ``warm_start="chain"`` sweep walks: the grid is cut into this many contiguous
#: parts, largest α first, each starting from EM with the full burn-in. The cut does not
#: depend on ``n_jobs``, so one process and two give the same curve; two run in parallel.
CHAIN_SEGMENTS = 2


@dataclass(frozen=True)
class DICResult:
    """The DIC curve over a grid of α (paper Eq. (33), from the exact sampler).

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
        α where the smoothed curve levels off (see :func:`knee_alpha`); it may lie between
        grid points.
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

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        for name in ("alphas", "taus", "f", "g", "dic"):
            object.__setattr__(self, name, readonly_array(getattr(self, name)))

    @property
    def best_index(self) -> int:
        """Position of ``best_alpha`` in the grid."""
        return int(np.argmin(self.dic))

    @property
    def knee_index(self) -> int:
        """Grid position nearest to ``knee_alpha`` (on a log scale)."""
        return int(np.argmin(np.abs(np.log(self.alphas) - np.log(self.knee_alpha))))

    @property
    def still_falling(self) -> bool:
        """True when the lowest DIC is at the largest α tried: the search stopped, not the curve."""
        return self.alphas.size > 1 and self.best_index == self.alphas.size - 1

    @property
    def smoothed(self) -> np.ndarray:
        """The curve the knee is read from (see :func:`smooth_curve`)."""
        return smooth_curve(self.dic)

    def at(self, alpha: float) -> float:
        """The smoothed DIC at any α inside the grid (linear in log α between points)."""
        return float(np.interp(np.log(alpha), np.log(self.alphas), self.smoothed))


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


def smooth_curve(dic) -> np.ndarray:
    """A DIC curve smoothed for reading its knee.

    A 1-2-1 moving average over neighbouring grid points (ends extended linearly, so a
    straight line stays straight), then the running
    minimum from the left, so that Monte-Carlo wiggles of the flat tail and any rise after
    the minimum read as "levelled off". Curves of fewer than 5 points are not averaged.
    """
    y = np.asarray(dic, dtype=float)
    if y.size >= 5:
        y = np.convolve(np.pad(y, 1, mode="reflect", reflect_type="odd"), [0.25, 0.5, 0.25],
                        mode="valid")
    return np.minimum.accumulate(y)


def knee_alpha(alphas, dic, smooth: bool = True) -> float:
    """α where a DIC curve levels off (the "knee"), possibly between grid points.

    Rule (Kneedle, Satopää et al. 2011): on axes ``log α`` and DIC, both scaled to [0, 1],
    take the smoothed curve (:func:`smooth_curve`) from the first to the last α and find the
    point farthest below the chord joining its ends; a parabola through that point and its
    two neighbours refines its position in ``log α``. The result is rounded to two
    significant figures. If no point lies below the chord (a straight or concave descent)
    the knee is the α of lowest smoothed DIC; a curve that never falls gives the first α.

    Reading the knee from a smoothed curve, between grid points, is what keeps it stable:
    the raw arg-max jumps by a whole grid step (a factor ≈ 2) when one DIC estimate moves.

    Parameters
    ----------
    alphas : array
        Increasing grid of α (at least 2 values).
    dic : array
        DIC at each α.
    smooth : bool
        Smooth first (default); ``False`` uses the running minimum of the raw curve only.
    """
    alphas = np.asarray(alphas, dtype=float)
    x = np.log(alphas)
    y = smooth_curve(dic) if smooth else np.minimum.accumulate(np.asarray(dic, dtype=float))
    if y.size < 3 or not y[0] > y[-1]:
        return float(alphas[int(np.argmin(y))]) if y.size else float("nan")
    xs = (x - x[0]) / (x[-1] - x[0])
    ys = (y - y[-1]) / (y[0] - y[-1])
    below = (1.0 - xs) - ys
    i = int(np.argmax(below))
    if not below[i] > 1e-12:
        return float(alphas[int(np.flatnonzero(y == y[-1])[0])])
    position = xs[i]
    if 0 < i < y.size - 1:
        (x0, x1, x2), (d0, d1, d2) = xs[i - 1:i + 2], below[i - 1:i + 2]
        curvature = (d2 - d1) / (x2 - x1) - (d1 - d0) / (x1 - x0)
        if curvature < 0:
            slope_left, slope_right = (d1 - d0) / (x1 - x0), (d2 - d1) / (x2 - x1)
            # vertex of the parabola through the three points
            a = (slope_right - slope_left) / (x2 - x0)
            b = slope_left - a * (x0 + x1)
            position = float(np.clip(-b / (2 * a), x0, x2))
    value = float(np.exp(x[0] + position * (x[-1] - x[0])))
    return _two_figures(value)


def _two_figures(value: float) -> float:
    if not np.isfinite(value) or value <= 0:
        return value
    return float(round(value, 1 - int(np.floor(np.log10(value)))))


def knee_index(alphas, dic) -> int:
    """Grid position nearest (in ``log α``) to :func:`knee_alpha` of the curve."""
    alphas = np.asarray(alphas, dtype=float)
    return int(np.argmin(np.abs(np.log(alphas) - np.log(knee_alpha(alphas, dic)))))


def _curve_point(prefs: Preferences, post, fits: np.ndarray,
                 design=None) -> tuple[float, float]:
    """``(f, g)`` of one posterior sample (paper Eq. (33), from the exact sampler).

    ``fits`` holds ``log P_θ(R_N)`` of every draw, as the sampler read it off its sweeps
    (:func:`~coarsenrank_core.models.plackett_luce.coarsen_pl_gibbs_fit_trace`).
    """
    if design is None:
        design = prefs.pooled.stages  # weighted sums: equal to the unmerged ones
    f = float(np.mean(fits))
    g = design.log_likelihood(post.mean) - f
    return f, g


def dic_point(prefs: Preferences, alpha: float, prior=(1.0, 2.0), burn_in: int = 100,
              n_draws: int = 50, thin: int = 1, random_state=None,
              warm_start=None, should_stop=None, design=None) -> tuple[float, float]:
    """Return ``(f, g)`` at one α from an exact Gibbs run (paper Eq. (33))."""
    post, fits = coarsen_pl_gibbs_fit_trace(
        prefs, alpha=alpha, prior=prior, burn_in=burn_in, n_draws=n_draws, thin=thin,
        random_state=random_state, warm_start=warm_start, should_stop=should_stop,
        design=design)
    return _curve_point(prefs, post, fits, design)


def _chain_segment(prefs: Preferences, alphas, seeds, prior, burn_in: int, chain_burn_in: int,
                   n_draws: int, thin: int, should_stop=None, progress=None,
                   done: int = 0, total: int = 0, design=None) -> list[tuple[float, float]]:
    """One chain through ``alphas`` (largest first): EM start, then each α from the last."""
    # progress counts the α done by earlier parts (``done``) out of ``total``
    out = []
    state: Any = True  # the first α starts from EM, then from the last PosteriorResult
    shared = _DONE  # in a worker: the count of α every worker has finished
    credited = [0.0]  # the share of the current α already added to ``shared``

    def report_share(share: float, i: int) -> None:
        if progress is not None:
            progress(done + i + share, total)
        if shared is not None and shared.get_obj()._type_ == "d":
            with shared.get_lock():
                shared.value += share - credited[0]
            credited[0] = share

    for i, (alpha, seed) in enumerate(zip(alphas, seeds)):
        sweeps = (burn_in if i == 0 else chain_burn_in) + n_draws * thin
        ticker = _SweepTicker(should_stop, sweeps, functools.partial(report_share, i=i))
        post, fits = coarsen_pl_gibbs_fit_trace(
            prefs, alpha=float(alpha), prior=prior,
            burn_in=burn_in if i == 0 else chain_burn_in, n_draws=n_draws, thin=thin,
            random_state=seed, warm_start=state, should_stop=ticker, design=design)
        out.append(_curve_point(prefs, post, fits, design))
        state = post
        if progress is not None:
            progress(done + i + 1, total)
        if shared is not None:
            with shared.get_lock():
                shared.value += 1 - credited[0] if credited[0] else 1
        credited[0] = 0.0
    return out


class _SweepTicker:
    """A sampler's ``should_stop`` that also reports how far through its α the chain is.

    The sampler asks every :data:`~coarsenrank_core.models.plackett_luce.STOP_EVERY` sweeps
    (EM's warm start every as many iterations), so the calls count the work; the share is
    reported at most every :attr:`EVERY` seconds (an α of small data never reports one, so
    only whole α are counted there) and stays below 1 until the α is done.
    """

    EVERY = 1.0  # seconds between two reports of a share

    def __init__(self, should_stop, sweeps: int, report: Callable[[float], None]):
        self.should_stop, self.report = should_stop, report
        self.step = STOP_EVERY / max(int(sweeps), 1)
        self.share = 0.0
        self.last = time.monotonic()

    def __call__(self) -> bool:
        self.share = min(self.share + self.step, 0.99)
        now = time.monotonic()
        if now - self.last >= self.EVERY:
            self.last = now
            self.report(self.share)
        return bool(self.should_stop is not None and self.should_stop())


_DONE: Any = None  # in a worker of a parallel chained sweep: α finished by all its workers


def _plain_signals(done=None) -> None:
    """In a worker: SIGTERM ends the process, as :func:`_as_completed` expects.

    A worker forked from a server inherits its handlers; Streamlit's SIGTERM handler only
    asks the (absent) server to stop, so a stopped sweep's workers would run on. ``done``
    (a shared counter) is where the worker counts each α it finishes, so that the parent
    can report progress before a whole part of the grid is done.
    """
    global _DONE
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _DONE = done


def _as_completed(pool: ProcessPoolExecutor, futures, should_stop, poll: float = 0.25,
                  on_poll=None):
    """Yield the futures as they finish, checking ``should_stop`` every ``poll`` seconds
    (and calling ``on_poll()``, when given, as often).

    On a stop request the queued work is cancelled, the worker processes are terminated
    (a sampler inside a worker cannot see the callback) and Cancelled is raised.
    """
    waiting = set(futures)
    while waiting:
        done, waiting = wait(waiting, timeout=poll, return_when=FIRST_COMPLETED)
        yield from done
        if on_poll is not None:
            on_poll()
        if waiting and should_stop is not None and should_stop():
            processes = list(getattr(pool, "_processes", {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            raise Cancelled(f"The DIC sweep was stopped with {len(waiting)} of "
                            f"{len(futures)} parts unfinished.")


def dic_sweep(prefs: Preferences, alphas: Sequence[float] | np.ndarray | None = None,
              prior=PRIOR, burn_in: int = DIC_BURN_IN,
              n_draws: int = DIC_N_DRAWS, thin: int = 1, random_state=None,
              progress: Callable[[int, int], None] | None = None, n_jobs: int = 1,
              warm_start=DIC_WARM_START, common_random_numbers: bool = True,
              chain_burn_in: int | None = None, should_stop=None,
              design=None) -> DICResult:
    """Run the exact Gibbs sampler at every α of a grid and return the DIC curve.

    For each α: ``f(α)`` is the posterior mean of the untempered log-likelihood,
    ``g(α) = log P_θ̄(R_N) − f(α)`` and ``DIC = g − f`` (paper Eq. (33)). The cost is one
    sampler run per α. By default every α runs from the same seed (common random numbers),
    so the differences between neighbouring points are not blurred by independent
    Monte-Carlo noise; the curve never depends on ``n_jobs`` or on the order in which
    points finish.

    Parameters
    ----------
    prefs : Preferences
    alphas : sequence of float, optional
        The grid; default :func:`auto_alpha_grid` of the total weight.
    prior : (float, float)
        Gamma(a, rate b) prior used at every α.
    burn_in, n_draws, thin : int
        Sampler settings; the defaults are :data:`~coarsenrank_core.defaults.DIC_SETTINGS`,
        those of :func:`~coarsenrank_core.alpha.choose_alpha` (the paper used 50 draws).
    random_state : None, int or numpy.random.Generator
        Master seed.
    progress : callable, optional
        Called as ``progress(done, total)`` after each α; on a long α (chained sweeps,
        the default) also in between, at most once a second, with a fractional ``done``.
    n_jobs : int
        Worker processes; ``-1`` uses every core. ``1`` runs in this process.
    warm_start : None, True or "chain"
        Default ``"chain"`` (:data:`DIC_DRAWS`, the sweep of
        :func:`~coarsenrank_core.alpha.choose_alpha`, the pages and the CLI's ``dic``).
        ``None``/``True``: every α starts afresh (prior mean or 10 EM steps, see
        :func:`coarsen_pl_gibbs`) and runs ``burn_in`` sweeps. ``"chain"`` (the default,
        the sweep :func:`~coarsenrank_core.alpha.choose_alpha` runs): one chain walks
        the grid from the largest α down; the largest α starts from 10 EM steps and runs
        ``burn_in`` sweeps, every other α starts from the previous α's last draw and runs
        ``chain_burn_in`` sweeps; the grid is walked as :data:`CHAIN_SEGMENTS` contiguous
        chains (each starting from EM), run in parallel when ``n_jobs > 1``.
    common_random_numbers : bool
        One seed for every α (default); ``False`` gives each α its own child seed.
    chain_burn_in : int, optional
        Burn-in of the continued α with ``warm_start="chain"``; default
        ``min(burn_in, CHAIN_BURN_IN)``.
    should_stop : callable, optional
        Checked every few sweeps of every α (in this process; with ``n_jobs > 1`` every
        quarter second while the workers run, which are then terminated); when it returns
        true the sweep raises :class:`coarsenrank_core.errors.Cancelled`.
    design : PartitionedDesign, optional
        Run every sampler on the data cut into partitions: in this process
        (:class:`~coarsenrank_core.models.partitioned.PartitionedDesign`) or on a Dask
        cluster (:class:`~coarsenrank_core.dask_fit.DaskStages`, which equals the former
        with as many parts). Each partition draws from its own per-sweep seed, so the curve
        is another Monte-Carlo estimate of the same curve. The α are then run one after
        another in this process (``n_jobs`` is ignored: the partitions are the parallel
        work).

    Returns
    -------
    DICResult
    """
    start = time.perf_counter()
    params = dict(alphas=None if alphas is None else tuple(alphas), prior=tuple(prior),
                  burn_in=burn_in, n_draws=n_draws, thin=thin, random_state=random_state,
                  n_jobs=n_jobs, warm_start=warm_start,
                  common_random_numbers=common_random_numbers, chain_burn_in=chain_burn_in)
    grid = auto_alpha_grid(prefs.total_weight) if alphas is None else np.asarray(alphas, float)
    grid = np.unique(grid)
    if grid.size < 1 or not np.all(grid > 0):
        raise ValueError("alphas must be positive numbers")
    # identical preferences merged (exact, see coarsen_pl_gibbs): what every sampler run
    # walks anyway, and all that a worker process is sent
    work = prefs.pooled
    if common_random_numbers:
        master = np.random.default_rng(random_state).integers(0, 2**63 - 1)
        seeds: list[Any] = [int(master)] * grid.size
    else:
        seeds = list(np.random.default_rng(random_state).spawn(grid.size))
    settings: dict[str, Any] = dict(prior=prior, burn_in=burn_in, n_draws=n_draws, thin=thin,
                    warm_start=warm_start)
    f = np.empty(grid.size)
    g = np.empty(grid.size)
    workers = (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)
    if isinstance(warm_start, str):
        if warm_start != "chain":
            raise ValueError(f"warm_start must be None, True or 'chain', not {warm_start!r}")
        later = min(burn_in, CHAIN_BURN_IN) if chain_burn_in is None else int(chain_burn_in)
        if later < 0:
            raise ValueError("chain_burn_in must be >= 0")
        down = np.arange(grid.size)[::-1]
        # a fixed split of the grid, whatever n_jobs is, so the curve never depends on it
        parts = [p for p in np.array_split(down, min(CHAIN_SEGMENTS, grid.size)) if p.size]
        chain = dict(prior=prior, burn_in=burn_in, chain_burn_in=later, n_draws=n_draws,
                     thin=thin)
        if len(parts) > 1 and workers > 1 and design is None:
            context = multiprocessing.get_context()
            counted = context.Value("d", 0.0)  # α finished by the workers, for progress
            reported = [0.0]

            def report(finished: int = 0) -> None:
                value = min(max(counted.value, finished), grid.size)
                if progress is not None and value > reported[0]:
                    reported[0] = value
                    progress(value, grid.size)

            with ProcessPoolExecutor(max_workers=len(parts), mp_context=context,
                                     initializer=_plain_signals, initargs=(counted,)) as pool:
                segments: dict[Any, np.ndarray] = {
                    pool.submit(_chain_segment, work, grid[p], [seeds[i] for i in p],
                                **chain): p for p in parts}
                finished = 0
                for future in _as_completed(pool, segments, should_stop, on_poll=report):
                    part = segments[future]
                    for i, (fi, gi) in zip(part, future.result()):
                        f[i], g[i] = fi, gi
                    finished += part.size
                    report(finished)
        else:
            finished = 0
            for part in parts:
                points = _chain_segment(work, grid[part], [seeds[i] for i in part],
                                        should_stop=should_stop, progress=progress,
                                        done=finished, total=grid.size, design=design,
                                        **chain)
                for i, (fi, gi) in zip(part, points):
                    f[i], g[i] = fi, gi
                finished += part.size
    elif workers > 1 and grid.size > 1 and design is None:
        with ProcessPoolExecutor(max_workers=min(workers, grid.size),
                                 initializer=_plain_signals) as pool:
            futures: dict[Any, int] = {
                pool.submit(dic_point, work, float(alpha), random_state=seed, **settings): i
                for i, (alpha, seed) in enumerate(zip(grid, seeds))}
            for done, future in enumerate(_as_completed(pool, futures, should_stop), start=1):
                f[futures[future]], g[futures[future]] = future.result()
                if progress is not None:
                    progress(done, grid.size)
    else:
        for i, (alpha, seed) in enumerate(zip(grid, seeds)):
            check_stop(should_stop, f"The DIC sweep was stopped after {i} of {grid.size} α.")
            f[i], g[i] = dic_point(work, float(alpha), random_state=seed,
                                   should_stop=should_stop, design=design, **settings)
            if progress is not None:
                progress(i + 1, grid.size)
    dic = g - f
    return DICResult(alphas=grid, taus=np.array([tempering(a, prefs.total_weight) for a in grid]),
                     f=f, g=g, dic=dic, best_alpha=float(grid[np.argmin(dic)]),
                     knee_alpha=knee_alpha(grid, dic), seconds=time.perf_counter() - start,
                     params=FrozenDict(params))
