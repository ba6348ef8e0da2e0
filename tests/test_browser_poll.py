"""Headless Chromium: a live poll in class, 3 phones, the teacher's results and a restart."""

import time
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from coarsenrank_core.registry import DEFAULT_METHOD, run_method
from tests.test_browser import (  # noqa: F401 - browser and shots are fixtures
    PHONE,
    browser,
    new_page,
    run_ended,
    served_app,
    shots,
    wait_idle,
)
from ui.poll import TOKEN_COOKIE, poll_preferences
from ui.poll_store import PollStore

pytestmark = pytest.mark.browser

ITEMS = ["Margherita", "Funghi", "Hawaii", "Quattro formaggi", "Diavola"]
STUDENTS = 3  # phones answering at once: three sessions beside the teacher's
CHANGERS = (1, 2)  # these students change their answer together after submitting
TIED = 0  # this student ties their 2nd and 3rd choices


def wait_main_idle(page) -> None:
    """Wait for a phone's page to finish its run: the title drawn, then no run in progress
    (a student's ballot has no status line to wait for, unlike the analyst's pages)."""
    page.locator("[data-testid=stMain] h1").first.wait_for()
    run_ended(page, settle=250)


def rankings() -> list[list[str]]:
    """What each student taps: most agree roughly, every third answers at random."""
    rng = np.random.default_rng(19)
    out = []
    for student in range(STUDENTS):
        order = list(ITEMS)
        if student % 3 == 2:
            order = [ITEMS[i] for i in rng.permutation(len(ITEMS))]
        elif student % 2:
            order[1], order[2] = order[2], order[1]
        out.append(order)
    return out


def tap(page, name: str) -> None:
    """Tap an item and wait until the page has put it in the ranking and its run has ended
    (the button leaving the page shows that the tap's run has drawn)."""
    page.get_by_role("button", name=name, exact=True).click()
    page.get_by_role("button", name=name, exact=True).wait_for(state="detached")
    run_ended(page, settle=100)


def rank_and_submit(page, order: list[str], tie_after: int | None = None,
                    label: str = "Submit", shot: Path | None = None) -> None:
    rank_and_submit_together([page], [order], ties={} if tie_after is None else {0: tie_after},
                             label=label, shot=shot)


def rank_and_submit_together(pages: list, orders: list[list[str]],
                             ties: dict[int, int] | None = None, label: str = "Submit",
                             shot: Path | None = None) -> None:
    """Phones answer at once: at each position every phone taps its next item, then each
    waits until its page has taken the tap; then all submit. ``ties`` maps a phone to the
    position after which its next tap shares the last place; ``shot`` is the first phone
    half-way through (the taps so far and the rest)."""
    ties = ties or {}
    for position in range(len(orders[0])):
        if shot is not None and position == 2:
            pages[0].screenshot(path=shot, full_page=True)
        for phone, tie_after in ties.items():
            if position == tie_after + 1:
                pages[phone].get_by_text("Tie: the next tap shares the last place").click()
                wait_main_idle(pages[phone])
        for page, order in zip(pages, orders):
            page.get_by_role("button", name=order[position], exact=True).click()
        for page, order in zip(pages, orders):
            # the button leaving the page shows that the tap's run has drawn
            page.get_by_role("button", name=order[position], exact=True) \
                .wait_for(state="detached")
            run_ended(page, settle=100)
    for page in pages:
        page.get_by_role("button", name=label, exact=True).click()
    for page in pages:
        submit = page.get_by_role("button", name=label, exact=True)
        try:
            page.get_by_text("Submitted: your answer is stored").wait_for(timeout=30_000)
        except PlaywrightTimeout:
            # a tap that met the page's 3-second refresh can go unseen; a student taps again
            # (only while the page still offers this button: a second tap would be a change)
            if not submit.is_visible():
                raise
            submit.click()
            page.get_by_text("Submitted: your answer is stored").wait_for()
        wait_main_idle(page)


