"""Consensus ranking: the final order, how sure each place is, and which raters disagree."""

import numpy as np
import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core import PosteriorResult, pairwise_accuracy  # noqa: E402
from coarsenrank_core.dic import auto_alpha_grid  # noqa: E402
from ui import charts, compute, state  # noqa: E402
from ui.phone import column_order, more_columns  # noqa: E402
from ui.text import alpha_number  # noqa: E402
from ui.widgets import (  # noqa: E402
    TABLE_ROWS,
    alpha_text,
    chart_limit,
    csv_download,
    explain,
    glossary,
    long_table,
    show_chart,
    stop_button,
    was_stopped,
)

st.title("Consensus ranking")

dataset = state.current()
prefs = dataset.preferences
original = dataset.original.preferences
if state.peek_alpha() is None and not compute.quick_alpha_choice(original):
    # never hold the first drawing for a DIC sweep: draw now at the quick rule's provisional
    # α = N (τ = ½); after the page the shell chooses α by the default rule, with a progress
    # bar and Stop, and draws the page again at that α
    state.set_alpha(original.total_weight, "provisional")
setting = state.alpha_setting()

grid = sorted({*auto_alpha_grid(prefs.total_weight).tolist(), setting.alpha, float("inf")})
# the slider shows the session's α, also after another page has changed it
state.show_in_widget("consensus_alpha", setting.alpha)
value = st.select_slider("Trust in the data (α): move right to trust the data more "
                         "(changes α on every page)", options=grid, format_func=alpha_number,
                         key="consensus_alpha")
if value != setting.alpha:
    state.set_alpha(value, "slider")
    state.mark_shown("consensus_alpha", value)
    setting = state.alpha_setting()
alpha = setting.alpha
st.caption(f"Using {alpha_text(alpha)}: {setting.how}. The order is CoarsenPL fitted by EM at "
           "this α, the same fit as the command line's `rank` and the Compare page.")

for task in ("consensus", "posterior"):
    if was_stopped(task):
        state.set_widget(f"_{task}_stopped", (dataset.key, alpha))
if state.widget("_consensus_stopped") == (dataset.key, alpha):
    st.warning("Computing the consensus was stopped.")
    if st.button("Compute the consensus", type="primary", key="consensus_restart"):
        state.set_widget("_consensus_stopped", None)
        st.rerun()
    st.stop()
with stop_button("consensus"):
    fit = compute.consensus_fit(prefs, dataset.key, alpha)
names = prefs.item_names
order = fit.order
# the posterior is drawn at the session's α only: a provisional α is about to change
post = None if setting.provisional else compute.posterior.peek(prefs, dataset.key, alpha)
LEVEL = f"{PosteriorResult.interval_level:.0%}"


def ranking_table(slot, post) -> None:
    """The ranking, best first; with the posterior's likely ranks once they are sampled."""
    config = {"strength": st.column_config.NumberColumn(format="%.3g")}
    if post is None:
        rows = [{"rank": r + 1, "item": names[i], "strength": float(fit.scores[i])}
                for r, i in enumerate(order[:TABLE_ROWS])]
    else:
        low, high = post.rank_interval()
        first = post.rank_probabilities()[:, 0]
        rows = [{"rank": r + 1, "item": names[i], "strength": float(fit.scores[i]),
                 f"likely ranks ({post.interval_level:.0%})":
                     f"{low[i]}–{high[i]}" if low[i] != high[i] else f"{low[i]}",
                 "chance of being first": float(first[i])}
                for r, i in enumerate(order[:TABLE_ROWS])]
        config["chance of being first"] = st.column_config.ProgressColumn(
            min_value=0.0, max_value=1.0, format="percent")
    # on a phone: rank, item and the chance of being first; the rest behind "More columns"
    keys = ("rank", "item", "strength" if post is None else "chance of being first")
    slot.dataframe(rows, hide_index=True, column_config=config,
                   column_order=column_order(keys, more))


if setting.provisional:
    st.info(f"**Provisional consensus** at {alpha_text(alpha)}, the quick rule (α = N, "
            "τ = ½), while the data choose α by the default rule (where the DIC curve levels "
            "off). It is replaced by the consensus at the data's α, with how sure each place "
            "is, as soon as that is ready.")
if dataset.truth is not None:
    accuracy = pairwise_accuracy(fit.scores, dataset.truth)
    st.metric("Agreement with the true order", f"{accuracy:.1%}",
              help="Share of item pairs that the consensus puts in the true order.")
# the order is drawn at once; the likely ranks join it when the posterior is sampled
more = more_columns("consensus_table")
ranking_slot = st.empty()
ranking_table(ranking_slot, post)
if order.size > TABLE_ROWS:
    st.caption(f"Showing the best {TABLE_ROWS:,} of {order.size:,} items; the download holds "
               "them all.")
if post is None and not setting.provisional:
    if state.widget("_posterior_stopped") == (dataset.key, alpha):
        st.warning("Sampling how sure each place is was stopped: the table shows the "
                   "consensus order without its likely ranks.")
        if st.button("Sample how sure each place is", type="primary",
                     key="posterior_restart"):
            state.set_widget("_posterior_stopped", None)
            st.rerun()
    else:
        with stop_button("posterior"):
            post = compute.posterior(prefs, dataset.key, alpha)
        ranking_table(ranking_slot, post)
