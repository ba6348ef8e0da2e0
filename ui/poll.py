"""The Live poll page's parts: creating a poll, the student's ballot and the teacher's results."""

from __future__ import annotations

import io
import logging
import time
from urllib.parse import urlencode, urlsplit, urlunsplit

import numpy as np
import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.models.consensus import consensus_reason

from . import compute, state
from .poll_store import (
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MAX_QUESTION_CHARS,
    Poll,
    PollError,
    PollNotFound,
    PollStore,
    PollUnavailable,
    default_location,
    describe_location,
    is_token,
    keep_days,
    new_token,
    normalise_code,
)
from .text import count, plain

#: The items box holds at most this many characters: every item at its longest, a line each.
_ITEMS_CHARS = MAX_ITEMS * (MAX_ITEM_CHARS + 1)

_LOG = logging.getLogger("coarsenrank.dashboard")
#: the query parameters of the poll links: the join code, the teacher key, the browser token
POLL_PARAMS = ("poll", "key", "token")
REFRESH_SECONDS = 3
#: the cookie that keeps this browser's token across tabs and polls (it holds nothing else)
TOKEN_COOKIE = "coarsenrank_poll_token"
TOKEN_COOKIE_SECONDS = 30 * 24 * 3600
CARELESS_THRESHOLD = 0.5
CLOSING_CHOICES = {"Never (close it by hand)": None, "In 5 minutes": 5, "In 10 minutes": 10,
                   "In 15 minutes": 15, "In 30 minutes": 30, "In 1 hour": 60}


@st.cache_resource(show_spinner=False)
def _store(location: str) -> PollStore:
    return PollStore(location)


def store() -> PollStore:
    """The server's poll store (SQLite file or PostgreSQL, see :func:`default_location`).

    Raises :class:`PollError` with a plain message when it cannot be opened (a database
    server that does not answer, a folder that cannot be written).
    """
    location = default_location()
    failure: BaseException
    try:
        opened = _store(location)
        if not isinstance(opened, PollStore):
            # built before the server reloaded this code: its errors are the old module's
            # classes, which this module's ``except PollNotFound`` would not catch
            _store.clear()
            opened = _store(location)
        return opened
    except PollUnavailable as error:  # the driver's error, met while opening
        failure = error.__cause__ or error
    except PollError:
        raise
    except Exception as error:  # noqa: BLE001 - OSError, or the driver's own on connecting
        failure = error
    _LOG.error("opening the poll store failed: %r", failure)
    raise PollError(f"The poll store ({describe_location(location)}) cannot be opened "
                    f"({type(failure).__name__}). Ask whoever runs this server to check "
                    "COARSENRANK_DATA_DIR or COARSENRANK_DATABASE_URL.") from failure


# ------------------------------------------------------------------ engine side
def poll_preferences(poll: Poll, answers) -> Preferences:
    """The answers as preferences in the package's own terms: one list per browser, ranker
    ``answer 1``, ``answer 2``, ... in order of first submission, items named as in the poll."""
    lists = [[set(g) if len(g) > 1 else g[0] for g in a.ranking] for a in answers]
    return Preferences.from_lists(lists, n_items=len(poll.items), item_names=poll.items,
                                  rankers=[f"answer {i + 1}" for i in range(len(answers))])


def session_preferences(session) -> Preferences:
    """Every answer of a session's polls as one collection: items named ``P1: Pizza``
    (the poll's place, then the item), and one ranker per browser token, ``student 1``,
    ``student 2``, ... in order of first answer (never a name). ``session`` is what
    :meth:`PollStore.session_answers` returns."""
    names: list[str] = []
    lists, rankers, students = [], [], {}
    for poll, answers in session:
        offset = len(names)
        names.extend(f"P{poll.position}: {item}" for item in poll.items)
        for answer in answers:
            student = students.setdefault(answer.token, f"student {len(students) + 1}")
            lists.append([{offset + i for i in g} if len(g) > 1 else offset + g[0]
                          for g in answer.ranking])
            rankers.append(student)
    return Preferences.from_lists(lists, n_items=len(names), item_names=names,
                                  rankers=rankers)


def repeat_students(session) -> int:
    """How many browsers answered at least two polls of the session."""
    seen: dict[str, int] = {}
    for _, answers in session:
        for answer in answers:
            seen[answer.token] = seen.get(answer.token, 0) + 1
    return sum(n >= 2 for n in seen.values())


