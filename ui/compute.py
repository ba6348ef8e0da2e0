"""Cached calls into the engine: every expensive computation of the dashboard goes through here.

Each function is keyed on the dataset's content key (a digest of its preferences and truth)
and its parameters; the collection itself is passed as ``_prefs`` so it is not hashed again.
Entries are bounded with ``max_entries`` and shared by every session (the results are
immutable). The cache is this module's own rather than ``st.cache_data``: a long run draws
a progress bar that must not be replayed on a cache hit (a replay into another session's
page fails), and a hit should draw nothing at all.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import RerunException, StopException

import coarsenrank_core
from coarsenrank_core import Preferences
from coarsenrank_core.alpha import DEFAULT_RULE, choose_alpha
from coarsenrank_core.alpha import consensus_fit as engine_consensus_fit
from coarsenrank_core.comparison import COMPARE_DRAWS, compare
from coarsenrank_core.diagnostics import careless_rankers, ranker_disagreement
from coarsenrank_core.dic import DIC_DRAWS, dic_sweep
from coarsenrank_core.errors import Cancelled
from coarsenrank_core.experiments import (
    DEFAULT_FACTORS,
    DEFAULT_NOISE_LEVELS,
    robustness_curve,
    scale_test,
)
from coarsenrank_core.io import read_preferences, read_truth
from coarsenrank_core.noise import NOISE_TYPES
from coarsenrank_core.registry import DEFAULT_METHOD, run_method
from coarsenrank_core.uncertainty import rank_uncertainty

from .dataset import Dataset
from .liveness import current_session_id, session_connected
from .samples import SAMPLES
from .scenario import teaching_scenario
from .text import count

#: The Consensus page's posterior: draws kept after warm-up sweeps, the chain started from
#: the EM consensus at the same α (as the command line's ``rank --posterior``)
CONSENSUS_DRAWS = dict(burn_in=200, n_draws=400)
TIMING_RUNS = 3  # each method is timed this many times; the chart shows the median


PARALLEL_ENTRIES = 20_000  # list entries from which a DIC sweep uses both cores


def workers(prefs: Preferences) -> int:
    """Processes for a DIC sweep: both cores on data large enough to pay for starting them.

    The engine's chained sweep always runs the same two chains, whatever ``n_jobs`` is, so
    the curve and the chosen α are the same with one process or two (and the same as the
    command line's ``rank``); a test checks it.
    """
    return 2 if prefs.items.size >= PARALLEL_ENTRIES else 1


@dataclass(frozen=True)
class Timings:
    """Seconds per fit of each method over ``runs`` runs: median, fastest and slowest."""

    methods: tuple[str, ...]
    names: tuple[str, ...]
    median: tuple[float, ...]
    fastest: tuple[float, ...]
    slowest: tuple[float, ...]
    runs: int


@dataclass(frozen=True, eq=False)
class Digested:
    """Uploaded bytes with their SHA-1 digest, taken once (a cache keys them by the digest)."""

    data: bytes
    digest: str

    @classmethod
    def of(cls, data: bytes) -> Digested:
        """Digest ``data`` once.

        Parameters
        ----------
        data : bytes
            The file's content.

        Returns
        -------
        Digested
            The content and its hex SHA-1 digest.
        """
        return cls(data, hashlib.sha1(data).hexdigest())


def _key_part(value):
    if isinstance(value, Digested):
        return ("bytes", value.digest)
    if isinstance(value, (bytes, bytearray)):
        return ("bytes", hashlib.sha1(value).hexdigest())
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape,
                hashlib.sha1(np.ascontiguousarray(value).tobytes()).hexdigest())
    if isinstance(value, (tuple, list)):
        return tuple(_key_part(v) for v in value)
    return value


def _cached(max_entries: int):
    """A bounded, thread-safe, process-wide cache keyed on the arguments.

    Arguments whose name starts with ``_`` and ``label`` are not part of the key; bytes and
    arrays are keyed by digest. Exceptions (including a stopped run) are not cached.
    ``function.peek(...)`` returns the cached value or ``None`` without computing, and
    ``function.clear()`` empties the cache.
    """
    def decorate(function):
        signature = inspect.signature(function)
        entries: OrderedDict = OrderedDict()
        lock = threading.Lock()

        def key_of(args, kwargs) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return tuple((name, _key_part(value)) for name, value in bound.arguments.items()
                         if not name.startswith("_") and name != "label")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            key = key_of(args, kwargs)
            with lock:
                if key in entries:
                    entries.move_to_end(key)
                    return entries[key]
            value = function(*args, **kwargs)
            with lock:
                entries[key] = value
                while len(entries) > max_entries:
                    entries.popitem(last=False)
            return value

        def clear():
            with lock:
                entries.clear()

        def peek(*args, **kwargs):
            """The cached value for these arguments, or ``None`` (nothing is computed)."""
            key = key_of(args, kwargs)
            with lock:
                return entries.get(key)

        wrapper.clear = clear
        wrapper.peek = peek
        return wrapper
    return decorate


class Job:
    """A progress bar with a time estimate, and the ``should_stop`` callback of a long fit.

    The engine calls ``should_stop`` every few iterations; every quarter of a second it
    refreshes the bar. Each refresh is a point where Streamlit ends the run when the user
    pressed **Stop** (or any other widget) or closed the tab, so the fit ends within a
    fraction of a second instead of running on for nobody.
    """

    REFRESH = 0.25  # seconds between two refreshes of the bar

    def __init__(self, label: str):
        self.label = label
        self.start = time.monotonic()
        self.last = self.start
        self.fraction, self.done, self.total = 0.0, 0, 0
        self.interrupt: BaseException | None = None  # Streamlit's Stop/rerun request
        self.session_id = current_session_id()
        self.bar = st.progress(0.0, text=f"{label} starting…")

    def _text(self) -> str:
        elapsed = time.monotonic() - self.start
        if self.done and self.total:
            left = elapsed * (self.total - self.done) / self.done
            return (f"{self.label} {int(self.done)}/{self.total} · {_seconds(elapsed)} so far, "
                    f"about {_seconds(left)} left")
        return f"{self.label} {_seconds(elapsed)} so far"

    def _refresh(self) -> None:
        """Redraw the bar; Streamlit's request to end the run (or the closed tab's) is kept,
        not raised here.

        Raising it from inside the engine would leave a parallel sweep's workers running
        to the end; instead :meth:`should_stop` answers True, the engine stops (and
        terminates its workers) and :func:`_job` raises the request afterwards.
        """
        if self.interrupt is not None:
            return
        if not session_connected(self.session_id):
            self.interrupt = StopException()
            return
        try:
            self.bar.progress(self.fraction, text=self._text())
        except (RerunException, StopException) as request:
            self.interrupt = request

    def progress(self, done: float, total: int) -> None:
        """``(done, total)`` callback of the engine's sweeps and comparisons (``done`` may
        be fractional: a long α of a DIC sweep reports its share on the way)."""
        self.done, self.total = float(done), int(total)
        self.fraction = min(1.0, done / total) if total else 0.0
        self.last = time.monotonic()
        self._refresh()

    def every_refresh(self, done: float, total: int) -> None:
        """:meth:`progress` for callers that report often (the sampler, every few sweeps):
        the bar is redrawn at most every :attr:`REFRESH` seconds, and at the end."""
        if done >= total or time.monotonic() - self.last >= self.REFRESH:
            self.progress(done, total)

    def should_stop(self) -> bool:
        """Refresh the bar now and then; True once Streamlit asked to end the run, or once
        the browser tab is gone (Streamlit keeps running a disconnected session's script,
        so nobody would see the result)."""
        now = time.monotonic()
        if self.interrupt is None and now - self.last >= self.REFRESH:
            self.last = now
            self._refresh()
        return self.interrupt is not None


def _seconds(value: float) -> str:
    value = max(0.0, float(value))
    if value < 90:
        return f"{value:.0f} s"
    return f"{value / 60:.0f} min"


@contextmanager
def _job(label: str | None):
    """A :class:`Job` drawn by the cached function itself (Streamlit replays what it drew)."""
    if label is None:
        yield None
        return
    job = Job(label)
    try:
        yield job
    except Cancelled:
        if job.interrupt is not None:  # the engine stopped because Streamlit asked to
            raise job.interrupt from None
        raise
    finally:
        if job.interrupt is None:
            job.bar.empty()
    if job.interrupt is not None:  # the fit finished before it looked: end the run now
        raise job.interrupt


def job(label: str):
    """A :class:`Job` drawn by the caller around work that is not cached here (e.g. reading
    an upload): its ``should_stop`` ends the work on Stop or a closed tab."""
    return _job(label)


def _hooks(job: Job | None) -> dict:
    return {} if job is None else {"progress": job.progress, "should_stop": job.should_stop}


@_cached(max_entries=8)
def load_sample(sample_id: str) -> Dataset:
    """A built-in sample with its ground truth."""
    sample = SAMPLES[sample_id]
    if sample.scenario is not None:
        return teaching_scenario(sample.scenario)
    prefs = read_preferences(sample.path, format=sample.format)
    truth = read_truth(sample.truth_path, prefs)
    careless = None
    if sample.careless_path is not None:
        names = sample.careless_path.read_text(encoding="utf-8").splitlines()[1:]
        index = {name: r for r, name in enumerate(prefs.ranker_names or ())}
        careless = tuple(sorted(index[name] for name in names))
    return Dataset(name=sample.title, preferences=prefs, truth=truth, origin="sample",
                   description=sample.description, recipe=f"sample:{sample_id}",
                   careless=careless)


@_cached(max_entries=8)
def read_truth_upload(file: Digested, name: str, _prefs: Preferences, key: str) -> np.ndarray:
    """Parse an uploaded ground truth against the current items (keyed by its digest)."""
    return read_truth(named_upload(file.data, name), _prefs)


def named_upload(data: bytes, name: str) -> io.BytesIO:
    """Uploaded bytes with the file name the readers use to recognise PrefLib files."""
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


@_cached(max_entries=16)
def alpha_choice(_prefs: Preferences, key: str, rule: str = DEFAULT_RULE):
    """α chosen from the data by :func:`choose_alpha` (the default rule unless told)."""
    with _job("Letting the data choose α: α value") as job:
        return choose_alpha(_prefs, rule, n_jobs=workers(_prefs), **_hooks(job))


@_cached(max_entries=32)
def consensus_fit(_prefs: Preferences, key: str, alpha: float):
    """The consensus of the whole package (CoarsenPL by EM, paper §6.1 calibration) at this α."""
    with _job("Fitting the consensus:") as job:
        return engine_consensus_fit(_prefs, alpha, should_stop=job.should_stop)


#: List entries up to which the Consensus page measures how sure each place is at once; above
#: it the bootstrap's refits start when asked for.
AUTO_SPREAD_ENTRIES = 100_000


@_cached(max_entries=32)
def default_fit(_prefs: Preferences, key: str):
    """The package's default consensus (:data:`~coarsenrank_core.registry.DEFAULT_METHOD`)."""
    with _job("Fitting the consensus: fit") as job:
        return run_method(DEFAULT_METHOD, _prefs, should_stop=job.should_stop,
                          progress=job.every_refresh)


