"""The default fit and the command line on data a probe found them wrong on: one rater's many
copies against many raters, raters split between an order and its reverse, an iteration
limit, groups never compared, a stalled line search, score ranges."""

from __future__ import annotations

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.cli import main
from coarsenrank_core.connectivity import one_way_items_text
from coarsenrank_core.io import read_file
from coarsenrank_core.models.mixture import pl_mixture
from coarsenrank_core.registry import run_method
from coarsenrank_core.uncertainty import rank_uncertainty

ITEMS = ("A", "B", "C", "D", "E")


def lists(orders, rankers) -> Preferences:
    names = {n: i for i, n in enumerate(ITEMS)}
    flat = [names[n] for order in orders for n in order]
    return Preferences.from_arrays(np.array(flat), np.array([len(o) for o in orders]),
                                   n_items=len(ITEMS), rankers=np.asarray(rankers),
                                   item_names=ITEMS)


def one_rater_repeating(copies: int = 20) -> Preferences:
    """One rater sends A>B>C>D>E ``copies`` times; 16 raters answer E>D>C>B>A once and 4
    answer at random."""
    rng = np.random.default_rng(3)
    orders = [list(ITEMS)] * copies + [list(ITEMS[::-1])] * 16
    orders += [list(rng.permutation(ITEMS)) for _ in range(4)]
    return lists(orders, [0] * copies + list(range(1, 21)))


@pytest.mark.parametrize("copies", [20, 200])
def test_one_rater_sending_one_list_many_times_does_not_outvote_sixteen_raters(copies):
    prefs = one_rater_repeating(copies)
    fit = run_method("consensus", prefs)
    assert [ITEMS[i] for i in fit.order] == list(ITEMS[::-1])


@pytest.mark.parametrize("split", [(12, 10), (10, 12)])
def test_raters_split_between_an_order_and_its_reverse_are_not_reported_certain(split):
    ahead, behind = split
    orders = [list(ITEMS)] * ahead + [list(ITEMS[::-1])] * behind
    prefs = lists(orders, range(ahead + behind))
    fit = run_method("consensus", prefs)
    spread = rank_uncertainty(prefs, fit=fit, random_state=0)
    first, last = (0, 4) if ahead > behind else (4, 0)
    assert fit.order[0] == first  # the majority's order ...
    assert 0.1 < spread.p_first[last] < spread.p_first[first] < 0.9  # ... but not certainly
    assert spread.rank_low[first] == 1 and spread.rank_high[first] == 5
    assert spread.p_first[first] == spread.p_first.max()  # the chances agree with the order


def test_a_mixtures_careful_share_is_held_at_one_half_or_more():
    prefs = one_rater_repeating(20)
    for reversed_component in (False, True):
        for per in ("ranker", "list"):
            fit = pl_mixture(prefs, per=per, reversed_component=reversed_component)
            assert fit.extra["pi"] <= 0.5 + 1e-12


def test_an_iteration_limit_that_stops_the_careless_test_reports_no_convergence(capsys):
    code = main(["rank", "sample_data/pizza_rankings.csv", "--max-iter", "3"])
    err = capsys.readouterr().err
    assert code == 0 and "not converged" in err
    main(["rank", "sample_data/pizza_rankings.csv"])
    assert ", converged" in capsys.readouterr().err


DISCONNECTED = b"left,right,winner\nA,B,A\nA,B,A\nB,A,B\nC,D,C\nC,D,C\nD,C,D\n"


@pytest.mark.parametrize("command", [["compare", "--methods", "pl-em", "borda"], ["dic"]])
def test_compare_and_dic_warn_of_groups_never_compared(tmp_path, capsys, command):
    data = tmp_path / "groups.csv"
    data.write_bytes(DISCONNECTED)
    argv = [command[0], str(data), *command[1:]]
    if command[0] == "compare":
        truth = tmp_path / "truth.csv"
        truth.write_text("item,rank\nA,1\nB,2\nC,3\nD,4\n")
        argv += ["--truth", str(truth)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "2 groups that are never compared" in err
    assert ("counts the pairs across these groups" in err) == (command[0] == "compare")


def test_the_one_way_warning_does_not_promise_an_order_the_prior_may_break():
    prefs = read_file(b"worker,left,right,winner\nw1,A,B,A\nw2,B,A,B\nw3,A,C,A\nw4,C,A,C\n"
                      b"w5,B,C,B\nw6,C,B,C\nw7,A,B,A\nw8,B,C,B\nw9,C,A,A\nw1,D,A,D\n"
                      ).preferences
    fit = run_method("consensus", prefs)
    d, a = prefs.item_names.index("D"), prefs.item_names.index("A")
    said = one_way_items_text(prefs)
    assert "Never beaten by the rest: D" in said
    if fit.ranks[d] > fit.ranks[a]:  # placed below the item it beat: the warning says why
        assert "below one it beat" in said and "order follows the answers" not in said


def test_a_thurstone_fit_whose_line_search_stalls_at_the_optimum_has_converged():
    data = (b"rater,list,item,rank\nr0,0,it5,1\nr0,0,it2,2\nr0,1,it5,1\nr0,1,it4,2\n"
            b"r0,1,it1,3\nr0,1,it0,4\nr0,1,it3,5\nr1,0,it2,1\nr1,0,it3,2\nr1,0,it0,2\n"
            b"r1,0,it1,4\nr2,0,it4,1\nr2,0,it3,2\nr2,0,it2,3\nr2,0,it1,4\nr2,0,it0,5\n"
            b"r2,0,it5,6\nr3,0,it1,1\nr3,0,it3,2\n")
    fit = run_method("coarsen-th", read_file(data).preferences)
    assert fit.converged


def test_every_score_range_holds_the_items_own_score():
    rng = np.random.default_rng(0)
    n_items, n_lists = 300, 3
    orders = [rng.permutation(n_items)[:100] for _ in range(n_lists)]
    prefs = Preferences.from_arrays(np.concatenate(orders), np.full(n_lists, 100),
                                    n_items=n_items, rankers=np.arange(n_lists))
    fit = run_method("consensus", prefs)
    spread = rank_uncertainty(prefs, fit=fit, random_state=0, n_draws=30)
    assert np.all(spread.lower <= fit.scores) and np.all(fit.scores <= spread.upper)


@pytest.mark.parametrize("page", ["pages/compare.py", "pages/dic.py", "pages/noise.py"])
def test_compare_dic_and_noise_pages_warn_of_groups_never_compared(page):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../app.py", default_timeout=240).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("My own file").run()
    at.file_uploader(key="upload_file").set_value(("groups.csv", DISCONNECTED, "text/csv"))
    at.run()
    at.button(key="confirm_upload").click().run()
    at = at.switch_page(page).run()
    assert not at.exception
    assert any("2 groups that are never compared" in w.value for w in at.warning)
