"""The command line on the data researchers bring: large, lopsided or oddly shaped files."""

import csv
import io
import re

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.cli import main
from coarsenrank_core.connectivity import one_way_items_text


def write_pairs(path, pairs, header="left,right,winner"):
    path.write_text(header + "\n" + "".join(",".join(map(str, p)) + "\n" for p in pairs))
    return path


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def listed_after(text: str, label: str) -> set[str]:
    names = re.search(re.escape(label) + r": ([^.]*)\.", text).group(1)
    return set(names.split(", "))


def test_rank_names_an_item_that_always_wins_and_one_that_always_loses(tmp_path, capsys):
    rng = np.random.default_rng(0)
    items = ["x1", "x2", "x3", "champ", "dud"]
    pairs = []
    for _ in range(60):
        a, b = rng.choice(items, 2, replace=False)
        if "champ" in (a, b):
            winner = "champ"
        elif "dud" in (a, b):
            winner = b if a == "dud" else a
        else:
            winner = a if rng.random() < 0.5 else b
        pairs.append((a, b, winner))
    assert main(["rank", str(write_pairs(tmp_path / "champ.csv", pairs))]) == 0
    err = capsys.readouterr().err
    assert listed_after(err, "Never beaten by the rest") == {"champ"}
    assert listed_after(err, "Never beat the rest") == {"dud"}


def test_rank_gives_no_one_way_warning_when_every_item_won_and_lost(tmp_path, capsys):
    pairs = [("a", "b", "a"), ("b", "c", "b"), ("c", "a", "c")]
    assert main(["rank", str(write_pairs(tmp_path / "cycle.csv", pairs))]) == 0
    assert "Never beaten" not in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(30))
def test_one_way_items_match_brute_force_reachability(seed):
    rng = np.random.default_rng(seed)
    n_items = 6
    winners = rng.integers(0, n_items, 7)
    losers = (winners + rng.integers(1, n_items, 7)) % n_items
    prefs = Preferences.from_pairs(winners, losers, n_items=n_items)
    above = np.zeros((n_items, n_items), dtype=bool)  # above[i, j]: j was ranked above i
    above[losers, winners] = True
    reach = above.copy()
    for k in range(n_items):  # Warshall: j is above i through a chain of answers
        reach |= reach[:, [k]] & reach[[k], :]
    same = (reach & reach.T) | np.eye(n_items, dtype=bool)
    beaten_by_rest = (reach & ~same).any(axis=1)   # some item outside its group above it
    beat_rest = (reach.T & ~same).any(axis=1)      # it is above some item outside its group
    expected_top = {str(i) for i in np.flatnonzero(beat_rest & ~beaten_by_rest)}
    expected_bottom = {str(i) for i in np.flatnonzero(beaten_by_rest & ~beat_rest)}
    text = one_way_items_text(prefs, names_shown=n_items)
    if not expected_top and not expected_bottom:
        assert text is None
    else:
        assert listed_after(text, "Never beaten by the rest") == expected_top
        assert listed_after(text, "Never beat the rest") == expected_bottom


def test_posterior_accepts_a_count_at_the_largest_accepted_weight(tmp_path, capsys):
    path = tmp_path / "huge.csv"
    path.write_text("winner,loser,count\nA,B,1000000000000\nB,A,1\nB,C,5\nC,B,2\n"
                    "A,C,3\nC,A,1\n")
    assert main(["rank", str(path), "--posterior", "--replicates", "20"]) == 0
    table = rows(capsys.readouterr().out)
    assert sorted(r["item"] for r in table) == ["A", "B", "C"]
    assert all(int(r["rank_low"]) <= int(r["rank"]) <= int(r["rank_high"]) for r in table)
    assert sum(float(r["p_first"]) for r in table) == pytest.approx(1)


def test_stream_accepts_counts_that_sum_above_the_largest_weight_as_rank_does(tmp_path,
                                                                               capsys):
    path = tmp_path / "summed.csv"
    path.write_text("winner,loser,count\nA,B,1000000000000\nA,B,1000000000000\nB,A,1\n"
                    "B,C,5\nC,B,2\nA,C,3\nC,A,1\n")
    assert main(["rank", str(path), "--method", "pl"]) == 0
    whole = rows(capsys.readouterr().out)
    assert main(["rank", str(path), "--method", "pl", "--stream"]) == 0
    streamed = rows(capsys.readouterr().out)
    assert [r["item"] for r in streamed] == [r["item"] for r in whole]
    np.testing.assert_allclose([float(r["score"]) for r in streamed],
                               [float(r["score"]) for r in whole], rtol=1e-6)