@_cached(max_entries=16)
def default_uncertainty(_prefs: Preferences, key: str, seed: int = 0):
    """Rank intervals and first-place chances of the default fit: the bootstrap over raters
    (or the posterior where they overlap too little to resample), with the same settings as
    the command line's ``rank --posterior``."""
    fit = default_fit(_prefs, key)
    with _job("Measuring how sure each place is: step") as job:
        return rank_uncertainty(_prefs, DEFAULT_METHOD, fit=fit, random_state=seed,
                                **_hooks(job))


@_cached(max_entries=16)
def posterior(_prefs: Preferences, key: str, alpha: float, seed: int = 0):
    """CoarsenPL's exact Gibbs posterior at this α (for rank uncertainty).

    The chain starts from the EM consensus at the same α (:func:`consensus_fit`, cached),
    as the command line's ``rank --posterior`` does.
    """
    start = consensus_fit(_prefs, key, alpha)
    with _job("Sampling how sure each place is: sweep") as job:
        return coarsenrank_core.coarsen_pl_gibbs(  # through the package: tests spy on it
            _prefs, alpha=alpha, random_state=seed, warm_start=start,
            should_stop=job.should_stop, progress=job.every_refresh, **CONSENSUS_DRAWS)


@_cached(max_entries=16)
def dic(_prefs: Preferences, key: str, alphas: tuple | None, burn_in: int, n_draws: int,
        seed: int, label: str | None = None):
    """The DIC sweep over a grid of α (the settings :func:`choose_alpha` uses by default)."""
    with _job(label) as job:
        return dic_sweep(_prefs, alphas=alphas, burn_in=burn_in, n_draws=n_draws,
                         random_state=seed, n_jobs=workers(_prefs),
                         warm_start=DIC_DRAWS["warm_start"], **_hooks(job))