def open_student_phones(chromium, url: str, count: int) -> list:
    """``count`` phones open ``url`` at once; the first at twice the pixels (its screenshots
    are the docs'). Returns their pages once each has drawn its ballot."""
    pages = []
    for phone in range(count):
        context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                       device_scale_factor=2 if phone == 0 else 1)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(url, wait_until="commit")
        pages.append(page)
    for page in pages:
        page.locator("h1", has_text="Live poll").wait_for()
        wait_main_idle(page)
    return pages


def answers_shown(page) -> str:
    return page.locator("[data-testid=stMetricValue]").first.inner_text().strip()


def consensus_items(page, count: int = len(ITEMS)) -> list[str]:
    """The item column of the teacher's consensus table (rank, item, likely ranks), once
    its ``count`` rows are drawn: the view's refresh may be redrawing the table."""
    table = page.locator("[data-testid=stDataFrame]").first
    for _ in range(60):
        table.locator("[role=gridcell]").first.wait_for(state="attached")
        cells = table.locator("[role=gridcell]").all_inner_texts()
        if len(cells) >= 3 * count and all(cells[1:3 * count:3]):
            break
        page.wait_for_timeout(500)
    return cells[1::3]


def package_consensus(location: Path, poll_id: str, key: str) -> list[str]:
    """The consensus the package computes from the stored answers (as the page does)."""
    store = PollStore(location)
    poll, answers = store.answers(poll_id, key)
    prefs = poll_preferences(poll, answers)
    return [poll.items[i] for i in run_method(DEFAULT_METHOD, prefs).order], len(answers)


def open_teacher_view(page, url: str, count: int) -> None:
    page.goto(url)
    page.locator("h1", has_text="Live poll: results").wait_for()
    wait_idle(page)
    page.wait_for_function(
        "(n) => { const m = document.querySelector('[data-testid=stMetricValue]');"
        " return m && m.innerText.trim() === String(n); }", arg=count, timeout=60_000)
    page.locator("[data-testid=stDataFrame]").first.wait_for()
    wait_idle(page)


@pytest.fixture
def location(tmp_path, monkeypatch) -> Path:
    """The SQLite store the served app writes (a fresh data directory, never PostgreSQL)."""
    data_dir = tmp_path / "data"
    monkeypatch.delenv("COARSENRANK_DATABASE_URL", raising=False)
    monkeypatch.setenv("COARSENRANK_DATA_DIR", str(data_dir))
    return data_dir / "polls.sqlite3"


def create_poll_as_teacher(teacher, base: str, items, question: str) -> tuple[str, str]:
    """Create a poll on the Live poll page; returns its id and teacher key from the URL."""
    teacher.goto(f"{base}/poll")
    teacher.locator("h1", has_text="Live poll").wait_for()
    wait_idle(teacher)
    teacher.get_by_label("Items to rank, one per line").fill("\n".join(items))
    teacher.get_by_label("Question (optional)").fill(question)
    teacher.get_by_role("button", name="Create poll").click()
    teacher.locator("h1", has_text="Live poll: results").wait_for()
    wait_idle(teacher)
    query = parse_qs(urlsplit(teacher.url).query)
    return query["poll"][0], query["key"][0]


