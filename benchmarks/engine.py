"""Engine speed and memory, with the peers timed in the same run: ``python benchmarks/engine.py``.

Prints, from one run on this machine:
- 15 EM iterations (tolerance 0) of CoarsenPL on Readlevel magnified ×100 (1.27 M pairs), as
  the data come and with identical preferences merged into weights, against the targets;
- choix ``mm_pairwise`` and crowd-kit ``BradleyTerry`` with 15 iterations on the same pairs,
  when installed (``pip install -r requirements-bench.txt``), and the speed ratios;
- a 20-α DIC sweep (100 burn-in, 50 draws) on a SUSHI-shaped synthetic set (5,000 lists of
  length 10 over 100 items), on one core and on two;
- the peak memory of a process that loads Readlevel ×100 and runs the 15 EM iterations.

Datasets are read from ``$COARSENRANK_DATA`` (default ``../shared/datasets``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coarsenrank_core import coarsen_pl, dic_sweep, simulate_pl  # noqa: E402
from coarsenrank_core.datasets import load_readlevel  # noqa: E402
from coarsenrank_core.noise import magnify  # noqa: E402

DATA = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))
EM = dict(alpha=200.0, prior=(1.0, 2.0), calibration=100.0, max_iter=15, tol=0.0)
TARGET_EM, TARGET_SWEEP, TARGET_MEMORY = 0.2, 8.0, 300.0
PAPER_EM_X100 = 125.343  # s, the paper's Table "Ablation_size", CoarsenPL ×100 on an i5


def best_of(function, repeats: int = 5) -> tuple[float, float]:
    """Median and minimum wall-clock seconds of ``function()`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def peers(winners: np.ndarray, losers: np.ndarray, n_items: int) -> dict[str, float]:
    """Seconds of choix and crowd-kit with 15 iterations on the same pairs (if installed)."""
    out = {}
    try:
        import choix

        data = np.column_stack([winners, losers])

        def run_choix():
            try:
                choix.mm_pairwise(n_items, data, max_iter=15, tol=0.0)
            except RuntimeError:  # choix raises when 15 iterations do not converge
                pass

        out["choix mm_pairwise"] = best_of(run_choix, repeats=1)[0]
    except ImportError:
        print("  choix is not installed: pip install -r requirements-bench.txt")
    try:
        import pandas as pd
        from crowdkit.aggregation import BradleyTerry

        frame = pd.DataFrame({"worker": 0, "left": winners, "right": losers, "label": winners})
        out["crowd-kit BradleyTerry"] = best_of(
            lambda: BradleyTerry(n_iter=15, tol=0.0).fit(frame), repeats=3)[0]
    except ImportError:
        print("  crowd-kit is not installed: pip install -r requirements-bench.txt")
    return out


def _peak_resident_mb() -> float:
    """This process's peak resident set (VmHWM; unlike ru_maxrss it is not inherited on exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_child() -> None:
    """Run in a subprocess: load Readlevel ×100, fit, and print the peak RSS in MB."""
    baseline = _peak_resident_mb()
    big = magnify(load_readlevel(DATA).preferences, 100).preferences
    coarsen_pl(big, **EM)
    print(json.dumps({"baseline_mb": baseline, "peak_mb": _peak_resident_mb()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    if parser.parse_args().memory_child:
        memory_child()
        return
    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}")
    readlevel = load_readlevel(DATA).preferences
    start = time.perf_counter()
    big = magnify(readlevel, 100).preferences
    build = time.perf_counter() - start
    start = time.perf_counter()
    big.stages  # noqa: B018 - lay out the index arrays once, as every fit does
    design = time.perf_counter() - start
    print(f"\nReadlevel ×100: {len(big):,} pairs (built in {build:.2f} s, "
          f"stage index in {design:.2f} s, once per dataset)")
    median, fastest = best_of(lambda: coarsen_pl(big, **EM))
    print(f"  CoarsenPL EM, 15 iterations:     median {median:.3f} s, best {fastest:.3f} s "
          f"(target < {TARGET_EM} s: {'met' if median < TARGET_EM else 'MISSED'})")
    merged = big.merge_duplicates()
    merged.stages  # noqa: B018
    merged_median, _ = best_of(lambda: coarsen_pl(merged, **EM))
    print(f"  same, identical pairs merged into {len(merged):,} weighted pairs: "
          f"{merged_median:.4f} s (reported separately; not the target)")
    print(f"  paper (MATLAB, i5): {PAPER_EM_X100} s  ->  {PAPER_EM_X100 / median:,.0f}× faster")
    winners, losers = big.items[0::2], big.items[1::2]
    for name, seconds in peers(winners, losers, big.n_items).items():
        print(f"  {name}, 15 iterations: {seconds:.3f} s  ->  ours is {seconds / median:.1f}× "
              "faster")

    prefs, _ = simulate_pl(100, 5000, length=10, random_state=0)
    alphas = np.geomspace(1.0, 10 * len(prefs), 20)
    print(f"\nSUSHI-shaped: {len(prefs):,} lists of length 10 over 100 items; 20 α, "
          "100 burn-in, 50 draws")
    for jobs in (1, 2):
        seconds, _ = best_of(lambda jobs=jobs: dic_sweep(prefs, alphas=alphas, burn_in=100,
                                                         n_draws=50, random_state=0,
                                                         n_jobs=jobs), repeats=1)
        print(f"  DIC sweep, {jobs} process(es): {seconds:.2f} s (target < {TARGET_SWEEP} s: "
              f"{'met' if seconds < TARGET_SWEEP else 'MISSED'})")

    child = subprocess.run([sys.executable, __file__, "--memory-child"], capture_output=True,
                           text=True, check=True)
    memory = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"\nPeak memory, load Readlevel ×100 + 15 EM iterations: {memory['peak_mb']:.0f} MB "
          f"resident (interpreter and libraries alone: {memory['baseline_mb']:.0f} MB; target "
          f"< {TARGET_MEMORY:.0f} MB: {'met' if memory['peak_mb'] < TARGET_MEMORY else 'MISSED'})")


if __name__ == "__main__":
    main()