def poll_csv(prefs: Preferences) -> str:
    """The answers as the package's canonical CSV (``read_preferences`` reads it back equal)."""
    return prefs.to_csv()


def class_consensus(prefs: Preferences):
    """The package's default consensus of the answers and its bootstrap (for likely ranks),
    the same as the Consensus page and the command line's ``rank --posterior``."""
    key = prefs.fingerprint
    fit = compute.default_fit(prefs, key)
    return fit, compute.default_uncertainty(prefs, key)


# ------------------------------------------------------------------ links
def _page_address() -> str:
    """This page's address without its query (``/poll`` when unknown, e.g. in tests)."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - outside a browser session
        url = ""
    if not url:
        return "/poll"
    parts = urlsplit(url)
    segments = parts.path.rstrip("/").split("/")
    if segments[-1] in _PAGE_PATHS:
        segments[-1] = "poll"
    elif segments[-1] != "poll":
        segments.append("poll")
    return urlunsplit((parts.scheme, parts.netloc, "/".join(segments), "", ""))


_PAGE_PATHS = {"home", "data", "noise", "dic", "compare", "consensus"}


def student_link(poll_id: str) -> str:
    """The link students open (it carries no key)."""
    return f"{_page_address()}?{urlencode({'poll': poll_id})}"


def teacher_link(poll_id: str, key: str) -> str:
    """The teacher's link: it carries the secret key."""
    return f"{_page_address()}?{urlencode({'poll': poll_id, 'key': key})}"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as PNG bytes."""
    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


# ------------------------------------------------------------------ the page
def show() -> None:
    """Draw the view the address asks for: create, the student's ballot or the results."""
    code = st.query_params.get("poll")
    if not code:
        create_view()
        return
    try:
        poll_store = store()
    except PollError as error:
        st.error(str(error))
        return
    key = st.query_params.get("key")
    try:
        if key is not None:
            poll = poll_store.teacher_poll(code, key)
        else:
            poll = poll_store.poll(code)
    except (PollNotFound, PollUnavailable) as error:
        st.title("Live poll")
        st.warning(str(error))
        _join_box("poll_join_again")
        return
    try:
        if key is not None:
            st.session_state[_TEACHER_POLL] = (poll.poll_id, key)
            teacher_view(poll_store, poll, key)
        else:
            student_view(poll_store, poll)
    except PollUnavailable as error:  # the store stopped answering while the page was drawn
        st.warning(str(error))


#: Session key: the poll this browser session last showed the teacher's results of, so
#: that the Live poll page leads back to it after a visit to other pages.
_TEACHER_POLL = "poll_teacher_view"


def _join_box(widget_key: str) -> None:
    """A box to type a join code, and the button that opens that poll."""
    code = st.text_input("Join code", key=widget_key, max_chars=12,
                         placeholder="e.g. K7QF2M")
    if st.button("Join the poll", key=widget_key + "_go") and code.strip():
        st.switch_page("pages/poll.py", query_params={"poll": normalise_code(code)})


def join_box() -> None:
    """The Home page's "Join a live poll" box."""
    _join_box("home_join")


def create_view() -> None:
    st.title("Live poll")
    _back_to_results()
    st.caption("Students rank the items on their phones; you watch the consensus form, see "
               "how sure each place is and which answers look careless. Students never see "
               "each other's answers.")
    items = st.text_area(f"Items to rank, one per line (2 to {MAX_ITEMS})", key="poll_items",
                         height=180, placeholder="Pizza\nPasta\nSalad", max_chars=_ITEMS_CHARS)
    question = st.text_input("Question (optional)", key="poll_question",
                             placeholder="Which lunch do you prefer?",
                             max_chars=MAX_QUESTION_CHARS)
    closing = st.selectbox("Close automatically", list(CLOSING_CHOICES), key="poll_closing")
    if st.button("Create poll", type="primary", key="poll_create"):
        minutes = CLOSING_CHOICES[closing]
        try:
            poll, key = store().create_poll(
                items.splitlines(), question=question,
                closes_at=None if minutes is None else time.time() + 60 * minutes)
        except PollError as error:
            st.error(str(error))
            return
        st.query_params.from_dict({"poll": poll.poll_id, "key": key})
        st.rerun()
    st.caption(f"Answers are kept in the {describe_location(default_location())}. "
               + keeping_said())


def keeping_said() -> str:
    """How long the server keeps a poll, in one sentence for the teacher."""
    try:
        days = keep_days()
    except PollError as error:
        return str(error)
    if days is None:
        return "Polls are kept until you delete them."
    return (f"A poll and its answers are deleted once its session has had no new poll or "
            f"answer for {days:g} days (and its closing time has passed); download the "
            "answers to keep them longer.")


