"""Resource limits of uploads and long fits: ``python -m benchmarks.limits`` from the repo root.

Generates adversarial files on the fly and reads each with
:func:`coarsenrank_core.read_preferences` in a fresh subprocess, printing wall time, peak
memory (``ru_maxrss``) and the memory still held after reading against the budgets of
issue 11 (≤ 10 s, ≤ 1 GB peak, ≤ 0.4 GB held):

- a 49.5 MB file whose first line holds all three delimiters ``, ; \\t``;
- a 49.5 MB file of blank lines;
- a realistic 49.5 MB pairwise file ``worker,winner,loser`` (about 2.3 M rows).

Then it finds the largest number of items M for which the Consensus page's posterior
summary (``coarsen_pl_gibbs`` with the page's 400 draws, ``rank_interval`` and
``rank_probabilities``) peaks under 1 GB, and times CrowdBT on a comparison counted 10⁷
times and on four 4,000-item rankings (refused before rank-breaking: 32 M pairs).

Issue 21 adds the ways in that are not files of rankings, each read as the dashboard reads
it (time, peak and held memory; budgets 10 s and 1 GB):

- workbooks: a 1.6 KB sheet declaring the range ``A1:XFD1048576``, shared strings that are a
  compression bomb (208 KB and 1.2 MB), one value in the last cell ``XFD1048576``, a flood of
  blank styled cells just under the compression-ratio limit, and a valid 1 M-row workbook
  (the last is not hostile: it shows what a large valid upload costs, and it can be stopped);
- saved-session files: 200 bytes declaring 10⁶ unnamed items, 5×10⁷ items, 10⁶ names for
  two used items, nesting 100,000 deep, a 5,000-digit number, 3,000 copies of a method;
- a share link repeating CoarsenPL (Gibbs) 3,000 times, read and then run on the sample as
  one click on Run would.

It only measures and prints: a missed budget is reported, never raised. A child
whose memory passes ``--kill-gb`` (default 6) is stopped so that the machine stays usable.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MB, GB = 1e6, 1e9
TARGET_BYTES = int(49.5 * MB)
READ_SECONDS, READ_PEAK, READ_HELD = 10.0, 1.0 * GB, 0.4 * GB
CONSENSUS_PEAK = 1.0 * GB
CONSENSUS_DRAWS = dict(burn_in=10, n_draws=400)  # the page's draws; burn-in costs no memory


# ------------------------------------------------------------------ measurements in the child
def _rss() -> int:
    """Resident memory of this process now, in bytes."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak() -> int:
    """Peak resident memory of this process, in bytes (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _child_read(path: str) -> dict:
    import gc

    import coarsenrank_core

    read = coarsenrank_core.read_preferences  # imports the readers (and pandas, if used)
    try:
        import pandas  # noqa: F401  (the app has it loaded already)
    except ImportError:
        pass
    gc.collect()
    before = _rss()
    start = time.perf_counter()
    try:
        prefs = read(path)
        outcome = f"read: {len(prefs):,} preferences over {prefs.n_items:,} items"
    except Exception as error:  # noqa: BLE001 - an error message is a valid outcome
        prefs = None
        outcome = f"{type(error).__name__}: {' '.join(str(error).split())[:90]}"
    seconds = time.perf_counter() - start
    gc.collect()
    return dict(seconds=seconds, peak=_peak(), held=_rss() - before, base=before,
                outcome=outcome)


def _pairs_over(n_items: int, per_item: int, rng: np.random.Generator):
    """``per_item`` Bradley–Terry comparisons per item with random opponents."""
    from coarsenrank_core import Preferences

    strength = rng.normal(0.0, 1.0, n_items)
    first = np.repeat(np.arange(n_items), per_item)
    second = (first + rng.integers(1, n_items, first.size)) % n_items
    wins = rng.random(first.size) < 1.0 / (1.0 + np.exp(strength[second] - strength[first]))
    return Preferences.from_pairs(np.where(wins, first, second), np.where(wins, second, first),
                                  n_items=n_items)


def _child_consensus(n_items: int) -> dict:
    from coarsenrank_core.models.plackett_luce import coarsen_pl_gibbs

    prefs = _pairs_over(n_items, 2, np.random.default_rng(0))
    start = time.perf_counter()
    post = coarsen_pl_gibbs(prefs, alpha=10.0, random_state=0, **CONSENSUS_DRAWS)
    post.rank_interval()
    probabilities = post.rank_probabilities()
    return dict(seconds=time.perf_counter() - start, peak=_peak(),
                outcome=f"rank table {probabilities.shape}")


def _child_crowdbt(count: float) -> dict:
    from coarsenrank_core import Preferences
    from coarsenrank_core.models.crowdbt import crowdbt

    # the 50-byte wide file of the issue: x,COUNT,a,b,c / y,1,b,a,c
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2]], item_names=["a", "b", "c"],
                                   rankers=["x", "y"], weights=[count, 1.0])
    start = time.perf_counter()
    result = crowdbt(prefs)
    names = [prefs.item_names[i] for i in result.order]
    return dict(seconds=time.perf_counter() - start, peak=_peak(),
                outcome=f"order {names}, reliability x {result.extra['reliability'][0]:.6f}")


def _child_long_lists(n_items: int) -> dict:
    from coarsenrank_core import Preferences
    from coarsenrank_core.models.crowdbt import crowdbt

    # 4 full rankings of n_items items: a file of a few hundred KB, n_items² · 2 pairs
    rng = np.random.default_rng(0)
    items = np.concatenate([rng.permutation(n_items) for _ in range(4)])
    prefs = Preferences.from_arrays(items, [n_items] * 4, n_items=n_items)
    start = time.perf_counter()
    try:
        crowdbt(prefs)
        outcome = "fitted"
    except ValueError as error:
        outcome = f"refused: {str(error)[:70]}…"
    return dict(seconds=time.perf_counter() - start, peak=_peak(), outcome=outcome)


# ------------------------------------------------------------------ issue 21: workbooks
XLSX_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
XLSX_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _workbook(path: Path, rows, *, dimension: str = "", shared=None) -> None:
    """A minimal .xlsx whose one sheet holds the XML strings of ``rows`` (streamed)."""
    import zipfile

    package = "http://schemas.openxmlformats.org/package/2006/relationships"
    sheet_type = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    types = ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
             '2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
             'openxmlformats-package.relationships+xml"/><Default Extension="xml" '
             'ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
             f'ContentType="{sheet_type}.sheet.main+xml"/><Override PartName="/xl/'
             f'worksheets/sheet1.xml" ContentType="{sheet_type}.worksheet+xml"/>'
             + (f'<Override PartName="/xl/sharedStrings.xml" ContentType="{sheet_type}.'
                'sharedStrings+xml"/>' if shared else "") + "</Types>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", f'<Relationships xmlns="{package}"><Relationship '
                         f'Id="rId1" Type="{XLSX_REL}/officeDocument" '
                         'Target="xl/workbook.xml"/></Relationships>')
        archive.writestr("xl/workbook.xml", f'<workbook xmlns="{XLSX_MAIN}" xmlns:r='
                         f'"{XLSX_REL}"><sheets><sheet name="Sheet1" sheetId="1" '
                         'r:id="rId1"/></sheets></workbook>')
        archive.writestr("xl/_rels/workbook.xml.rels", f'<Relationships xmlns="{package}">'
                         f'<Relationship Id="rId1" Type="{XLSX_REL}/worksheet" '
                         'Target="worksheets/sheet1.xml"/>'
                         + (f'<Relationship Id="rId2" Type="{XLSX_REL}/sharedStrings" '
                            'Target="sharedStrings.xml"/>' if shared else "")
                         + "</Relationships>")
        if shared:
            with archive.open("xl/sharedStrings.xml", "w") as handle:
                for piece in shared:
                    handle.write(piece.encode())
        with archive.open("xl/worksheets/sheet1.xml", "w") as handle:
            handle.write(f'<?xml version="1.0"?><worksheet xmlns="{XLSX_MAIN}">'.encode())
            if dimension:
                handle.write(f'<dimension ref="{dimension}"/>'.encode())
            handle.write(b"<sheetData>")
            for piece in rows:
                handle.write(piece.encode())
            handle.write(b"</sheetData></worksheet>")


def _cell(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def declared_grid(path: Path) -> str:
    """1.6 KB: two rows of pairs under a declared range ``A1:XFD1048576``."""
    _workbook(path, ['<row r="1">' + _cell("A1", "winner") + _cell("B1", "loser") + "</row>"
                     '<row r="2">' + _cell("A2", "tea") + _cell("B2", "coffee") + "</row>"],
              dimension="A1:XFD1048576")
    return "declares A1:XFD1048576"


def _strings_bomb(path: Path, megabytes: int) -> str:
    block = "<si><t>spam</t></si>" * 50_000  # 1 MB of one repeated text
    shared = [f'<?xml version="1.0"?><sst xmlns="{XLSX_MAIN}">', *[block] * megabytes,
              "</sst>"]
    _workbook(path, ['<row r="1"><c r="A1" t="s"><v>0</v></c></row>'], shared=shared)
    return f"shared strings unpack to {megabytes:,} MB"


def strings_bomb_small(path: Path) -> str:
    """Shared strings of 200 MB packed into about 0.2 MB."""
    return _strings_bomb(path, 200)


def strings_bomb_large(path: Path) -> str:
    """Shared strings of 1.2 GB packed into about 1.2 MB."""
    return _strings_bomb(path, 1200)


def last_cell(path: Path) -> str:
    """A value in A1 and one in XFD1048576, the last cell of Excel's grid."""
    _workbook(path, ['<row r="1">' + _cell("A1", "a") + "</row>",
                     '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'])
    return "A1 and XFD1048576"