def start_next_poll(teacher, items, question: str) -> str:
    """On the teacher's results: start the session's next poll; returns its id."""
    teacher.get_by_text("Next poll in this session").click()
    teacher.get_by_label("Items to rank, one per line").last.fill("\n".join(items))
    teacher.get_by_label("Question (optional)").last.fill(question)
    teacher.get_by_label("Question (optional)").last.press("Enter")  # committed
    wait_idle(teacher)
    # on a loaded machine the results' 3-second refresh can redraw the page under the
    # pointer for a while, and a click that meets a refresh can go unseen (as a student's
    # tap can): while the page still shows the first poll, the teacher clicks again
    first = parse_qs(urlsplit(teacher.url).query)["poll"][0]
    moved_on = teacher.get_by_text("Poll 2 of the session")
    for attempt in range(4):
        button = teacher.get_by_role("button", name="Start the next poll")
        try:
            if not button.is_visible():  # folded by a redraw: open it again
                teacher.get_by_text("Next poll in this session").click()
            button.click(timeout=20_000)
            moved_on.wait_for(timeout=30_000)
            break
        except PlaywrightTimeout:
            if moved_on.count() or parse_qs(urlsplit(teacher.url).query)["poll"] != [first]:
                break  # the click went through; the page moved on meanwhile
            box = teacher.get_by_label("Items to rank, one per line")
            if box.count() and not box.last.input_value().strip():
                # emptied: by the click's callback (the page then moves on), or by a redraw
                # that met the typing (then the form is filled again and clicked again)
                try:
                    teacher.wait_for_function(
                        "(first) => !location.search.includes('poll=' + first)", arg=first,
                        timeout=10_000)
                    break
                except PlaywrightTimeout:
                    if teacher.get_by_label("Items to rank, one per line").count():
                        teacher.get_by_label("Items to rank, one per line").last.fill(
                            "\n".join(items))
                        teacher.get_by_label("Question (optional)").last.fill(question)
                        teacher.get_by_label("Question (optional)").last.press("Enter")
                        wait_idle(teacher)
            assert not teacher.locator("[data-testid=stAlertContentError]").count(), \
                teacher.locator("[data-testid=stAlertContentError]").all_inner_texts()
            if attempt == 3:
                raise
    try:
        moved_on.wait_for()
    except PlaywrightTimeout:  # seen once in CI (run 54): the address moved on, the page not
        raise AssertionError(
            f"the teacher's address is {teacher.url} but after 90 s the page shows "
            f"{teacher.locator('[data-testid=stMain]').inner_text()[:600]!r}") from None
    wait_idle(teacher)
    return parse_qs(urlsplit(teacher.url).query)["poll"][0]


