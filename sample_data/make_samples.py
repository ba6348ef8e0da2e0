"""Regenerate the built-in sample datasets (seeded): ``python sample_data/make_samples.py``.

Every dataset is drawn by :func:`coarsenrank_core.simulate.simulate_rankers` (the package's one
Plackett–Luce pipeline) from one generator seeded with ``SEED``; this file only names the
items and raters and writes the CSV layouts.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):  # run as a file: find coarsenrank_core in the checkout
    sys.path.insert(0, str(HERE.parent))

from coarsenrank_core.simulate import simulate_rankers, true_worths  # noqa: E402

SEED = 20221

PIZZAS = ["Margherita", "Quattro Formaggi", "Diavola", "Capricciosa", "Funghi", "Marinara",
          "Hawaiian", "Tuna & Sweetcorn"]
PHOTOS = [f"Photo {chr(ord('A') + i)}" for i in range(20)]
FILMS = ["The Lighthouse Keeper", "Paper Moons", "Northern Line", "A Quiet Harbour",
         "Glass Orchard", "The Long Field", "Saltwater", "Nine Bridges", "Winter Market",
         "The Cartographer", "Lantern Street", "Hollow Pines", "Second Summer", "Red Kite",
         "The Tin Drum Club", "Marigold", "Far Shore", "Stone & Feather", "Night Ferry",
         "The Last Orchard", "Copper Hill", "Small Hours", "Blue Lagoon Road", "The Archivist",
         "Wild Thyme"]
ESSAYS = [f"Essay {i + 1:02d}" for i in range(12)]
NAMES = ["Ana", "Ben", "Chloé", "Dev", "Ema", "Farid", "Grace", "Hugo", "Ines", "Jon", "Kemal",
         "Lena", "Mo", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vik",
         "Wen", "Xavi", "Yara", "Zoe", "Ade", "Bea", "Cai", "Dora"]


def _write(out: Path, name: str, header: list[str], rows) -> None:
    with open(out / name, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _truth(out: Path, name: str, names: list[str], worth: np.ndarray) -> None:
    _write(out, name, ["item", "score"], [[n, f"{w:.4f}"] for n, w in zip(names, worth)])


def _careless(out: Path, name: str, column: str, raters: list[str]) -> None:
    """The raters who answered carelessly by design, one name a row, so a teacher can check
    the flags."""
    _write(out, name, [column], [[r] for r in raters])


def pizza(rng, out: Path = HERE) -> None:
    """8 pizzas fully ranked by 30 people; 7 of them answered carelessly (at random)."""
    sim = simulate_rankers(true_worths(len(PIZZAS), 1.6, "even"), len(NAMES), n_careless=7,
                          random_state=rng)
    header = ["respondent"] + [f"rank{i + 1}" for i in range(len(PIZZAS))]
    _write(out, "pizza_rankings.csv", header,
           [[name] + [PIZZAS[i] for i in order] for name, order in zip(NAMES, sim.orders)])
    _truth(out, "pizza_truth.csv", PIZZAS, sim.worths)
    _careless(out, "pizza_careless.csv", "respondent", [NAMES[r] for r in sim.careless])


def photos(rng, out: Path = HERE) -> None:
    """Pairwise "which photo is sharper?" judgements by 12 crowd workers, 3 of them spammers.

    Drawn worker by worker (twelve calls) so that the shipped file keeps its bytes; the
    three spammers (workers 10-12) are Plackett–Luce raters to whom every photo is worth
    the same, i.e. they pick at random.
    """
    worth = true_worths(len(PHOTOS), 2.0, "even")
    rows = []
    for w in range(12):
        sim = simulate_rankers(worth if w < 9 else np.ones_like(worth), 1, 2,
                              lists_per_ranker=40, random_state=rng)
        rows += [[f"worker{w + 1:02d}", PHOTOS[a], PHOTOS[b], PHOTOS[win]]
                 for (a, b), win in zip(sim.shown, sim.orders[:, 0])]
    _write(out, "photo_pairs.csv", ["worker", "left", "right", "winner"], rows)
    _truth(out, "photo_truth.csv", PHOTOS, worth)
    _careless(out, "photo_careless.csv", "worker", [f"worker{w + 1:02d}" for w in range(9, 12)])


def films(rng, out: Path = HERE) -> None:
    """150 viewers each list their top 5 of 25 films; a quarter of them answer at random."""
    n = 150
    sim = simulate_rankers(true_worths(len(FILMS), 1.5, "even"), n, top=5, n_careless=n // 4,
                          random_state=rng)
    rows = [[f"viewer{v + 1:03d}", FILMS[i], r + 1]
            for v, order in enumerate(sim.orders) for r, i in enumerate(order)]
    _write(out, "film_lists.csv", ["voter", "item", "rank"], rows)
    _truth(out, "film_truth.csv", FILMS, sim.worths)
    _careless(out, "film_careless.csv", "voter", [f"viewer{v + 1:03d}" for v in sim.careless])


def essays(rng, out: Path = HERE) -> None:
    """40 students grade 4 of 12 essays each; equal grades are ties; 5 grade upside down."""
    n = 40
    sim = simulate_rankers(true_worths(len(ESSAYS), 1.2, "even"), n, 4, n_careless=5,
                          careless_order="reversed", ties=0.3, random_state=rng)
    groups = sim.preferences.groups.reshape(sim.orders.shape)
    # a grade is the place of the first essay of its tied group: 1, 1, 3, 4
    place = np.arange(groups.shape[1])
    starts = np.c_[np.ones((n, 1), bool), np.diff(groups, axis=1) != 0]
    grade = np.maximum.accumulate(np.where(starts, place, 0), axis=1) + 1
    rows = [[f"student{s + 1:02d}", ESSAYS[i], int(g)]
            for s in range(n) for i, g in zip(sim.orders[s], grade[s])]
    _write(out, "essay_grades.csv", ["student", "item", "rank"], rows)
    _truth(out, "essay_truth.csv", ESSAYS, sim.worths)
    _careless(out, "essay_careless.csv", "student", [f"student{s + 1:02d}" for s in sim.careless])


def main(out: Path = HERE) -> None:
    """Write every sample and its truth into ``out`` (default: this folder)."""
    rng = np.random.default_rng(SEED)
    for make in (pizza, photos, films, essays):
        make(rng, Path(out))


if __name__ == "__main__":
    main()
