"""Headless Chromium against `streamlit run app.py`: page URLs, upload, DIC, compare, download."""

import csv
import io
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.served_app import SERVER_PID, served_app
from ui.shell import PAGES

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
EVIL = "<img src=x onerror=alert(1)>"
FORMULA = "@mocha"
UPLOAD = ("rater,1st,2nd,3rd,4th\n"
          f"ann,espresso,latte,{EVIL},{FORMULA}\n"
          f"bob,espresso,{FORMULA},latte,{EVIL}\n"
          f"cy,latte,espresso,{FORMULA},{EVIL}\n"
          f"di,{EVIL},{FORMULA},latte,espresso\n"
          f"ed,espresso,latte,{FORMULA},{EVIL}\n")


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"chromium is missing at {CHROMIUM} on CI (.ci/run installs it)")
        pytest.skip(f"chromium is not installed at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def base():
    """One served app for the tests that need no server of their own: each opens its own
    session, so they share only what Streamlit caches across sessions (its first run's
    imports and the sample's fits), which saves about 5 CPU-s a test."""
    with served_app() as base:
        yield base


@pytest.fixture
def shots(tmp_path):
    """Screenshots go to a temporary folder (and to $COARSENRANK_SCREENSHOTS when set)."""
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield folder
    keep = os.environ.get("COARSENRANK_SCREENSHOTS")
    if keep:
        shutil.copytree(folder, keep, dirs_exist_ok=True)


def children(pid: int) -> list[int]:
    """The process ids of ``pid``'s live children."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                found.append(int(entry.name))
    return found


def new_page(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 2000}, accept_downloads=True)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.set_default_timeout(90_000)
    return page, dialogs


RUN_ENDED = "[data-testid=stApp][data-test-script-state=notRunning]"


def run_ended(page, settle: int = 150) -> None:
    """Wait until no script run is in progress, then ``settle`` ms for the last deltas.

    The app root's script state is the attribute Streamlit's own end-to-end tests wait on;
    the status widget's "Running" only shows once a run has lasted a moment.
    """
    page.locator(RUN_ENDED).wait_for(state="attached", timeout=120_000)
    page.wait_for_timeout(settle)


def wait_idle(page):
    """Wait until the script run has finished: the sidebar card is drawn last, after the page."""
    page.locator("[data-testid=stSidebar]").get_by_text("Loaded data", exact=True).wait_for()
    run_ended(page)


def sidebar_shows(page, text: str) -> None:
    """Wait until the sidebar's data card names ``text``: the card is redrawn after the page,
    so a snapshot taken as soon as the page settles may still show the previous run's card."""
    shows(page, "[data-testid=stSidebar]", text)


def shows(page, selector: str, text: str) -> None:
    """Wait (up to a minute) until the element at ``selector`` holds ``text``."""
    from playwright.sync_api import expect

    expect(page.locator(selector)).to_contain_text(text, timeout=60_000)


def choose_own_file(page):
    """Pick "My own file" and wait until its uploader is drawn and the run has ended."""
    page.get_by_text("My own file").click()
    page.get_by_text("Rankings file: CSV, Excel").wait_for()
    wait_idle(page)


def give_own_file(page, base: str, path: Path, shown: str) -> None:
    """Open the Data page, pick "My own file", give the uploader ``path`` and wait for
    ``shown``."""
    page.goto(f"{base}/data")
    page.wait_for_selector("h1")
    wait_idle(page)
    choose_own_file(page)
    page.locator("input[type=file]").first.set_input_files(str(path))
    page.get_by_text(shown).first.wait_for()


def upload_and_preview(page, path):
    """Give the uploader a file and wait for the import preview (once more if a rerun
    replaced the file input while the file was being set)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(2):
        page.locator("input[type=file]").first.set_input_files(str(path))
        try:
            page.get_by_text("We read this as").wait_for(timeout=45_000)
            return
        except PlaywrightTimeout:
            if attempt:
                raise


def click_until_shown(button, shown, first_wait: float = 30_000) -> None:
    """Click ``button`` and wait for ``shown``; click once more if nothing came of the first
    click while the button is still there (a loaded CI once waited 90 s after a click on
    "Load this scenario" that the same test, alone, answers in about a second)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    button.click()
    try:
        shown.wait_for(timeout=first_wait)
    except PlaywrightTimeout:
        if not button.is_visible():
            raise
        button.click()
        shown.wait_for()


def download_after_click(page, button):
    """Click ``button`` and return the download it starts; click once more if none started
    within 30 s while the button is still there (a loaded CI once waited 90 s in vain after
    a click on "Download the ranking (CSV)" that passed in every other run)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        with page.expect_download(timeout=30_000) as download_info:
            button.click()
        return download_info.value
    except PlaywrightTimeout:
        if not button.is_visible():
            raise
    with page.expect_download() as download_info:
        button.click()
    return download_info.value


def go(page, title, heading):
    """Follow a sidebar link (keeping the session) and wait for that page's heading."""
    page.locator("[data-testid=stSidebarNav] a", has_text=title).click()
    page.locator("h1", has_text=heading).wait_for()
    wait_idle(page)


def keep_the_knee(page) -> None:
    """On the DIC page: run the sweep and keep the α where the curve levels off."""
    go(page, "Choose α (DIC)", "Choose α")
    page.get_by_role("button", name="Run").click()
    page.locator("[data-testid=stPlotlyChart]").first.wait_for()
    wait_idle(page)
    page.get_by_role("button", name="(levels off)").click()
    page.locator("[data-testid=stSidebar]").get_by_text("Chosen α").wait_for()
    wait_idle(page)


def run_the_comparison(page) -> None:
    """On the Compare page: run the comparison and wait for its timing chart."""
    go(page, "Compare methods", "Compare methods")
    page.get_by_role("button", name="Run the comparison").click()
    page.get_by_text("How long does each method take?").wait_for()
    wait_idle(page)


@pytest.mark.parametrize("path, title, url", [(p[0], p[1], p[3]) for p in PAGES])
def test_each_page_opens_by_url_on_a_fresh_server(browser, shots, path, title, url):
    with served_app() as base:
        page, _ = new_page(browser)
        page.goto(f"{base}/{url}")
        page.wait_for_selector("h1")
        wait_idle(page)
        nav = [t.split("\n")[-1] for t in
               page.locator("[data-testid=stSidebarNav] a").all_inner_texts()]
        assert nav == [p[1] for p in PAGES]
        active = page.locator("[data-testid=stSidebarNav] a[aria-current=page]").inner_text()
        assert active.split("\n")[-1] == title
        sidebar = page.locator("[data-testid=stSidebar]").inner_text()
        assert "Loaded data" in sidebar and "Pizza survey" in sidebar
        assert page.locator("[data-testid=stException]").count() == 0
        page.screenshot(path=shots / f"open_{url}.png", full_page=True)
        page.close()


def test_upload_dic_compare_ranking_and_download(browser, shots, tmp_path, base):
    upload = tmp_path / "coffee.csv"
    upload.write_text(UPLOAD, encoding="utf-8")
    page, dialogs = new_page(browser)
    page.goto(f"{base}/data")
    page.wait_for_selector("h1")
    wait_idle(page)
    choose_own_file(page)
    upload_and_preview(page, upload)
    wait_idle(page)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("Loaded coffee.csv").wait_for()
    wait_idle(page)
    sidebar_shows(page, "coffee.csv")
    page.screenshot(path=shots / "data_uploaded.png", full_page=True)

    keep_the_knee(page)
    page.screenshot(path=shots / "dic.png", full_page=True)

    run_the_comparison(page)
    page.screenshot(path=shots / "compare.png", full_page=True)

    go(page, "Consensus ranking", "Consensus ranking")
    table = page.locator("[data-testid=stDataFrame]").first
    table.wait_for()
    wait_idle(page)
    cells = table.locator("[role=gridcell]").all_inner_texts()
    items = {"espresso", "latte", FORMULA, EVIL}
    assert items <= set(cells), cells
    assert cells[:2] == ["1", "espresso"]
    path = download_after_click(
        page, page.get_by_role("button", name="Download the ranking (CSV)")).path()
    rows = list(csv.DictReader(io.StringIO(Path(path).read_text(encoding="utf-8"))))
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4"]
    # the download neutralises the formula-like name; the page shows it as it is
    assert {r["item"] for r in rows} == items - {FORMULA} | {"'" + FORMULA}
    page.screenshot(path=shots / "consensus.png", full_page=True)

    go(page, "Noise", "Noise")
    page.get_by_role("button", name="Make the noisy copy").click()
    page.get_by_text("What changed").wait_for()
    wait_idle(page)
    page.screenshot(path=shots / "noise.png", full_page=True)
    assert not dialogs, f"a script ran from an item name: {dialogs}"
    assert page.locator("[data-testid=stException]").count() == 0
    page.close()


def test_survey_export_upload_preview_confirm_and_winner(browser, shots, base):
    export = ROOT / "tests" / "data" / "exports" / "qualtrics_rank_order.csv"
    page, dialogs = new_page(browser)
    page.goto(f"{base}/data")
    page.wait_for_selector("h1")
    wait_idle(page)
    choose_own_file(page)
    upload_and_preview(page, export)
    wait_idle(page)
    body = page.locator("[data-testid=stMain]").inner_text()
    assert "item columns holding ranks (detected), a Qualtrics export" in body
    assert "3 rankings over 4 items" in body
    assert "Margherita > Funghi > Hawaii > Quattro formaggi" in body
    sidebar_shows(page, "Pizza survey")
    page.screenshot(path=shots / "import_preview.png", full_page=True)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("Loaded qualtrics_rank_order.csv").wait_for()
    wait_idle(page)
    sidebar_shows(page, "qualtrics_rank_order.csv")
    go(page, "Consensus ranking", "Consensus ranking")
    table = page.locator("[data-testid=stDataFrame]").first
    table.wait_for()
    wait_idle(page)
    cells = table.locator("[role=gridcell]").all_inner_texts()
    assert cells[:2] == ["1", "Margherita"], cells
    assert {"Funghi", "Hawaii", "Quattro formaggi"} <= set(cells)
    page.screenshot(path=shots / "import_consensus.png", full_page=True)
    assert not dialogs and page.locator("[data-testid=stException]").count() == 0
    page.close()


STATUS = re.compile(r"^Loaded: ")  # the status line at the top of every page


def wait_main_idle(page):
    """Wait for the run to finish where the sidebar may be folded away (a phone)."""
    page.locator("[data-testid=stMain]").get_by_text(STATUS).first.wait_for()
    run_ended(page, settle=250)


def consensus_done(page) -> None:
    """Wait until the Consensus page has drawn its last part (the likely ranks and their
    download): the sidebar is drawn after the page."""
    page.get_by_role("button", name="Download the ranking (CSV)").wait_for()
    wait_idle(page)


def consensus_cells(page) -> list[str]:
    table = page.locator("[data-testid=stDataFrame]").first
    table.wait_for()
    table.locator("[role=gridcell]").first.wait_for(state="attached")
    return table.locator("[role=gridcell]").all_inner_texts()


def test_teacher_flow_then_the_copied_link_in_a_new_browser(browser, shots, base):
    page, dialogs = new_page(browser)
    page.goto(f"{base}/noise")
    page.wait_for_selector("h1")
    wait_idle(page)
    # scenario -> noise -> α -> compare -> consensus
    click_until_shown(page.get_by_role("button", name="Load this scenario").first,
                      page.locator("[data-testid=stSidebar]").get_by_text(
                          "Teaching: careless raters"))
    wait_idle(page)
    page.get_by_role("button", name="Make the noisy copy").click()
    page.get_by_role("heading", name="The consensus before and after").wait_for()
    wait_idle(page)
    sidebar_shows(page, "noisy copy")
    page.screenshot(path=shots / "teacher_noise.png", full_page=True)
    keep_the_knee(page)
    run_the_comparison(page)
    go(page, "Consensus ranking", "Consensus ranking")
    consensus_done(page)
    cells = consensus_cells(page)
    assert cells and cells[0] == "1", cells
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text("Share or save this view").click()
    link = sidebar.locator("[data-testid=stCode] code").inner_text().strip()
    assert "data=sample%3Acareless" in link and "noise=replace_random" in link
    assert "alpha=" in link and "methods=" in link
    page.screenshot(path=shots / "teacher_consensus.png", full_page=True)
    assert not dialogs and page.locator("[data-testid=stException]").count() == 0

    # a student opens the link in a browser of their own
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    student = context.new_page()
    student.set_default_timeout(90_000)
    student.goto(link)
    student.locator("h1", has_text="Consensus ranking").wait_for()
    consensus_done(student)
    assert consensus_cells(student) == cells
    sidebar_shows(student, "noisy copy")
    sidebar_shows(student, "Teaching: careless raters")
    student.screenshot(path=shots / "student_consensus.png", full_page=True)
    context.close()
    page.close()


PHONE = {"width": 390, "height": 844}
#: What a phone's browser says it is (an iPhone's Safari): the pages read "Mobi" in it.
PHONE_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
               "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")


