"""Dask's per-partition counts, summed on the driver, equal the local chunked reader's."""

import numpy as np
import pytest

from coarsenrank_core.cli import main
from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_preferences, stream_pairwise
from coarsenrank_core.io.on_dask import _pieces, dask_pairwise
from tests.helpers import distributed_or_skip
from tests.test_streaming import battles, counted

distributed = distributed_or_skip()
pytestmark = pytest.mark.slow  # each test sends work to a cluster of worker processes


@pytest.fixture(scope="module")
def scheduler(dask_cluster):
    return dask_cluster.scheduler_address


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("battles")
    frame = battles(6000)
    frame.iloc[:2500].to_csv(folder / "a.csv", index=False)
    frame.iloc[2500:].to_parquet(folder / "b.parquet", row_group_size=1000)
    return folder


def test_partition_counts_equal_the_local_chunked_reader_exactly(files, scheduler):
    paths = [files / "a.csv", files / "b.parquet"]
    assert len(_pieces(paths[0], 16_000)[1]) == 3 and len(_pieces(paths[1], 0)[1]) == 4
    local = stream_pairwise(paths).preferences
    on_dask = dask_pairwise(paths, scheduler, block_bytes=16_000).preferences
    assert on_dask == local  # same items, rankers, order and weights (content fingerprint)
    np.testing.assert_array_equal(on_dask.weights, local.weights)
    assert on_dask.notes == local.notes
    assert counted(on_dask) == counted(read_preferences(paths))  # the table reader's counts


def test_read_preferences_and_the_cli_take_the_dask_engine(files, scheduler, capsys):
    glob = str(files / "*")
    prefs = read_preferences(glob, engine="dask", scheduler=scheduler)
    assert prefs == stream_pairwise(sorted(files.iterdir())).preferences
    assert main(["rank", glob, "--engine", "dask", "--scheduler", scheduler,
                 "--alpha", "10"]) == 0
    out, _ = capsys.readouterr()
    assert "m0" in out
    with pytest.raises(PreferenceFormatError, match="reads pairwise files"):
        read_preferences(glob, format="wide", engine="dask", scheduler=scheduler)


def test_compare_counts_on_the_cluster_and_says_it_fits_here(files, scheduler, capsys):
    glob = str(files / "*")
    assert main(["compare", glob, "--engine", "dask", "--scheduler", scheduler, "--methods",
                 "pl-em", "borda", "--alpha", "inf"]) == 0
    out, err = capsys.readouterr()
    assert "--engine dask: compare fits every method here (--partitions is not used)" in err
    assert out.splitlines()[0].startswith("method")
    assert len(out.splitlines()) == 3


