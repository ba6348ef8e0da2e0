"""First run of every dashboard page on large uploads: ``python -m benchmarks.pages``.

Issue 11's budget: every page's first run in at most 15 s, or a visible progress bar with
an estimate and a Stop button while the long part runs; no computation whose memory grows
faster than the data. For each file, made on the fly within the 50 MB upload limit by the
makers of :mod:`benchmarks.limits` (a realistic 49.5 MB pairwise ``worker,winner,loser``
file over 1,000 items, a PrefLib .soi, a BLT election, a wide and a long CSV), and for each
page of :data:`ui.shell.PAGES`, a fresh process

1. uploads the file on the Data page with AppTest and presses "Use this data" (what a
   person does; its times are the Data page's rows "upload → preview" and "confirm",
   taken from the first page's process);
2. opens the page and times its first run (with every rerun it asks for, such as the
   shell's redraw after choosing α): wall time, CPU time of the process and of its worker
   processes (sampled every 0.2 s), and the peak resident memory during the run (the peak
   is reset before the page, so the upload's own peak is not counted; the largest worker's
   peak is given apart).

Progress bars are seen by wrapping the dashboard's ``ui.compute._job`` and
``ui.widgets.stop_button`` in the child: "covered" is the time spent inside a progress bar
(a :class:`ui.compute.Job`) while a Stop button was on the page, "bare" the rest of the
run. A page meets the budget when its run takes at most 15 s, or when at most 15 s of it
is bare; "estimate" says whether every bar was given a (done, total) count, which is what
turns its text into "about N s left". The machine may be shared with other workers, so
CPU time is printed next to wall time, and the load average before the run.

A bar still running after ``--stop-after`` seconds (default 240) is stopped the way the
Stop button or a closed tab stops it (the Job's session check), and the bar's text at that
moment, with its estimate of what was left, is printed: on the 49.5 MB PrefLib and BLT
files the α choice alone takes many minutes. It only measures and prints: a missed budget
is reported, never raised. A child whose memory passes ``--kill-gb`` (default 8) or that
runs past ``--timeout`` is stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB, GB = 1e6, 1e9
BUDGET = 15.0  # seconds of a page's first run without a progress bar and Stop

#: name → (maker in benchmarks.limits, file name of the upload)
FILES = {"pairwise 49.5 MB": ("realistic_pairs", "pairs.csv"),
         "PrefLib .soi": ("preflib_orders", "orders.soi"),
         "BLT": ("blt_ballots", "election.blt"),
         "wide CSV": ("wide_lists", "wide.csv"),
         "long CSV": ("long_ranks", "long.csv")}


# ------------------------------------------------------------------ the child
def _hwm() -> int:
    """Peak resident memory of this process since the last reset, in bytes (VmHWM)."""
    with open("/proc/self/status") as handle:
        return int(re.search(r"VmHWM:\s+(\d+)", handle.read()).group(1)) * 1024


def _reset_peak() -> bool:
    """Start VmHWM again from the current resident memory (Linux's clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _cpu() -> float:
    """CPU seconds of this process (all its threads)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


class _Workers:
    """Samples this process's child processes (a DIC sweep's workers) every 0.2 s: their
    CPU seconds and largest resident memory. A stopped sweep's workers are terminated and
    never waited for, so ``RUSAGE_CHILDREN`` would miss them."""

    def __init__(self):
        import threading

        self.cpu: dict[int, float] = {}
        self.peak = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        me, tick, page = str(os.getpid()), os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                if fields[1] != me:  # the parent's pid
                    continue
                self.cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
                self.peak = max(self.peak, int(fields[21]) * page)
            except (OSError, IndexError, ValueError):
                continue

    def _run(self) -> None:
        while not self.done.wait(0.2):
            self._sample()

    def stop(self) -> tuple[float, int]:
        self.done.set()
        self.thread.join()
        self._sample()
        return sum(self.cpu.values()), self.peak


class _Watch:
    """Records the progress bars (``ui.compute._job``) and Stop buttons the pages draw."""

    def __init__(self, stop_after: float):
        self.stops = 0  # Stop buttons on the page now
        self.jobs: list[dict] = []
        self.stop_after = stop_after  # seconds after which a bar's Stop is "pressed"

    def install(self) -> None:
        from contextlib import contextmanager

        import ui.compute
        import ui.shell
        import ui.widgets

        real_job, real_stop = ui.compute._job, ui.widgets.stop_button
        real_progress = ui.compute.Job.progress
        watch = self

        @contextmanager
        def stop_button(task):
            with real_stop(task):
                watch.stops += 1
                try:
                    yield
                finally:
                    watch.stops -= 1

        @contextmanager
        def job(label):
            if label is None:
                with real_job(label) as inner:
                    yield inner
                return
            record = dict(label=label, start=time.perf_counter(), stop=watch.stops > 0,
                          estimate=False, stopped=None)
            watch.jobs.append(record)
            try:
                with real_job(label) as inner:
                    record["job"] = inner
                    yield inner
            finally:
                record["end"] = time.perf_counter()
                record.pop("job", None)

        def progress(self, done, total):
            if total:
                watch.jobs[-1]["estimate"] = True
            return real_progress(self, done, total)

        def connected(session_id):
            """False once a bar with Stop has run for ``stop_after`` s: the person gives up
            and presses Stop (the Job ends the run as it does for Stop or a closed tab)."""
            now = time.perf_counter()
            for record in watch.jobs:
                inner = record.get("job")
                if (inner is not None and record["stop"] and record["stopped"] is None
                        and now - record["start"] > watch.stop_after):
                    record["stopped"] = inner._text()
                    return False
            return real_connected(session_id)

        real_connected = ui.compute.session_connected
        ui.compute.session_connected = connected
        ui.compute._job = job
        ui.compute.Job.progress = progress
        ui.widgets.stop_button = stop_button  # every restartable task calls it here
        # older trees imported it by name into ui/shell.py (the α choice after a
        # provisional α)
        import importlib
        for name in ("ui.shell", "ui.alpha"):
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            if hasattr(module, "stop_button"):
                module.stop_button = stop_button

    def covered(self, start: float, end: float) -> tuple[float, list[dict]]:
        """Seconds inside a progress bar with Stop between ``start`` and ``end``, and the
        bars of that span."""
        jobs = [j for j in self.jobs if j["start"] >= start and j.get("end", end) <= end]
        spans = sorted((j["start"], j.get("end", end)) for j in jobs if j["stop"])
        total, reach = 0.0, start
        for low, high in spans:
            low = max(low, reach)
            if high > low:
                total += high - low
                reach = high
        return total, jobs


def _timed(watch: _Watch, run) -> dict:
    """Run ``run()`` (an AppTest run) and measure it."""
    reset = _reset_peak()
    base = _hwm()
    workers = _Workers()
    cpu, start = _cpu(), time.perf_counter()
    at = run()
    end = time.perf_counter()
    cpu = _cpu() - cpu
    workers_cpu, workers_peak = workers.stop()
    covered, jobs = watch.covered(start, end)
    errors = [e.value for e in at.exception] + [e.value for e in at.error
                                                if "went wrong" in e.value]
    return dict(seconds=end - start, cpu=cpu + workers_cpu, workers_peak=workers_peak,
                peak=_hwm() if reset else float("nan"), base=base, covered=covered,
                bars=len(jobs),
                bars_stop=sum(j["stop"] for j in jobs),
                estimate=all(j["estimate"] for j in jobs) if jobs else None,
                labels=[f"{j['label'].rstrip(':')} {j['end'] - j['start']:.1f} s"
                        + ("" if j["estimate"] else " (no estimate)") for j in jobs],
                stopped=[j["stopped"] for j in jobs if j["stopped"]],
                errors=[" ".join(str(e).split())[:120] for e in errors])


def child_page(path: str, page: str, timeout: float, stop_after: float) -> dict:
    """Upload ``path`` on the Data page, confirm it, then open ``page`` (both timed)."""
    from streamlit.testing.v1 import AppTest

    watch = _Watch(stop_after)
    watch.install()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("My own file").run()
    data = Path(path).read_bytes()
    at.file_uploader(key="upload_file").set_value((Path(path).name, data, "text/csv"))
    del data
    preview = _timed(watch, at.run)
    confirm = _timed(watch, at.button(key="confirm_upload").click().run)
    shown = " ".join(s.value for s in at.success)
    result = dict(preview=preview, confirm=confirm, loaded=shown[:100])
    if page != "pages/data.py":
        result["page"] = _timed(watch, at.switch_page(page).run)
    else:
        result["page"] = confirm
    return result


# ------------------------------------------------------------------ the parent
def run_child(args: list[str], kill_bytes: float, timeout: float) -> dict:
    """Run ``python -m benchmarks.pages --child ...``; its last JSON line is the result.

    The child's resident memory is polled; above ``kill_bytes`` or after ``timeout``
    seconds it is stopped and the result says so.
    """
    from benchmarks.limits import watch_child

    result, failure, seconds, peak = watch_child("benchmarks.pages", args, kill_bytes,
                                                 timeout, poll=0.05, tail=120)
    if result is None:
        return dict(failed=failure, seconds=seconds, peak=peak)
    return result


def _verdict(run: dict) -> str:
    if run["errors"]:
        return "ERROR"
    bare = run["seconds"] - run["covered"]
    if run["seconds"] <= BUDGET:
        return "ok"
    if bare <= BUDGET:
        return "ok (bar+Stop)" if run["estimate"] else "ok (bar+Stop, no estimate)"
    return "MISSED"


def _row(file: str, page: str, run: dict) -> str:
    bar = (f"{run['bars_stop']}/{run['bars']} with Stop" if run["bars"] else "none")
    workers = f" (workers {run['workers_peak'] / MB:,.0f})" if run["workers_peak"] else ""
    return (f"{file:17s} {page:24s} {run['seconds']:8.1f} {run['cpu']:8.1f} "
            f"{run['seconds'] - run['covered']:7.1f} {run['peak'] / MB:8,.0f}{workers:16s} "
            f"{bar:14s} {_verdict(run)}")


HEADER = (f"{'file':17s} {'page':24s} {'wall s':>8s} {'CPU s':>8s} {'bare s':>7s} "
          f"{'peak MB':>8s}{'':16s} {'progress bars':14s} verdict")


def _make(name: str, folder: Path, kill: float) -> tuple[Path, str]:
    maker, file_name = FILES[name]
    path = folder / file_name
    made = run_child(["make", maker, str(path)], kill, 600)
    return path, made.get("what", made.get("failed", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", metavar="TASK", help=argparse.SUPPRESS)
    parser.add_argument("--files", nargs="+", choices=list(FILES), default=list(FILES),
                        metavar="FILE", help=f"files to upload (default: all of {list(FILES)})")
    parser.add_argument("--pages", nargs="+", metavar="PAGE",
                        help="pages to open, by url path (default: every page of the shell)")
    parser.add_argument("--kill-gb", type=float, default=8.0,
                        help="stop a child whose resident memory passes this (GB)")
    parser.add_argument("--timeout", type=float, default=1200.0,
                        help="seconds after which a child is stopped")
    parser.add_argument("--stop-after", type=float, default=240.0,
                        help="press Stop on a progress bar that has run this long (seconds); "
                             "the table then shows the bar's own estimate of what was left")
    args = parser.parse_args(argv)
    if args.child:
        task = args.child[0]
        if task == "make":
            from benchmarks import limits
            what = getattr(limits, args.child[1])(Path(args.child[2]))
            print(json.dumps(dict(what=what)))
        else:
            print(json.dumps(child_page(args.child[1], args.child[2], args.timeout,
                                        args.stop_after)))
        return 0

    from ui.shell import PAGES

    pages = [(path, title) for path, title, _, url in PAGES
             if args.pages is None or url in args.pages]
    kill = args.kill_gb * GB
    print(__doc__.split("\n\n")[0])
    print(f"Load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(the machine is shared: compare CPU time with wall time). Budget: a first run of "
          f"at most {BUDGET:g} s, or at most {BUDGET:g} s bare (outside a progress bar with "
          "Stop). Peak = the page run's own peak resident memory (reset after the upload). "
          f"A bar still running after {args.stop_after:g} s is stopped (as a person pressing "
          "Stop would), and what its estimate said then is printed.")
    print(HEADER)
    with tempfile.TemporaryDirectory() as folder:
        for name in args.files:
            path, what = _make(name, Path(folder), kill)
            size = path.stat().st_size / MB if path.exists() else 0.0
            print(f"-- {name}: {size:.1f} MB, {what}")
            data_rows = False
            for page, title in pages:
                result = run_child(["page", str(path), page, "--timeout", str(args.timeout),
                                    "--stop-after", str(args.stop_after)], kill,
                                   args.timeout + 60)
                if "failed" in result:
                    print(f"{name:17s} {title:24s} {result['seconds']:8.1f} "
                          f"{'':8s} {'':7s} {result['peak'] / MB:8,.0f} {result['failed']}")
                    continue
                if not data_rows:
                    print(_row(name, "Data: upload → preview", result["preview"]))
                    print(_row(name, "Data: confirm", result["confirm"]))
                    print(f"{'':17s} {'':24s} {result['loaded']}")
                    data_rows = True
                if page == "pages/data.py":
                    continue
                run = result["page"]
                print(_row(name, title, run))
                for error in run["errors"]:
                    print(f"{'':42s}error: {error}")
                if run["seconds"] > BUDGET and run["labels"]:
                    print(f"{'':42s}bars: {'; '.join(run['labels'])}")
                    sys.stdout.flush()
                for text in run["stopped"]:
                    print(f"{'':42s}Stop pressed after {args.stop_after:g} s at: {text}")
                sys.stdout.flush()
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