def blank_flood(path: Path) -> str:
    """Blank styled cells ``<c r=".." s="1"/>``, 16,384 a row, just under 200 MB of XML."""
    letters = []
    for k in range(1, 16_385):
        name, n = "", k
        while n:
            n, rest = divmod(n - 1, 26)
            name = chr(65 + rest) + name
        letters.append(name)
    rows = ("".join([f'<row r="{r}">'] + [f'<c r="{c}{r}" s="1"/>' for c in letters]
                    + ["</row>"]) for r in range(1, 600))
    _workbook(path, rows)
    return "16,384 blank cells a row"


def million_rows(path: Path) -> str:
    """A valid workbook ``worker,winner,loser`` of 1 M rows (about 17 MB), shared strings."""
    rng = np.random.default_rng(7)
    n = 1_000_000
    names = [f"item {k:04d}" for k in range(1000)] + [f"w{k:05d}" for k in range(5000)]
    shared = ([f'<?xml version="1.0"?><sst xmlns="{XLSX_MAIN}">']
              + [f"<si><t>{s}</t></si>" for s in names] + ["</sst>"])
    i = rng.integers(0, 1000, n)
    j = (i + rng.integers(1, 1000, n)) % 1000
    w = rng.integers(0, 5000, n) + 1000

    def rows():
        yield ('<row r="1">' + _cell("A1", "worker") + _cell("B1", "winner")
               + _cell("C1", "loser") + "</row>")
        for start in range(0, n, 10_000):
            yield "".join(f'<row r="{r + 2}"><c r="A{r + 2}" t="s"><v>{w[r]}</v></c>'
                          f'<c r="B{r + 2}" t="s"><v>{i[r]}</v></c><c r="C{r + 2}" t="s">'
                          f'<v>{j[r]}</v></c></row>' for r in range(start, min(n, start + 10_000)))
    _workbook(path, rows(), shared=shared)
    return "1,000,000 rows"


