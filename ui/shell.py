"""The app shell: the page list, the shared sidebar, and a guard against legacy page routing."""

from __future__ import annotations

import contextvars
import logging

import streamlit as st

from . import alpha, share, state
from .alpha import alpha_text
from .phone import phone_fixes
from .text import count, list_word, plain
from .widgets import dataset_card

_IN_SHELL = contextvars.ContextVar("in_shell", default=False)
_LOG = logging.getLogger("coarsenrank.dashboard")

# (file, title, icon, url path); the url path equals the file name so that a direct link
# resolves to the same page whichever way Streamlit first routes it.
PAGES = (
    ("pages/home.py", "Home", ":material/home:", "home"),
    ("pages/data.py", "Data", ":material/upload_file:", "data"),
    ("pages/noise.py", "Noise", ":material/grain:", "noise"),
    ("pages/dic.py", "Choose α (DIC)", ":material/tune:", "dic"),
    ("pages/compare.py", "Compare methods", ":material/leaderboard:", "compare"),
    ("pages/consensus.py", "Consensus ranking", ":material/format_list_numbered:", "consensus"),
    ("pages/poll.py", "Live poll", ":material/how_to_vote:", "poll"),
)

#: What each page is for, in a few words (the Home page's "Start here" list).
START_HERE = {
    "pages/data.py": "load your rankings, or keep the sample",
    "pages/noise.py": "for teaching: add careless raters and compare before and after",
    "pages/dic.py": "see how the data chose how much to trust it (α)",
    "pages/compare.py": "compare with other methods (accuracy and time)",
    "pages/consensus.py": "read the consensus ranking and how sure it is",
    "pages/poll.py": "run a ranking poll in class: students rank on their phones",
}


def _pages() -> list:
    return [st.Page(path, title=title, icon=icon, url_path=url, default=i == 0)
            for i, (path, title, icon, url) in enumerate(PAGES)]


def _setting():
    """The session's α, chosen here only when that is quick (:func:`ui.alpha.quick_to_choose`)."""
    setting = alpha.peek()
    if setting is None and alpha.quick_to_choose(state.current().original.preferences):
        try:
            setting = alpha.current()
        except Exception:  # noqa: BLE001 - the sidebar must never break a page
            _LOG.exception("choosing alpha failed")
    return setting


def _sidebar(slot) -> None:
    with slot:
        phone_fixes()
        dataset = state.current()
        dataset_card(dataset)
        # the sidebar chooses α itself only for small data (a fraction of a second); on large
        # data the pages that use α start the choice
        setting = _setting()
        if setting is None:
            st.caption("α (CoarsenRank's trust in the data): chosen from the data by the "
                       "default rule (where the DIC curve levels off) as soon as a page needs "
                       "it; every page then uses it.")
        else:
            kept = " Kept from the original data." if dataset.parent is not None else ""
            st.caption(f"Chosen {alpha_text(setting.alpha)}: {setting.how}.{kept} Used by "
                       "every CoarsenRank method on every page (CoarsenPL at α on the "
                       "Consensus page, Compare, Noise); the default consensus needs no α.")
        _share_box()


def _student_ballot(url_path: str) -> bool:
    """Whether the page is a student's poll ballot (a poll's code without its teacher key):
    the analyst's status line (the session's data and α) has no place there."""
    return url_path == "poll" and "poll" in st.query_params and "key" not in st.query_params


def _status_line(slot) -> None:
    """One line at the top of every page: what is loaded and the α (visible on a phone too)."""
    dataset = state.current()
    prefs = dataset.preferences
    setting = alpha.peek()
    shown = "α: chosen when a page needs it" if setting is None else alpha_text(setting.alpha)
    with slot:
        st.caption(f"Loaded: {plain(dataset.name)} · {count(prefs.n_items, 'item')} · "
                   f"{count(len(prefs), list_word(prefs))} · {shown}")


def _share_box() -> None:
    """The "Copy link" control: this view's address, or a session file for uploaded data."""
    with st.expander("Share or save this view", icon=":material/link:"):
        link = share.share_link()
        if link is not None:
            st.caption("Copy link: opening it in another browser shows the same data, noise, "
                       "α and methods, with the same numbers. Use the copy icon of the box.")
            st.code(link, language=None, wrap_lines=True)
        else:
            st.caption("Uploaded data cannot travel in a link (it would hold the whole file). "
                       "Download the session instead: one file with the data, the true order "
                       "and your choices, which the Data page opens again "
                       "(“A saved session”).")
        st.download_button("Download the session (.json)", share.session_writer(),
                           file_name="coarsenrank_session.json", mime="application/json",
                           key="session_download", on_click="ignore")


def run_app() -> None:
    """Entry point: configure the page, draw the shared sidebar, run the selected page."""
    st.set_page_config(page_title="CoarsenRank", page_icon=":material/leaderboard:",
                       layout="wide")
    navigation = st.navigation(_pages())
    # filled after the page has run, so that it shows data the page has just loaded
    slot = st.sidebar.container()
    top = st.container()
    notice = st.container()
    token = _IN_SHELL.set(True)
    alpha.note_stop()
    try:
        for problem in share.apply_url():
            st.warning(problem)
        navigation.run()
    except Exception:  # noqa: BLE001 - the page must never show a traceback
        _LOG.exception("page %s failed", navigation.title)
        st.error("Something went wrong on this page. Your data is still loaded; try other "
                 "settings or reload the page. (The details are in the server log.)",
                 icon="⚠️")
    finally:
        _IN_SHELL.reset(token)
        _sidebar(slot)
        if not _student_ballot(navigation.url_path):
            _status_line(top)
        try:
            # the poll page's address holds the poll's code, key or browser token instead
            if navigation.url_path != "poll":
                share.write_url()
        except Exception:  # noqa: BLE001 - the address bar must never break a page
            _LOG.exception("writing the URL failed")
    alpha.refine_step(notice)


def ensure_shell() -> None:
    """Make a page opened directly on a fresh server come up inside the app shell.

    Until the entry point has called ``st.navigation`` once, Streamlit routes a URL such
    as ``/data`` to ``pages/data.py`` and runs it on its own (legacy multipage routing),
    without the shared sidebar. A page that finds itself outside the shell runs the shell
    in its place, within the same run so that clicks and uploads are not lost, and then
    stops. Declaring the navigation also switches the legacy routing off for good.
    """
    if _IN_SHELL.get():
        return
    run_app()
    st.stop()