def test_stop_ends_a_long_dic_run_and_the_page_says_so(browser, base):
    page, _ = new_page(browser)
    page.goto(f"{base}/dic?data=sample%3Acareless")
    page.wait_for_selector("h1")
    wait_idle(page)
    page.get_by_text("My own list", exact=True).click()
    custom = page.get_by_label("My own list (comma-separated)")
    custom.fill(", ".join(str(10 * k) for k in range(1, 31)))
    page.get_by_role("spinbutton", name="Warm-up sweeps (discarded)").fill("1000")
    page.get_by_role("spinbutton", name="Posterior draws per α").fill("1000")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("Sampling the posterior for each α").wait_for()
    page.locator("[data-testid=stMain]").get_by_role("button", name="Stop", exact=True).click()
    page.get_by_text("The DIC run was stopped").wait_for()
    wait_idle(page)
    # no curve of the stopped run: only the one the default rule drew when it chose α
    assert page.locator("[data-testid=stPlotlyChart]").count() <= 1
    assert page.locator("[data-testid=stPlotlyChart]").count() == page.get_by_text(
        "The curve the default rule drew").count()
    assert page.get_by_text("Sampling the posterior for each α").count() == 0
    assert page.locator("[data-testid=stException]").count() == 0
    page.close()


MARKUP = {"link": "[linkZq](http://evil.example/a)", "image": "![imgZq](http://evil.example/i.png)",
      "bold": "**boldZq**", "html": "<strong>htmlZq</strong>"}
