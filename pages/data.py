"""Data: load a sample, upload a file, simulate a scenario or open a saved session."""

from dataclasses import replace

import streamlit as st

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.connectivity import separate_groups_text
from coarsenrank_core.exposure import exposure_check
from coarsenrank_core.io import FORMATS, example_file, extensions
from ui import charts, compute, importer, state
from ui.glossary import glossary
from ui.phone import column_order, more_columns
from ui.samples import SAMPLES
from ui.scenario import (
    EXPOSURE_CHOICES,
    SCENARIO_LIMITS,
    SCENARIO_WIDGETS,
    SPREAD_CHOICES,
    scenario_widgets,
    simulate_scenario,
)
from ui.share import SessionFileError, open_session_file
from ui.shell import ensure_shell
from ui.text import count, list_word, plain
from ui.widgets import explain, format_error, show_chart, stop_button

ensure_shell()

#: List entries up to which the Data page fits the consensus at once for its exposure check.
EXPOSURE_CHECK_ENTRIES = 200_000

st.title("Data")
st.markdown("Load the rankings to combine. The app starts with a small sample so that every "
            "page works straight away.")

SOURCES = {"sample": "A built-in sample", "upload": "My own file",
           "simulation": "A simulated scenario (for teaching)", "session": "A saved session"}


def source_of(dataset) -> str:
    """The radio's label for where a dataset came from."""
    if dataset.recipe.startswith("sample:"):
        return SOURCES["sample"]
    return SOURCES.get(dataset.origin, SOURCES["upload"])


loaded = state.current().original
# the scenario builder's settings, created or not, outlive a visit to another source
state.restore_settings("scenario", SCENARIO_WIDGETS)
# the radio shows where the loaded data came from, unless the user has just picked another
recipe = loaded.recipe
state.show_in_widget("data_source", source_of(loaded))
if recipe.startswith("sample:"):
    state.show_in_widget("sample_choice", recipe[7:])
elif recipe.startswith("scenario:"):
    for key, value in scenario_widgets(recipe).items():
        state.show_in_widget(key, value)
source = st.radio("Where do the rankings come from?", list(SOURCES.values()),
                  horizontal=True, key="data_source")

if source == SOURCES["sample"]:
    choice = st.selectbox("Sample", list(SAMPLES), format_func=lambda s: SAMPLES[s].title,
                          key="sample_choice")
    st.caption(SAMPLES[choice].description)
    if st.button("Load this sample", type="primary", key="load_sample"):
        state.set_current(compute.load_sample(choice))
        st.success(f"Loaded: {SAMPLES[choice].title}")

elif source == SOURCES["session"]:
    st.markdown("Open a session file downloaded from “Share or save this view” in the "
                "sidebar: it holds the data, the true order, α, the methods and the noise.")
    saved = st.file_uploader("Session file (.json)", type=["json"], key="upload_session")
    session = None if saved is None else state.uploaded(saved)
    refused = None if session is None else state.upload_refused("session", session.digest)
    if refused is None and session is not None and state.upload_is_new("session",
                                                                       session.digest):
        try:
            opened, session_notes = open_session_file(session.data)
        except SessionFileError as error:
            refused = state.upload_refused("session", session.digest, str(error))
        else:
            state.upload_loaded("session", session.digest)
            st.success(f"Opened the session: {plain(opened.name)}")
            for note in session_notes:
                st.info(plain(note))
    if refused is not None:  # shown again over the page's reruns, without a second read
        st.error(plain(refused), icon="⚠️")
        st.info(f"Still loaded: {plain(state.current().name)}")

