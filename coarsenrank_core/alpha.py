"""Choosing α from the data: one function, one default rule, and the record of the choice."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from .defaults import ALPHA_RULE, EM_SETTINGS, PRIOR
from .dic import DIC_DRAWS, DICResult, auto_alpha_grid, dic_sweep
from .frozen import FrozenDict, readonly_array, restore_readonly
from .models.plackett_luce import coarsen_pl
from .preferences import Preferences
from .results import tempering

__all__ = ["AlphaChoice", "CVEvidence", "ChoiceCache", "CHOICES", "choose_alpha",
           "DEFAULT_RULE", "RULES", "CONSENSUS_METHOD", "consensus_fit", "parse_rule",
           "MIN_ALPHA", "MAX_ALPHA", "alpha_in_range"]

#: The rule used whenever nobody says otherwise: the CLI, the registry, every page and the
#: reproduction report. The paper's advice (§4.5) is to take α where the DIC curve levels
#: off; the minimum of DIC sits at the largest α tried on every dataset measured, so it
#: would simply switch the neighbourhood off.
DEFAULT_RULE = ALPHA_RULE
RULES = ("knee", "dic-min", "cv")

#: The fit behind "the consensus" everywhere (CLI ``rank``, ``compare``, every page): the
#: registry's CoarsenPL, i.e. closed-form EM with prior Gamma(1, 2) and the paper's §6.1
#: calibration θ ← (M/2)·θ/Σθ after every step, at the chosen α.
CONSENSUS_METHOD = "coarsen-pl"


#: The α a user may give (command line, link, session file): from 10⁻⁶ to 10¹², or ∞. Below
#: 10⁻⁶ the tempering τ = α/(α+N) underflows towards 0 (a subnormal α gives NaN scores);
#: above 10¹² τ is 1 to twelve digits on any collection the readers accept, the same as ∞.
MIN_ALPHA, MAX_ALPHA = 1e-6, 1e12


def alpha_in_range(value: float) -> bool:
    """Whether ``value`` is an α a user may give: ∞, or a number in [MIN_ALPHA, MAX_ALPHA]."""
    return value == math.inf or MIN_ALPHA <= value <= MAX_ALPHA


@dataclass(frozen=True)
class CVEvidence:
    """Fold scores of the ``"cv"`` rule.

    Attributes
    ----------
    alphas : numpy.ndarray
        The α tried, increasing, the last one ``inf`` (plain PL).
    fold_scores : numpy.ndarray, shape (folds, len(alphas))
        Held-out PL log-likelihood (weighted sum over the fold's preferences).
    split : str
        ``"ranker"`` (whole rankers held out) or ``"list"``.
    """

    alphas: np.ndarray
    fold_scores: np.ndarray
    split: str

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        object.__setattr__(self, "alphas", readonly_array(self.alphas))
        object.__setattr__(self, "fold_scores", readonly_array(self.fold_scores))

    @property
    def mean(self) -> np.ndarray:
        """Held-out log-likelihood summed over folds, per α."""
        return self.fold_scores.sum(axis=0)

    @property
    def folds(self) -> int:
        return int(self.fold_scores.shape[0])


@dataclass(frozen=True)
class AlphaChoice:
    """What :func:`choose_alpha` returns.

    Attributes
    ----------
    alpha : float
        The chosen α (``inf`` means the plain model).
    rule : str
        ``"knee"``, ``"dic-min"``, ``"cv"`` or ``"fixed"`` (a number given by the caller).
    evidence : DICResult, CVEvidence or None
        The DIC curve (``"knee"``, ``"dic-min"``) or the fold scores (``"cv"``).
    seconds : float
        Wall-clock time of the choice.
    n : float
        The N of ``τ = α / (α + N)`` (total weight of the preferences).
    params : Mapping
        The settings of the rule.
    """

    alpha: float
    rule: str
    evidence: DICResult | CVEvidence | None
    seconds: float
    n: float
    params: FrozenDict = field(default_factory=lambda: FrozenDict({}))

    @property
    def tau(self) -> float:
        """``τ = α / (α + N)``."""
        return tempering(self.alpha, self.n)

    @property
    def at_grid_end(self) -> bool:
        """True when the rule picked the largest α it tried (the curve was still falling)."""
        if isinstance(self.evidence, DICResult):
            return self.rule == "dic-min" and self.evidence.still_falling
        if isinstance(self.evidence, CVEvidence):
            return self.alpha == self.evidence.alphas[-1]
        return False

    def describe(self) -> str:
        """One plain sentence: the α, τ and how it was chosen."""
        value = "∞ (the plain model)" if math.isinf(self.alpha) else f"{self.alpha:g}"
        how = {"knee": "where the DIC curve levels off",
               "dic-min": "lowest DIC" + (", still falling at the largest α tried"
                                          if self.at_grid_end else ""),
               "cv": f"best held-out likelihood in {getattr(self.evidence, 'folds', 0)}-fold "
                     "cross-validation",
               "fixed": "set by hand"}[self.rule]
        return f"α = {value} (τ = {self.tau:.3g}; {how})"


def parse_rule(rule) -> str | float:
    """``"knee"``, ``"dic-min"``, ``"cv"``, or a positive number (``"inf"`` allowed)."""
    if isinstance(rule, str):
        lowered = rule.strip().lower()
        if lowered in RULES:
            return lowered
        if lowered in ("auto", "default"):
            return DEFAULT_RULE
        try:
            rule = float(lowered)
        except ValueError:
            raise ValueError(f"rule must be one of {', '.join(RULES)} or a positive number, "
                             f"not {rule!r}") from None
    value = float(rule)
    if not value > 0:
        raise ValueError(f"alpha must be positive (got {value}); use inf for the plain model")
    return value


def consensus_fit(prefs: Preferences, alpha: float, **overrides):
    """The consensus: the registry's :data:`CONSENSUS_METHOD` (CoarsenPL EM) at this α.

    The fit is :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl` with
    :data:`~coarsenrank_core.defaults.EM_SETTINGS` (the registry's entry reads the same
    settings; ``tests/test_alpha.py`` checks the two agree) updated by ``overrides``. It does
    not go through the registry, whose ``alpha="auto"`` calls :func:`choose_alpha`.
    """
    result = coarsen_pl(prefs, alpha=alpha, **{**EM_SETTINGS, **overrides})
    return result if result.method == CONSENSUS_METHOD else replace(result,
                                                                   method=CONSENSUS_METHOD)


class ChoiceCache:
    """Recent choices of α by their inputs: a least-recently-used store of ``size`` entries.

    The key is the data's fingerprint, the rule, an integer seed and the sweep settings, so a
    hit is the choice the same call would compute again. Only calls whose seed is an
    integer are stored (another seed would not repeat its draws).
    """

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()  # one store for every thread (dashboard sessions)

    def get(self, key) -> AlphaChoice | None:
        """The stored choice of ``key`` (now the most recent), or None."""
        with self._lock:
            choice = self._entries.get(key)
            if choice is not None:
                self._entries.move_to_end(key)
            return choice

    def put(self, key, choice: AlphaChoice) -> None:
        """Store ``choice`` under ``key``, forgetting the oldest beyond :attr:`size`."""
        with self._lock:
            self._entries[key] = choice
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


#: The registry's store of choices: its ``alpha="auto"`` asks :func:`choose_alpha` with
#: ``cache=CHOICES`` (opt-in: :func:`choose_alpha` alone caches nothing), so fitting
#: several tempered methods by name on the same data sweeps α once.
CHOICES = ChoiceCache()


def choose_alpha(prefs: Preferences, rule=DEFAULT_RULE, *, random_state=0, alphas=None,
                 prior=PRIOR, burn_in: int = DIC_DRAWS["burn_in"],
                 n_draws: int = DIC_DRAWS["n_draws"], folds: int = 5, n_jobs: int = 1,
                 progress: Callable[[int, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 cache: ChoiceCache | None = None, design=None) -> AlphaChoice:
    """Choose the neighbourhood size α of CoarsenRank from the data.

    Rules
    -----
    ``"knee"`` (the default, :data:`DEFAULT_RULE`)
        The paper's "where DIC levels off" (§4.5, Eq. (33) with the exact sampler of the
        notes): run the DIC sweep with common random numbers across α and read the knee
        of the smoothed curve (:func:`~coarsenrank_core.dic.knee_alpha`).
    ``"dic-min"``
        The α of lowest DIC on the grid. When that is the largest α tried the record says
        so (:attr:`AlphaChoice.at_grid_end`): the curve was still falling.
    ``"cv"``
        K-fold cross-validation of the held-out PL log-likelihood (paper Eq. (19)) of
        the consensus fit (:func:`consensus_fit`), over the automatic grid plus α = ∞.
        Folds hold out whole rankers when the data name them, else whole lists. Each fold
        is fitted at the τ the full data would have at that α. Worths of 0 are floored at
        ``1e-9 · max θ`` before scoring. Ties go to the larger α.
    a number
        Used as it is (``inf`` is the plain model).

    Parameters
    ----------
    prefs : Preferences
    rule : str or float
        See above.
    random_state : int, Generator or None
        Seed of the Gibbs sampler (DIC rules) or of the fold assignment (``"cv"``).
    alphas : sequence of float, optional
        Grid; default :func:`~coarsenrank_core.dic.auto_alpha_grid`.
    prior : (float, float)
        Gamma(a, rate b) prior of the sampler (DIC rules).
    burn_in, n_draws : int
        Sampler settings per α (DIC rules).
    folds : int
        K of the ``"cv"`` rule (fewer when there are fewer rankers or lists).
    n_jobs : int
        Worker processes of the DIC sweep.
    progress : callable, optional
        ``progress(done, total)``.
    should_stop : callable, optional
        Checked every few sweeps or fits; when it returns true the choice raises
        :class:`coarsenrank_core.errors.Cancelled` (and nothing is cached).
    cache : ChoiceCache or None
        Where a choice with an integer seed is looked up and stored (opt-in, e.g. the
        registry's :data:`CHOICES`); None (the default) computes it afresh and stores
        nothing.
    design : PartitionedDesign, optional
        The DIC sweep's samplers run on the data cut into partitions, e.g. on Dask
        (see :func:`~coarsenrank_core.dic.dic_sweep`); such a choice is not cached.

    Returns
    -------
    AlphaChoice

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]] * 5)
    >>> choose_alpha(prefs, 50).alpha
    50.0
    """
    start = time.perf_counter()
    parsed = parse_rule(rule)
    n = prefs.total_weight
    if not isinstance(parsed, str):
        return AlphaChoice(alpha=parsed, rule="fixed", evidence=None,
                           seconds=time.perf_counter() - start, n=n)
    grid = None if alphas is None else tuple(float(a) for a in alphas)
    seed = random_state if random_state is None or isinstance(random_state, int) else None
    key = (prefs.fingerprint, parsed, seed, grid, tuple(prior), burn_in, n_draws, folds)
    if design is not None:
        cache = None  # another random stream than the cached local choice
    cached = None if cache is None or seed is None else cache.get(key)
    if cached is not None:
        return cached
    params = dict(random_state=random_state, alphas=grid, prior=tuple(prior))
    if parsed in ("knee", "dic-min"):
        sweep = dic_sweep(prefs, alphas=grid, prior=prior, burn_in=burn_in, n_draws=n_draws,
                          random_state=random_state, n_jobs=n_jobs, progress=progress,
                          warm_start=DIC_DRAWS["warm_start"], should_stop=should_stop,
                          design=design)
        alpha = sweep.knee_alpha if parsed == "knee" else sweep.best_alpha
        evidence: DICResult | CVEvidence = sweep
        params.update(burn_in=burn_in, n_draws=n_draws)
    else:
        cv = _cross_validate(prefs, grid, folds, random_state, progress, should_stop)
        best = cv.mean
        top = np.max(best)
        tied = np.flatnonzero(best >= top - 1e-9 * abs(top))
        alpha = float(cv.alphas[tied[-1]])
        params.update(folds=cv.folds)
        evidence = cv
    choice = AlphaChoice(alpha=float(alpha), rule=parsed, evidence=evidence,
                         seconds=time.perf_counter() - start, n=n, params=FrozenDict(params))
    if cache is not None and seed is not None:
        cache.put(key, choice)
    return choice


def _cross_validate(prefs: Preferences, grid, folds: int, random_state,
                    progress, should_stop=None) -> CVEvidence:
    """Held-out PL log-likelihood of the consensus fit per fold and α."""
    if len(prefs) < 2:
        raise ValueError("cross-validation needs at least 2 preferences")
    split = "ranker" if prefs.has_rankers and prefs.n_rankers >= 2 else "list"
    units = prefs.ranker_index if split == "ranker" else np.arange(len(prefs))
    labels = np.unique(units)
    k = int(min(max(folds, 2), labels.size))
    rng = np.random.default_rng(random_state)
    fold_of_label = np.empty(labels.size, dtype=np.intp)
    fold_of_label[rng.permutation(labels.size)] = np.arange(labels.size) % k
    fold = fold_of_label[np.searchsorted(labels, units)]
    alphas = np.asarray(grid if grid is not None else auto_alpha_grid(prefs.total_weight), float)
    alphas = np.unique(np.append(alphas[np.isfinite(alphas)], np.inf))
    n = prefs.total_weight
    scores = np.empty((k, alphas.size))
    total, done = k * alphas.size, 0
    for f in range(k):
        train, test = prefs.subset(fold != f), prefs.subset(fold == f)
        for j, alpha in enumerate(alphas):
            theta = np.asarray(consensus_fit(train, float(alpha), n_for_tau=n,
                                             should_stop=should_stop).scores)
            theta = np.maximum(theta, 1e-9 * theta.max())
            scores[f, j] = test.stages.log_likelihood(theta)
            done += 1
            if progress is not None:
                progress(done, total)
    return CVEvidence(alphas=alphas, fold_scores=scores, split=split)
