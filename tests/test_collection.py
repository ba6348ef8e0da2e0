"""A folder, a glob pattern or a list of files of one layout read as one collection."""

import numpy as np
import pandas as pd
import pytest

from coarsenrank_core.cli import main
from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_file, read_preferences


def battles(n=900, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array([f"m{k}" for k in range(12)], dtype=object)
    a = rng.integers(0, 12, n)
    return pd.DataFrame({"judge": rng.choice(["ann", "bob", "cy", "dee"], n),
                         "winner": names[a], "loser": names[(a + rng.integers(1, 12, n)) % 12],
                         "count": rng.integers(1, 3, n)})


def _split(frame, folder, kinds=("csv", "csv", "csv")):
    folder.mkdir(exist_ok=True)
    parts = np.array_split(np.arange(len(frame)), len(kinds))
    paths = []
    for k, (rows, kind) in enumerate(zip(parts, kinds)):
        path = folder / f"part{k}.{kind}"
        piece = frame.iloc[rows]
        piece.to_parquet(path) if kind == "parquet" else piece.to_csv(path, index=False)
        paths.append(path)
    return paths


def _same(a, b):
    assert a.to_lists(names=True) == b.to_lists(names=True)
    assert [a.ranker_names[r] for r in a.rankers] == [b.ranker_names[r] for r in b.rankers]
    np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.parametrize("kinds", [("csv", "csv", "csv"), ("csv", "parquet", "csv")])
def test_a_folder_a_glob_and_a_list_read_as_the_whole_file(tmp_path, kinds):
    frame = battles()
    whole = tmp_path / "whole.csv"
    frame.to_csv(whole, index=False)
    expected = read_preferences(whole)
    paths = _split(frame, tmp_path / "parts", kinds)
    (tmp_path / "parts" / ".hidden.csv").write_text("not,read\n")
    (tmp_path / "parts" / "notes.md").write_text("# not read\n")
    for source in (tmp_path / "parts", str(tmp_path / "parts" / "part*"), paths,
                   [str(p) for p in paths]):
        result = read_file(source)
        _same(result.preferences, expected)
        assert result.report.layout == "pairwise" and result.report.ranker_column == "judge"
        assert result.report.file_name.startswith("3 files (part0.csv")


def test_items_and_rankers_are_matched_by_name_across_files(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("ranker,winner,loser\nann,x,y\n")
    b.write_text("ranker,winner,loser\nbob,z,y\nann,y,x\n")
    prefs = read_preferences([a, b])
    assert prefs.item_names == ("x", "y", "z") and prefs.ranker_names == ("ann", "bob")
    assert prefs.to_lists(names=True) == [["x", "y"], ["z", "y"], ["y", "x"]]
    assert prefs.rankers.tolist() == [0, 1, 0]


def test_files_that_do_not_fit_together_are_refused_with_the_reason(tmp_path):
    a, b, c, d = (tmp_path / f"{k}.csv" for k in "abcd")
    a.write_text("winner,loser\nx,y\n")
    b.write_text("first,second\nx,y\n")
    c.write_text("ranker,winner,loser\nann,x,y\n")
    d.write_text("winner,loser\nx,\n")
    with pytest.raises(PreferenceFormatError, match="one layout.*'a.csv' is pairwise.*wide"):
        read_file([a, b])
    with pytest.raises(PreferenceFormatError, match="rankers and some do not.*a.csv"):
        read_file([a, c])
    with pytest.raises(PreferenceFormatError, match="In 'd.csv'.*blank") as caught:
        read_file([a, d])
    assert caught.value.row == 2
    with pytest.raises(PreferenceFormatError, match="No file matches"):
        read_file(str(tmp_path / "none*.csv"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PreferenceFormatError, match="holds no file of rankings"):
        read_file(empty)


def test_the_cli_ranks_a_quoted_glob_of_parquet_files(tmp_path, capsys):
    _split(battles(), tmp_path / "battles", ("parquet", "parquet", "parquet"))
    assert main(["rank", str(tmp_path / "battles" / "*.parquet"), "--alpha", "10"]) == 0
    out, err = capsys.readouterr()
    assert "m0" in out and "900 preferences over 12 items" in err


def test_the_collection_is_checked_as_a_whole_not_as_its_first_file(tmp_path):
    (tmp_path / "a.csv").write_text("voter,r1,r2,r3,r4,r5\nv1,A,B,C,D,E\nv2,B,A,C,E,D\n")
    rows = ["A,B,C,D,E", "B,A,C,E,D", "A,C,B,D,E", "A,B,D,C,E", "C,A,B,D,E", "A,B,C,E,D"]
    (tmp_path / "b.csv").write_text("voter,r1,r2,r3,r4,r5\n" + "".join(
        f"w{k},{r}\n" for k, r in enumerate(rows)))
    assert "more items" in read_file(tmp_path / "a.csv").report.warning
    read = read_file(tmp_path)
    assert len(read.preferences) == 8 and read.report.warning is None
    (tmp_path / "c.csv").write_text("voter,r1,r2,r3,r4,r5\nx,a,B,C,D,E\n")
    assert "differ only in capitals" in read_file(tmp_path).report.warning
