"""The chunked pairwise reader counts the same comparisons as the table reader."""

import numpy as np
import pandas as pd
import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_file, streaming
from coarsenrank_core.io.streaming import stream_pairwise

pytest.importorskip("pyarrow", reason="pyarrow is a declared dependency (requirements.txt)")


def counted(prefs) -> dict:
    """(winner name, loser name, tied, ranker name) -> summed weight."""
    names, rankers = prefs.item_names, prefs.ranker_names or ("",)
    ranker = prefs.rankers if prefs.rankers is not None else np.zeros(len(prefs), int)
    out: dict = {}
    for w, lose, g, weight, r in zip(prefs.items[0::2], prefs.items[1::2], prefs.groups[1::2],
                                  prefs.weights, ranker):
        key = (names[w], names[lose], int(g) == 0, rankers[r])
        out[key] = out.get(key, 0.0) + float(weight)
    return out


def battles(n=6000, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array([f"m{k}" for k in range(25)] + [" m3 ", "'=x", "=x"], dtype=object)
    return pd.DataFrame({"winner": names[rng.integers(0, 28, n)],
                         "loser": names[rng.integers(0, 28, n)],
                         "tie": rng.choice(["0", "1", "yes", "no"], n),
                         "judge": rng.choice(["ann", "bob", "cy"], n),
                         "count": rng.integers(1, 4, n)})


@pytest.fixture(params=["counted", "hashed"])
def path_kind(request, monkeypatch):
    if request.param == "hashed":  # the hash aggregation used for large key ranges
        monkeypatch.setattr(streaming._Reader, "_counted", lambda self, *args: False)
    return request.param


def written(frame: pd.DataFrame, path):
    """``frame`` written to ``path`` as Parquet, Feather, TSV or CSV, by its suffix."""
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    elif path.suffix == ".feather":
        frame.to_feather(path)
    else:
        frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")
    return path


@pytest.mark.parametrize("columns", [["winner", "loser"], ["winner", "loser", "tie"],
                                     ["winner", "loser", "judge"],
                                     ["winner", "loser", "tie", "judge", "count"],
                                     ["judge", "loser", "count", "winner"]])
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".feather"])
def test_chunks_count_what_the_table_reader_reads(tmp_path, path_kind, columns, suffix):
    path = written(battles()[columns], tmp_path / f"battles{suffix}")
    whole = read_file(path).preferences
    for chunk_bytes in (1 << 11, 1 << 24):  # many chunks and one
        result = stream_pairwise(path, chunk_bytes=chunk_bytes)
        prefs = result.preferences
        assert counted(prefs) == counted(whole)
        assert prefs.item_names == whole.item_names
        assert prefs.ranker_names == whole.ranker_names
        assert len(prefs) == len(counted(whole)) < len(whole)  # one row per distinct key
        assert result.report.layout == "pairwise"
        assert result.report.ranker_column == ("judge" if "judge" in columns else None)
        assert any("itself" in note for note in prefs.notes)


def test_several_files_are_one_collection_and_must_share_their_columns(tmp_path):
    frame = battles(3000)
    parts = [tmp_path / "a.csv", tmp_path / "b.parquet"]
    frame.iloc[:1000].to_csv(parts[0], index=False)
    frame.iloc[1000:].to_parquet(parts[1])
    together = tmp_path / "all.csv"
    frame.to_csv(together, index=False)
    result = stream_pairwise(parts, chunk_bytes=1 << 12)
    assert counted(result.preferences) == counted(read_file(together).preferences)
    assert result.report.file_name == "2 files"
    other = tmp_path / "other.csv"
    frame[["winner", "loser"]].to_csv(other, index=False)
    with pytest.raises(PreferenceFormatError, match="unlike the first file"):
        stream_pairwise([parts[0], other])


