"""Games whose only result is one side's true/false win flag are refused with the fix."""

import csv
import io
import json

import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_preferences
from tests.test_json_rows import NamedUpload

TEAM_IDS = {"Team Spirit": 7119388, "Natus Vincere": 36, "Evil Geniuses": 39}
GAMES = [("Team Spirit", "Natus Vincere", True), ("Natus Vincere", "Evil Geniuses", False),
         ("Evil Geniuses", "Team Spirit", True), ("Team Spirit", "Evil Geniuses", True)]


def pro_matches(first: str, second: str, flag: str, truth=("true", "false"),
                ends=("team_id", "name"), extra=None) -> list[dict]:
    """Matches as OpenDota's /proMatches gives them, its sides and flag renamed."""
    rows = []
    for k, (a, b, won) in enumerate(GAMES):
        row = {"match_id": 7001 + k, "duration": 2000 + k, "start_time": 1700000000 + k,
               "league_name": "The International", "league_team": "none"}
        for side, name in ((first, a), (second, b)):
            row.update({f"{side}_{end}": TEAM_IDS[name] if end.endswith("id") else name
                        for end in ends})
        row.update({"leagueid": 15000, f"{first}_score": 30, f"{second}_score": 20,
                    flag: truth[0] if won else truth[1]})
        row.update(extra(a, b, won) if extra else {})
        rows.append(row)
    return rows


def as_csv(rows: list[dict]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


@pytest.mark.parametrize("kind", ["csv", "json"])
@pytest.mark.parametrize("first, second, flag, truth, ends", [
    ("radiant", "dire", "radiant_win", (True, False), ("team_id", "name")),
    ("blue", "red", "blueWins", (1, 0), ("team",)),
    ("team1", "team2", "team1_won", ("yes", "no"), ("name",)),
], ids=["OpenDota", "LoL 0/1", "yes/no"])
def test_a_one_side_win_flag_is_refused_naming_the_flag_and_both_sides(kind, first, second,
                                                                       flag, truth, ends):
    rows = pro_matches(first, second, flag, truth, ends)
    data = json.dumps(rows).encode() if kind == "json" else as_csv(rows)
    with pytest.raises(PreferenceFormatError, match="a false reads the same whether the "
                                                   "other side won or the game was drawn"
                       ) as found:
        read_preferences(NamedUpload(data, f"matches.{kind}"))
    error = found.value
    assert error.column == flag and error.row == 1
    shown = "name" if "name" in ends else ends[0]
    assert f"the {first}_{shown} where {flag} is true, else the {second}_{shown}" in error.fix


def test_the_fix_it_names_reads_every_game_with_its_winner():
    rows = pro_matches("radiant", "dire", "radiant_win", extra=lambda a, b, won: {
        "winner": a if won else b, "loser": b if won else a})
    prefs = read_preferences(NamedUpload(as_csv(rows), "matches.csv"))
    assert prefs.to_lists(names=True) == [[a, b] if won else [b, a] for a, b, won in GAMES]


@pytest.mark.parametrize("what", ["a winner column", "a draw column", "not true or false",
                                  "one value only"])
def test_a_flag_beside_a_winner_or_not_true_or_false_is_not_this_refusal(what):
    if what == "a winner column":
        extra = lambda a, b, won: {"winner": a if won else b, "loser": b if won else a}  # noqa: E731
        rows = pro_matches("radiant", "dire", "radiant_win", extra=extra)
    elif what == "a draw column":
        rows = pro_matches("radiant", "dire", "radiant_win",
                           extra=lambda a, b, won: {"draw": "false"})
    elif what == "not true or false":
        rows = pro_matches("radiant", "dire", "radiant_win", truth=("2", "0"))
    else:
        rows = [dict(r, radiant_win="true") for r in pro_matches("radiant", "dire",
                                                                 "radiant_win")]
    try:
        read_preferences(NamedUpload(as_csv(rows), "matches.csv"))
    except PreferenceFormatError as error:
        assert "a false reads the same" not in str(error)
