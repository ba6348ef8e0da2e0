"""The import step: read an upload, show how it was read, let the user correct it, confirm."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from coarsenrank_core.io import (
    FORMATS,
    PreferenceFormatError,
    ReadOptions,
    ReadResult,
    interruptible,
    read_file,
    sheet_names,
    table_columns,
)

from . import state
from .compute import Digested, _cached, job, named_upload
from .text import count as text_count
from .text import list_word, plain
from .widgets import stop_button, was_stopped

_MARKER = "import_marker"
_CORRECTION_KEYS = ("upload_format", "upload_sheet", "upload_items", "upload_ranker",
                    "upload_count", "upload_best", "upload_lists")
AUTO_COLUMN, NO_COLUMN = "(find it)", "(none)"
PREVIEW_ROWS = 3


@_cached(max_entries=8)
def read_upload(file: Digested, name: str, layout: str, options: ReadOptions) -> ReadResult:
    """Parse an upload with the user's corrections (errors are raised, not cached).

    The result is immutable and cached once per content, shared by every session that
    uploads the same file. Call it inside :func:`stoppable` so that Stop ends it; the cache
    is :mod:`ui.compute`'s own, since the reading redraws the caller's progress bar, which a
    Streamlit cache would try to replay.
    """
    return read_file(named_upload(file.data, name), format=layout, options=options)


#: the parts of an import that read the file, each with its own Stop button
READING_TASKS = ("upload_columns", "upload_sheet", "upload_read")


@contextmanager
def stoppable(task: str, label: str = "Reading the file, MB unpacked:"):
    """A Stop button and a progress line while a file is read.

    Stop, any other widget or a closed tab end the reading within a fraction of a second (a
    workbook checks every few thousand cells); :func:`reading_stopped` then says so on the
    next run, which does not start the reading again by itself.
    """
    with (stop_button(task), job(label) as reading,
          interruptible(reading.should_stop, reading.progress)):
        yield


def reading_stopped() -> bool:
    """Whether the user has just pressed Stop while the upload was being read."""
    return any(was_stopped(task) for task in READING_TASKS)


@_cached(max_entries=16)
def upload_columns(file: Digested, name: str, sheet) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The file's column titles and, for a workbook, its sheets."""
    try:
        sheets = sheet_names(file.data) if name.lower().endswith((".xlsx", ".xlsm")) else ()
    except PreferenceFormatError:  # a damaged workbook is reported by the reader
        sheets = ()
    return table_columns(named_upload(file.data, name), ReadOptions(sheet=sheet)), sheets


def new_file(file: Digested, name: str) -> bool:
    """Whether this upload differs from the last one; a new file resets the corrections."""
    marker = (name, file.digest)
    if st.session_state.get(_MARKER) == marker:
        return False
    st.session_state[_MARKER] = marker
    for key in _CORRECTION_KEYS:
        st.session_state.pop(key, None)
    return True


def corrections(file: Digested, name: str) -> tuple[str, ReadOptions]:
    """Widgets to correct the reading; returns the layout id and the options."""
    layouts = {"auto": "Detect automatically",
               **{f.id: f.title[:1].upper() + f.title[1:] for f in FORMATS.values()}}
    left, right = st.columns(2)
    layout = left.selectbox("How the file is laid out", list(layouts),
                            format_func=layouts.get, key="upload_format")
    sheet = st.session_state.get("upload_sheet")
    with stoppable("upload_columns"):
        columns, sheets = upload_columns(file, name, sheet)
    if len(sheets) > 1:
        sheet = right.selectbox("Sheet of the workbook", list(sheets), key="upload_sheet")
        with stoppable("upload_sheet"):
            columns, _ = upload_columns(file, name, sheet)
    items = ranker = count = lists = None
    one_is_best = True
    if columns:
        chosen = st.multiselect("Columns holding the items (or their ranks); leave empty to "
                                "find them", list(columns), key="upload_items")
        items = tuple(chosen) or None
        pick = [AUTO_COLUMN, NO_COLUMN, *columns]
        left, right = st.columns(2)
        ranker = _column(left.selectbox("Column naming who ranked", pick, key="upload_ranker"))
        count = _column(right.selectbox("Column saying how many times a row was given", pick,
                                        key="upload_count"))
        one_is_best = st.radio("Rank numbers mean", ["1 is the best", "1 is the worst"],
                               horizontal=True, key="upload_best") == "1 is the best"
        if layout == "long":
            lists = tuple(st.multiselect(
                "Columns that together tell one ranking from another (a round and its heat); "
                "leave empty to find them", list(columns), key="upload_lists")) or None
    return layout, ReadOptions(sheet=sheet, item_columns=items, ranker_column=ranker,
                               count_column=count, one_is_best=one_is_best,
                               list_columns=lists)


def _column(choice: str) -> str | None:
    return None if choice == AUTO_COLUMN else "" if choice == NO_COLUMN else choice


def ranking_text(pref) -> str:
    """A ranking as ``A > B = C > D``."""
    return " > ".join(" = ".join(sorted(g)) if isinstance(g, frozenset) else g for g in pref)


def preview(result: ReadResult) -> None:
    """How the file was read, before it replaces the loaded data."""
    prefs, report = result.preferences, result.report
    lines = report.lines()
    st.markdown("**" + plain(lines[0]) + "**")
    unit = "comparison" if prefs.is_pairwise else "ranking"
    count = len(prefs)
    st.markdown(f"{count:,} {unit}{'s' if count != 1 else ''} over "
                f"{prefs.n_items:,} item{'s' if prefs.n_items != 1 else ''}.")
    shown = prefs.to_lists(names=True, stop=PREVIEW_ROWS)
    st.markdown(f"First {unit}s as read:")
    st.text("\n".join(ranking_text(p) for p in shown))
    if report.warning:
        st.warning(plain(report.warning))
    for line in lines[1:]:
        if line != report.warning:
            st.caption(plain(line))


def confirm(result: ReadResult, name: str) -> bool:
    """The button that replaces the loaded data; True when pressed."""
    prefs = result.preferences
    loaded = state.current()
    in_use = loaded.name == name and loaded.preferences == prefs
    if not st.button("Use this data", type="primary", key="confirm_upload"):
        if in_use:
            st.success(f"In use: {plain(name)}, read as shown above.")
            return False
        st.info(f"Nothing has changed yet. Still loaded: {plain(loaded.name)}. Check the "
                "reading above, correct it if needed, then press 'Use this data'.")
        return False
    state.set_current(state.Dataset(name=name, preferences=prefs, origin="upload",
                                    read_as=tuple(result.report.lines())))
    st.success(f"Loaded {plain(name)}: {text_count(len(prefs), list_word(prefs))} over "
               f"{text_count(prefs.n_items, 'item')}.")
    return True
