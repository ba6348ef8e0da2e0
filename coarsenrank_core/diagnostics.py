"""Ranker diagnostics: how well the consensus explains each rater, and who looks careless."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .frozen import readonly_array, restore_readonly
from .preferences import Preferences
from .registry import METHODS

__all__ = ["RankerAgreement", "ranker_disagreement", "CarelessRankers", "careless_rankers",
           "MIXTURE_METHODS"]

#: The registry's mixture methods that say how likely each rater is careless.
MIXTURE_METHODS = ("pl-mix-ranker", "pl-mix")


@dataclass(frozen=True)
class RankerAgreement:
    """How well the consensus explains each rater's preferences.

    Attributes
    ----------
    rankers : numpy.ndarray
        Ranker ids (each preference its own ranker when the data have none).
    names : tuple of str
        Their names.
    n_preferences : numpy.ndarray
        Preferences per ranker.
    mean_log_likelihood : numpy.ndarray
        Mean PL log-likelihood per choice stage of the ranker's preferences under the
        consensus worths (0 is perfect agreement; lower is worse). Dividing by the number of
        stages keeps long lists from looking worse than short ones.
    uniform_log_likelihood : numpy.ndarray
        The same mean when every item is equally good: ``−mean log(choice-set size)``. A
        rater near or below it is not explained better than by guessing.
    outlier : numpy.ndarray
        Raters whose lists the consensus explains worse than guessing
        (``mean_log_likelihood < uniform_log_likelihood``). A rater who answers uniformly at
        random lands there in expectation: by Jensen's inequality the expected
        log-probability of a random choice from a set of ``k`` is at most ``−log k``.
    """

    rankers: np.ndarray
    names: tuple[str, ...]
    n_preferences: np.ndarray
    mean_log_likelihood: np.ndarray
    uniform_log_likelihood: np.ndarray
    outlier: np.ndarray

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        for name in ("rankers", "n_preferences", "mean_log_likelihood",
                     "uniform_log_likelihood", "outlier"):
            value = np.asarray(getattr(self, name))
            object.__setattr__(self, name, readonly_array(value, value.dtype))
        object.__setattr__(self, "names", tuple(self.names))


def ranker_disagreement(prefs: Preferences, scores) -> RankerAgreement:
    """Each rater's mean log-likelihood per choice stage under consensus PL worths.

    Parameters
    ----------
    prefs : Preferences
    scores : array, shape (M,)
        Consensus Plackett–Luce worths θ (e.g. ``coarsen_pl(...).scores`` or a posterior
        mean). Worths of 0 are raised to ``1e-12 · max θ`` so that a rater who ranks an item
        the consensus gives no chance above another still gets a finite score.
    """
    theta = np.asarray(scores, dtype=float)
    if theta.shape != (prefs.n_items,) or np.any(theta < 0) or not np.any(theta > 0):
        raise ValueError("scores must be M non-negative PL worths, not all zero")
    theta = np.maximum(theta, 1e-12 * theta.max())
    design = prefs.stages
    per_pref = design.log_likelihood(theta, per_preference=True)
    uniform = design.log_likelihood(np.ones(prefs.n_items), per_preference=True)
    stages = design.stages_per_preference
    rankers = prefs.ranker_index
    n = prefs.n_rankers
    weight = prefs.weights
    stage_total = np.bincount(rankers, weights=weight * stages, minlength=n)
    mean = np.bincount(rankers, weights=weight * per_pref, minlength=n) / stage_total
    chance = np.bincount(rankers, weights=weight * uniform, minlength=n) / stage_total
    outlier = mean < chance
    names = prefs.ranker_names if prefs.ranker_names is not None else tuple(
        f"preference {i + 1}" for i in range(n))
    return RankerAgreement(rankers=np.arange(n), names=tuple(names),
                          n_preferences=np.bincount(rankers, minlength=n),
                          mean_log_likelihood=mean, uniform_log_likelihood=chance,
                          outlier=outlier)


@dataclass(frozen=True)
class CarelessRankers:
    """Each rater's posterior probability of answering at random, from a mixture model.

    Attributes
    ----------
    method : str
        ``"pl-mix-ranker"`` (one label per rater: the probability is the rater's own) or
        ``"pl-mix"`` (one label per list: the rater's value is the mean over their lists).
    names : tuple of str
        Rater names (each preference its own rater when the data have none).
    n_preferences : numpy.ndarray
        Lists per rater.
    probability : numpy.ndarray
        Posterior probability that the rater (or, averaged, their lists) is noise.
    pi : float
        The estimated share of noise (of raters or of lists).
    fit : RankingResult
        The mixture fit itself (its scores are a consensus too).
    """

    method: str
    names: tuple
    n_preferences: np.ndarray
    probability: np.ndarray
    pi: float
    fit: object

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        for name in ("n_preferences", "probability"):
            object.__setattr__(self, name, readonly_array(getattr(self, name)))

    @property
    def outlier(self) -> np.ndarray:
        """Raters more likely careless than careful (probability above 1/2)."""
        return self.probability > 0.5


def careless_rankers(prefs: Preferences, method: str = "pl-mix-ranker") -> CarelessRankers:
    """Fit a mixture model and read each rater's probability of being noise.

    Parameters
    ----------
    prefs : Preferences
    method : {"pl-mix-ranker", "pl-mix"}
        The registry's mixture methods (:mod:`coarsenrank_core.models.mixture`).
    """
    if method not in MIXTURE_METHODS:
        raise ValueError(f"method must be one of {MIXTURE_METHODS}, not {method!r}")
    fit = METHODS[method].run(prefs)
    noise = np.asarray(fit.extra["noise_probability"], dtype=float)
    rankers = prefs.ranker_index
    n = prefs.n_rankers
    counts = np.bincount(rankers, minlength=n)
    if method == "pl-mix":
        noise = np.bincount(rankers, weights=noise, minlength=n) / np.maximum(counts, 1)
    names = prefs.ranker_names if prefs.ranker_names is not None else tuple(
        f"preference {i + 1}" for i in range(n))
    return CarelessRankers(method=method, names=tuple(names), n_preferences=counts,
                          probability=noise, pi=float(fit.extra["pi"]), fit=fit)
