"""Cached calls into the engine: every expensive computation of the dashboard goes through here.

Each function is keyed on the dataset's content key (a digest of its preferences and truth)
and its parameters; the collection itself is passed as ``_prefs`` so Streamlit does not
hash it again. Entries are bounded with ``max_entries``. Long runs draw their own progress
bar inside the cached function: Streamlit replays what a cached function drew, which only
works for elements the function itself created.
"""

from __future__ import annotations

import io
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.alpha import DEFAULT_RULE, choose_alpha
from coarsenrank_core.alpha import consensus_fit as engine_consensus_fit
from coarsenrank_core.compare import compare
from coarsenrank_core.dic import DIC_DRAWS, dic_sweep
from coarsenrank_core.experiments import (
    careless_raters,
    rater_disagreement,
    robustness_curve,
    scale_test,
)
from coarsenrank_core.io import read_preferences, read_truth
from coarsenrank_core.noise import NOISE_TYPES

from .samples import SAMPLES
from .state import Dataset

CONSENSUS_DRAWS = dict(burn_in=200, n_draws=400)
#: Gibbs settings of the comparison: fewer draws than the Consensus page (the comparison needs
#: only the posterior mean's order), stated on the Compare page.
COMPARE_DRAWS = dict(burn_in=50, n_draws=100)
TIMING_RUNS = 3  # each method is timed this many times; the chart shows the median
PARALLEL_ENTRIES = 20_000  # list entries from which a DIC sweep uses both cores


def workers(prefs: Preferences) -> int:
    """Processes for a DIC sweep: both cores on data large enough to pay for starting them.

    The curve does not depend on this (every α runs from the same seed).
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


@contextmanager
def _progress(label: str | None):
    """A progress bar for one cached run, as a ``(done, total)`` callback; None without label."""
    if label is None:
        yield None
        return
    bar = st.progress(0.0, text=label)
    try:
        yield lambda done, total: bar.progress(done / total, text=f"{label} {done}/{total}")
    finally:
        bar.empty()


@st.cache_data(max_entries=8, show_spinner=False)
def load_sample(sample_id: str) -> Dataset:
    """A built-in sample with its ground truth."""
    sample = SAMPLES[sample_id]
    if sample.scenario is not None:
        from .scenario import teaching_scenario
        return teaching_scenario(sample.scenario)
    prefs = read_preferences(sample.path, format=sample.format)
    truth = read_truth(sample.truth_path, prefs)
    return Dataset(name=sample.title, preferences=prefs, truth=truth, origin="sample",
                   description=sample.description, recipe=f"sample:{sample_id}")


@st.cache_data(max_entries=8, show_spinner=False)
def read_upload(data: bytes, name: str, file_format: str) -> Preferences:
    """Parse uploaded bytes (raises PreferenceFormatError, which is not cached)."""
    return read_preferences(_named(data, name), format=file_format)


@st.cache_data(max_entries=8, show_spinner=False)
def read_truth_upload(data: bytes, name: str, _prefs: Preferences, key: str) -> np.ndarray:
    """Parse an uploaded ground truth against the current items."""
    return read_truth(_named(data, name), _prefs)


def _named(data: bytes, name: str) -> io.BytesIO:
    """Uploaded bytes with the file name the readers use to recognise PrefLib files."""
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


@st.cache_data(max_entries=16, show_spinner=False)
def alpha_choice(_prefs: Preferences, key: str, rule: str = DEFAULT_RULE):
    """α chosen from the data by :func:`choose_alpha` (the default rule unless told)."""
    with st.spinner("Letting the data choose α…"):
        return choose_alpha(_prefs, rule, n_jobs=workers(_prefs))


@st.cache_data(max_entries=32, show_spinner=False)
def consensus_fit(_prefs: Preferences, key: str, alpha: float):
    """The consensus of the whole package (CoarsenPL by EM, paper §7.1 calibration) at this α."""
    return engine_consensus_fit(_prefs, alpha)


@st.cache_data(max_entries=16, show_spinner=False)
def posterior(_prefs: Preferences, key: str, alpha: float, seed: int = 0):
    """CoarsenPL's exact Gibbs posterior at this α (for rank uncertainty)."""
    from coarsenrank_core import coarsen_pl_gibbs

    return coarsen_pl_gibbs(_prefs, alpha=alpha, random_state=seed, **CONSENSUS_DRAWS)


