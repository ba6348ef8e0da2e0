"""A chess crosstable (a row a player, a column a round: ``4w1``) turned into one row a game."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from .columns import normalise, plural, quote_list
from .tables import Table

#: A round's cell: the opponent's number, the colour played (``w``; ``b``, or German ``s``)
#: and the result from this player's side (``1``, ``0``, ``½``, ``+``/``-`` a forfeit).
_GAME = re.compile(r"\s*(?P<opponent>\d{1,4})\s*(?P<colour>[wbs])\s*"
                   r"(?P<result>1/2|0\.5|0,5|½|=|1|0|\+|-|–)\s*", re.IGNORECASE)
#: A round without a game: a bye or a point given (``-1``, ``-0``, ``+``, ``bye``), or blank.
_NO_GAME = re.compile(r"\s*(?:[-–]\s*(?:1/2|½|[01+])?|\+|bye|\*|)\s*", re.IGNORECASE)
#: A round's title: ``1.Rd``, ``Rd 1``, ``Round 1``, ``R1``, ``Rnd.1``, or its number alone.
_ROUND_TITLE = re.compile(r"\s*(?:(?:\d+\s*\.?\s*)?(?:rd|rnd|round|runde|ronde|r)\.?\s*\d*|\d+)\s*",
                          re.IGNORECASE)
_SCORES = {"1": 1.0, "0": 0.0, "½": 0.5, "1/2": 0.5, "0.5": 0.5, "0,5": 0.5, "=": 0.5}
_FORFEITS = {"+": "+", "-": "-", "–": "-"}
_OPPOSITE = {"w": "b", "b": "w"}
_NAME_TITLES = frozenset({"name", "player", "playername", "spieler", "joueur", "jugador",
                          "nombre", "teilnehmer", "participant"})


def _parsed(cell: str) -> tuple[int, str, str] | None:
    """(opponent, colour 'w' or 'b', result '1', '0', '½', '+' or '-') of a game cell."""
    found = _GAME.fullmatch(cell)
    if found is None:
        return None
    colour = found["colour"].lower()
    colour = "b" if colour == "s" else colour
    result = found["result"]
    result = _FORFEITS.get(result) or {1.0: "1", 0.0: "0", 0.5: "½"}[_SCORES[result]]
    return int(found["opponent"]), colour, result


def _round_columns(table: Table) -> list[int]:
    """Columns whose filled cells are games and byes, at least half of them games."""
    rounds = []
    for j in range(table.width):
        cells = [str(c) for c in table.column(j, 1) if str(c).strip()]
        games = sum(_GAME.fullmatch(c) is not None for c in cells)
        if cells and games * 2 >= len(cells) and games >= 2 and all(
                _GAME.fullmatch(c) or _NO_GAME.fullmatch(c) for c in cells):
            rounds.append(j)
    return rounds


def _numberings(table: Table, rounds: list[int]) -> list[tuple[str, dict[int, int]]]:
    """Each way the rows may be numbered: a column of distinct whole numbers (``Rk.``,
    ``SNo``), then the rows' order; as (its title, number → row)."""
    n = len(table) - 1
    found = []
    for j in range(table.width):
        if j in rounds:
            continue
        cells = [str(c).strip().rstrip(".") for c in table.column(j, 1)]
        if all(c.isdigit() for c in cells) and len(set(cells)) == n:
            found.append((table.cells[0, j] or str(j + 1),
                          {int(c): i for i, c in enumerate(cells)}))
    found.append(("the order of the rows", {i + 1: i for i in range(n)}))
    return found


def _reciprocal(games: dict[tuple[int, int], tuple[int, str, str]], number: dict[int, int]
                ) -> bool:
    """Whether every game's opponent, under ``number``, played this player back in the same
    round with the other colour and the other result."""
    own = {row: k for k, row in number.items()}
    for (row, j), (opponent, colour, result) in games.items():
        other = games.get((number.get(opponent, -1), j))
        back = {"1": "0", "0": "1", "½": "½", "+": "-", "-": "+"}[result]
        if other is None or other != (own[row], _OPPOSITE[colour], back):
            return False
    return True


