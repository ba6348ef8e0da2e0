"""Data of any size: ``python -m benchmarks.scale`` from the repo root (CPU s, peak MB).

Three parts, each in fresh processes (peak memory is the process's VmHWM):

1. The streaming pairwise reader (:func:`coarsenrank_core.io.streaming.stream_pairwise`)
   on arena-shaped ``winner,loser`` files (200 models) of ``--rows`` rows (default 10⁷;
   pass e.g. ``--rows 10000000 100000000`` for both), as Parquet and (up to
   ``--csv-rows``) as CSV: CPU seconds, seconds per million rows (linear time shows as a
   flat column) and peak memory (bounded memory shows as a flat column).
2. ``pl-em`` on ``--battles`` battles (default 2·10⁷) read from Parquet, against the
   count-then-fit floor: pyarrow's read and dictionary-encode, one ``bincount`` of the
   combined key, and the same fit on the counts (target: at most 3×).
3. The judge-aware methods on an arena-shaped set (200 models, ``--arena`` battles,
   default 2·10⁶, 15 % ties, 100 judges): seconds, iterations and convergence of
   ``pl-mix``, ``pl-mix-ranker`` (target: converged, at most 5 s) and PeerGrader.
4. ``--parts dask`` (needs ``pip install '.[dask]'``): the same Parquet files of
   ``--rows`` rows counted on a LocalCluster of ``--workers`` processes against the local
   streaming reader: wall seconds, the driver's CPU seconds, every process's peak memory,
   the overhead ratio (Dask wall / local wall), and the projection to 10⁹ rows on N
   workers from the measured per-worker rate.
5. ``--parts dic``: the 20-α DIC sweep on a SUSHI-B shape (100 items, 5,000 lists of 10,
   so almost no choice set repeats) through ``dic_sweep``'s defaults against
   ``choose_alpha``'s sweep (target: at most 1.5×; the same curve).
6. ``--parts em-step``: one EM step (``StageDesign.exposure``) on 1.27 M pairs over 5,000
   items, nearly all distinct, against a plain two-``bincount`` NumPy step (target ≤ 1.2×).
7. ``--parts dask-dic`` (needs ``pip install '.[dask]'``): the chained DIC sweep
   (``dic_sweep``'s defaults, an 8-α grid) on ``--dic-lists`` lists of 5 of 100 items
   (default 10⁵) in this process, then cut into ``--partitions`` parts (default 4) in this
   process, then on a LocalCluster of ``--workers`` processes with the same parts (every
   Gibbs sweep a map over the partitions, seeded per partition): wall and driver CPU
   seconds, the Dask/local ratios, and whether the Dask curve equals the partitioned local
   curve (it must, exactly).
8. ``--parts dask-em`` (needs ``pip install '.[dask]'``): ``pl-em`` on ``--em-lists`` lists
   of 5 of 100 items (default 10⁷; they do not collapse into counts) in a fresh process,
   then with every EM step a map over ``--partitions`` parts on a LocalCluster of
   ``--workers`` processes: wall and CPU seconds, every process's peak memory, the ratio,
   and the largest relative difference of the two fits' scores.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N_MODELS = 200
PLEM_RATIO_TARGET = 3.0
MIX_SECONDS_TARGET = 5.0


def write_battles(path: Path, rows: int, seed: int = 0, csv: bool = False) -> None:
    """``rows`` battles between 200 models (BT strengths, no self-pairs), written in
    pieces of 10⁶ rows as Parquet (dictionary-encoded strings) or CSV."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, N_MODELS)
    names = pa.array([f"model-{k:03d}" for k in range(N_MODELS)])
    writer = None
    with open(path, "wb") as handle:
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            a = rng.integers(0, N_MODELS, n)
            b = (a + rng.integers(1, N_MODELS, n)) % N_MODELS
            a_wins = rng.random(n) < 1 / (1 + np.exp(strength[b] - strength[a]))
            winner = np.where(a_wins, a, b).astype(np.int32)
            loser = np.where(a_wins, b, a).astype(np.int32)
            table = pa.table({"winner": pa.DictionaryArray.from_arrays(winner, names),
                              "loser": pa.DictionaryArray.from_arrays(loser, names)})
            if csv:
                pacsv.write_csv(table.cast(pa.schema([("winner", pa.string()),
                                                      ("loser", pa.string())])), handle,
                                pacsv.WriteOptions(include_header=start == 0))
            else:
                writer = writer or pq.ParquetWriter(handle, table.schema)
                writer.write_table(table)
        if writer is not None:
            writer.close()


