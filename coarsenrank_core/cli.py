"""Command line: ``python -m coarsenrank_core rank|dic|compare FILE``."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from .errors import PreferenceFormatError
from .export import table_to_csv

__all__ = ["main"]


class _UsageError(Exception):
    """A problem with the command's arguments or input, reported in one line."""


def _alpha(text: str):
    lowered = text.strip().lower()
    if lowered in ("auto", "inf", "infinity"):
        return lowered[:4] if lowered != "infinity" else "inf"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"alpha must be auto, inf or a positive number, "
                                         f"not {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"alpha must be positive, not {text}")
    return value


def _calibration(text: str):
    lowered = text.strip().lower()
    if lowered in ("none", "off"):
        return None
    if lowered == "paper":
        return "paper"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("calibration must be none, paper or a number") from None


def _read(path: str, fmt: str | None):
    from .readers import read_preferences

    file = Path(path)
    if not file.is_file():
        raise _UsageError(f"cannot read {path}: no such file")
    try:
        return read_preferences(file, format=fmt or "auto")
    except OSError as error:
        raise _UsageError(f"cannot read {path}: {error.strerror or error}") from None


def _emit(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise _UsageError(f"cannot write {out}: {error.strerror or error}") from None


def _dic_settings(args) -> dict:
    return dict(prior=tuple(args.prior), burn_in=args.burn_in, n_draws=args.draws,
                random_state=args.seed, n_jobs=args.jobs)


def _rank(args) -> None:
    from .dic import dic_sweep
    from .plackett_luce import coarsen_pl, coarsen_pl_gibbs

    prefs = _read(args.file, args.format)
    alpha = args.alpha
    if alpha == "auto":
        sweep = dic_sweep(prefs, **_dic_settings(args))
        alpha = sweep.best_alpha
        print(f"alpha chosen by DIC: {alpha:g} (tau = {sweep.taus[sweep.best_index]:.4g}); "
              f"the curve levels off at alpha = {sweep.knee_alpha:g}", file=sys.stderr)
    alpha = math.inf if alpha == "inf" else float(alpha)
    fit = coarsen_pl(prefs, alpha=alpha, prior=tuple(args.prior), calibration=args.calibration,
                     max_iter=args.max_iter, tol=args.tol)
    header = ["item", "rank", "score"]
    columns = [np.asarray(prefs.item_names, dtype=object), fit.ranks, fit.scores]
    if args.posterior:
        post = coarsen_pl_gibbs(prefs, alpha=alpha, prior=tuple(args.prior),
                                burn_in=args.burn_in, n_draws=args.draws, random_state=args.seed,
                                warm_start=fit if args.prior[0] >= 1 else None)
        low, high = post.rank_interval()
        header += ["posterior_mean", "score_low", "score_high", "rank_low", "rank_high"]
        columns += [post.mean, post.lower, post.upper, low, high]
    order = fit.order
    rows = zip(*(np.asarray(c)[order].tolist() for c in columns))
    _emit(table_to_csv(header, rows), args.out)
    print(f"{len(prefs)} preferences over {prefs.n_items} items; tau = {fit.tau:.4g}; "
          f"{fit.iterations} iterations, {'converged' if fit.converged else 'not converged'}",
          file=sys.stderr)


def _dic(args) -> None:
    from .dic import dic_sweep

    prefs = _read(args.file, args.format)
    sweep = dic_sweep(prefs, alphas=args.alphas, **_dic_settings(args))
    rows = ([a, t, f, g, d, i == sweep.best_index, i == sweep.knee_index]
            for i, (a, t, f, g, d) in enumerate(zip(sweep.alphas.tolist(), sweep.taus.tolist(),
                                                    sweep.f.tolist(), sweep.g.tolist(),
                                                    sweep.dic.tolist())))
    _emit(table_to_csv(["alpha", "tau", "f", "g", "dic", "lowest_dic", "knee"], rows), args.out)
    print(f"lowest DIC at alpha = {sweep.best_alpha:g}; levels off at alpha = "
          f"{sweep.knee_alpha:g} ({sweep.seconds:.1f} s)", file=sys.stderr)


def _compare(args) -> None:
    from .compare import compare
    from .readers import read_truth
    from .registry import METHODS

    prefs = _read(args.file, args.format)
    truth = None
    if args.truth:
        if not Path(args.truth).is_file():
            raise _UsageError(f"cannot read {args.truth}: no such file")
        truth = read_truth(Path(args.truth), prefs)
    methods = args.methods or [m for m, spec in METHODS.items() if spec.in_paper]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise _UsageError(f"unknown method(s) {', '.join(unknown)}; choose from "
                          f"{', '.join(METHODS)}")
    alpha = args.alpha
    if alpha is None:
        from .dic import dic_sweep

        alpha = dic_sweep(prefs, random_state=0).knee_alpha
        print(f"alpha for the CoarsenRank methods, where the DIC curve levels off: {alpha:g}",
              file=sys.stderr)
    result = compare(prefs, methods, truth=truth, repeats=args.repeats,
                     overrides={"alpha": alpha})
    _emit(result.to_csv(), args.out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m coarsenrank_core",
        description="Robust rank aggregation with CoarsenRank (Pan et al., JMLR 2022).")
    commands = parser.add_subparsers(dest="command", required=True)
    formats = ["auto", "wide", "long", "pairwise", "preflib"]

    def common(sub, sampler=True):
        sub.add_argument("file", help="preferences file (CSV or PrefLib)")
        sub.add_argument("--format", choices=formats, default="auto",
                         help="file layout (default: detect)")
        sub.add_argument("--out", help="output CSV (default: standard output)")
        if sampler:
            sub.add_argument("--prior", nargs=2, type=float, default=(1.0, 2.0),
                             metavar=("A", "B"), help="Gamma(a, rate b) prior (default 1 2)")
            sub.add_argument("--draws", type=int, default=50, help="Gibbs draws (default 50)")
            sub.add_argument("--burn-in", type=int, default=100,
                             help="Gibbs burn-in sweeps (default 100)")
            sub.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
            sub.add_argument("--jobs", type=int, default=1,
                             help="processes for the DIC sweep (default 1; -1 = all cores)")

    rank = commands.add_parser("rank", help="consensus ranking by CoarsenPL (EM)")
    common(rank)
    rank.add_argument("--alpha", type=_alpha, default="auto",
                      help="auto (choose by DIC), inf (plain PL) or a number (default auto)")
    rank.add_argument("--calibration", type=_calibration, default=None,
                      help="none (exact MAP, default), paper (C = M/2) or a number C")
    rank.add_argument("--max-iter", type=int, default=500, help="EM iterations (default 500)")
    rank.add_argument("--tol", type=float, default=1e-8,
                      help="relative change that stops EM (0 runs all iterations)")
    rank.add_argument("--posterior", action="store_true",
                      help="add Gibbs credible intervals of scores and ranks")
    rank.set_defaults(handler=_rank)

    dic = commands.add_parser("dic", help="DIC against alpha (choose alpha from the data)")
    common(dic)
    dic.add_argument("--alphas", nargs="+", type=float,
                     help="grid of alpha values (default: 15 log-spaced from 1 to 10 N)")
    dic.set_defaults(handler=_dic)

    comp = commands.add_parser("compare", help="run several methods, with accuracy and timing")
    common(comp, sampler=False)
    comp.add_argument("--truth", help="ground-truth file (item and score, or ordered items)")
    comp.add_argument("--methods", nargs="+", help="method ids (default: the paper's methods)")
    comp.add_argument("--repeats", type=int, default=1, help="timing repeats (default 1)")
    comp.add_argument("--alpha", type=float,
                      help="alpha for the CoarsenRank methods (default: where DIC levels off)")
    comp.set_defaults(handler=_compare)
    return parser


def main(argv=None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input or arguments)."""
    args = _parser().parse_args(argv)
    try:
        args.handler(args)
    except PreferenceFormatError as error:
        print(f"error: {args.file}: {error}", file=sys.stderr)
        return 2
    except (_UsageError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
