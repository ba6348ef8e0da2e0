"""Consensus ranking: the final order, how sure each place is, and which raters disagree."""

import numpy as np
import streamlit as st

from coarsenrank_core import PosteriorResult, pairwise_accuracy
from coarsenrank_core.connectivity import separate_groups_text
from coarsenrank_core.exposure import exposure_check
from coarsenrank_core.models.consensus import careless_unit
from coarsenrank_core.uncertainty import BOOTSTRAP_DRAWS, INTERVAL_LEVEL, hold_ranks
from ui import charts, compute, state
from ui.alpha import alpha_text, alpha_widget
from ui.consensus_view import (
    equal_score_note,
    first_place_out_of_order,
    fit_caption,
    order_note,
    ranking_rows,
    spread_text,
    too_few_lists_text,
    unmeasurable_text,
)
from ui.glossary import glossary
from ui.phone import column_order, more_columns, shows_more_columns
from ui.shell import ensure_shell
from ui.text import plain
from ui.widgets import (
    TABLE_ROWS,
    chart_limit,
    csv_download,
    explain,
    long_table,
    restartable,
    show_chart,
)

ensure_shell()

st.title("Consensus ranking")

dataset = state.current()
prefs = dataset.preferences
names = prefs.item_names
FITS = {"default": "Default: the best answer this package knows (PL-EM, careless answers "
                   "down-weighted; chosen by evidence)",
        "coarsen-pl": "CoarsenPL at α: the paper's method"}
fit_kind = state.kept_widget(st.radio, "consensus_fit_kind", "default", "Consensus by",
                            list(FITS), format_func=FITS.get)


def show_truth_agreement(scores) -> None:
    if dataset.truth is not None:
        accuracy = pairwise_accuracy(scores, dataset.truth)
        st.metric("Agreement with the true order", f"{accuracy:.1%}",
                  help="Share of item pairs that the consensus puts in the true order.")


def show_warnings(scores) -> None:
    """What bears on any answer here: groups of items never compared, then exposure."""
    groups = separate_groups_text(prefs, escape=plain)
    if groups is not None:
        st.warning(groups)
    message = exposure_check(prefs, scores).message()
    if message is not None:
        st.warning(message, icon="⚖️")


def draw_table(slot, scores, order, low=None, high=None, first=None,
               level: float = INTERVAL_LEVEL) -> None:
    config = {"strength": st.column_config.NumberColumn(format="%.3g")}
    if first is not None:
        config["chance of being first"] = st.column_config.ProgressColumn(
            min_value=0.0, max_value=1.0, format="percent")
    # on a phone: rank, item and the page's number; the rest behind "More columns"
    keys = ("rank", "item", "strength" if first is None else "chance of being first")
    more = shows_more_columns("consensus_table")
    slot.dataframe(ranking_rows(scores, names, order, low, high, first, limit=TABLE_ROWS,
                                level=level),
                   hide_index=True, column_config=config, column_order=column_order(keys, more))


def show_spread(fit, spread, slot, how: str) -> None:
    """The table of ``fit``'s order with the likely ranks of ``spread``, the order note, the
    download and the heatmap."""
    scores, order = fit.scores, fit.order
    low, high = hold_ranks(*spread.rank_interval(), fit.ranks)  # e.g. EM's order, Gibbs's draws
    probabilities = spread.rank_probabilities()
    draw_table(slot, scores, order, low, high, probabilities[:, 0], spread.interval_level)
    if first_place_out_of_order(order, probabilities[:, 0]):
        st.caption(order_note(spread))
    equal = equal_score_note(scores, order, names)
    if equal is not None:
        st.caption(plain(equal))
    explain(how)
    csv_download("Download the ranking (CSV)",
                 ["rank", "item", "strength", "rank_low", "rank_high", "p_first"],
                 lambda: ([r + 1, names[i], float(scores[i]), int(low[i]), int(high[i]),
                           float(probabilities[i, 0])] for r, i in enumerate(order)),
                 "consensus_ranking.csv", key="consensus_download")
    show_chart(charts.rank_heatmap(probabilities, order, names), key="rank_heatmap")
    explain("Each row is an item, each column a rank. Dark cells on the diagonal mean a sure "
            "place; a smear across columns means the place is uncertain.")