def test_a_class_answers_on_phones_and_the_teacher_sees_the_packages_consensus(
        browser, shots, location):  # noqa: F811 - the imported fixtures
    with served_app() as base:
        teacher, dialogs = new_page(browser)
        poll_id, key = create_poll_as_teacher(teacher, base, ITEMS,
                                              "Which pizza do you like best?")
        teacher_url = teacher.url
        student_link = teacher.locator("[data-testid=stMain] [data-testid=stCode] code") \
            .first.inner_text().strip()
        assert student_link == f"{base}/poll?poll={poll_id}", student_link
        teacher.locator("[data-testid=stMain] img").first.wait_for()  # the QR code
        assert teacher.locator("[data-testid=stMain] img").count() == 1
        teacher.get_by_text("Your teacher link (keep it private)").click()
        shown = teacher.locator("[data-testid=stMain] [data-testid=stCode] code").nth(1)
        shown.wait_for()
        assert shown.inner_text().strip() == teacher_url
        teacher.wait_for_timeout(600)  # the expander has opened
        teacher.screenshot(path=shots / "poll_teacher_links.png", full_page=True)
        assert poll_id in teacher.locator("[data-testid=stMain]").inner_text()

        # the class answers together, as it would: every phone taps its next item, then
        # each waits for its page to take the tap (one served app, six sessions at once)
        orders = rankings()
        phones = open_student_phones(browser, student_link, STUDENTS)
        for page in phones:
            main = page.locator("[data-testid=stMain]").inner_text()
            assert "Which pizza do you like best?" in main
            assert "Consensus" not in main and "Answers" not in main
        rank_and_submit_together(phones, orders, ties={TIED: 1},
                                 shot=shots / "poll_student_ranking.png")
        phones[0].screenshot(path=shots / "poll_student_phone.png", full_page=True)
        changers = [phones[student] for student in CHANGERS]
        changers[0].wait_for_timeout(1_100)  # the store takes one answer a second
        for page in changers:
            page.get_by_role("button", name="Clear", exact=True).click()
        for page, student in zip(changers, CHANGERS):
            cleared = page.get_by_role("button", name=orders[student][-1], exact=True)
            try:
                cleared.wait_for(timeout=30_000)
            except PlaywrightTimeout:
                # the answered page looks for the next poll every 3 seconds, and a tap that
                # meets that refresh can go unseen: a student taps Clear again (only while
                # it is still offered: once the ballot is empty it is disabled)
                clear = page.get_by_role("button", name="Clear", exact=True)
                if clear.is_enabled():
                    clear.click()
                cleared.wait_for()
            wait_main_idle(page)
        rank_and_submit_together(changers, [orders[s][::-1] for s in CHANGERS],
                                 label="Submit the change")
        for page in phones:
            assert page.locator("[data-testid=stDataFrame]").count() == 0
            assert page.locator("[data-testid=stMetric]").count() == 0
            assert page.locator("[data-testid=stException]").count() == 0
            page.context.close()

        # the teacher's view refreshes by itself: every answer and the package's consensus
        teacher.wait_for_function(
            "(n) => { const m = document.querySelector('[data-testid=stMetricValue]');"
            " return m && m.innerText.trim() === String(n); }", arg=STUDENTS,
            timeout=60_000)
        expected, stored = package_consensus(location, poll_id, key)
        assert stored == STUDENTS
        _, answers = PollStore(location).answers(poll_id, key)
        assert sorted(a.changes for a in answers) == \
            [0] * (STUDENTS - len(CHANGERS)) + [1] * len(CHANGERS)
        teacher.wait_for_timeout(4_000)  # one more refresh: the table of every answer
        wait_idle(teacher)
        assert consensus_items(teacher) == expected
        # the results' refresh also redrew the controls that need two answers: no reload
        teacher.get_by_role("button", name="Download the answers (.csv)").wait_for()
        teacher.get_by_role("button", name="Use these answers as the session's data").wait_for()
        teacher.screenshot(path=shots / "poll_teacher_results.png", full_page=True)

        # a student who opens the teacher link without its key sees no results
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{base}/poll?poll={poll_id}")
        page.locator("h1", has_text="Live poll").wait_for()
        wait_main_idle(page)
        main = page.locator("[data-testid=stMain]").inner_text()
        assert "results" not in page.locator("h1").first.inner_text()
        assert page.locator("[data-testid=stDataFrame]").count() == 0
        assert page.locator("[data-testid=stMetric]").count() == 0
        assert key not in main and "teacher link" not in main
        page.goto(f"{base}/poll?poll={poll_id}&key=not-the-key")
        page.get_by_text("There is no poll with this code").wait_for()
        assert page.locator("[data-testid=stDataFrame]").count() == 0
        context.close()
        assert not dialogs
        teacher.close()

    # a server restart loses nothing: a new server shows the same answers and consensus
    with served_app() as base:
        teacher, _ = new_page(browser)
        open_teacher_view(teacher, f"{base}/poll?poll={poll_id}&key={key}", STUDENTS)
        teacher.wait_for_timeout(1_000)
        assert answers_shown(teacher) == str(STUDENTS)
        assert consensus_items(teacher) == expected
        assert teacher.locator("[data-testid=stException]").count() == 0
        teacher.close()
    assert teacher_url.endswith(f"poll={poll_id}&key={key}")


SESSION_STUDENTS = 3
DRINKS = ["Tea", "Coffee", "Juice", "Water"]


def ballot_shown(page, item: str) -> None:
    """Wait for the ballot's first item button. Once in CI (run 47) the next poll's question
    showed but no item button came in 90 s; a student then reloads the page. If the button
    is still missing, fail naming what the phone shows."""
    button = page.get_by_role("button", name=item, exact=True)
    try:
        button.wait_for(timeout=30_000)
        return
    except PlaywrightTimeout:
        shown = page.locator("[data-testid=stMain]").inner_text()
    page.reload()
    page.locator("[data-testid=stMain] h1").first.wait_for()
    try:
        button.wait_for(timeout=60_000)
        warnings.warn(f"the '{item}' button came only after a reload; before it the phone "
                      f"showed {shown!r}", stacklevel=2)
    except PlaywrightTimeout:
        raise AssertionError(f"no '{item}' button at {page.url}; before the reload the phone "
                             f"showed {shown!r}, after it "
                             f"{page.locator('[data-testid=stMain]').inner_text()!r}") from None


