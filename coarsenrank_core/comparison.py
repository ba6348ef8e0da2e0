"""Run several registered methods on one collection and tabulate accuracy, agreement and time."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import kendalltau

from .alpha import choose_alpha
from .errors import check_stop
from .export import table_to_csv
from .frozen import FrozenDict, readonly_array
from .metrics import kendall_tau_b, pairwise_accuracy
from .preferences import Preferences
from .registry import (
    DEFAULT_METHOD,
    METHODS,
    PAPER_METHODS,
    SHARED_PARAMETERS,
    attempt,
    check_methods,
    seconds_summary,
)

__all__ = ["ComparisonRow", "ComparisonResult", "compare", "order_agreement",
           "DEFAULT_COMPARISON", "COMPARE_DRAWS"]

#: The methods compared when none are named: the paper's seven and the two mixture models.
DEFAULT_COMPARISON: tuple[str, ...] = ((DEFAULT_METHOD,) + tuple(PAPER_METHODS)
                                       + ("pl-mix", "pl-mix-ranker"))

#: Sampler settings of CoarsenPL (Gibbs) inside a comparison unless the caller gives
#: others: a comparison needs its posterior mean's order, not its tails, so it runs fewer
#: draws than the Consensus page (the chain starts from 10 EM steps).
COMPARE_DRAWS = dict(burn_in=50, n_draws=100)


@dataclass(frozen=True)
class ComparisonRow:
    """One method's line of a comparison (``nan``/``None`` where it does not apply)."""

    method: str
    name: str
    accuracy: float
    kendall_tau: float
    seconds_mean: float
    seconds_std: float
    iterations: int | None
    converged: bool | None
    error: str | None = None
    #: Seconds of each run, in order (``repeats`` of them, fewer when a run failed).
    seconds: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "seconds", tuple(float(s) for s in self.seconds))

    @property
    def ok(self) -> bool:
        """Whether the method ran without error."""
        return self.error is None


CSV_COLUMNS = ("method", "name", "pairwise_accuracy", "kendall_tau_b", "seconds_mean",
               "seconds_std", "iterations", "converged", "error")


@dataclass(frozen=True)
class ComparisonResult:
    """What :func:`compare` returns.

    Attributes
    ----------
    rows : tuple of ComparisonRow
        One per method, in the order asked for.
    agreement : numpy.ndarray
        ``agreement[i, j]``: fraction of item pairs that methods ``i`` and ``j`` order the
        same way (1 on the diagonal, ``nan`` next to a method that failed).
    results : Mapping
        Method id -> the :class:`RankingResult` of its last repeat.
    has_truth : bool
        Whether accuracy columns were computed against a ground truth.
    alpha_choice : AlphaChoice or None
        The α every tempered method used and how it was chosen (``None`` when no method
        takes α).
    """

    rows: tuple[ComparisonRow, ...]
    agreement: np.ndarray
    results: Mapping = field(default_factory=dict)
    has_truth: bool = False
    alpha_choice: object = None

    def __post_init__(self):
        object.__setattr__(self, "rows", tuple(self.rows))
        object.__setattr__(self, "agreement", readonly_array(self.agreement))
        object.__setattr__(self, "results", FrozenDict(dict(self.results)))

    @property
    def methods(self) -> tuple[str, ...]:
        """Method ids in row order."""
        return tuple(row.method for row in self.rows)

    def row(self, method: str) -> ComparisonRow:
        """The row of one method."""
        return next(r for r in self.rows if r.method == method)

    def records(self) -> list[dict]:
        """Rows as dictionaries keyed by :data:`CSV_COLUMNS`."""
        return [dict(zip(CSV_COLUMNS, (r.method, r.name, r.accuracy, r.kendall_tau,
                                        r.seconds_mean, r.seconds_std, r.iterations,
                                        r.converged, r.error or "")))
                for r in self.rows]

    def to_csv(self) -> str:
        """The table as CSV (text cells neutralised for spreadsheets)."""
        return table_to_csv(CSV_COLUMNS, [list(rec.values()) for rec in self.records()])


def _strict_ranks(scores) -> np.ndarray:
    """Positions in the order best first, equal scores broken by item id."""
    return np.argsort(np.argsort(-np.asarray(scores, float), kind="stable"), kind="stable")


def _rank_agreement(ranks_a: np.ndarray, ranks_b: np.ndarray) -> float:
    if ranks_a.size < 2:
        return 1.0
    return float((1.0 + kendalltau(ranks_a, ranks_b).statistic) / 2.0)


