"""Condorcet Election Format (``.cvotes``): ``#/`` parameters, then ``A > B = C ^2 * 3`` lines."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import MAX_WEIGHT, Preferences
from .assembly import assemble, dense_places, factorize, first_repeat
from .columns import skipped_note
from .tables import GRID_WASTE, MAX_GRID_CELLS

__all__ = ["looks_condorcet", "read_condorcet", "CONDORCET_EXTENSIONS", "cell_counts",
           "refuse_counts_in_names"]

CONDORCET_EXTENSIONS = (".cvotes",)
_PARAMETER = re.compile(r"^#/\s*(candidates|number of seats?|implicit ranking|weight allowed)"
                        r"\s*:", re.IGNORECASE | re.MULTILINE)
# a count written after a ranking: `` * 3`` (how many voters), `` ^2`` (a weight)
_COUNTS = r"(?:\s*\^\s*(?P<weight>\d+))?(?:\s*\*\s*(?P<quantity>\d+))?\s*$"


def looks_condorcet(text: str) -> bool:
    """Whether ``text`` starts with Condorcet ``#/Candidates:``-style parameter lines."""
    head = text[:65536].lstrip("\ufeff")
    first = next((line for line in head.splitlines() if line.strip()), "")
    return first.startswith("#") and _PARAMETER.search(head) is not None


def cell_counts(cells: pd.Series) -> tuple[pd.Series, np.ndarray | None]:
    """Rankings with trailing counts removed, and each row's count (None when none is written).

    ``A > B * 3`` is three voters; ``A > B ^2`` a weight of 2; ``^2 * 3`` both (6).
    """
    text = cells.fillna("").astype(str)
    found, stripped = _trailing_counts(text)
    written = found["weight"].notna() | found["quantity"].notna()
    if not written.any():
        return cells, None
    weight = pd.to_numeric(found["weight"], errors="coerce").fillna(1.0).to_numpy()
    quantity = pd.to_numeric(found["quantity"], errors="coerce").fillna(1.0).to_numpy()
    return stripped, weight * quantity


_COUNTS_TAIL = 64


