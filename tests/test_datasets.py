"""Loaders of the paper's datasets: shapes, repairs, golden accuracies, the SUSHI protocol."""

import numpy as np
import pytest
import scipy.io

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.models import coarsen_pl
from coarsenrank_core.paper.datasets import (
    PAPER_DATASETS,
    PaperDataset,
    corrupt_orders,
    load_babyface,
    load_peergrading,
    load_readlevel,
    load_sushi,
    peergrading_csvs,
    peergrading_rows,
    peergrading_truth,
)


def _accuracy(dataset, **kwargs):
    return pairwise_accuracy(coarsen_pl(dataset.preferences, tol=0.0, **kwargs).scores,
                             dataset.truth)


# --------------------------------------------------------------------------- Readlevel
@pytest.fixture(scope="module")
def readlevel(data_dir):
    return load_readlevel(data_dir)


def test_readlevel_shape_and_truth(readlevel):
    prefs = readlevel.preferences
    assert prefs.n_items == 490 and len(prefs) == 12726 and prefs.is_pairwise
    assert prefs.n_rankers <= 624 and prefs.has_rankers
    assert prefs.item_names[:3] == ("1", "2", "3") and prefs.item_names[-1] == "490"
    assert np.bincount(readlevel.truth.astype(int)).tolist() == [
        0, 85, 69, 70, 55, 53, 38, 17, 36, 14, 13, 26, 14]
    assert any("dropped 2 of 12728" in note for note in readlevel.notes)
    # first rows of all_pair.txt: worker 1 prefers doc 1 to doc 2, worker 2 doc 2 to doc 1
    assert prefs.to_lists(names=True)[:2] == [["1", "2"], ["2", "1"]]
    assert [prefs.ranker_names[r] for r in prefs.rankers[:3]] == ["1", "2", "3"]


def test_readlevel_golden_accuracies(readlevel):
    coarsen = _accuracy(readlevel, alpha=200, prior=(1, 2), calibration=100, max_iter=15)
    plain = _accuracy(readlevel, prior=(1, 2), calibration=100, max_iter=15)
    assert coarsen == pytest.approx(0.7436, abs=0.002)
    assert plain == pytest.approx(0.688, abs=0.003)


# --------------------------------------------------------------------------- BabyFace
def test_babyface_shape_truth_and_golden(data_dir):
    data = load_babyface(data_dir)
    prefs = data.preferences
    # 3074 released lists; the 6 that name an image twice (e.g. 1 > 14 > 1) are dropped
    assert prefs.n_items == 18 and len(prefs) == 3068 and prefs.n_rankers == 21
    assert set(prefs.lengths.tolist()) == {3} and not prefs.has_ties
    assert any("dropped 6 of 3074" in note for note in data.notes)
    best_first = [9, 3, 6, 15, 18, 4, 12, 11, 10, 8, 2, 16, 1, 14, 5, 17, 7, 13]
    assert (np.argsort(-data.truth) + 1).tolist() == best_first
    coarsen = _accuracy(data, alpha=40, prior=(5, 5), calibration=5, max_iter=30)
    plain = _accuracy(data, prior=(4, 6), calibration=5, max_iter=30)
    assert coarsen == pytest.approx(0.902, abs=0.002)
    assert plain == pytest.approx(0.8824, abs=0.002)


# --------------------------------------------------------------------------- PeerGrading
def test_peergrading_released_shape_and_golden(data_dir):
    data = load_peergrading(data_dir)
    prefs = data.preferences
    # 3619 rows: 4 left with one item and 15 comparing a group with itself are dropped
    assert prefs.n_items == 79 and len(prefs) == 3600 and prefs.n_rankers == 217
    assert np.bincount(prefs.lengths).tolist() == [0, 0, 2423, 1177]
    assert len(data.notes) == 3
    coarsen = _accuracy(data, alpha=850, prior=(4, 6), calibration=25, max_iter=30)
    plain = _accuracy(data, prior=(4, 6), calibration=25, max_iter=30)
    assert coarsen == pytest.approx(0.8130, abs=0.01)
    assert plain == pytest.approx(0.8014, abs=0.01)


def test_script_logic_with_its_bug_reproduces_the_released_file(data_dir):
    ta, own, peer = peergrading_csvs(data_dir)
    released = scipy.io.loadmat(data_dir / "peergrading" / "read_data" / "PeerGrader.mat")
    np.testing.assert_array_equal(peergrading_truth(ta), released["ground_truth"].ravel())
    buggy = peergrading_rows(own, peer, reproduce_bug=True)
    table = np.zeros((len(buggy), 4), dtype=int)
    for row, (reviewer, pref) in enumerate(buggy):
        table[row, 0] = reviewer - 6
        table[row, 1:1 + len(pref)] = pref
    np.testing.assert_array_equal(table, released["data"].astype(int))
    fixed = peergrading_rows(own, peer)
    assert len(fixed) == 3619
    assert sum(a != b for a, b in zip(buggy, fixed)) == 790


def test_peergrading_rebuilt_shape_and_golden(data_dir):
    data = PAPER_DATASETS["peergrading_rebuilt"](data_dir)
    prefs = data.preferences
    assert prefs.n_items == 79 and len(prefs) == 3619 and not prefs.has_ties
    released = load_peergrading(data_dir)
    np.testing.assert_array_equal(data.truth, released.truth)
    coarsen = _accuracy(data, alpha=850, prior=(4, 6), calibration=25, max_iter=30)
    plain = _accuracy(data, prior=(4, 6), calibration=25, max_iter=30)
    assert coarsen == pytest.approx(0.852, abs=0.01)
    assert plain == pytest.approx(0.853, abs=0.01)


