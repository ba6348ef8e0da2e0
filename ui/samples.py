"""The built-in sample datasets shipped in ``sample_data/``, each with its ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"


@dataclass(frozen=True)
class Sample:
    """One built-in dataset: a preferences file, its format, and a ground-truth file."""

    id: str
    title: str
    description: str
    file: str = ""
    truth: str = ""
    format: str = "auto"
    scenario: str | None = None  # a simulated teaching scenario instead of a file
    careless: str = ""  # the raters careless by design: a one-column CSV of rater names

    @property
    def path(self) -> Path:
        return SAMPLE_DIR / self.file

    @property
    def truth_path(self) -> Path:
        return SAMPLE_DIR / self.truth

    @property
    def careless_path(self) -> Path | None:
        return SAMPLE_DIR / self.careless if self.careless else None


SAMPLES: dict[str, Sample] = {s.id: s for s in [
    Sample("pizza", "Pizza survey (8 pizzas, 30 people)",
           "Thirty people each put 8 pizzas in order of preference. Seven of them did not "
           "care and answered at random. A small teaching example with full rankings.",
           "pizza_rankings.csv", "pizza_truth.csv", "wide", careless="pizza_careless.csv"),
    Sample("photos", "Crowd photo comparisons (20 photos, 12 workers)",
           "Crowd workers were shown two photos at a time and picked the sharper one. Three "
           "of the twelve workers clicked at random. Pairwise comparisons, 480 in all.",
           "photo_pairs.csv", "photo_truth.csv", "pairwise", careless="photo_careless.csv"),
    Sample("films", "Top-5 film lists (25 films, 150 viewers)",
           "Each viewer listed their five favourite films out of 25, best first. A quarter of "
           "the viewers gave random answers. Each list is treated as an order of the films it "
           "names.",
           "film_lists.csv", "film_truth.csv", "long", careless="film_careless.csv"),
    Sample("essays", "Essay grades with ties (12 essays, 40 students)",
           "Each student graded 4 essays; equal grades are ties. Five students graded "
           "upside down (best as worst).",
           "essay_grades.csv", "essay_truth.csv", "long", careless="essay_careless.csv"),
    Sample("careless", "Teaching: careless raters (20 items, 30 raters)",
           "Simulated. Half of the 30 raters answered all their 8 lists at random. The "
           "robust methods that model careless raters (PL-mix, CrowdBT) find the true order "
           "clearly better than plain PL; CoarsenPL does not.",
           scenario="careless"),
    Sample("campaign", "Teaching: a coordinated campaign (20 items, 30 raters)",
           "Simulated. Half of the raters agree on the same wrong order (the bottom half of "
           "the items promoted). Their lists look as consistent as the honest ones, so no "
           "method can tell which half to believe: nothing helps.",
           scenario="campaign"),
]}

DEFAULT_SAMPLE = "pizza"