if fit_kind == "default":
    task = restartable("consensus", "Computing the consensus was stopped.", key=dataset.key,
                       restart="Compute the consensus")
    if not task:
        st.stop()
    with task:
        fit = compute.default_fit(prefs, dataset.key)
    st.caption(fit_caption(prefs, fit))
    order = fit.order
    show_warnings(fit.scores)
    show_truth_agreement(fit.scores)
    more_columns("consensus_table")
    ranking_slot = st.empty()
    spread = compute.default_uncertainty.peek(prefs, dataset.key)
    draw_table(ranking_slot, fit.scores, order)
    if order.size > TABLE_ROWS:
        st.caption(f"Showing the best {TABLE_ROWS:,} of {order.size:,} items; the download "
                   "holds them all.")
    if spread is None and (task := restartable(
            "spread", "Measuring how sure each place is was stopped: the table shows the "
            "consensus order without its likely ranks.", key=dataset.key,
            restart="Measure how sure each place is")):
        # on large data the bootstrap's refits take a while: they start on request
        if prefs.items.size <= compute.AUTO_SPREAD_ENTRIES or st.button(
                "Measure how sure each place is", type="primary", key="spread_run"):
            with task:
                spread = compute.default_uncertainty(prefs, dataset.key)
        else:
            st.info(f"These data are large ({prefs.items.size:,} list entries): measuring "
                    f"how sure each place is refits the consensus {BOOTSTRAP_DRAWS} times, "
                    "so it starts when you press the button (with a progress bar and Stop).")
    if spread is not None and not spread.measurable:
        st.info(unmeasurable_text(spread.unit))
        spread = None
    if spread is not None:
        show_spread(fit, spread, ranking_slot, "Best first. " + spread_text(spread))
    else:
        csv_download("Download the ranking (CSV)", ["rank", "item", "strength"],
                     lambda: ([r + 1, names[i], float(fit.scores[i])]
                              for r, i in enumerate(order)),
                     "consensus_ranking.csv", key="consensus_download")
    alpha = None
else:
    # on data whose α is slow to choose, the page is drawn at once at the provisional α = N
    # (τ = ½); after the page the shell chooses α by the default rule, with a progress bar
    # and Stop, and draws the page again at that α (ui.alpha)
    setting = alpha_widget("slider", "consensus_alpha",
                           label="Trust in the data (α): move right to trust the data more "
                                 "(changes α on every page)")
    alpha = setting.alpha
    st.caption(f"Using {alpha_text(alpha)}: {setting.how}. The order is CoarsenPL fitted by EM "
               "at this α (`rank --method coarsen-pl`); likely ranks come from its tempered "
               "posterior, whose width is set by α more than by the data.")
    task = restartable("consensus", "Computing the consensus was stopped.",
                       key=(dataset.key, alpha), restart="Compute the consensus")
    if not task:
        st.stop()
    with task:
        fit = compute.consensus_fit(prefs, dataset.key, alpha)
    order = fit.order
    # the posterior is drawn at the session's α only: a provisional α is about to change
    post = None if setting.provisional else compute.posterior.peek(prefs, dataset.key, alpha)
    if setting.provisional:
        st.info(f"**Provisional consensus** at {alpha_text(alpha)}, the quick rule (α = N, "
                "τ = ½), while the data choose α by the default rule (where the DIC curve "
                "levels off). It is replaced by the consensus at the data's α, with how sure "
                "each place is, as soon as that is ready.")
    show_warnings(fit.scores)
    show_truth_agreement(fit.scores)
    # the order is drawn at once; the likely ranks join it when the posterior is sampled
    more_columns("consensus_table")
    ranking_slot = st.empty()
    draw_table(ranking_slot, fit.scores, order)
    if order.size > TABLE_ROWS:
        st.caption(f"Showing the best {TABLE_ROWS:,} of {order.size:,} items; the download "
                   "holds them all.")
    if post is None and not setting.provisional and (task := restartable(
            "posterior", "Sampling how sure each place is was stopped: the table shows the "
            "consensus order without its likely ranks.", key=(dataset.key, alpha),
            restart="Sample how sure each place is")):
        with task:
            post = compute.posterior(prefs, dataset.key, alpha)
    if post is not None:
        show_spread(fit, post, ranking_slot,
                    "Best first. “Likely ranks” gives the range of places the item takes in "
                    f"{post.interval_level:.0%} of CoarsenPL's posterior draws at this α: "
                    "their width follows α (a smaller α widens them whatever the data say).")
    else:
        explain(f"Best first. How sure each place is (the likely ranks, "
                f"{PosteriorResult.interval_level:.0%} of the posterior draws, and the chance "
                "of being first) is sampled "
                + ("once the data have chosen α." if setting.provisional
                   else "when you press “Sample how sure each place is”."))
        csv_download("Download the ranking (CSV)", ["rank", "item", "strength"],
                     lambda: ([r + 1, names[i], float(fit.scores[i])]
                              for r, i in enumerate(order)),
                     "consensus_ranking.csv", key="consensus_download")

st.header("Which raters disagree with the consensus?", divider="gray")
JUDGES = {"pl-mix-ranker": "PL-mix (raters): the chance each rater answered at random",
          "pl-mix": "PL-mix (lists): the chance of each list, averaged per rater",
          "consensus": "Agreement with the consensus above"}
