"""Phone fixes shared by every page: the sidebar closes after a page link is tapped."""

from __future__ import annotations

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


def more_columns(key: str) -> bool:
    """A "More columns" switch over a table whose key columns fit a phone (390 px) alone."""
    return st.toggle("More columns", key=f"{key}_more_columns",
                     help="Show every column; on a phone the table then scrolls sideways.")


def column_order(key_columns, more: bool) -> list[str] | None:
    """The columns a table shows: all of them with "More columns" on, else the key ones."""
    return None if more else list(key_columns)