elif source == SOURCES["upload"]:
    with st.expander("Which layouts can I upload?"):
        for fmt in FORMATS.values():
            st.markdown(f"**{fmt.title}** ({', '.join(fmt.extensions)}): {fmt.description}")
    upload = st.file_uploader(
        "Rankings file: CSV, Excel, JSON, PrefLib or BLT, up to "
        f"{st.get_option('server.maxUploadSize')} MB", type=None,
        key="upload_file", help="Accepted endings: " + ", ".join(extensions())
        + "; any of them gzip-compressed too (.csv.gz, .jsonl.gz)")
    if upload is not None and importer.reading_stopped():
        st.warning("Reading the file was stopped; nothing has changed. Press 'Read it again' "
                   "to start over, or choose another file.")
        st.button("Read it again", key="read_again")
        st.info(f"Still loaded: {plain(state.current().name)}")
    elif upload is not None:
        file = state.uploaded(upload)
        importer.new_file(file, upload.name)
        st.subheader("Check how the file was read", divider="gray")
        layout, options = importer.corrections(file, upload.name)
        try:
            with importer.stoppable("upload_read"):
                result = importer.read_upload(file, upload.name, layout, options)
        except PreferenceFormatError as error:
            format_error(error)
            example = layout if layout != "auto" else "wide"
            st.download_button(f"Download an example {FORMATS[example].title} file",
                               example_file(example),
                               file_name=f"example_{example}{FORMATS[example].extensions[0]}",
                               key="example_download", on_click="ignore")
            st.info(f"Still loaded: {plain(state.current().name)}")
        else:
            importer.preview(result)
            importer.confirm(result, upload.name)
    truth_upload = st.file_uploader("Optional: the true order of the loaded data (item and "
                                    "score, or items best first)", type=["csv", "txt", "tsv"],
                                    key="upload_truth")
    dataset = state.current()
    read_for = st.session_state.get("truth_upload_for")  # (file id, the data it was read for)
    if truth_upload is not None and read_for is not None \
            and read_for[0] == truth_upload.file_id and read_for[1] != dataset.key:
        st.info(f"The true order '{plain(truth_upload.name)}' was read for the data loaded "
                "before, so it is not applied to these. Remove it (×) and upload the true "
                "order of the data loaded now, if there is one.")
    elif truth_upload is not None:
        try:
            truth = compute.read_truth_upload(state.uploaded(truth_upload), truth_upload.name,
                                              dataset.preferences, dataset.key)
        except PreferenceFormatError as error:
            format_error(error)
        else:
            st.session_state["truth_upload_for"] = (truth_upload.file_id, dataset.key)
            if dataset.truth is None or not (dataset.truth == truth).all():
                state.set_current(replace(dataset, truth=truth))
                st.success("True order loaded: accuracy charts are now available.")

else:
    # plain widgets, not a form: every setting reaches the server as it is moved, so it is
    # kept over a switch of source (a form's values would be lost unless submitted)
    st.markdown("Build a scenario with a known true order, then see which methods find it. "
                "Nothing changes until you press “Create scenario”; your settings stay here "
                "if you look at another source first.")
    left, right = st.columns(2)
    n_items = left.slider("Items", *SCENARIO_LIMITS["n_items"], 10, key="scenario_items")
    n_rankers = right.slider("Raters", *SCENARIO_LIMITS["n_rankers"], 60,
                             key="scenario_raters")
    length = left.slider("Items in each list", 2, SCENARIO_LIMITS["n_items"][1], 5,
                         key="scenario_length")
    lists = right.slider("Lists per rater", *SCENARIO_LIMITS["lists_per_ranker"], 5,
                         key="scenario_lists",
                         help="With one list each, a careless rater cannot be told from "
                              "a careful one who disagrees once; with several, careless "
                              "raters stand out.")
    careless = left.slider("Careless raters (answer at random), %", 0,
                           round(100 * SCENARIO_LIMITS["careless"][1]), 0,
                           key="scenario_careless",
                           help="0 by default: the scenario starts clean, and the Noise "
                                "page adds noise you can see and undo.")
    exposure = right.selectbox("Which items are shown most", list(EXPOSURE_CHOICES),
                               format_func=EXPOSURE_CHOICES.get, index=1,
                               key="scenario_exposure",
                               help="When weaker (or stronger) items are shown more "
                                    "often, methods that count appearances follow the "
                                    "exposure rather than the answers.")
    spread = right.selectbox("Do raters differ item by item?", list(SPREAD_CHOICES),
                             format_func=SPREAD_CHOICES.get, index=0, key="scenario_spread",
                             help="Whether each rater has strengths of their own that stray "
                                  "from the true ones item by item. With several lists per "
                                  "rater the likely ranks measure this and widen to hold "
                                  "it: they show where a further rater would place each "
                                  "item.")
    seed = left.number_input("Seed", *SCENARIO_LIMITS["seed"], 1, key="scenario_seed")
    state.keep_settings("scenario", {key: st.session_state[key] for key in SCENARIO_WIDGETS})
    if st.button("Create scenario", type="primary", key="scenario_create"):
        state.set_current(simulate_scenario(n_items, n_rankers, min(length, n_items),
                                            careless / 100, int(seed), int(lists),
                                            float(exposure), float(spread)))
        # the widgets show what was created: the next run must not put them back on it
        # (that would undo the user's next move)
        for key, value in scenario_widgets(state.current().original.recipe).items():
            state.mark_shown(key, value)
        st.success("Scenario created.")

