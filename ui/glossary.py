"""The glossary: one plain line for every statistical word the pages use, in an expander."""

from __future__ import annotations

import streamlit as st

from coarsenrank_core.uncertainty import INTERVAL_LEVEL

__all__ = ["GLOSSARY", "glossary"]


#: One plain line for every statistical word the pages use (shown by :func:`glossary`).
GLOSSARY = {
    "alpha": "α: how much the consensus trusts the data; larger α = a smaller neighbourhood "
             "around the data = more trust (α = ∞ is the plain model).",
    "tau": "τ (tempering) = α / (α + N): each list's weight in the likelihood. Not the same τ "
           "as Kendall's τ-b below.",
    "dic": "DIC (deviance information criterion) = g − f: a score that rewards fitting the "
           "data (f) and penalises complexity (g); lower is better.",
    "f": "f: the average log-likelihood of the data over the posterior draws (how well the "
         "model fits; higher is better).",
    "g": "g: the log-likelihood at the posterior mean minus f (the model's effective "
         "complexity).",
    "knee": "Where the curve levels off: the α after which trusting the data more barely "
            "improves DIC; the default rule.",
    "warm_up": "Warm-up sweeps (burn-in): the first rounds of the sampler, thrown away "
               "because they still depend on where it started.",
    "draws": "Posterior draws: the rounds of the sampler that are kept; more draws give a "
             "smoother curve but take longer.",
    "posterior": "Posterior: what the model believes about the scores after seeing the data, "
                 "as a set of plausible values (draws).",
    "pairwise_accuracy": "Pairwise accuracy: the share of item pairs a method puts in the "
                         "same order as the truth; 0.5 is guessing, 1 is perfect.",
    "kendall_tau_b": "Kendall's τ-b: agreement of two orders from −1 (reversed) through 0 "
                     "(unrelated) to 1 (identical), counting ties fairly. It is not the "
                     "tempering τ of CoarsenRank.",
    "kendall_distance": "Kendall distance: the number of item pairs two orders put the other "
                        "way round.",
    "converged": "Stopped by its rule: whether an iterative method met its own stopping "
                 "rule; “—” for methods that have none (one pass or a fixed number of steps).",
    "log_likelihood": "Log-likelihood per choice: how probable a rater's choices are under "
                      "the consensus, averaged per choice; closer to 0 is better.",
    "precision": "Precision: of the raters a model flags, the share that really were made "
                 "noisy.",
    "recall": "Recall: of the raters made noisy, the share a model flags.",
    "consensus": "Consensus: the one order that best sums up everyone's rankings. By default "
                 "plain Plackett–Luce, with each rater (or list) counted by its chance of "
                 "being careful under PL-mix when the answers show careless ones; on the "
                 "Consensus page you can show "
                 "CoarsenPL at the session's α instead.",
    "likely_ranks": f"Likely ranks: the run of places that holds the item in about "
                    f"{INTERVAL_LEVEL:.0%} of refits on the raters resampled at random "
                    "(more where few raters answered about it, as a bootstrap of few raters "
                    "varies less than their answers do; the model's posterior draws where too "
                    "few raters compared each pair to resample), and always the place shown "
                    "beside it; narrow when the "
                    "raters agree about it. When raters who gave several lists differ item "
                    "by item more than chance explains, it also holds that spread: where a "
                    "further rater like these would place the item.",
    "cross_validation": "Cross-validation: fit on part of the raters, score how well the fit "
                        "predicts the rest, and repeat for each part.",
    "median_runs": "Median of N runs: each method is timed N times; the point is the middle "
                   "time, the bar spans the fastest to the slowest.",
}


def glossary(*terms: str) -> None:
    """An expander with a one-line explanation of each statistical word on the page."""
    with st.expander("What the words on this page mean"):
        for term in terms:
            st.markdown("- " + GLOSSARY[term])
