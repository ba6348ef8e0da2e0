"""Rows and sentences of the Consensus page, built from engine results (no Streamlit here)."""

from __future__ import annotations

import math

from coarsenrank_core.heterogeneity import spread_added
from coarsenrank_core.models.consensus import careless_unit, consensus_reason
from coarsenrank_core.uncertainty import (
    INTERVAL_LEVEL,
    MIN_PAIR_OVERLAP,
    equal_score_note,
    first_place_out_of_order,
    order_note,
    unit_noun,
    unmeasured_spread_text,
)

__all__ = ["ranking_rows", "first_place_out_of_order", "order_note", "equal_score_note",
           "interval_text", "heterogeneity_text",
           "spread_text", "posterior_interval_text", "too_few_lists_text", "fit_caption",
           "unmeasurable_text"]


def ranking_rows(scores, names, order, low=None, high=None, first=None,
                 limit: int | None = None, level: float = INTERVAL_LEVEL) -> list[dict]:
    """Table rows, best first: rank, item, likely ranks and chance of being first (when given),
    then strength; the key columns come first so that a phone shows them."""
    rows = []
    shown = order if limit is None else order[:limit]
    for r, i in enumerate(shown):
        row: dict = {"rank": r + 1, "item": names[i]}
        if low is not None and high is not None and first is not None:
            row[f"likely ranks ({level:.0%})"] = (f"{low[i]}–{high[i]}" if low[i] != high[i]
                                                  else f"{low[i]}")
            row["chance of being first"] = float(first[i])
        row["strength"] = float(scores[i])
        rows.append(row)
    return rows


#: the default interval's coverage of the true rank, as measured in
#: reports/default_intervals.csv (28 simulated settings) and default_real_data.csv
SIMULATED_COVERAGE = "88–97 %"
REAL_DATA_COVERAGE = "88–100 %"


def unmeasurable_text(unit: str) -> str:
    """Why a single rater's (or list's) consensus comes without likely ranks."""
    who = unit_noun(unit)
    return (f"These data hold one {who}: how sure each place is is measured by resampling "
            f"the {who}s, and with one there is nothing to resample, so the table shows the "
            "order without likely ranks. Every place is possible as far as one answer can "
            "tell.")


def interval_text(level: float, unit: str, n_units: int, n_draws: int,
                  heterogeneity=None) -> str:
    """What the likely ranks measure, in plain words."""
    who = f"{unit_noun(unit)}s"
    return (f"“Likely ranks” is the run of places that holds the item in about "
            f"{level:.0%} of {n_draws} refits, each on the {n_units:,} {who} resampled at "
            f"random (a bootstrap; more where few {who} answered about the item, as a "
            f"bootstrap of few {who} varies less than their answers do; an item compared too "
            "rarely to place apart from its "
            "neighbours is pulled towards the middle, as league tables are), and always "
            "the place shown beside it. "
            + ("It widens when they disagree about the item. " if spread_added(heterogeneity)
               else "It narrows as more people answer and widens when they disagree about the "
                    "item. ")
            + heterogeneity_text(heterogeneity, unit) + (" " if heterogeneity else "")
            + "In the package's simulations it "
            f"held the true place in {SIMULATED_COVERAGE} of cases (fewer when there are many "
            "items and few answers about each); on the paper's real data, whose truth is an "
            f"expert's grade, in {REAL_DATA_COVERAGE}.")


def heterogeneity_text(heterogeneity, unit: str) -> str:
    """Whether the likely ranks also hold how much the raters differ item by item, from a
    :class:`~coarsenrank_core.heterogeneity.RankerHeterogeneity` (``None``: not measured)."""
    who = f"{unit_noun(unit)}s"
    if heterogeneity is None:
        return ""
    if not heterogeneity.measurable:
        text = unmeasured_spread_text(unit, heterogeneity, "the range shows")
        return f"{text[0].upper()}{text[1:]}."
    if heterogeneity.variance > 0:
        # one standard deviation on the log scale, as the factor a strength is multiplied by
        factor = math.exp(heterogeneity.sd)
        return (f"The {who} also differ item by item more than chance explains (a typical "
                f"{unit_noun(unit)} puts an item's strength about {factor:.1f} times higher or "
                "lower than the consensus does, measured from the lists each "
                f"{unit_noun(unit)} gave), and the range and the chance of being first hold "
                f"that too: they are where a further {unit_noun(unit)} like these would place "
                "the item, so the range stays wide where people genuinely differ, however "
                "many answer.")
    return (f"The {who} show no clear sign of differing item by item beyond chance (measured "
            f"from the lists each {unit_noun(unit)} gave; with few such lists a real "
            "difference can go unseen), so the range shows how sure their consensus is.")


def spread_text(spread) -> str:
    """What the likely ranks of a :class:`~coarsenrank_core.uncertainty.BootstrapResult`
    measure: the bootstrap's (:func:`interval_text`), or the posterior's that replaced it."""
    if spread.source == "bootstrap":
        return interval_text(spread.interval_level, spread.unit, spread.n_units,
                             spread.n_draws, spread.heterogeneity)
    return posterior_interval_text(spread.interval_level, spread.unit, spread.overlap,
                                   spread.n_draws, spread.heterogeneity)


def posterior_interval_text(level: float, unit: str, overlap: float, n_draws: int,
                            heterogeneity=None) -> str:
    """Why, and how, the likely ranks come from the model's posterior (too little overlap
    between the raters, or no disagreement, for resampling them)."""
    who = f"{unit_noun(unit)}s"
    why = (f"on average {overlap:.1f} {who} compared each pair of items, and a pair only one "
           "of them compared keeps its order in every resample"
           if overlap < MIN_PAIR_OVERLAP else
           f"the {who} never disagree about any pair, so every resample gives the same order")
    return (f"“Likely ranks” is the central run of places that holds the item in {level:.0%} "
            f"of {n_draws} draws of the Plackett–Luce model's posterior, and always the place "
            "shown beside it. Resampling the "
            f"{who}, which measures how sure the consensus is on larger data, cannot here: "
            f"{why}. These ranges take the model's word for how people answer"
            + (". " if spread_added(heterogeneity) else "; they narrow as more people answer. ")
            + heterogeneity_text(heterogeneity, unit)).strip()


def too_few_lists_text(prefs) -> str | None:
    """Why no rater can be flagged as a whole, or ``None`` when raters give several lists."""
    if careless_unit(prefs) == "ranker":
        return None
    if not prefs.has_rankers:
        return ("These data name no raters, so careless answers can only be judged list by "
                "list; no rater can be flagged as a whole.")
    return ("Every rater gave one list. One short list says little about whether the rater "
            "was careless (a careful rater who disagrees once looks the same), so the model "
            "can flag few raters or none here. With several lists per rater (the scenario "
            "builder's “lists per rater”) careless raters stand out.")


def fit_caption(prefs, fit) -> str:
    """Which fit gives the default order (``fit``, the default method's result), and why."""
    return (f"The order is the package's default fit, chosen by measured evidence: "
            f"{consensus_reason(prefs, fit.extra)} The command line's `rank` gives "
            "the same fit.")
