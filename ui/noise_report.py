"""Summarise what a noise injection changed: altered lists, their distance, the consensus shift."""

from __future__ import annotations

import numpy as np

from coarsenrank_core.metrics import kendall_distance
from coarsenrank_core.noise import altered_distance

from . import compute
from .state import Dataset, NoiseReport


def describe_noise(original: Dataset, result, label: str, level: float, seed: int,
                   alpha: float) -> NoiseReport:
    """Fraction altered, mean normalised Kendall distance of altered lists, consensus change.

    Both consensus fits use the same ``alpha`` (the session's, which the noisy copy keeps).
    """
    distances = altered_distance(original.preferences, result)
    before = compute.consensus_fit(original.preferences, original.key, alpha)
    noisy = result.preferences
    after = compute.consensus_fit(noisy, noisy.fingerprint, alpha)
    n = original.preferences.n_items
    return NoiseReport(label=label, level=level, seed=seed,
                       fraction_altered=float(result.fraction_altered),
                       mean_distance=float(np.mean(distances)) if distances.size else 0.0,
                       consensus_distance=kendall_distance(before.order, after.order),
                       consensus_pairs=n * (n - 1) // 2)