WORKBOOKS = {"declared grid": declared_grid, "strings bomb 200MB": strings_bomb_small,
             "strings bomb 1.2GB": strings_bomb_large, "last cell": last_cell,
             "blank flood": blank_flood, "1 M valid rows": million_rows}


def _child_workbook(path: str) -> dict:
    """Read a workbook as the Data page does: sheets, columns, then the reading."""
    import gc

    from coarsenrank_core.io import ReadOptions, read_file, sheet_names, table_columns

    data = Path(path).read_bytes()
    gc.collect()
    before = _rss()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        sheet_names(data)
        table_columns(data, ReadOptions())
        prefs = read_file(data).preferences
        outcome = f"read: {len(prefs):,} preferences over {prefs.n_items:,} items"
    except Exception as error:  # noqa: BLE001 - an error message is a valid outcome
        outcome = f"{type(error).__name__}: {' '.join(str(error).split())[:90]}"
    seconds = time.perf_counter() - start
    gc.collect()
    return dict(seconds=seconds, cpu=time.process_time() - cpu, peak=_peak(),
                held=_rss() - before, base=before, outcome=outcome)


def _child_sheet_paths(path: str) -> dict:
    """One sheet read both ways in one process: whole rows at a time, and streamed."""
    from coarsenrank_core.io import containers

    data = Path(path).read_bytes()
    book = containers._workbook(data)
    title = book.sheetnames[0]
    seconds = {}
    for fast in (True, False):
        start = time.perf_counter()
        table = containers._sheet_table(book, title, fast=fast)
        seconds[fast] = time.perf_counter() - start
    return dict(seconds=seconds[True], streamed=seconds[False], peak=_peak(), held=0.0,
                outcome=f"{len(table):,} rows")


