"""Each paper method on Readlevel ×1 and ×100 against the paper: `python benchmarks/methods.py`.

Each method runs 15 inner iterations (as in the paper's Tables "Computation" and
"Ablation_size") with the Readlevel settings of the reproduction. Prints the seconds, the
paper's i5 seconds and the speed-up, and checks the targets: CoarsenPL and CoarsenBT at least
50× faster than the paper, CoarsenTH at least 20×, PeerGrader on ×100 within 60 s.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coarsenrank_core.datasets import load_readlevel  # noqa: E402
from coarsenrank_core.noise import magnify  # noqa: E402
from coarsenrank_core.paper_figures import PAPER_METHOD_ORDER, SCALE  # noqa: E402
from coarsenrank_core.registry import METHODS  # noqa: E402
from coarsenrank_core.reproduce import method_params, timed  # noqa: E402

DATA = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))
SPEEDUP_TARGETS = {"coarsen-pl": 50.0, "coarsen-bt": 50.0, "coarsen-th": 20.0}
PEERGRADER_X100_LIMIT = 60.0


def main() -> None:
    small = load_readlevel(DATA).preferences
    large = magnify(small, 100).preferences
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
