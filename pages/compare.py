"""Compare methods: accuracy, agreement and time; robustness to noise; time against data size."""

import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core.compare import DEFAULT_COMPARISON  # noqa: E402
from coarsenrank_core.registry import METHODS  # noqa: E402
from ui import charts, compute, state  # noqa: E402
from ui.widgets import (  # noqa: E402
    alpha_input_text,
    alpha_text,
    csv_download,
    explain,
    parse_alpha,
    show_chart,
)

st.title("Compare methods")
st.markdown("Run several rank-aggregation methods on the loaded data and compare how close "
            "they get to the true order (when it is known) and how long they take.")

dataset = state.current()
prefs = dataset.preferences
setting = state.alpha_setting()

methods = st.multiselect("Methods (used by all three sections of this page)", list(METHODS),
                         default=list(DEFAULT_COMPARISON), format_func=lambda m: METHODS[m].name,
                         key="compare_methods")
# the box shows the session's α, also after another page has changed it
if (st.session_state.get("_compare_alpha_shown") != setting.alpha
        or "compare_alpha" not in st.session_state):
    st.session_state["compare_alpha"] = alpha_input_text(setting.alpha)
    st.session_state["_compare_alpha_shown"] = setting.alpha
with st.form("compare_form"):
    typed = st.text_input("α for the CoarsenRank methods (a number or inf; changing it "
                          "changes α on every page)", key="compare_alpha")
    repeats = st.slider("Repeats (for timing)", 1, 5, 1, key="compare_repeats")
    run = st.form_submit_button("Run the comparison", type="primary")

if run:
    value = parse_alpha(typed)
    if value is None:
        st.error("α must be a positive number or inf.")
        run = False
    elif value != setting.alpha:
        state.set_alpha(value, "typed")
        st.session_state["_compare_alpha_shown"] = value
        setting = state.alpha_setting()
alpha = setting.alpha
st.caption(f"CoarsenRank methods use {alpha_text(alpha)} ({setting.how}), the α of every "
           "page.")
with st.expander("What the methods are"):
    for method in METHODS.values():
        st.markdown(f"**{method.name}** — {method.summary} *({method.reference})*")

if run and not methods:
    st.error("Choose at least one method.")
elif run:
    result = compute.comparison(prefs, dataset.key, dataset.truth, tuple(methods), alpha,
                                int(repeats), label="Running the methods: fit")
    state.store("compare", result)

result = state.stored("compare")
if result is not None:
    failed = [r for r in result.rows if not r.ok]
    for row in failed:
        st.warning(f"{row.name} did not run: {row.error}")
    if result.has_truth:
        show_chart(charts.accuracy_chart(result), key="accuracy_chart")
        explain("Taller is better: the share of item pairs each method puts in the true "
                "order (left) and Kendall's τ-b (right, 1 = identical order).")
        with st.expander("Do the methods agree with each other?"):
            show_chart(charts.agreement_heatmap(result), key="agreement_chart_truth")
    else:
        show_chart(charts.agreement_heatmap(result), key="agreement_chart")
        explain("No true order is loaded, so this shows how alike the methods' orders are: "
                "1 means identical.")
    show_chart(charts.timing_chart(result), key="timing_chart")
    explain("Lower is faster; the scale is logarithmic, so each grid line is ten times "
            "slower. Error bars show the spread over repeats.")
    records = result.records()
    st.dataframe(records, hide_index=True)
    csv_download("Download the results (CSV)", list(records[0]),
                 [list(r.values()) for r in records], "comparison.csv", key="compare_download")

st.header("Robustness: what if more raters answer at random?", divider="gray")
if dataset.truth is None:
    st.info("This needs a true order: load a sample, simulate a scenario, or upload a truth "
            "file on the Data page.")
else:
    with st.form("robustness_form"):
        seeds = st.slider("Repetitions per noise level", 1, 10, 3, key="robust_seeds")
        robust_run = st.form_submit_button("Draw the robustness curve")
    if robust_run and not methods:
        st.error("Choose at least one method above.")
    elif robust_run:
        curve = compute.robustness(prefs, dataset.key, dataset.truth, tuple(methods), alpha,
                                   int(seeds), label="Adding noise and refitting: fit")
        state.store("robustness", curve)
    curve = state.stored("robustness")
    if curve is not None:
        show_chart(charts.robustness_chart(curve), key="robustness_chart")
        explain("Each line is a method; the band shows the spread over repetitions. A robust "
                "method's line stays high as the share of random answers grows.")

st.header("Scale: how does the time grow with the data?", divider="gray")
with st.form("scale_form"):
    st.caption("Copies the data ×1, ×10, ×50 and ×100 and times 15 iterations of each method, "
               "as in the paper's Table “Ablation_size”.")
    scale_run = st.form_submit_button("Run the scale test")
if scale_run and not methods:
    st.error("Choose at least one method above.")
elif scale_run:
    timing = compute.scale(prefs, dataset.key, tuple(methods), alpha,
                           label="Timing the magnified data: fit")
    state.store("scale", timing)
timing = state.stored("scale")
if timing is not None:
    show_chart(charts.scale_chart(timing), key="scale_chart")
    explain("Both axes are logarithmic: a line parallel to the diagonal means the time grows "
            "in proportion to the data.")
