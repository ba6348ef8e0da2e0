"""The loaded data of a session: preferences with their truth, origin and noise record."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from coarsenrank_core import Preferences

__all__ = ["Dataset", "NoiseReport"]


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
    kind: str = ""
    #: raters the noise made noisy (spammers, or at least half of their lists altered)
    made_noisy: tuple[int, ...] = ()
    #: why the noise changed nothing on these data ("" when it changed something)
    unchanged: str = ""
    #: lists before and after (the noise may leave some out: fewer answers per rater)
    lists_before: int = 0
    lists_after: int = 0


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
    read_as: tuple[str, ...] = ()  # how an uploaded file was read (ReadReport.lines())
    #: ranker ids known to answer carelessly (a simulated scenario's or the noise's truth)
    careless: tuple[int, ...] | None = None
    #: how to rebuild these data from a URL: ``sample:<id>``, ``scenario:<n>,<r>,<k>,<p>,<s>``
    #: or ``""`` (uploaded data, which cannot travel in a URL)
    recipe: str = ""

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