def _back_to_results() -> None:
    """The way back to the results of the poll this session last ran as the teacher."""
    kept = st.session_state.get(_TEACHER_POLL)
    if kept is None:
        return
    poll_id, key = kept
    try:
        poll = store().teacher_poll(poll_id, key)
    except PollError:  # deleted, or the store is gone: nothing to go back to
        del st.session_state[_TEACHER_POLL]
        return
    status = "open" if poll.is_open() else "closed"
    st.info(f"Your poll {poll.poll_id} ({status}) is still running in this session.")
    if st.button("Back to your poll's results", key="poll_back", type="primary"):
        st.query_params.from_dict({"poll": poll_id, "key": key})
        st.rerun()


# ------------------------------------------------------------------ the student
def _ballot_key(poll: Poll) -> str:
    return f"_poll_ballot_{poll.poll_id}"


def _ballot(poll: Poll) -> list[list[int]]:
    return state.widget(_ballot_key(poll)) or []


def _set_ballot(poll: Poll, ballot: list[list[int]]) -> None:
    state.set_widget(_ballot_key(poll), ballot)


def _tap(poll: Poll, item: int) -> None:
    ballot = [list(g) for g in _ballot(poll)]
    if state.widget("poll_tie") and ballot:
        ballot[-1].append(item)
    else:
        ballot.append([item])
    _set_ballot(poll, ballot)
    state.set_widget("poll_tie", False)


def _undo(poll: Poll) -> None:
    ballot = [list(g) for g in _ballot(poll)]
    if ballot:
        ballot[-1].pop()
        if not ballot[-1]:
            ballot.pop()
    _set_ballot(poll, ballot)


def ranking_lines(poll: Poll, ranking) -> list[str]:
    """``1. Pizza``, ``2. Pasta = Salad`` (a tie): one line per place."""
    lines, place = [], 1
    for group in ranking:
        lines.append(f"{place}. " + " = ".join(poll.items[i] for i in group))
        place += len(group)
    return lines


def browser_token(url_token, cookie_token) -> tuple[str, bool]:
    """This browser's token, and whether its cookie must be written: the address's token if
    it has the form :func:`new_token` gives, else the cookie's, else a new one. Anything else
    in the address or the cookie is ignored (and never put in the page)."""
    if is_token(url_token):
        token = url_token
    elif is_token(cookie_token):
        token = cookie_token
    else:
        token = new_token()
    return token, token != cookie_token


def _cookie_token() -> str | None:
    """The token cookie the browser sent when it opened this session, if any."""
    try:
        return st.context.cookies.get(TOKEN_COOKIE)
    except Exception:  # noqa: BLE001 - outside a browser session
        return None


_KEEP_TOKEN = """<script>
document.cookie = "COOKIE=TOKEN; path=/; max-age=SECONDS; SameSite=Lax"
  + (window.location.protocol === "https:" ? "; Secure" : "");
</script>"""


def _keep_token(token: str) -> None:
    """Write the token cookie from the browser (Streamlit cannot set cookies): invisible (in
    the sidebar, where its empty box adds no gap under the title), and without JavaScript the
    token in the address still works."""
    if not is_token(token):  # only a token's 22 safe characters go into the script
        raise ValueError("not a browser token")
    st.sidebar.html(_KEEP_TOKEN.replace("COOKIE", TOKEN_COOKIE).replace("TOKEN", token)
            .replace("SECONDS", str(TOKEN_COOKIE_SECONDS)), unsafe_allow_javascript=True)