FOUND_MARKUP = """() => [...document.querySelectorAll('a, img, strong, b, em, i')].filter(e =>
    (e.getAttribute('href') || '').includes('evil.example')
    || (e.getAttribute('src') || '').includes('evil.example')
    || e.textContent.includes('Zq')).map(e => e.outerHTML.slice(0, 80))"""


def no_markup(page, where):
    found = page.evaluate(FOUND_MARKUP)
    assert found == [], (where, found)


def upload_payload(page, name, content, field=0):
    page.locator("input[type=file]").nth(field).set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": content})


def upload_checked(page, name: str, content: bytes, shown: str, where: str, *, field: int = 0,
                   loaded: str | None = None, note: str | None = None) -> None:
    """Upload ``content`` as ``name``, wait for ``shown``; with ``loaded``, press "Use this
    data" and wait for it; with ``note``, wait for that text too; then find no markup."""
    upload_payload(page, name, content, field)
    page.get_by_text(shown).first.wait_for()
    wait_idle(page)
    if loaded is not None:
        page.get_by_role("button", name="Use this data").click()
        page.get_by_text(loaded).first.wait_for()
        wait_idle(page)
    if note is not None:
        shows(page, "[data-testid=stMain]", note)
    no_markup(page, where)


def test_names_with_markup_are_shown_as_text_in_every_message(browser, base):
    m = MARKUP
    # an item named twice in one ranking: the reader's error names it (a column of numbers
    # titled with markup is now skipped as another question, so it no longer fails)
    bad_column = (f"voter,1st,2nd,3rd\nann,{m['link']},{m['bold']},{m['link']}\n"
                  f"bob,{m['bold']},{m['link']},{m['bold']}\n").encode()
    soc = (f"# FILE NAME: x.soc\n# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 3\n"
           f"# ALTERNATIVE NAME 1: {m['bold']} {m['link']}\n"
           f"# ALTERNATIVE NAME 2: {m['bold']} {m['link']}\n"
           f"# ALTERNATIVE NAME 3: {m['image']} {m['html']}\n"
           "2: 1,2,3\n1: 2,1,3\n").encode()
    truth = f"item,score\n{m['link']},1\n{m['html']},2\n".encode()
    groups = (f"voter,1st,2nd\nann,{m['link']},{m['image']}\nbob,{m['image']},{m['link']}\n"
              f"cy,{m['bold']},{m['html']}\ndi,{m['html']},{m['bold']}\n").encode()
    name = f"{m['bold']} {m['link']} {m['html']}"
    page, dialogs = new_page(browser)
    page.goto(f"{base}/data")
    page.wait_for_selector("h1")
    wait_idle(page)
    page.get_by_text("My own file").click()
    wait_idle(page)
    # a reader error naming a column, and "still loaded"
    upload_checked(page, f"{name} bad.csv", bad_column, "We could not read this file",
                   "reader error")
    # a PrefLib file whose duplicate names get a note; the loaded message and header
    upload_checked(page, f"{name}.soc", soc, "We read this as",
                   "PrefLib note, loaded message, header", loaded="What is loaded:",
                   note="are both called")
    # a truth file naming items the data do not have
    upload_checked(page, f"{name} truth.csv", truth, "not in the preferences", "truth error",
                   field=1)
    # two groups never compared: the warning names them
    upload_checked(page, f"{name} groups.csv", groups, "We read this as", "groups warning",
                   loaded="never compared")
    # the noisy copy's title, the status line and the sidebar
    go(page, "Noise", "Noise")
    page.get_by_role("button", name="Make the noisy copy").click()
    page.get_by_role("heading", name="What changed").wait_for()
    wait_idle(page)
    shows(page, "[data-testid=stMain]", "noisy copy of")
    no_markup(page, "noisy copy")
    go(page, "Consensus ranking", "Consensus ranking")
    no_markup(page, "consensus")
    body = page.locator("[data-testid=stMain]").inner_text()
    assert m["bold"] in body  # shown literally, as typed
    assert not dialogs
    page.close()


