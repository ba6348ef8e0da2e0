"""Studies of the methods: robustness to noise, time against data size, teaching scenarios."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import check_stop
from .frozen import FrozenDict, readonly_array, restore_readonly
from .metrics import pairwise_accuracy
from .noise import NOISE_TYPES, magnify
from .preferences import Preferences
from .registry import METHODS, attempt, check_methods, seconds_summary
from .simulate import pl_orderings, random_subsets

__all__ = ["RobustnessResult", "ScaleResult", "robustness_curve", "scale_test",
           "DEFAULT_NOISE_LEVELS", "DEFAULT_FACTORS", "teaching_arrays", "exposure_data",
           "exposure_study", "EXPOSURES", "CONTAMINATIONS", "STUDY_METHODS"]

DEFAULT_NOISE_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
DEFAULT_FACTORS = (1, 10, 50, 100)


def _check_methods(methods: Sequence[str]) -> list[str]:
    methods = check_methods(methods)
    if not methods:
        raise ValueError(f"choose one or more methods from {list(METHODS)}")
    return methods


def _own(method_id: str, params: Mapping) -> dict:
    """The shared parameters of an experiment that this method takes."""
    accepted = set(METHODS[method_id].parameters)
    return {k: v for k, v in params.items() if k in accepted}


def _first_errors(errors: dict) -> FrozenDict:
    return FrozenDict(errors)


@dataclass(frozen=True)
class RobustnessResult:
    """Accuracy against noise level, per method, over several seeds.

    ``accuracy[i, j, s]`` is method ``i`` at ``levels[j]`` with seed ``s``; ``mean`` and
    ``std`` summarise over seeds. ``noise`` is the :data:`~coarsenrank_core.noise.NOISE_TYPES`
    id used. A fit that raised leaves ``nan`` in its cell and its first error message in
    ``errors`` (method id -> ``"<ExceptionType>: <message>"``, as
    :class:`~coarsenrank_core.registry.FitAttempt` and the comparison's ``error`` column
    word it).
    """

    methods: tuple[str, ...]
    levels: np.ndarray
    accuracy: np.ndarray
    noise: str
    seconds: float
    errors: FrozenDict = field(default_factory=lambda: FrozenDict({}))

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        object.__setattr__(self, "levels", readonly_array(self.levels))
        object.__setattr__(self, "accuracy", readonly_array(self.accuracy))
        object.__setattr__(self, "errors", FrozenDict(dict(self.errors)))

    @property
    def mean(self) -> np.ndarray:
        """Mean accuracy over seeds, shape (methods, levels)."""
        return np.nanmean(self.accuracy, axis=2)

    @property
    def std(self) -> np.ndarray:
        """Standard deviation over seeds, shape (methods, levels)."""
        return np.nanstd(self.accuracy, axis=2)


def robustness_curve(prefs: Preferences, methods: Sequence[str], truth,
                     noise: str = "replace_random", levels=DEFAULT_NOISE_LEVELS,
                     seeds: int = 3, random_state=0,
                     progress: Callable[[int, int], None] | None = None,
                     overrides: Mapping | None = None,
                     should_stop: Callable[[], bool] | None = None) -> RobustnessResult:
    """Pairwise accuracy of each method as more of the data is corrupted.

    For every level and seed the noise injector ``NOISE_TYPES[noise]`` corrupts ``prefs``
    (level 0 leaves it clean), every method is fitted, and its pairwise accuracy against
    ``truth`` is recorded. At level 0 a method that takes no ``random_state`` is fitted
    once: the clean data and its fit are the same in every repetition. A method that fails
    at some point records ``nan`` there and its first error in
    :attr:`RobustnessResult.errors`.

    Parameters
    ----------
    prefs : Preferences
    methods : sequence of str
        Registry ids.
    truth : array, shape (M,)
        Ground-truth scores.
    noise : str
        Noise type; default the paper's SUSHI protocol (random replacement).
    levels : sequence of float
        Noise levels (fractions for most types).
    seeds : int
        Repetitions per level, each with its own seed.
    random_state : int, Generator or None
        Master seed.
    progress : callable, optional
        ``progress(done, total)`` after every fit.
    overrides : Mapping, optional
        Parameters for every method that accepts them (e.g. ``alpha``).
    should_stop : callable, optional
        Handed to every fit that takes it and checked between fits; when it returns true
        the run raises :class:`coarsenrank_core.errors.Cancelled`.
    """
    start = time.perf_counter()
    methods = _check_methods(methods)
    if noise not in NOISE_TYPES:
        raise ValueError(f"unknown noise {noise!r}; choose from {list(NOISE_TYPES)}")
    truth = np.asarray(truth, dtype=float)
    levels = np.asarray(levels, dtype=float)
    seed_values = np.random.default_rng(random_state).integers(0, 2**31 - 1, size=seeds)
    accuracy = np.full((len(methods), levels.size, seeds), np.nan)
    total, done = len(methods) * levels.size * seeds, 0
    errors: dict[str, str] = {}
    # level 0 is the same clean data in every repetition, and a method without a seed
    # fits it the same way each time: its one accuracy there serves every repetition
    clean: dict[str, float] = {}
    for j, level in enumerate(levels):
        for s, seed in enumerate(seed_values):
            noisy = prefs if level == 0 else NOISE_TYPES[noise].function(
                prefs, float(level), random_state=int(seed)).preferences
            for i, method_id in enumerate(methods):
                check_stop(should_stop, f"The robustness curve was stopped after {done} of "
                                        f"{total} fits.")
                if level == 0 and method_id in clean:
                    accuracy[i, j, s] = clean[method_id]
                else:
                    params = dict(overrides or {}, random_state=int(seed),
                                  should_stop=should_stop)
                    fit = attempt(method_id, noisy, **_own(method_id, params))
                    if fit.result is not None:
                        accuracy[i, j, s] = pairwise_accuracy(fit.result.scores, truth)
                    elif fit.error is not None:
                        errors.setdefault(method_id, fit.error)
                    if level == 0 and not METHODS[method_id].stochastic:
                        clean[method_id] = accuracy[i, j, s]
                done += 1
                if progress is not None:
                    progress(done, total)
    return RobustnessResult(methods=tuple(methods), levels=levels, accuracy=accuracy,
                            noise=noise, seconds=time.perf_counter() - start,
                            errors=_first_errors(errors))


@dataclass(frozen=True)
class ScaleResult:
    """Seconds per fit against magnification (the paper's Table "Ablation_size").

    ``seconds[i, j]`` and ``std[i, j]`` are method ``i`` on the data duplicated
    ``factors[j]`` times, which holds ``n_preferences[j]`` preferences (mean and sample
    standard deviation, :func:`~coarsenrank_core.registry.seconds_summary`). A method that
    raised leaves ``nan`` and its first error in ``errors``, worded as in
    :class:`RobustnessResult`.
    """

    methods: tuple[str, ...]
    factors: np.ndarray
    n_preferences: np.ndarray
    seconds: np.ndarray
    std: np.ndarray
    errors: FrozenDict = field(default_factory=lambda: FrozenDict({}))

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        for name in ("factors", "n_preferences", "seconds", "std"):
            value = getattr(self, name)
            object.__setattr__(self, name, readonly_array(value, np.asarray(value).dtype))
        object.__setattr__(self, "errors", FrozenDict(dict(self.errors)))


def scale_test(prefs: Preferences, methods: Sequence[str], factors=DEFAULT_FACTORS,
               repeats: int = 1, iterations: int | None = 15,
               progress: Callable[[int, int], None] | None = None,
               overrides: Mapping | None = None,
               should_stop: Callable[[], bool] | None = None) -> ScaleResult:
    """Time each method on the data duplicated ``factor`` times.

    Parameters
    ----------
    prefs : Preferences
    methods : sequence of str
        Registry ids.
    factors : sequence of int
        Magnifications (the paper: 1, 10, 50, 100).
    repeats : int
        Fits per cell; the mean and standard deviation are reported.
    iterations : int or None
        Fix every method's inner iterations to this number, as the paper does (15), via
        :func:`fixed_iterations`; ``None`` keeps the methods' own stopping rules.
    progress : callable, optional
        ``progress(done, total)`` after every fit.
    overrides : Mapping, optional
        Parameters for every method that accepts them.
    should_stop : callable, optional
        As for :func:`robustness_curve`.
    """
    methods = _check_methods(methods)
    factors = np.asarray(factors, dtype=int)
    seconds = np.full((len(methods), factors.size), np.nan)
    spread = np.full_like(seconds, np.nan)
    sizes = np.empty(factors.size, dtype=int)
    total, done = len(methods) * factors.size * repeats, 0
    errors: dict[str, str] = {}
    for j, factor in enumerate(factors):
        data = prefs if factor == 1 else magnify(prefs, int(factor)).preferences
        sizes[j] = len(data)
        for i, method_id in enumerate(methods):
            params = _own(method_id, dict(overrides or {}, should_stop=should_stop))
            if iterations is not None:
                params.update(fixed_iterations(method_id, iterations))
            times: list[float] = []
            for _ in range(repeats):
                check_stop(should_stop, f"The scale test was stopped after {done} of "
                                        f"{total} fits.")
                fit = attempt(method_id, data, **params)
                if fit.error is not None:
                    errors.setdefault(method_id, fit.error)
                    times = []
                    break
                times.append(fit.seconds)
                done += 1
                if progress is not None:
                    progress(done, total)
            if times:
                seconds[i, j], spread[i, j] = seconds_summary(times)
    return ScaleResult(methods=tuple(methods), factors=factors, n_preferences=sizes,
                       seconds=seconds, std=spread, errors=_first_errors(errors))


def fixed_iterations(method_id: str, n: int) -> dict:
    """Parameters that make a method run exactly ``n`` inner iterations (no early stop)."""
    method = METHODS[method_id]
    accepted = set(method.parameters)
    if "passes" in accepted:
        return {"passes": n}
    if "max_outer" in accepted:
        return {"max_outer": 1, "max_iter": n, "tol": 0.0}
    if "n_draws" in accepted:
        return {"burn_in": 0, "n_draws": n}
    if "max_iter" in accepted:
        return {"max_iter": n, "tol": 0.0}
    return {}


def teaching_arrays(kind: str, random_state=0, n_items: int = 20, n_rankers: int = 30,
                    lists_per_ranker: int = 8, length: int = 6, share: float = 0.5):
    """Preferences and true worths of a teaching scenario.

    ``n_rankers`` raters each order ``lists_per_ranker`` random subsets of ``length`` items
    by Plackett–Luce with log-worths falling evenly from 1.5 to −1.5 (item 0 best). A share
    ``share`` of the raters do otherwise: ``"careless"``, every list a uniformly random
    order; ``"campaign"``, every list a Plackett–Luce draw from one shared wrong order (the
    bottom half of the items promoted above the top half).
    """
    if kind not in ("careless", "campaign"):
        raise ValueError(f"unknown scenario {kind!r}; choose 'careless' or 'campaign'")
    rng = np.random.default_rng(random_state)
    n = n_rankers * lists_per_ranker
    log_worth = np.linspace(1.5, -1.5, n_items)
    subsets = random_subsets(n_items, np.full(n, length), random_state=rng).reshape(n, length)
    honest = pl_orderings(subsets, log_worth, random_state=rng)
    rankers = np.repeat(np.arange(n_rankers), lists_per_ranker)
    bad = (rng.permutation(n_rankers) < round(share * n_rankers))[rankers]
    if kind == "careless":
        other = rng.permuted(subsets, axis=1)
    else:  # one shared wrong order: the bottom half of the items promoted above the top
        other = pl_orderings(subsets, np.roll(log_worth, n_items // 2), random_state=rng)
    orders = np.where(bad[:, None], other, honest)
    prefs = Preferences.from_arrays(
        orders.ravel(), np.full(n, length), n_items=n_items,
        item_names=[f"Item {i + 1:02d}" for i in range(n_items)], rankers=rankers,
        ranker_names=[f"rater {r + 1}" for r in range(n_rankers)])
    return prefs, np.exp(log_worth)


EXPOSURES = {"uniform": 0.0, "correlated": 1.0, "anti-correlated": -1.0}
CONTAMINATIONS = ("replace_random", "reverse_preferences", "mallows_swaps", "spammers",
                  "campaign")
STUDY_METHODS = ("coarsen-pl", "pl-em", "pl-mix", "pl-mix-ranker", "crowdbt", "peergrader",
                 "borda")


def exposure_data(exposure: float, contamination: str, level: float, random_state=0,
                  n_items: int = 30, n_rankers: int = 60, lists_per_ranker: int = 5,
                  length: int = 6):
    """One simulated dataset of the exposure study, and its true worths.

    Raters order random subsets of ``length`` items by Plackett–Luce with log-worths falling
    evenly from 1.5 to −1.5. An item is shown with probability proportional to
    ``exp(exposure · log-worth)`` (Gumbel top-k sampling): 0 is uniform exposure, 1 shows
    better items more often (as on the paper's datasets), −1 shows worse items more often.
    Then ``contamination`` at ``level`` is applied: a noise-menu injector
    (:data:`~coarsenrank_core.noise.NOISE_TYPES`) or ``"campaign"``, a share ``level`` of the
    raters all drawing from one wrong order (the bottom half of the items promoted).
    """
    rng = np.random.default_rng(random_state)
    n = n_rankers * lists_per_ranker
    log_worth = np.linspace(1.5, -1.5, n_items)
    keys = exposure * log_worth[None, :] + rng.gumbel(size=(n, n_items))
    subsets = np.argsort(-keys, axis=1)[:, :length]
    subsets = rng.permuted(subsets, axis=1)
    honest = pl_orderings(subsets, log_worth, random_state=rng)
    rankers = np.repeat(np.arange(n_rankers), lists_per_ranker)
    if contamination == "campaign":
        bad = (rng.permutation(n_rankers) < round(level * n_rankers))[rankers]
        fake = pl_orderings(subsets, np.roll(log_worth, n_items // 2), random_state=rng)
        honest = np.where(bad[:, None], fake, honest)
    prefs = Preferences.from_arrays(honest.ravel(), np.full(n, length), n_items=n_items,
                                    rankers=rankers)
    if contamination != "campaign" and level > 0:
        prefs = NOISE_TYPES[contamination].function(prefs, level,
                                                    random_state=rng).preferences
    return prefs, np.exp(log_worth)


def exposure_study(levels=(0.1, 0.2, 0.3, 0.4), seeds: int = 5,
                   exposures: Mapping | None = None, contaminations=CONTAMINATIONS,
                   methods=STUDY_METHODS,
                   progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """When does CoarsenRank help? Accuracy of each method over simulated data.

    Every combination of item exposure (:data:`EXPOSURES`), contamination and level is
    simulated with ``seeds`` seeds (:func:`exposure_data`); every method is fitted with the
    registry's defaults, so CoarsenPL uses α of the default rule of
    :func:`~coarsenrank_core.alpha.choose_alpha`. Returns one row per cell and method with
    the mean and standard deviation of the pairwise accuracy over seeds.
    """
    exposures = dict(EXPOSURES if exposures is None else exposures)
    rows = []
    total = len(exposures) * len(contaminations) * len(levels) * seeds
    done = 0
    for exposure_name, exposure in exposures.items():
        for contamination in contaminations:
            for level in levels:
                scores: dict[str, list[float]] = {m: [] for m in methods}
                for seed in range(seeds):
                    prefs, truth = exposure_data(exposure, contamination, level, seed)
                    for method in methods:
                        fit = METHODS[method].run(prefs)
                        scores[method].append(pairwise_accuracy(fit.scores, truth))
                    done += 1
                    if progress is not None:
                        progress(done, total)
                for method in methods:
                    rows.append(dict(exposure=exposure_name, contamination=contamination,
                                     level=level, method=method,
                                     mean=round(float(np.mean(scores[method])), 4),
                                     sd=round(float(np.std(scores[method])), 4),
                                     seeds=seeds))
    return rows
