"""Engine speed and memory against issue 12's targets, peers in the same run.

``python benchmarks/engine.py`` prints, from one run on this machine (CPU seconds of this
process and of its worker processes, and wall-clock seconds; the median of
``--repeat`` runs, 3 by default, on fresh copies of the data so that no cache helps):

- the Consensus page's first visit: what the page computes before its first drawing. On
  data whose α is quick to choose (:func:`ui.alpha.quick_to_choose`: Readlevel ×100)
  that is the automatic α (``choose_alpha`` with the default rule) + the consensus EM fit
  + the rater agreement; on larger data (a SUSHI-shaped upload, 5,000 lists of 10 over 10
  items) the page draws at once at the provisional α = N (EM fit + rater agreement) and
  refines after. Targets 1.5 s (SUSHI shape) and 10 s (Readlevel ×100);
- the time until the refined result: the first visit, then the default rule's α (on the
  processes the dashboard uses), the EM fit at that α, the posterior the page draws
  (:data:`ui.compute.CONSENSUS_DRAWS`, started from the EM fit) and the rater agreement;
- one Gibbs sweep on the SUSHI shape: the sampler's layout (one draw per distinct choice
  set), the position-major layout (one draw per stage) and NumPy's floor of one Gamma draw
  per stage;
- a 20-α DIC sweep on the SUSHI shape with the automatic sweep's settings (target 2 s),
  on one process and on two;
- 15 EM iterations of CoarsenPL (tolerance 0) on 10⁷ random pairs over 10⁴ items against
  the two-``bincount`` yardstick (15 × two weighted ``bincount`` passes over the pairs;
  target ≤ 1.2×), and the resident bytes per pair of a process that builds the pairs and
  fits (target ≤ 24 B per pair);
- choix ``mm_pairwise`` and crowd-kit ``BradleyTerry``, 15 iterations on Readlevel ×100.

``--root PATH`` times the package found under PATH instead (to measure an older tree with
the same script; rows an older tree cannot run say so). ``benchmarks/methods.py`` times
``compare`` on every method. Datasets are read from ``$COARSENRANK_DATA`` (default
``../shared/datasets``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))
TARGETS = {"first visit, SUSHI shape": 1.5, "first visit, Readlevel ×100": 10.0,
           "20-α DIC sweep, SUSHI shape": 2.0}
FORMER_PAGE_POSTERIOR = dict(burn_in=200, n_draws=400)  # a tree without CONSENSUS_DRAWS
EM_RATIO_TARGET, BYTES_PER_PAIR_TARGET = 1.2, 24.0
BIG_PAIRS, BIG_ITEMS = 10_000_000, 10_000


def _cpu() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def clock(function):
    """``(result, cpu seconds, wall seconds)`` of one call (worker processes included)."""
    cpu, wall = _cpu(), time.perf_counter()
    out = function()
    return out, _cpu() - cpu, time.perf_counter() - wall


def median_clock(function, repeat: int):
    """:func:`clock` ``repeat`` times: the last result, the median CPU and wall seconds."""
    runs = [clock(function) for _ in range(repeat)]
    return (runs[-1][0], float(np.median([r[1] for r in runs])),
            float(np.median([r[2] for r in runs])))


def verdict(seconds: float, target: float) -> str:
    return f"target {target:g} s: {'met' if seconds <= target else 'MISSED'}"


def sushi_shape():
    from coarsenrank_core import simulate_pl

    return simulate_pl(10, 5000, length=10, random_state=0)[0]


def readlevel_x100():
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel

    return magnify(load_readlevel(DATA).preferences, 100).preferences


def _page_settings():
    """The dashboard's settings (``ui.compute`` of the measured tree): posterior draws,
    processes of a sweep, and whether large data are drawn first at a provisional α."""
    from ui import compute

    try:  # the one rule of ui/alpha.py; older trees had it in ui/compute
        from ui.alpha import quick_to_choose
    except ImportError:
        quick_to_choose = getattr(compute, "quick_alpha_choice", None)
    return (getattr(compute, "CONSENSUS_DRAWS", FORMER_PAGE_POSTERIOR), compute.workers,
            quick_to_choose)


def consensus_visit(make):
    """The Consensus page's computations on a first visit to fresh data, in its order.

    Returns ``(α, first, refined)``: ``first`` is ``(cpu, wall)`` until the page's first
    drawing (the ranking table), ``refined`` until the refined result (the data's α, the
    consensus at it and the posterior's likely ranks). A tree whose page draws nothing
    before all of it is done has ``first == refined``.
    """
    from coarsenrank_core import alpha as alpha_module
    from coarsenrank_core.alpha import choose_alpha, consensus_fit
    from coarsenrank_core.models import coarsen_pl_gibbs
    try:  # coarsenrank_core.diagnostics; older trees had it in experiments
        from coarsenrank_core.diagnostics import ranker_disagreement
    except ImportError:
        from coarsenrank_core.experiments import ranker_disagreement

    draws, workers, quick_alpha_choice = _page_settings()
    prefs = make()
    getattr(alpha_module, "_CACHE", {}).clear()  # a first visit: no choice cached
    cpu, wall = _cpu(), time.perf_counter()

    def since() -> tuple[float, float]:
        return _cpu() - cpu, time.perf_counter() - wall

    def refine(alpha):
        fit = consensus_fit(prefs, alpha)
        start = {"warm_start": fit} if quick_alpha_choice is not None else {}
        coarsen_pl_gibbs(prefs, alpha=alpha, random_state=0, **start, **draws)
        ranker_disagreement(prefs, fit.scores)

    if quick_alpha_choice is None:  # the former page: α, fit and posterior, then drawn
        alpha = choose_alpha(prefs, n_jobs=workers(prefs)).alpha
        refine(alpha)
        first = since()
        return alpha, first, first
    quick = quick_alpha_choice(prefs)
    alpha = (choose_alpha(prefs, n_jobs=workers(prefs)).alpha if quick
             else float(prefs.total_weight))  # the provisional α = N
    fit = consensus_fit(prefs, alpha)
    ranker_disagreement(prefs, fit.scores)
    first = since()  # the table is drawn here
    if not quick:  # the shell chooses α after the page and draws it again
        alpha = choose_alpha(prefs, n_jobs=workers(prefs)).alpha
        fit = consensus_fit(prefs, alpha)
        ranker_disagreement(prefs, fit.scores)
    coarsen_pl_gibbs(prefs, alpha=alpha, random_state=0, warm_start=fit, **draws)
    return alpha, first, since()


def gibbs_sweep_ms(prefs, repeat: int) -> dict[str, float] | None:
    """Milliseconds per Gibbs sweep (median of ``repeat`` timings of 200 sweeps, CPU)."""
    from coarsenrank_core.models import plackett_luce

    if not hasattr(plackett_luce, "_layout"):
        return None
    design = prefs.pooled.stages
    tau = 24.0 / (24.0 + prefs.total_weight)
    rng = np.random.default_rng(0)
    theta = rng.gamma(2.0, 0.25, prefs.n_items)
    stages = int(design.wins_count.sum())
    layouts = {"sampler": plackett_luce._layout(design, tau),
               "position-major": plackett_luce._SweepLayout(design, tau)}
    work = {name: (lambda layout=layout: layout.sweep(theta, rng, True))
            for name, layout in layouts.items()}
    work["stage design (former)"] = lambda: (design.sample_exposure(theta, tau, rng),
                                             design.log_likelihood(theta))
    work["floor: one Gamma per stage"] = lambda: rng.standard_gamma(tau, size=stages)
    out = {}
    for name, function in work.items():
        times = []
        for _ in range(repeat):
            start = time.process_time()
            for _ in range(200):
                function()
            times.append((time.process_time() - start) / 200 * 1e3)
        out[name] = float(np.median(times))
    return out


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
    from coarsenrank_core.models import coarsen_pl

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
                          collection_bytes=sum(
                              a.itemsize if a.strides == (0,) else a.nbytes  # unit weights
                              for a in (prefs.items, prefs.offsets, prefs.groups,
                                        prefs.weights)))))


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
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per row; the median is printed (default 3)")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    if args.em_child:
        em_child()
        return
    import coarsenrank_core

    print(f"machine: {os.cpu_count()} cores, numpy {np.__version__}, package "
          f"{Path(coarsenrank_core.__file__).parent}")
    print("row                                   CPU s    wall s   (median of "
          f"{args.repeat})")
    for label, make in (("SUSHI shape", sushi_shape), ("Readlevel ×100", readlevel_x100)):
        visits = [consensus_visit(make) for _ in range(args.repeat)]
        alpha = visits[-1][0]
        first = np.median([v[1] for v in visits], axis=0)
        refined = np.median([v[2] for v in visits], axis=0)
        name = f"first visit, {label}"
        print(f"{name:<36} {first[0]:7.2f}  {first[1]:7.2f}   the page's first drawing; "
              f"{verdict(first[0], TARGETS[name])}")
        print(f"{f'refined result, {label}':<36} {refined[0]:7.2f}  {refined[1]:7.2f}   "
              f"α = {alpha:g}, its consensus and likely ranks")
    sushi = sushi_shape()
    per_sweep = gibbs_sweep_ms(sushi, args.repeat)
    if per_sweep is None:
        print("Gibbs sweep, SUSHI shape: this tree has no sampler layout to time")
    else:
        print("Gibbs sweep, SUSHI shape (CPU ms):   "
              + "; ".join(f"{k} {v:.3f}" for k, v in per_sweep.items()))
    name = "20-α DIC sweep, SUSHI shape"
    for jobs in (1, 2):
        _, cpu, wall = median_clock(lambda jobs=jobs: sweep(sushi, jobs), args.repeat)
        shown = wall if jobs > 1 else cpu  # two processes: the target is the wait
        print(f"{name + f', {jobs} proc':<36} {cpu:7.2f}  {wall:7.2f}   "
              f"{verdict(shown, TARGETS[name])}{' (wall)' if jobs > 1 else ''}")
    big = readlevel_x100()
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
