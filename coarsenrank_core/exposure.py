"""Whether how often items were shown follows how well they do: the exposure check."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from .preferences import Preferences

__all__ = ["ExposureCheck", "exposure_check", "EXPOSURE_WARNING"]

#: |Spearman ρ| between appearances and fitted scores from which the pages warn.
EXPOSURE_WARNING = 0.5


@dataclass(frozen=True)
class ExposureCheck:
    """Spearman's ρ between each item's appearances and its fitted score.

    Attributes
    ----------
    rho : float
        The rank correlation (``nan`` when either side is constant or fewer than 3 items).
    items : int
        Items that appear in the data (the ones compared).
    """

    rho: float
    items: int

    @property
    def warn(self) -> bool:
        """Whether ``|ρ|`` exceeds :data:`EXPOSURE_WARNING`."""
        return bool(np.isfinite(self.rho) and abs(self.rho) > EXPOSURE_WARNING)

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
    rho = spearmanr(shown[seen], scores[seen]).statistic
    return ExposureCheck(rho=float(rho), items=count)
