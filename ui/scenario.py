"""Teaching scenarios: a known true order, raters who follow it, and some who do not."""

from __future__ import annotations

import numpy as np

from coarsenrank_core.experiments import teaching_arrays
from coarsenrank_core.simulate import pl_orderings, random_subsets, simulate_rankers, true_worths

from .dataset import Dataset

#: The scenario builder's limits, shared by its sliders and by links (``scenario:`` recipes).
SCENARIO_LIMITS = dict(n_items=(3, 40), n_rankers=(5, 500), lists_per_ranker=(1, 20),
                       careless=(0.0, 0.9), seed=(0, 10_000))
#: Exposure settings the builder offers: how an item's worth decides how often it is shown.
EXPOSURE_CHOICES = {-1.0: "weaker items shown more often", 0.0: "every item equally often",
                    1.0: "stronger items shown more often"}
#: How much each rater's own order strays from the true one, item by item (the standard
#: deviation of a rater's log-strength around the true one): the spread the likely ranks
#: measure and hold.
SPREAD_CHOICES = {0.0: "no: they share one order", 0.5: "a little", 1.0: "a lot"}


def simulate_scenario(n_items: int, n_rankers: int, length: int, careless: float,
                      seed: int, lists_per_ranker: int = 1, exposure: float = 0.0,
                      spread: float = 0.0) -> Dataset:
    """Each rater orders random items by Plackett–Luce draws; a share answer at random.

    One call of :func:`coarsenrank_core.simulate.simulate_rankers`: ``Item 01`` is the best;
    worths fall evenly on a log scale (:func:`~coarsenrank_core.simulate.true_worths`) so the
    true order reads straight off the names. Every rater gives ``lists_per_ranker`` lists of
    ``length`` items, shown with probability ``∝ θ^exposure``. The careless raters (a share
    ``careless`` of them, chosen at random) keep their items but put every list in a random
    order; the dataset marks which they are. With ``spread`` > 0 every rater orders by their
    own strengths, the true ones moved item by item by N(0, ``spread``²) on the log scale
    (the true order stays the raters' mean order).
    """
    sim = simulate_rankers(true_worths(n_items, 1.5, "even"), n_rankers, length,
                          lists_per_ranker=int(lists_per_ranker), exposure=float(exposure),
                          careless=float(careless), ranker_spread=float(spread),
                          item_names=[f"Item {i + 1:02d}" for i in range(n_items)],
                          ranker_names=[f"rater {r + 1}" for r in range(n_rankers)],
                          random_state=seed)
    recipe = f"scenario:{n_items},{n_rankers},{length},{careless:g},{seed}"
    if lists_per_ranker != 1 or exposure or spread:
        recipe += f",{int(lists_per_ranker)},{exposure:g}"
    if spread:
        recipe += f",{spread:g}"
    share = f"{careless:.0%} careless" if careless else "all careful"
    lists = f", {lists_per_ranker} lists each" if lists_per_ranker != 1 else ""
    shown = f", {EXPOSURE_CHOICES.get(exposure, f'exposure {exposure:g}')}" if exposure else ""
    differ = f", raters differ {SPREAD_CHOICES.get(spread, f'by {spread:g}')}" if spread else ""
    return Dataset(name=f"Scenario: {n_items} items, {n_rankers} raters{lists}, {share}{shown}"
                        f"{differ}",
                   preferences=sim.preferences, truth=sim.worths, origin="simulation",
                   description="Simulated: the true order is Item 01, Item 02, … "
                               + ("A share of the raters answered at random; the rater "
                                  "charts can mark them." if careless else
                                  "Every rater is careful; add noise on the Noise page.")
                               + (" Each rater also orders by strengths of their own, "
                                  "which stray from the true ones item by item: the "
                                  "likely ranks hold that spread (where a further rater "
                                  "would place each item), so they are wider than the "
                                  "true order needs." if spread else ""),
                   careless=tuple(int(r) for r in sim.careless), recipe=recipe)


