"""Compare methods: accuracy, agreement and time; robustness to noise; time against data size."""

import streamlit as st

from coarsenrank_core.experiments import DEFAULT_FACTORS
from coarsenrank_core.metrics import partial_truth_note
from coarsenrank_core.registry import METHODS
from ui import alpha as session_alpha
from ui import charts, compute, state
from ui.alpha import alpha_text, alpha_widget
from ui.charts import ROBUSTNESS_SHOWN
from ui.glossary import glossary
from ui.phone import column_order, more_columns, phone_screen
from ui.shell import ensure_shell
from ui.tables import comparison_table
from ui.text import plain
from ui.widgets import (
    csv_download,
    explain,
    restartable,
    show_chart,
    warn_separate_groups,
)

ensure_shell()

st.title("Compare methods")
st.markdown("Run several rank-aggregation methods on the loaded data and compare how close "
            "they get to the true order (when it is known) and how long they take.")

dataset = state.current()
prefs = dataset.preferences
warn_separate_groups(prefs, "The accuracy against the true order counts the pairs across "
                     "these groups too, which no answer decides.")

# the chosen methods live in the session (and the link), so they survive leaving the page
state.show_in_widget("compare_methods", state.methods())
methods = st.multiselect("Methods (used by all three sections of this page)", list(METHODS),
                         format_func=lambda m: METHODS[m].name, key="compare_methods")
if methods != state.methods():
    state.set_methods(methods)
    state.mark_shown("compare_methods", list(methods))
with st.form("compare_form"):
    # the box shows the session's α, also after another page has changed it
    typed = alpha_widget("typed", "compare_alpha",
                         label="α for the CoarsenRank methods (a number or inf; changing it "
                               "changes α on every page)")
    runs = st.slider("Timing runs per method (the chart shows the median)", 3, 7,
                     compute.TIMING_RUNS, key="compare_repeats")
    run = st.form_submit_button("Run the comparison", type="primary")

run = run and typed is not None  # a typed α that is not one says so and runs nothing
setting = session_alpha.current()
alpha = setting.alpha
st.caption(f"CoarsenRank methods use {alpha_text(alpha)} ({setting.how}), the α of every "
           f"page. CoarsenPL (Gibbs) runs {compute.COMPARE_DRAWS['n_draws']} posterior draws "
           f"after {compute.COMPARE_DRAWS['burn_in']} warm-up sweeps here, fewer than the "
           "Consensus page's, because the comparison needs only its order.")
with st.expander("What the methods are"):
    for method in METHODS.values():
        st.markdown(f"**{method.name}** — {method.summary} *({method.reference})*")

tasks = {task: restartable(task, f"{what} was stopped; press its button to start it again.")
         for task, what in (("compare", "The comparison"), ("robustness", "The robustness curve"),
                            ("scale", "The scale test"))}
if run and not methods:
    st.error("Choose at least one method.")
elif run:
    with tasks["compare"]:
        result = compute.comparison(prefs, dataset.key, dataset.truth, tuple(methods), alpha,
                                    int(runs), label="Running and timing the methods: fit")
        timing = compute.timings(result)
    state.store("compare", (result, timing))

stored = state.stored("compare")
if stored is not None:
    result, timing = stored
    failed = [r for r in result.rows if not r.ok]
    for row in failed:
        st.warning(f"{row.name} did not run: {plain(row.error)}")
    if result.has_truth:
        show_chart(charts.accuracy_chart(result), key="accuracy_chart")
        explain("Further right is better: the share of item pairs each method puts in the "
                "true order. The axis starts at 0.5, what a random order gets.")
        partial = (None if dataset.truth is None else
                   partial_truth_note(dataset.truth, prefs.item_names))
        if partial is not None:
            st.info(plain(partial))
        with st.expander("Do the methods agree with each other?"):
            show_chart(charts.agreement_heatmap(result, phone_screen()),
                       key="agreement_chart_truth")
    else:
        show_chart(charts.agreement_heatmap(result, phone_screen()), key="agreement_chart")
        explain("No true order is loaded, so this shows how alike the methods' orders are: "
                "1 (or 100%) means identical.")
    if timing.methods:
        show_chart(charts.timing_chart(timing), key="timing_chart")
        explain(f"Further left is faster. Each dot is the median of {timing.runs} runs; the "
                "bar spans the fastest to the slowest run. The axis is logarithmic: each grid "
                "line is ten times slower.")
    header, rows = comparison_table(result, timing)
    # on a phone: the method and its accuracy; the rest behind "More columns"
    more = more_columns("comparison_table")
    st.dataframe([dict(zip(header, r)) for r in rows], hide_index=True,
                 column_order=column_order(header[:2], more))
    csv_download("Download the results (CSV)", header, rows, "comparison.csv",
                 key="compare_download")

st.header("Robustness: what if more raters answer at random?", divider="gray")
if dataset.truth is None:
    st.info("This needs a true order: load a sample, simulate a scenario, or upload a truth "
            "file on the Data page.")
else:
    with st.form("robustness_form"):
        seeds = st.slider("Repetitions per noise level", 1, 10, 3, key="robust_seeds")
        st.caption(compute.robustness_note(methods, stored[1] if stored else None))
        robust_run = st.form_submit_button("Draw the robustness curve")
    if robust_run and not methods:
        st.error("Choose at least one method above.")
    elif robust_run:
        with tasks["robustness"]:
            curve = compute.robustness(prefs, dataset.key, dataset.truth, tuple(methods),
                                       alpha, int(seeds),
                                       label="Adding noise and refitting: fit")
        state.store("robustness", curve)
    curve = state.stored("robustness")
    if curve is not None:
        shown = st.multiselect(
            f"Methods on the chart (up to {ROBUSTNESS_SHOWN} at first, so the bands stay "
            "readable)", list(curve.methods), default=charts.first_shown(curve.methods),
            format_func=charts.method_name, key="robust_shown")
        show_chart(charts.robustness_chart(curve, shown), key="robustness_chart")
        explain("Each line is a method; the band shows ± one standard deviation over "
                "repetitions. A robust method's line stays high as the share of random "
                "answers grows; 0.5 is what guessing gets.")

st.header("Scale: how does the time grow with the data?", divider="gray")
magnify = compute.scale_factors(prefs)
with st.form("scale_form"):
    factors = [f"×{f}" for f in magnify]
    copies = (f"{', '.join(factors[:-1])} and {factors[-1]}" if len(factors) > 1
              else factors[0])
    st.caption(f"Copies the data {copies} and times 15 iterations of each method, as in the "
               "paper's Table “Ablation_size”.")
    if magnify != DEFAULT_FACTORS:
        st.caption(f"These data are large: the copies stop at ×{magnify[-1]} (the paper goes "
                   f"to ×{DEFAULT_FACTORS[-1]}), so that the largest holds at most "
                   f"{compute.SCALE_ENTRIES:,} list entries.")
    scale_run = st.form_submit_button("Run the scale test")
if scale_run and not methods:
    st.error("Choose at least one method above.")
elif scale_run:
    with tasks["scale"]:
        scaling = compute.scale_within(prefs, dataset.key, tuple(methods), alpha, magnify,
                                       label="Timing the magnified data: fit")
    state.store("scale", scaling)
scaling = state.stored("scale")
if scaling is not None:
    show_chart(charts.scale_chart(scaling), key="scale_chart")
    explain("Both axes are logarithmic. The dotted grey line grows in proportion to the data: "
            "a method parallel to it takes ten times as long on ten times the data.")

glossary("pairwise_accuracy", "kendall_tau_b", "tau", "converged", "median_runs", "alpha")
