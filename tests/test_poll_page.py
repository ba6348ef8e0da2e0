"""AppTest checks of the Live poll page: create, the student's ballot, the teacher's results."""

import io
import time
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from coarsenrank_core import read_preferences
from coarsenrank_core.registry import DEFAULT_METHOD, run_method
from tests.test_app import APP, no_failure
from ui import poll as poll_ui
from ui.poll_store import is_token, new_token
from ui.text import plain

EVIL = "<img src=x onerror=alert(1)> **bold**"
ITEMS = ["Pizza", "Pasta", "Salad", "Soup", EVIL]


@pytest.fixture
def store(tmp_path, monkeypatch):
    """The store the page uses: an SQLite file in a fresh data directory."""
    monkeypatch.delenv("COARSENRANK_DATABASE_URL", raising=False)
    monkeypatch.setenv("COARSENRANK_DATA_DIR", str(tmp_path / "data"))
    return poll_ui.store()


def poll_app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    return at.switch_page("pages/poll.py").run()


def press(at: AppTest, label: str) -> AppTest:
    [button] = [b for b in at.button if b.label == label]
    return button.click().run()


def texts(at: AppTest) -> str:
    main = at.main
    return "\n".join([str(t.value) for t in main.text] + [m.value for m in main.markdown]
                     + [c.value for c in main.caption] + [s.value for s in main.subheader])


def test_teacher_creates_a_poll_and_gets_links_qr_code_and_join_code(store):
    at = poll_app()
    no_failure(at)
    at.text_area(key="poll_items").input("\n".join(ITEMS) + "\n\n")
    at.text_input(key="poll_question").input("Best *lunch*?")
    at = press(at, "Create poll")
    no_failure(at)
    code, key = at.query_params["poll"], at.query_params["key"]
    code = code[0] if isinstance(code, list) else code
    key = key[0] if isinstance(key, list) else key
    poll = store.teacher_poll(code, key)
    assert poll.items == tuple(ITEMS) and poll.question == "Best *lunch*?"
    assert [t.value for t in at.title] == ["Live poll: results"]
    assert plain("Best *lunch*?") in [s.value for s in at.subheader]
    codes = [c.value for c in at.code]
    assert f"/poll?poll={code}" in codes and f"/poll?poll={code}&key={key}" in codes
    assert any(code in m.value for m in at.markdown)  # the join code
    assert len(at.get("image")) == 1  # the QR code
    assert {m.label: m.value for m in at.metric}["Answers"] == "0"


@pytest.mark.parametrize("items, message", [("Only one", "at least 2"),
                                            ("a\nA", "repeats item 1")])
def test_bad_items_give_a_plain_message(store, items, message):
    at = poll_app()
    at.text_area(key="poll_items").input(items)
    at = press(at, "Create poll")
    no_failure(at)
    assert any(message in e.value for e in at.error)
    assert "poll" not in at.query_params


def test_student_ranks_by_tapping_with_a_tie_undo_and_clear_and_can_change(store):
    poll, key = store.create_poll(ITEMS, question="Q")
    at = poll_app(poll=poll.poll_id.lower())
    no_failure(at)
    token = at.query_params["token"]
    token = token[0] if isinstance(token, list) else token
    assert len(token) >= 22
    assert not at.metric and not at.dataframe  # no results for students
    # nor the analyst's line of the session's data and α above the ballot
    assert not any(c.value.startswith("Loaded:") for c in at.caption), \
        [c.value for c in at.caption]
    submit = [b for b in at.button if b.key == "poll_submit"][0]
    assert submit.disabled  # nothing ranked yet
    for name in ("Soup", "Pizza"):
        at = press(at, plain(name))
    at.toggle(key="poll_tie").set_value(True).run()
    at = press(at, "Pasta")  # ties with Pizza
    at = press(at, plain(EVIL))
    at = press(at, "Undo")
    at = press(at, "Salad")
    at = press(at, plain(EVIL))
    assert "1. Soup\n2. Pizza = Pasta\n4. Salad\n5. " + EVIL in [t.value for t in at.text]
    at = press(at, "Submit")
    no_failure(at)
    assert any("Submitted" in s.value for s in at.success)
    answer = store.answer_of(poll.poll_id, token)
    assert answer.ranking == ((3,), (0, 1), (2,), (4,))
    # change the answer (after the rate limit's second)
    at = press(at, "Clear")
    for name in ("Salad", "Soup", "Pasta", "Pizza", EVIL):
        at = press(at, plain(name))
    import time
    time.sleep(1.05)
    at = press(at, "Submit the change")
    no_failure(at)
    assert store.answer_of(poll.poll_id, token).ranking == ((2,), (3,), (1,), (0,), (4,))
    assert store.count(poll.poll_id, key) == 1
    assert not at.metric and not at.dataframe