def websocket_status(port: int, host: str) -> int:
    """The status of a WebSocket upgrade to the app sent with this Host (and Origin)."""
    import base64
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("GET", "/_stcore/stream", skip_host=True)
    for header, value in (("Host", host), ("Origin", f"http://{host}"),
                          ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                          ("Sec-WebSocket-Key", base64.b64encode(os.urandom(16)).decode()),
                          ("Sec-WebSocket-Version", "13"),
                          ("Sec-WebSocket-Protocol", "streamlit")):
        connection.putheader(header, value)
    connection.endheaders()
    try:
        return connection.getresponse().status
    finally:
        connection.close()


def test_the_server_refuses_host_names_it_was_not_told_about(base):
    port = int(base.rsplit(":", 1)[1])
    assert websocket_status(port, f"127.0.0.1:{port}") == 101
    assert websocket_status(port, f"localhost:{port}") == 101
    assert websocket_status(port, f"evil.example:{port}") == 403


def test_scenario_settings_moved_but_not_created_survive_a_switch_of_source(browser, base):
    """The builder's settings were inside a form: moved but not submitted, they never reached
    the server and were lost when the user looked at another source first."""
    page, _ = new_page(browser)
    page.goto(f"{base}/data")
    page.wait_for_selector("h1")
    wait_idle(page)
    raters = page.locator('input[aria-label="Raters"]')
    page.get_by_text("A simulated scenario (for teaching)").click()
    raters.wait_for()
    wait_idle(page)
    assert raters.get_attribute("aria-valuetext") == "60"
    for step in range(61, 68):  # one key at a time: each move reruns the page, which can
        raters.focus()          # redraw the slider and take the focus from it
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([el, v]) => el.getAttribute('aria-valuetext') === v",
            arg=[raters.element_handle(), str(step)], timeout=30_000)
        wait_idle(page)
    page.get_by_text("A built-in sample").click()
    page.get_by_role("button", name="Load this sample").wait_for()
    wait_idle(page)
    page.get_by_text("A simulated scenario (for teaching)").click()
    raters.wait_for()
    wait_idle(page)
    assert raters.get_attribute("aria-valuetext") == "67"
    page.get_by_role("button", name="Create scenario").click()
    page.get_by_text("Scenario created.").wait_for()
    wait_idle(page)
    assert "10 items, 67 raters" in page.locator("h2", has_text="What is loaded").inner_text()
    assert page.locator("[data-testid=stException]").count() == 0
    page.close()