def go_to_next_poll(page, question: str) -> None:
    """Tap "Go to the next poll" until the next poll's question shows. The button sits in
    the page's 3-second refresh; once in CI the next poll had not opened 90 s after a tap
    (not reproduced in 36 moves under load), and a student then taps again. Anything else
    (no button and no question) fails, naming what the phone shows."""
    button = page.get_by_role("button", name="Go to the next poll")
    for attempt in range(3):
        button.click()
        try:
            page.get_by_text(question).wait_for(timeout=30_000)
            return
        except PlaywrightTimeout:
            if attempt == 2 or not button.is_visible():
                main = page.locator("[data-testid=stMain]").inner_text()
                raise AssertionError(f"after {attempt + 1} taps the phone at {page.url} "
                                     f"shows {main!r}") from None


def test_a_second_poll_in_the_session_students_follow_on_their_phones(
        browser, shots, location):  # noqa: F811 - the imported fixtures
    """The teacher starts the next poll; each phone, still on the first poll, offers "Go to
    the next poll" by itself, keeps its token there, and the teacher's view of the second
    poll flags careless students with the per-rater mixture."""
    with served_app() as base:
        teacher, dialogs = new_page(browser)
        first, key = create_poll_as_teacher(teacher, base, ITEMS[:4], "Which pizza?")

        phones = open_student_phones(browser, f"{base}/poll?poll={first}", SESSION_STUDENTS)
        careful = [student < SESSION_STUDENTS - 1 for student in range(SESSION_STUDENTS)]
        rank_and_submit_together(phones, [ITEMS[:4] if c else ITEMS[:4][::-1] for c in careful])

        second = start_next_poll(teacher, DRINKS, "Which drink?")
        assert second != first and parse_qs(urlsplit(teacher.url).query)["key"] == [key]

        tokens = []
        for student, page in enumerate(phones):
            # the phone looks for the next poll by itself every few seconds
            page.get_by_role("button", name="Go to the next poll").wait_for(timeout=30_000)
            if student == 0:
                page.screenshot(path=shots / "poll_student_next.png", full_page=True)
            token = parse_qs(urlsplit(page.url).query)["token"][0]
            go_to_next_poll(page, "Which drink?")
            wait_main_idle(page)
            ballot_shown(page, DRINKS[0])
            moved = parse_qs(urlsplit(page.url).query)
            assert moved["poll"] == [second] and moved["token"] == [token]
            tokens.append(token)
        rank_and_submit_together(phones, [DRINKS if c else DRINKS[::-1] for c in careful])
        for page in phones:
            assert page.locator("[data-testid=stException]").count() == 0
            page.context.close()

        teacher.wait_for_function(
            "(n) => { const m = document.querySelector('[data-testid=stMetricValue]');"
            " return m && m.innerText.trim() === String(n); }", arg=SESSION_STUDENTS,
            timeout=60_000)
        teacher.get_by_text("per-rater mixture").wait_for(timeout=30_000)
        wait_idle(teacher)
        teacher.screenshot(path=shots / "poll_teacher_session.png", full_page=True)
        session = PollStore(location).session_answers(second, key)
        assert [len(a) for _, a in session] == [SESSION_STUDENTS] * 2
        # one student, two answers: the phones answered together, so in any order
        assert [sorted(a.token for a in answers) for _, answers in session] == [sorted(tokens)] * 2
        assert teacher.locator("[data-testid=stException]").count() == 0
        assert not dialogs
        teacher.close()


