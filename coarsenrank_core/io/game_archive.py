"""A chess.com game archive (each side's username and result) as one row a game, white first."""

from __future__ import annotations

import numpy as np

from .columns import normalise, plural
from .tables import Table

#: The result codes chess.com writes for a side that drew.
_DRAWN = frozenset({"agreed", "repetition", "stalemate", "insufficient", "50move",
                    "timevsinsufficient"})
_SIDES = {"white": ("whiteusername", "white", "whiteplayer", "whitename"),
          "black": ("blackusername", "black", "blackplayer", "blackname")}


def game_archive(table: Table) -> tuple[Table, str | None]:
    """The table as ``white, black, result`` (``1-0``, ``0-1``, ``1/2-1/2``; ``*`` where the
    codes say neither) when its columns give each side's player and its own result, as
    chess.com's archive does (``white_username``, ``white_result`` 'win', ``black_result``
    'checkmated', 'resigned', 'timeout', or 'agreed' and 'repetition' for a draw); else as
    given, and None."""
    if len(table) < 2:
        return table, None
    keys = [normalise(str(c)) for c in table.cells[0]]
    found: dict[str, tuple[int, int]] = {}
    for side, titles in _SIDES.items():
        player = next((keys.index(t) for t in titles if t in keys), None)
        said = keys.index(f"{side}result") if f"{side}result" in keys else None
        if player is None or said is None:
            return table, None
        found[side] = (player, said)
    body = table.cells[1:]
    white_said = np.char.lower(np.char.strip(body[:, found["white"][1]].astype(str)))
    black_said = np.char.lower(np.char.strip(body[:, found["black"][1]].astype(str)))
    result = np.where(white_said == "win", "1-0", np.where(
        black_said == "win", "0-1", np.where(np.isin(white_said, list(_DRAWN))
                                             & np.isin(black_said, list(_DRAWN)),
                                             "1/2-1/2", "*")))
    rows = [["white", "black", "result"], *(
        [str(w), str(b), str(r)] for w, b, r in zip(
            body[:, found["white"][0]], body[:, found["black"][0]], result))]
    note = (f"Read a game archive: {plural(len(body), 'game')}, each side's result "
            f"('{table.cells[0][found['white'][1]]}', '{table.cells[0][found['black'][1]]}') "
            "as the game's score from White's side")
    return Table.from_rows(rows, np.asarray(table.lines), table.delimiter), note
