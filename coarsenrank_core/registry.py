"""The method registry: one entry per method, read by the dashboard, the CLI and the tests."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from .alpha import CHOICES, choose_alpha
from .defaults import EM_SETTINGS, GIBBS_BURN_IN, GIBBS_DRAWS, PRIOR
from .errors import Cancelled
from .frozen import FrozenDict
from .models.baselines import borda, copeland
from .models.bradley_terry import coarsen_bt
from .models.consensus import CONSENSUS_PRIOR, consensus
from .models.crowdbt import crowdbt
from .models.mixture import pl_mix, pl_mix_ranker
from .models.peergrader import peergrader
from .models.pl_gradient import pl_lbfgs
from .models.plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_em
from .models.thurstone import coarsen_th
from .preferences import Preferences
from .results import RankingResult

__all__ = ["Method", "METHODS", "run_method", "PAPER_METHODS", "AUTO_ALPHA", "DEFAULT_METHOD",
           "get_method",
           "check_methods", "SHARED_PARAMETERS", "FitAttempt", "attempt", "seconds_summary"]

#: Parameters a comparison hands to every method at once (:func:`~coarsenrank_core.comparison.
#: compare`, the robustness and scale experiments): a method that does not take one of
#: these ignores it. Any other parameter a method does not take raises ``ValueError``.
SHARED_PARAMETERS = frozenset({"alpha", "random_state", "burn_in", "n_draws", "should_stop"})


@dataclass(frozen=True)
class Method:
    """A registered method: its function, defaults and what it can do.

    Attributes
    ----------
    id, name : str
        Stable id (``"coarsen-pl"``) and display name (``"CoarsenPL"``).
    function : callable
        ``function(prefs, **params) -> RankingResult``.
    defaults : Mapping
        Parameters used when the caller gives none.
    family : str
        ``"vanilla"``, ``"robust"``, ``"coarsen"`` or ``"classic"`` (the paper's grouping).
    input : str
        ``"lists"`` (models whole lists) or ``"pairs"`` (rank-breaks lists into pairs).
    ties : str
        How the method treats tied items, in one sentence.
    uncertainty : bool
        Whether the result carries posterior draws.
    uses_rankers : bool
        Whether ranker ids change the result (without them each preference is its own ranker).
    in_paper : bool
        One of the seven methods of the paper's Table "Accuracy".
    reference : str
        Where the method comes from.
    summary : str
        One plain-language sentence for the dashboard.
    """

    id: str
    name: str
    function: Callable[..., RankingResult]
    defaults: Mapping = field(default_factory=dict)
    family: str = "coarsen"
    input: str = "lists"
    ties: str = ""
    uncertainty: bool = False
    uses_rankers: bool = False
    in_paper: bool = True
    reference: str = ""
    summary: str = ""

    def __post_init__(self):
        object.__setattr__(self, "defaults", FrozenDict(dict(self.defaults)))

    @property
    def parameters(self) -> tuple[str, ...]:
        """Names of the keyword parameters the function accepts."""
        signature = inspect.signature(self.function)
        return tuple(name for name in list(signature.parameters)[1:])

    @property
    def tempered(self) -> bool:
        """Whether the method takes the CoarsenRank neighbourhood size ``alpha``."""
        return "alpha" in self.parameters

    @property
    def stochastic(self) -> bool:
        """Whether the method takes a ``random_state``."""
        return "random_state" in self.parameters

    def resolve(self, overrides: Mapping | None = None) -> dict:
        """Defaults updated by ``overrides``.

        A parameter the method does not take raises ``ValueError`` (a typo such as
        ``alhpa`` never runs silently with the default), except the
        :data:`SHARED_PARAMETERS` a comparison hands to every method, which a method
        without them ignores.
        """
        params = dict(self.defaults)
        accepted = set(self.parameters)
        unknown = sorted(k for k in (overrides or {})
                         if k not in accepted and k not in SHARED_PARAMETERS)
        if unknown:
            raise ValueError(f"{self.id} takes no parameter {', '.join(map(repr, unknown))}; "
                             f"it takes {', '.join(self.parameters) or 'none'}")
        params.update({k: v for k, v in (overrides or {}).items() if k in accepted})
        return params

    def run(self, prefs: Preferences, **overrides) -> RankingResult:
        """Fit the method with its defaults updated by ``overrides`` (see :meth:`resolve`).

        ``alpha="auto"`` (the default of every tempered method) is replaced by
        :func:`~coarsenrank_core.alpha.choose_alpha` with the default rule. The result's
        ``method`` is always this registry id (``coarsen-pl`` at ``α = ∞`` stays
        ``coarsen-pl``).
        """
        params = self.resolve(overrides)
        if isinstance(params.get("alpha"), str):
            params["alpha"] = choose_alpha(prefs, params["alpha"], cache=CHOICES,
                                           should_stop=params.get("should_stop"),
                                           design=params.get("design")).alpha
        result = self.function(prefs, **params)
        return result if result.method == self.id else replace(result, method=self.id)


#: The α of every tempered method unless the caller gives one: chosen from the data by
#: :func:`~coarsenrank_core.alpha.choose_alpha` with its default rule.
AUTO_ALPHA = "auto"

_COARSEN_EM = dict(alpha=AUTO_ALPHA, **EM_SETTINGS)

METHODS: dict[str, Method] = {m.id: m for m in [
    Method(
        "pl", "PL", pl_lbfgs, dict(regularization=1.0), family="vanilla",
        ties="Breslow: tied items each chosen from the same remaining set.",
        reference="Plackett 1975, Luce 1959; fitted by L-BFGS as in Pan et al. 2022 §6.1",
        summary="The classic Plackett–Luce model, fitted directly; assumes every rater is "
                "equally reliable."),
    Method(
        "pl-em", "PL-EM", pl_em, dict(EM_SETTINGS), family="vanilla",
        ties="Breslow: tied items each chosen from the same remaining set.",
        reference="Caron & Doucet 2012; Pan et al. 2022 Algorithm 1 with τ = 1",
        summary="Plackett–Luce fitted by EM: CoarsenPL with no neighbourhood (α = ∞)."),
    Method(
        "crowdbt", "CrowdBT", crowdbt, dict(passes=5, reliability_prior=(5.0, 3.0)),
        family="robust", input="pairs", uses_rankers=True,
        ties="Lists are rank-broken into pairs; tied items give no pair.",
        reference="Chen, Bennett, Collins-Thompson & Horvitz, WSDM 2013",
        summary="Bradley–Terry with a learned reliability for every rater, updated online."),
    Method(
        "peergrader", "PeerGrader", peergrader, dict(l2=1.0, reliability_prior=(10.0, 10.0)),
        family="robust", uses_rankers=True,
        ties="Breslow, inside each grader's scaled Plackett–Luce model.",
        reference="Raman & Joachims, KDD 2014 (PL with grader reliability)",
        summary="Plackett–Luce where each grader's reliability sharpens or blurs their "
                "rankings."),
    Method(
        "coarsen-th", "CoarsenTH", coarsen_th, dict(alpha=AUTO_ALPHA, regularization=1.0),
        input="pairs", ties="Lists are rank-broken into pairs; tied items give no pair.",
        reference="Pan et al. 2022 §3.2.1 (Eq. (16))",
        summary="Robust Thurstone model on pairs: the data count with power τ = α/(α+N)."),
    Method(
        "coarsen-bt", "CoarsenBT", coarsen_bt, dict(_COARSEN_EM), input="pairs",
        ties="Tied items give a tied pair (Breslow: each chosen over the other).",
        reference="Pan et al. 2022 §3.2.2 (Eq. (18))",
        summary="Robust Bradley–Terry on pairs, fitted by the CoarsenRank EM."),
    Method(
        "coarsen-pl", "CoarsenPL", coarsen_pl, dict(_COARSEN_EM),
        ties="Breslow: tied items each chosen from the same remaining set.",
        reference="Pan et al. 2022 §3.2.3 and Algorithm 1",
        summary="CoarsenRank: Plackett–Luce over a neighbourhood of the data, robust to "
                "careless or inconsistent raters."),
    Method(
        "coarsen-pl-gibbs", "CoarsenPL (Gibbs)", coarsen_pl_gibbs,
        dict(alpha=AUTO_ALPHA, prior=PRIOR, burn_in=GIBBS_BURN_IN,
             n_draws=GIBBS_DRAWS, random_state=0),
        uncertainty=True, in_paper=False,
        ties="Breslow: tied items each chosen from the same remaining set.",
        reference="Pan et al. 2022 Algorithm 2, with the exact sampler (see the README)",
        summary="CoarsenPL's posterior mean by Gibbs sampling, with uncertainty of every "
                "rank."),
    Method(
        "pl-mix", "PL-mix", pl_mix, dict(prior=(2.0, 1.0), pi_init=0.2, max_iter=1000,
                                          tol=1e-8),
        family="robust", in_paper=False,
        ties="Breslow, in the PL part; the noise part is uniform over the same stages.",
        reference="A two-component mixture, PL or a uniformly random list, fitted by EM "
                  "(this package; cf. Pan et al. 2022 §6 on outliers)",
        summary="Each list is either an honest Plackett–Luce answer or a random one; EM "
                "estimates the share of random lists and down-weights them."),
    Method(
        "pl-mix-ranker", "PL-mix (raters)", pl_mix_ranker,
        dict(prior=(2.0, 1.0), pi_init=0.2, max_iter=1000, tol=1e-8),
        family="robust", in_paper=False, uses_rankers=True,
        ties="Breslow, in the PL part; the noise part is uniform over the same stages.",
        reference="The per-list mixture with one noise label per rater, fitted by EM "
                  "(this package)",
        summary="Each rater is either careful (Plackett–Luce) or answers every list at "
                "random (with reversed_component=True: or upside down); EM gives each "
                "rater's chance of being careless."),
    Method(
        "consensus", "Default (weighted PL-EM)", consensus,
        dict(prior=CONSENSUS_PRIOR, pi_init=0.2, max_iter=1000, tol=1e-8),
        family="robust", in_paper=False, uses_rankers=True,
        ties="Breslow, in the PL part; the noise part is uniform over the same stages.",
        reference="This package's default, chosen by the study in the reproduction report: "
                  "when a likelihood-ratio test finds careless answers, PL-EM with each "
                  "rater (or list) weighted by its chance of being careful under PL-mix per "
                  "rater or per list, whichever explains the answers better, and counted "
                  "turned over by its chance of being upside down where a second test "
                  "finds such answers; else PL-EM",
        summary="The default answer: plain Plackett–Luce, unless the answers show careless "
                "raters (or lists); then those count for less, by their chance of being "
                "careless, and answers written upside down count turned over."),
    Method(
        "borda", "Borda", borda, family="classic", in_paper=False,
        ties="Tied items share the mean of their positions.",
        reference="Borda 1781; normalised for lists of different length",
        summary="Points for position: first in a list scores 1, last scores 0, averaged."),
    Method(
        "copeland", "Copeland", copeland, family="classic", in_paper=False,
        ties="Tied items give no pair.",
        reference="Copeland 1951",
        summary="Head-to-head contests: pairs won by majority minus pairs lost."),
]}

#: The fit behind "the consensus" whenever nobody chooses one: the CLI's ``rank``, the
#: Consensus page and the first method of every comparison (see
#: :func:`~coarsenrank_core.models.consensus.consensus` for why).
DEFAULT_METHOD = "consensus"

PAPER_METHODS: tuple[str, ...] = tuple(m for m, spec in METHODS.items() if spec.in_paper)


def get_method(method_id: str) -> Method:
    """The registered method ``method_id``; ``ValueError`` naming the known ids otherwise.

    The one place where a method id is checked (:func:`check_methods` for several).
    """
    try:
        return METHODS[method_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown method {method_id!r}; choose from {', '.join(METHODS)}") \
            from None


def check_methods(method_ids: Iterable[str]) -> list[str]:
    """The ids as a list, after checking every one (``ValueError`` names the unknown ones)."""
    ids = list(method_ids)
    unknown = [m for m in ids if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {', '.join(map(repr, unknown))}; choose from "
                         f"{', '.join(METHODS)}")
    return ids


def run_method(method_id: str, prefs: Preferences, **overrides) -> RankingResult:
    """Fit the registered method ``method_id`` on ``prefs`` (see :meth:`Method.resolve`).

    Examples
    --------
    >>> prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]])
    >>> run_method("coarsen-pl", prefs, alpha=float("inf")).method
    'coarsen-pl'
    """
    return get_method(method_id).run(prefs, **overrides)


@dataclass(frozen=True)
class FitAttempt:
    """One fit as a comparison runs it: the result, or the error that stopped it.

    The single policy for a method that raises, used by
    :func:`~coarsenrank_core.comparison.compare`,
    :func:`~coarsenrank_core.experiments.robustness_curve` and
    :func:`~coarsenrank_core.experiments.scale_test`: the error is reported as
    ``"<ExceptionType>: <message>"`` and the other methods still run.
    :class:`~coarsenrank_core.errors.Cancelled` is never caught: a stop request ends the
    whole run.
    """

    method: str
    result: RankingResult | None
    error: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        """Whether the fit returned a result."""
        return self.error is None


def attempt(method_id: str, prefs: Preferences, **overrides) -> FitAttempt:
    """Fit ``method_id`` and time it, turning any error except Cancelled into a report."""
    method = get_method(method_id)
    start = time.perf_counter()
    try:
        result = method.run(prefs, **overrides)
    except Cancelled:
        raise
    except Exception as exc:  # the one place a failing method is caught
        return FitAttempt(method_id, None, f"{type(exc).__name__}: {exc}",
                          time.perf_counter() - start)
    return FitAttempt(method_id, result, None, time.perf_counter() - start)


def seconds_summary(seconds) -> tuple[float, float]:
    """Mean and sample standard deviation (``ddof=1``; 0 for one run) of timed runs.

    The one timing convention of the package (comparison, scale test, reproduction).
    """
    values = np.asarray(seconds, dtype=float)
    if values.size == 0:
        return float("nan"), float("nan")
    return float(values.mean()), float(values.std(ddof=1)) if values.size > 1 else 0.0