@_cached(max_entries=16)
def comparison(_prefs: Preferences, key: str, truth: np.ndarray | None, methods: tuple,
               alpha: float, repeats: int, label: str | None = None):
    """Run the chosen methods and compare them, each ``repeats`` times (its seconds timed
    by :func:`compare` itself, see :func:`timings`)."""
    with _job(label) as job:
        return compare(_prefs, list(methods), truth=truth, repeats=repeats,
                       overrides={"alpha": alpha, **COMPARE_DRAWS}, **_hooks(job))


def timings(result) -> Timings:
    """The seconds :func:`compare` measured for each method that ran, over its repeats."""
    rows = [r for r in result.rows if r.ok and r.seconds]
    return Timings(methods=tuple(r.method for r in rows), names=tuple(r.name for r in rows),
                   median=tuple(float(np.median(r.seconds)) for r in rows),
                   fastest=tuple(min(r.seconds) for r in rows),
                   slowest=tuple(max(r.seconds) for r in rows),
                   runs=max((len(r.seconds) for r in rows), default=0))


@_cached(max_entries=8)
def robustness(_prefs: Preferences, key: str, truth: np.ndarray, methods: tuple,
               alpha: float, seeds: int, label: str | None = None):
    """Accuracy against the share of random answers (0–60%)."""
    with _job(label) as job:
        return robustness_curve(_prefs, list(methods), truth, seeds=seeds,
                                overrides={"alpha": alpha, **COMPARE_DRAWS}, **_hooks(job))