def student_view(poll_store: PollStore, poll: Poll) -> None:
    # one answer per browser: a random token kept in the tab's address and in a cookie, so
    # a new tab or the next poll's plain link finds the same token
    url_token = st.query_params.get("token")
    token, write_cookie = browser_token(url_token, _cookie_token())
    if url_token != token:
        st.query_params["token"] = token
    st.title("Live poll")
    if write_cookie:
        _keep_token(token)
    if poll.question:
        st.subheader(plain(poll.question))
    mine = poll_store.answer_of(poll.poll_id, token)
    # while a student ranks, each tap's run looks for the next poll; a refresh every few
    # seconds would only compete with the taps (a tap that meets it can go unseen)
    waiting = mine is not None or not poll.is_open()
    (_watch_next_poll if waiting else _next_poll_button)(poll_store, poll, token)
    if not poll.is_open():
        st.info("This poll is closed: it accepts no more answers.")
        if mine is not None:
            st.caption("Your answer:")
            st.text("\n".join(ranking_lines(poll, mine.ranking)))
        if poll.show_results:
            _students_result(poll_store, poll)
        return
    if mine is not None and state.widget(_ballot_key(poll)) is None:
        _set_ballot(poll, [list(g) for g in mine.ranking])
    if state.widget("_poll_submitted") == (poll.poll_id, token) and mine is not None:
        st.success("Submitted: your answer is stored. You can change it until the poll "
                   "closes.")
    elif mine is not None:
        st.caption("Your answer is stored. Change it below and submit again if you wish.")
    ballot = _ballot(poll)
    ranked = {i for g in ballot for i in g}
    left = [i for i in range(len(poll.items)) if i not in ranked]
    st.markdown("**Your ranking**" if ballot else "**Tap the items in order, best first.**")
    if ballot:
        st.text("\n".join(ranking_lines(poll, ballot)))
    if left:
        st.caption(f"Tap your next choice ({count(len(left), 'item')} left):")
        for i in left:
            st.button(plain(poll.items[i]), key=f"poll_tap_{i}", on_click=_tap, args=(poll, i),
                      use_container_width=True)
        st.toggle("Tie: the next tap shares the last place", key="poll_tie",
                  disabled=not ballot)
    undo, clear = st.columns(2)
    undo.button("Undo", key="poll_undo", on_click=_undo, args=(poll,), disabled=not ballot,
                use_container_width=True)
    clear.button("Clear", key="poll_clear", on_click=_set_ballot, args=(poll, []),
                 disabled=not ballot, use_container_width=True)
    if left and ballot:
        st.caption("Rank every item to submit.")
    label = "Submit" if mine is None else "Submit the change"
    if st.button(label, type="primary", key="poll_submit", disabled=bool(left),
                 use_container_width=True):
        try:
            poll_store.submit(poll.poll_id, token, ballot)
        except PollError as error:
            st.error(str(error))
            return
        state.set_widget("_poll_submitted", (poll.poll_id, token))
        st.rerun()


def _next_poll_button(poll_store: PollStore, poll: Poll, token: str) -> None:
    """Once the teacher starts the next poll of the session: a button to it that keeps
    this browser's token (so the teacher sees one student's answers together)."""
    try:
        following = poll_store.next_poll(poll.poll_id)
    except PollError:
        return
    if following is None:
        return
    if poll.is_open() and state.widget("_poll_next_seen") != following.poll_id:
        # the page above was drawn while this poll was open: draw it again, closed
        state.set_widget("_poll_next_seen", following.poll_id)
        st.rerun(scope="app")
    st.info("The teacher has started the next poll.")
    if st.button("Go to the next poll", type="primary", key="poll_next_go",
                 use_container_width=True):
        st.query_params.from_dict({"poll": following.poll_id, "token": token})
        st.rerun(scope="app")


#: The next-poll button, looked for every few seconds: for a student who has answered.
_watch_next_poll = st.fragment(run_every=REFRESH_SECONDS)(_next_poll_button)


def _students_result(poll_store: PollStore, poll: Poll) -> None:
    """The class's consensus, for students once the teacher shows it after closing."""
    st.subheader("The class's consensus")
    # the key is not needed: the teacher chose to show the result of this closed poll
    answers = poll_store.published_answers(poll.poll_id)
    if len(answers) < 2:
        st.caption("Too few answers for a consensus.")
        return
    fit, _ = class_consensus(poll_preferences(poll, answers))
    st.text("\n".join(f"{r + 1}. {poll.items[i]}" for r, i in enumerate(fit.order)))


# ------------------------------------------------------------------ the teacher
def _next_poll_form(poll_store: PollStore, poll: Poll, key: str) -> None:
    """Start the next poll of this session: this poll closes, students move on with their
    own tokens, and the same teacher link follows the session."""
    # a key: the expander stays open over the reruns of the teacher's typing
    with st.expander("Next poll in this session", key="poll_next_expander"):
        st.caption("This poll closes and the students' phones offer a button to the next "
                   "one; their answers across the session are then known to be one "
                   "student's (by the browser, never by name), so careless students can be "
                   "told from careless answers.")
        st.text_area(f"Items to rank, one per line (2 to {MAX_ITEMS})",
                     key="poll_next_items", height=140, max_chars=_ITEMS_CHARS)
        st.text_input("Question (optional)", key="poll_next_question",
                      max_chars=MAX_QUESTION_CHARS)
        st.button("Start the next poll", type="primary", key="poll_next",
                  on_click=_start_next_poll, args=(poll_store, poll.poll_id, key))
        error = st.session_state.pop("_poll_next_error", None)  # shown once, after the click
        if error is not None:
            st.error(error)


