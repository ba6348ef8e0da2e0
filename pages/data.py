"""Data: load a sample, upload a file or simulate a scenario; see what was loaded."""

from dataclasses import replace

import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core import PreferenceFormatError  # noqa: E402
from coarsenrank_core.io import FORMATS, example_file, extensions  # noqa: E402
from ui import charts, compute, importer, state  # noqa: E402
from ui.samples import SAMPLES  # noqa: E402
from ui.scenario import simulate_scenario  # noqa: E402
from ui.text import plain  # noqa: E402
from ui.widgets import explain, format_error, show_chart  # noqa: E402

st.title("Data")
st.markdown("Load the rankings to combine. The app starts with a small sample so that every "
            "page works straight away.")

source = st.radio("Where do the rankings come from?",
                  ["A built-in sample", "My own file", "A simulated scenario (for teaching)"],
                  horizontal=True, key="data_source")

if source == "A built-in sample":
    choice = st.selectbox("Sample", list(SAMPLES), format_func=lambda s: SAMPLES[s].title,
                          key="sample_choice")
    st.caption(SAMPLES[choice].description)
    if st.button("Load this sample", type="primary", key="load_sample"):
        state.set_current(compute.load_sample(choice))
        st.success(f"Loaded: {SAMPLES[choice].title}")

elif source == "My own file":
    with st.expander("Which layouts can I upload?"):
        for fmt in FORMATS.values():
            st.markdown(f"**{fmt.title}** ({', '.join(fmt.extensions)}): {fmt.description}")
    upload = st.file_uploader(
        "Rankings file: CSV, Excel, JSON, PrefLib or BLT, up to 50 MB", type=None,
        key="upload_file", help="Accepted endings: " + ", ".join(extensions()))
    if upload is not None:
        data = upload.getvalue()
        importer.new_file(data, upload.name)
        st.subheader("Check how the file was read", divider="gray")
        layout, options = importer.corrections(data, upload.name)
        try:
            result = importer.read_upload(data, upload.name, layout, options)
        except PreferenceFormatError as error:
            format_error(error)
            example = layout if layout != "auto" else "wide"
            st.download_button(f"Download an example {FORMATS[example].title} file",
                               example_file(example),
                               file_name=f"example_{example}{FORMATS[example].extensions[0]}",
                               key="example_download")
            st.info(f"Still loaded: {plain(state.current().name)}")
        else:
            importer.preview(result)
            importer.confirm(result, upload.name)
    truth_upload = st.file_uploader("Optional: the true order of the loaded data (item and "
                                    "score, or items best first)", type=["csv", "txt", "tsv"],
                                    key="upload_truth")
    if truth_upload is not None:
        dataset = state.current()
        try:
            truth = compute.read_truth_upload(truth_upload.getvalue(), truth_upload.name,
                                              dataset.preferences, dataset.key)
        except PreferenceFormatError as error:
            format_error(error)
        else:
            if dataset.truth is None or not (dataset.truth == truth).all():
                state.set_current(replace(dataset, truth=truth))
                st.success("True order loaded: accuracy charts are now available.")

else:
    with st.form("scenario"):
        st.markdown("Build a scenario with a known true order, then see which methods find "
                    "it.")
        left, right = st.columns(2)
        n_items = left.slider("Items", 3, 40, 10)
        n_raters = right.slider("Raters", 5, 500, 60)
        length = left.slider("Items each rater orders", 2, 40, 5)
        careless = right.slider("Careless raters (answer at random), %", 0, 90, 30)
        seed = left.number_input("Seed", 0, 10_000, 1)
        submitted = st.form_submit_button("Create scenario", type="primary")
    if submitted:
        state.set_current(simulate_scenario(n_items, n_raters, min(length, n_items),
                                            careless / 100, int(seed)))
        st.success("Scenario created.")

dataset = state.current()
prefs = dataset.preferences
summary = prefs.summary()
st.header(f"What is loaded: {plain(dataset.name)}", divider="gray")
columns = st.columns(4)
columns[0].metric("Items", summary.n_items)
columns[1].metric("Lists", summary.n_preferences)
columns[2].metric("Raters", summary.n_rankers if prefs.has_rankers else "not recorded")
columns[3].metric("Lists with ties", summary.n_tied_preferences)
if dataset.read_as:
    with st.expander("How this file was read"):
        for line in dataset.read_as:
            st.markdown(plain(line))
for note in dataset.notes:
    st.info(plain(note))

components = prefs.components()
if len(components) > 1:
    names = [", ".join(prefs.item_names[i] for i in c[:6]) + (" …" if c.size > 6 else "")
             for c in components[:5]]
    st.warning(
        f"The items fall into {len(components)} groups that are never compared with each "
        "other, so their scores cannot be compared across groups. Groups: "
        + "; ".join(f"({plain(n)})" for n in names))
never_seen = int((summary.appearances == 0).sum())
if never_seen:
    st.warning(f"{never_seen} items appear in no list; they get the prior's score.")

left, right = st.columns(2)
left.plotly_chart(charts.length_histogram(summary), key="length_chart")
right.plotly_chart(charts.ranker_histogram(summary), key="ranker_chart")
explain("Left: the number of items in each list. Right: how many lists each rater gave; "
        "raters with many lists weigh more in the result.")
show_chart(charts.coverage_chart(summary, prefs.item_names), key="coverage_chart")
explain("Items at the top were ranked least often: their place in the consensus is the least "
        "certain.")

with st.expander("See the first lists as read", expanded=dataset.origin == "upload"):
    rows = []
    for n, pref in enumerate(prefs.to_lists(names=True, stop=25)):
        text = " > ".join(" = ".join(sorted(g)) if isinstance(g, frozenset) else g
                          for g in pref)
        rater = (prefs.ranker_names[prefs.rankers[n]] if prefs.has_rankers
                 and prefs.ranker_names else "")
        rows.append({"rater": rater, "list (best first)": text,
                     "weight": float(prefs.weights[n])})
    st.dataframe(rows, hide_index=True)
