"""Consensus ranking: the final order, how sure each place is, and which raters disagree."""

import numpy as np
import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core import pairwise_accuracy  # noqa: E402
from coarsenrank_core.dic import auto_alpha_grid  # noqa: E402
from ui import charts, compute, state  # noqa: E402
from ui.widgets import alpha_text, csv_download, explain, show_chart  # noqa: E402

st.title("Consensus ranking")

dataset = state.current()
prefs = dataset.preferences
chosen = state.chosen_alpha()
if chosen is None:
    with st.spinner("Letting the data choose α…"):
        chosen = compute.default_alpha(prefs, dataset.key)
    st.caption(f"α was chosen automatically, where the DIC curve levels off: "
               f"{alpha_text(chosen)}. You can pick another on the “Choose α” page or just "
               "below.")

grid = sorted({*auto_alpha_grid(prefs.total_weight).tolist(), chosen, float("inf")})
alpha = st.select_slider("Trust in the data (α): move right to trust the data more",
                         options=grid, value=chosen,
                         format_func=lambda a: "∞" if a == float("inf") else f"{a:g}",
                         key="consensus_alpha")
st.caption("Using " + alpha_text(alpha) + ".")

with st.spinner("Computing the consensus…"):
    post = compute.posterior(prefs, dataset.key, alpha)
names = prefs.item_names
order = post.order
low, high = post.rank_interval()
probabilities = post.rank_probabilities()

rows = [{"rank": r + 1, "item": names[i], "strength": float(post.mean[i]),
         "likely ranks (90%)": f"{low[i]}–{high[i]}" if low[i] != high[i] else f"{low[i]}",
         "chance of being first": float(probabilities[i, 0])}
        for r, i in enumerate(order)]
if dataset.truth is not None:
    accuracy = pairwise_accuracy(post.mean, dataset.truth)
    st.metric("Agreement with the true order", f"{accuracy:.1%}",
              help="Share of item pairs that the consensus puts in the true order.")
st.dataframe(rows, hide_index=True, column_config={
    "strength": st.column_config.NumberColumn(format="%.3g"),
    "chance of being first": st.column_config.ProgressColumn(min_value=0.0, max_value=1.0,
                                                              format="percent")})
explain("Best first. “Likely ranks” gives the range of places the item takes in 90% of the "
        "posterior draws: a wide range means the data cannot place it precisely.")
csv_download("Download the ranking (CSV)",
             ["rank", "item", "strength", "rank_low", "rank_high", "p_first"],
             [[r + 1, names[i], float(post.mean[i]), int(low[i]), int(high[i]),
               float(probabilities[i, 0])] for r, i in enumerate(order)],
             "consensus_ranking.csv", key="consensus_download")

show_chart(charts.rank_heatmap(probabilities, order, names), key="rank_heatmap")
explain("Each row is an item, each column a rank. Dark cells on the diagonal mean a sure "
        "place; a smear across columns means the place is uncertain.")

st.header("Which raters disagree with the consensus?", divider="gray")
agreement = compute.raters(prefs, dataset.key, alpha)
show_chart(charts.rater_chart(agreement), key="rater_chart")
flagged = int(np.sum(agreement.outlier))
explain("Each bar is a rater's average agreement per choice (closer to 0 is better). Raters "
        "left of the dashed line are explained no better than by guessing. "
        + (f"{flagged} rater(s) stand out (orange)." if flagged else ""))
with st.expander("Per-rater table"):
    table = [{"rater": agreement.names[r], "lists": int(agreement.n_preferences[r]),
              "agreement per choice": float(agreement.mean_log_likelihood[r]),
              "stands out": bool(agreement.outlier[r])}
             for r in np.argsort(agreement.mean_log_likelihood)]
    st.dataframe(table, hide_index=True)
    csv_download("Download per-rater agreement (CSV)", list(table[0]) if table else [],
                 [list(t.values()) for t in table], "rater_agreement.csv",
                 key="rater_download")
with st.expander("How this is computed"):
    st.markdown(
        "The consensus is the posterior mean of CoarsenPL's item strengths, sampled exactly "
        "by Gibbs sampling (400 draws after 200 warm-up sweeps). Strength is the Plackett–Luce "
        "worth: an item with twice the strength of another is picked first twice as often. A "
        "rater's agreement is the mean log-probability, per choice, of their lists under the "
        "consensus.")
