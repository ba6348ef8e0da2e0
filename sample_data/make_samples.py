"""Regenerate the built-in sample datasets (seeded): ``python -m sample_data.make_samples``."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from coarsenrank_core.simulate import pl_orderings, random_orderings, random_subsets

HERE = Path(__file__).resolve().parent

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


def _write(name: str, header: list[str], rows) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _truth(name: str, names: list[str], worth: np.ndarray) -> None:
    _write(name, ["item", "score"], [[n, f"{w:.4f}"] for n, w in zip(names, worth)])


def pizza(rng) -> None:
    """8 pizzas fully ranked by 30 people; 7 of them answered carelessly (at random)."""
    worth = np.exp(np.linspace(1.6, -1.6, len(PIZZAS)))
    items = np.tile(np.arange(len(PIZZAS)), (len(NAMES), 1))
    orders = pl_orderings(items, np.log(worth), random_state=rng)
    careless = rng.choice(len(NAMES), 7, replace=False)
    orders[careless] = random_orderings(items[careless], random_state=rng)
    header = ["respondent"] + [f"rank{i + 1}" for i in range(len(PIZZAS))]
    _write("pizza_rankings.csv", header,
           [[NAMES[r]] + [PIZZAS[i] for i in orders[r]] for r in range(len(NAMES))])
    _truth("pizza_truth.csv", PIZZAS, worth)


def photos(rng) -> None:
    """Pairwise "which photo is sharper?" judgements by 12 crowd workers, 3 of them spammers."""
    worth = np.exp(np.linspace(2.0, -2.0, len(PHOTOS)))
    workers = [f"worker{i + 1:02d}" for i in range(12)]
    rows = []
    for w, worker in enumerate(workers):
        pairs = random_subsets(len(PHOTOS), np.full(40, 2), random_state=rng).reshape(-1, 2)
        ordered = (random_orderings(pairs, random_state=rng) if w >= 9
                   else pl_orderings(pairs, np.log(worth), random_state=rng))
        for (a, b), (win, _) in zip(pairs, ordered):
            rows.append([worker, PHOTOS[a], PHOTOS[b], PHOTOS[win]])
    _write("photo_pairs.csv", ["worker", "left", "right", "winner"], rows)
    _truth("photo_truth.csv", PHOTOS, worth)


def films(rng) -> None:
    """150 viewers each list their top 5 of 25 films; a quarter of them answer at random."""
    worth = np.exp(np.linspace(1.5, -1.5, len(FILMS)))
    n, k = 150, 5
    everything = np.tile(np.arange(len(FILMS)), (n, 1))
    orders = pl_orderings(everything, np.log(worth), random_state=rng)
    noisy = rng.choice(n, n // 4, replace=False)
    orders[noisy] = random_orderings(everything[noisy], random_state=rng)
    rows = [[f"viewer{v + 1:03d}", FILMS[i], r + 1]
            for v in range(n) for r, i in enumerate(orders[v, :k])]
    _write("film_lists.csv", ["voter", "item", "rank"], rows)
    _truth("film_truth.csv", FILMS, worth)


def essays(rng) -> None:
    """40 students grade 4 of 12 essays each; equal grades are ties; 5 grade upside down."""
    worth = np.exp(np.linspace(1.2, -1.2, len(ESSAYS)))
    n = 40
    subsets = random_subsets(len(ESSAYS), np.full(n, 4), random_state=rng).reshape(n, 4)
    orders = pl_orderings(subsets, np.log(worth), random_state=rng)
    reversed_students = rng.choice(n, 5, replace=False)
    orders[reversed_students] = orders[reversed_students, ::-1]
    rows = []
    for s in range(n):
        rank = 1
        for position, item in enumerate(orders[s]):
            if position > 0 and rng.random() >= 0.3:
                rank = position + 1
            rows.append([f"student{s + 1:02d}", ESSAYS[item], rank])
    _write("essay_grades.csv", ["student", "item", "rank"], rows)
    _truth("essay_truth.csv", ESSAYS, worth)


def main() -> None:
    rng = np.random.default_rng(20221)
    pizza(rng)
    photos(rng)
    films(rng)
    essays(rng)


if __name__ == "__main__":
    main()
