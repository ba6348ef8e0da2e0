"""Noise for teaching: make a noisy copy, say what changed, and compare before with after."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coarsenrank_core.metrics import kendall_distance
from coarsenrank_core.noise import NOISE_TYPES, altered_distance

from . import alpha as session_alpha
from . import compute, state
from .dataset import Dataset, NoiseReport


def made_noisy(original: Dataset, result) -> tuple[int, ...]:
    """Raters made noisy: the spammers chosen, or raters with at least half their lists altered."""
    if "spammers" in result.extra:
        return tuple(int(r) for r in result.extra["spammers"])
    prefs = original.preferences
    if not prefs.has_rankers or not result.altered.size:
        return ()
    raters = prefs.ranker_index[result.source]
    altered = np.bincount(raters, weights=result.altered, minlength=prefs.n_rankers)
    lists = np.bincount(raters, minlength=prefs.n_rankers)
    return tuple(int(r) for r in np.flatnonzero((lists > 0) & (2 * altered >= lists)
                                                & (altered > 0)))


def unchanged_reason(kind: str, level: float, original: Dataset, result) -> str:
    """Why a noise kind changed nothing on these data, or ``""`` when it changed something."""
    prefs = original.preferences
    if result.n_altered or len(result.preferences) != len(prefs):
        return ""
    if kind == "subsample":
        if level >= 1:
            return "Keeping 100% of the answers keeps them all."
        per_ranker = (np.bincount(prefs.ranker_index) if prefs.has_rankers
                     else np.array([len(prefs)]))
        if per_ranker.max(initial=0) <= 1:
            return ("Every rater gave only one list and keeps at least one, so there is "
                    "nothing to remove. Try it on data where raters answer several times "
                    "(the photo comparisons or a teaching scenario).")
        return ("At this level every rater still keeps all their answers (each keeps at "
                "least one and counts are rounded); lower the level.")
    if level == 0:
        return "A level of 0 changes nothing; move the slider up."
    if prefs.lengths.max(initial=0) < 2:
        return "Every list holds a single item, so there is no order to disturb."
    return ("The random changes happened to reproduce every list (this happens on very "
            "short lists); try another seed or a higher level.")


def describe_noise(original: Dataset, result, label: str, level: float, seed: int,
                   alpha: float, kind: str = "") -> NoiseReport:
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
                       consensus_pairs=n * (n - 1) // 2, kind=kind,
                       made_noisy=made_noisy(original, result),
                       unchanged=unchanged_reason(kind, level, original, result),
                       lists_before=len(original.preferences), lists_after=len(noisy))


def make_noisy_copy(kind: str, level: float, seed: int) -> Dataset:
    """A noisy copy of the loaded data's original, made the session's data."""
    original = state.current().original
    noise = NOISE_TYPES[kind]
    alpha = session_alpha.current().alpha
    result = compute.inject_noise(original.preferences, original.key, kind, float(level),
                                  int(seed))
    report = describe_noise(original, result, noise.label, float(level), int(seed), alpha,
                            kind)
    careless = set(original.careless or ()) | set(report.made_noisy)
    copy = Dataset(name=f"{original.name} + {noise.label.lower()} ({level:g})",
                   preferences=result.preferences, truth=original.truth, origin="noise",
                   description=original.description, parent=original, noise=report,
                   careless=tuple(sorted(careless)))
    state.set_current(copy)
    return copy


@dataclass(frozen=True)
class BeforeAfter:
    """The consensus orders before and after, item by item."""

    names: tuple[str, ...]
    before: np.ndarray  # item ids, best first
    after: np.ndarray
    moved: np.ndarray  # per place (before order): places moved, + = up in the noisy order

    def rows(self) -> list[dict]:
        """One row per place: the item there before and after, and how the after item moved."""
        place_before = np.empty(self.before.size, dtype=int)
        place_before[self.before] = np.arange(self.before.size)
        rows = []
        for place, (b, a) in enumerate(zip(self.before, self.after)):
            shift = int(place_before[a] - place)
            change = "" if shift == 0 else (f"▲ {shift}" if shift > 0 else f"▼ {-shift}")
            rows.append({"place": place + 1, "original data": self.names[b],
                         "noisy copy": self.names[a], "moved (noisy copy)": change})
        return rows


def before_after(original: Dataset, noisy: Dataset, alpha: float) -> BeforeAfter:
    """The consensus (CoarsenPL by EM at the session's α) of the original and the copy."""
    before = compute.consensus_fit(original.preferences, original.key, alpha).order
    after = compute.consensus_fit(noisy.preferences, noisy.key, alpha).order
    place_after = np.empty(after.size, dtype=int)
    place_after[after] = np.arange(after.size)
    moved = np.arange(before.size) - place_after[before]
    names = tuple(noisy.preferences.item_names or [str(i) for i in range(after.size)])
    return BeforeAfter(names=names, before=np.asarray(before), after=np.asarray(after),
                       moved=moved)


@dataclass(frozen=True)
class RaterCheck:
    """Raters made noisy against raters a model flags, with precision and recall."""

    noisy: tuple[int, ...]
    flagged: tuple[int, ...]

    @property
    def hits(self) -> int:
        return len(set(self.noisy) & set(self.flagged))

    @property
    def precision(self) -> float | None:
        """Share of the flagged raters that were made noisy (None when none is flagged)."""
        return self.hits / len(self.flagged) if self.flagged else None

    @property
    def recall(self) -> float | None:
        """Share of the noisy raters that are flagged (None when none was made noisy)."""
        return self.hits / len(self.noisy) if self.noisy else None


def rater_check(dataset: Dataset, method: str = "pl-mix-ranker") -> RaterCheck | None:
    """Which raters are known careless against those the mixture model flags (None if unknown)."""
    if dataset.careless is None or not dataset.preferences.has_rankers:
        return None
    careless = compute.careless(dataset.preferences, dataset.key, method)
    return RaterCheck(noisy=tuple(dataset.careless),
                      flagged=tuple(int(r) for r in np.flatnonzero(careless.outlier)))