def test_an_upload_travels_as_a_session_file_to_another_browser(browser, tmp_path, base):
    upload = tmp_path / "coffee.csv"
    upload.write_text(UPLOAD, encoding="utf-8")
    page, _ = new_page(browser)
    give_own_file(page, base, upload, "We read this as")
    wait_idle(page)
    page.get_by_role("button", name="Use this data").click()
    page.get_by_text("Loaded coffee.csv").wait_for()
    wait_idle(page)
    go(page, "Consensus ranking", "Consensus ranking")
    consensus_done(page)
    cells = consensus_cells(page)
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text("Share or save this view").click()
    # the expander's body is drawn after the click returns: wait for it, then read it
    sidebar.get_by_text("Uploaded data cannot travel in a link").first.wait_for()
    assert "Uploaded data cannot travel in a link" in sidebar.inner_text()
    button = sidebar.get_by_role("button", name="Download the session (.json)")
    button.wait_for()
    page.wait_for_timeout(500)  # the expander has finished opening
    saved = tmp_path / "session.json"
    download_after_click(page, button).save_as(saved)
    page.close()

    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    other = context.new_page()
    other.set_default_timeout(90_000)
    other.goto(f"{base}/data")
    other.wait_for_selector("h1")
    wait_idle(other)
    other.get_by_text("A saved session").click()
    wait_idle(other)
    other.locator("input[type=file]").first.set_input_files(str(saved))
    other.get_by_text("Opened the session").wait_for()
    wait_idle(other)
    sidebar_shows(other, "coffee.csv")
    go(other, "Consensus ranking", "Consensus ranking")
    consensus_done(other)
    assert consensus_cells(other) == cells
    context.close()


