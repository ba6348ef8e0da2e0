"""The method-specific outputs (``RankingResult.extra``): typed, frozen, read-only, picklable."""

import dataclasses
import pickle

import numpy as np
import pytest

from coarsenrank_core import METHODS, Preferences, RankingResult, run_method
from coarsenrank_core.noise import NOISE_TYPES, NoiseResult, spammers
from coarsenrank_core.results import (
    BradleyTerryOutputs,
    ConsensusOutputs,
    CrowdBTOutputs,
    GradientOutputs,
    MixtureOutputs,
    Outputs,
    PeerGraderOutputs,
    SpammerOutputs,
    ThurstoneOutputs,
)
from coarsenrank_core.simulate import pl_orderings, random_subsets

#: The outputs class each registered method documents (exactly this class, not a subclass).
DOCUMENTED = {
    "pl": GradientOutputs,
    "pl-em": Outputs,
    "crowdbt": CrowdBTOutputs,
    "peergrader": PeerGraderOutputs,
    "coarsen-th": ThurstoneOutputs,
    "coarsen-bt": BradleyTerryOutputs,
    "coarsen-pl": Outputs,
    "coarsen-pl-gibbs": Outputs,
    "pl-mix": MixtureOutputs,
    "pl-mix-ranker": MixtureOutputs,
    "consensus": ConsensusOutputs,
    "borda": Outputs,
    "copeland": Outputs,
}

RECORDS = (Outputs, BradleyTerryOutputs, GradientOutputs, ThurstoneOutputs, PeerGraderOutputs,
           CrowdBTOutputs, MixtureOutputs, ConsensusOutputs, SpammerOutputs)


def lists(n_items=6, n_prefs=60, seed=0):
    rng = np.random.default_rng(seed)
    items = random_subsets(n_items, np.full(n_prefs, 4), random_state=rng)
    orders = pl_orderings(items.reshape(n_prefs, 4), np.linspace(2, -2, n_items),
                          random_state=rng)
    return Preferences.from_arrays(orders.ravel(), np.full(n_prefs, 4), n_items=n_items,
                                   rankers=np.arange(n_prefs) % 10)


@pytest.fixture(scope="module")
def results():
    prefs = lists()
    return {method_id: run_method(method_id, prefs, alpha=20.0) for method_id in METHODS}


def arrays(outputs):
    return {name: value for name, value in outputs.items() if isinstance(value, np.ndarray)}


def test_every_registered_method_documents_its_outputs_class():
    assert set(DOCUMENTED) == set(METHODS)


@pytest.mark.parametrize("method_id", list(METHODS))
def test_each_method_returns_its_documented_outputs_record_not_a_plain_dict(method_id, results):
    extra = results[method_id].extra
    assert not isinstance(extra, dict)
    assert type(extra) is DOCUMENTED[method_id]
    assert dataclasses.is_dataclass(extra) and isinstance(extra, Outputs)


def test_a_plain_dict_is_refused_by_the_result_records():
    with pytest.raises(TypeError, match="Outputs"):
        RankingResult(method="x", scores=np.zeros(2), iterations=1, converged=None,
                      seconds=0.0, extra={"reliability": np.ones(2)})
    prefs = lists()
    with pytest.raises(TypeError, match="Outputs"):
        NoiseResult(prefs, np.arange(len(prefs)), np.zeros(len(prefs), bool),
                    extra={"spammers": np.arange(2)})
    assert type(RankingResult("x", np.zeros(2), 1, None, 0.0).extra) is Outputs