def test_bad_cells_name_their_row_and_column_in_any_chunk(tmp_path):
    frame = battles(5000)[["winner", "loser", "tie", "count"]]
    for column, value, message in (("loser", "", "blank"), ("tie", "maybe", "yes/no flag"),
                                   ("count", "-2", "not a positive number")):
        bad = frame.astype({"count": object}).copy()
        bad.loc[4321, column] = value
        path = tmp_path / "bad.csv"
        bad.to_csv(path, index=False)
        with pytest.raises(PreferenceFormatError) as caught:
            read_file(path)
        with pytest.raises(PreferenceFormatError, match=message) as streamed:
            stream_pairwise(path, chunk_bytes=1 << 12)
        assert streamed.value.row == caught.value.row == 4323  # header, then rows from 2
        assert streamed.value.column == column


# lines a hand-edited or exported CSV holds besides its rows: (line, what read_file does)
ODD_LINES = {
    "an empty line": ("", "skips it"),
    "a line of spaces": ("   ", "skips it"),
    "a line of bare separators": (",,", "skips it"),
    "a row with one value": ("tea", "names the blank loser"),
    "a row with an extra value": ("tea,coffee,2,milk", "names the extra value"),
    "a quoted cell over two lines": ('"tea\ncake",coffee', "names the open quote"),
}


@pytest.mark.parametrize("odd", ODD_LINES)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_odd_lines_read_as_the_table_reader_reads_them_with_the_same_row(tmp_path, odd,
                                                                          newline):
    """Empty lines, lines of spaces or separators, short and long rows and a quoted line
    break, before and after a chunk boundary: counted the same, or refused naming the
    same line, as :func:`read_file` reads the whole file."""
    rows = ["winner,loser,count"] + [f"m{k % 7},m{(k + 3) % 7},2" for k in range(400)]
    for at in (150, 5):  # after many rows (a later chunk) and among the first
        rows.insert(at, ODD_LINES[odd][0])
    rows.append("m1,,1")  # a blank item below them: its line must be named
    path = tmp_path / "odd.csv"
    path.write_bytes(newline.join(rows).encode() + newline.encode())
    with pytest.raises(PreferenceFormatError) as whole:
        read_file(path)
    for chunk_bytes in (1 << 8, 1 << 20):
        with pytest.raises(PreferenceFormatError) as streamed:
            stream_pairwise(path, chunk_bytes=chunk_bytes)
        assert (streamed.value.row, streamed.value.reason) == (whole.value.row,
                                                               whole.value.reason)
    if ODD_LINES[odd][1] == "skips it":
        assert whole.value.row == len(rows)
        path.write_bytes(newline.join(rows[:-1]).encode() + newline.encode())
        expected = counted(read_file(path).preferences)
        for chunk_bytes in (1 << 8, 1 << 20):
            assert counted(stream_pairwise(path, chunk_bytes=chunk_bytes).preferences) \
                == expected
    else:
        assert whole.value.row in (6, 7)  # the odd line among the first rows


@pytest.mark.parametrize("suffix", [".parquet", ".feather"])
def test_blank_records_and_a_column_of_nulls_read_as_the_table_reader_reads_them(tmp_path,
                                                                              suffix):
    gaps = pd.DataFrame({"winner": ["a", None, "b", ""], "loser": ["b", None, "c", " "]})
    path = written(gaps, tmp_path / f"gaps{suffix}")
    assert counted(stream_pairwise(path).preferences) == \
        counted(read_file(path).preferences) == {("a", "b", False, ""): 1.0,
                                                 ("b", "c", False, ""): 1.0}
    # a column of nulls is not text: it used to stop the chunked reader with an Arrow error
    nulls = pd.DataFrame({"winner": [None, None], "loser": ["b", "c"]})
    path = written(nulls, tmp_path / f"nulls{suffix}")
    with pytest.raises(PreferenceFormatError) as whole:
        read_file(path)
    with pytest.raises(PreferenceFormatError, match="blank") as streamed:
        stream_pairwise(path)
    assert (streamed.value.row, streamed.value.column) == (whole.value.row,
                                                           whole.value.column) == (1, "winner")


