"""Command line: ``python -m coarsenrank_core rank|dic|compare FILE``."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import stat
import sys
from pathlib import Path

import numpy as np

from .defaults import DIC_SETTINGS, PRIOR
from .errors import ClusterError, PreferenceFormatError
from .export import table_to_csv

__all__ = ["main"]


class _UsageError(Exception):
    """A problem with the command's arguments or input, reported in one line."""


class _FileError(Exception):
    """A file that could not be read, with the error that says why."""

    def __init__(self, path: str, error: Exception):
        super().__init__(f"{path}: {error}")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (exit 2), without the usage text."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


# Limits on user-chosen work: beyond them a run takes hours or more memory than a machine has.
MAX_DRAWS = 100_000
MAX_GRID = 200
MAX_ITERATIONS = 100_000
MAX_REPEATS = 100
MAX_JOBS = 64


def _whole(name: str, low: int, high: int):
    """An argparse type: a whole number between ``low`` and ``high``."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") \
                from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{name} must be between {low:,} and {high:,}, not {value:,}")
        return value
    return parse


def _real(name: str, low: float, high: float, *, low_open: bool = False, inf: bool = False):
    """An argparse type: a finite number in a range (``inf`` only when allowed)."""
    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, not {text!r}") from None
        if inf and value == math.inf:
            return value
        below = value <= low if low_open else value < low
        if not math.isfinite(value) or below or value > high:
            bound = f"more than {low:g}" if low_open else f"at least {low:g}"
            raise argparse.ArgumentTypeError(
                f"{name} must be a finite number, {bound} and at most {high:g}"
                + (" (or inf)" if inf else "") + f", not {text!r}")
        return value
    return parse


def _alpha(text: str):
    """``auto`` (the default rule), a rule name, ``inf`` or a positive number."""
    from .alpha import MAX_ALPHA, MIN_ALPHA, RULES, alpha_in_range, parse_rule

    lowered = text.strip().lower()
    if lowered in ("auto", "default", *RULES):
        return parse_rule(lowered)
    try:
        value = parse_rule(lowered.replace("infinity", "inf"))
    except ValueError:
        value = None
    if isinstance(value, float) and alpha_in_range(value):
        return value
    raise argparse.ArgumentTypeError(
        f"alpha must be auto, {', '.join(RULES)}, inf or a number from {MIN_ALPHA:g} to "
        f"{MAX_ALPHA:g}, not {text!r}")


_NO_CALIBRATION = "none"


def _calibration(text: str):
    lowered = text.strip().lower()
    if lowered in ("none", "off"):
        return _NO_CALIBRATION
    if lowered in ("paper", "auto"):
        return lowered
    try:
        return _real("calibration", 1e-6, 1e12)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"calibration must be none, paper or a number from 1e-06 to 1e+12, not {text!r}") \
            from None


def _readable(path: str) -> Path:
    """The path of a regular file that exists, or a one-line reason why it cannot be read."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:
        raise _UsageError(f"cannot read {path}: no such file") from None
    except OSError as error:
        raise _UsageError(f"cannot read {path}: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        raise _UsageError(f"cannot read {path}: it is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise _UsageError(f"cannot read {path}: it is not a regular file (a device, pipe or "
                          "socket)")
    return file


def _is_pairwise_table(path: Path) -> bool:
    """Whether a file's header names a pairwise layout the Dask reader counts (winner/loser,
    left/right with a winner label, or 0/1 winner flags; only the header is read)."""
    from .io.on_dask import _pieces
    from .io.streaming import _Coding

    try:
        header, _ = _pieces(path, 1 << 30)
        _Coding.of(header)
    except Exception:  # noqa: BLE001 - any other layout (or file) is read locally
        return False
    return True


def _refuse_corrections(args, option: str, with_sheet: bool = False) -> None:
    """Refuse the column corrections that ``option`` (``--stream``, ``--engine dask``) would
    ignore: it finds a pairwise file's columns by their titles."""
    flags = [("--items", "items"), ("--ranker", "ranker"), ("--count", "count"),
             ("--lists", "lists"), *([("--sheet", "sheet")] if with_sheet else [])]
    chosen = [flag for flag, name in flags if getattr(args, name, None) is not None]
    if chosen:
        raise _UsageError(f"{option} finds its columns by their titles and does not take "
                          f"{', '.join(chosen)}: read the file without {option}, or title its "
                          "columns winner,loser (or left,right,winner), ranker and count")


@contextlib.contextmanager
def _engine(args):
    """With ``--engine dask``: a client of ``--scheduler`` or of a local cluster started for
    the command (its address replaces ``args.scheduler``, so the reader uses it too)."""
    if getattr(args, "engine", "local") != "dask":
        yield None
        return
    from .dask_fit import dask_client  # dask itself is imported by dask_client

    with contextlib.ExitStack() as stack:
        try:
            client = stack.enter_context(dask_client(args.scheduler,
                                                     getattr(args, "workers", None)))
        except ImportError as error:
            raise _UsageError(str(error)) from None
        except OSError as error:  # no scheduler at that address, or a timeout
            where = args.scheduler or "a local cluster"
            raise _UsageError(f"cannot reach the Dask scheduler at {where} ({error}); check "
                              "--scheduler, or leave it out to start a local cluster") from None
        args.scheduler = client.scheduler.address
        yield client


def _list_design(prefs, client, args, distributes: bool):
    """The partitioned design of list data on the Dask cluster, or None (local engine,
    pairwise counts, or a method that does not distribute), saying so on stderr."""
    if client is None or getattr(args, "pairwise_on_dask", False):
        return None
    if not distributes:
        print("--engine dask: this fit does not distribute (only coarsen-pl, pl-em and the "
              "DIC sweep do); it runs locally", file=sys.stderr)
        return None
    from .dask_fit import DaskStages

    design = DaskStages(prefs, client, args.partitions)
    print(f"--engine dask: the fit's sums run on {design.n_partitions} partitions at "
          f"{args.scheduler}", file=sys.stderr)
    return design


def _read(path: str, fmt: str | None, args=None):
    """Read the preferences file and say on stderr how it was read."""
    from .io import ReadOptions, extensions, read_file
    from .io.collection import source_paths

    try:  # a folder or a glob pattern: every file in it, read as one collection
        several = source_paths(path, tuple(f".{e}" for e in extensions()))
    except PreferenceFormatError as error:
        raise _FileError(path, error) from None
    file = Path(path) if several else _readable(path)
    engine = getattr(args, "engine", "local")
    if engine == "dask" and fmt in (None, "auto", "pairwise"):
        # pairwise tables are counted on Dask; lists are read here and fitted there
        if fmt == "pairwise" or _is_pairwise_table((several or [file])[0]):
            args.pairwise_on_dask = True
        else:
            engine = "local"
    elif engine == "dask":
        engine = "local"
    options = ReadOptions(
        sheet=getattr(args, "sheet", None),
        item_columns=tuple(args.items) if getattr(args, "items", None) else None,
        ranker_column=getattr(args, "ranker", None),
        count_column=getattr(args, "count", None),
        one_is_best=not getattr(args, "one_is_worst", False),
        list_columns=tuple(args.lists) if getattr(args, "lists", None) else None)
    if engine == "dask":
        _refuse_corrections(args, "--engine dask", with_sheet=True)
    try:
        if getattr(args, "stream", False):
            from .io import stream_pairwise

            if fmt not in (None, "auto", "pairwise"):
                raise _UsageError("--stream reads pairwise files only (winner,loser, or "
                                  "left,right with an outcome)")
            _refuse_corrections(args, "--stream")
            result = stream_pairwise(several or file)
        else:
            result = read_file(several or file, format=fmt or "auto", options=options,
                               engine=engine, scheduler=getattr(args, "scheduler", None))
    except OSError as error:
        raise _UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except PreferenceFormatError as error:
        raise _FileError(path, error) from None
    for line in result.report.lines():
        print(f"{file.name}: {line}", file=sys.stderr)
    return result.preferences


def _emit(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise _UsageError(f"cannot write {out}: {error.strerror or error}") from None


def _dic_settings(args) -> dict:
    return dict(prior=tuple(args.prior or PRIOR), burn_in=args.burn_in,
                n_draws=args.draws, random_state=args.seed, n_jobs=args.jobs,
                warm_start=DIC_SETTINGS["warm_start"])  # the sweep the α rule runs


def _choose(prefs, rule, args, design=None):
    """Run :func:`choose_alpha` and say on stderr which α it chose and why."""
    from .alpha import choose_alpha

    settings = dict(random_state=getattr(args, "seed", 0),
                    prior=tuple(getattr(args, "prior", None) or PRIOR),
                    n_jobs=getattr(args, "jobs", 1), design=design)
    if getattr(args, "draws", None) is not None:
        settings.update(n_draws=args.draws, burn_in=args.burn_in)
    choice = choose_alpha(prefs, rule, **settings)
    if choice.rule != "fixed":
        print(f"alpha chosen from the data: {choice.describe()}", file=sys.stderr)
    return choice


def _rank_method(args) -> str:
    """The method of ``rank``: ``--method``, else CoarsenPL when only CoarsenPL's options
    (``--alpha``, ``--calibration``) are given, else the package's default."""
    from .registry import DEFAULT_METHOD

    if args.method is not None:
        return args.method
    if args.alpha is not None or args.calibration is not None:
        return "coarsen-pl"
    return DEFAULT_METHOD


def _rank(args) -> None:
    with _engine(args) as client:
        _rank_with(args, client)


def _rank_with(args, client) -> None:
    from .models.consensus import consensus_reason
    from .registry import DEFAULT_METHOD, get_method
    from .uncertainty import (
        MIN_PAIR_OVERLAP,
        equal_score_note,
        first_place_out_of_order,
        heterogeneity_note,
        order_note,
        pair_overlap,
        rank_uncertainty,
        unit_noun,
    )

    prefs = _read(args.file, args.format, args)
    method = get_method(_rank_method(args))
    options: dict = dict(max_iter=args.max_iter, tol=args.tol)
    if args.prior is not None:
        options["prior"] = tuple(args.prior)
    if args.calibration is not None:
        options["calibration"] = None if args.calibration == _NO_CALIBRATION else args.calibration
    options = {k: v for k, v in options.items() if v is not None}
    foreign = sorted(k for k in options if k not in method.parameters)
    if foreign:
        flags = ", ".join("--" + k.replace("_", "-") for k in foreign)
        raise _UsageError(f"{method.id} takes no {flags}; choose a method that does with "
                          "--method")
    if args.alpha is not None and not method.tempered:
        raise _UsageError(f"{method.id} has no alpha; --alpha goes with --method coarsen-pl "
                          "(or another CoarsenRank method)")
    design = _list_design(prefs, client, args, method.id in ("coarsen-pl", "pl-em"))
    try:
        if method.tempered:
            options["alpha"] = _choose(prefs, args.alpha or "auto", args, design).alpha
        # the same fit the dashboard's Consensus page shows, with only the options given here
        fit = (method.run(prefs, **options) if design is None
               else method.run(prefs, design=design, **options))
    finally:
        if design is not None:
            design.close()  # its sampler layouts on long-lived workers
    header = ["item", "rank", "score"]
    columns = [np.asarray(prefs.item_names, dtype=object), fit.ranks, fit.scores]
    if args.posterior:
        spread = rank_uncertainty(prefs, method.id, fit=fit, n_draws=args.replicates,
                                  random_state=args.seed, **options)
        header += ["score_low", "score_high", "rank_low", "rank_high", "p_first"]
        columns += [spread.lower, spread.upper, spread.rank_low, spread.rank_high,
                    spread.p_first]
    order = fit.order
    rows = zip(*(np.asarray(c)[order].tolist() for c in columns))
    _emit(table_to_csv(header, rows), args.out)
    status = {True: "converged", False: "not converged", None: "no stopping rule"}[
        fit.converged]
    why = (consensus_reason(prefs, fit.extra) if method.id == DEFAULT_METHOD
           else f"{method.name}, as asked")
    print(f"fit: {why}", file=sys.stderr)
    tau = f"; tau = {fit.tau:.4g}" if fit.tau is not None else ""
    print(f"{len(prefs)} preferences over {prefs.n_items} items{tau}; "
          f"{fit.iterations} iterations, {status}", file=sys.stderr)
    _warn_about_the_data(prefs)
    if args.posterior and not spread.measurable:
        print(f"rank_low..rank_high span every rank and score_low, score_high and p_first "
              f"are nan: with one {unit_noun(spread.unit)} there is "
              "nothing to resample, so how sure each place is cannot be measured",
              file=sys.stderr)
    elif args.posterior and spread.source == "posterior":
        print(f"rank_low..rank_high: the central {spread.interval_level:.0%} range of each "
              f"item's rank over {spread.n_draws} draws of the Plackett-Luce "
              "posterior, widened to hold its rank; p_first: the share of draws in which it "
              "came first; "
              "score_low..score_high: the same range of its score. Resampling the "
              f"{unit_noun(spread.unit)}s cannot measure anything here "
              f"({spread.overlap:.1f} of them compared a pair on average; "
              f"at least {MIN_PAIR_OVERLAP:g} who sometimes disagree are needed)",
              file=sys.stderr)
    elif args.posterior:
        print(f"rank_low..rank_high: the {spread.interval_level:.0%} range of each item's rank "
              f"over {args.replicates} refits with the "
              f"{unit_noun(spread.unit)}s resampled "
              "(Bayesian bootstrap), widened to hold its rank; p_first: the share of refits in "
              "which it came first; "
              "score_low..score_high: the same range of its score as refitted (the ranks are "
              "read after a pull towards the middle where items are too rarely compared "
              "to place apart)", file=sys.stderr)
        overlap = pair_overlap(prefs) if method.id != DEFAULT_METHOD else None
        if overlap is not None and not overlap.resamplable:
            print(f"warning: resampling the {unit_noun(spread.unit)}s measures little here "
                  f"({overlap.rankers_per_pair:.1f} of them compared a pair on average, "
                  f"{overlap.disputed:.0%} of the pairs disputed), so these ranges may be "
                  "too narrow; the default consensus (no --method) gives the "
                  "Plackett-Luce posterior's instead", file=sys.stderr)
    if args.posterior and spread.measurable and method.id == DEFAULT_METHOD:
        print(f"note: {heterogeneity_note(spread)}", file=sys.stderr)
    if args.posterior and spread.measurable and first_place_out_of_order(order, spread.p_first):
        print(f"note: {order_note(spread)}", file=sys.stderr)
    equal = equal_score_note(fit.scores, order, prefs.item_names or range(1, prefs.n_items + 1))
    if equal is not None:
        print(f"note: {equal}", file=sys.stderr)


def _dic(args) -> None:
    with _engine(args) as client:
        _dic_with(args, client)


def _warn_about_the_data(prefs, measured: bool = False) -> None:
    """The warnings every command gives on data it cannot order fully: groups of items no
    answer connects, and items that only ever won or lost (``measured``: said of a
    comparison with the truth)."""
    from .connectivity import one_way_items_text, separate_groups_text

    groups = separate_groups_text(prefs)
    if groups is not None:
        also = (" The accuracy against the truth counts the pairs across these groups too, "
                "which no answer decides." if measured else "")
        print(f"warning: {groups}{also}", file=sys.stderr)
    one_way = one_way_items_text(prefs)
    if one_way is not None:
        print(f"warning: {one_way}", file=sys.stderr)


def _dic_with(args, client) -> None:
    from .dic import dic_sweep

    prefs = _read(args.file, args.format, args)
    design = _list_design(prefs, client, args, True)
    try:
        sweep = dic_sweep(prefs, alphas=args.alphas, design=design, **_dic_settings(args))
    finally:
        if design is not None:
            design.close()
    rows = ([a, t, f, g, d, i == sweep.best_index, i == sweep.knee_index]
            for i, (a, t, f, g, d) in enumerate(zip(sweep.alphas.tolist(), sweep.taus.tolist(),
                                                    sweep.f.tolist(), sweep.g.tolist(),
                                                    sweep.dic.tolist())))
    _emit(table_to_csv(["alpha", "tau", "f", "g", "dic", "lowest_dic", "knee"], rows), args.out)
    lowest = (f"lowest DIC at alpha = {sweep.best_alpha:g}" if not sweep.still_falling else
              f"DIC still falling at the largest alpha tried ({sweep.best_alpha:g})")
    print(f"{lowest}; levels off at alpha = {sweep.knee_alpha:g} ({sweep.seconds:.1f} s)",
          file=sys.stderr)
    _warn_about_the_data(prefs)


def _compare(args) -> None:
    with _engine(args) as client:  # --workers and --scheduler reach the Dask reader
        _compare_with(args, client)


def _compare_with(args, client) -> None:
    from .comparison import DEFAULT_COMPARISON, compare
    from .io import read_truth
    from .metrics import partial_truth_note
    from .registry import METHODS

    prefs = _read(args.file, args.format, args)
    if client is not None:
        print("--engine dask: compare fits every method here"
              + ("" if getattr(args, "pairwise_on_dask", False) else
                 "; list data are read here too") + " (--partitions is not used)",
              file=sys.stderr)
    truth = None
    if args.truth:
        try:
            truth = read_truth(_readable(args.truth), prefs)
        except PreferenceFormatError as error:
            raise _FileError(args.truth, error) from None
    methods = args.methods or list(DEFAULT_COMPARISON)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise _UsageError(f"unknown method(s) {', '.join(unknown)}; choose from "
                          f"{', '.join(METHODS)}")
    alpha = _choose(prefs, args.alpha, args).alpha
    result = compare(prefs, methods, truth=truth, repeats=args.repeats,
                     overrides={"alpha": alpha})
    _emit(result.to_csv(), args.out)
    _warn_about_the_data(prefs, measured=truth is not None)
    partial = None if truth is None else partial_truth_note(truth, prefs.item_names)
    if partial is not None:
        print(partial, file=sys.stderr)
    if truth is None:
        print("pairwise_accuracy and kendall_tau_b are nan: they measure agreement with a "
              "ground truth, which --truth FILE gives (item,score; item,rank; or the items "
              "best first)",
              file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m coarsenrank_core",
        description="Robust rank aggregation with CoarsenRank (Pan et al., JMLR 2022).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    from .dic import DIC_DRAWS
    from .io import FORMATS
    from .registry import DEFAULT_METHOD, METHODS
    from .uncertainty import BOOTSTRAP_DRAWS

    def common(sub, sampler=True):
        sub.add_argument("file", help="preferences file (CSV, TSV, Excel, JSON, Parquet, "
                                      "Arrow, PrefLib, BLT), or a folder or a quoted glob "
                                      "pattern ('battles/*.parquet') of files of one layout")
        sub.add_argument("--format", choices=["auto", *FORMATS], default="auto",
                         help="file layout (default: detect): " + "; ".join(
                             f"{f.id} = {f.title}" for f in FORMATS.values()))
        sub.add_argument("--sheet", help="workbook sheet to read (default: the first)")
        sub.add_argument("--engine", choices=["local", "dask"], default="local",
                         help="dask (pip install 'coarsenrank[dask]'): count pairwise "
                              "files on a Dask cluster, then fit locally; lists are read "
                              "here and the EM steps of coarsen-pl and pl-em and the Gibbs "
                              "sweeps of the DIC search run as a map over partitions there")
        sub.add_argument("--partitions", type=_whole("partitions", 1, 4096), default=4,
                         help="with --engine dask: partitions of list data (default 4)")
        sub.add_argument("--workers", type=_whole("workers", 1, 64), default=None,
                         help="with --engine dask and no --scheduler: workers of the local "
                              "cluster (default: the cores, at most 4)")
        sub.add_argument("--stream", action="store_true",
                         help="count a pairwise file (or several) chunk by chunk: memory "
                              "for the distinct comparisons, not the rows")
        sub.add_argument("--scheduler", metavar="ADDRESS",
                         help="with --engine dask: a running scheduler (default: a local "
                              "cluster on this machine)")
        sub.add_argument("--items", nargs="+", metavar="COLUMN",
                         help="the columns holding the items or their ranks; for long "
                              "rankings, the item column then the rank column (default: "
                              "detect)")
        sub.add_argument("--ranker", metavar="COLUMN",
                         help="the column naming who ranked ('' for none; default: detect)")
        sub.add_argument("--count", metavar="COLUMN",
                         help="the column saying how many times a row was given ('' for none)")
        sub.add_argument("--lists", nargs="+", metavar="COLUMN",
                         help="for long rankings: the columns that together tell one ranking "
                              "from another besides the ranker, such as a round and its heat "
                              "(default: detect)")
        sub.add_argument("--one-is-worst", action="store_true",
                         help="rank numbers: 1 is the worst (default: 1 is the best)")
        sub.add_argument("--out", help="output CSV (default: standard output)")
        sub.add_argument("--force", action="store_true",
                         help="let --out overwrite an input file, or be written among the "
                              "files of an input folder")
        if sampler:
            sub.add_argument("--prior", nargs=2, type=_real("prior", 0, 1e6, low_open=True),
                             default=None, metavar=("A", "B"),
                             help="Gamma(a, rate b) prior (default 1 2)")
            sub.add_argument("--draws", type=_whole("draws", 1, MAX_DRAWS),
                             default=DIC_DRAWS["n_draws"],
                             help=f"Gibbs draws per alpha (default {DIC_DRAWS['n_draws']}, at "
                                  f"most {MAX_DRAWS:,})")
            sub.add_argument("--burn-in", type=_whole("burn-in", 0, MAX_DRAWS),
                             default=DIC_DRAWS["burn_in"],
                             help=f"Gibbs burn-in sweeps (default {DIC_DRAWS['burn_in']}, at "
                                  f"most {MAX_DRAWS:,})")
            sub.add_argument("--seed", type=_whole("seed", 0, 2**32 - 1), default=0,
                             help="random seed (default 0)")
            sub.add_argument("--jobs", type=_whole("jobs", -1, MAX_JOBS), default=1,
                             help="processes for the DIC sweep (default 1; -1 = all cores)")

    rank = commands.add_parser(
        "rank", help="consensus ranking (default: the package's default fit; see --method)")
    common(rank)
    rank.add_argument("--method", choices=list(METHODS), default=None,
                      help=f"registry id of the fit (default {DEFAULT_METHOD}: PL-EM, with "
                           "careless raters or lists down-weighted when PL-mix finds them; "
                           "with --alpha or --calibration: coarsen-pl)")
    rank.add_argument("--alpha", type=_alpha, default=None,
                      help="for CoarsenRank methods: auto (the default rule: where the DIC curve "
                           "levels off), knee, dic-min, cv, inf (plain PL) or a number")
    rank.add_argument("--calibration", type=_calibration, default=None,
                      help="CoarsenPL only: paper (C = M/2, the default with a = 1), none "
                           "(exact MAP; needs a > 1 or alpha = inf) or a number C")
    rank.add_argument("--max-iter", type=_whole("max-iter", 1, MAX_ITERATIONS), default=None,
                      help=f"EM iterations (default: the method's, at most {MAX_ITERATIONS:,})")
    rank.add_argument("--tol", type=_real("tol", 0, 1), default=None,
                      help="relative change that stops EM (0 runs all iterations)")
    rank.add_argument("--posterior", action="store_true",
                      help="add each item's 90%% rank interval (rank_low, rank_high) and chance "
                           "of being first (p_first), by refitting on the raters resampled")
    rank.add_argument("--replicates", type=_whole("replicates", 2, MAX_DRAWS),
                      default=BOOTSTRAP_DRAWS,
                      help=f"refits behind --posterior (default {BOOTSTRAP_DRAWS})")
    rank.set_defaults(handler=_rank)

    dic = commands.add_parser("dic", help="DIC against alpha (choose alpha from the data)")
    common(dic)
    dic.add_argument("--alphas", nargs="+", type=_real("alpha", 1e-6, 1e12, inf=True),
                     help=f"grid of alpha values (default: 15 log-spaced from 1 to 10 N; at "
                          f"most {MAX_GRID})")
    dic.set_defaults(handler=_dic)

    comp = commands.add_parser("compare", help="run several methods, with accuracy and timing")
    common(comp, sampler=False)
    comp.add_argument("--truth", help="ground-truth file (item and score, or ordered items)")
    comp.add_argument("--methods", nargs="+",
                      help="method ids (default: the paper's methods, pl-mix and pl-mix-ranker)")
    comp.add_argument("--repeats", type=_whole("repeats", 1, MAX_REPEATS), default=1,
                      help=f"timing repeats (default 1, at most {MAX_REPEATS})")
    comp.add_argument("--alpha", type=_alpha, default="auto",
                      help="alpha for the CoarsenRank methods: auto (the default rule, where "
                           "the DIC curve levels off), knee, dic-min, cv, inf or a number")
    comp.set_defaults(handler=_compare)
    return parser


def _output_is_input(args) -> str | None:
    """The input file (preferences or truth) that ``--out`` names, or None."""
    out = getattr(args, "out", None)
    if not out:
        return None
    for given in (getattr(args, "file", None), getattr(args, "truth", None)):
        if not given:
            continue
        try:
            if Path(out).exists() and Path(given).exists():
                same = os.path.samefile(out, given)
            else:
                same = Path(out).resolve() == Path(given).resolve()
        except OSError:
            same = False
        if same:
            return given
    return None


def _output_in_input_collection(args) -> str | None:
    """The folder or file pattern being read that ``--out`` would add a file of rankings to
    (so that the next run reads the results as data), or None."""
    from fnmatch import fnmatch

    from .io import extensions

    out, given = getattr(args, "out", None), getattr(args, "file", None)
    if not out or not given or Path(out).name.startswith(".") or \
            Path(out).suffix.lower().lstrip(".") not in extensions():
        return None
    try:
        if Path(given).is_dir():
            inside = Path(out).resolve().parent == Path(given).resolve()
        else:
            inside = not Path(given).exists() and any(c in given for c in "*?[") and fnmatch(
                os.path.abspath(out), os.path.abspath(given))
    except OSError:
        inside = False
    return given if inside else None


def _system_arrow_pool() -> None:
    """Have pyarrow allocate from the C library's allocator, when it is not loaded yet and
    the user chose no pool (``ARROW_DEFAULT_MEMORY_POOL``).

    Arrow's default pool (mimalloc) keeps the pages each chunk of ``--stream`` freed while
    the next chunks take blocks of other sizes, so its footprint grows past what is alive:
    a 1.5 M-row ``rater,winner,loser`` file peaked at 430-550 MB read in chunks, 400-415 MB
    with the system pool, in the same time (``python -m benchmarks.readers --memory``). A
    command line run is one process of its own; a program that imports the library keeps
    its own choice, but :func:`~coarsenrank_core.io.stream_pairwise` itself reads with the
    system pool unless that choice is made by ``ARROW_DEFAULT_MEMORY_POOL`` or its
    ``memory_pool`` argument (:func:`~coarsenrank_core.io.streaming.reading_pool`).
    """
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def main(argv=None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input or arguments)."""
    _system_arrow_pool()
    parser = _parser()
    args = parser.parse_args(argv)
    if getattr(args, "alphas", None) and len(args.alphas) > MAX_GRID:
        parser.error(f"at most {MAX_GRID} alpha values, not {len(args.alphas)}")
    clash = _output_is_input(args)
    if clash and not args.force:
        parser.error(f"--out {args.out} is the input file {clash}: writing would overwrite "
                     "it; give another --out, or add --force")
    collection = _output_in_input_collection(args)
    if collection and not args.force:
        parser.error(f"--out {args.out} would be written among the files read ({collection}): "
                     "the next run would read these results as rankings; give an --out "
                     "outside it, or add --force")
    try:
        args.handler(args)
    except _FileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (_UsageError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ClusterError as error:  # the cluster lost work: no partial answer was written
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
