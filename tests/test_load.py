"""Load: ten sessions of one served app, each driven over the app's websocket at the same time."""

import threading
from contextlib import ExitStack
from pathlib import Path

from tests.served_app import served_app
from tests.socket_session import SocketSession

SESSIONS = 10
SOURCE = "Where do the rankings come from?"
UPLOADER = "Rankings file: CSV, Excel, JSON, PrefLib or BLT, up to 50 MB"


def user_file(tmp_path: Path, n: int) -> tuple[Path, list[str]]:
    """User ``n``'s own file: nine voters ranking four drinks whose names only it uses."""
    names = [f"drink{n}x{k}" for k in range(4)]
    rows = ["voter,1st,2nd,3rd,4th"] + [
        f"v{r}," + ",".join(names[r % 2:] + names[:r % 2] if r % 3 else names)
        for r in range(9)]
    path = tmp_path / f"user{n}.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path, names


def no_error_shown(session: SocketSession) -> None:
    assert "exception" not in session.kinds(), session.text()
    assert "Something went wrong" not in session.text()


def one_user(session: SocketSession, path: Path, together: threading.Barrier) -> None:
    """Upload, confirm, run the DIC sweep and the comparison, then open the consensus; every
    session presses each Run button at the same moment as the others."""
    session.open("data")
    session.choose(SOURCE, "My own file")
    session.upload(UPLOADER, path)
    assert "We read this as" in session.text()
    session.click("Use this data")
    assert f"Loaded {path.name}" in session.text()
    session.open("dic")
    together.wait()
    session.click("Run")
    assert "plotly_chart" in session.kinds(), session.text()[-3000:]
    no_error_shown(session)
    session.open("compare")
    together.wait()
    session.click("Run the comparison")
    assert "How long does each method take?" in session.text()
    no_error_shown(session)
    session.open("consensus")
    no_error_shown(session)


def test_ten_concurrent_sessions_each_see_only_their_own_data(tmp_path):
    """Each of ten sessions shows its own four items in its consensus, and nothing the server
    sent it at any step names another session's items or file."""
    users = [user_file(tmp_path, n) for n in range(SESSIONS)]
    failures: list[BaseException] = []
    together = threading.Barrier(SESSIONS, timeout=600)

    def run(session: SocketSession, path: Path) -> None:
        try:
            one_user(session, path, together)
        except BaseException as error:  # reported by the main thread
            failures.append(error)
            together.abort()

    with served_app() as base, ExitStack() as stack:
        sessions = [stack.enter_context(SocketSession(base)) for _ in users]
        threads = [threading.Thread(target=run, args=(session, path))
                   for session, (path, _) in zip(sessions, users)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not failures, failures
    every_name = {name for _, names in users for name in names}
    for session, (path, names) in zip(sessions, users):
        shown = {line for line in session.text().splitlines() if line in every_name}
        assert shown == set(names), (path.name, shown)
        assert f"Loaded: {path.name}" in session.text()  # the sidebar's line
        others = [other for other, _ in users if other != path]
        leaked = [text for text in session.seen
                  if any(other.name in text for other in others)
                  or any(name in text for name in every_name - set(names))]
        assert not leaked, (path.name, leaked[:5])
