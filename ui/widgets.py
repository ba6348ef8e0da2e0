"""Small widgets shared by the pages: the dataset card, α/τ captions, safe downloads, errors."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.export import table_to_csv

from .state import Dataset, tau_of
from .text import plain


def alpha_text(alpha: float) -> str:
    """``α = 200 (τ = 0.0155)`` for the current dataset; α = ∞ is the plain model."""
    if alpha == float("inf"):
        return "α = ∞ (τ = 1, the plain model)"
    return f"α = {alpha:g} (τ = {tau_of(alpha):.3g})"


def alpha_input_text(alpha: float) -> str:
    """α as typed in a text box: ``8.4`` or ``inf``."""
    return "inf" if alpha == float("inf") else f"{alpha:g}"


def parse_alpha(text: str) -> float | None:
    """A positive α from a text box (``inf`` allowed), or None when it is not one."""
    try:
        value = float(str(text).strip().lower().replace("∞", "inf"))
    except ValueError:
        return None
    return value if value > 0 else None


def dataset_card(dataset: Dataset) -> None:
    """A compact description of the loaded data, for the sidebar and the home page."""
    prefs = dataset.preferences
    st.markdown("**Loaded data**")
    st.text(dataset.name)
    raters = prefs.n_rankers if prefs.has_rankers else "not recorded"
    st.caption(f"{prefs.n_items} items · {len(prefs)} lists · raters: {raters} · "
               f"true order: {'yes' if dataset.truth is not None else 'no'}")
    if dataset.parent is not None:
        st.caption("This is a noisy copy; the original is one click away on the Noise page. "
                   "It keeps the original's α.")


def explain(text: str) -> None:
    """The sentence under a chart that says what to look at."""
    st.caption(text)


def csv_download(label: str, header: Sequence[str], rows, file_name: str, key: str) -> None:
    """A download button for a table, with spreadsheet formulas neutralised."""
    st.download_button(label, table_to_csv(header, rows).encode("utf-8"), file_name=file_name,
                       mime="text/csv", key=key)


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
               "toImageButtonOptions": {"format": "png", "scale": 2}}


def show_chart(figure, key: str) -> None:
    """Draw a plotly figure with its toolbar's PNG download (at twice the screen resolution)."""
    st.plotly_chart(figure, key=key, config=PLOT_CONFIG)
