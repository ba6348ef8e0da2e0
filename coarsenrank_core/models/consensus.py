"""The default answer: Plackett–Luce, careless answers down-weighted where the data show them."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..defaults import EM_SETTINGS
from ..errors import Progress, ShouldStop
from ..preferences import MIN_WEIGHT, Preferences
from ..results import ConsensusOutputs, RankingResult
from .mixture import mixture_log_posterior, pl_mixture, turned_over
from .plackett_luce import coarsen_pl, pl_em

__all__ = ["consensus", "careful_refit", "careful_weights", "careless_unit", "careless_unit_reason",
           "consensus_reason", "CONSENSUS_PRIOR", "CARELESS_TEST"]


def careless_unit(prefs: Preferences) -> str:
    """``"ranker"`` when some ranker gives two or more lists, else ``"list"``.

    A per-ranker noise label can only be told from a per-list one when a ranker's lists
    are seen together; with one list per ranker (or no ranker ids) the two models coincide.
    """
    if not prefs.has_rankers or len(prefs) == 0:
        return "list"
    counts = np.bincount(prefs.ranker_index)
    return "ranker" if bool(np.any(counts >= 2)) else "list"


def careless_unit_reason(prefs: Preferences, per: str | None = None) -> str:
    """One plain sentence: which fit :func:`consensus` used on ``prefs`` (``per``) and why."""
    per = careless_unit(prefs) if per is None else per
    weighted = ("PL-EM with each {unit} counted by the chance that {whom} careful, from "
                "PL-mix per {per}: ")
    if careless_unit(prefs) == "ranker":
        counts = np.bincount(prefs.ranker_index)
        several = f"{int(np.count_nonzero(counts >= 2)):,} of {counts.size:,} raters give " \
                  "several lists"
        if per == "ranker":
            return (weighted.format(unit="rater's lists", whom="the rater is", per="rater")
                    + f"{several}, and the answers are best explained with each rater "
                    "careful or careless in all their lists.")
        return (weighted.format(unit="list", whom="it is", per="list")
                + f"{several}, but the answers are best explained with each list careful or "
                "careless on its own (careless answers are scattered rather than whole "
                "raters).")
    if not prefs.has_rankers:
        return (weighted.format(unit="list", whom="it is", per="list")
                + "the file names no raters, so each list is judged on its own as careful "
                "or careless.")
    return (weighted.format(unit="list", whom="it is", per="list")
            + "every rater gives one list, so careless raters can only be recognised list "
            "by list.")


def consensus_reason(prefs: Preferences, extra: Mapping[str, Any]) -> str:
    """One plain sentence: which fit :func:`consensus` kept (its ``extra``) and why."""
    if extra["per"] != "none":
        reason = careless_unit_reason(prefs, extra["per"])
        if extra.get("reversed_kept", False):
            whose = "raters'" if extra["per"] == "ranker" else "lists'"
            reason += (f" Some {whose} answers read upside down (best and worst swapped) "
                       "more often than chance explains, so each list also counts turned "
                       "over, by its chance of being upside down.")
        return reason
    ratio = extra["likelihood_ratio"]
    if not np.isfinite(ratio):
        return "PL-EM, as asked: plain Plackett–Luce with no careless answers."
    return ("PL-EM: the answers show no clear sign of careless ones (a mixture that lets "
            "answers be careless fits them no better than plain Plackett–Luce: likelihood "
            f"ratio {ratio:.1f}, not above {CARELESS_TEST:.2f}), so the plain Plackett–Luce "
            "fit is kept.")


#: The default fit's Gamma(a, rate b) prior: weak (mean 11, mode 1), so that an item shown
#: rarely is placed by its few answers rather than pulled to the middle; in the study it was
#: as good as or better than PL-mix's (2, 1) in every cell, by up to 0.016.
CONSENSUS_PRIOR = (1.1, 0.1)

#: The likelihood-ratio statistic above which the default keeps the careless-answer mixture:
#: the 5 % point of ½χ²₀ + ½χ²₁, the null distribution of a share tested at its boundary
#: π = 0 (Self & Liang 1987). Below it the data show no careless answers and the default is
#: plain PL-EM, exactly as the registry's ``"pl-em"`` fits it.
CARELESS_TEST = 2.706


def consensus(prefs: Preferences, prior: Sequence[float] = CONSENSUS_PRIOR,
              pi_init: float = 0.2, max_iter: int = 1000, tol: float = 1e-8,
              init: ArrayLike | None = None, per: str | None = None,
              upside_down: bool | None = None, *,
              should_stop: ShouldStop | None = None,
              progress: Progress | None = None) -> RankingResult:
    """The package's default consensus: plain PL, or PL plus careless answers per rater or list.

    When some rater gives several lists (:func:`careless_unit`), the careless-answer
    mixture is fitted both per rater and per list
    (:func:`~coarsenrank_core.models.mixture.pl_mixture`) and the fit with the higher
    log-posterior is kept: careless raters who are careless in every list favour the first,
    careless lists scattered over raters the second. Otherwise it is fitted per list. Where
    raters' numbers of lists differ more than :data:`UNEVEN_RATERS`-fold, each per-rater
    mixture is also run from one vote per rater (:func:`_one_vote_start`) and the start
    with the higher posterior kept; every mixture keeps its careful share at ½ or more. The
    mixture is then tested against plain Plackett–Luce with the same prior: when twice the
    gain in log-posterior is at most :data:`CARELESS_TEST` the data show no careless answers
    and the fit is plain PL-EM (the registry's ``"pl-em"`` with its settings). Otherwise a
    third component, answers written upside down (best and worst swapped), is tested the
    same way against the two-component mixture and kept when the data show it. The order is
    then PL-EM refitted with each list weighted by the mixture's chance that its rater (or
    the list) is careful, and, where the upside-down component was kept, each list also
    counted turned over by its chance of being upside down (:func:`careful_refit`): the
    mixture finds the careless answers, PL-EM's calibrated prior places the items. The
    choice is the one the default-answer study of the reproduction report supports: never
    worse than PL-EM by more than 0.01 in any simulated cell or on the paper's datasets,
    better where raters answer carelessly, and (unlike CoarsenPL at the knee α) not led by
    how often items are shown. ``extra.per`` says which mixture was kept (``"ranker"``,
    ``"list"`` or ``"none"``), ``extra.reversed_kept`` whether it holds upside-down answers.

    Parameters
    ----------
    prefs : Preferences
    prior, pi_init, max_iter, tol, init, should_stop
        As in :func:`~coarsenrank_core.models.mixture.pl_mixture` (``prior`` is the
        mixture's; PL-EM, plain or weighted, keeps its own; ``init`` starts both).
    per : {"ranker", "list", "none"}, optional
        Fit this one only, untested (e.g. the refits of a bootstrap keep the full data's
        choice).
    upside_down : bool, optional
        Whether the mixture holds the upside-down component. By default it is tested as
        above (left out when ``per`` is given); ``True`` or ``False`` fits it, or leaves it
        out, untested (the refits of a bootstrap keep the full data's choice,
        :attr:`~coarsenrank_core.results.ConsensusOutputs.reversed_kept`).
    progress : callable, optional
        ``progress(done, total)`` with the fits done (fractional within a mixture's EM) of
        the fits this call may need; ``(total, total)`` at the end.

    Returns
    -------
    RankingResult
        With ``method="consensus"`` and a
        :class:`~coarsenrank_core.results.ConsensusOutputs` as ``extra``.
    """
    if per is not None and per not in ("ranker", "list", "none"):
        raise ValueError(f"per must be 'ranker', 'list' or 'none' (got {per!r})")
    start = time.perf_counter()
    settings: dict[str, Any] = dict(prior=prior, pi_init=pi_init, max_iter=max_iter, tol=tol,
                                    init=init, should_stop=should_stop)
    by_rankers = per is None and careless_unit(prefs) == "ranker"
    mixtures = 2 if by_rankers else 1
    tested = upside_down is None
    # the fits this call may need: the mixture(s), plain PL for the test, the mixture with
    # the upside-down component, PL-EM
    if per is not None:
        total = 1 if per == "none" else 2
    else:
        total = mixtures + (3 if tested or upside_down else 2)
    steps = _Steps(progress, total, start)
    if per == "none":
        return steps.finish(_plain(prefs, None, max_iter, tol, init, should_stop))
    upside_down = bool(upside_down)
    if per is not None:
        mixture = pl_mixture(prefs, per=per, reversed_component=upside_down,
                             progress=steps.within(0), **settings)
        if per == "ranker" and init is None:
            mixture = _best_start(prefs, mixture, _one_vote_start(prefs, max_iter, tol),
                                  should_stop)
        steps.done(1)
        refit = careful_refit(prefs, mixture, max_iter, tol, init, should_stop)
        return steps.finish(_kept(refit, mixture, float("nan"), reversed_kept=upside_down))
    one_vote = _one_vote_start(prefs, max_iter, tol) if by_rankers and init is None else None
    if by_rankers:
        by_ranker = _best_start(prefs, pl_mixture(prefs, per="ranker",
                                                  progress=steps.within(0), **settings),
                                one_vote, should_stop)
        by_list = pl_mixture(prefs, per="list", progress=steps.within(1), **settings)
        mixture = (by_ranker if by_ranker.extra["log_posterior"]
                   >= by_list.extra["log_posterior"] else by_list)
    else:
        mixture = pl_mixture(prefs, per="list", progress=steps.within(0), **settings)
    # plain PL's MAP has Σθ = (a − 1) M / b exactly (the likelihood is scale-free), so
    # holding θ to that sum is the exact best common scale at every step; without it EM
    # creeps along the scale ray and stopped at max_iter short of tol (about 12 steps
    # instead of 1,000 on a teaching sample)
    a, b = (float(v) for v in prior)
    plain = coarsen_pl(prefs, prior=prior, max_iter=max_iter, tol=tol,
                       calibration=(a - 1) * prefs.n_items / b if a > 1 else None,
                       should_stop=should_stop)
    steps.done(mixtures + 1)
    at_zero = mixture_log_posterior(prefs, plain.scores, 0.0, per=mixture.extra["per"],
                                    prior=prior)
    ratio = max(0.0, 2.0 * (mixture.extra["log_posterior"] - at_zero))
    if ratio <= CARELESS_TEST:
        return steps.finish(_plain(prefs, mixture, max_iter, tol, init, should_stop, ratio))
    reversed_ratio = float("nan")
    if tested or upside_down:
        turned = pl_mixture(prefs, per=mixture.extra["per"], reversed_component=True,
                            progress=steps.within(mixtures + 1), **settings)
        if mixture.extra["per"] == "ranker":
            turned = _best_start(prefs, turned, one_vote, should_stop)
        steps.done(total - 1)
        if tested:
            # the upside-down share is tested at its boundary π_R = 0 as the careless share was
            reversed_ratio = max(0.0, 2.0 * (turned.extra["log_posterior"]
                                             - mixture.extra["log_posterior"]))
            upside_down = reversed_ratio > CARELESS_TEST
        if upside_down:
            mixture = turned
    refit = careful_refit(prefs, mixture, max_iter, tol, init, should_stop)
    return steps.finish(_kept(refit, mixture, ratio, reversed_ratio=reversed_ratio,
                              reversed_kept=upside_down))


#: Raters' list counts (summed weights) further apart than this get a second EM start.
UNEVEN_RATERS = 2.0


def _one_vote_start(prefs: Preferences, max_iter: int, tol: float) -> np.ndarray | None:
    """A second start for the per-rater mixtures when raters give very different numbers of
    lists: PL-EM with every rater's lists weighted to one vote each, or None when the
    raters' totals are within :data:`UNEVEN_RATERS` of each other. EM from the usual start
    follows the raters with the most lists, and one rater's twenty copies of a list could
    then be held careful and sixteen raters who answered once careless or upside down."""
    weights = np.asarray(prefs.weights, dtype=float)
    rater = np.asarray(prefs.ranker_index)
    totals = np.bincount(rater, weights=weights)
    given = totals[totals > 0]
    if given.max() <= UNEVEN_RATERS * given.min():
        return None
    votes = weights / totals[rater] * (weights.sum() / given.size)
    start = _registry_pl_em(prefs._replace(weights=np.clip(votes, MIN_WEIGHT, None)),
                            max_iter, tol, None, None).scores
    return start if np.all(start > 0) and np.all(np.isfinite(start)) else None


def _best_start(prefs: Preferences, fit: RankingResult, start: np.ndarray | None,
                should_stop: ShouldStop | None) -> RankingResult:
    """``fit``, or the same mixture run from ``start`` when that reaches a higher posterior."""
    if start is None:
        return fit
    again = pl_mixture(prefs, should_stop=should_stop, **{**fit.params, "init": start})
    return again if again.extra["log_posterior"] > fit.extra["log_posterior"] else fit


class _Steps:
    """Turns the progress of each fit of :func:`consensus` into ``progress(done, total)``
    over all its fits (a fit's own EM steps as a fraction of one)."""

    def __init__(self, progress: Progress | None, total: int, start: float) -> None:
        self.progress, self.total, self.start = progress, total, start

    def done(self, fits: float) -> None:
        if self.progress is not None:
            self.progress(fits, self.total)

    def within(self, fit: int) -> Progress | None:
        """The ``progress`` callback of fit number ``fit`` (0-based), or None."""
        if self.progress is None:
            return None

        def report(done: float, total: int) -> None:
            self.done(fit + (min(1.0, done / total) if total else 1.0))
        return report

    def finish(self, fit: RankingResult) -> RankingResult:
        """``fit`` timed from the call's start (every fit it needed)."""
        self.done(self.total)
        return replace(fit, seconds=time.perf_counter() - self.start)


def _kept(fit: RankingResult, mixture: RankingResult, ratio: float,
          per: str | None = None, reversed_ratio: float = float("nan"),
          reversed_kept: bool = False) -> RankingResult:
    """``fit`` as the consensus, its extra the mixture's outputs with the tests' statistics."""
    extra = ConsensusOutputs(**{k: mixture.extra[k] for k in mixture.extra},
                             likelihood_ratio=ratio, reversed_ratio=reversed_ratio,
                             reversed_kept=reversed_kept)
    if per is not None:
        extra = replace(extra, per=per)
    # a mixture stopped at its iteration limit (a small max_iter) leaves the careless test
    # and the weights unsettled: the consensus has not converged either
    converged = False if mixture.converged is False else fit.converged
    return replace(fit, method="consensus", extra=extra, converged=converged)


def careful_refit(prefs: Preferences, mixture: RankingResult, max_iter: int = 1000,
                  tol: float = 1e-8, init: ArrayLike | None = None,
                  should_stop: ShouldStop | None = None) -> RankingResult:
    """PL-EM on ``prefs`` with each list's weight times the chance that it is careful.

    The chance is ``1 − noise_probability`` of the careless-answer ``mixture``, per rater
    (``per="ranker"``) or per list, so a list that is surely careless keeps a weight of
    ``MIN_WEIGHT`` only. Where the mixture holds the upside-down component
    (``pi_reversed > 0``), every list is also counted turned over, weighted by its chance of
    being upside down (``reversed_probability``): the M-step of that mixture. PL-EM keeps
    the registry's settings (``"pl-em"``: prior Gamma(1, 2), θ calibrated to sum M/2 at
    every step, paper §6.1), with ``max_iter`` at least its own.

    Returns
    -------
    RankingResult
        The refit, ``method="pl-em"``.
    """
    weights = careful_weights(prefs, mixture)
    if mixture.extra and mixture.extra.get("pi_reversed", 0.0) > 0:
        upside_down = np.clip(np.asarray(prefs.weights, dtype=float)
                              * np.asarray(mixture.extra["reversed_probability"])[
                                  _units(prefs, mixture)], MIN_WEIGHT, None)
        data = turned_over(prefs, weights, upside_down)
    else:
        data = prefs._replace(weights=weights)
    return _registry_pl_em(data, max_iter, tol, init, should_stop)


def careful_weights(prefs: Preferences, fit: RankingResult) -> np.ndarray:
    """Every list's weight times the chance that it is careful, by the careless-answer
    mixture behind ``fit`` (per rater when ``per="ranker"``, else per list); the weights as
    they are when ``fit`` holds no mixture (``per`` absent or ``"none"``)."""
    weights = np.asarray(prefs.weights, dtype=float)
    per = fit.extra.get("per", "none") if fit.extra else "none"
    if per not in ("ranker", "list"):
        return weights.copy()
    noise = np.asarray(fit.extra["noise_probability"], dtype=float)
    return np.clip(weights * (1.0 - noise[_units(prefs, fit)]), MIN_WEIGHT, None)


def _units(prefs: Preferences, fit: RankingResult) -> np.ndarray:
    """Per list, the index of its noise label in ``fit``'s mixture: its rater's or its own."""
    if fit.extra["per"] == "ranker" and prefs.has_rankers:
        return np.asarray(prefs.ranker_index)
    return np.arange(len(prefs))


def _registry_pl_em(prefs: Preferences, max_iter: int, tol: float, init: ArrayLike | None,
                    should_stop: ShouldStop | None) -> RankingResult:
    """PL-EM with the registry's settings, ``max_iter`` at least its own."""
    settings = dict(EM_SETTINGS, max_iter=max(max_iter, EM_SETTINGS["max_iter"]), tol=tol)
    return pl_em(prefs, init=init, should_stop=should_stop, **settings)


def _plain(prefs: Preferences, mixture: RankingResult | None, max_iter: int, tol: float,
           init: ArrayLike | None, should_stop: ShouldStop | None,
           ratio: float = float("nan")) -> RankingResult:
    """Plain PL-EM with the registry's settings, reported with the mixture it was tested against."""
    fit = _registry_pl_em(prefs, max_iter, tol, init, should_stop)
    if mixture is None:
        zeros = np.zeros(len(prefs))
        extra = ConsensusOutputs(noise_probability=zeros, reversed_probability=zeros, pi=0.0,
                                 pi_uniform=0.0, pi_reversed=0.0, per="none",
                                 log_posterior=float("nan"), likelihood_ratio=ratio)
        return replace(fit, method="consensus", extra=extra)
    return _kept(fit, mixture, ratio, per="none")
