"""Choose α (DIC): sweep α, plot the DIC curve, and keep the α the data prefer."""

import streamlit as st

from coarsenrank_core.alpha import DEFAULT_RULE, alpha_in_range
from coarsenrank_core.dic import DIC_DRAWS, DICResult, auto_alpha_grid
from ui import alpha as session_alpha
from ui import charts, compute, state
from ui.alpha import alpha_text, alpha_widget
from ui.glossary import GLOSSARY, glossary
from ui.phone import column_order, more_columns
from ui.shell import ensure_shell
from ui.tables import dic_rows
from ui.text import alpha_number, number
from ui.widgets import (
    csv_download,
    explain,
    restartable,
    show_chart,
    warn_separate_groups,
)

ensure_shell()

MAX_ALPHAS, MAX_DRAWS, MAX_BURN_IN = 30, 1000, 1000

st.title("Choose α: how much should we trust the data?")
dataset = state.current()
prefs = dataset.preferences
warn_separate_groups(prefs)
n_lists = prefs.total_weight
st.markdown(
    "CoarsenRank looks for the ranking that fits a *neighbourhood* of the data rather than "
    "the data exactly. **α** is the inverse size of that neighbourhood: **a larger α means a "
    "smaller neighbourhood, i.e. trusting the data more** (α = ∞ is the plain model). In "
    f"practice the data's log-likelihood is multiplied by **τ = α / (α + N)**, where N is the "
    f"number of lists (their total weight; here N = {number(n_lists)}): α = N gives τ = 1/2, and a "
    "small α makes every list count for little.")
st.markdown(
    "**How α is chosen by default (on every page and in the command line):** run the DIC "
    "sweep below and take α **where the DIC curve levels off** (the knee of the smoothed "
    "curve, paper §4.5). DIC rewards fitting the data and penalises over-fitting. On real "
    "data its lowest value usually sits at the largest α tried (the curve is still falling), "
    "which would switch the neighbourhood off; the knee keeps it.")
with st.form("dic_form"):
    grid_kind = st.radio("Values of α to try", ["Automatic", "My own list"], horizontal=True,
                         key="dic_grid_kind")
    auto = auto_alpha_grid(prefs.total_weight)
    custom = st.text_input("My own list (comma-separated)",
                           ", ".join(f"{a:g}" for a in auto[::2]), key="dic_custom")
    left, middle, right = st.columns(3)
    burn_in = left.number_input("Warm-up sweeps (discarded)", 0, MAX_BURN_IN,
                                DIC_DRAWS["burn_in"], step=50, key="dic_burn_in",
                                help=GLOSSARY["warm_up"])
    draws = middle.number_input("Posterior draws per α", 5, MAX_DRAWS, DIC_DRAWS["n_draws"],
                                step=10, key="dic_draws", help=GLOSSARY["draws"])
    seed = right.number_input("Seed", 0, 100_000, 0, key="dic_seed")
    st.caption(f"Limits: at most {MAX_ALPHAS} values of α, {number(MAX_DRAWS)} draws and "
               f"{number(MAX_BURN_IN)} warm-up sweeps, so that one run stays within a few "
               "minutes on large data and the server stays responsive for everyone. The "
               "default settings already give a stable curve.")
    run = st.form_submit_button("Run", type="primary")

alphas, grid_ok = None, True
if run and grid_kind == "My own list":
    try:
        alphas = tuple(sorted({float(v) for v in custom.replace(";", ",").split(",")
                               if v.strip()}))
    except ValueError:
        alphas = ()
    in_range = bool(alphas) and all(alpha_in_range(a) for a in alphas)
    grid_ok = in_range and len(alphas) <= MAX_ALPHAS
    if not in_range:
        st.error("Write numbers from 0.000001 to 10¹² (1e12) separated by commas, e.g. 10, "
                 "100, 1000.")
    elif len(alphas) > MAX_ALPHAS:
        st.error(f"Write at most {MAX_ALPHAS} values of α (you wrote {len(alphas)}): each "
                 "value is a full run of the sampler.")
task = restartable("dic", "The DIC run was stopped; press Run to start it again.")
if run and grid_ok:
    with task:
        result = compute.dic(prefs, dataset.key, alphas, int(burn_in), int(draws), int(seed),
                             label="Sampling the posterior for each α:")
    state.store("dic", result)


