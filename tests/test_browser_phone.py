"""Headless Chromium at 390x844: every page after tapping its sidebar link, as on a phone: the
sidebar folds away, the status line is in the first screen, and no text, chart title or
table column runs past the screen edge."""

import pytest

from tests.test_browser import (  # noqa: F401 - browser and shots are fixtures
    PHONE,
    PHONE_AGENT,
    STATUS,
    browser,
    served_app,
    shots,
    wait_main_idle,
)
from ui.shell import PAGES

pytestmark = pytest.mark.browser

#: the buttons that draw a page's tables and charts, each with a text its result shows
RUN = {"dic": (("Run", "The numbers behind the curve"),),
       "compare": (("Run the comparison", "How long does each method take?"),),
       "noise": (("Make the noisy copy", "The consensus before and after"),
                 ("Fit every method before and after",
                  "Share of item pairs each method puts in the true order"))}
RATER_NUMBERS = ("agreement per choice", "chance of answering at random")
#: the key columns each table must show on a phone
KEY_COLUMNS = {"consensus": [("rank", "item", "chance of being first"),
                             ("rater", RATER_NUMBERS)],
               "noise": [("place", "noisy copy", "moved (noisy copy)"), ("method", "change")],
               "compare": [("method", "pairwise accuracy (share of pairs)")],
               "dic": [("α", "DIC = g − f")],
               "data": [("rater", "list (best first)")]}

OVERFLOWING_TABLES = """() => [...document.querySelectorAll(
        '[data-testid=stMain] [data-testid=stDataFrame] .dvn-scroller')]
    .filter(s => s.clientWidth > 0 && s.scrollWidth > s.clientWidth + 1)
    .map(s => s.closest('[data-testid=stDataFrame]').innerText.slice(0, 80))"""
TABLE_HEADERS = """() => [...document.querySelectorAll(
        '[data-testid=stMain] [data-testid=stDataFrame]')]
    .filter(d => d.getBoundingClientRect().width > 0)
    .map(d => [...d.querySelectorAll('[role=columnheader]')].map(h => h.innerText.trim()))"""
# whether an expander (the element, or the details inside it) is open
EXPANDER_OPEN = "e => (e.matches('details') ? e : e.querySelector('details')).open"
# what a failing header row holds: each cell's text in the page and whether it is shown
HEADER_CELLS = """() => [...document.querySelectorAll(
        '[data-testid=stMain] [data-testid=stDataFrame] [role=columnheader]')].map(h => ({
    text: h.textContent, shown: h.innerText, visibility: getComputedStyle(h).visibility,
    width: h.getBoundingClientRect().width,
    inOpenExpander: h.closest('details') ? h.closest('details').open : null}))"""
# text (chart titles, axis titles, legends, paragraphs, buttons) that runs past the screen edge
CUT_TEXT = """() => [...document.querySelectorAll(
        '[data-testid=stMain] svg text, [data-testid=stMain] h1,'
        + ' [data-testid=stMain] p, [data-testid=stMain] button')]
    .filter(e => e.getBoundingClientRect().width > 0
            && (e.getBoundingClientRect().right > 391 || e.getBoundingClientRect().left < -1))
    .map(e => e.textContent.slice(0, 60))"""
# a chart title clipped at the top or the side of its chart
CLIPPED_TITLES = """() => [...document.querySelectorAll(
        '[data-testid=stMain] .js-plotly-plot')].flatMap(plot => {
        const box = plot.getBoundingClientRect();
        return [...plot.querySelectorAll('.gtitle')].filter(t => {
            const r = t.getBoundingClientRect();
            return r.top < box.top - 1 || r.right > box.right + 1;
        }).map(t => t.textContent)})"""