# data loaded by this page was loaded from the radio's own choice: the next run must not
# put the radio back (only data changed on other pages, or by a link, moves it)
state.mark_shown("data_source", source_of(state.current().original))

dataset = state.current()
prefs = dataset.preferences
summary = prefs.summary()
st.header(f"What is loaded: {plain(dataset.name)}", divider="gray")
columns = st.columns(4)
word = list_word(prefs)
columns[0].metric("Items", f"{summary.n_items:,}")
columns[1].metric("Comparisons" if word == "comparison" else "Lists",
                  f"{summary.n_preferences:,}")
columns[2].metric("Raters", f"{summary.n_rankers:,}" if prefs.has_rankers else "not recorded")
columns[3].metric(f"{word.capitalize()}s with ties", f"{summary.n_tied_preferences:,}")
if dataset.careless:
    st.caption(f"{count(len(dataset.careless), 'rater')} of these data answered carelessly by "
               "design; the rater charts mark them.")
if dataset.read_as:
    with st.expander("How this file was read"):
        for line in dataset.read_as:
            st.markdown(plain(line))
for note in dataset.notes:
    st.info(plain(note))

separate_groups = separate_groups_text(prefs, escape=plain)
if separate_groups is not None:
    st.warning(separate_groups)
never_seen = int((summary.appearances == 0).sum())
if never_seen:
    verb = "appears" if never_seen == 1 else "appear"
    st.warning(f"{count(never_seen, 'item')} {verb} in no {word}; they get the prior's score.")

# the exposure check needs a fit: drawn at once on data of everyday size, else once the
# consensus has been computed on another page
if prefs.items.size <= EXPOSURE_CHECK_ENTRIES or compute.default_fit.peek(prefs, dataset.key):
    with stop_button("exposure"):
        fitted = compute.default_fit(prefs, dataset.key)
    exposure_message = exposure_check(prefs, fitted.scores).message()
    if exposure_message is not None:
        st.warning(exposure_message, icon="⚖️")

if prefs.has_rankers:
    left, right = st.columns(2)
    with left:
        show_chart(charts.length_histogram(summary), key="length_chart")
    with right:
        show_chart(charts.ranker_histogram(summary), key="ranker_chart")
    explain("Left: the number of items in each list. Right: how many lists each rater gave; "
            "raters with many lists weigh more in the result.")
else:  # no rater column: each list counts as its own rater, so there is nothing to chart
    show_chart(charts.length_histogram(summary), key="length_chart")
    explain("The number of items in each list. The file names no raters, so each list "
            "counts as its own rater.")
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
    # on a phone: the rater and the list (cut to fit; a tap shows it whole)
    st.dataframe(rows, hide_index=True, column_order=column_order(
        ("rater", "list (best first)"), more_columns("first_lists")),
        column_config={"list (best first)": st.column_config.TextColumn(width="medium")})

glossary("consensus", "alpha")
