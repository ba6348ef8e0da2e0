"""Chess games in PGN: one game per block of ``[White "..."]``, ``[Black]``, ``[Result]`` tags."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from .columns import skipped_note

__all__ = ["looks_pgn", "read_pgn", "PGN_EXTENSIONS"]

PGN_EXTENSIONS = (".pgn",)
_TAG = re.compile(r'\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*')
_HEAD = re.compile(r'\A\s*(?:%[^\n]*\n\s*)*\[\w+\s+"[^"\n]*"\s*\]\s*\n(?:\s*\[\w+\s+"[^"\n]*"\s*\]'
                   r'\s*\n)*')
_RESULTS = {"1-0": (False, False), "0-1": (True, False), "1/2-1/2": (False, True),
            "½-½": (False, True), "0.5-0.5": (False, True)}
_UNFINISHED = {"*", "", "?"}


def looks_pgn(text: str) -> bool:
    """Whether ``text`` starts with PGN tag pairs naming the players or the result."""
    head = _HEAD.match(text[:65536])
    return head is not None and bool(re.search(r'\[(White|Black|Result)\s+"', head.group()))


def read_pgn(text: str) -> Preferences:
    """Read each game as one comparison of White and Black: ``1-0``, ``0-1``, ``1/2-1/2``.

    Unfinished games (``*``) and games with an unknown player (``?``) are skipped with a
    note. The tags are read line by line with
    vectorised string operations; the move text is not read.
    """
    lines = pd.Series(text.splitlines(), dtype=object)
    if lines.empty:
        raise PreferenceFormatError("The PGN file holds no games.",
                                    fix="Export the games as PGN with their tags.")
    tags = lines.str.extract(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
    is_tag = tags[0].notna().to_numpy()
    blank = (lines.str.strip() == "").to_numpy()
    # a game starts at a tag line whose previous non-blank line is not a tag (or at the top)
    kind = pd.Series(np.where(blank, np.nan, is_tag.astype(float)))
    previous = kind.shift(1).ffill().fillna(0.0).to_numpy()
    starts = is_tag & (previous == 0.0)
    game = np.cumsum(starts) - 1
    tag_rows = np.flatnonzero(is_tag)
    frame = pd.DataFrame({"game": game[tag_rows], "name": tags[0].to_numpy()[tag_rows],
                          "value": tags[1].to_numpy()[tag_rows], "line": tag_rows + 1})
    frame = frame[frame["name"].isin(("White", "Black", "Result"))]
    frame = frame.drop_duplicates(["game", "name"], keep="first")
    n_games = int(game.max()) + 1 if tag_rows.size else 0
    if not n_games:
        raise PreferenceFormatError("The PGN file holds no games.",
                                    fix="Export the games as PGN with their tags.")
    table = frame.pivot(index="game", columns="name", values="value").reindex(range(n_games))
    first_line = np.asarray(pd.Series(tag_rows + 1).groupby(game[tag_rows]).min()
                            .reindex(range(n_games)).to_numpy(), dtype=np.intp)
    for tag in ("White", "Black", "Result"):
        values = (table[tag] if tag in table else pd.Series([None] * n_games)).astype(object)
        missing = np.flatnonzero(values.isna().to_numpy() | (values.fillna("").str.strip()
                                                            == "").to_numpy()
                                 if tag != "Result" else values.isna().to_numpy())
        if missing.size:
            raise PreferenceFormatError(
                f"This game has no [{tag} \"...\"] tag, so it cannot be read as a comparison.",
                row=int(first_line[missing[0]]),
                fix="Give every game its [White \"...\"], [Black \"...\"] and [Result \"...\"] "
                    "tags (Result 1-0, 0-1 or 1/2-1/2).")
    white = table["White"].str.strip().to_numpy(dtype=object)
    black = table["Black"].str.strip().to_numpy(dtype=object)
    result = table["Result"].str.strip().str.replace(" ", "").to_numpy(dtype=object)
    unfinished = np.isin(result, list(_UNFINISHED))
    known = np.isin(result, list(_RESULTS))
    bad = np.flatnonzero(~known & ~unfinished)
    if bad.size:
        raise PreferenceFormatError(
            f"The result '{result[bad[0]]}' is not a chess result.", row=int(first_line[bad[0]]),
            fix="Write the Result tag as 1-0 (White won), 0-1 (Black won), 1/2-1/2 (a draw) or "
                "* (unfinished).")
    notes = []
    if unfinished.any():
        notes.append(skipped_note(first_line[unfinished], "game", "with no result (*)"))
    # PGN writes '?' for a player whose name is not known: not one player to rank
    unknown = ~unfinished & (_unknown_player(white) | _unknown_player(black))
    if unknown.any():
        notes.append(skipped_note(first_line[unknown], "game",
                                  "with an unknown player ('?')"))
    keep = ~unfinished & ~unknown
    if not keep.any():
        if unknown.any():
            raise PreferenceFormatError(
                "Every game with a result has an unknown player ('?'), so there is nothing "
                "to compare.", row=int(first_line[np.flatnonzero(unknown)[0]]),
                fix="Give the players' names in the [White \"...\"] and [Black \"...\"] tags.")
        raise PreferenceFormatError("No game in the file has a result, so there is nothing to "
                                    "compare.", fix="Give the games their results.")
    black_won = np.isin(result[keep], [r for r, (b, _) in _RESULTS.items() if b])
    drawn = np.isin(result[keep], [r for r, (_, d) in _RESULTS.items() if d])
    from .pairwise import pair_preferences

    return pair_preferences(white[keep], black[keep], black_won, drawn, first_line[keep],
                            notes)


def _unknown_player(names: np.ndarray) -> np.ndarray:
    """Whether each player's name is PGN's mark of an unknown name (``?``, ``??``)."""
    unknown: np.ndarray = pd.Series(names, dtype=object).str.fullmatch(r"\?+").to_numpy(
        dtype=bool)
    return unknown