def test_closed_poll_takes_no_answer_and_shows_the_result_only_when_the_teacher_says(store):
    poll, key = store.create_poll(ITEMS[:3])
    for ranking in ([[0], [1], [2]], [[0], [2], [1]], [[1], [0], [2]]):
        store.submit(poll.poll_id, new_token(), ranking)
    store.close_poll(poll.poll_id, key)
    at = poll_app(poll=poll.poll_id)
    no_failure(at)
    assert any("closed" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "poll_submit"]
    assert "consensus" not in texts(at) and "1. Pizza" not in texts(at)
    store.show_results(poll.poll_id, key, True)
    at = poll_app(poll=poll.poll_id)
    assert "The class's consensus" in texts(at)
    assert "1. Pizza" in texts(at)


@pytest.mark.parametrize("key", ["", "wrong", None])
def test_teacher_link_without_the_right_key_shows_no_results(store, key):
    poll, right = store.create_poll(ITEMS)
    for i in range(3):
        store.submit(poll.poll_id, new_token(), [[i], [3], [4]])
    params = {"poll": poll.poll_id} if key is None else {"poll": poll.poll_id, "key": key}
    at = poll_app(**params)
    no_failure(at)
    assert not at.metric and not at.dataframe and not at.main.code
    assert "results" not in " ".join(t.value for t in at.title)
    if key is not None:  # a wrong key reads as a missing poll
        missing = poll_app(poll="ZZZZZZ", key=right)
        assert [w.value for w in at.warning] == [w.value for w in missing.warning] != []


def test_teacher_sees_count_consensus_careless_flags_csv_and_loads_the_answers(store):
    poll, key = store.create_poll(ITEMS)
    rng = np.random.default_rng(0)
    for _ in range(9):
        store.submit(poll.poll_id, new_token(), [[0], [1], [2], [3], [4]])
    for _ in range(3):
        store.submit(poll.poll_id, new_token(), [[int(i)] for i in rng.permutation(5)])
    at = poll_app(poll=poll.poll_id, key=key)
    no_failure(at)
    assert {m.label: m.value for m in at.metric}["Answers"] == "12"
    assert any(c.value.startswith("Loaded:") for c in at.caption)  # the teacher's status
    table = at.dataframe[0].value
    _, answers = store.answers(poll.poll_id, key)
    prefs = poll_ui.poll_preferences(poll, answers)
    expected = [ITEMS[i] for i in run_method(DEFAULT_METHOD, prefs).order]
    assert list(table["item"]) == expected and list(table["rank"]) == [1, 2, 3, 4, 5]
    assert any(c.startswith("likely ranks") for c in table.columns)
    captions = " ".join(c.value for c in at.caption)
    assert "refits on the answers resampled at random" in captions
    # the download is the package's own layout and reads back equal
    [download] = [d for d in at.get("download_button") if d.proto.label.startswith(
        "Download the answers")]
    csv = poll_ui.poll_csv(prefs)
    assert csv.splitlines()[0] == "preference,ranker,weight,item,rank"
    assert len(csv.splitlines()) == 1 + 12 * 5
    upload = io.BytesIO(csv.encode("utf-8"))
    upload.name = download.proto.file_name if hasattr(download.proto, "file_name") else "p.csv"
    assert read_preferences(upload) == prefs
    at = press(at, "Use these answers as the session's data")
    no_failure(at)
    at = at.switch_page("pages/consensus.py").run()
    no_failure(at)
    assert f"Live poll {poll.poll_id}" in " ".join(c.value for c in at.sidebar.caption) + \
        " ".join(str(t.value) for t in at.sidebar.get("text")) + \
        " ".join(m.value for m in at.sidebar.markdown)


