"""CoarsenRank: robust rank aggregation by tempered Plackett–Luce inference, in pure NumPy."""

from .errors import PreferenceFormatError
from .plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_log_likelihood, tempered_log_posterior
from .preferences import Preferences, PreferenceSummary
from .results import PosteriorResult, RankingResult, tempering

__all__ = ["Preferences", "PreferenceSummary", "PreferenceFormatError", "RankingResult",
           "PosteriorResult", "coarsen_pl", "coarsen_pl_gibbs", "pl_log_likelihood",
           "tempered_log_posterior", "tempering"]
__version__ = "0.1.0"