def test_equal_scores_note_stays_short_for_a_large_group_of_equal_items(tmp_path, capsys):
    n = 300
    path = tmp_path / "disjoint.csv"
    path.write_text("winner,loser\n" + "".join(f"w{i},l{i}\n" for i in range(n)))
    assert main(["rank", str(path), "--method", "pl"]) == 0
    out, err = capsys.readouterr()
    assert len(rows(out)) == 2 * n
    note = next(line for line in err.splitlines() if line.startswith("note: Equal scores"))
    assert len(note) < 1000
    assert f"and {n - 10:,} more (ranks 1–{n})" in note
    assert f"(ranks {n + 1}–{2 * n})" in note


@pytest.mark.parametrize("stream", [False, True])
def test_an_item_seen_only_against_itself_is_left_out_not_ranked_last(tmp_path, capsys,
                                                                        stream):
    path = tmp_path / "self.csv"
    path.write_text("winner,loser\nA,A\nB,C\nA,A\nC,B\nB,C\n")
    assert main(["rank", str(path), "--method", "pl"] + ["--stream"] * stream) == 0
    out, err = capsys.readouterr()
    assert [r["item"] for r in rows(out)] == ["B", "C"]
    assert "Left out 1 name found only in those rows, never beside another item: 'A'" in err


@pytest.mark.parametrize("stream", [False, True])
def test_a_zero_count_is_refused_with_a_fix_that_does_not_count_the_row(tmp_path, capsys,
                                                                         stream):
    path = tmp_path / "zeros.csv"
    path.write_text("winner,loser,count\nA,B,2\nB,A,0\nB,C,1\n")
    assert main(["rank", str(path)] + ["--stream"] * stream) == 2
    err = capsys.readouterr().err
    assert "Row 3, column 'count'" in err and "delete the rows with 0" in err
    assert "leave the cell blank" not in err  # a blank count means 1, not 0


def test_long_grades_with_zero_and_halves_read_with_one_is_worst(tmp_path, capsys):
    path = tmp_path / "grades.csv"
    path.write_text("grader,essay,grade\ng1,E1,0\ng1,E2,7.5\ng1,E3,10\ng2,E1,3\ng2,E2,0\n"
                    "g2,E3,9\ng3,E1,8\ng3,E2,2.5\ng3,E3,-1\n")
    args = ["rank", str(path), "--one-is-worst", "--format", "long", "--items", "essay",
            "grade", "--ranker", "grader", "--method", "pl"]
    assert main(args) == 0
    graded = rows(capsys.readouterr().out)
    ordered = tmp_path / "ordered.csv"  # the same orders, best first, as whole ranks
    ordered.write_text("grader,essay,rank\ng1,E3,1\ng1,E2,2\ng1,E1,3\ng2,E3,1\ng2,E1,2\n"
                       "g2,E2,3\ng3,E1,1\ng3,E2,2\ng3,E3,3\n")
    assert main(["rank", str(ordered), "--format", "long", "--items", "essay", "rank",
                 "--ranker", "grader", "--method", "pl"]) == 0
    ranked = rows(capsys.readouterr().out)
    assert [r["item"] for r in graded] == [r["item"] for r in ranked]
    np.testing.assert_allclose([float(r["score"]) for r in graded],
                               [float(r["score"]) for r in ranked])


def test_one_is_worst_still_refuses_a_grade_that_is_no_number(tmp_path, capsys):
    path = tmp_path / "grades.csv"
    path.write_text("grader,essay,grade\ng1,E1,0\ng1,E2,good\ng2,E1,3\ng2,E2,1\n")
    assert main(["rank", str(path), "--one-is-worst", "--format", "long", "--items", "essay",
                 "grade", "--ranker", "grader"]) == 2
    err = capsys.readouterr().err
    assert "Row 3, column 'grade'" in err and "'good'" in err


def test_compare_says_when_the_truth_names_only_some_items(tmp_path, capsys):
    from coarsenrank_core.metrics import partial_truth_note

    data = tmp_path / "drinks.csv"
    data.write_text("voter,1st,2nd,3rd\nann,tea,coffee,juice\nbob,coffee,tea,juice\n"
                    "cy,tea,juice,coffee\n")
    truth = tmp_path / "truth.txt"
    truth.write_text("tea\ncoffee\n")
    assert main(["compare", str(data), "--truth", str(truth), "--methods", "borda",
                 "pl-em", "--repeats", "1"]) == 0
    err = capsys.readouterr().err
    assert "names 2 of the 3 items" in err and "not named: juice" in err
    names = [f"item{i}" for i in range(20)]
    note = partial_truth_note(np.r_[np.arange(5.0), np.full(15, np.nan)], names)
    assert "names 5 of the 20 items" in note and "item10" in note and "and 9 more" in note
    assert partial_truth_note(np.arange(3.0), names[:3]) is None