_MEASURE = """
seconds = time.process_time() - start
peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
print("RESULT", seconds, int(peak) / 1024, *extra)
"""

_STREAM = """
import sys, time
from coarsenrank_core.io.streaming import stream_pairwise
start = time.process_time()
prefs = stream_pairwise(sys.argv[1]).preferences
extra = [len(prefs)]
"""

_PLEM = """
import sys, time
from coarsenrank_core.io.streaming import stream_pairwise
from coarsenrank_core.registry import run_method
start = time.process_time()
prefs = stream_pairwise(sys.argv[1]).preferences
fit = run_method("pl-em", prefs)
extra = [fit.iterations, fit.converged]
"""

_PLEM_FLOOR = """
import sys, time
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
from coarsenrank_core import Preferences
from coarsenrank_core.registry import run_method
start = time.process_time()
table = pq.read_table(sys.argv[1])
both = pc.dictionary_encode(pa.concat_arrays([
    table.column(0).combine_chunks().cast(pa.string()),
    table.column(1).combine_chunks().cast(pa.string())]))
codes = both.indices.to_numpy()
n, m = table.num_rows, len(both.dictionary)
counts = np.bincount(codes[:n].astype(np.int64) * m + codes[n:], minlength=m * m)
present = np.flatnonzero(counts)
prefs = Preferences.from_pairs(present // m, present % m, n_items=m,
                               weights=counts[present].astype(float))
fit = run_method("pl-em", prefs)
extra = [fit.iterations, fit.converged]
"""


def fresh(code: str, *args) -> list[str]:
    """Run ``code`` in a new process; its RESULT line's fields (CPU s, peak MB, extra)."""
    out = subprocess.run([sys.executable, "-c", code + _MEASURE, *map(str, args)],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return next(line.split()[1:] for line in out.splitlines() if line.startswith("RESULT"))


def reader_section(folder: Path, rows_list: list[int], csv_rows: int) -> None:
    print("\n1. streaming winner,loser reader, 200 models (fresh process each)")
    print(f"{'rows':>12s} {'file':8s} {'MB':>8s} {'CPU s':>8s} {'s / M rows':>11s} "
          f"{'peak MB':>8s} {'distinct':>9s}")
    for rows in rows_list:
        kinds = ["parquet"] + (["csv"] if rows <= csv_rows else [])
        for kind in kinds:
            path = folder / f"battles_{rows}.{kind}"
            write_battles(path, rows, csv=kind == "csv")
            seconds, peak, distinct = fresh(_STREAM, path)
            print(f"{rows:12,d} {kind:8s} {path.stat().st_size / 1e6:8.1f} "
                  f"{float(seconds):8.2f} {float(seconds) / rows * 1e6:11.3f} "
                  f"{float(peak):8.0f} {int(distinct):9,d}")
            path.unlink()


def plem_section(folder: Path, battles: int) -> None:
    path = folder / "plem.parquet"
    write_battles(path, battles, seed=1)
    ours = fresh(_PLEM, path)
    floor = fresh(_PLEM_FLOOR, path)
    ratio = float(ours[0]) / float(floor[0])
    print(f"\n2. pl-em on {battles:,} battles from Parquet: {float(ours[0]):.2f} CPU s "
          f"({ours[2]} iterations, converged {ours[3]}, peak {float(ours[1]):.0f} MB); "
          f"count-then-fit floor {float(floor[0]):.2f} s (peak {float(floor[1]):.0f} MB): "
          f"{ratio:.2f}× (target ≤ {PLEM_RATIO_TARGET:g}×: "
          f"{'met' if ratio <= PLEM_RATIO_TARGET else 'MISSED'})")
    path.unlink()


def arena(n: int, seed: int = 2):
    """200 models, ``n`` battles, 15 % ties, 100 judges of whom 10 answer at random."""
    from coarsenrank_core import Preferences

    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, N_MODELS)
    a = rng.integers(0, N_MODELS, n)
    b = (a + rng.integers(1, N_MODELS, n)) % N_MODELS
    judge = rng.integers(0, 100, n)
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    p = np.where(judge < 10, 0.5, p)
    a_wins = rng.random(n) < p
    tied = rng.random(n) < 0.15
    return Preferences.from_pairs(np.where(a_wins, a, b), np.where(a_wins, b, a), N_MODELS,
                                  tied=tied, rankers=judge)