def test_other_pairwise_codings_are_refused_with_the_way_to_read_them(tmp_path):
    path = tmp_path / "scores.csv"  # two score columns: read by the table reader only
    pd.DataFrame({"home": ["x", "y"], "away": ["y", "x"], "home_score": [1, 2],
                  "away_score": [0, 2]}).to_csv(path, index=False)
    with pytest.raises(PreferenceFormatError, match="'winner' and a 'loser'.*read_preferences"):
        stream_pairwise(path)
    with pytest.raises(PreferenceFormatError, match="no such file"):
        stream_pairwise(tmp_path / "missing.csv")


def test_the_cli_streams_a_pairwise_file_into_the_same_ranking(tmp_path, capsys):
    from coarsenrank_core.cli import main

    path = tmp_path / "battles.csv"
    battles(3000)[["winner", "loser", "judge"]].to_csv(path, index=False)
    assert main(["rank", str(path), "--alpha", "10"]) == 0
    whole = capsys.readouterr().out
    assert main(["rank", str(path), "--alpha", "10", "--stream"]) == 0
    out, err = capsys.readouterr()
    assert "counted in chunks" in err
    # the same ranking and scores (the counts give the same likelihood; rows differ in order)
    assert [r.split(",")[:2] for r in out.splitlines()] == [
        r.split(",")[:2] for r in whole.splitlines()]
    assert main(["rank", str(path), "--stream", "--format", "wide"]) == 2


def test_a_file_that_is_not_utf8_is_refused_with_the_way_to_read_it(tmp_path):
    path = tmp_path / "cp1252.csv"
    path.write_bytes("winner,loser\ncafé,tea\ntea,café\n".encode("cp1252"))
    with pytest.raises(PreferenceFormatError, match="not UTF-8.*read_preferences"):
        stream_pairwise(path)
    assert read_file(path).preferences.item_names == ("café", "tea")


def labelled(layout: str, n=4000, seed=1) -> pd.DataFrame:
    """Pairwise files whose outcome is a label or flags, as the table reader accepts them."""
    rng = np.random.default_rng(seed)
    names = np.array([f"m{k}" for k in range(20)] + [" m3 "], dtype=object)
    a, b = names[rng.integers(0, 21, n)], names[rng.integers(0, 21, n)]
    outcome = rng.choice(["a", "b", "tie"], n, p=[0.45, 0.4, 0.15])
    judge = rng.choice(["ann", "bob", "cy"], n)
    if layout == "arena":  # model_a, model_b, winner in {model_a, model_b, tie, tie (bothbad)}
        words = np.where(outcome == "a", "model_a", np.where(outcome == "b", "model_b",
                         rng.choice(["tie", "tie (bothbad)"], n)))
        words[rng.random(n) < 0.01] = "*"  # unfinished: skipped by both readers
        return pd.DataFrame({"model_a": a, "model_b": b, "winner": words, "judge": judge})
    if layout == "named":  # left, right, winner naming the item (or 'tie')
        words = np.where(outcome == "a", a, np.where(outcome == "b", b, "tie"))
        return pd.DataFrame({"left": a, "right": b, "winner": words})
    if layout == "sides":  # left, right, winner in {left, right}, a tie column, a ranker
        words = np.where(outcome == "b", "right", "left")
        words[outcome == "tie"] = ""
        return pd.DataFrame({"left": a, "right": b, "winner": words,
                             "tie": (outcome == "tie").astype(int), "judge": judge,
                             "count": rng.integers(1, 3, n)})
    if layout == "flags":  # arena's 0/1 columns
        return pd.DataFrame({"model_a": a, "model_b": b,
                             "winner_model_a": (outcome == "a").astype(int),
                             "winner_model_b": (outcome == "b").astype(int),
                             "winner_tie": (outcome == "tie").astype(int)})
    assert layout == "football"
    words = np.where(outcome == "a", "H", np.where(outcome == "b", "A", "D"))
    return pd.DataFrame({"home": a, "away": b, "result": words})


