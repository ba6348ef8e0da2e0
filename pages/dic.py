"""Choose α (DIC): sweep α, plot the DIC curve, and keep the α the data prefer."""

import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core.dic import DIC_DRAWS, auto_alpha_grid  # noqa: E402
from ui import charts, compute, state  # noqa: E402
from ui.widgets import alpha_text, csv_download, explain, show_chart  # noqa: E402

st.title("Choose α: how much should we trust the data?")
dataset = state.current()
prefs = dataset.preferences
n_lists = prefs.total_weight
st.markdown(
    "CoarsenRank looks for the ranking that fits a *neighbourhood* of the data rather than "
    "the data exactly. **α** is the inverse size of that neighbourhood: **a larger α means a "
    "smaller neighbourhood, i.e. trusting the data more** (α = ∞ is the plain model). In "
    f"practice the data's log-likelihood is multiplied by **τ = α / (α + N)**, where N is the "
    f"number of lists (their total weight; here N = {n_lists:g}): α = N gives τ = 1/2, and a "
    "small α makes every list count for little.")
st.markdown(
    "**How α is chosen by default (on every page and in the command line):** run the DIC "
    "sweep below and take α **where the DIC curve levels off** (the knee of the smoothed "
    "curve, paper §4.4). DIC rewards fitting the data and penalises over-fitting. On real "
    "data its lowest value usually sits at the largest α tried (the curve is still falling), "
    "which would switch the neighbourhood off; the knee keeps it.")
with st.form("dic_form"):
    grid_kind = st.radio("Values of α to try", ["Automatic", "My own list"], horizontal=True,
                         key="dic_grid_kind")
    auto = auto_alpha_grid(prefs.total_weight)
    custom = st.text_input("My own list (comma-separated)",
                           ", ".join(f"{a:g}" for a in auto[::2]), key="dic_custom")
    left, middle, right = st.columns(3)
    burn_in = left.number_input("Warm-up sweeps (discarded)", 0, 5000, 100, step=50,
                                key="dic_burn_in")
    draws = middle.number_input("Posterior draws per α", 5, 5000, DIC_DRAWS["n_draws"],
                                step=10, key="dic_draws")
    seed = right.number_input("Seed", 0, 100_000, 0, key="dic_seed")
    run = st.form_submit_button("Run", type="primary")

alphas, grid_ok = None, True
if run and grid_kind == "My own list":
    try:
        alphas = tuple(sorted({float(v) for v in custom.replace(";", ",").split(",")
                               if v.strip()}))
    except ValueError:
        alphas = ()
    grid_ok = bool(alphas) and min(alphas) > 0
    if not grid_ok:
        st.error("Write positive numbers separated by commas, e.g. 10, 100, 1000.")
if run and grid_ok:
    result = compute.dic(prefs, dataset.key, alphas, int(burn_in), int(draws), int(seed),
                         label="Sampling the posterior for each α:")
    state.store("dic", result)


def show(result) -> None:
    """The curve, the two recommended values of α, and the numbers behind them."""
    shown = st.multiselect("Curves to show", ["dic", "f", "g"], default=["dic"],
                           format_func={"dic": "DIC", "f": "f (fit)", "g": "g (complexity)"}.get,
                           key="dic_curves")
    setting = state.alpha_setting()
    show_chart(charts.dic_chart(result, shown, setting.alpha), key="dic_chart")
    explain("The diamond marks where the curve levels off (the default rule); the dashed "
            "line is the α the pages use now. Further right means a smaller neighbourhood: "
            "trusting the data more.")
    best, knee = result.best_alpha, result.knee_alpha
    left, right = st.columns(2)
    right.metric("Where the curve levels off (default rule)", alpha_text(knee))
    if result.still_falling:
        left.metric("Lowest DIC", "still falling at the largest α tried",
                    help=f"The lowest DIC is at the end of the grid (α = {best:g}): the "
                         "search stopped there, the curve did not bottom out.")
    else:
        left.metric("Lowest DIC", alpha_text(best))
    st.caption(f"The pages use {alpha_text(setting.alpha)}: {setting.how}.")
    first, second = st.columns(2)
    if first.button(f"Use α = {knee:g} (levels off)", type="primary", key="use_knee"):
        state.set_alpha(knee, "knee")
        st.success(f"Using {alpha_text(knee)} on every page.")
    best_label = (f"Use α = {best:g} (largest tried; still falling)" if result.still_falling
                  else f"Use α = {best:g} (lowest DIC)")
    if second.button(best_label, key="use_best"):
        state.set_alpha(best, "dic-min")
        st.success(f"Using {alpha_text(best)} on every page.")
    with st.expander("The numbers behind the curve"):
        st.markdown("f is the average log-likelihood of the data over posterior draws (fit); "
                    "g is the log-likelihood at the posterior mean minus f (the effective "
                    "complexity); DIC = g − f. Draws come from the exact Gibbs sampler of the "
                    "tempered posterior.")
        rows = [dict(alpha=a, tau=t, f=f, g=g, DIC=d) for a, t, f, g, d in
                zip(result.alphas, result.taus, result.f, result.g, result.dic)]
        st.dataframe(rows, hide_index=True)
        csv_download("Download the curve (CSV)", ["alpha", "tau", "f", "g", "dic"],
                     [list(r.values()) for r in rows], "dic_curve.csv", key="dic_download")


result = state.stored("dic")
if result is None:
    st.info("Press **Run** to draw the DIC curve (a few seconds on the samples).")
else:
    show(result)

st.header("Another rule: cross-validation", divider="gray")
st.markdown("Hold out a fifth of the raters (or of the lists) at a time, fit the consensus on "
            "the rest at each α, and score how likely the held-out answers are. The α with "
            "the best held-out score wins; ties go to the larger α. On the paper's datasets "
            "this picks α = ∞, the plain model.")
if st.button("Cross-validate", key="run_cv"):
    state.store("cv", compute.alpha_choice(prefs, dataset.key, "cv"))
cv = state.stored("cv")
if cv is not None:
    show_chart(charts.cv_chart(cv.evidence), key="cv_chart")
    explain("Higher is better: the held-out log-likelihood summed over the folds. "
            + cv.describe() + ".")
    cv_label = "∞" if cv.alpha == float("inf") else f"{cv.alpha:g}"
    if st.button(f"Use α = {cv_label} (cross-validation)", key="use_cv"):
        state.set_alpha(cv.alpha, "cv")
        st.success(f"Using {alpha_text(cv.alpha)} on every page.")
