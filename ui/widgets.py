"""Small widgets shared by the pages: the dataset card, safe downloads, errors, Stop."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

import numpy as np
import streamlit as st

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.connectivity import separate_groups_text
from coarsenrank_core.export import table_to_csv

from . import state
from .state import Dataset
from .text import count, list_word, plain


def dataset_card(dataset: Dataset) -> None:
    """A compact description of the loaded data, for the sidebar and the home page."""
    prefs = dataset.preferences
    st.markdown("**Loaded data**")
    st.text(dataset.name)
    raters = count(prefs.n_rankers, "rater") if prefs.has_rankers else "raters not recorded"
    st.caption(f"{count(prefs.n_items, 'item')} · {count(len(prefs), list_word(prefs))} · "
               f"{raters} · true order: {'yes' if dataset.truth is not None else 'no'}")
    if dataset.parent is not None:
        st.caption("This is a noisy copy; the original is one click away on the Noise page. "
                   "It keeps the original's α.")


def explain(text: str) -> None:
    """The sentence under a chart that says what to look at."""
    st.caption(text)


def csv_download(label: str, header: Sequence[str], rows, file_name: str, key: str) -> None:
    """A download button for a table, with spreadsheet formulas neutralised.

    ``rows`` may be a function that returns the rows: the file is then written only when
    the download is asked for (a table of millions of rows costs nothing before). The click
    only downloads: a rerun started by it would race the file's request (Streamlit's own
    warning), and once in CI a click started no download.
    """
    if callable(rows):
        def data() -> bytes:
            return table_to_csv(header, rows()).encode("utf-8")
    else:
        data = table_to_csv(header, rows).encode("utf-8")  # type: ignore[assignment]
    st.download_button(label, data, file_name=file_name, mime="text/csv", key=key,
                       on_click="ignore")


#: Rows a long table shows on the page (its CSV download holds every row); per-rater tables
#: of data without rater names have one row per list, millions for a large upload.
TABLE_ROWS = 1_000
#: Raters a rater chart draws at most, also when "Show all raters" is on.
CHART_ROWS = 500


def _cell(value):
    """A table cell as a plain Python value (numpy scalars as int, float or bool)."""
    return value.item() if isinstance(value, np.generic) else value


def long_table(columns: dict, order, label: str, file_name: str, key: str,
               limit: int = TABLE_ROWS, config: dict | None = None,
               key_columns: Sequence[str] | None = None) -> None:
    """One row per index of ``order``: the first ``limit`` on the page, all in the CSV.

    ``columns`` maps each column title to a sequence indexed like ``order``'s entries.
    Only the rows shown are built before the download is asked for, so a table of
    millions of rows costs the page no more than one of ``limit``. With ``key_columns`` the
    table shows only those (they fit a phone) until "More columns" is switched on.
    """
    order = np.asarray(order, dtype=np.intp)
    titles = list(columns)
    shown = order[:limit].tolist()
    visible = None
    if key_columns is not None:
        from .phone import column_order, more_columns
        visible = column_order(key_columns, more_columns(key))
    st.dataframe({t: [_cell(columns[t][i]) for i in shown] for t in titles}, hide_index=True,
                 column_config=config, column_order=visible)
    if order.size > limit:
        st.caption(f"Showing the first {limit:,} of {order.size:,} rows; the download holds "
                   "them all.")

    def rows():
        for i in order.tolist():
            yield [_cell(columns[t][i]) for t in titles]

    csv_download(label, titles, rows, file_name, key)


def chart_limit(show_all: bool, default: int = 40) -> int:
    """How many raters a rater chart draws: ``default``, or with "Show all" at most
    :data:`CHART_ROWS` (a chart of millions of dots would not draw)."""
    return CHART_ROWS if show_all else default


def format_error(error: PreferenceFormatError) -> None:
    """Show a reader error with where it is and how to fix it (never a traceback)."""
    lines = ["**We could not read this file.**", "", plain(error.reason)]
    if error.row is not None or error.column is not None:
        where = []
        if error.row is not None:
            where.append(f"row {error.row}")
        if error.column is not None:
            where.append(f"column “{plain(error.column)}”")
        lines += ["", "Where: " + ", ".join(where)]
    if error.fix:
        lines += ["", "How to fix it: " + plain(error.fix)]
    st.error("\n".join(lines), icon="⚠️")


PLOT_CONFIG = {"displaylogo": False,
               "toImageButtonOptions": {"format": "png", "scale": 2},
               # the PNG download stays; the zoom tools would cover a phone-sized chart
               "modeBarButtonsToRemove": ["zoom2d", "pan2d", "select2d", "lasso2d",
                                          "zoomIn2d", "zoomOut2d", "autoScale2d",
                                          "resetScale2d"]}


def show_chart(figure, key: str) -> None:
    """Draw a plotly figure with its toolbar's PNG download (at twice the screen resolution)."""
    st.plotly_chart(figure, key=key, config=PLOT_CONFIG)


