"""Reader defects found by probing real export layouts (fifth batch)."""

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import UNEXPECTED as _UNEXPECTED
from coarsenrank_core.io import ReadOptions, read_preferences
from coarsenrank_core.io.streaming import stream_pairwise


def refusal(data: bytes, fmt: str = "auto", **options: object) -> PreferenceFormatError:
    """The PreferenceFormatError for ``data`` (which must not be the safety net's)."""
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data, fmt, options=ReadOptions(**options))  # type: ignore[arg-type]
    assert not info.value.reason.startswith(_UNEXPECTED), info.value
    return info.value


def pairs(prefs) -> list[tuple[str, str]]:
    """Every comparison as (winner, loser), ties as a sorted pair marked '='."""
    out = []
    for lst in prefs.to_lists(names=True):
        if isinstance(lst[0], frozenset):
            out.append(tuple(sorted(lst[0])) + ("=",))
        else:
            out.append((lst[0], lst[1]))
    return out


# ------------------------------------------------------------- match files of two sides
# Kaggle's NBA games.csv: the home and visiting teams' ids, their points, and one 0/1 flag
NBA_GAMES = (
    b"GAME_DATE_EST,GAME_ID,GAME_STATUS_TEXT,HOME_TEAM_ID,VISITOR_TEAM_ID,SEASON,"
    b"PTS_home,FG_PCT_home,AST_home,PTS_away,FG_PCT_away,AST_away,HOME_TEAM_WINS\n"
    b"2022-12-22,22200477,Final,NOP,SAS,2022,126,0.484,25,117,0.478,23,1\n"
    b"2022-12-22,22200478,Final,UTA,WAS,2022,120,0.488,16,112,0.561,20,1\n"
    b"2022-12-21,22200468,Final,SAS,UTA,2022,99,0.400,20,110,0.400,25,0\n"
    b"2022-12-20,22200460,Final,WAS,NOP,2022,101,0.450,21,104,0.470,24,0\n")
NBA_PAIRS = [("NOP", "SAS"), ("UTA", "WAS"), ("UTA", "SAS"), ("NOP", "WAS")]


def test_one_flag_saying_whether_the_home_side_won_is_read():
    prefs = read_preferences(NBA_GAMES)
    assert pairs(prefs) == NBA_PAIRS


def test_one_side_flag_is_read_the_same_in_chunks(tmp_path):
    path = tmp_path / "games.csv"
    path.write_bytes(NBA_GAMES)
    assert sorted(pairs(stream_pairwise(path).preferences)) == sorted(NBA_PAIRS)


def test_each_sides_points_are_read_without_the_flag():
    data = b"\n".join(line.rsplit(b",", 1)[0] for line in NBA_GAMES.splitlines()) + b"\n"
    assert pairs(read_preferences(data)) == NBA_PAIRS


def test_a_visiting_team_and_its_score_are_the_second_side():
    data = (b"date,home_team,visitor_team,home_score,visitor_score\n"
            b"2024-01-01,Bears,Lions,21,14\n2024-01-08,Lions,Packers,10,24\n"
            b"2024-01-15,Packers,Bears,17,17\n")
    assert pairs(read_preferences(data)) == [("Bears", "Lions"), ("Packers", "Lions"),
                                             ("Bears", "Packers", "=")]


def test_a_side_flag_that_is_not_zero_or_one_is_refused_with_its_row():
    data = NBA_GAMES.replace(b"23,1\n", b"23,2\n")
    error = refusal(data)
    assert error.row == 2 and error.column == "HOME_TEAM_WINS"


def test_a_game_log_with_each_teams_points_is_one_ranking_per_game():
    data = (b"SEASON_ID,TEAM_ID,TEAM_NAME,GAME_ID,GAME_DATE,MATCHUP,WL,MIN,PTS,FGM,PLUS_MINUS\n"
            b"22022,1,Pelicans,0022200477,2022-12-22,NOP vs. SAS,W,240,126,44,9\n"
            b"22022,2,Spurs,0022200477,2022-12-22,SAS @ NOP,L,240,117,43,-9\n"
            b"22022,3,Jazz,0022200478,2022-12-22,UTA vs. WAS,W,240,120,41,8\n"
            b"22022,4,Wizards,0022200478,2022-12-22,WAS @ UTA,L,240,112,46,-8\n"
            b"22022,2,Spurs,0022200468,2022-12-21,SAS vs. UTA,L,240,99,40,-11\n"
            b"22022,3,Jazz,0022200468,2022-12-21,UTA @ SAS,W,240,110,45,11\n")
    prefs = read_preferences(data)
    assert sorted(pairs(prefs)) == [("Jazz", "Spurs"), ("Jazz", "Wizards"),
                                    ("Pelicans", "Spurs")]


# --------------------------------------------------------------- ids that are not moments
def test_isbns_are_items_not_unix_times():
    data = (b"User-ID,ISBN,Book-Rating\n276729,052165615X,3\n276729,0521795028,6\n"
            b"276747,0060517794,9\n276747,0451192001,2\n276747,0671537458,9\n"
            b"276748,0060517794,5\n276748,0671537458,7\n")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True)[1] == [frozenset({"0060517794", "0671537458"}),
                                             "0451192001"]


def test_unix_seconds_and_milliseconds_are_still_moments():
    from coarsenrank_core.io.content import metadata_content
    assert metadata_content(["1700000000", "1712345678", "1699999999.5"]) == "dates or times"
    assert metadata_content(["1700000000123", "1712345678000"]) == "dates or times"
    assert metadata_content(["0521795028", "0060517794", "0451192001"]) is None