def parse_scenario(recipe: str) -> dict:
    """The settings of ``scenario:<items>,<raters>,<length>,<careless>,<seed>[,<lists>,
    <exposure>[,<spread>]]`` (lists per rater 1, uniform exposure and raters who share one
    order when absent); ``ValueError`` when a setting is malformed or outside
    :data:`SCENARIO_LIMITS`, :data:`EXPOSURE_CHOICES` or :data:`SPREAD_CHOICES`."""
    parts = recipe.split(":", 1)[1].split(",")
    if len(parts) not in (5, 7, 8):
        raise ValueError("a scenario has 5, 7 or 8 settings")
    settings = dict(n_items=int(parts[0]), n_rankers=int(parts[1]), length=int(parts[2]),
                    careless=float(parts[3]), seed=int(parts[4]),
                    lists_per_ranker=int(parts[5]) if len(parts) >= 7 else 1,
                    exposure=float(parts[6]) if len(parts) >= 7 else 0.0,
                    spread=float(parts[7]) if len(parts) == 8 else 0.0)
    inside = all(low <= settings[name] <= high for name, (low, high) in SCENARIO_LIMITS.items())
    if not (inside and 2 <= settings["length"] <= settings["n_items"]
            and settings["exposure"] in EXPOSURE_CHOICES
            and settings["spread"] in SPREAD_CHOICES):
        raise ValueError("scenario settings out of range")
    return settings


#: The Data page's scenario builder: its widgets' keys, one per setting.
SCENARIO_WIDGETS = ("scenario_items", "scenario_raters", "scenario_length",
                    "scenario_careless", "scenario_seed", "scenario_lists", "scenario_exposure",
                    "scenario_spread")


def scenario_widgets(recipe: str) -> dict:
    """The scenario builder's widget values (key to value) that show a ``scenario:``
    recipe."""
    settings = parse_scenario(recipe)
    values = (settings["n_items"], settings["n_rankers"], settings["length"],
              round(100 * settings["careless"]), settings["seed"],
              settings["lists_per_ranker"], settings["exposure"], settings["spread"])
    return dict(zip(SCENARIO_WIDGETS, values))


def scenario_from_recipe(recipe: str) -> Dataset:
    """The dataset a ``scenario:`` recipe names (see :func:`parse_scenario`)."""
    return simulate_scenario(**parse_scenario(recipe))


def teaching_careless(kind: str, seed: int = 0, n_items: int = 20, n_rankers: int = 30,
                      lists_per_ranker: int = 8, length: int = 6, share: float = 0.5
                      ) -> tuple[int, ...]:
    """The raters a teaching scenario made careless (or part of the campaign).

    Replays the random draws of :func:`coarsenrank_core.experiments.teaching_arrays` up to
    its choice of raters; a test checks the replay against the engine's data.
    """
    rng = np.random.default_rng(seed)
    n = n_rankers * lists_per_ranker
    subsets = random_subsets(n_items, np.full(n, length), random_state=rng).reshape(n, length)
    pl_orderings(subsets, np.linspace(1.5, -1.5, n_items), random_state=rng)
    bad = rng.permutation(n_rankers) < round(share * n_rankers)
    return tuple(int(r) for r in np.flatnonzero(bad))


#: The plain sentence shown with each teaching scenario (measured with 5 seeds in
#: ``reports/teaching_scenarios.csv``; the same story as the report's exposure study).
TEACHING = {
    "careless": "Half of the raters answered at random. Models that give every rater a "
                "chance of being careless, PL-mix (raters) and CrowdBT, find the true order "
                "clearly better than plain PL (about 0.94 against 0.90 of item pairs right, "
                "averaged over 5 samples like this one; the one you load may differ by about "
                "0.02); PL-mix, which judges each list on its own, lands in between (about "
                "0.93), and CoarsenPL does no better than plain PL here.",
    "campaign": "Half of the raters push the same wrong order. Their lists are as "
                "consistent as the honest ones, so no method can know which half to "
                "believe: the list-level methods land near 0.70 of item pairs right, and the "
                "rater-reliability methods side with the honest half in some runs and with "
                "the wrong half in others. Nothing helps against a coordinated adversary as "
                "large as the honest raters (a smaller one is largely caught by the "
                "rater-level models).",
}


def teaching_scenario(kind: str, seed: int = 0) -> Dataset:
    """A built-in teaching scenario as a dataset, with its sentence as the description."""
    prefs, truth = teaching_arrays(kind, seed)
    title = {"careless": "Teaching: careless raters",
             "campaign": "Teaching: a coordinated campaign"}[kind]
    return Dataset(name=title, preferences=prefs, truth=truth, origin="simulation",
                   description=TEACHING[kind], careless=teaching_careless(kind, seed),
                   recipe=f"sample:{kind}")