@pytest.mark.parametrize("layout", ["arena", "named", "sides", "flags", "football"])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_label_layouts_count_what_the_table_reader_reads(tmp_path, path_kind, layout, suffix):
    frame = labelled(layout)
    path = written(frame, tmp_path / f"battles{suffix}")
    whole = read_file(path).preferences
    for chunk_bytes in (1 << 11, 1 << 24):
        result = stream_pairwise(path, chunk_bytes=chunk_bytes)
        prefs = result.preferences
        assert counted(prefs) == counted(whole)
        assert prefs.item_names == whole.item_names
        assert prefs.ranker_names == whole.ranker_names
        assert result.report.ranker_column == ("judge" if "judge" in frame else None)
        assert any("itself" in note for note in prefs.notes)
        assert any("unfinished" in note for note in prefs.notes) == (layout == "arena")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_ranker_whose_only_rows_are_unfinished_is_not_a_ranker(tmp_path, suffix):
    frame = pd.DataFrame({"model_a": ["x", "y", "x", "z"], "model_b": ["y", "z", "z", "x"],
                          "winner": ["model_a", "*", "model_b", "tie"],
                          "judge": ["j1", "j2", "j3", "j1"]})
    path = written(frame, tmp_path / f"battles{suffix}")
    whole = read_file(path).preferences
    assert whole.ranker_names == ("j1", "j3")
    streamed = stream_pairwise(path).preferences
    assert streamed.ranker_names == whole.ranker_names
    assert counted(streamed) == counted(whole)


def test_a_label_that_names_neither_item_is_refused_with_its_row(tmp_path):
    frame = labelled("named", 3000)
    frame.loc[2100, "winner"] = "nobody"
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(PreferenceFormatError) as whole:
        read_file(path)
    with pytest.raises(PreferenceFormatError, match="neither the left item") as caught:
        stream_pairwise(path, chunk_bytes=1 << 12)
    assert caught.value.row == whole.value.row == 2102
    assert caught.value.column == "winner"


# ------------------------------------------------- memory: the pool a library call reads with
def _pools_seen(monkeypatch) -> list:
    """The backend of pyarrow's default pool at each chunk of the reads that follow."""
    import pyarrow as pa

    seen: list = []
    chunk = streaming._Reader.chunk

    def recording(self, *args, **kwargs):
        seen.append(pa.default_memory_pool().backend_name)
        return chunk(self, *args, **kwargs)

    monkeypatch.setattr(streaming._Reader, "chunk", recording)
    return seen


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_library_call_reads_with_the_system_pool_and_restores_the_default(
        tmp_path, monkeypatch, suffix):
    import pyarrow as pa

    monkeypatch.delenv(streaming.POOL_VARIABLE, raising=False)
    path = written(battles(3000)[["winner", "loser", "judge"]], tmp_path / f"b{suffix}")
    before = pa.default_memory_pool().backend_name
    seen = _pools_seen(monkeypatch)
    stream_pairwise(path, chunk_bytes=4096)
    assert len(seen) > 1 and set(seen) == {"system"}
    assert pa.default_memory_pool().backend_name == before


_KEPT_POOLS: list = []  # a proxy pool must outlive every buffer taken from it