@pytest.mark.parametrize("method_id", list(METHODS))
def test_fields_cannot_be_assigned_and_arrays_are_not_writeable(method_id, results):
    extra = results[method_id].extra
    for spec in dataclasses.fields(extra):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(extra, spec.name, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        extra.new_field = 1
    with pytest.raises(TypeError):
        extra["reliability"] = np.ones(3)
    for name, value in arrays(extra).items():
        assert not value.flags.writeable, (method_id, name)
        with pytest.raises(ValueError):
            value[...] = 0


@pytest.mark.parametrize("method_id", list(METHODS))
def test_pickling_round_trips_and_keeps_arrays_read_only(method_id, results):
    result = results[method_id]
    back = pickle.loads(pickle.dumps(result))
    assert type(back) is type(result) and type(back.extra) is type(result.extra)
    assert list(back.extra) == list(result.extra)
    for name, value in result.extra.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(back.extra[name], value)
            assert back.extra[name].dtype == value.dtype
            assert not back.extra[name].flags.writeable, name
        else:
            np.testing.assert_equal(back.extra[name], value)  # NaN equals NaN here
            assert type(back.extra[name]) is type(value)
    np.testing.assert_array_equal(back.scores, result.scores)
    assert not back.scores.flags.writeable


@pytest.mark.parametrize("method_id", list(METHODS))
def test_mapping_access_equals_attribute_access(method_id, results):
    extra = results[method_id].extra
    names = [spec.name for spec in dataclasses.fields(extra)
             if getattr(extra, spec.name) is not None]
    assert list(extra) == list(extra.keys()) == names and len(extra) == len(names)
    for name in names:
        assert name in extra and extra[name] is getattr(extra, name) is extra.get(name)
    assert "no-such-output" not in extra and extra.get("no-such-output", 7) == 7
    with pytest.raises(KeyError):
        extra["no-such-output"]


def test_an_output_left_at_none_is_not_a_key():
    tied = run_method("coarsen-th", Preferences.from_lists([[{0, 1, 2}], [{0, 2}]]))
    assert "entirely tied" in tied.extra.note and tied.extra["note"] == tied.extra.note
    plain = ThurstoneOutputs(objective=0.0, gradient_norm=0.0, message="", n_pairs=1,
                             slope=1.0)
    assert plain.note is None and "note" not in plain and len(plain) == 5
    with pytest.raises(KeyError):
        plain["note"]


def test_arrays_are_typed_read_only_copies():
    a = np.array([3.0, 1.0])
    record = CrowdBTOutputs(reliability=[0.5, 0.25], reliability_a=a, reliability_b=a,
                            score_variance=np.array([1, 2]))
    a[0] = 99.0
    assert record.reliability_a[0] == 3.0 and record.reliability_a is not a
    assert record.reliability.dtype == float and record.score_variance.dtype == float
    assert all(not value.flags.writeable for value in arrays(record).values())
    ids = SpammerOutputs(spammers=[4, 1])
    assert ids.spammers.dtype == np.intp and not ids.spammers.flags.writeable


def test_the_documented_fields_of_every_record():
    expected = {
        Outputs: [],
        BradleyTerryOutputs: ["n_pairs"],
        GradientOutputs: ["objective", "gradient_norm", "message"],
        ThurstoneOutputs: ["objective", "gradient_norm", "message", "n_pairs", "slope", "note"],
        PeerGraderOutputs: ["reliability", "inner_iterations", "newton_steps", "solver",
                            "objective"],
        CrowdBTOutputs: ["reliability", "reliability_a", "reliability_b", "score_variance"],
        MixtureOutputs: ["noise_probability", "reversed_probability", "pi", "pi_uniform",
                         "pi_reversed", "per", "log_posterior"],
        ConsensusOutputs: ["noise_probability", "reversed_probability", "pi", "pi_uniform",
                           "pi_reversed", "per", "log_posterior", "likelihood_ratio",
                           "reversed_ratio", "reversed_kept"],
        SpammerOutputs: ["spammers"],
    }
    assert set(expected) == set(RECORDS)
    for cls, names in expected.items():
        assert [spec.name for spec in dataclasses.fields(cls)] == names, cls
        for name in names:  # numpydoc: every field is described under Attributes
            assert name in cls.__doc__.split("Attributes")[-1], (cls, name)


def test_the_values_are_those_the_methods_describe(results):
    reliability = results["crowdbt"].extra
    np.testing.assert_allclose(reliability.reliability, reliability.reliability_a
                               / (reliability.reliability_a + reliability.reliability_b))
    assert reliability.reliability.shape == (10,) and reliability.score_variance.shape == (6,)
    mixture = results["pl-mix-ranker"].extra
    assert mixture.per == "ranker" and mixture.noise_probability.shape == (10,)
    assert mixture.pi == pytest.approx(mixture.pi_uniform + mixture.pi_reversed)
    assert results["pl-mix"].extra.noise_probability.shape == (60,)
    assert results["peergrader"].extra.reliability.shape == (10,)
    assert isinstance(results["peergrader"].extra.inner_iterations, int)
    assert results["coarsen-bt"].extra.n_pairs == 60 * 6


def test_noise_injectors_report_typed_facts():
    prefs = lists()
    result = spammers(prefs, 0.3, random_state=0)
    assert type(result.extra) is SpammerOutputs
    assert result.extra["spammers"] is result.extra.spammers
    assert result.extra.spammers.size == 3 and not result.extra.spammers.flags.writeable
    back = pickle.loads(pickle.dumps(result))
    np.testing.assert_array_equal(back.extra.spammers, result.extra.spammers)
    assert not back.extra.spammers.flags.writeable
    for kind, noise in NOISE_TYPES.items():
        if kind != "spammers":
            assert type(noise.function(prefs, noise.range[2], random_state=0).extra) is Outputs
