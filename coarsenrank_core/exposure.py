"""Whether how often items were shown follows how well they do: the exposure check."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import permutation_test, rankdata, spearmanr

from .preferences import Preferences

__all__ = ["ExposureCheck", "exposure_check", "EXPOSURE_WARNING", "EXPOSURE_P_VALUE"]

#: |Spearman ρ| between appearances and fitted scores from which the pages warn.
EXPOSURE_WARNING = 0.5
#: ... when a test of no association also rejects at this level: with items shown at random,
#: |ρ| > 0.5 alone was met in 42–47 % of simulated data sets of 4 or 5 items and 10–15 % of
#: 8 to 10 items; with the test, 0–6.5 % (200 data sets each of 6, 8 and 12 items: 3, 6.5, 6 %).
EXPOSURE_P_VALUE = 0.05
#: Up to this many items the p-value is exact (every pairing); beyond, Spearman's t test.
EXACT_ITEMS = 7


@dataclass(frozen=True)
class ExposureCheck:
    """Spearman's ρ between each item's appearances and its fitted score.

    Attributes
    ----------
    rho : float
        The rank correlation (``nan`` when either side is constant or fewer than 3 items).
    items : int
        Items that appear in the data (the ones compared).
    p_value : float
        Two-sided p-value of ``ρ`` under no association (exact up to :data:`EXACT_ITEMS`
        items, by Spearman's t test beyond; ``nan`` with ``rho``).
    """

    rho: float
    items: int
    p_value: float = float("nan")

    @property
    def warn(self) -> bool:
        """Whether ``|ρ|`` exceeds :data:`EXPOSURE_WARNING` and is unlikely by chance
        (``p_value`` below :data:`EXPOSURE_P_VALUE`)."""
        return bool(np.isfinite(self.rho) and abs(self.rho) > EXPOSURE_WARNING
                    and self.p_value < EXPOSURE_P_VALUE)

    @property
    def direction(self) -> str:
        """``"stronger"`` (better items shown more), ``"weaker"`` or ``"none"``."""
        if not self.warn:
            return "none"
        return "stronger" if self.rho > 0 else "weaker"

    def message(self) -> str | None:
        """The plain warning the pages show, with what to do; ``None`` when there is none."""
        if not self.warn:
            return None
        return (f"{self.direction.capitalize()} items were shown more often (Spearman "
                f"ρ = {self.rho:+.2f} between how often an item was shown and its score); "
                "every method's answer here depends on that. Methods that weigh what each "
                "list says (the default, PL-EM, PL-mix) are the least affected; CoarsenPL at a "
                "small α and Borda follow the exposure. If you can, show every item equally "
                "often, or compare methods on the Compare page before trusting the order.")


def exposure_check(prefs: Preferences, scores) -> ExposureCheck:
    """Spearman's ρ between appearances and ``scores`` over the items that appear.

    Parameters
    ----------
    prefs : Preferences
    scores : array of float, shape (M,)
        A fit's scores (higher is better).

    Returns
    -------
    ExposureCheck
    """
    scores = np.asarray(scores, dtype=float)
    if scores.shape != (prefs.n_items,):
        raise ValueError(f"scores must hold one number per item ({prefs.n_items})")
    shown = prefs.appearances()
    seen = shown > 0
    count = int(seen.sum())
    if count < 3 or np.ptp(shown[seen]) == 0 or np.ptp(scores[seen]) == 0:
        return ExposureCheck(rho=float("nan"), items=count)
    found = spearmanr(shown[seen], scores[seen])
    p_value = (_exact_p_value(shown[seen], scores[seen]) if count <= EXACT_ITEMS
               else float(found.pvalue))
    return ExposureCheck(rho=float(found.statistic), items=count, p_value=p_value)


def _exact_p_value(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p-value of Spearman's ρ over every pairing of ``x`` with ``y`` (ties kept)."""
    rx, ry = rankdata(x), rankdata(y)
    centred_y = ry - ry.mean()

    def rho(a, axis=-1):
        a = a - a.mean(axis=axis, keepdims=True)
        return ((a * centred_y).sum(axis=axis)
                / np.sqrt((a * a).sum(axis=axis) * (centred_y * centred_y).sum()))

    return float(permutation_test((rx,), rho, permutation_type="pairings", vectorized=True,
                                  n_resamples=np.inf, alternative="two-sided").pvalue)
