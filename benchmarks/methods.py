"""Each method on Readlevel ×1 and ×100, against the paper and the peers (methods.py).

First (``--compare-only`` stops there): ``compare`` with every registered method on
Readlevel ×100 at a fixed α (target ≤ 5 s CPU in all), each method's CPU seconds (the
process clock between ``compare``'s progress calls, so threads count) beside its wall
seconds, and its CPU ratio to evalica's and crowd-kit's Bradley–Terry run to their own
default convergence on the same 1.27 M pairs in the same run (``pip install -r
requirements-bench.txt``). ``--no-rankers`` drops the ranker ids first (a ``winner,loser``
file, the commonest pairwise upload). ``--root PATH``
times the package under PATH instead. Then the paper's tables:

Each method runs 15 inner iterations (as in the paper's Tables "Computation" and
"Ablation_size") with the Readlevel settings of the reproduction. Prints the seconds, the
paper's i5 seconds and the speed-up, and checks the targets: CoarsenPL and CoarsenBT at least
50× faster than the paper, CoarsenTH at least 20×, PeerGrader on ×100 within 60 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))
SPEEDUP_TARGETS = {"coarsen-pl": 50.0, "coarsen-bt": 50.0, "coarsen-th": 20.0}
PEERGRADER_X100_LIMIT = 60.0
COMPARE_TARGET = 5.0
COMPARE_ALPHA = 2800.0  # the knee on Readlevel ×1 (reports/paper_reproduction.md)


def cpu(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def peer_seconds(prefs) -> dict[str, float]:
    """CPU seconds of evalica's and crowd-kit's Bradley–Terry, each to its own convergence."""
    winners, losers = prefs.items[0::2], prefs.items[1::2]
    out = {}
    try:
        import evalica

        out["evalica BT"] = cpu(lambda: evalica.bradley_terry(
            winners, losers, [evalica.Winner.X] * len(winners)))
    except ImportError:
        print("  evalica is not installed: pip install -r requirements-bench.txt")
    try:
        import pandas as pd
        from crowdkit.aggregation import BradleyTerry

        frame = pd.DataFrame({"worker": 0, "left": winners, "right": losers, "label": winners})
        out["crowd-kit BT"] = cpu(lambda: BradleyTerry(n_iter=100).fit(frame))
    except ImportError:
        print("  crowd-kit is not installed: pip install -r requirements-bench.txt")
    return out


def compare_section(large, label: str = "") -> None:
    from coarsenrank_core.comparison import compare
    from coarsenrank_core.registry import METHODS

    peers = peer_seconds(large)
    marks: list[float] = []  # CPU clock after every fit: each method's own CPU seconds
    start = time.process_time()
    result = compare(large, list(METHODS), overrides={"alpha": COMPARE_ALPHA},
                     progress=lambda done, total: marks.append(time.process_time()))
    total = time.process_time() - start
    own = np.diff([start, *marks])
    names = list(peers)
    print(f"\ncompare, every method, Readlevel ×100{label} at α = {COMPARE_ALPHA:g}: "
          f"{total:.2f} s CPU "
          f"(target {COMPARE_TARGET:g} s: {'met' if total <= COMPARE_TARGET else 'MISSED'})")
    print(f"{'method':<18} {'CPU s':>7} {'wall s':>7} {'iter':>6} {'conv':>6} "
          + " ".join(f"{'/ ' + n:>14}" for n in names))
    for row, seconds in zip(result.rows, own):
        ratios = " ".join(f"{seconds / peers[n]:14.2f}" for n in names)
        print(f"{row.name:<18} {seconds:7.2f} {row.seconds_mean:7.2f} {row.iterations!s:>6} "
              f"{row.converged!s:>6} {ratios}" + (f"  {row.error}" if row.error else ""))
    print(f"{'all methods':<18} {total:7.2f} {'':>7} {'':>6} {'':>6} "
          + " ".join(f"{total / peers[n]:14.2f}" for n in names))
    for name, seconds in peers.items():
        print(f"{name:<18} {seconds:7.2f}  (CPU s, its own default convergence)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="folder holding coarsenrank_core")
    parser.add_argument("--compare-only", action="store_true")
    parser.add_argument("--no-rankers", action="store_true",
                        help="drop the ranker ids (a winner,loser file) before compare")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel
    from coarsenrank_core.paper.figures import PAPER_METHOD_ORDER, SCALE
    from coarsenrank_core.paper.reproduce import method_params, timed
    from coarsenrank_core.registry import METHODS

    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}")
    small = load_readlevel(DATA).preferences
    large = magnify(small, 100).preferences
    if args.no_rankers:
        compare_section(large.with_rankers(None), " without ranker ids")
    else:
        compare_section(large)
    if args.compare_only:
        return
    print(f"Readlevel ×1: {len(small):,} pairs; ×100: {len(large):,} pairs; 15 inner "
          f"iterations; {os.cpu_count()} cores")
    print(f"{'method':<12} {'×1 (s)':>9} {'paper':>8} {'speed-up':>9}   "
          f"{'×100 (s)':>9} {'paper':>9} {'speed-up':>9}  target")
    for method in PAPER_METHOD_ORDER:
        one, _ = timed(method, small, "readlevel", repeats=5)
        hundred, _ = timed(method, large, "readlevel", repeats=1)
        paper_one, paper_hundred = SCALE[method][0], SCALE[method][-1]
        verdict = ""
        if method in SPEEDUP_TARGETS:
            need = SPEEDUP_TARGETS[method]
            ok = min(paper_one / one, paper_hundred / hundred) >= need
            verdict = f">= {need:g}× faster: {'met' if ok else 'MISSED'}"
        if method == "peergrader":
            verdict = (f"×100 within {PEERGRADER_X100_LIMIT:g} s: "
                       f"{'met' if hundred <= PEERGRADER_X100_LIMIT else 'MISSED'}")
        print(f"{METHODS[method].name:<12} {one:9.4f} {paper_one:8.3f} {paper_one / one:8.0f}×"
              f"   {hundred:9.3f} {paper_hundred:9.1f} {paper_hundred / hundred:8.0f}×  "
              f"{verdict}")
    fit = METHODS["peergrader"].function(large, **method_params("peergrader", "readlevel"))
    verdict = "met" if fit.seconds <= PEERGRADER_X100_LIMIT else "MISSED"
    print(f"PeerGrader on ×100 run to convergence (its own stopping rule): {fit.seconds:.1f} s, "
          f"{fit.iterations} iterations, converged={fit.converged} (limit "
          f"{PEERGRADER_X100_LIMIT:g} s: {verdict})")


if __name__ == "__main__":
    main()
