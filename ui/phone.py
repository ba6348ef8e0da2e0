"""Phone fixes shared by every page: the sidebar closes after a page link is tapped."""

from __future__ import annotations

import re

import streamlit as st

#: Streamlit's own breakpoint below which the sidebar overlays the page
OVERLAY_WIDTH = 768

# Streamlit folds the sidebar after a page link only when the browser calls itself a phone
# in its user agent; a narrow window (a phone in desktop mode, a small tablet, an embedded
# browser) keeps it open over most of the screen. This closes it wherever it overlays the page.
_CLOSE_SIDEBAR = """
<script>
(() => {
  const w = window;
  if (w.__coarsenrankSidebarCloser) return;
  w.__coarsenrankSidebarCloser = true;
  w.document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest(
      "[data-testid=stSidebarNav] a, [data-testid=stSidebar] [data-testid=stPageLink] a");
    if (!link || !w.matchMedia("(max-width: OVERLAY_WIDTHpx)").matches) return;
    w.setTimeout(() => {
      const sidebar = w.document.querySelector("[data-testid=stSidebar]");
      const button = w.document.querySelector(
        "[data-testid=stSidebarCollapseButton] button");
      if (sidebar && button && sidebar.getAttribute("data-collapsed") === "false") {
        button.click();
      }
    }, 0);
  }, true);
})();
</script>
""".replace("OVERLAY_WIDTH", str(OVERLAY_WIDTH))


def phone_fixes() -> None:
    """Add the page's phone behaviour (drawn once per run, into the sidebar)."""
    st.html(_CLOSE_SIDEBAR, unsafe_allow_javascript=True)


#: A browser that calls itself a phone or tablet in its user agent (as Streamlit's own
#: sidebar rule reads it).
_PHONE_AGENT = re.compile(r"Mobi|Android|iPhone|iPad|iPod", re.IGNORECASE)


def phone_screen() -> bool:
    """Whether the browser calls itself a phone or a tablet."""
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # noqa: BLE001 - no request (a bare script run): not a phone
        agent = ""
    return bool(_PHONE_AGENT.search(agent))


def shows_more_columns(key: str) -> bool:
    """Whether the "More columns" switch of ``key`` is on: as last set in this session (on
    any page), else on except on a phone."""
    widget = f"{key}_more_columns"
    if widget in st.session_state:
        return bool(st.session_state[widget])
    return bool(st.session_state.get(_KEPT + widget, not phone_screen()))


def more_columns(key: str) -> bool:
    """A "More columns" switch over a table whose key columns fit a phone (390 px) alone:
    on by default except on a phone, and kept when the user visits other pages."""
    widget = f"{key}_more_columns"
    if widget not in st.session_state:  # first drawn, or cleared on another page
        st.session_state[widget] = shows_more_columns(key)
    shown = st.toggle("More columns", key=widget,
                      help="Show every column; on a phone the table then scrolls sideways.")
    st.session_state[_KEPT + widget] = shown
    return shown


#: Prefix of the session keys that keep switches across pages (Streamlit forgets a
#: widget's state once a page without it has run).
_KEPT = "_kept_"


def column_order(key_columns, more: bool) -> list[str] | None:
    """The columns a table shows: all of them with "More columns" on, else the key ones."""
    return None if more else list(key_columns)