if post is not None:
    low, high = post.rank_interval()
    probabilities = post.rank_probabilities()
    explain("Best first. “Likely ranks” gives the range of places the item takes in "
            f"{post.interval_level:.0%} of the posterior draws: a wide range means the data "
            "cannot place it precisely.")
    csv_download("Download the ranking (CSV)",
                 ["rank", "item", "strength", "rank_low", "rank_high", "p_first"],
                 lambda: ([r + 1, names[i], float(fit.scores[i]), int(low[i]), int(high[i]),
                           float(probabilities[i, 0])] for r, i in enumerate(order)),
                 "consensus_ranking.csv", key="consensus_download")
    show_chart(charts.rank_heatmap(probabilities, order, names), key="rank_heatmap")
    explain("Each row is an item, each column a rank. Dark cells on the diagonal mean a sure "
            "place; a smear across columns means the place is uncertain.")
else:
    explain(f"Best first. How sure each place is (the likely ranks, {LEVEL} of the posterior "
            "draws, and the chance of being first) is sampled "
            + ("once the data have chosen α." if setting.provisional
               else "when you press “Sample how sure each place is”."))
    csv_download("Download the ranking (CSV)", ["rank", "item", "strength"],
                 lambda: ([r + 1, names[i], float(fit.scores[i])]
                          for r, i in enumerate(order)),
                 "consensus_ranking.csv", key="consensus_download")

st.header("Which raters disagree with the consensus?", divider="gray")
JUDGES = {"consensus": "Agreement with the consensus (CoarsenPL)",
          "pl-mix-ranker": "PL-mix (raters): the chance each rater answered at random",
          "pl-mix": "PL-mix (lists): the chance of each list, averaged per rater"}
judge = st.radio("Judge the raters with", list(JUDGES), format_func=JUDGES.get,
                 key="consensus_judge")
show_all = st.toggle("Show all raters (the chart shows the 40 most doubtful at first, and "
                     "at most 500)", key="consensus_all_raters")
limit = chart_limit(show_all)
if dataset.careless is not None:
    st.caption("These data mark which raters answered carelessly (a simulated scenario or "
               "the noise): they are drawn as filled red dots.")
if judge == "consensus":
    agreement = compute.raters(prefs, dataset.key, alpha)
    show_chart(charts.rater_chart(agreement, limit, dataset.careless), key="rater_chart")
    flagged = int(np.sum(agreement.outlier))
    explain("Each dot is a rater's average agreement per choice (closer to 0 is better), "
            "the least consistent at the top. Raters left of the dashed line are explained no "
            "better than by guessing. "
            + (f"{flagged} {'rater stands' if flagged == 1 else 'raters stand'} out (orange)."
               if flagged else ""))
    table = {"rater": agreement.names, "lists": agreement.n_preferences,
             "agreement per choice": agreement.mean_log_likelihood,
             "stands out": agreement.outlier}
    rows = np.argsort(agreement.mean_log_likelihood, kind="stable")
else:
    careless = compute.careless(prefs, dataset.key, judge)
    show_chart(charts.careless_chart(careless, limit, dataset.careless), key="careless_chart")
    flagged = int(np.sum(careless.outlier))
    explain(f"The mixture model estimates that {careless.pi:.0%} of the "
            f"{'raters' if judge == 'pl-mix-ranker' else 'lists'} were answered at random. Each "
            "dot is a rater's posterior chance of being careless; "
            f"{flagged} {'rater is' if flagged == 1 else 'raters are'} more likely careless "
            "than careful.")
    table = {"rater": careless.names, "lists": careless.n_preferences,
             "chance of answering at random": careless.probability,
             "stands out": careless.outlier}
    rows = np.argsort(-careless.probability, kind="stable")
with st.expander("Per-rater table"):
    long_table(table, rows, "Download the per-rater table (CSV)", "rater_agreement.csv",
               key="rater_download", key_columns=("rater", list(table)[2]))
with st.expander("How this is computed"):
    st.markdown(
        "**The consensus** is CoarsenPL fitted by EM (paper Algorithm 1) with prior Gamma(1, 2) "
        "and the paper's §6.1 calibration θ ← (M/2)·θ/Σθ after every step, at the session's "
        "α. The command line's `rank`, the Compare page and the Noise page use the same fit. "
        "Strength is the Plackett–Luce worth: an item with twice the strength of another is "
        "picked first twice as often. **Likely ranks** and the chance of being first come "
        "from the exact Gibbs posterior at the same α, a chain started from that consensus "
        f"({compute.CONSENSUS_DRAWS['n_draws']} draws after "
        f"{compute.CONSENSUS_DRAWS['burn_in']} warm-up sweeps). "
        "On large data whose α has not been chosen yet, the page first shows the consensus "
        "at the provisional α = N (τ = ½), labelled so, while α is chosen by the default "
        "rule; then the consensus at that α and its likely ranks replace it. "
        "**Agreement** is the mean log-probability, per choice, of a rater's lists under the "
        "consensus. **PL-mix** models each rater (or list) as careful Plackett–Luce or "
        "uniformly random and estimates the chance of each by EM.")

glossary("consensus", "alpha", "tau", "posterior", "log_likelihood")
