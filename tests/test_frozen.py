"""Read-only building blocks (frozen.py): read-only array copies and the FrozenDict mapping."""

import pickle

import numpy as np
import pytest

from coarsenrank_core.frozen import FrozenDict, readonly_array


def test_readonly_array_is_a_read_only_copy_in_the_asked_dtype():
    assert readonly_array(None) is None
    source = np.array([1, 2, 3])
    out = readonly_array(source)
    assert out.dtype == float and not out.flags.writeable and out.flags.owndata
    source[0] = 7
    assert out.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        out[0] = 5.0
    kept = readonly_array(source, np.int32)
    assert kept.dtype == np.int32 and kept.tolist() == [7, 2, 3]
    assert readonly_array([[1, 2], [3, 4]]).shape == (2, 2)
    # a read-only input is copied too, so a later change of its owner cannot leak in
    frozen = readonly_array(out)
    assert frozen is not out and not np.shares_memory(frozen, out)


def test_frozen_dict_reads_like_a_dict():
    data = FrozenDict({"b": 2, "a": 1}, c=3)
    assert list(data) == ["b", "a", "c"] and len(data) == 3
    assert data["a"] == 1 and data.get("z") is None and "c" in data and "z" not in data
    assert data == {"a": 1, "b": 2, "c": 3} and dict(data) == {"b": 2, "a": 1, "c": 3}
    assert list(data.items()) == [("b", 2), ("a", 1), ("c", 3)]
    assert repr(FrozenDict(x=1)) == "FrozenDict({'x': 1})"
    with pytest.raises(KeyError):
        data["z"]


def test_frozen_dict_cannot_be_changed_and_does_not_follow_its_source():
    source = {"alpha": 3.0}
    data = FrozenDict(source)
    source["alpha"] = 4.0
    source["new"] = 1
    assert dict(data) == {"alpha": 3.0}
    with pytest.raises(TypeError):
        data["alpha"] = 1.0
    with pytest.raises(TypeError):
        del data["alpha"]
    with pytest.raises(AttributeError):
        data.update({"x": 1})
    with pytest.raises(AttributeError):
        data.other = 1  # __slots__: no attribute can be added


def test_frozen_dict_survives_pickling():
    data = FrozenDict(prior=(1.0, 2.0), alpha=np.inf, nested=FrozenDict(k=1))
    back = pickle.loads(pickle.dumps(data))
    assert type(back) is FrozenDict and back == data
    assert type(back["nested"]) is FrozenDict and list(back) == ["prior", "alpha", "nested"]


def _records():
    """One of every engine record that holds arrays, built on tiny data."""
    from coarsenrank_core import run_method
    from coarsenrank_core.alpha import choose_alpha
    from coarsenrank_core.diagnostics import careless_rankers, ranker_disagreement
    from coarsenrank_core.dic import dic_sweep
    from coarsenrank_core.experiments import robustness_curve, scale_test
    from coarsenrank_core.noise import spammers
    from coarsenrank_core.simulate import simulate_pl

    prefs = simulate_pl(6, 40, length=4, random_state=0)[0].with_rankers(np.arange(40) % 8)
    truth = np.arange(6)[::-1].astype(float)
    fit = run_method("coarsen-pl", prefs, alpha=50.0)
    return {
        "Preferences": prefs,
        "PreferenceSummary": prefs.summary(),
        "RankingResult": fit,
        "PosteriorResult": run_method("coarsen-pl-gibbs", prefs, alpha=50.0, random_state=0,
                                      burn_in=5, n_draws=10),
        "DICResult": dic_sweep(prefs, alphas=[5.0, 50.0], burn_in=5, n_draws=10,
                               random_state=0),
        "CVEvidence": choose_alpha(prefs, rule="cv", folds=2).evidence,
        "NoiseResult": spammers(prefs, 0.25, random_state=0),
        "RobustnessResult": robustness_curve(prefs, ["borda"], truth, levels=(0.0, 0.2),
                                             seeds=1),
        "ScaleResult": scale_test(prefs, ["borda"], factors=(1, 2)),
        "RankerAgreement": ranker_disagreement(prefs, fit.scores),
        "CarelessRankers": careless_rankers(prefs),
    }


def test_every_record_keeps_its_arrays_read_only_after_pickling():
    for name, record in _records().items():
        copy = pickle.loads(pickle.dumps(record))
        arrays = {key: value for key, value in vars(copy).items()
                  if isinstance(value, np.ndarray)}
        assert arrays or name == "CVEvidence", name
        for key, value in arrays.items():
            assert not value.flags.writeable, f"{name}.{key} is writeable after unpickling"


def test_a_pickled_collection_carries_its_fields_not_its_layouts():
    from coarsenrank_core import Preferences

    prefs = Preferences.from_pairs(np.arange(1000) % 7, (np.arange(1000) + 1) % 7)
    bare = len(pickle.dumps(prefs))
    prefs.stages, prefs.owner, prefs.pooled  # noqa: B018 - derived layouts, built once
    assert len(pickle.dumps(prefs)) < bare + 200
    copy = pickle.loads(pickle.dumps(prefs))
    assert copy == prefs and copy.weights.strides == (0,)  # unit weights take no memory
    assert copy.rank_break() is copy and copy.pooled.total_weight == 1000
