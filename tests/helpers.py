"""Helpers shared by test files: finite differences and small Plackett–Luce collections
(the gradient methods' tests), and the command line a read's note gives (the readers')."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core import Preferences


def numeric_gradient(f, x, h=1e-6):
    """Central differences of a scalar function."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def simulate(scores, n_prefs, lengths=(2, 3, 4, 5), tie_prob=0.0, n_rankers=None,
             reversed_rankers=(), seed=0):
    """Plackett–Luce lists by Gumbel-max; adjacent items merged into ties with ``tie_prob``.

    Rankers in ``reversed_rankers`` report every list upside down.
    """
    rng = np.random.default_rng(seed)
    n_items = scores.size
    lists, rankers = [], []
    for n in range(n_prefs):
        k = int(rng.choice(lengths))
        subset = rng.choice(n_items, size=k, replace=False)
        order = subset[np.argsort(-(scores[subset] + rng.gumbel(size=k)))].tolist()
        ranker = n % n_rankers if n_rankers else n
        if ranker in reversed_rankers:
            order = order[::-1]
        pref, i = [], 0
        while i < k:
            if tie_prob and i + 1 < k and rng.random() < tie_prob:
                pref.append(frozenset(order[i:i + 2]))
                i += 2
            else:
                pref.append(order[i])
                i += 1
        lists.append(pref)
        rankers.append(ranker)
    return Preferences.from_lists(lists, n_items=n_items,
                                  rankers=rankers if n_rankers else None)


def mixed_preferences() -> Preferences:
    """Small data with ties, lengths 2..5, tied pairs, weights and 4 rankers."""
    rng = np.random.default_rng(7)
    base = simulate(rng.normal(size=7), 50, tie_prob=0.3, n_rankers=4, seed=7)
    extra = Preferences.from_pairs([0, 3, 5], [1, 4, 6], n_items=7, tied=[True, False, False])
    lists = base.to_lists() + extra.to_lists()
    prefs = Preferences.from_lists(lists, n_items=7, rankers=[*base.rankers, 0, 1, 2],
                                   weights=rng.uniform(0.5, 2.0, len(lists)))
    assert prefs.has_ties and set(prefs.lengths) == {2, 3, 4, 5}
    return prefs


SEPARATED_KINDS = {
    "pairs": dict(lengths=(2,), tie_prob=0.0),
    "lists": dict(lengths=(3, 4, 5), tie_prob=0.0),
    "ties": dict(lengths=(2, 3, 4), tie_prob=0.3),
}
"""The data shapes of the recovery tests: strict pairs, strict lists, lists with ties."""


def separated_truth(kind: str) -> tuple[np.ndarray, Preferences]:
    """A strongly separated truth over 12 items and 500 preferences of shape ``kind``."""
    truth = np.linspace(0.0, 8.0, 12)
    return truth, simulate(truth, 500, n_rankers=20, seed=21, **SEPARATED_KINDS[kind])


def noisy_short_lists(seed: int, n: int, m: int = 5):
    """``n`` lists of 2-3 of ``m`` items, ordered by Gumbel-perturbed falling worths, 30 %
    of them shuffled, with no ranker ids; returns them and the generator (advanced)."""
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(n):
        k = int(rng.integers(2, 4))
        items = rng.choice(m, k, replace=False)
        keys = np.linspace(1, -1, m)[items] + rng.gumbel(size=k)
        order = items[np.argsort(-keys)].tolist()
        if rng.random() < 0.3:
            order = rng.permutation(order).tolist()
        lists.append(order)
    return Preferences.from_lists(lists, n_items=m), rng


def distributed_or_skip():
    """``dask.distributed``, or skip the module with the command that installs it."""
    return pytest.importorskip(
        "distributed", reason="dask[distributed] is not installed: pip install '.[dask]' "
                              "(.ci/run installs it)")


ROOT = Path(__file__).resolve().parents[1]


def note_command(note: str) -> str:
    """The command a read's note gives for reading the file by hand, after "in the command
    line: "."""
    return note.split("(in the command line: ")[1].rstrip(")")


def rank_on_the_command_line(path, *args: str) -> subprocess.CompletedProcess:
    """``coarsenrank rank PATH ARGS --method borda`` in a fresh interpreter, its output kept."""
    return subprocess.run([sys.executable, "-m", "coarsenrank_core", "rank", str(path), *args,
                           "--method", "borda"], capture_output=True, text=True, cwd=ROOT)
