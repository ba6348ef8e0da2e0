"""Reading speed against the parser's floor: ``python -m benchmarks.readers`` from the repo root.

Generates three files (1 M pairwise rows, 1 M long rows, 100 k wide lists), reads each with
:func:`coarsenrank_core.read_preferences` and with a pyarrow + ``pandas.factorize`` pipeline
that builds the same integer codes, and prints the median of 3 runs of each and their ratio
(target: at most 2). Also prints the peak memory of one read in a fresh process.

Then the streaming reader (:func:`coarsenrank_core.io.streaming.stream_pairwise`) on a
``winner,loser`` file of ``--stream-rows`` rows (default 10 M; arena-shaped: 200 models),
as CSV and as Parquet, against pyarrow's read + dictionary-encode floor of the same file
(targets: at most 1.5× in time, 300 MB peak), each read in a fresh process.
``--skip-tables`` runs only that part.

``--memory`` (alone, or with ``--memory-rows``, default 1.5 M) prints the peak memory of one
read of a ``rater,winner,loser`` file with ranker ids (20,000 raters, 2,000 items; about
50 MB), whole and ``stream_pairwise``, each in a fresh process, against the same import in a
fresh process and pyarrow's read + dictionary-encode floor; the ratio is ours over the floor
(both above the import), measured in this one run. The chunked read is measured three
times: as a library call makes it (the system allocator, chosen by
:func:`~coarsenrank_core.io.streaming.reading_pool`), with the pool the command line chooses
by environment (the same),
and with ``ARROW_DEFAULT_MEMORY_POOL=mimalloc`` (pyarrow's own default, kept when a user
chooses it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

TARGET_RATIO = 2.0


def make_files(folder: Path, rng: np.random.Generator) -> dict[str, Path]:
    n, m, workers = 1_000_000, 5_000, 1_000
    files = {}
    pairs = folder / "pairs.csv"
    w, a, b = rng.integers(0, workers, n), rng.integers(0, m, n), rng.integers(0, m, n)
    b = np.where(a == b, (b + 1) % m, b)
    frame = pd.DataFrame({"worker": np.char.add("w", w.astype(str)),
                          "winner": np.char.add("item", a.astype(str)),
                          "loser": np.char.add("item", b.astype(str))})
    frame.to_csv(pairs, index=False)
    files["pairwise, 1 M rows"] = pairs
    long = folder / "long.csv"
    lists, length = 100_000, 10
    ranker = np.repeat(np.arange(lists), length)
    items = np.argsort(rng.random((lists, m // 50)), axis=1)[:, :length].ravel()
    pd.DataFrame({"ranker": np.char.add("r", ranker.astype(str)),
                  "item": np.char.add("item", items.astype(str)),
                  "rank": np.tile(np.arange(1, length + 1), lists)}).to_csv(long, index=False)
    files["long, 1 M rows"] = long
    wide = folder / "wide.csv"
    names = np.char.add("item", items.reshape(lists, length).astype(str))
    header = "voter," + ",".join(f"rank {k + 1}" for k in range(length))
    body = pd.DataFrame(names).assign(voter=np.char.add("v", np.arange(lists).astype(str)))
    body = body[["voter", *range(length)]]
    wide.write_text(header + "\n" + body.to_csv(index=False, header=False))
    files["wide, 100 k lists"] = wide
    return files


def floor_pipeline(path: Path) -> None:
    """pyarrow's CSV reader, then integer codes for items and rankers (the floor)."""
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(path)
    columns = [table.column(i).to_numpy(zero_copy_only=False) for i in range(table.num_columns)]
    pd.factorize(np.concatenate([c.astype(object) for c in columns[1:]]))
    pd.factorize(columns[0])


def ours(path: Path) -> None:
    from coarsenrank_core import read_preferences

    read_preferences(path)