def start_two_process_sweep(page, base: str) -> int:
    """Start a long DIC sweep on two processes; return the server's process id once both
    workers run (500 raters ordering 40 items: 20,000 list entries)."""
    page.goto(f"{base}/dic?data=scenario%3A40%2C500%2C40%2C0%2C1")
    page.wait_for_selector("h1")
    wait_idle(page)
    page.get_by_text("My own list", exact=True).click()
    page.get_by_label("My own list (comma-separated)").fill(
        ", ".join(str(100 * k) for k in range(1, 31)))
    page.get_by_role("spinbutton", name="Warm-up sweeps (discarded)").fill("1000")
    page.get_by_role("spinbutton", name="Posterior draws per α").fill("1000")
    # the settings sit in a form: the click on Run sends them. On a loaded machine that
    # click once went unseen for 90 s in a full run: while Run is offered, click again
    click_until_shown(page.get_by_role("button", name="Run", exact=True),
                      page.get_by_text("Sampling the posterior for each α"))
    server = SERVER_PID[0]
    deadline = time.time() + 60
    while len(children(server)) < 2 and time.time() < deadline:
        time.sleep(0.2)
    assert len(children(server)) >= 2, "the sweep did not start two workers"
    return server


def test_stop_ends_a_sweep_on_both_cores_and_its_worker_processes(browser):
    # 500 raters ordering 40 items: 20,000 list entries, so the sweep runs on two processes
    with served_app() as base:
        page, _ = new_page(browser)
        server = start_two_process_sweep(page, base)
        page.locator("[data-testid=stMain]").get_by_role("button", name="Stop", exact=True).click()
        page.get_by_text("The DIC run was stopped").wait_for()
        wait_idle(page)
        deadline = time.time() + 30
        while children(server) and time.time() < deadline:
            time.sleep(0.2)
        assert children(server) == [], "worker processes kept running after Stop"
        assert page.locator("[data-testid=stPlotlyChart]").count() == 0
        page.close()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_closing_the_tab_ends_a_long_sweep_and_its_workers_within_two_seconds(browser):
    # the same two-process sweep as above, but the viewer closes the tab instead of
    # pressing Stop: Streamlit keeps a disconnected session's script running, so the sweep
    # must notice by itself
    with served_app() as base:
        page, _ = new_page(browser)
        server = start_two_process_sweep(page, base)
        page.close()
        time.sleep(2.0)
        assert children(server) == [], "worker processes kept running after the tab closed"
        before = cpu_seconds(server)
        time.sleep(1.5)
        used = cpu_seconds(server) - before
        assert used < 0.3, f"the server still worked {used:.2f} s of 1.5 s after the tab closed"