def _start_next_poll(poll_store: PollStore, poll_id: str, key: str) -> None:
    """The click on "Start the next poll": the next poll opens and the form is emptied, so
    that a second click (a double tap, or one sent again on a slow connection) finds no
    items and starts nothing instead of a poll after the new one."""
    try:
        following, _ = poll_store.create_poll(
            str(state.widget("poll_next_items", "")).splitlines(),
            question=str(state.widget("poll_next_question", "")), after=(poll_id, key))
    except PollError as error:
        state.set_widget("_poll_next_error", str(error))
        return
    state.set_widget("poll_next_items", "")
    state.set_widget("poll_next_question", "")
    st.query_params.from_dict({"poll": following.poll_id, "key": key})


def teacher_view(poll_store: PollStore, poll: Poll, key: str) -> None:
    st.title("Live poll: results")
    if poll.question:
        st.subheader(plain(poll.question))
    if poll.position > 1 or poll.session_id != poll.poll_id:
        st.caption(f"Poll {poll.position} of the session that began with poll "
                   f"{poll.session_id}.")
    _links(poll, key)
    _results(poll_store, poll.poll_id, key)
    _controls(poll_store, poll, key)


def _links(poll: Poll, key: str) -> None:
    with st.expander("Student link, QR code and join code", expanded=True):
        link = student_link(poll.poll_id)
        st.markdown(f"Join code: **{poll.poll_id}** (students type it on the Home page)")
        st.image(qr_png(link), caption="Students scan this to open the poll", width=260)
        st.caption("Student link:")
        st.code(link, language=None, wrap_lines=True)
    with st.expander("Your teacher link (keep it private)", icon=":material/key:"):
        st.caption("Only this link shows the results and can close, reopen or delete the "
                   "poll. Bookmark it: it is the only way back to the results.")
        st.code(teacher_link(poll.poll_id, key), language=None, wrap_lines=True)


#: Session key: whether the teacher's page last drew a poll with enough answers for
#: "Use these answers" and "Download": the results' refresh redraws the page when it changes.
_ENOUGH_KEY = "poll_enough_answers_{}"