# a chart title that overlaps a panel title or another annotation of the same chart
TITLE_OVERLAPS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
    .flatMap(plot => {
        const hit = (a, b) => a.left < b.right && b.left < a.right
                              && a.top < b.bottom && b.top < a.bottom;
        const titles = [...plot.querySelectorAll('.gtitle')].map(t => t.getBoundingClientRect());
        return [...plot.querySelectorAll('.annotation-text')]
            .filter(a => titles.some(t => hit(t, a.getBoundingClientRect())))
            .map(a => a.textContent)})"""


def headers_drawn(page) -> None:
    """Wait until every shown grid has drawn its header row, with every expander open.

    A grid draws its header row after the frame around it: on a busy machine (two test
    workers) that took longer than a second, and twice in about 25 CI runs a grid in the DIC
    page's expander had drawn none 90 s later. A grid measures itself again when its own
    width changes, so after 30 s every grid is scrolled into view and the window is narrowed
    by 20 pixels for a second and widened back; after 20 s more, each expander that holds a
    grid without a header row is folded and unfolded, which lays the grid out afresh. A
    header row counts as drawn once every column's name is in it.

    A grid in a closed expander keeps its frame and its header cells, but their names read
    empty: [['', '']] on the DIC page, which is what CI read twice (on f9a3b6a and
    1f2c24c). Folding and unfolding leaves a closed expander closed, so every closed
    expander is opened first and again before each remedy (:func:`open_expanders`).
    """
    drawn = f"() => ({TABLE_HEADERS})().every(h => h.length > 0 && h.every(t => t !== ''))"
    open_expanders(page)
    if drawn_within(page, drawn, 30_000):
        return
    open_expanders(page)
    remeasure_grids(page)
    if drawn_within(page, drawn, 20_000):
        return
    refold_expanders(page)
    if not drawn_within(page, drawn, 30_000):
        pytest.fail("a grid drew no header row in 80 s (narrowed the window, then refolded "
                    f"the expanders): {page.evaluate(TABLE_HEADERS)}; its header cells: "
                    f"{page.evaluate(HEADER_CELLS)}")


def open_expanders(page) -> None:
    """Open every closed expander in the main area (a click on an open one would close it),
    and wait until each reads open. A rerun that draws an expander again can draw it
    closed (in CI one stayed closed for 10 s after its click), so a closed one is clicked
    again, once a second for up to 20 s."""
    every_open = f"""() => [...document.querySelectorAll(
        '[data-testid=stMain] [data-testid=stExpander]')].every({EXPANDER_OPEN})"""
    for _ in range(20):
        for expander in page.locator("[data-testid=stMain] [data-testid=stExpander]").all():
            if not expander.evaluate(EXPANDER_OPEN):
                expander.locator("summary").click()
                page.wait_for_timeout(300)
        if drawn_within(page, every_open, 1_000):
            return
    page.wait_for_function(every_open, timeout=1_000)


def drawn_within(page, condition: str, timeout: float) -> bool:
    """Whether the page's ``condition`` holds within ``timeout`` ms."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True


def remeasure_grids(page) -> None:
    """Scroll every shown grid into view, narrow the window by 20 pixels for a second and
    widen it back: a grid measures itself again when its own width changes."""
    for grid in page.locator("[data-testid=stMain] [data-testid=stDataFrame]").all():
        if grid.is_visible():
            grid.scroll_into_view_if_needed()
    page.set_viewport_size({"width": PHONE["width"] - 20, "height": PHONE["height"]})
    page.wait_for_timeout(1_000)
    page.set_viewport_size(PHONE)


def refold_expanders(page) -> None:
    """Fold and unfold each expander that holds a grid whose header row is not drawn: no
    header row, or one with a column name still empty (as :func:`headers_drawn` counts).
    Each ends open."""
    for expander in page.locator("[data-testid=stMain] [data-testid=stExpander]").all():
        names = [n.strip() for n in expander.locator("[role=columnheader]").all_inner_texts()]
        if expander.locator("[data-testid=stDataFrame]").count() and not (
                names and all(names)):
            if expander.evaluate(EXPANDER_OPEN):
                expander.locator("summary").click()
                page.wait_for_timeout(500)
            expander.locator("summary").click()
            page.wait_for_timeout(500)
    open_expanders(page)