def test_an_unreachable_scheduler_is_one_line_and_exit_code_2(files, capsys):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        code = main(["rank", str(files / "a.csv"), "--engine", "dask", "--scheduler",
                     "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_bad_cell_on_a_worker_names_its_row_and_column_as_the_local_reader(
        tmp_path, scheduler, suffix):
    frame = battles(3000)[["winner", "loser", "tie"]]
    frame.loc[2100, "tie"] = "maybe"
    path = tmp_path / f"bad{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, row_group_size=1000)
    with pytest.raises(PreferenceFormatError) as local:
        stream_pairwise(path)
    with pytest.raises(PreferenceFormatError, match="'maybe' is not a yes/no flag") as caught:
        dask_pairwise(path, scheduler, block_bytes=8_000)
    assert caught.value.row == local.value.row == 2101 + (suffix == ".csv")
    assert caught.value.column == "tie"


def test_blank_lines_across_partitions_keep_every_row_named_as_the_local_reader(
        tmp_path, scheduler):
    lines = ["winner,loser,tie"]
    for k in range(3000):
        lines.append(f"m{k % 11},m{(k * 7 + 1) % 11},{k % 2}")
        if k % 97 == 0:
            lines.append("" if k % 2 else ",,")  # blank lines in most partitions
    path = tmp_path / "gaps.csv"
    path.write_text("\n".join(lines) + "\n")
    whole = counted(read_preferences(path).merge_duplicates())
    assert counted(dask_pairwise(path, scheduler, block_bytes=4_000).preferences) == whole
    lines[2900] = "m1,m2,maybe"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(PreferenceFormatError) as local:
        stream_pairwise(path)
    with pytest.raises(PreferenceFormatError, match="'maybe' is not a yes/no flag") as caught:
        dask_pairwise(path, scheduler, block_bytes=4_000)
    assert caught.value.row == local.value.row == 2901


def test_without_a_scheduler_a_local_cluster_is_started(files):
    paths = [files / "b.parquet"]
    assert dask_pairwise(paths, n_workers=1).preferences == stream_pairwise(paths).preferences


@pytest.mark.parametrize("layout", ["arena", "sides"])
def test_label_layouts_on_dask_equal_the_local_chunked_reader(tmp_path, scheduler, layout):
    from tests.test_streaming import labelled

    path = tmp_path / "battles.csv"
    labelled(layout, 5000).to_csv(path, index=False)
    local = stream_pairwise(path).preferences
    on_dask = dask_pairwise(path, scheduler, block_bytes=20_000).preferences
    assert on_dask == local
    np.testing.assert_array_equal(on_dask.weights, local.weights)
    assert on_dask.notes == local.notes
    assert counted(on_dask) == counted(read_preferences(path))


def test_look_alike_rater_and_item_names_merge_across_partitions_as_locally(tmp_path, scheduler):
    lines = ["rater,winner,loser"]
    spellings = ["Ann Lee", "Ann  Lee", "Ann\u00a0Lee"]
    for k in range(3000):
        rater = spellings[(k // 1000) % 3] if k % 5 == 0 else f"r{k % 7}"
        item = "Green  Tea" if k > 2000 and k % 3 == 0 else "Green Tea"
        lines.append(f"{rater},{item},m{k % 11}")
    path = tmp_path / "raters.csv"
    path.write_text("\n".join(lines) + "\n")
    local = stream_pairwise(path)
    on_dask = dask_pairwise(path, scheduler, block_bytes=4_000)
    assert "Ann Lee" in local.preferences.ranker_names
    assert on_dask.preferences == local.preferences
    assert on_dask.preferences.ranker_names == local.preferences.ranker_names
    assert on_dask.preferences.notes == local.preferences.notes
    assert any("Merged 2 ranker names" in n for n in local.preferences.notes)


def test_quoted_prompts_and_a_bad_row_in_a_second_file_read_as_the_chunked_reader(
        tmp_path, scheduler):
    lines = ["model_a,model_b,winner,prompt"]
    for k in range(400):
        lines.append(f'm{k % 4},m{(k + 1) % 4},model_a,"a prompt {k}\nover two lines, quoted"')
    (tmp_path / "a.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    on_dask = dask_pairwise(tmp_path / "a.csv", scheduler, block_bytes=1 << 10).preferences
    assert float(on_dask.weights.sum()) == 400
    (tmp_path / "b.csv").write_text("model_a,model_b,winner,prompt\nm1,m2,banana,x\n",
                                    encoding="utf-8")
    with pytest.raises(PreferenceFormatError, match="In 'b.csv'") as info:
        dask_pairwise([tmp_path / "a.csv", tmp_path / "b.csv"], scheduler, block_bytes=1 << 10)
    assert info.value.row == 2


def test_a_second_file_of_another_layout_is_named_and_a_bad_scheduler_is_said_plainly(
        tmp_path):
    (tmp_path / "one.csv").write_text("winner,loser\na,b\nb,c\n")
    (tmp_path / "two.csv").write_text("first,second\na,b\n")
    with pytest.raises(PreferenceFormatError, match="In 'two.csv': Reading in chunks needs"):
        dask_pairwise([tmp_path / "one.csv", tmp_path / "two.csv"])
    with pytest.raises(PreferenceFormatError, match="cannot reach the Dask scheduler at "
                       "localhost") as info:
        dask_pairwise([tmp_path / "one.csv"], scheduler="localhost")
    assert "tcp://host:8786" in info.value.fix and "Unexpected" not in str(info.value)


def test_anonymous_raters_are_each_their_own_across_partitions_as_locally(tmp_path, scheduler):
    lines = ["judge,winner,loser"]
    lines += [f"{'Anonymous' if k % 4 == 0 else f'r{k % 5}'},m{k % 7},m{(k + 3) % 7}"
              for k in range(3000)]
    path = tmp_path / "anonymous.csv"
    path.write_text("\n".join(lines) + "\n")
    local = stream_pairwise(path)
    on_dask = dask_pairwise(path, scheduler, block_bytes=4_000)
    assert on_dask.preferences == local.preferences
    assert on_dask.preferences.ranker_names == local.preferences.ranker_names
    assert on_dask.preferences.notes == local.preferences.notes
    assert len(local.preferences.ranker_names) == 5 + 750


def test_walkovers_are_skipped_across_partitions_as_locally(tmp_path, scheduler):
    from tests.test_reader_defects_10 import winner_loser_file

    path = tmp_path / "atp.csv"
    walkovers = winner_loser_file(path, n=3000, seed=7)
    local = stream_pairwise(path)
    on_dask = dask_pairwise(path, scheduler, block_bytes=8_000)
    assert on_dask.preferences == local.preferences
    assert float(np.sum(on_dask.preferences.weights)) == 3000 - walkovers
    assert on_dask.preferences.notes == local.preferences.notes