def crosstable_games(table: Table) -> tuple[Table, str | None]:
    """The table as one row a game (``white, black, result``) when it is a crosstable, with a
    note saying so; else the table as given, and None. Rows above the column titles over
    the first game (a tournament's name) are left out.

    A crosstable has a row a player and a column a round whose cells name the opponent by
    number, the colour and the result (``4w1``, ``12b½``, ``3s0``). The numbers are read
    under whichever numbering makes every game point back from the opponent's row (the
    final rank or the starting number). Forfeits (``+``/``-``) and byes are no games: they
    are skipped, and the note counts them.

    Raises
    ------
    PreferenceFormatError
        Where no numbering makes the games point back (a crosstable cut short, or a number
        mistyped): the first such cell is named.
    """
    if len(table) < 3:
        return table, None
    if not any(_GAME.fullmatch(str(c)) for c in table.cells[:64].ravel()):
        return table, None  # a crosstable's games start within its first rows
    codes, uniques = table.factorized  # each distinct cell matched once
    games_among = pd.Series(uniques, dtype=object).astype(str).str.fullmatch(
        _GAME.pattern, case=False).to_numpy(dtype=bool)
    if games_among.sum() < 2:
        return table, None
    found = games_among[codes]
    rows_with_games = np.flatnonzero(found.any(axis=1))
    if rows_with_games.size < 2 or rows_with_games[0] < 1:
        return table, None
    top = int(rows_with_games[0]) - 1  # the column titles just above the first game
    whole, table = table, Table(table.cells[top:], table.lines[top:], table.delimiter)
    rounds = _round_columns(table)
    if len(rounds) < 2:
        return whole, None
    header = [str(c).strip() for c in table.cells[0]]
    names = [j for j, t in enumerate(header) if normalise(t) in _NAME_TITLES]
    if len(names) != 1:
        return whole, None
    name = names[0]
    games = {(i, j): parsed for i in range(len(table) - 1) for j in rounds
             if (parsed := _parsed(str(table.cells[i + 1, j]))) is not None}
    numbering = next((n for n in _numberings(table, rounds) if _reciprocal(games, n[1])), None)
    if numbering is None and not all(_ROUND_TITLE.fullmatch(header[j]) for j in rounds):
        return whole, None  # cells like '3b1' under other titles (seats, codes): no games
    if numbering is None:
        (i, j), (opponent, _, _) = next(iter(games.items()))
        tried = quote_list([t for t, _ in _numberings(table, rounds)], 3)
        raise PreferenceFormatError(
            f"This looks like a crosstable (a row a player, rounds such as '{header[j]}' "
            "holding the opponent's number, the colour and the result), but its games do not "
            f"point back: under none of the numberings {tried} did each opponent play the "
            "same round back, with the other colour and result.",
            row=int(table.lines[i + 1]), column=header[j] or str(j + 1),
            fix="Load the whole crosstable as exported (every player's row), or one row a "
                "game with columns 'white', 'black' and 'result'.")
    number = numbering[1]
    rows, lines, forfeits = [["white", "black", "result"]], [int(table.lines[0])], 0
    players = [str(c).strip() for c in table.column(name, 1)]
    played: set[int] = set()
    for (i, _), (opponent, colour, result) in sorted(games.items(),
                                                     key=lambda g: (g[0][1], g[0][0])):
        if colour != "w":
            continue
        if result in "+-":
            forfeits += 1
            continue
        score = {"1": "1-0", "0": "0-1", "½": "1/2-1/2"}[result]
        rows.append([players[i], players[number[opponent]], score])
        lines.append(int(table.lines[i + 1]))
        played |= {i, number[opponent]}
    byes = sum(1 for i in range(len(table) - 1) for j in rounds
               if (i, j) not in games and str(table.cells[i + 1, j]).strip())
    idle = len(players) - len(played)
    skipped = [plural(forfeits, "game") + " won by forfeit"] * bool(forfeits) + [
        plural(byes, "bye")] * bool(byes) + [
        f"{plural(idle, 'player')} with no game played ("
        f"{quote_list([p for i, p in enumerate(players) if i not in played], 3)})"] * bool(idle)
    note = (f"Read a crosstable: {plural(len(rows) - 1, 'game')} from the rounds "
            f"{quote_list([header[j] for j in rounds], 3)}, opponents by "
            f"{numbering[0] if numbering[0].startswith('the ') else repr(numbering[0])}"
            + (f"; skipped {', '.join(skipped[:-1])}{' and ' * (len(skipped) > 1)}"
               f"{skipped[-1]}" if skipped else ""))
    return Table.from_rows(rows, np.asarray(lines), table.delimiter), note