# at first the raters are judged by the default fit's own careless model
first_judge = ("pl-mix-ranker" if fit_kind == "default" and fit.extra["per"] == "ranker"
               or fit_kind != "default" and careless_unit(prefs) == "ranker" else "pl-mix")
# the user's choices stay for the session, also after a visit to another page
judge = state.kept_widget(st.radio, "consensus_judge", first_judge, "Judge the raters with",
                          list(JUDGES), format_func=JUDGES.get)
show_all = state.kept_widget(st.toggle, "consensus_all_raters", False,
                             "Show all raters (the chart shows the 40 most doubtful at "
                             "first, and at most 500)")
limit = chart_limit(show_all)
few = too_few_lists_text(prefs)
if few is not None and judge != "consensus":
    st.info(few)
if dataset.careless is not None:
    st.caption("These data mark which raters answered carelessly (by design in a sample or "
               "scenario, or by the noise): they are drawn as filled red dots.")
if judge == "consensus":
    agreement = compute.raters(prefs, dataset.key, alpha)  # α None: the default fit
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
    # the share the raters' own chances add up to (the model's π is held at ½ or less)
    share = (float(np.mean(careless.probability)) if judge == "pl-mix-ranker"
             else careless.pi)
    turned = (" The default fit above reads some answers upside down (best and worst "
              "swapped) and counts them turned over; this mixture has no such kind, so it "
              "counts them as careless." if fit_kind == "default"
              and fit.extra.get("reversed_kept") else "")
    how = "at random or upside down" if turned else "at random"
    explain(f"The mixture model estimates that {share:.0%} of the "
            f"{'raters' if judge == 'pl-mix-ranker' else 'lists'} answered {how}. Each "
            "dot is a rater's posterior chance of being careless"
            + ("." if few is not None and not flagged else
               f"; {flagged} {'rater is' if flagged == 1 else 'raters are'} more likely "
               "careless than careful.") + turned)
    table = {"rater": careless.names, "lists": careless.n_preferences,
             f"chance of answering {how}": careless.probability,
             "stands out": careless.outlier}
    rows = np.argsort(-careless.probability, kind="stable")
with st.expander("Per-rater table"):
    long_table(table, rows, "Download the per-rater table (CSV)", "rater_agreement.csv",
               key="rater_download", key_columns=("rater", list(table)[2]))
with st.expander("How this is computed"):
    st.markdown(
        "**The default consensus** is plain Plackett–Luce (PL-EM), with careless answers "
        "counted for less when the answers show some. PL-mix finds them: every rater (or, "
        "when raters give one list each or are not named, every list) is either careful, "
        "answering by the Plackett–Luce model, or careless, answering at random, and EM "
        "estimates each one's chance of being careless. PL-EM is then fitted again with "
        "each rater's lists counted by their chance of being careful. Where a second test "
        "finds answers written upside down (best and worst swapped), those are a third "
        "kind, and each list also counts turned over by its chance of being upside down. "
        "When a "
        "likelihood-ratio test finds no careless answers it is plain PL-EM. It was chosen "
        "by a study over simulated "
        "data (item exposure × kinds of careless raters × lists per rater × size; see the "
        "reproduction report): it was never clearly worse than plain Plackett–Luce, "
        "clearly better where whole raters answer carelessly, and unlike CoarsenPL at the "
        "knee α it does not follow how often items are shown. **Likely ranks** (the "
        "run of places holding the item in about 90 % of refits) and the "
        "chance of being first come from refitting on the raters resampled at random "
        "(a Bayesian bootstrap), so they reflect how much the raters disagree, and narrow "
        "as more raters answer. Where raters who gave several lists differ item by item more "
        "than chance explains (a random-effects Plackett–Luce model, estimated from the "
        "lists each rater gave), that spread is added: the likely ranks are then where a "
        "further rater like these would place the item, and stay wide however many answer. "
        "Where fewer than three raters compared each pair on "
        "average, or none disagree, resampling measures nothing, and they come from the "
        "plain Plackett–Luce posterior instead; the caption under the table says which. "
        "The command line's `rank --posterior` gives the same numbers. **CoarsenPL** (the "
        "paper's method) is CoarsenPL fitted by EM (paper "
        "Algorithm 1) with prior Gamma(1, 2) and the §6.1 calibration, at the session's α; "
        "its likely ranks come from the exact Gibbs posterior at that α "
        f"({compute.CONSENSUS_DRAWS['n_draws']} draws after "
        f"{compute.CONSENSUS_DRAWS['burn_in']} warm-up sweeps). "
        "Strength is the Plackett–Luce worth: an item with twice the strength of another is "
        "picked first twice as often. **Agreement** is the mean log-probability, per "
        "choice, of a rater's lists under the consensus.")

glossary("consensus", "likely_ranks", "alpha", "tau", "posterior", "log_likelihood")
