"""CoarsenRank: robust rank aggregation by tempered Plackett–Luce inference, in pure NumPy."""

from .compare import ComparisonResult, compare
from .dic import DICResult, dic_sweep
from .errors import PreferenceFormatError
from .metrics import kendall_tau_b, pairwise_accuracy
from .plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_log_likelihood, tempered_log_posterior
from .preferences import Preferences, PreferenceSummary
from .readers import FORMATS, detect_format, example_file, read_preferences, read_truth
from .registry import METHODS, run_method
from .results import PosteriorResult, RankingResult, tempering
from .simulate import simulate_pl

__all__ = ["Preferences", "PreferenceSummary", "PreferenceFormatError", "RankingResult",
           "PosteriorResult", "DICResult", "ComparisonResult", "METHODS", "FORMATS",
           "coarsen_pl", "coarsen_pl_gibbs", "dic_sweep", "compare", "run_method",
           "pl_log_likelihood", "tempered_log_posterior", "tempering", "pairwise_accuracy",
           "kendall_tau_b", "read_preferences", "read_truth", "detect_format", "example_file",
           "simulate_pl"]
__version__ = "0.1.0"