def test_teacher_closes_reopens_and_deletes(store):
    poll, key = store.create_poll(ITEMS)
    at = poll_app(poll=poll.poll_id, key=key)
    at = press(at, "Close the poll")
    no_failure(at)
    assert not store.poll(poll.poll_id).is_open()
    at = press(at, "Reopen the poll")
    assert store.poll(poll.poll_id).is_open()
    at.checkbox(key="poll_sure").check().run()
    at = press(at, "Delete")
    no_failure(at)
    with pytest.raises(Exception, match="no poll"):
        store.poll(poll.poll_id)


def test_the_live_poll_page_leads_the_teacher_back_to_the_running_poll(store):
    poll, key = store.create_poll(ITEMS, question="Lunch?")
    at = poll_app(poll=poll.poll_id, key=key)
    no_failure(at)
    for name in list(at.query_params):  # another page, then "Live poll" in the sidebar
        del at.query_params[name]
    at = at.switch_page("pages/consensus.py").run()
    at = at.switch_page("pages/poll.py").run()
    no_failure(at)
    assert any(f"Your poll {poll.poll_id} (open)" in i.value for i in at.info)
    at = press(at, "Back to your poll's results")
    no_failure(at)
    assert at.title[0].value == "Live poll: results"
    assert {m.label for m in at.metric} >= {"Answers"}
    # a student's session never ran the teacher's view: no way to the results
    student = poll_app(poll=poll.poll_id)
    for name in list(student.query_params):
        del student.query_params[name]
    student = student.switch_page("pages/poll.py").run()
    assert not student.info and not [b for b in student.button if b.key == "poll_back"]


def test_home_page_join_code_opens_the_poll(store):
    poll, _ = store.create_poll(ITEMS)
    at = AppTest.from_file(APP, default_timeout=120).run()
    no_failure(at)
    at.text_input(key="home_join").input(poll.poll_id.lower()[:3] + " " +
                                        poll.poll_id.lower()[3:])
    at = press(at, "Join the poll")
    no_failure(at)
    assert [t.value for t in at.title] == ["Live poll"]
    assert [b for b in at.button if b.label == "Pizza"]


def test_the_page_runs_on_postgresql_when_a_database_url_is_set(monkeypatch):
    from tests.test_poll_store import POSTGRES_URL, _postgres_location

    schema = _postgres_location()
    monkeypatch.setenv("COARSENRANK_DATABASE_URL",
                       f"{POSTGRES_URL}?options=-csearch_path%3D{schema}")
    try:
        store = poll_ui.store()
        assert store.kind == "postgresql"
        at = poll_app()
        at.text_area(key="poll_items").input("Tea\nCoffee\nJuice")
        at = press(at, "Create poll")
        no_failure(at)
        code = at.query_params["poll"]
        code = code[0] if isinstance(code, list) else code
        key = at.query_params["key"]
        key = key[0] if isinstance(key, list) else key
        student = poll_app(poll=code)
        for name in ("Juice", "Tea", "Coffee"):
            student = press(student, name)
        student = press(student, "Submit")
        no_failure(student)
        assert store.count(code, key) == 1
        teacher = poll_app(poll=code, key=key)
        assert {m.label: m.value for m in teacher.metric}["Answers"] == "1"
    finally:
        import psycopg
        with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