def open_student_link(page, url: str) -> dict[str, list[str]]:
    """Open a student link on a phone; returns the query the page settled on."""
    page.goto(url)
    page.locator("h1", has_text="Live poll").wait_for()
    wait_main_idle(page)
    page.wait_for_function("() => new URL(location.href).searchParams.has('token')")
    return parse_qs(urlsplit(page.url).query)


def token_cookies(context) -> list[dict]:
    return [c for c in context.cookies() if c["name"] == TOKEN_COOKIE]


def test_one_phone_keeps_its_token_across_tabs_and_polls_with_a_cookie(
        browser, shots, location):  # noqa: F811 - the imported fixtures
    """The plain student link (the QR code) opened again in a new tab, and the next poll's
    plain link: the same browser, the same token (one answer per browser, one student)."""
    with served_app() as base:
        teacher, dialogs = new_page(browser)
        first, key = create_poll_as_teacher(teacher, base, ITEMS[:4], "Which pizza?")
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(90_000)
        token = open_student_link(page, f"{base}/poll?poll={first}")["token"][0]
        rank_and_submit(page, ITEMS[:4])
        # the page wrote the cookie from the browser: the token, nothing else
        page.wait_for_function("(name) => document.cookie.includes(name + '=')",
                               arg=TOKEN_COOKIE)
        [cookie] = token_cookies(context)
        assert cookie["value"] == token and cookie["path"] == "/"
        assert cookie["sameSite"] == "Lax" and not cookie["httpOnly"]
        days = (cookie["expires"] - time.time()) / 86_400
        assert 29.9 < days <= 30
        # the script draws nothing: not in the page, a box of no height in the folded sidebar
        assert page.locator("[data-testid=stMain] [data-testid=stHtml]").count() == 0
        boxes = page.locator("[data-testid=stSidebar] [data-testid=stHtml]")
        assert boxes.count() >= 1
        assert all(boxes.nth(i).bounding_box()["height"] == 0 for i in range(boxes.count()))

        # the same plain link in a new tab: the stored answer, under the same token
        tab = context.new_page()
        tab.set_default_timeout(90_000)
        assert open_student_link(tab, f"{base}/poll?poll={first}")["token"] == [token]
        tab.get_by_text("Your answer is stored").wait_for()
        assert tab.get_by_role("button", name="Submit the change", exact=True).count() == 1
        tab.wait_for_timeout(1_100)  # the store takes one answer a second
        tab.get_by_role("button", name="Clear", exact=True).click()
        tab.get_by_role("button", name=ITEMS[3], exact=True).wait_for()
        wait_main_idle(tab)
        rank_and_submit(tab, ITEMS[:4][::-1], label="Submit the change")
        tab.screenshot(path=shots / "poll_student_new_tab.png", full_page=True)
        _, answers = PollStore(location).answers(first, key)
        assert [(a.token, a.changes) for a in answers] == [(token, 1)]
        assert answers[0].ranking == ((3,), (2,), (1,), (0,))
        tab.close()
        page.close()

        # the teacher starts the next poll; the phone opens its plain link afresh
        second = start_next_poll(teacher, DRINKS, "Which drink?")
        page = context.new_page()
        page.set_default_timeout(90_000)
        assert open_student_link(page, f"{base}/poll?poll={second}")["token"] == [token]
        page.get_by_text("Which drink?").wait_for()
        rank_and_submit(page, DRINKS)
        assert page.locator("[data-testid=stException]").count() == 0
        session = PollStore(location).session_answers(second, key)
        assert [[a.token for a in answers] for _, answers in session] == [[token], [token]]
        assert [c["value"] for c in token_cookies(context)] == [token]
        context.close()

        # another phone is another browser: its own token and cookie
        other = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        phone = other.new_page()
        phone.set_default_timeout(90_000)
        own = open_student_link(phone, f"{base}/poll?poll={second}")["token"][0]
        assert own != token
        phone.wait_for_function("(name) => document.cookie.includes(name + '=')",
                                arg=TOKEN_COOKIE)
        assert [c["value"] for c in token_cookies(other)] == [own]
        other.close()
        assert not dialogs
        teacher.close()