@st.fragment(run_every=REFRESH_SECONDS)
def _results(poll_store: PollStore, poll_id: str, key: str) -> None:
    try:
        poll, answers = poll_store.answers(poll_id, key)
    except (PollNotFound, PollUnavailable) as error:
        st.warning(str(error))
        return
    status = "open" if poll.is_open() else "closed"
    if poll.is_open() and poll.closes_at is not None:
        minutes = max(0, int((poll.closes_at - time.time()) // 60))
        status += f", closes in {count(minutes, 'minute')}"
    enough = len(answers) >= 2
    seen = st.session_state.setdefault(_ENOUGH_KEY.format(poll_id), enough)
    if seen != enough:  # the controls below were drawn for fewer answers: redraw the page
        st.session_state[_ENOUGH_KEY.format(poll_id)] = enough
        st.rerun()
    left, right = st.columns(2)
    left.metric("Answers", len(answers))
    right.metric("Poll", status.split(",")[0], help=status)
    if len(answers) < 2:
        st.caption("The consensus appears once two students have answered. This view "
                   f"refreshes by itself every {REFRESH_SECONDS} seconds.")
        return
    prefs = poll_preferences(poll, answers)
    fit, spread = class_consensus(prefs)
    low, high = spread.rank_interval()
    rows = [{"rank": r + 1, "item": poll.items[i],
             f"likely ranks ({spread.interval_level:.0%})":
                 f"{low[i]}–{high[i]}" if low[i] != high[i] else f"{low[i]}"}
            for r, i in enumerate(fit.order)]
    st.markdown("**Consensus so far**")
    st.dataframe(rows, hide_index=True, key="poll_consensus_table")
    measured = ("refits on the answers resampled at random." if spread.source == "bootstrap"
                else "draws of the model's posterior: too few students have ranked the same "
                     "pairs for resampling their answers to measure anything yet.")
    st.caption("The package's default consensus, as on the Consensus page: "
               f"{consensus_reason(prefs, fit.extra)} The likely ranks give the "
               f"range of places each item takes in {spread.interval_level:.0%} of {measured}")
    session = ()
    if poll.position > 1 or poll.session_id != poll.poll_id:
        try:
            session = poll_store.session_answers(poll_id, key)
        except PollError:
            session = ()
    if session and repeat_students(session):
        _careless_students(session)
    else:
        _careless(prefs, answers)


def _flag_table(names, probability, unit: str, table_key: str, extra=None) -> None:
    probability = np.asarray(probability, dtype=float)
    flagged = np.flatnonzero(probability > CARELESS_THRESHOLD)
    if flagged.size:
        st.markdown(f"**{count(flagged.size, unit)} "
                    f"{'looks' if flagged.size == 1 else 'look'} careless**")
        rows = [{unit: names[i], **({} if extra is None else {"answers": int(extra[i])}),
                 "chance careless": float(probability[i])} for i in flagged]
        st.dataframe(rows, hide_index=True, key=table_key,
                     column_config={"chance careless": st.column_config.ProgressColumn(
                         min_value=0.0, max_value=1.0, format="percent")})
    else:
        st.caption(f"No {unit} looks careless.")


def _careless(prefs: Preferences, answers) -> None:
    try:
        found = compute.careless(prefs, prefs.fingerprint, "pl-mix")
    except Exception:  # noqa: BLE001 - the flags must never break the results
        _LOG.exception("careless flags failed")
        return
    _flag_table(found.names, found.probability, "answer", "poll_careless_table")
    st.caption("Careless: the per-list mixture (PL-mix) gives the answer a chance above 50 % "
               "of being a random order rather than a careful one.")


def _careless_students(session) -> None:
    """Once students have answered several polls of the session: the per-ranker mixture
    (PL-mix per rater) over all their answers flags careless students, not lists."""
    prefs = session_preferences(session)
    try:
        found = compute.careless(prefs, prefs.fingerprint, "pl-mix-ranker")
    except Exception:  # noqa: BLE001 - the flags must never break the results
        _LOG.exception("careless flags failed")
        return
    _flag_table(found.names, found.probability, "student", "poll_careless_students",
                extra=found.n_preferences)
    st.caption(f"Careless: over the {count(len(session), 'poll')} of this session, the "
               "per-rater mixture (PL-mix per rater) gives the student a chance above 50 % "
               "of answering at random rather than carefully; a student is one browser, "
               "known by its token, never by name.")


def _controls(poll_store: PollStore, poll: Poll, key: str) -> None:
    st.subheader("Manage")
    try:
        poll, answers = poll_store.answers(poll.poll_id, key)
    except (PollNotFound, PollUnavailable) as error:
        st.warning(str(error))
        return
    st.session_state[_ENOUGH_KEY.format(poll.poll_id)] = len(answers) >= 2
    keeping = keeping_said()
    if len(answers) >= 2:
        prefs = poll_preferences(poll, answers)
        if st.button("Use these answers as the session's data", key="poll_use",
                     help="Every other page (Noise, DIC, Compare, Consensus) then works on "
                          "the class's own rankings."):
            state.set_current(state.Dataset(
                name=f"Live poll {poll.poll_id}", preferences=prefs, origin="poll",
                description=poll.question))
            st.success(f"Loaded {count(len(answers), 'answer')} as the session's data.")
        st.download_button("Download the answers (.csv)", poll_csv(prefs),
                           file_name=f"poll_{poll.poll_id}.csv", mime="text/csv",
                           key="poll_download", on_click="ignore", help=keeping)
    st.caption(keeping)
    _next_poll_form(poll_store, poll, key)
    columns = st.columns(2)
    try:
        if poll.is_open():
            if columns[0].button("Close the poll", key="poll_close"):
                poll_store.close_poll(poll.poll_id, key)
                st.rerun()
        else:
            if columns[0].button("Reopen the poll", key="poll_reopen"):
                poll_store.reopen_poll(poll.poll_id, key)
                st.rerun()
            shown = columns[1].toggle("Show the result to students", value=poll.show_results,
                                      key="poll_show")
            if shown != poll.show_results:
                poll_store.show_results(poll.poll_id, key, shown)
        with st.expander("Delete the poll"):
            sure = st.checkbox("Yes, delete the poll and all its answers", key="poll_sure")
            if st.button("Delete", key="poll_delete", disabled=not sure):
                poll_store.delete_poll(poll.poll_id, key)
                st.query_params.clear()
                st.rerun()
    except PollError as error:
        st.error(str(error))