def test_a_store_that_cannot_be_opened_gives_a_plain_message(monkeypatch):
    monkeypatch.setenv("COARSENRANK_DATABASE_URL",
                       "postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2")
    at = poll_app()
    at.text_area(key="poll_items").input("Tea\nCoffee")
    at = press(at, "Create poll")
    no_failure(at)
    [error] = [e.value for e in at.error]
    assert "cannot be opened" in error and "secret" not in error
    at = poll_app(poll="ABCDEF")
    no_failure(at)
    assert any("cannot be opened" in e.value for e in at.error)


def test_next_poll_in_a_session_students_follow_and_careless_students_are_flagged(store):
    from coarsenrank_core.diagnostics import careless_rankers

    first, key = store.create_poll(ITEMS[:4], question="Lunch?")
    rng = np.random.default_rng(1)
    careful = [new_token() for _ in range(8)]
    careless = [new_token() for _ in range(3)]
    for token in careful:
        store.submit(first.poll_id, token, [[0], [1], [2], [3]])
    for token in careless:
        store.submit(first.poll_id, token, [[int(i)] for i in rng.permutation(4)])
    student = poll_app(poll=first.poll_id, token=careful[0])
    assert not [b for b in student.button if b.key == "poll_next_go"]  # no next poll yet

    at = poll_app(poll=first.poll_id, key=key)
    no_failure(at)
    assert "per-list mixture" in texts(at)  # one poll: flags per answer
    at.text_area(key="poll_next_items").input("Tea\nCoffee\nJuice\nWater\nMilk")
    at.text_input(key="poll_next_question").input("Drink?")
    at = press(at, "Start the next poll")
    no_failure(at)
    code = at.query_params["poll"]
    code = code[0] if isinstance(code, list) else code
    assert code != first.poll_id and at.query_params["key"] in (key, [key])
    second = store.teacher_poll(code, key)
    assert second.position == 2 and second.session_id == first.poll_id
    assert not store.poll(first.poll_id).is_open()
    assert "Poll 2 of the session" in texts(at)
    # the form is emptied: a second click (a double tap) starts no poll after the new one
    assert at.text_area(key="poll_next_items").value == ""
    at = press(at, "Start the next poll")
    assert at.query_params["poll"] in (code, [code])
    assert [e.value for e in at.error] == ["A poll needs at least 2 items, one per line."]
    assert store.next_poll(code) is None
    assert len(store.session_answers(code, key)) == 2  # the session holds two polls
    at = at.run()  # the message was for that click only
    assert not at.error

    # a student still on the first poll is offered the next one, with the same token
    student = poll_app(poll=first.poll_id, token=careful[0])
    no_failure(student)
    student = press(student, "Go to the next poll")
    no_failure(student)
    assert student.query_params["poll"] in (code, [code])
    assert student.query_params["token"] in (careful[0], [careful[0]])
    assert [b for b in student.button if b.label == "Tea"]

    for token in careful:
        store.submit(code, token, [[0], [1], [2], [3], [4]])
    for token in careless:
        store.submit(code, token, [[int(i)] for i in rng.permutation(5)])
    at = poll_app(poll=code, key=key)
    no_failure(at)
    assert {m.label: m.value for m in at.metric}["Answers"] == "11"
    assert "per-rater mixture" in texts(at) and "per-list mixture" not in texts(at)
    session = store.session_answers(code, key)
    expected = careless_rankers(poll_ui.session_preferences(session), "pl-mix-ranker")
    flagged = [n for n, p in zip(expected.names, expected.probability) if p > 0.5]
    assert flagged == ["student 9", "student 10", "student 11"]  # the three at random
    [table] = [d.value for d in at.dataframe if "student" in d.value.columns]
    assert list(table["student"]) == flagged and list(table["answers"]) == [2, 2, 2]
    prefs = poll_ui.session_preferences(session)
    assert prefs.n_rankers == 11 and len(prefs) == 22 and prefs.n_items == 9
    assert prefs.item_names[:2] == ("P1: Pizza", "P1: Pasta")