def robustness_note(methods, timing: Timings | None) -> str:
    """What "Draw the robustness curve" will cost, said before it starts.

    A repetition fits every chosen method at every noise level of
    :data:`~coarsenrank_core.experiments.DEFAULT_NOISE_LEVELS` (after the first, a method
    without a seed skips the clean level). With the comparison's ``timing`` of all the
    chosen methods the note adds the seconds that many fits took there: a rough estimate
    (a noisier copy may take longer to fit than the data, and the clean level is skipped).
    """
    levels = len(DEFAULT_NOISE_LEVELS)
    work = (f"Each repetition fits the {count(len(methods), 'chosen method')} at {levels} "
            f"noise levels ({count(len(methods) * levels, 'fit')}).")
    median = dict(zip(timing.methods, timing.median)) if timing is not None else {}
    if methods and all(m in median for m in methods):
        seconds = levels * sum(median[m] for m in methods)
        work += (f" At the comparison's speed that is roughly {_seconds(max(seconds, 1))} "
                 "per repetition.")
    elif methods:
        work += " Run the comparison above to see how long one fit of each method takes."
    return work + " Fewer methods or fewer repetitions are faster."


@_cached(max_entries=8)
def scale(_prefs: Preferences, key: str, methods: tuple, alpha: float,
          label: str | None = None):
    """Seconds against magnification ×1 to ×100."""
    with _job(label) as job:
        return scale_test(_prefs, list(methods), overrides={"alpha": alpha}, **_hooks(job))


#: List entries the scale test's largest magnified copy may hold: ×100 of a 49.5 MB upload
#: (4.7 M entries) would hold 470 M and need tens of gigabytes.
SCALE_ENTRIES = 20_000_000


def scale_factors(prefs: Preferences) -> tuple[int, ...]:
    """The magnifications of the scale test for these data: the paper's (×1 to ×100), less
    those whose copy would hold more than :data:`SCALE_ENTRIES` list entries (×1 stays)."""
    return tuple(f for f in DEFAULT_FACTORS
                 if f == 1 or f * int(prefs.items.size) <= SCALE_ENTRIES)


@_cached(max_entries=8)
def scale_within(_prefs: Preferences, key: str, methods: tuple, alpha: float,
                 factors: tuple, label: str | None = None):
    """Seconds against the magnifications ``factors`` (see :func:`scale_factors`)."""
    with _job(label) as job:
        return scale_test(_prefs, list(methods), factors=factors, overrides={"alpha": alpha},
                          **_hooks(job))


@_cached(max_entries=16)
def raters(_prefs: Preferences, key: str, alpha: float | None):
    """Each rater's agreement with the consensus: CoarsenPL's EM fit at this α, or the
    default fit when ``alpha`` is None."""
    fit = default_fit(_prefs, key) if alpha is None else consensus_fit(_prefs, key, alpha)
    return ranker_disagreement(_prefs, fit.scores)


@_cached(max_entries=16)
def careless(_prefs: Preferences, key: str, method: str):
    """A mixture model's fit and each rater's posterior probability of answering at random."""
    return careless_rankers(_prefs, method)


@_cached(max_entries=16)
def inject_noise(_prefs: Preferences, key: str, kind: str, level: float, seed: int):
    """Apply one noise injector."""
    return NOISE_TYPES[kind].function(_prefs, level, random_state=seed)


def default_alpha(_prefs: Preferences, key: str) -> float:
    """α of the default rule for these data (the same as :func:`alpha_choice`)."""
    return alpha_choice(_prefs, key).alpha