def show(result) -> None:
    """The curve, the two recommended values of α, and the numbers behind them."""
    shown = state.kept_widget(
        st.multiselect, "dic_curves", ["dic"], "Curves to show", ["dic", "f", "g"],
        format_func={"dic": "DIC", "f": "f (fit)", "g": "g (complexity)"}.get)
    setting = session_alpha.current()
    show_chart(charts.dic_chart(result, shown, setting.alpha), key="dic_chart")
    explain("The diamond marks where the curve levels off (the default rule); the dashed "
            "line is the α the pages use now. Further right means a smaller neighbourhood: "
            "trusting the data more.")
    best, knee = result.best_alpha, result.knee_alpha
    left, right = st.columns(2)
    right.metric("α where the curve levels off (default rule)", alpha_number(knee),
                 help=alpha_text(knee))
    if result.still_falling:
        left.metric("α with the lowest DIC", "not reached",
                    help=f"The lowest DIC is at the end of the grid (α = "
                         f"{alpha_number(best)}): the search stopped there, the curve did "
                         "not bottom out.")
        left.caption("The DIC curve is still falling at the largest α tried.")
    else:
        left.metric("α with the lowest DIC", alpha_number(best), help=alpha_text(best))
    kept = (" A noisy copy shares one α with its original data, so that before and after "
            "are compared at the same α; the curve above is this copy's own, so where it "
            "levels off can differ." if state.current().parent is not None else "")
    st.caption(f"The pages use {alpha_text(setting.alpha)}: {setting.how}.{kept}")
    first, second = st.columns(2)
    # callbacks run before the page, so the chart's dashed line moves in the same click
    if alpha_widget("button", "use_knee", label=f"Use α = {alpha_number(knee)} (levels off)",
                    alpha=knee, rule="knee", where=first, type="primary"):
        st.success(f"Using {alpha_text(knee)} on every page.")
    best_label = (f"Use α = {alpha_number(best)} (largest tried; still falling)"
                  if result.still_falling else f"Use α = {alpha_number(best)} (lowest DIC)")
    if alpha_widget("button", "use_best", label=best_label, alpha=best, rule="dic-min",
                    where=second):
        st.success(f"Using {alpha_text(best)} on every page.")
    with st.expander("The numbers behind the curve"):
        st.markdown("f is the average log-likelihood of the data over posterior draws (fit); "
                    "g is the log-likelihood at the posterior mean minus f (the effective "
                    "complexity); DIC = g − f. Draws come from the exact Gibbs sampler of the "
                    "tempered posterior.")
        rows = dic_rows(result)
        st.dataframe(rows, hide_index=True, column_order=column_order(
            ("α", "DIC = g − f"), more_columns("dic_table")))
        csv_download("Download the curve (CSV)", ["alpha", "tau", "f", "g", "dic"],
                     [list(r.values()) for r in rows], "dic_curve.csv", key="dic_download")


result = state.stored("dic")
if result is None:
    # the curve behind the session's α, when the default rule already drew it (or can
    # draw it at once): no extra click for the curve that chose α
    original = dataset.original.preferences
    if session_alpha.peek() is None and session_alpha.quick_to_choose(original):
        session_alpha.current()
    choice = compute.alpha_choice.peek(original, dataset.original.key, DEFAULT_RULE)
    if choice is not None and isinstance(choice.evidence, DICResult) and \
            dataset.original.key == dataset.key:
        st.caption("The curve the default rule drew when it chose α for these data; press "
                   "**Run** to draw it with other settings.")
        show(choice.evidence)
    else:
        st.info("Press **Run** to draw the DIC curve (a few seconds on the samples).")
else:
    show(result)

st.header("Another rule: cross-validation", divider="gray")
st.markdown("Hold out a fifth of the raters (or of the lists) at a time, fit the consensus on "
            "the rest at each α, and score how likely the held-out answers are. The α with "
            "the best held-out score wins; ties go to the larger α. On the paper's datasets "
            "this picks α = ∞, the plain model.")
task = restartable("cv", "Cross-validation was stopped; press Cross-validate to start it again.")
if st.button("Cross-validate", key="run_cv"):
    with task:
        state.store("cv", compute.alpha_choice(prefs, dataset.key, "cv"))
cv = state.stored("cv")
if cv is not None:
    show_chart(charts.cv_chart(cv.evidence), key="cv_chart")
    explain("Higher is better: the held-out log-likelihood summed over the folds. "
            + cv.describe() + ".")
    if alpha_widget("button", "use_cv", label=f"Use α = {alpha_number(cv.alpha)} "
                    "(cross-validation)", alpha=cv.alpha, rule="cv"):
        st.success(f"Using {alpha_text(cv.alpha)} on every page.")

glossary("alpha", "tau", "dic", "f", "g", "knee", "warm_up", "draws", "posterior",
         "cross_validation")
