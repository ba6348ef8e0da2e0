"""CoarsenRank: robust rank aggregation by tempered Plackett–Luce inference, in pure NumPy.

The public names are loaded on first use, so ``import coarsenrank_core`` stays light and
pandas (needed only by the file readers) is imported only when a file is read.
"""

from importlib import import_module

_EXPORTS = {
    "Preferences": "preferences", "PreferenceSummary": "preferences",
    "PreferenceFormatError": "errors",
    "RankingResult": "results", "PosteriorResult": "results", "tempering": "results",
    "coarsen_pl": "fitters", "coarsen_pl_gibbs": "fitters", "coarsen_bt": "fitters",
    "coarsen_th": "fitters",
    "pl_em": "fitters",
    "pl_log_likelihood": "models.plackett_luce", "tempered_log_posterior": "models.plackett_luce",
    "DICResult": "dic", "dic_sweep": "dic",
    "pairwise_accuracy": "metrics", "kendall_tau_b": "metrics",
    "read_preferences": "io", "read_truth": "io", "detect_format": "io",
    "example_file": "io", "FORMATS": "io", "read_file": "io", "ReadOptions": "io",
    "ReadReport": "io",
    "METHODS": "registry", "run_method": "registry",
    "ComparisonResult": "comparison", "compare": "comparison",
    "simulate_pl": "simulate",
    "choose_alpha": "alpha", "AlphaChoice": "alpha",
}

__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
