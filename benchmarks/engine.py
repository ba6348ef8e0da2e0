"""Engine speed and memory against issue 12's targets, peers in the same run.

``python benchmarks/engine.py`` prints, from one run on this machine (CPU seconds of this
process and wall-clock seconds, one measurement per row unless said otherwise):

- the Consensus page's first visit: the automatic α (``choose_alpha`` with the default
  rule) + the consensus EM fit + the posterior the page draws (200 warm-up sweeps and 400
  draws), on a SUSHI-shaped upload (5,000 lists of 10 over 10 items) and on Readlevel
  magnified ×100 (targets 1.5 s and 10 s);
- a 20-α DIC sweep on the SUSHI shape with the automatic sweep's settings (target 2 s),
  on one process and on two;
- 15 EM iterations of CoarsenPL (tolerance 0) on 10⁷ random pairs over 10⁴ items against
  the two-``bincount`` yardstick (15 × two weighted ``bincount`` passes over the pairs;
  target ≤ 1.2×), and the resident bytes per pair of a process that builds the pairs and
  fits (target ≤ 24 B per pair);
- choix ``mm_pairwise`` and crowd-kit ``BradleyTerry``, 15 iterations on Readlevel ×100.

``--root PATH`` times the package found under PATH instead (to measure an older tree with
the same script). ``benchmarks/methods.py`` times ``compare`` on every method. Datasets are
read from ``$COARSENRANK_DATA`` (default ``../shared/datasets``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))
TARGETS = {"first visit, SUSHI shape": 1.5, "first visit, Readlevel ×100": 10.0,
           "20-α DIC sweep, SUSHI shape": 2.0}
PAGE_POSTERIOR = dict(burn_in=200, n_draws=400)  # the Consensus page's posterior
EM_RATIO_TARGET, BYTES_PER_PAIR_TARGET = 1.2, 24.0
BIG_PAIRS, BIG_ITEMS = 10_000_000, 10_000


def clock(function):
    """``(result, cpu seconds, wall seconds)`` of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = function()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def verdict(seconds: float, target: float) -> str:
    return f"target {target:g} s: {'met' if seconds <= target else 'MISSED'}"


def sushi_shape():
    from coarsenrank_core import simulate_pl

    return simulate_pl(10, 5000, length=10, random_state=0)[0]


def readlevel_x100():
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel

    return magnify(load_readlevel(DATA).preferences, 100).preferences


def first_visit(prefs):
    """What the Consensus page computes on its first run."""
    from coarsenrank_core import coarsen_pl_gibbs
    from coarsenrank_core.alpha import choose_alpha, consensus_fit

    choice = choose_alpha(prefs)
    consensus_fit(prefs, choice.alpha)
    coarsen_pl_gibbs(prefs, alpha=choice.alpha, random_state=0, **PAGE_POSTERIOR)
    return choice


def sweep(prefs, jobs: int):
    from coarsenrank_core.dic import DIC_DRAWS, dic_sweep

    alphas = np.geomspace(1.0, 10 * len(prefs), 20)
    return dic_sweep(prefs, alphas=alphas, burn_in=DIC_DRAWS["burn_in"],
                     n_draws=DIC_DRAWS["n_draws"], random_state=0, n_jobs=jobs,
                     warm_start=DIC_DRAWS["warm_start"])


def big_pairs():
    from coarsenrank_core import Preferences

    rng = np.random.default_rng(0)
    first = rng.integers(0, BIG_ITEMS, BIG_PAIRS)
    second = (first + rng.integers(1, BIG_ITEMS, BIG_PAIRS)) % BIG_ITEMS
    return Preferences.from_pairs(first, second, n_items=BIG_ITEMS)


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def em_child() -> None:
    """In a fresh process: 10⁷ pairs, the yardstick, 15 EM iterations, memory per pair."""
    from coarsenrank_core import coarsen_pl

    baseline = _resident_mb()
    prefs = big_pairs()
    after_build = _resident_mb()
    winners = np.ascontiguousarray(prefs.items[0::2])
    losers = np.ascontiguousarray(prefs.items[1::2])
    theta = np.ones(BIG_ITEMS)

    def yardstick():
        for _ in range(15):
            per = 1.0 / (theta[winners] + theta[losers])
            np.bincount(winners, per, BIG_ITEMS) + np.bincount(losers, per, BIG_ITEMS)

    _, floor_cpu, floor_wall = clock(yardstick)
    winners = losers = np.empty(0, dtype=np.intp)  # free the copies before the fit
    getattr(prefs, "pooled", prefs).stages  # noqa: B018 - built once per dataset
    laid_out = _resident_mb()
    _, em_cpu, em_wall = clock(lambda: coarsen_pl(prefs, alpha=200.0, calibration=100.0,
                                                  max_iter=15, tol=0.0))
    print(json.dumps(dict(floor_cpu=floor_cpu, floor_wall=floor_wall, em_cpu=em_cpu,
                          em_wall=em_wall, baseline=baseline, after_build=after_build,
                          laid_out=laid_out, peak=_peak_mb(),
                          collection_bytes=sum(a.nbytes for a in (prefs.items, prefs.offsets,
                                                                  prefs.groups, prefs.weights)))))