# ------------------------------------------------------------------ the browser's token
def test_browser_token_takes_the_address_then_the_cookie_then_a_new_one():
    url, cookie = new_token(), new_token()
    assert poll_ui.browser_token(url, None) == (url, True)
    assert poll_ui.browser_token(url, url) == (url, False)
    assert poll_ui.browser_token(url, cookie) == (url, True)  # the address wins: cookie follows
    assert poll_ui.browser_token(None, cookie) == (cookie, False)
    assert poll_ui.browser_token("", cookie) == (cookie, False)
    fresh, write = poll_ui.browser_token(None, None)
    assert is_token(fresh) and write and fresh not in (url, cookie)


BAD_TOKENS = ["", "short", url_ok := new_token() + "x", url_ok[:21], url_ok[:21] + "\n",
              url_ok[:21] + "=", url_ok[:21] + ";", "<script>alert(1)</script>", "a" * 64,
              "a b" * 8, "é" * 22, None, 12345, [new_token()]]


@pytest.mark.parametrize("bad", BAD_TOKENS, ids=range(len(BAD_TOKENS)))
def test_a_token_not_of_new_tokens_form_is_ignored(bad):
    good = new_token()
    assert not is_token(bad)
    assert poll_ui.browser_token(bad, good) == (good, False)
    fresh, write = poll_ui.browser_token(bad, bad)
    assert is_token(fresh) and write and fresh != bad
    assert all(is_token(new_token()) for _ in range(1000))


@pytest.fixture
def cookies(monkeypatch):
    """The cookies the browser sends when it opens the session (AppTest cannot seed them)."""
    import streamlit.runtime.context as context

    jar: dict[str, str] = {}
    client = SimpleNamespace(cookies=jar, headers=(), remote_ip=None)
    monkeypatch.setattr(context, "_get_client_context", lambda: client)
    return jar


def cookie_scripts(at: AppTest) -> list[str]:
    """The page's scripts that write the token cookie (in the sidebar: no gap in the page)."""
    assert not [h for h in at.main.get("html") if "document.cookie" in h.proto.body]
    return [h.proto.body for h in at.sidebar.get("html") if "document.cookie" in h.proto.body]


def url_token(at: AppTest) -> str:
    token = at.query_params["token"]
    return token[0] if isinstance(token, list) else token


def test_a_new_tab_without_a_token_in_its_address_uses_the_cookies_token(store, cookies):
    poll, key = store.create_poll(ITEMS, question="Q")
    mine = new_token()
    store.submit(poll.poll_id, mine, [[0], [1], [2], [3], [4]])
    cookies[poll_ui.TOKEN_COOKIE] = mine
    at = poll_app(poll=poll.poll_id)  # the plain student link, as from the QR code
    no_failure(at)
    assert url_token(at) == mine
    assert "Your answer is stored" in texts(at)
    assert "1. Pizza\n2. Pasta" in "\n".join(t.value for t in at.text)
    assert [b.label for b in at.button if b.key == "poll_submit"] == ["Submit the change"]
    assert not cookie_scripts(at)  # the cookie already holds this token
    # the change replaces the answer: still one answer from this browser
    at = press(at, "Clear")
    for name in ("Soup", "Salad", "Pasta", "Pizza", EVIL):
        at = press(at, plain(name))
    time.sleep(1.05)  # the store takes one answer a second
    at = press(at, "Submit the change")
    no_failure(at)
    assert store.count(poll.poll_id, key) == 1
    assert store.answer_of(poll.poll_id, mine).ranking == ((3,), (2,), (1,), (0,), (4,))