@pytest.fixture(scope="module")
def base():
    with served_app() as address:
        yield address


@pytest.mark.parametrize("path, title, url", [(p[0], p[1], p[3]) for p in PAGES])
def test_tapping_a_page_link_closes_the_sidebar_and_key_columns_fit_a_phone(
        browser, shots, base, path, title, url):  # noqa: F811 - the imported fixtures
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                  device_scale_factor=2, user_agent=PHONE_AGENT)
    page = context.new_page()
    page.set_default_timeout(90_000)
    start = "data" if url == "home" else ""  # Home, the default page, lives at "/"
    page.goto(f"{base}/{start}?data=sample%3Acareless")
    page.wait_for_selector("h1")
    wait_main_idle(page)
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.get_attribute("data-collapsed") == "true"
    page.locator("[data-testid=stExpandSidebarButton], "
                 "[data-testid=stSidebarCollapsedControl] button").first.tap()
    page.wait_for_function("() => document.querySelector('[data-testid=stSidebar]')"
                           ".getAttribute('data-collapsed') === 'false'")
    # the page's phone behaviour is in place once the first run has drawn the sidebar
    page.wait_for_function("() => window.__coarsenrankSidebarCloser === true")
    page.locator("[data-testid=stSidebarNav] a", has_text=title).tap()
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('[data-testid=stSidebarNav] a[aria-current=page]')]"
        ".some(a => a.innerText.trim().endsWith(t))", arg=title)
    page.wait_for_selector("h1")
    wait_main_idle(page)
    # the sidebar folded itself away: the page is not covered
    page.wait_for_function("() => document.querySelector('[data-testid=stSidebar]')"
                           ".getAttribute('data-collapsed') === 'true'", timeout=20_000)
    box = sidebar.bounding_box()
    assert box is None or box["x"] + box["width"] <= 1, box
    # the loaded data and α are in the first screen of every page
    status = page.locator("[data-testid=stMain]").get_by_text(STATUS).first
    box = status.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]
    assert "Teaching: careless raters" in status.inner_text()
    assert "α = " in status.inner_text()
    for button, result in RUN.get(url, ()):
        page.get_by_role("button", name=button, exact=True).click()
        page.get_by_text(result).first.wait_for()
        page.locator("[data-testid=stPlotlyChart]").first.wait_for()
        wait_main_idle(page)
    if url == "consensus":  # the likely ranks join the table when they are sampled
        page.get_by_text("chance of being first").first.wait_for(state="attached")
        wait_main_idle(page)
    # every table, also those inside expanders
    open_expanders(page)
    wait_main_idle(page)
    page.wait_for_timeout(1_000)
    headers_drawn(page)
    # no table scrolls sideways inside itself: its key columns are all on the screen (the
    # grid's accessible header row holds only the columns drawn on the screen)
    assert page.evaluate(OVERFLOWING_TABLES) == []
    headers = page.evaluate(TABLE_HEADERS)
    for columns in KEY_COLUMNS.get(url, []):
        # a column given as a tuple may be any of its names (the number the method reports)
        assert any(len(shown) == len(columns) and all(
            name == want or (isinstance(want, tuple) and name in want)
            for name, want in zip(shown, columns)) for shown in headers), headers
    assert page.evaluate(TITLE_OVERLAPS) == []
    assert page.evaluate(CUT_TEXT) == []
    assert page.evaluate(CLIPPED_TITLES) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.locator("[data-testid=stException]").count() == 0
    # nothing runs past the edge when the whole page is drawn at once either
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": PHONE["width"], "height": min(int(height), 12_000)})
    page.wait_for_timeout(500)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=shots / f"phone_tap_{url}.png", full_page=True)
    context.close()
