"""Home: what the tool does, where to start, and what is loaded."""

import streamlit as st

from ui import poll, state
from ui.glossary import glossary
from ui.shell import PAGES, START_HERE, ensure_shell
from ui.text import plain
from ui.widgets import dataset_card

ensure_shell()

st.title("CoarsenRank: one fair ranking from many people's rankings")
st.markdown(
    "Many people put the same things in order: pizzas in a survey, essays in peer grading, "
    "photos in a crowd task. This tool combines their rankings into one consensus order and "
    "says how sure each place is. Its default answer is the method our measurements support "
    "best: plain **Plackett–Luce**, with careless raters counted for less when the answers "
    "show some: **PL-mix** treats every rater (or list) as careful or careless, and each "
    "counts by its chance of being careful. Each item's **likely ranks** are the "
    "run of places that holds it in about "
    "90 % of refits on the raters resampled at random (or, when too few raters compared "
    "the same items for that, of the model's posterior draws): they narrow as more people "
    "answer and widen when people disagree about it. When raters who gave several lists "
    "differ item by item more than chance explains, the likely ranks hold that too: they "
    "are where a further rater like these would place the item. The paper's method, "
    "**CoarsenRank** "
    "(Pan et al., JMLR 2022), which fits a neighbourhood of the data rather than the "
    "data exactly, is one click away on every page, next to CrowdBT, PeerGrader and the "
    "classic methods.")
st.markdown(
    "**What our measurements show** (see the Noise page and `reports/`): when some raters "
    "answer at random, the models of careless raters find the true order clearly better "
    "than plain Plackett–Luce, and they are never clearly worse. CoarsenRank scores like "
    "plain Plackett–Luce when every item is shown equally often; it gains when the items "
    "shown more often are also the better ones, as on the paper's datasets, and loses "
    "badly when they are the worse ones. Against a coordinated group as large as the "
    "honest raters, no method helps.")

st.subheader("Start here")
# the same pages, in the same order, as the sidebar (ui.shell.PAGES)
for path, title, icon, _ in PAGES[1:]:
    st.page_link(path, label=f"{title} · {START_HERE[path]}", icon=icon)

st.subheader("Join a live poll")
st.caption("Your teacher gave you a code: type it here.")
poll.join_box()

glossary("consensus", "likely_ranks", "alpha", "pairwise_accuracy", "posterior")

st.subheader("Loaded now")
dataset = state.current()
dataset_card(dataset)
if dataset.description:
    st.caption(plain(dataset.description))