def large_workbook(path: Path, rows: int) -> Path:
    """A valid ``worker,winner,loser`` workbook of ``rows`` rows (inline strings)."""
    import zipfile

    from tests.test_io_containers import workbook
    body = "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>w{r % 997}</t></is></c>'
                   f'<c r="B{r}" t="inlineStr"><is><t>i{r % 89}</t></is></c>'
                   f'<c r="C{r}" t="inlineStr"><is><t>i{(r + 1 + r % 87) % 89}</t></is></c>'
                   "</row>" for r in range(2, rows + 2))
    head = ('<row r="1"><c r="A1" t="inlineStr"><is><t>worker</t></is></c><c r="B1" '
            't="inlineStr"><is><t>winner</t></is></c><c r="C1" t="inlineStr"><is><t>loser'
            "</t></is></c></row>")
    path.write_bytes(workbook(head + body))
    assert zipfile.is_zipfile(path)
    return path


def start_reading(page, base: str, path: Path) -> None:
    """Open the Data page, give the uploader a large workbook and wait until it is read."""
    give_own_file(page, base, path, "Reading the file")


def test_stop_ends_the_reading_of_a_large_workbook(browser, tmp_path):
    # issue 21: 1 M rows took 94 s with no Stop; the reading now checks every few thousand
    # cells whether Stop was pressed
    path = large_workbook(tmp_path / "large.xlsx", 800_000)
    with served_app() as base:
        page, _ = new_page(browser)
        start_reading(page, base, path)
        page.wait_for_timeout(500)
        clicked = time.monotonic()
        page.locator("[data-testid=stMain]").get_by_role("button", name="Stop", exact=True).click()
        page.get_by_text("Reading the file was stopped").wait_for(timeout=20_000)
        assert time.monotonic() - clicked < 10
        assert page.get_by_text("We read this as").count() == 0
        assert page.locator("[data-testid=stException]").count() == 0
        page.close()


def test_closing_the_tab_ends_the_reading_of_a_large_workbook_within_two_seconds(
        browser, tmp_path):
    path = large_workbook(tmp_path / "large.xlsx", 800_000)
    with served_app() as base:
        page, _ = new_page(browser)
        start_reading(page, base, path)
        page.wait_for_timeout(500)
        server = SERVER_PID[0]
        page.close()
        time.sleep(2.0)
        before = cpu_seconds(server)
        time.sleep(1.5)
        used = cpu_seconds(server) - before
        assert used < 0.3, f"the server still read {used:.2f} s of 1.5 s after the tab closed"