@st.cache_data(max_entries=16, show_spinner=False)
def dic(_prefs: Preferences, key: str, alphas: tuple | None, burn_in: int, n_draws: int,
        seed: int, label: str | None = None):
    """The DIC sweep over a grid of α (the settings :func:`choose_alpha` uses by default)."""
    with _progress(label) as progress:
        return dic_sweep(_prefs, alphas=alphas, burn_in=burn_in, n_draws=n_draws,
                         random_state=seed, progress=progress, n_jobs=workers(_prefs),
                         warm_start=DIC_DRAWS["warm_start"])


@st.cache_data(max_entries=16, show_spinner=False)
def comparison(_prefs: Preferences, key: str, truth: np.ndarray | None, methods: tuple,
               alpha: float, repeats: int, label: str | None = None):
    """Run the chosen methods and compare them."""
    with _progress(label) as progress:
        return compare(_prefs, list(methods), truth=truth, repeats=repeats, progress=progress,
                       overrides={"alpha": alpha, **COMPARE_DRAWS})


@st.cache_data(max_entries=16, show_spinner=False)
def timings(_prefs: Preferences, key: str, methods: tuple, alpha: float, runs: int,
            first: tuple, label: str | None = None) -> Timings:
    """Time each method ``runs`` times; ``first`` holds the comparison's own run (seconds)."""
    from coarsenrank_core.registry import METHODS, run_method

    seconds = {m: [s] for m, s in zip(methods, first)}
    total = len(methods) * (runs - 1)
    with _progress(label) as progress:
        done = 0
        for _ in range(runs - 1):
            for method in methods:
                start = time.perf_counter()
                run_method(method, _prefs, alpha=alpha, **COMPARE_DRAWS)
                seconds[method].append(time.perf_counter() - start)
                done += 1
                if progress is not None:
                    progress(done, total)
    return Timings(methods=tuple(methods), names=tuple(METHODS[m].name for m in methods),
                   median=tuple(float(np.median(seconds[m])) for m in methods),
                   fastest=tuple(float(min(seconds[m])) for m in methods),
                   slowest=tuple(float(max(seconds[m])) for m in methods), runs=runs)


@st.cache_data(max_entries=8, show_spinner=False)
def robustness(_prefs: Preferences, key: str, truth: np.ndarray, methods: tuple,
               alpha: float, seeds: int, label: str | None = None):
    """Accuracy against the share of random answers (0–60%)."""
    with _progress(label) as progress:
        return robustness_curve(_prefs, list(methods), truth, seeds=seeds, progress=progress,
                                overrides={"alpha": alpha, **COMPARE_DRAWS})


@st.cache_data(max_entries=8, show_spinner=False)
def scale(_prefs: Preferences, key: str, methods: tuple, alpha: float,
          label: str | None = None):
    """Seconds against magnification ×1 to ×100."""
    with _progress(label) as progress:
        return scale_test(_prefs, list(methods), progress=progress, overrides={"alpha": alpha})


@st.cache_data(max_entries=16, show_spinner=False)
def raters(_prefs: Preferences, key: str, alpha: float):
    """Each rater's agreement with the consensus (the EM fit at this α)."""
    return rater_disagreement(_prefs, consensus_fit(_prefs, key, alpha).scores)


@st.cache_data(max_entries=16, show_spinner=False)
def careless(_prefs: Preferences, key: str, method: str):
    """A mixture model's fit and each rater's posterior probability of answering at random."""
    return careless_raters(_prefs, method)


@st.cache_data(max_entries=16, show_spinner=False)
def inject_noise(_prefs: Preferences, key: str, kind: str, level: float, seed: int):
    """Apply one noise injector."""
    return NOISE_TYPES[kind].function(_prefs, level, random_state=seed)


def default_alpha(_prefs: Preferences, key: str) -> float:
    """α of the default rule for these data (the same as :func:`alpha_choice`)."""
    return alpha_choice(_prefs, key).alpha