def median_seconds(function, path: Path, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_mb(path: Path) -> float:
    """Peak resident memory (VmHWM, which a new program starts afresh) of one read."""
    code = ("from coarsenrank_core import read_preferences; "
            f"read_preferences({str(path)!r}); "
            "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return int(out.strip()) / 1024


STREAM_RATIO, STREAM_PEAK_MB = 1.5, 300.0


def make_stream_files(folder: Path, rows: int, rng: np.random.Generator) -> dict[str, Path]:
    """A ``winner,loser`` CSV of ``rows`` rows over 200 models, written in pieces, and its
    Parquet twin (row groups of 1 M)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = np.array([f"model-{k:03d}" for k in range(200)], dtype=object)
    csv_path, parquet_path = folder / "battles.csv", folder / "battles.parquet"
    writer = None
    with open(csv_path, "w") as handle:
        handle.write("winner,loser\n")
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            a = rng.integers(0, 200, n)
            b = (a + rng.integers(1, 200, n)) % 200
            frame = pd.DataFrame({"winner": names[a], "loser": names[b]})
            handle.write(frame.to_csv(index=False, header=False))
            table = pa.Table.from_pandas(frame, preserve_index=False)
            writer = writer or pq.ParquetWriter(parquet_path, table.schema)
            writer.write_table(table)
    if writer is not None:
        writer.close()
    return {"CSV": csv_path, "Parquet": parquet_path}


_FLOOR = """
import sys, time
import pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as pacsv, pyarrow.parquet as pq
path = sys.argv[1]
start = time.process_time()
table = pq.read_table(path) if path.endswith('.parquet') else pacsv.read_csv(path)
codes = pc.dictionary_encode(pa.concat_arrays([table.column(0).combine_chunks(),
                                               table.column(1).combine_chunks()]))
"""
_STREAM = """
import sys, time
from coarsenrank_core.io.streaming import stream_pairwise
path = sys.argv[1]
start = time.process_time()
prefs = stream_pairwise(path).preferences
"""
_MEASURE = """
seconds = time.process_time() - start
peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
print(seconds, int(peak) / 1024)
"""


def fresh_process(code: str, path: Path, env: dict[str, str] | None = None
                  ) -> tuple[float, float]:
    """CPU seconds of the timed part and peak resident MB of a new process running ``code``
    (with ``env`` added to the environment)."""
    out = subprocess.run([sys.executable, "-c", code + _MEASURE, str(path)], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parents[1],
                         env={**os.environ, **(env or {})}).stdout
    seconds, peak = out.split()
    return float(seconds), float(peak)


def stream_section(rows: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        files = make_stream_files(Path(folder), rows, np.random.default_rng(1))
        print(f"\nstreaming winner,loser reader, {rows:,} rows, 200 models (CPU s, peak MB of "
              f"a fresh process; targets: ratio <= {STREAM_RATIO}, peak <= {STREAM_PEAK_MB:g})")
        print(f"{'file':10s} {'MB':>7s} {'ours s':>8s} {'floor s':>8s} {'ratio':>6s} "
              f"{'ours MB':>8s} {'floor MB':>9s}")
        for label, path in files.items():
            mine, mine_mb = fresh_process(_STREAM, path)
            floor, floor_mb = fresh_process(_FLOOR, path)
            print(f"{label:10s} {path.stat().st_size / 1e6:7.1f} {mine:8.2f} {floor:8.2f} "
                  f"{mine / floor:6.2f} {mine_mb:8.0f} {floor_mb:9.0f}")


def make_rater_pairs(path: Path, rows: int, rng: np.random.Generator) -> Path:
    """A ``rater,winner,loser`` CSV of ``rows`` rows: 20,000 raters, 2,000 items."""
    raters, m = 20_000, 2_000
    with open(path, "w") as handle:
        handle.write("rater,winner,loser\n")
        for start in range(0, rows, 500_000):
            n = min(500_000, rows - start)
            r, a = rng.integers(0, raters, n), rng.integers(0, m, n)
            b = (a + rng.integers(1, m, n)) % m
            frame = pd.DataFrame({"rater": np.char.add("rater-", r.astype(str)),
                                  "winner": np.char.add("item ", a.astype(str)),
                                  "loser": np.char.add("item ", b.astype(str))})
            handle.write(frame.to_csv(index=False, header=False))
    return path


_IMPORTS = """
import sys, time
import numpy, pandas, pyarrow, pyarrow.csv, pyarrow.compute
import coarsenrank_core.io.streaming
from coarsenrank_core import read_preferences
path = sys.argv[1]
start = time.process_time()
"""
_WHOLE = _IMPORTS + "prefs = read_preferences(path)\n"
_CHUNKED = _IMPORTS + "prefs = coarsenrank_core.io.streaming.stream_pairwise(path).preferences\n"
_ARROW = _IMPORTS + """
table = pyarrow.csv.read_csv(path)
codes = [pyarrow.compute.dictionary_encode(table.column(j)) for j in range(table.num_columns)]
"""


def memory_section(rows: int) -> None:
    """Peak memory of reading a pairwise file with ranker ids, whole and in chunks."""
    with tempfile.TemporaryDirectory() as folder:
        path = make_rater_pairs(Path(folder) / "rated.csv", rows, np.random.default_rng(2))
        size = path.stat().st_size / 1e6
        _, imported = fresh_process(_IMPORTS, path)
        _, floor = fresh_process(_ARROW, path)
        print(f"\nrater,winner,loser with ranker ids, {rows:,} rows, {size:.0f} MB (peak MB of a "
              f"fresh process; the imports alone: {imported:.0f} MB; pyarrow read + "
              f"dictionary-encode floor: {floor:.0f} MB)")
        print(f"{'reader':24s} {'peak MB':>8s} {'read MB':>8s} {'ratio to floor':>15s} "
              f"{'read MB / file MB':>18s}")
        system = {"ARROW_DEFAULT_MEMORY_POOL": "system"}  # as the command line sets it
        mimalloc = {"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"}  # pyarrow's default, chosen
        for label, code, env in (("read_preferences", _WHOLE, None),
                                 ("stream_pairwise", _CHUNKED, None),
                                 ("stream_pairwise, CLI pool", _CHUNKED, system),
                                 ("stream_pairwise, mimalloc", _CHUNKED, mimalloc)):
            _, peak = fresh_process(code, path, env)
            used = peak - imported
            print(f"{label:24s} {peak:8.0f} {used:8.0f} "
                  f"{used / max(floor - imported, 1.0):15.2f} {used / size:18.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stream-rows", type=int, default=10_000_000)
    parser.add_argument("--skip-tables", action="store_true")
    parser.add_argument("--memory", action="store_true",
                        help="only the peak memory of a pairwise file with ranker ids")
    parser.add_argument("--memory-rows", type=int, default=1_500_000)
    args = parser.parse_args(argv)
    if args.memory:
        memory_section(args.memory_rows)
        return
    if args.skip_tables:
        stream_section(args.stream_rows)
        return
    from coarsenrank_core import read_preferences

    read_preferences(b"a,b\nb,a\n")  # import pandas and the readers before timing
    with tempfile.TemporaryDirectory() as folder:
        files = make_files(Path(folder), np.random.default_rng(0))
        print(f"{'file':22s} {'MB':>6s} {'ours s':>8s} {'floor s':>8s} {'ratio':>6s} "
              f"{'peak MB':>8s}  target ratio <= {TARGET_RATIO}")
        for label, path in files.items():
            size = path.stat().st_size / 1e6
            mine = median_seconds(ours, path, args.repeats)
            floor = median_seconds(floor_pipeline, path, args.repeats)
            print(f"{label:22s} {size:6.1f} {mine:8.2f} {floor:8.2f} {mine / floor:6.2f} "
                  f"{peak_mb(path):8.0f}")
    stream_section(args.stream_rows)
    memory_section(args.memory_rows)


if __name__ == "__main__":
    main()
