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