# ------------------------------------------------------------------ issue 21: sessions, links
def _session_bytes(name: str) -> bytes:
    head = '{"format": "coarsenrank-session", "version": 1, '
    if name == "1e6 unnamed items":
        return (head + '"preferences": {"items": [0, 1], "offsets": [0, 2], '
                '"groups": [0, 1], "n_items": 1000000}}').encode()
    if name == "5e7 unnamed items":
        return (head + '"preferences": {"items": [0, 1], "offsets": [0, 2], '
                '"groups": [0, 1], "n_items": 50000000}}').encode()
    if name == "1e6 names, 2 used":
        names = json.dumps([f"i{k}" for k in range(1_000_000)])
        return (head + '"preferences": {"items": [0, 1], "offsets": [0, 2], "groups": [0, 1], '
                f'"n_items": 1000000, "item_names": {names}}}}}').encode()
    if name == "nesting 100,000 deep":
        return b"[" * 100_000 + b"]" * 100_000
    if name == "5,000-digit number":
        return (head + '"name": ' + "9" * 5000 + "}").encode()
    if name == "3,000 repeated methods":
        from ui import share
        from ui.compute import load_sample
        document = json.loads(share._document(load_sample("pizza"), None, []))
        document["choices"]["methods"] = ["coarsen-pl-gibbs"] * 3000
        return json.dumps(document).encode()
    raise KeyError(name)


SESSIONS = ("1e6 unnamed items", "5e7 unnamed items", "1e6 names, 2 used",
            "nesting 100,000 deep", "5,000-digit number", "3,000 repeated methods")


def _child_session(name: str) -> dict:
    """Read a hostile session file as the Data page does; run its methods as Compare would."""
    import gc

    from coarsenrank_core import compare
    from ui import share
    from ui.compute import COMPARE_DRAWS

    data = _session_bytes(name)
    gc.collect()
    before = _rss()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        dataset, choices, _ = share.read_session(data)
        methods = choices["methods"]
        outcome = (f"loaded {dataset.preferences.n_items:,} items; methods {methods}")
        if methods:
            compare(dataset.preferences, methods, overrides={"alpha": 10.0, **COMPARE_DRAWS})
            outcome += ", run once each"
    except share.SessionFileError as error:
        outcome = f"refused: {' '.join(str(error).split())[:90]}"
    seconds = time.perf_counter() - start
    gc.collect()
    return dict(seconds=seconds, cpu=time.process_time() - cpu, peak=_peak(),
                held=_rss() - before, base=before, outcome=outcome, size=len(data))


def _child_link(copies: int) -> dict:
    """A link repeating CoarsenPL (Gibbs): read it, then one click on Run on the sample."""
    import gc

    from coarsenrank_core import compare
    from ui import share
    from ui.compute import COMPARE_DRAWS

    params = {"data": "sample:pizza", "methods": ",".join(["coarsen-pl-gibbs"] * copies),
              "alpha": "10"}
    gc.collect()
    before = _rss()
    start, cpu = time.perf_counter(), time.process_time()
    view, problems = share.read_link(params)
    compare(view.dataset.preferences, list(view.methods),
            overrides={"alpha": view.alpha, **COMPARE_DRAWS})
    seconds = time.perf_counter() - start
    gc.collect()
    return dict(seconds=seconds, cpu=time.process_time() - cpu, peak=_peak(),
                held=_rss() - before, base=before,
                outcome=f"methods {list(view.methods)}; {len(problems)} note(s)",
                size=len(params["methods"]))