def test_peergrading_rebuilt_with_tied_groups(data_dir):
    pairs = load_peergrading(data_dir, rebuilt=True)
    groups = load_peergrading(data_dir, rebuilt=True, ties="groups")
    assert groups.preferences.has_ties and len(groups.preferences) < len(pairs.preferences)
    # every strict pair implied by a tied list is one of the script's pairs for that reviewer
    strict = {(r, a, b) for r, (a, b) in zip(
        pairs.preferences.rank_break().ranker_index,
        pairs.preferences.rank_break().items.reshape(-1, 2).tolist())}
    broken = groups.preferences.rank_break()
    implied = {(r, a, b) for r, (a, b) in zip(broken.ranker_index,
                                              broken.items.reshape(-1, 2).tolist())}
    assert pairs.preferences.ranker_names == groups.preferences.ranker_names
    assert implied == strict
    assert _accuracy(groups, prior=(4, 6), calibration=25, max_iter=30) > 0.84
    with pytest.raises(ValueError, match="ties"):
        load_peergrading(data_dir, rebuilt=True, ties="drop")


def test_registry_and_dataset_record(data_dir):
    assert set(PAPER_DATASETS) == {"readlevel", "babyface", "peergrading_released",
                                   "peergrading_rebuilt"}
    data = PAPER_DATASETS["babyface"](data_dir)
    assert isinstance(data, PaperDataset) and data.name == "BabyFace" and data.description
    assert not data.truth.flags.writeable
    with pytest.raises(ValueError, match="truth"):
        PaperDataset("x", data.preferences, np.zeros(3), "")


# --------------------------------------------------------------------------- SUSHI
def _write_order_file(path, n_users, rng, n_items=100, k=10):
    worth = np.exp(np.linspace(2, -2, n_items))
    lines = [f"{n_items} 1"]
    for _ in range(n_users):
        # as in sushi3b: k random items, ordered by a PL draw (Gumbel-perturbed log-worths)
        shown = rng.choice(n_items, size=k, replace=False)
        order = shown[np.argsort(-(np.log(worth[shown]) + rng.gumbel(size=k)))]
        lines.append("0 10 " + " ".join(map(str, order)))
    path.write_text("\n".join(lines) + "\n")
    return worth


def test_sushi_protocol_on_a_synthetic_file(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "sushi3b.5000.10.order"
    worth = _write_order_file(path, 200, rng)
    clean, corrupted = load_sushi(path, random_state=3)
    orders = np.loadtxt(path, skiprows=1, dtype=int)[:, 2:]
    assert clean.preferences.to_lists() == orders.tolist()
    assert clean.preferences.n_items == corrupted.preferences.n_items == 100
    expected = coarsen_pl(clean.preferences, prior=(1, 2), calibration=10, max_iter=25,
                          tol=0).scores
    np.testing.assert_allclose(clean.truth, expected)
    assert clean.truth.sum() == pytest.approx(10)
    np.testing.assert_array_equal(clean.truth, corrupted.truth)
    seen = clean.preferences.appearances() > 0
    assert pairwise_accuracy(clean.truth[seen], worth[seen]) > 0.8
    _, lengths, noise = corrupt_orders(orders, 100, 120, random_state=3)
    assert noise.sum() == 80
    lists = corrupted.preferences.to_lists()
    np.testing.assert_array_equal(corrupted.preferences.lengths, lengths)
    for user, pref in enumerate(lists):
        assert 4 <= len(pref) <= 10 and len(set(pref)) == len(pref)
        if not noise[user]:
            positions = [orders[user].tolist().index(item) for item in pref]
            assert positions == sorted(positions)
    again = load_sushi(path, random_state=3)[1]
    assert again.preferences == corrupted.preferences
    assert load_sushi(path, random_state=4)[1].preferences != corrupted.preferences


def test_sushi_corruption_is_uniform():
    rng = np.random.default_rng(1)
    n_users = 5000
    orders = np.argsort(rng.random((n_users, 100)), axis=1)[:, :10]
    items, lengths, noise = corrupt_orders(orders, 100, 3000, random_state=0)
    assert noise.sum() == 2000 and items.size == lengths.sum()
    counts = np.bincount(lengths, minlength=11)[4:]
    assert counts.sum() == n_users and np.all(np.abs(counts / n_users - 1 / 7) < 0.02)
    prefs = Preferences.from_arrays(items, lengths, n_items=100)
    kept = prefs.subset(~noise)
    # a kept list is a random subsequence: each original position survives with
    # probability E[L] / 10 = 0.7, independent of the position
    position = np.concatenate([
        [orders[u].tolist().index(i) for i in pref]
        for u, pref in zip(np.flatnonzero(~noise), kept.to_lists())])
    share = np.bincount(position, minlength=10) / (~noise).sum()
    assert np.all(np.abs(share - 0.7) < 0.03)
    # noise lists use every item about equally often
    appear = prefs.subset(noise).appearances() / noise.sum()
    assert np.all(np.abs(appear - 0.07) < 0.03)


def test_sushi_rejects_a_malformed_file(tmp_path):
    path = tmp_path / "bad.order"
    path.write_text("100 1\n0 3 1 2 3\n0 3 1 2 200\n")
    with pytest.raises(ValueError, match="item ids"):
        load_sushi(path)