@contextmanager
def stop_button(task: str):
    """A **Stop** button shown while a long computation runs.

    Pressing it makes Streamlit end the run at the computation's next progress refresh
    (see :class:`ui.compute.Job`); on the next run :func:`was_stopped` is true for this task.
    """
    slot = st.empty()
    slot.button("Stop", key=f"stop_{task}", icon=":material/stop_circle:",
                help="End this computation now; nothing else is lost.")
    try:
        yield
    finally:
        slot.empty()


def was_stopped(task: str) -> bool:
    """Whether the user has just pressed the Stop button of ``task``."""
    return bool(st.session_state.get(f"stop_{task}"))


class Restartable:
    """A long task of a page with its **Stop** button, and what the page shows after Stop.

    Made by :func:`restartable`. True while the task may run; ``with task:`` draws the Stop
    button around the computation (see :func:`stop_button`).
    """

    def __init__(self, task: str, may_run: bool):
        self.task, self.may_run = task, may_run
        self._button = None

    def __bool__(self) -> bool:
        return self.may_run

    def __enter__(self) -> Restartable:
        self._button = stop_button(self.task)
        self._button.__enter__()
        return self

    def __exit__(self, *exc) -> bool | None:
        button, self._button = self._button, None
        return button.__exit__(*exc)


def note_stopped(task: str, key) -> str:
    """Remember that ``task`` was stopped on ``key`` if its Stop button was just pressed;
    returns the session key of that memory (see :func:`restartable`).

    :func:`restartable` does this itself; a caller that may not reach it in the run after
    Stop (the shell, whose page may end the run first) calls it early.
    """
    flag = f"_{task}_stopped"
    if was_stopped(task):
        state.set_widget(flag, (key,))
    return flag


def restartable(task: str, message: str, *, key=None, restart: str | None = None
                ) -> Restartable:
    """The stop-and-restart pattern of every long task of the pages, in one place.

    After the user pressed the task's Stop button, ``message`` is shown. A task the user
    starts with a button of its own (``restart=None``) may then simply run again when that
    button is pressed. A task that starts by itself (``restart`` is the label of a button
    that starts it again) stays stopped for the data (or settings) ``key`` it was stopped
    on: the message and the restart button are shown and the result is false until the
    button is pressed.
    """
    if restart is None:
        if was_stopped(task):
            st.warning(message)
        return Restartable(task, True)
    flag = note_stopped(task, key)
    if state.widget(flag) != (key,):
        return Restartable(task, True)
    st.warning(message)
    if st.button(restart, type="primary", key=f"{task}_restart"):
        state.set_widget(flag, None)
        st.rerun()
    return Restartable(task, False)


def warn_separate_groups(prefs, also: str = "") -> None:
    """The Data page's warning that groups of items were never compared, with what it means
    on this page (``also``)."""
    groups = separate_groups_text(prefs, escape=plain)
    if groups is not None:
        st.warning(groups + (" " + also if also else ""))
