"""A Dominion cast vote record (one column per candidate and rank, marks 1 or 0) as ballots."""

from __future__ import annotations

import re

import numpy as np

from ..errors import PreferenceFormatError
from .columns import plural, quote_list
from .tables import Table

#: A candidate's column in a ranked-choice contest: the name and the rank, ``Alice Adams(2)``.
_CANDIDATE_RANK = re.compile(r"(?P<name>.*\S)\s*\((?P<rank>\d{1,2})\)")
#: The title of the ballots' own column in Dominion's export.
_BALLOT_TITLE = "cvrnumber"
_HEAD_ROWS = 8


def dominion_ballots(table: Table) -> tuple[Table, str | None]:
    """The table as one row a ballot's mark (``CvrNumber, Contest, Candidate, Rank``) when it
    is a Dominion cast vote record of a ranked-choice contest, with a note; else as given,
    and None.

    Dominion's ``CVR_Export`` writes the election's name, then a row of contests over the
    candidates' columns, a row of candidates each with a rank (``Alice Adams(2)``), and the
    column titles (``CvrNumber``, ``TabulatorNum`` ...); each ballot's row marks 1 under
    the candidate at each rank it gave. Two marks at one rank (an overvote) tie those
    candidates there; a candidate marked at several ranks keeps the best. Contests without
    ranks (vote for one) are left out, and the note says so.

    Raises
    ------
    PreferenceFormatError
        Where no contest has ranks or several have, or a mark is neither 1, 0 nor blank.
    """
    head = min(_HEAD_ROWS, len(table))
    titles = next((i for i in range(2, head) if any(
        str(c).strip().lower() == _BALLOT_TITLE for c in table.cells[i])), None)
    if titles is None:
        return table, None
    contests, candidates = table.cells[titles - 2], table.cells[titles - 1]
    body = table.cells[titles + 1:]
    lines = table.lines[titles + 1:]
    # a candidate's column: a contest above its name, and marks below (1, 0 or blank)
    marked = [j for j in range(table.width) if str(candidates[j]).strip()
              and str(contests[j]).strip() and np.isin(
                  np.char.strip(body[:, j].astype(str)), ["0", "1", ""]).all()]
    if not marked:
        return table, None  # a 'CvrNumber' under title rows: another table of ballots
    for j in range(table.width):  # a candidate's column at a rank holding something else
        if j in marked or not str(contests[j]).strip() or not _CANDIDATE_RANK.fullmatch(
                str(candidates[j]).strip()):
            continue
        cells = np.char.strip(body[:, j].astype(str))
        bad = np.flatnonzero(~np.isin(cells, ["0", "1", ""]))
        raise PreferenceFormatError(
            f"This Dominion cast vote record's mark is {cells[bad[0]]!r}, not 1, 0 or "
            "blank.", row=int(lines[bad[0]]), column=str(candidates[j]).strip(),
            fix="Export the cast vote record again without changing its marks.")
    ranked = [j for j in marked if _CANDIDATE_RANK.fullmatch(str(candidates[j]).strip())]
    ballot = next(j for j in range(table.width)
                  if str(table.cells[titles, j]).strip().lower() == _BALLOT_TITLE)
    unranked = list(dict.fromkeys(str(contests[j]).strip() for j in marked if j not in ranked))
    if not ranked:
        raise PreferenceFormatError(
            f"This is a Dominion cast vote record, but none of its contests "
            f"({quote_list(unranked, 3)}) has ranks: each ballot marks its choice, not an "
            "order.", row=int(table.lines[titles - 1]),
            fix="Export the cast vote record of a ranked-choice contest (its candidates' "
                "columns read 'Name(1)', 'Name(2)' ...).")
    several = list(dict.fromkeys(str(contests[j]).strip() for j in ranked))
    if len(several) > 1:
        raise PreferenceFormatError(
            f"This Dominion cast vote record holds {len(several)} ranked-choice contests "
            f"({quote_list(several, 3)}): their candidates are different items, and one "
            "ranking per ballot would mix them.", row=int(table.lines[titles - 2]),
            fix="Export one contest's cast vote record, or delete the other contests' columns "
                "(keep the four rows at the top), then load the file again.")
    rows: list[list[str]] = [["CvrNumber", "Contest", "Candidate", "Rank"]]
    row_lines = [int(table.lines[titles])]
    repeated = 0
    best: dict[tuple[str, str, str], tuple[int, int]] = {}
    for j in ranked:
        found = _CANDIDATE_RANK.fullmatch(str(candidates[j]).strip())
        assert found is not None
        name, rank, contest = found["name"], int(found["rank"]), str(contests[j]).strip()
        for i in np.flatnonzero(np.char.strip(body[:, j].astype(str)) == "1"):
            key = (str(body[i, ballot]).strip(), contest, name)
            if key in best:
                repeated += 1
                if rank >= best[key][0]:
                    continue
            best[key] = (rank, int(lines[i]))
    for (number, contest, name), (rank, line) in sorted(
            best.items(), key=lambda kv: (kv[1][1], kv[0][1], kv[1][0])):
        rows.append([number, contest, name, str(rank)])
        row_lines.append(line)
    note = (f"Read a Dominion cast vote record: {plural(len(body), 'ballot')}, the marks "
            f"under {plural(len(ranked), 'candidate and rank column')} as each ballot's "
            "ranking (two marks at one rank tie those candidates)")
    if repeated:
        note += (f"; {plural(repeated, 'mark')} of a candidate already ranked higher on the "
                 "same ballot left out")
    if unranked:
        note += f"; left out the contests without ranks ({quote_list(unranked, 3)})"
    return Table.from_rows(rows, np.asarray(row_lines), table.delimiter), note
