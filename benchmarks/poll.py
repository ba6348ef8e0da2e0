"""A class answering a live poll at once: ``python -m benchmarks.poll [--processes] [--url URL]``.

60 students (each with a connection of their own, in threads or in separate processes) submit
an 8-item ranking within 8 seconds and change it a second later; the script then counts what
the store holds and prints the number of answers, the seconds the class took and how many
final answers were lost (stored wrongly, twice or not at all). By default the store is a fresh
SQLite file in a temporary folder; ``--url`` names another location (e.g. PostgreSQL).
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import threading
import time
from pathlib import Path

from ui.poll_store import RATE_SECONDS, PollStore, new_token

STUDENTS = 60
ITEMS = 8
WINDOW = 8.0


def student(location: str, poll_id: str, number: int, start: float, results,
            window: float = WINDOW) -> None:
    """One student: submit, wait past the rate limit, submit the final answer."""
    store = PollStore(location)
    token = new_token()
    first = [[(number + j) % ITEMS] for j in range(ITEMS)]
    final = [[(number * 3 + j) % ITEMS] for j in range(ITEMS)]
    try:
        time.sleep(max(0.0, number * window / STUDENTS - (time.time() - start)))
        store.submit(poll_id, token, first)
        time.sleep(RATE_SECONDS + 0.1)
        store.submit(poll_id, token, final)
        results.put((token, final, ""))
    except Exception as error:  # noqa: BLE001 - reported as a failure
        results.put((token, final, repr(error)))
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", action="store_true",
                        help="one process per student instead of one thread")
    parser.add_argument("--url", help="a store location (default: a fresh SQLite file)")
    parser.add_argument("--window", type=float, default=WINDOW,
                        help="seconds over which the first submissions are spread (0: all "
                             "at once)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        location = args.url or str(Path(folder) / "polls.sqlite3")
        teacher = PollStore(location)
        poll, key = teacher.create_poll([f"item {i}" for i in range(ITEMS)])
        start = time.time()
        if args.processes:
            results = multiprocessing.Queue()
            workers = [multiprocessing.Process(target=student,
                                               args=(location, poll.poll_id, n, start, results,
                                                     args.window))
                       for n in range(STUDENTS)]
        else:
            import queue
            results = queue.Queue()
            workers = [threading.Thread(target=student,
                                        args=(location, poll.poll_id, n, start, results,
                                                     args.window))
                       for n in range(STUDENTS)]
        for worker in workers:
            worker.start()
        outcomes = [results.get(timeout=120) for _ in workers]
        for worker in workers:
            worker.join()
        seconds = time.time() - start
        _, answers = teacher.answers(poll.poll_id, key)
        stored = {a.token: a.ranking for a in answers}
        finals = {token: tuple(tuple(g) for g in final) for token, final, _ in outcomes}
        failed = [error for _, _, error in outcomes if error]
        lost = sum(1 for token, final in finals.items() if stored.get(token) != final)
        extra = len(stored) - len(set(stored) & set(finals))
        mode = ("processes" if args.processes else "threads") + f", window {args.window:g} s"
        print(f"{teacher.kind} ({mode}): {2 * STUDENTS} submissions from {STUDENTS} students "
              f"in {seconds:.1f} s; teacher's count {teacher.count(poll.poll_id, key)}, "
              f"{len(answers)} answers stored, lost = {lost}, extra = {extra}, "
              f"refused = {len(failed)}")
        for error in failed[:5]:
            print("  refused:", error)
        teacher.delete_poll(poll.poll_id, key)


if __name__ == "__main__":
    main()