def order_agreement(scores_a, scores_b) -> float:
    """Fraction of item pairs that two score vectors' orders (ties broken by id) agree on."""
    return _rank_agreement(_strict_ranks(scores_a), _strict_ranks(scores_b))


def compare(prefs: Preferences, methods: Sequence[str] | None = None, truth=None,
            repeats: int = 1, progress: Callable[[int, int], None] | None = None,
            overrides: Mapping | None = None,
            should_stop: Callable[[], bool] | None = None) -> ComparisonResult:
    """Fit several registered methods and compare them.

    A method that raises is reported in its row (``error``, as
    :class:`~coarsenrank_core.registry.FitAttempt` words it) and the others still run.

    Parameters
    ----------
    prefs : Preferences
    methods : sequence of str, optional
        Registry ids; default :data:`DEFAULT_COMPARISON` (the paper's seven methods and
        the two mixture models).
    truth : array, shape (M,), optional
        Ground-truth scores (higher is better) for pairwise accuracy and Kendall's τ-b.
    repeats : int
        Fits per method; each row keeps every run's seconds (``seconds``) and their mean
        and standard deviation.
    progress : callable, optional
        Called as ``progress(done, total)`` after every fit.
    overrides : Mapping, optional
        Parameters passed to every method that accepts them (e.g. ``{"alpha": 200}``);
        a name that none of the compared methods takes raises ``ValueError``.
        Without ``alpha`` the tempered methods share the α of
        :func:`~coarsenrank_core.alpha.choose_alpha` with its default rule; a rule name
        (``"knee"``, ``"dic-min"``, ``"cv"``) is resolved the same way. The Gibbs method
        runs :data:`COMPARE_DRAWS` unless ``burn_in``/``n_draws`` are given.
    should_stop : callable, optional
        Handed to every fit that takes it and checked between fits; when it returns true
        the comparison raises :class:`coarsenrank_core.errors.Cancelled`.

    Returns
    -------
    ComparisonResult
    """
    methods = check_methods(DEFAULT_COMPARISON if methods is None else methods)
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if truth is not None:
        truth = np.asarray(truth, dtype=float)
        if truth.shape != (prefs.n_items,):
            raise ValueError(f"truth must hold one score per item ({prefs.n_items})")
    overrides = {**COMPARE_DRAWS, **dict(overrides or {})}
    taken = set().union(*(METHODS[m].parameters for m in methods)) | SHARED_PARAMETERS
    unknown = sorted(set(overrides) - taken)
    if unknown:
        raise ValueError(f"no compared method takes {', '.join(map(repr, unknown))}")
    if should_stop is not None:
        overrides["should_stop"] = should_stop
    choice = None
    if any(METHODS[m].tempered for m in methods):
        choice = choose_alpha(prefs, overrides.get("alpha", "auto"), should_stop=should_stop)
        overrides["alpha"] = choice.alpha
    total, done = len(methods) * repeats, 0
    rows, results = [], {}
    for method_id in methods:
        method = METHODS[method_id]
        accepted = set(method.parameters)
        own = {k: v for k, v in overrides.items() if k in accepted}
        seconds, result, error = [], None, None
        for _ in range(repeats):
            check_stop(should_stop, f"The comparison was stopped after {done} of {total} fits.")
            fit = attempt(method_id, prefs, **own)
            result, error = fit.result, fit.error
            seconds.append(fit.seconds)
            done += 1
            if progress is not None:
                progress(done, total)
            if error:
                break
        accuracy = tau = math.nan
        if result is not None:
            results[method_id] = result
            if truth is not None:
                accuracy = pairwise_accuracy(result.scores, truth)
                tau = kendall_tau_b(result.scores, truth)
        mean, spread = seconds_summary(seconds)
        rows.append(ComparisonRow(
            method=method_id, name=method.name, accuracy=accuracy, kendall_tau=tau,
            seconds_mean=mean, seconds_std=spread,
            iterations=None if result is None else result.iterations,
            converged=None if result is None else result.converged, error=error,
            seconds=tuple(seconds)))
    ranks = {m: _strict_ranks(r.scores) for m, r in results.items()}
    agreement = np.full((len(methods), len(methods)), np.nan)
    for i, a in enumerate(methods):
        for j, b in enumerate(methods[: i + 1]):
            if a in ranks and b in ranks:
                agreement[i, j] = agreement[j, i] = (
                    1.0 if i == j else _rank_agreement(ranks[a], ranks[b]))
    return ComparisonResult(rows=tuple(rows), agreement=agreement,
                            results=FrozenDict(results), has_truth=truth is not None,
                            alpha_choice=choice)
