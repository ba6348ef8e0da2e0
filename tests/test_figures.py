"""The paper's published figures (paper/figures.py): complete tables, and the cross-checks the
printed tables allow (a transcription error breaks one of them)."""

import numpy as np
import pytest

from coarsenrank_core.paper import figures
from coarsenrank_core.paper.figures import (
    ABLATION,
    ABLATION_ANNOTATIONS,
    ABLATION_RATIOS,
    ACCURACY,
    COMPUTATION,
    PAPER_METHOD_ORDER,
    RELEASED,
    SCALE,
    SCALE_FACTORS,
)
from coarsenrank_core.registry import METHODS, PAPER_METHODS

DATASETS = {"readlevel", "sushi", "babyface", "peergrading"}


def test_every_table_has_every_paper_method_and_dataset():
    assert set(PAPER_METHOD_ORDER) == set(PAPER_METHODS) and len(set(PAPER_METHOD_ORDER)) == 7
    for table in (ACCURACY, ABLATION, COMPUTATION, SCALE):
        assert tuple(table) == PAPER_METHOD_ORDER
    for method in PAPER_METHOD_ORDER:
        assert set(ACCURACY[method]) == set(COMPUTATION[method]) == DATASETS
        assert len(ABLATION[method]) == len(ABLATION_RATIOS) == len(ABLATION_ANNOTATIONS)
        assert len(SCALE[method]) == len(SCALE_FACTORS)
    assert set(RELEASED) == DATASETS


def test_accuracies_are_fractions_of_pairs_with_four_decimals():
    values = [v for row in ACCURACY.values() for v in row.values()]
    values += [v for row in ABLATION.values() for v in row]
    assert all(0.5 < v < 1 for v in values)
    assert all(round(v, 4) == v for v in values)


def test_the_ablation_at_full_data_is_the_babyface_column_of_the_accuracy_table():
    assert ABLATION_RATIOS[-1] == 1.0
    for method in PAPER_METHOD_ORDER:
        assert ABLATION[method][-1] == ACCURACY[method]["babyface"], method


def test_the_scale_table_at_factor_one_is_the_readlevel_column_of_the_computation_table():
    assert SCALE_FACTORS[0] == 1
    for method in PAPER_METHOD_ORDER:
        assert SCALE[method][0] == COMPUTATION[method]["readlevel"][0], method


def test_times_grow_with_the_data_and_the_ablation_axis_doubles():
    for method in PAPER_METHOD_ORDER:
        assert np.all(np.diff(SCALE[method]) > 0), method
        assert all(mean > 0 and sd > 0 for mean, sd in COMPUTATION[method].values())
    # shares 1 %, 2 %, … 64 % and then all of each annotator's preferences
    np.testing.assert_allclose(np.diff(np.log2(ABLATION_RATIOS[:-1])), 1.0)
    assert ABLATION_RATIOS[-1] == 1.0 and list(SCALE_FACTORS) == sorted(SCALE_FACTORS)
    # annotations per annotator grow in proportion to the share kept
    per_share = np.array(ABLATION_ANNOTATIONS) / np.array(ABLATION_RATIOS)
    np.testing.assert_allclose(per_share, ABLATION_ANNOTATIONS[-1], rtol=0.2)


def test_coarsen_pl_leads_where_the_paper_says_it_does():
    for dataset in ("readlevel", "sushi", "peergrading"):
        best = max(ACCURACY[m][dataset] for m in PAPER_METHOD_ORDER)
        assert ACCURACY["coarsen-pl"][dataset] == best, dataset
    assert ACCURACY["coarsen-pl"]["readlevel"] > ACCURACY["pl-em"]["readlevel"]


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_the_released_hyper_parameters_are_parameters_of_the_registered_methods(dataset):
    for method, params in RELEASED[dataset].items():
        assert method in PAPER_METHODS
        assert set(params) <= set(METHODS[method].parameters), (dataset, method)
        if method != "pl-em":  # plain PL-EM is untempered
            assert params["alpha"] > 0
        else:
            assert "alpha" not in params
        if "calibration" in params:
            assert params["calibration"] > 0 and params["max_iter"] >= 1
            a, b = params["prior"]
            assert a >= 1 and b > 0


def test_the_module_holds_only_the_published_numbers():
    public = {name for name in vars(figures) if name.isupper()}
    assert public == {"PAPER_METHOD_ORDER", "ACCURACY", "ABLATION_RATIOS",
                      "ABLATION_ANNOTATIONS", "ABLATION", "COMPUTATION", "SCALE_FACTORS",
                      "SCALE", "RELEASED"}