def arena_section(n: int) -> None:
    from coarsenrank_core.registry import run_method

    prefs = arena(n)
    print(f"\n3. judge-aware methods, arena shape: {n:,} battles, 200 models, 15 % ties, "
          "100 judges (10 random)")
    print(f"{'method':16s} {'CPU s':>7s} {'iter':>6s} {'conv':>6s}")
    for method in ("pl-mix", "pl-mix-ranker", "peergrader", "crowdbt"):
        start = time.process_time()
        fit = run_method(method, prefs)
        seconds = time.process_time() - start
        verdict = ""
        if method == "pl-mix-ranker":
            ok = seconds <= MIX_SECONDS_TARGET and bool(fit.converged)
            verdict = f"  target converged, ≤ {MIX_SECONDS_TARGET:g} s: {'met' if ok else 'MISSED'}"
        print(f"{method:16s} {seconds:7.2f} {fit.iterations!s:>6s} {fit.converged!s:>6s}{verdict}")


_DASK = """
import sys, time
import distributed
from coarsenrank_core.io.on_dask import dask_pairwise
workers = int(sys.argv[2])
with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=":0") as cluster:
    with distributed.Client(cluster) as client:
        client.run(lambda: 0)  # the workers are up before the clock starts
        wall = time.perf_counter()
        start = time.process_time()
        prefs = dask_pairwise(sys.argv[1], cluster.scheduler_address).preferences
        wall = time.perf_counter() - wall
        peaks = client.run(lambda: int([l for l in open('/proc/self/status')
                                        if l.startswith('VmHWM')][0].split()[1]) // 1024)
extra = [len(prefs), wall, max(peaks.values())]
"""


def dask_section(folder: Path, rows_list: list[int], workers: int) -> None:
    print(f"\n4. Dask ({workers} worker processes on this machine) against the local streaming "
          "reader, Parquet, 200 models")
    print(f"{'rows':>12s} {'local wall':>10s} {'local MB':>9s} {'dask wall':>10s} "
          f"{'driver CPU':>10s} {'driver MB':>10s} {'worker MB':>10s} {'overhead':>9s}")
    for rows in rows_list:
        path = folder / f"dask_{rows}.parquet"
        write_battles(path, rows)
        wall = time.perf_counter()
        local_cpu, local_mb, _ = fresh(_STREAM, path)
        local_wall = time.perf_counter() - wall
        cpu, driver_mb, _, dask_wall, worker_mb = fresh(_DASK, path, workers)
        ratio = float(dask_wall) / local_wall
        print(f"{rows:12,d} {local_wall:10.2f} {float(local_mb):9.0f} {float(dask_wall):10.2f} "
              f"{float(cpu):10.2f} {float(driver_mb):10.0f} {float(worker_mb):10.0f} "
              f"{ratio:8.2f}×")
        rate = rows / (float(dask_wall) * workers)  # rows per second per worker, measured
        for n in (8, 64):
            print(f"{'':12s} projection: 10⁹ rows on {n} such workers ≈ "
                  f"{1e9 / (rate * n) / 60:.1f} min (per-worker rate {rate / 1e6:.2f} M rows/s)")
        path.unlink()


_LISTS = """
import sys, time
import numpy as np
from coarsenrank_core import Preferences
from coarsenrank_core.simulate import pl_orderings, random_subsets
n_lists = int(sys.argv[1])
rng = np.random.default_rng(0)
subsets = random_subsets(100, np.full(n_lists, 5), random_state=rng).reshape(n_lists, 5)
orders = pl_orderings(subsets, np.linspace(2, -2, 100), random_state=rng)
prefs = Preferences.from_arrays(orders.ravel(), np.full(n_lists, 5), n_items=100)
del subsets, orders
"""

