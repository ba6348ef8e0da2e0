"""CoarsenRank: robust rank aggregation by tempered Plackett–Luce inference, in pure NumPy."""

from .dic import DICResult, dic_sweep
from .errors import PreferenceFormatError
from .metrics import kendall_tau_b, pairwise_accuracy
from .plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_log_likelihood, tempered_log_posterior
from .preferences import Preferences, PreferenceSummary
from .results import PosteriorResult, RankingResult, tempering

__all__ = ["Preferences", "PreferenceSummary", "PreferenceFormatError", "RankingResult",
           "PosteriorResult", "DICResult", "coarsen_pl", "coarsen_pl_gibbs", "dic_sweep",
           "pl_log_likelihood", "tempered_log_posterior", "tempering", "pairwise_accuracy",
           "kendall_tau_b"]
__version__ = "0.1.0"
