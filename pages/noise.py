"""Noise: corrupt a copy of the data in a chosen way, compare before with after, switch back."""

import streamlit as st

from coarsenrank_core.noise import NOISE_TYPES
from ui import charts, compute, state
from ui.alpha import alpha_text, alpha_widget
from ui.consensus_view import too_few_lists_text
from ui.glossary import glossary
from ui.noise_report import before_after, make_noisy_copy, rater_check
from ui.phone import column_order, more_columns
from ui.samples import SAMPLES
from ui.scenario import TEACHING
from ui.shell import ensure_shell
from ui.tables import ACCURACY_COLUMNS, before_after_rows
from ui.text import count, plain
from ui.widgets import (
    chart_limit,
    explain,
    restartable,
    show_chart,
    warn_separate_groups,
)

ensure_shell()

st.title("Noise")
st.markdown("Make a noisy copy of the loaded data to see how each method copes. The original "
            "stays safe, and both stay one click away.")

dataset = state.current()
original = dataset.original
copy = state.noisy_copy()
warn_separate_groups(dataset.preferences, "Pairs across these groups that flip in a noisy "
                     "copy are placed by the prior, not by the answers.")
if dataset.parent is not None:
    setting = alpha_widget("shown", label=f"You are looking at a noisy copy of "
                           f"“{plain(original.name)}”. It keeps the original's {{alpha}} "
                           "({how}), so before and after are compared at the same α.",
                           draw=st.info)
    if st.button("Switch to the original data", key="noise_revert"):
        state.set_current(original)
        st.rerun()
else:
    setting = alpha_widget("shown", label="The consensus before and after is compared at "
                           "{alpha} ({how}); the noisy copy keeps this α.")
    if copy is not None:
        st.info("You are looking at the original data; your noisy copy is kept.")
        if st.button("Switch to the noisy copy", key="noise_switch"):
            state.set_current(copy)
            st.rerun()

if dataset.noise is not None and dataset.noise.kind in NOISE_TYPES:
    # the controls show the settings of the noisy copy on screen (e.g. opened from a link)
    made = dataset.noise
    state.show_in_widget("noise_kind", made.kind)
    state.show_in_widget(f"noise_level_{made.kind}", float(made.level))
    state.show_in_widget("noise_seed", int(made.seed))
kind = st.selectbox("What kind of noise?", list(NOISE_TYPES),
                    format_func=lambda k: NOISE_TYPES[k].label, key="noise_kind")
noise = NOISE_TYPES[kind]
st.caption(noise.description)
low, high, default = noise.range
# the defaults go into the session first: a widget given both a value and a session
# value (a noisy copy's settings shown above) makes Streamlit warn on every run
st.session_state.setdefault(f"noise_level_{kind}", float(default))
st.session_state.setdefault("noise_seed", 0)
with st.form("noise_form"):
    level = st.slider(f"How much? ({noise.parameter})", float(low), float(high),
                      step=0.05, key=f"noise_level_{kind}")
    seed = st.number_input("Seed (the same seed gives the same noise)", 0, 100_000,
                           key="noise_seed")
    apply = st.form_submit_button("Make the noisy copy", type="primary")

tasks = {task: restartable(task, "Stopped; press the button again to start over.")
         for task in ("noise", "noise_methods")}
if apply:
    with tasks["noise"]:
        make_noisy_copy(kind, float(level), int(seed))
    st.rerun()