_EM_LOCAL = _LISTS + """
from coarsenrank_core.registry import run_method
wall = time.perf_counter()
start = time.process_time()
fit = run_method("pl-em", prefs)
wall = time.perf_counter() - wall
np.save(sys.argv[2], fit.scores)
extra = [fit.iterations, wall, 0]
"""

_EM_DASK = _LISTS + """
import distributed
from coarsenrank_core.dask_fit import DaskStages
from coarsenrank_core.registry import run_method
with distributed.LocalCluster(n_workers=int(sys.argv[3]), threads_per_worker=1,
                              processes=True, dashboard_address=":0") as cluster:
    with distributed.Client(cluster) as client:
        client.run(lambda: 0)  # the workers are up before the clock starts
        wall = time.perf_counter()
        start = time.process_time()
        design = DaskStages(prefs, client, int(sys.argv[4]))
        fit = run_method("pl-em", prefs, design=design)
        wall = time.perf_counter() - wall
        design.close()
        peaks = client.run(lambda: int([l for l in open('/proc/self/status')
                                        if l.startswith('VmHWM')][0].split()[1]) // 1024)
np.save(sys.argv[2], fit.scores)
extra = [fit.iterations, wall, max(peaks.values())]
"""


def dask_em_section(folder: Path, n_lists: int, workers: int, partitions: int) -> None:
    """PL-EM on lists that do not collapse (5 of 100 items), here and on Dask, each in a
    fresh process: the same fit (the scores agree to 1e-10), its wall time and memory."""
    local_file, dask_file = folder / "em_local.npy", folder / "em_dask.npy"
    cpu, mb, iterations, wall, _ = fresh(_EM_LOCAL, n_lists, local_file)
    d_cpu, d_mb, d_iterations, d_wall, worker_mb = fresh(_EM_DASK, n_lists, dask_file, workers,
                                                         partitions)
    gap = float(np.max(np.abs(np.load(local_file) / np.load(dask_file) - 1)))
    print(f"\n8. pl-em on {n_lists:,} lists of 5 of 100 items (timed after simulating them): "
          f"local {float(wall):.1f} s wall, {float(cpu):.1f} CPU s, peak {float(mb):.0f} MB, "
          f"{iterations} iterations; Dask, {workers} worker processes, {partitions} parts "
          f"(scattering included) {float(d_wall):.1f} s wall, driver {float(d_cpu):.1f} CPU s, "
          f"driver peak {float(d_mb):.0f} MB, each worker ≤ {float(worker_mb):.0f} MB, "
          f"{d_iterations} iterations: {float(d_wall) / float(wall):.2f}× local; largest "
          f"relative score difference {gap:.1e}")


def dic_section() -> None:
    from coarsenrank_core import Preferences
    from coarsenrank_core.alpha import choose_alpha
    from coarsenrank_core.dic import dic_sweep
    from coarsenrank_core.simulate import pl_orderings, random_subsets

    rng = np.random.default_rng(0)
    subsets = random_subsets(100, np.full(5000, 10), random_state=rng).reshape(5000, 10)
    orders = pl_orderings(subsets, np.linspace(2, -2, 100), random_state=rng)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(5000, 10), n_items=100)
    grid = np.geomspace(10, 1e6, 20)
    start = time.process_time()
    sweep = dic_sweep(prefs, alphas=grid, random_state=0)
    own = time.process_time() - start
    start = time.process_time()
    choice = choose_alpha(prefs, "knee", alphas=grid, random_state=0)
    chosen = time.process_time() - start
    same = bool(np.array_equal(sweep.dic, choice.evidence.dic))
    print(f"\n5. 20-α DIC sweep, SUSHI-B shape: dic_sweep's defaults {own:.2f} s, choose_alpha "
          f"{chosen:.2f} s: {own / chosen:.2f}× (target ≤ 1.5×), same curve: {same}")