def _trailing_counts(text: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    """The counts written at each line's end (``^2 * 3``) and the lines without them,
    looked for in the last characters only: searched through a whole line, a long run of
    spaces would take time in the square of its length."""
    text = text.str.rstrip()
    tail = text.str[-_COUNTS_TAIL:]
    found = tail.str.extract(_COUNTS)
    return found, text.str[:-_COUNTS_TAIL] + tail.str.replace(_COUNTS, "", regex=True)


#: A name's last characters ending with a repeat count: looked for in a name's end only.
_COUNT_IN_NAME = re.compile(r".*\S\s*(?P<mark>[*^]\s*\d+)\s*")


def refuse_counts_in_names(item_names: Sequence[str], lines: np.ndarray | Sequence[int],
                           column: str | None = None) -> None:
    """Refuse items whose names end with a repeat count (``B * 3``, ``B ^3``)."""
    names = pd.Series(list(item_names), dtype=object)
    ends = names.astype(str).str.rstrip().str[-_COUNTS_TAIL:]
    hits = names[ends.str.fullmatch(_COUNT_IN_NAME.pattern).fillna(False)]
    if hits.empty:
        return
    name = str(hits.iloc[0])
    mark = _COUNT_IN_NAME.fullmatch(name.rstrip()[-_COUNTS_TAIL:])["mark"]  # type: ignore[index]
    raise PreferenceFormatError(
        f"The item '{name}' ends with '{mark}', a repeat count (the Condorcet notation "
        "'* n' for n voters, '^n' for a weight), which cannot be part of an item's name here.",
        row=int(lines[0]) if len(lines) else None, column=column,
        fix="Write each whole ranking in one cell ('A > B * 3'), or put the count in its own "
            "column titled 'count'.")


def read_condorcet(text: str) -> Preferences:
    """Read a Condorcet Election Format file.

    ``#`` starts a comment, ``tags ||`` before a ranking are dropped, ``>`` separates ranks
    and ``=`` ties; ``^w`` is a weight (used when ``#/Weight Allowed: true``) and ``* n``
    the number of such votes. Candidates outside ``#/Candidates`` are ignored; with
    ``#/Implicit Ranking: true`` (the format's default) the candidates a vote leaves out
    are tied after its last rank. ``/EMPTY/`` votes are skipped.
    """
    lines = pd.Series(text.lstrip("\ufeff").splitlines(), dtype=object)
    numbers = np.arange(1, len(lines) + 1)
    # one pass a line, the parts stripped after: no backtracking over a run of spaces
    parameters = lines.str.extract(r"^#/([^:]*):(.*)$").dropna().apply(
        lambda column: column.str.strip())
    parameters = parameters[parameters[0] != ""]
    settings = {str(k).lower().replace(" ", ""): str(v)
                for k, v in zip(parameters[0], parameters[1])}
    candidates = [c.strip() for c in settings.get("candidates", "").split(";") if c.strip()]
    implicit = settings.get("implicitranking", "true").lower() != "false"
    weighted = settings.get("weightallowed", "false").lower() == "true"
    votes = lines.str.replace(r"#.*$", "", regex=True).str.strip()
    keep = (votes != "").to_numpy()
    votes, numbers = votes[keep].reset_index(drop=True), numbers[keep]
    votes = votes.str.split("||", regex=False).str[-1].str.strip()
    found, votes = _trailing_counts(votes)
    weight = pd.to_numeric(found["weight"], errors="coerce").fillna(1.0).to_numpy()
    quantity = pd.to_numeric(found["quantity"], errors="coerce").fillna(1.0).to_numpy()
    votes = votes.str.strip()
    counts = quantity * (weight if weighted else 1.0)
    empty = (votes.str.upper() == "/EMPTY/").to_numpy() | (counts <= 0)
    notes = []
    if empty.any():
        notes.append(skipped_note(numbers[empty], "vote", "that rank no one (/EMPTY/ or * 0)"))
    votes, numbers, counts = votes[~empty].reset_index(drop=True), numbers[~empty], counts[~empty]
    if not len(votes):
        raise PreferenceFormatError("The Condorcet file holds no votes.",
                                    fix="Write one vote a line, e.g. 'A > B = C * 2'.")
    if (counts > MAX_WEIGHT).any():
        i = int(np.flatnonzero(counts > MAX_WEIGHT)[0])
        raise PreferenceFormatError(f"The count {counts[i]:g} is too large.", row=int(numbers[i]),
                                    fix=f"Use counts of at most {MAX_WEIGHT:g}.")
    ranks = votes.str.split(">", regex=False).explode()
    rank_in_vote = ranks.groupby(level=0).cumcount().to_numpy()
    members = ranks.str.split("=", regex=False)
    sizes = members.str.len().to_numpy()
    members = members.explode().str.strip()
    vote = members.index.to_numpy()
    group = np.repeat(rank_in_vote, sizes)
    names = members.to_numpy(dtype=object)
    filled = names != ""
    if candidates:
        known = np.isin(names, candidates)
        outside = filled & ~known
        if outside.any():
            notes.append(f"Ignored {int(outside.sum())} mention(s) of candidates not in "
                         f"#/Candidates, e.g. '{names[outside][0]}'")
        filled &= known
    vote, group, names = vote[filled], group[filled], names[filled]
    order_names = candidates + sorted(set(names) - set(candidates))
    item, item_names = factorize(np.concatenate([np.asarray(order_names, dtype=object),
                                                 names]))
    item = item[len(order_names):]
    repeat = first_repeat(vote.astype(np.int64) * max(len(item_names), 1) + item)
    if repeat is not None:
        raise PreferenceFormatError(
            f"The candidate '{item_names[item[repeat[1]]]}' is ranked twice in this vote.",
            row=int(numbers[vote[repeat[1]]]),
            fix="Each candidate may appear once per vote; tie candidates with '='.")
    group = dense_places(vote, group)  # an emptied rank leaves no gap
    n_votes = len(votes)
    if implicit and candidates:
        filled = n_votes * len(candidates)
        if filled > MAX_GRID_CELLS and filled > GRID_WASTE * vote.size:
            raise PreferenceFormatError(
                f"With implicit ranking (the format's default) each vote's missing candidates "
                f"are tied after its last rank: {n_votes:,} votes of {len(candidates):,} "
                f"candidates would make {filled:,} entries, more than the "
                f"{MAX_GRID_CELLS:,} that can be read, though the votes name "
                f"{vote.size:,}.", row=1,
                fix="Add the line '#/Implicit Ranking: false' so that a vote ranks only the "
                    "candidates it names, or load fewer votes at a time.")
        before = vote.size
        vote, group, item = _implicit_last(vote, group, item, n_votes, len(candidates))
        if vote.size > before:
            notes.append("Implicit ranking (the format's default): the candidates a vote "
                         "leaves out are tied after its last rank")
    return assemble(vote.astype(np.intp), group.astype(np.intp), item.astype(np.intp), n_votes,
                    item_names, numbers.astype(np.intp), weights=counts.astype(float),
                    notes=notes, unit="vote")


def _implicit_last(vote: np.ndarray, group: np.ndarray, item: np.ndarray, n_votes: int,
                   n_candidates: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Append each vote's missing declared candidates as one tied last rank."""
    present = np.zeros((n_votes, n_candidates), dtype=bool)
    declared = item < n_candidates
    present[vote[declared], item[declared]] = True
    missing_vote, missing_item = np.nonzero(~present)
    last = np.full(n_votes, -1, dtype=np.int64)
    np.maximum.at(last, vote, group)
    vote = np.concatenate([vote, missing_vote])
    group = np.concatenate([group, last[missing_vote] + 1])
    item = np.concatenate([item, missing_item])
    order = np.lexsort((item, group, vote))
    return vote[order], group[order], item[order]