report = dataset.noise
if report is not None:
    st.subheader("What changed")
    if report.unchanged:
        st.warning(f"This noise changed nothing on these data. {report.unchanged}")
    first, second, third = st.columns(3)
    if report.lists_after < report.lists_before:  # answers left out, none altered
        first.metric("Lists kept", f"{report.lists_after:,} of {report.lists_before:,}")
        second.metric("Lists left out", f"{report.lists_before - report.lists_after:,}",
                      help="The noise left these lists out; the lists kept are unchanged.")
    else:
        first.metric("Lists altered", f"{report.fraction_altered:.0%}")
        second.metric("How far an altered list moved", f"{report.mean_distance:.0%}",
                      help="Mean share of item pairs whose order changed in an altered list "
                           "(normalised Kendall distance to its source).")
    third.metric("Consensus pairs that flipped", f"{report.consensus_distance}",
                 help=f"Kendall distance between the CoarsenPL consensus orders before and "
                      f"after, out of {count(report.consensus_pairs, 'item pair')}.")
    st.caption(f"{report.label}, level {report.level:g}, seed {report.seed}; both consensus "
               f"orders at {alpha_text(setting.alpha)}.")

    st.subheader("The consensus before and after")
    view = before_after(original, dataset, setting.alpha)
    rows = view.rows()
    # on a phone: the place, the noisy copy's item and how it moved; the rest behind a switch
    more = more_columns("before_after")
    st.dataframe(charts.highlight_moved(rows), hide_index=True, key="before_after_table",
                 column_order=column_order(("place", "noisy copy", "moved (noisy copy)"), more))
    moved = sum(1 for r in rows if r["moved (noisy copy)"])
    shown = ("Left: the consensus of the original data; right: of the noisy copy" if more
             else "The consensus of the noisy copy (switch on “More columns” to see the "
                  "original's beside it)")
    explain(f"{shown} (CoarsenPL by EM at the same α). {moved} of "
            f"{count(len(rows), 'place')} changed item; ▲ means the item moved up in the "
            "noisy copy, ▼ down (highlighted).")

    st.subheader("Each method before and after")
    methods = tuple(state.methods())
    st.caption("The methods chosen on “Compare methods”: "
               + ", ".join(charts.method_name(m) for m in methods) + ".")
    if dataset.truth is None:
        st.info("Accuracy needs a true order: load a sample or a scenario, or upload a truth "
                "file on the Data page.")
    elif st.button("Fit every method before and after", key="noise_methods") or state.stored(
            "noise_methods") is not None:
        with tasks["noise_methods"]:
            before = compute.comparison(original.preferences, original.key, original.truth,
                                        methods, setting.alpha, 1,
                                        label="Fitting the original:")
            after = compute.comparison(dataset.preferences, dataset.key, dataset.truth,
                                       methods, setting.alpha, 1,
                                       label="Fitting the noisy copy:")
        state.store("noise_methods", True)
        show_chart(charts.before_after_chart(before, after), key="before_after_chart")
        explain("Share of item pairs each method puts in the true order, on the original "
                "data and on the noisy copy; the axis starts at 0.5, what guessing gets.")
        st.dataframe(before_after_rows(before, after), hide_index=True,
                     column_config=ACCURACY_COLUMNS, column_order=column_order(("method", "change"),
                                               more_columns("noise_methods_table")))

    st.subheader("Which raters were made noisy, and which do the models flag?")
    check = rater_check(dataset)
    too_few = too_few_lists_text(dataset.preferences)
    if check is None:
        st.info("The data have no rater names, so raters cannot be checked.")
    elif too_few is not None and not check.flagged:
        st.info(too_few)
    else:
        if too_few is not None:
            st.caption(too_few)
        if original.careless is None:
            st.caption("Only the raters this noise changed are known; any careless raters "
                       "already in the original data are not marked, so a model that flags "
                       "them counts as a false alarm here.")
        left, middle, right = st.columns(3)
        left.metric("Raters made noisy", len(check.noisy),
                    help="Raters the noise changed: the spammers chosen, or raters with at "
                         "least half of their lists altered (a rater with one altered list "
                         "among several is still counted as careful).")
        middle.metric("Flagged by PL-mix (raters)", len(check.flagged))
        right.metric("Flagged and noisy", check.hits)
        first, second = st.columns(2)
        first.metric("Precision", "—" if check.precision is None else f"{check.precision:.0%}",
                     help="Of the raters the model flags, the share that were made noisy.")
        second.metric("Recall", "—" if check.recall is None else f"{check.recall:.0%}",
                      help="Of the raters made noisy, the share the model flags.")
        careless = compute.careless(dataset.preferences, dataset.key, "pl-mix-ranker")
        show_all = state.kept_widget(st.toggle, "noise_all_raters", False,
                                     "Show all raters (at most 500)")
        show_chart(charts.careless_chart(careless, truth=check.noisy,
                                         max_raters=chart_limit(show_all)),
                   key="noise_rater_chart")
        explain("Each dot is a rater's chance of answering at random according to PL-mix "
                "(raters); filled red dots are the raters made noisy (or careless in the "
                "scenario), hollow blue dots the others.")
else:
    st.info("Make a noisy copy above to compare the consensus, the methods and the raters "
            "before and after.")
    check = rater_check(dataset)
    if check is not None and check.noisy:
        st.caption(f"These data already hold {count(len(check.noisy), 'careless rater')} "
                   "(marked by the scenario); the rater charts can colour them.")

glossary("precision", "recall", "kendall_distance", "consensus")

st.header("What helps, and what does not", divider="gray")
st.markdown("Two built-in scenarios show what our measurements find (5 seeds each, "
            "`reports/teaching_scenarios.csv`). Load one, then run “Compare methods”.")
for sample_id in ("careless", "campaign"):
    sample = SAMPLES[sample_id]
    left, right = st.columns([3, 1])
    left.markdown(f"**{sample.title}.** {TEACHING[sample.scenario]}")
    if right.button("Load this scenario", key=f"load_{sample_id}"):
        state.set_current(compute.load_sample(sample_id))
        st.rerun()