@pytest.mark.parametrize("summing", ["counted", "hashed"])
def test_no_allocation_of_a_read_falls_back_to_arrows_process_pool(tmp_path, monkeypatch,
                                                                   summing):
    # Acero (Table.group_by) allocates from Arrow's process default whatever pool is set,
    # so the chunked sums must not go through it
    import pyarrow as pa

    if summing == "hashed":
        monkeypatch.setattr(streaming._Reader, "_counted", lambda self, *args: False)
    process = pa.default_memory_pool()  # Arrow's own default: no read is under way
    makers = (pa.system_memory_pool, pa.mimalloc_memory_pool, pa.jemalloc_memory_pool)
    others = []
    for make in makers:
        try:
            pool = make()
        except NotImplementedError:  # a backend this pyarrow was built without
            continue
        if pool.backend_name != process.backend_name:
            others.append(pool)
    if not others:
        pytest.skip("pyarrow has one allocator only")
    mine = pa.proxy_memory_pool(others[0])
    _KEPT_POOLS.append(mine)
    path = written(battles(6000), tmp_path / "b.csv")
    calls = process.num_allocations()
    stream_pairwise(path, chunk_bytes=8192, memory_pool=mine)
    assert process.num_allocations() == calls
    assert mine.num_allocations() > 0


def test_a_pool_the_user_chose_by_environment_is_kept(monkeypatch):
    import pyarrow as pa

    monkeypatch.setenv(streaming.POOL_VARIABLE, "mimalloc")
    assert streaming.reading_pool().backend_name == pa.default_memory_pool().backend_name
    monkeypatch.delenv(streaming.POOL_VARIABLE)
    assert streaming.reading_pool().backend_name == "system"


def test_the_default_pool_is_restored_when_a_read_is_refused(tmp_path, monkeypatch):
    import pyarrow as pa

    monkeypatch.delenv(streaming.POOL_VARIABLE, raising=False)
    before = pa.default_memory_pool().backend_name
    path = tmp_path / "scores.csv"
    path.write_text("a,b,score_a,score_b\nx,y,1,2\n")
    seen = _pools_seen(monkeypatch)
    with pytest.raises(PreferenceFormatError):
        stream_pairwise(path)
    assert pa.default_memory_pool().backend_name == before
    assert set(seen) <= {"system"}


@pytest.mark.parametrize("text", [
    "Round,White,Black,Result\n1,Carlsen,Nakamura,1-0\n1,Caruana,BYE,1-0\n"
    "2,Nakamura,Caruana,0-1\n2,Carlsen,(bye),1-0\n",
    "winner,loser,tie\na,b,0\nbye,a,0\nc,a,1\n",
])
def test_a_round_with_a_bye_is_skipped_by_both_readers(tmp_path, text):
    path = tmp_path / "games.csv"
    path.write_text(text)
    whole = read_file(path)
    assert not {"BYE", "bye", "(bye)"} & set(whole.preferences.item_names)
    assert any("with a bye (no opponent)" in n for n in whole.report.notes)
    for chunk_bytes in (1 << 6, 1 << 20):
        streamed = stream_pairwise(path, chunk_bytes=chunk_bytes)
        assert counted(streamed.preferences) == counted(whole.preferences)
        assert any("with a bye (no opponent)" in n for n in streamed.report.notes)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_status_saying_drawn_is_a_tie_for_both_readers(tmp_path, suffix):
    # lichess' flattened export: the winner is left blank where the status says the game was
    # drawn, and an aborted game has no result
    frame = pd.DataFrame({"white": ["ann", "bob", "cid", "ann", "bob"],
                          "black": ["bob", "cid", "ann", "cid", "ann"],
                          "winner": ["white", "", "", "black", ""],
                          "status": ["mate", "draw", "aborted", "outoftime", "Stalemate"]})
    path = written(frame, tmp_path / f"games{suffix}")
    whole = read_file(path).preferences
    tied = {(w, lose) for w, lose, tie, _ in counted(whole) if tie}
    assert {frozenset(pair) for pair in tied} == {frozenset({"bob", "cid"}),
                                                  frozenset({"bob", "ann"})}
    assert float(np.sum(whole.weights)) == 4
    for chunk_bytes in (1 << 6, 1 << 20):
        assert counted(stream_pairwise(path, chunk_bytes=chunk_bytes).preferences) == counted(
            whole)