# ------------------------------------------------------------------ the parent
def watch_child(module: str, args: list[str], kill_bytes: float, timeout: float,
                poll: float = 0.02, tail: int = 100) -> tuple[dict | None, str, float, int]:
    """Run ``python -m MODULE --child ARGS`` and watch its resident memory.

    Returns ``(result, failure, seconds, peak)``: the child's last JSON line (None when it
    failed), why it failed (``""`` when it did not: stopped above ``kill_bytes`` or after
    ``timeout`` seconds, or its own error, cut to ``tail`` characters), the seconds it ran
    and its largest resident memory seen.
    """
    process = subprocess.Popen([sys.executable, "-m", module, "--child", *args],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    start, largest = time.perf_counter(), 0
    page = os.sysconf("SC_PAGE_SIZE")
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/statm") as handle:
                largest = max(largest, int(handle.read().split()[1]) * page)
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
        elapsed = time.perf_counter() - start
        if largest > kill_bytes or elapsed > timeout:
            process.kill()
            process.communicate()
            why = (f"stopped above {kill_bytes / GB:.1f} GB" if largest > kill_bytes
                   else f"stopped after {timeout:.0f} s")
            return None, why, elapsed, largest
        time.sleep(poll)
    out, err = process.communicate()
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        last = " ".join(err.strip().splitlines()[-1:]) or f"exit {process.returncode}"
        return None, f"child failed: {last[:tail]}", time.perf_counter() - start, largest
    return json.loads(lines[-1]), "", time.perf_counter() - start, largest


def run_child(args: list[str], kill_bytes: float, timeout: float = 600.0) -> dict:
    """Run ``python -m benchmarks.limits --child ...`` and return its JSON line.

    The child's resident memory is polled; above ``kill_bytes`` (or after ``timeout``
    seconds) it is stopped and the result says so.
    """
    result, failure, seconds, peak = watch_child("benchmarks.limits", args, kill_bytes, timeout)
    if result is None:
        return dict(seconds=seconds, peak=peak, held=float("nan"), outcome=failure)
    return result


def three_delimiters(path: Path) -> str:
    """A first line with ``,``, ``;`` and a tab, then comma rows up to 49.5 MB."""
    rng = np.random.default_rng(1)
    n = TARGET_BYTES // 20 + 1
    a, b = rng.integers(0, 5000, n), rng.integers(0, 1000, n)
    c = (b + rng.integers(1, 1000, n)) % 1000  # never the same item twice in a row
    body = "".join(f"w{x:05d},it{y:04d},it{z:04d}\n" for x, y, z in zip(a, b, c))
    text = ("worker,winner;loser\tnote\n" + body)[:TARGET_BYTES]
    path.write_text(text[:text.rfind("\n") + 1])
    return "line 1: , ; and tab"


def blank_lines(path: Path) -> str:
    """49.5 MB of empty lines."""
    path.write_bytes(b"\n" * TARGET_BYTES)
    return "blank lines only"


def realistic_pairs(path: Path) -> str:
    """``worker,winner,loser`` with Bradley–Terry outcomes, 49.5 MB (about 2.36 M rows)."""
    rng = np.random.default_rng(2)
    n_items, n_workers = 1000, 5000
    strength = rng.normal(0.0, 1.0, n_items)
    n = TARGET_BYTES // 21 + 1
    i = rng.integers(0, n_items, n)
    j = (i + rng.integers(1, n_items, n)) % n_items
    wins = rng.random(n) < 1.0 / (1.0 + np.exp(strength[j] - strength[i]))
    winner, loser = np.where(wins, i, j), np.where(wins, j, i)
    worker = rng.integers(0, n_workers, n)
    body = "".join(f"w{k:05d},it{x:04d},it{y:04d}\n" for k, x, y in zip(worker, winner, loser))
    text = ("worker,winner,loser\n" + body)[:TARGET_BYTES]
    text = text[:text.rfind("\n") + 1]
    path.write_text(text)
    return f"{text.count(chr(10)) - 1:,} rows"


def preflib_orders(path: Path) -> str:
    """A PrefLib .soi of 100 alternatives: orders of 2 to 11, 49.5 MB (about 2.2 M lines)."""
    rng = np.random.default_rng(3)
    m = 100
    head = ["# FILE NAME: limits.soi", "# DATA TYPE: soi", f"# NUMBER ALTERNATIVES: {m}"]
    head += [f"# ALTERNATIVE NAME {k}: item {k}" for k in range(1, m + 1)]
    n = TARGET_BYTES // 22 + 1
    lengths = rng.integers(2, 12, n)
    keys = np.argsort(rng.random((n, 11)), axis=1)[:, :11] + 1
    body = "".join(f"{c}: " + ",".join(map(str, row[:k])) + "\n"
                   for c, k, row in zip(rng.integers(1, 5, n), lengths, keys.tolist()))
    text = ("\n".join(head) + "\n" + body)[:TARGET_BYTES]
    path.write_text(text[:text.rfind("\n") + 1])
    return f"{text.count(chr(10)) - len(head):,} orders"


def blt_ballots(path: Path) -> str:
    """A BLT election of 100 candidates: ballots of 2 to 11 preferences, 49.5 MB."""
    rng = np.random.default_rng(4)
    m = 100
    n = TARGET_BYTES // 20 + 1
    lengths = rng.integers(2, 12, n)
    steps = np.cumsum(rng.integers(1, 9, (n, 11)), axis=1)  # distinct: 11 × 8 < 100
    keys = (rng.integers(0, m, (n, 1)) + steps) % m + 1
    body = "".join(f"{c} " + " ".join(map(str, row[:k])) + " 0\n"
                   for c, k, row in zip(rng.integers(1, 5, n), lengths, keys.tolist()))
    tail = "0\n" + "".join(f'"item {k}"\n' for k in range(1, m + 1)) + '"limits"\n'
    body = body[:TARGET_BYTES - len(tail) - 10]
    body = body[:body.rfind("\n") + 1]
    path.write_text(f"{m} 1\n" + body + tail)
    return f"{body.count(chr(10)):,} ballots"


def wide_lists(path: Path) -> str:
    """A wide CSV ``voter,1st,…,10th`` of 200 named items, 49.5 MB (about 1 M rows)."""
    rng = np.random.default_rng(5)
    names = np.array([f"item {k:03d}" for k in range(200)])
    n = TARGET_BYTES // 92 + 1
    keys = np.argsort(rng.random((n, 200)), axis=1)[:, :10]
    rows = (f"v{i}," + ",".join(row) + "\n" for i, row in enumerate(names[keys].tolist()))
    text = ("voter," + ",".join(f"rank {r}" for r in range(1, 11)) + "\n" + "".join(rows))
    text = text[:TARGET_BYTES]
    path.write_text(text[:text.rfind("\n") + 1])
    return f"{text.count(chr(10)) - 1:,} rows"


def long_ranks(path: Path) -> str:
    """A long CSV ``ranker,item,rank``: 10 items a ranker over 300 items, 49.5 MB."""
    rng = np.random.default_rng(6)
    n = TARGET_BYTES // 16 + 1
    rankers = np.arange(n) // 10
    items = (rng.integers(0, 300, n // 10 + 1)[rankers] + (np.arange(n) % 10) * 29) % 300
    text = "ranker,item,rank\n" + "".join(
        f"r{r},item {i},{k}\n" for r, i, k in zip(rankers.tolist(), items.tolist(),
                                                  (np.arange(n) % 10 + 1).tolist()))
    text = text[:TARGET_BYTES]
    path.write_text(text[:text.rfind("\n") + 1])
    return f"{text.count(chr(10)) - 1:,} rows"


def one_long_row(path: Path) -> str:
    """A single 48 MB line of commas (24 M columns)."""
    path.write_text("a," * 24_000_000 + "b\n")
    return "24,000,001 columns"


MAKERS = {"three delimiters": three_delimiters, "blank lines": blank_lines,
          "realistic pairwise": realistic_pairs, "PrefLib orders": preflib_orders,
          "BLT ballots": blt_ballots, "wide lists": wide_lists, "long ranks": long_ranks,
          "one long row": one_long_row}


def _verdict(value: float, budget: float) -> str:
    return "ok" if value <= budget else "OVER"


def bench_reading(kill: float) -> None:
    print("Reading a file in a fresh process (budgets: <= 10 s, <= 1 GB peak, <= 0.4 GB held)")
    print(f"{'file':20s} {'size':>8s} {'time':>8s} {'peak':>9s} {'held':>9s}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name in MAKERS:
            path = Path(folder) / f"{name.replace(' ', '_')}.csv"
            # made in a child too, so that this process stays small: a child's ru_maxrss
            # starts from the size of the process it was forked from
            made = run_child(["make", name, str(path)], kill)
            what = made.get("what", made["outcome"])
            size = path.stat().st_size if path.exists() else 0
            r = run_child(["read", str(path)], kill)
            print(f"{name:20s} {size / MB:6.1f}MB {r['seconds']:7.2f}s "
                  f"{r['peak'] / GB:7.2f}GB {r['held'] / GB:7.2f}GB  {r['outcome']}")
            print(f"{'  ' + what:29.29s} {_verdict(r['seconds'], READ_SECONDS):>8s} "
                  f"{_verdict(r['peak'], READ_PEAK):>9s} {_verdict(r['held'], READ_HELD):>9s}")
            path.unlink()


def bench_consensus(kill: float, start: int, largest: int) -> None:
    print(f"\nConsensus posterior summary: Gibbs ({CONSENSUS_DRAWS['n_draws']} draws, burn-in "
          f"{CONSENSUS_DRAWS['burn_in']}), rank_interval and rank_probabilities; 2 pairs per "
          "item (budget: <= 1 GB peak)")
    print(f"{'M':>9s} {'time':>8s} {'peak':>9s}  outcome")
    under, over, m = 0, None, start
    while m <= largest:
        r = run_child(["consensus", str(m)], kill)
        print(f"{m:9,d} {r['seconds']:7.2f}s {r['peak'] / GB:7.2f}GB  {r['outcome']}")
        if r["peak"] <= CONSENSUS_PEAK and not r["outcome"].startswith(("stopped", "child")):
            under, m = m, 2 * m
        else:
            over = m
            break
    for _ in range(2):  # two bisection steps between the last M under and the first over
        if over is None or under == 0:
            break
        m = (under + over) // 2
        r = run_child(["consensus", str(m)], kill)
        print(f"{m:9,d} {r['seconds']:7.2f}s {r['peak'] / GB:7.2f}GB  {r['outcome']}")
        if r["peak"] <= CONSENSUS_PEAK and not r["outcome"].startswith(("stopped", "child")):
            under = m
        else:
            over = m
    bound = f"(first M over: {over:,})" if over else f"(largest M tried: {largest:,})"
    print(f"largest M under 1 GB: {under:,} {bound}")


def bench_crowdbt(kill: float) -> None:
    print("\nCrowdBT, 5 passes, on x,COUNT,a,b,c / y,1,b,a,c")
    print(f"{'count':>9s} {'time':>8s} {'peak':>9s}  outcome")
    for count in (1.0, 1e7):
        r = run_child(["crowdbt", repr(count)], kill)
        print(f"{count:9.0e} {r['seconds']:7.4f}s {r['peak'] / GB:7.3f}GB  {r['outcome']}")
    print("\nCrowdBT on 4 full rankings of 4,000 items (31,992,000 pairs if rank-broken)")
    r = run_child(["long-lists", "4000"], kill)
    print(f"{'':9s} {r['seconds']:7.4f}s {r['peak'] / GB:7.3f}GB  {r['outcome']}")


def _line(name: str, size: float, r: dict, what: str = "") -> None:
    cpu = r.get("cpu", float("nan"))
    print(f"{name:24s} {size / MB:7.3f}MB {r['seconds']:7.2f}s {cpu:7.2f}s "
          f"{r['peak'] / GB:7.2f}GB {r['held'] / GB:7.2f}GB  {r['outcome']}")
    print(f"{'  ' + what:33.33s} {_verdict(r['seconds'], READ_SECONDS):>8s} "
          f"{_verdict(cpu, READ_SECONDS):>8s} {_verdict(r['peak'], READ_PEAK):>9s}")


def bench_workbooks(kill: float) -> None:
    print("\nWorkbooks read as the Data page reads them (sheets, columns, reading) in a fresh "
          "process (budgets: <= 10 s, <= 1 GB peak)")
    print(f"{'workbook':24s} {'size':>9s} {'time':>8s} {'cpu':>8s} {'peak':>9s} {'held':>9s}"
          "  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name in WORKBOOKS:
            path = Path(folder) / f"{name.replace(' ', '_')}.xlsx"
            made = run_child(["make-workbook", name, str(path)], kill)
            size = path.stat().st_size if path.exists() else 0
            r = run_child(["workbook", str(path)], kill, timeout=300.0)
            _line(name, size, r, made.get("what", made["outcome"]))
            if name == "1 M valid rows":
                both = run_child(["sheet-paths", str(path)], kill, timeout=300.0)
                if "streamed" in both:
                    print(f"  its sheet read whole rows at a time: {both['seconds']:.2f} s; "
                          f"streamed cell by cell: {both['streamed']:.2f} s "
                          f"({both['seconds'] / both['streamed']:.2f}x, same run)")
            path.unlink(missing_ok=True)


def bench_sessions(kill: float) -> None:
    print("\nHostile saved-session files read as the Data page reads them, their methods run "
          "once (budgets: <= 10 s, <= 1 GB peak)")
    print(f"{'session file':24s} {'size':>9s} {'time':>8s} {'cpu':>8s} {'peak':>9s} {'held':>9s}"
          "  outcome")
    for name in SESSIONS:
        r = run_child(["session", name], kill, timeout=120.0)
        _line(name, r.get("size", 0), r)
    r = run_child(["link", "3000"], kill, timeout=120.0)
    _line("link: 3,000 x Gibbs", r.get("size", 0), r, "read, then one click on Run")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", metavar="TASK", help=argparse.SUPPRESS)
    parser.add_argument("--kill-gb", type=float, default=6.0,
                        help="stop a child whose resident memory passes this (GB)")
    parser.add_argument("--consensus-from", type=int, default=10_000)
    parser.add_argument("--consensus-to", type=int, default=640_000)
    parser.add_argument("--only", choices=["read", "consensus", "crowdbt", "workbooks",
                                           "sessions"])
    args = parser.parse_args(argv)
    if args.child:
        task, value = args.child[0], args.child[1]
        run = {"make": lambda: dict(what=MAKERS[value](Path(args.child[2])), seconds=0.0,
                                    peak=_peak(), outcome="made"),
               "read": lambda: _child_read(value),
               "consensus": lambda: _child_consensus(int(value)),
               "crowdbt": lambda: _child_crowdbt(float(value)),
               "make-workbook": lambda: dict(what=WORKBOOKS[value](Path(args.child[2])),
                                             seconds=0.0, peak=_peak(), outcome="made"),
               "workbook": lambda: _child_workbook(value),
               "sheet-paths": lambda: _child_sheet_paths(value),
               "session": lambda: _child_session(" ".join(args.child[1:])),
               "link": lambda: _child_link(int(value)),
               "long-lists": lambda: _child_long_lists(int(value))}[task]
        print(json.dumps(run()))
        return 0
    kill = args.kill_gb * GB
    if args.only in (None, "read"):
        bench_reading(kill)
    if args.only in (None, "consensus"):
        bench_consensus(kill, args.consensus_from, args.consensus_to)
    if args.only in (None, "crowdbt"):
        bench_crowdbt(kill)
    if args.only in (None, "workbooks"):
        bench_workbooks(kill)
    if args.only in (None, "sessions"):
        bench_sessions(kill)
    return 0


if __name__ == "__main__":
    sys.exit(main())
