"""Per-session state: the loaded dataset, the chosen α, and results tied to their data."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.results import tempering

_DATASET = "dataset"
_ALPHA = "alpha"
_RESULTS = "results"


@dataclass(frozen=True)
class NoiseReport:
    """What a noise injection changed (shown on the Noise page)."""

    label: str
    level: float
    seed: int
    fraction_altered: float
    mean_distance: float
    consensus_distance: float
    consensus_pairs: int


@dataclass(frozen=True)
class Dataset:
    """A loaded collection of preferences, with its ground truth and where it came from."""

    name: str
    preferences: Preferences
    truth: np.ndarray | None = None
    origin: str = "sample"
    description: str = ""
    parent: Dataset | None = None
    noise: NoiseReport | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        """What the reader skipped or changed while loading (kept on the preferences)."""
        return self.preferences.notes

    @property
    def key(self) -> str:
        """Identifies the content (preferences and truth) for caches and stored results."""
        truth = "" if self.truth is None else hashlib.sha1(self.truth.tobytes()).hexdigest()
        return self.preferences.fingerprint + truth

    @property
    def original(self) -> Dataset:
        """The dataset this one was derived from by noise (itself when not derived)."""
        return self if self.parent is None else self.parent.original


def current() -> Dataset:
    """The session's dataset; the default sample is loaded on first use."""
    if _DATASET not in st.session_state:
        from .compute import load_sample
        from .samples import DEFAULT_SAMPLE
        st.session_state[_DATASET] = load_sample(DEFAULT_SAMPLE)
    return st.session_state[_DATASET]


def set_current(dataset: Dataset) -> None:
    """Replace the session's dataset (results of the previous data stay stored but unused)."""
    st.session_state[_DATASET] = dataset


def chosen_alpha() -> float | None:
    """The α the user picked for this dataset (on the DIC page or typed), if any."""
    stored = st.session_state.get(_ALPHA)
    if stored is None or stored[0] != current().key:
        return None
    return stored[1]


def set_alpha(alpha: float) -> None:
    """Remember α for the current dataset."""
    st.session_state[_ALPHA] = (current().key, float(alpha))


def tau_of(alpha: float) -> float:
    """τ = α / (α + N) for the current dataset."""
    return tempering(alpha, current().preferences.total_weight)


def store(name: str, value) -> None:
    """Keep a result for the current dataset."""
    st.session_state.setdefault(_RESULTS, {})[name] = (current().key, value)


def stored(name: str):
    """A result kept for the current dataset, or None (results of other data are ignored)."""
    entry = st.session_state.get(_RESULTS, {}).get(name)
    return entry[1] if entry is not None and entry[0] == current().key else None
