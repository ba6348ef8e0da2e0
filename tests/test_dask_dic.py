"""The Gibbs sweeps of the DIC search on Dask (per-partition seeds) give exactly the curve of
the same partitioned sweep run in one process; the CLI's --engine dask on list data."""

import numpy as np
import pytest

from coarsenrank_core.cli import main
from coarsenrank_core.dask_fit import DaskStages, dic_sweep_dask
from coarsenrank_core.dic import dic_sweep
from coarsenrank_core.io import read_preferences
from coarsenrank_core.models.partitioned import PartitionedDesign
from coarsenrank_core.registry import run_method
from tests.helpers import distributed_or_skip
from tests.test_partitioned import GRID, lists

distributed = distributed_or_skip()
pytestmark = pytest.mark.slow  # each test sends work to a cluster of worker processes


@pytest.fixture(scope="module")
def client(dask_cluster):
    with distributed.Client(dask_cluster) as client:
        yield client


@pytest.fixture(scope="module")
def list_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    rows = ["voter,1st,2nd,3rd,4th"]
    rows += [f"v{i}," + ",".join(rng.permutation(list("abcdef"))[:4]) for i in range(300)]
    path = tmp_path_factory.mktemp("lists") / "lists.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("warm_start", ["chain", None])
def test_the_dic_curve_on_dask_equals_the_partitioned_local_curve(client, warm_start):
    prefs = lists()
    kw = dict(alphas=GRID, burn_in=20, n_draws=30, random_state=5, warm_start=warm_start)
    local = dic_sweep(prefs, design=PartitionedDesign(prefs, 3), **kw)
    design = DaskStages(prefs, client, 3)
    on_dask = dic_sweep(prefs, design=design, **kw)
    design.close()
    np.testing.assert_array_equal(on_dask.f, local.f)  # same draws, same sums in order
    np.testing.assert_array_equal(on_dask.dic, local.dic)
    assert on_dask.knee_alpha == local.knee_alpha


def test_the_convenience_uses_a_running_scheduler(dask_cluster):
    prefs = lists(200)
    kw = dict(alphas=GRID[:3], burn_in=5, n_draws=10, random_state=2)
    curve = dic_sweep_dask(prefs, scheduler=dask_cluster.scheduler_address, n_partitions=2, **kw)
    np.testing.assert_array_equal(curve.dic, dic_sweep(
        prefs, design=PartitionedDesign(prefs, 2), **kw).dic)


def test_cli_dic_with_the_dask_engine_draws_the_partitioned_curve(dask_cluster, list_file, tmp_path,
                                                                   capsys):
    out = tmp_path / "dic.csv"
    assert main(["dic", str(list_file), "--engine", "dask", "--scheduler",
                 dask_cluster.scheduler_address, "--partitions", "3", "--alphas", "2", "20", "200",
                 "--draws", "20", "--burn-in", "20", "--seed", "4", "--out", str(out)]) == 0
    assert "3 partitions" in capsys.readouterr().err
    prefs = read_preferences(list_file)
    expected = dic_sweep(prefs, alphas=[2, 20, 200], n_draws=20, burn_in=20, random_state=4,
                         design=PartitionedDesign(prefs, 3))
    dic = np.loadtxt(out, delimiter=",", skiprows=1, usecols=4)
    np.testing.assert_allclose(dic, expected.dic, rtol=1e-15)


@pytest.mark.parametrize("method", ["pl-em", "coarsen-pl"])
def test_cli_rank_with_the_dask_engine_fits_list_data_on_the_cluster(dask_cluster, list_file,
                                                                     tmp_path, capsys, method):
    out = tmp_path / "rank.csv"
    extra = ["--alpha", "30"] if method == "coarsen-pl" else []
    assert main(["rank", str(list_file), "--engine", "dask", "--scheduler",
                 dask_cluster.scheduler_address, "--method", method, "--out", str(out),
                 *extra]) == 0
    assert "partitions at" in capsys.readouterr().err
    prefs = read_preferences(list_file)
    local = run_method(method, prefs, **({"alpha": 30.0} if extra else {}))  # as the CLI
    table = np.genfromtxt(out, delimiter=",", names=True, dtype=None, encoding="utf-8")
    names = list(prefs.item_names)
    scores = np.array([table["score"][list(table["item"]).index(n)] for n in names])
    np.testing.assert_allclose(scores, local.scores, rtol=1e-8)


def test_cli_rank_default_method_on_dask_says_it_fits_locally(dask_cluster, list_file, capsys):
    assert main(["rank", str(list_file), "--engine", "dask", "--scheduler",
                 dask_cluster.scheduler_address]) == 0
    assert "runs locally" in capsys.readouterr().err


def test_a_tasks_own_error_is_raised_as_it_is_not_as_a_cluster_error(client):
    design = DaskStages(lists(100), client, 2)

    def boom(part):
        raise ValueError("bad data in a partition")

    with pytest.raises(ValueError, match="bad data in a partition"):
        design._map(boom)