def peers(prefs) -> dict[str, float]:
    """CPU seconds of choix and crowd-kit, 15 iterations on the same pairs (if installed)."""
    out = {}
    winners, losers = prefs.items[0::2], prefs.items[1::2]
    try:
        import choix

        def run_choix():
            try:
                choix.mm_pairwise(prefs.n_items, np.column_stack([winners, losers]),
                                  max_iter=15, tol=0.0)
            except RuntimeError:  # choix raises when 15 iterations do not converge
                pass

        out["choix mm_pairwise"] = clock(run_choix)[1]
    except ImportError:
        print("  choix is not installed: pip install -r requirements-bench.txt")
    try:
        import pandas as pd
        from crowdkit.aggregation import BradleyTerry

        frame = pd.DataFrame({"worker": 0, "left": winners, "right": losers, "label": winners})
        out["crowd-kit BradleyTerry"] = clock(
            lambda: BradleyTerry(n_iter=15, tol=0.0).fit(frame))[1]
    except ImportError:
        print("  crowd-kit is not installed: pip install -r requirements-bench.txt")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="folder holding coarsenrank_core")
    parser.add_argument("--em-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--skip-big", action="store_true", help="skip the 10⁷-pair rows")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    if args.em_child:
        em_child()
        return
    import coarsenrank_core

    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}, package "
          f"{Path(coarsenrank_core.__file__).parent}")
    print("row                                   CPU s    wall s")
    sushi = sushi_shape()
    choice, cpu, wall = clock(lambda: first_visit(sushi))
    name = "first visit, SUSHI shape"
    print(f"{name:<36} {cpu:7.2f}  {wall:7.2f}   α = {choice.alpha:g}; "
          f"{verdict(cpu, TARGETS[name])}")
    big = readlevel_x100()
    choice, cpu, wall = clock(lambda: first_visit(big))
    name = "first visit, Readlevel ×100"
    print(f"{name:<36} {cpu:7.2f}  {wall:7.2f}   α = {choice.alpha:g}; "
          f"{verdict(cpu, TARGETS[name])}")
    name = "20-α DIC sweep, SUSHI shape"
    for jobs in (1, 2):
        _, cpu, wall = clock(lambda jobs=jobs: sweep(sushi, jobs))
        shown = wall if jobs > 1 else cpu  # a pool's work is in its children
        print(f"{name + f', {jobs} proc':<36} {cpu:7.2f}  {wall:7.2f}   "
              f"{verdict(shown, TARGETS[name])}")
    for peer, seconds in peers(big).items():
        print(f"{peer + ', 15 it, Readlevel ×100':<36} {seconds:7.2f}")
    if args.skip_big:
        return
    child = subprocess.run([sys.executable, __file__, "--em-child", "--root", args.root],
                           capture_output=True, text=True, check=True)
    m = json.loads(child.stdout.strip().splitlines()[-1])
    ratio = m["em_cpu"] / m["floor_cpu"]
    print(f"{'15 EM it, 10⁷ pairs / 10⁴ items':<36} {m['em_cpu']:7.2f}  {m['em_wall']:7.2f}   "
          f"{ratio:.2f}× the two-bincount yardstick ({m['floor_cpu']:.2f} s CPU); target "
          f"{EM_RATIO_TARGET}×: {'met' if ratio <= EM_RATIO_TARGET else 'MISSED'}")
    per_pair = (m["peak"] - m["baseline"]) * 2**20 / BIG_PAIRS
    held = (m["laid_out"] - m["baseline"]) * 2**20 / BIG_PAIRS
    print(f"  memory: collection {m['collection_bytes'] / BIG_PAIRS:.0f} B/pair, held after "
          f"the layout {held:.0f} B/pair, peak {per_pair:.0f} B/pair over the interpreter's "
          f"{m['baseline']:.0f} MB; target {BYTES_PER_PAIR_TARGET:g} B/pair resident: "
          f"{'met' if held <= BYTES_PER_PAIR_TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