def em_step_section(repeats: int = 20) -> None:
    from coarsenrank_core import Preferences

    rng = np.random.default_rng(0)
    n, m = 1_270_000, 5000
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    design = Preferences.from_pairs(a, b, m).pooled.stages
    theta = rng.random(m) + 0.5

    def plain():
        per = 1.0 / (theta[a] + theta[b])
        return np.bincount(a, per, m) + np.bincount(b, per, m)

    def ours():
        return design.exposure(theta)

    times = {}
    for name, step in (("plain", plain), ("ours", ours)) * 2:
        step()
        start = time.process_time()
        for _ in range(repeats):
            step()
        times[name] = (time.process_time() - start) / repeats * 1000
    ratio = times["ours"] / times["plain"]
    print(f"\n6. one EM step, 1.27 M distinct pairs over 5,000 items: {times['ours']:.1f} ms, "
          f"plain two-bincount step {times['plain']:.1f} ms: {ratio:.2f}× (target ≤ 1.2×)")


def dask_dic_section(n_lists: int, workers: int, partitions: int) -> None:
    import distributed

    from coarsenrank_core import Preferences
    from coarsenrank_core.dask_fit import DaskStages
    from coarsenrank_core.dic import dic_sweep
    from coarsenrank_core.models.partitioned import PartitionedDesign
    from coarsenrank_core.simulate import pl_orderings, random_subsets

    rng = np.random.default_rng(0)
    subsets = random_subsets(100, np.full(n_lists, 5), random_state=rng).reshape(n_lists, 5)
    orders = pl_orderings(subsets, np.linspace(2, -2, 100), random_state=rng)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n_lists, 5), n_items=100)
    grid = np.geomspace(1, 10 * n_lists, 8)

    def timed(**kw):
        wall, cpu = time.perf_counter(), time.process_time()
        curve = dic_sweep(prefs, alphas=grid, random_state=0, **kw)
        return curve, time.perf_counter() - wall, time.process_time() - cpu

    plain, plain_wall, plain_cpu = timed()
    parted, part_wall, part_cpu = timed(design=PartitionedDesign(prefs, partitions))
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: 0)  # the workers are up before the clock starts
        design = DaskStages(prefs, client, partitions)
        on_dask, dask_wall, dask_cpu = timed(design=design)
        design.close()
    print(f"\n7. chained 8-α DIC sweep, {n_lists:,} lists of 5 of 100 items: local "
          f"{plain_wall:.1f} s wall ({plain_cpu:.1f} CPU s); {partitions} parts in this process "
          f"{part_wall:.1f} s; Dask, {workers} worker processes, {partitions} parts "
          f"{dask_wall:.1f} s wall ({dask_cpu:.1f} CPU s on the driver): "
          f"{dask_wall / plain_wall:.2f}× local, {dask_wall / part_wall:.2f}× partitioned "
          f"local; Dask curve equals the partitioned local curve: "
          f"{bool(np.array_equal(on_dask.dic, parted.dic))}; knee local / partitioned / "
          f"Dask {plain.knee_alpha:g} / {parted.knee_alpha:g} / {on_dask.knee_alpha:g}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    parser.add_argument("--csv-rows", type=int, default=10_000_000,
                        help="largest file also timed as CSV")
    parser.add_argument("--battles", type=int, default=20_000_000)
    parser.add_argument("--arena", type=int, default=2_000_000)
    parser.add_argument("--parts", nargs="+", default=["reader", "pl-em", "arena"],
                        choices=["reader", "pl-em", "arena", "dask", "dic", "em-step",
                                 "dask-dic", "dask-em"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dic-lists", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--em-lists", type=int, default=10_000_000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as folder:
        if "reader" in args.parts:
            reader_section(Path(folder), args.rows, args.csv_rows)
        if "pl-em" in args.parts:
            plem_section(Path(folder), args.battles)
        if "dask" in args.parts:
            dask_section(Path(folder), args.rows, args.workers)
        if "dask-em" in args.parts:
            dask_em_section(Path(folder), args.em_lists, args.workers, args.partitions)
    if "arena" in args.parts:
        arena_section(args.arena)
    if "dic" in args.parts:
        dic_section()
    if "em-step" in args.parts:
        em_step_section()
    if "dask-dic" in args.parts:
        dask_dic_section(args.dic_lists, args.workers, args.partitions)


if __name__ == "__main__":
    main()