def test_the_cookie_is_written_with_the_token_only_when_missing_or_different(store, cookies):
    poll, _ = store.create_poll(ITEMS)
    at = poll_app(poll=poll.poll_id)  # no cookie yet: a new token, written to the cookie
    token = url_token(at)
    [script] = cookie_scripts(at)
    assert f'"{poll_ui.TOKEN_COOKIE}={token}; path=/; max-age=2592000; SameSite=Lax"' in script
    assert script.count("coarsenrank_poll_token=") == 1 and "Secure" in script  # https only
    # the address's token wins over another cookie, which then follows it
    cookies[poll_ui.TOKEN_COOKIE] = new_token()
    at = poll_app(poll=poll.poll_id, token=token)
    assert url_token(at) == token and f"={token};" in cookie_scripts(at)[0]
    cookies[poll_ui.TOKEN_COOKIE] = token
    assert not cookie_scripts(poll_app(poll=poll.poll_id, token=token))


@pytest.mark.parametrize("where", ["address", "cookie", "both"])
def test_an_invalid_token_in_the_address_or_cookie_is_ignored_and_never_shown(
        store, cookies, where):
    poll, key = store.create_poll(ITEMS)
    bad = '"; alert(1); x="<script>'
    cookies[poll_ui.TOKEN_COOKIE] = bad if where != "address" else new_token()
    params = {"token": bad} if where != "cookie" else {}
    at = poll_app(poll=poll.poll_id, **params)
    no_failure(at)
    token = url_token(at)
    assert is_token(token) and token != bad
    if where == "address":
        assert token == cookies[poll_ui.TOKEN_COOKIE] and not cookie_scripts(at)
    else:
        [script] = cookie_scripts(at)
        assert f"={token};" in script
    assert all(bad not in h.proto.body for h in at.get("html"))
    assert bad not in texts(at)
    for name in ITEMS:
        at = press(at, plain(name))
    at = press(at, "Submit")
    no_failure(at)
    assert [a.token for a in store.answers(poll.poll_id, key)[1]] == [token]


def test_two_answers_get_the_posteriors_likely_ranks_and_the_caption_says_why(store):
    poll, key = store.create_poll(ITEMS)
    store.submit(poll.poll_id, new_token(), [[0], [1], [2], [3], [4]])
    store.submit(poll.poll_id, new_token(), [[1], [0], [2], [4], [3]])
    at = poll_app(poll=poll.poll_id, key=key)
    no_failure(at)
    captions = " ".join(c.value for c in at.caption)
    assert "draws of the model's posterior: too few students" in captions
    assert "resampled at random" not in captions


def test_a_store_that_stops_answering_mid_poll_gives_its_plain_message(store, monkeypatch):
    from ui.poll_store import PollStore, PollUnavailable

    poll, key = store.create_poll(ITEMS[:3])

    def stopped(*args, **kwargs):
        raise PollUnavailable()

    monkeypatch.setattr(PollStore, "answer_of", stopped)
    monkeypatch.setattr(PollStore, "answers", stopped)
    for params in ({"poll": poll.poll_id}, {"poll": poll.poll_id, "key": key}):
        at = poll_app(**params)
        no_failure(at)
        assert any("not answering" in w.value for w in at.warning), params


@pytest.mark.parametrize("keep, said", [("", "no new poll or answer for 180 days"),
                                        ("30", "for 30 days"),
                                        ("forever", "kept until you delete them")])
def test_the_teachers_results_say_how_long_the_poll_is_kept(store, monkeypatch, keep, said):
    monkeypatch.setenv("COARSENRANK_POLL_KEEP_DAYS", keep)
    at = poll_app()
    at.text_area(key="poll_items").input("\n".join(ITEMS))
    at = press(at, "Create poll")
    no_failure(at)
    assert [t.value for t in at.title] == ["Live poll: results"]
    assert said in texts(at)  # before any answer, not only beside the download
