"""The exposure check: Spearman's ρ between appearances and scores, and its warning."""

import numpy as np
import pytest

from coarsenrank_core import Preferences, run_method
from coarsenrank_core.exposure import EXPOSURE_WARNING, exposure_check
from coarsenrank_core.simulate import simulate_rankers, true_worths


@pytest.mark.parametrize("exposure, direction", [(-1.0, "weaker"), (1.0, "stronger")])
def test_items_shown_by_their_worth_are_named_in_the_warning(exposure, direction):
    sim = simulate_rankers(true_worths(20, 1.5, "even"), 200, 4, exposure=exposure,
                           random_state=0)
    check = exposure_check(sim.preferences, run_method("pl-em", sim.preferences).scores)
    assert check.warn and check.direction == direction
    assert np.sign(check.rho) == np.sign(exposure) and abs(check.rho) > 0.8
    message = check.message()
    assert message.startswith(f"{direction.capitalize()} items were shown more often")
    assert "every method's answer here depends on that" in message
    assert "Compare page" in message  # what the user can do


def test_uniform_exposure_gives_no_warning():
    sim = simulate_rankers(true_worths(20, 1.5, "even"), 300, 4, random_state=0)
    check = exposure_check(sim.preferences, run_method("pl-em", sim.preferences).scores)
    assert abs(check.rho) < EXPOSURE_WARNING and not check.warn
    assert check.direction == "none" and check.message() is None


def test_full_rankings_show_every_item_equally_and_give_no_correlation():
    prefs = Preferences.from_lists([[0, 1, 2, 3], [1, 0, 3, 2]] * 3)
    check = exposure_check(prefs, np.array([4.0, 3.0, 2.0, 1.0]))
    assert np.isnan(check.rho) and not check.warn and check.items == 4


def test_items_never_shown_are_left_out_and_the_rho_is_spearmans():
    prefs = Preferences.from_lists([[0, 1], [0, 2], [0, 3], [1, 2], [1, 0]], n_items=5)
    scores = np.array([5.0, 4.0, 3.0, 1.0, 9.0])
    check = exposure_check(prefs, scores)
    assert check.items == 4
    shown = np.array([4, 3, 2, 1])  # appearances of items 0..3; item 4 never appears
    ranks_a = np.argsort(np.argsort(shown))
    ranks_b = np.argsort(np.argsort(scores[:4]))
    assert check.rho == pytest.approx(np.corrcoef(ranks_a, ranks_b)[0, 1])


def test_scores_of_the_wrong_length_are_refused():
    with pytest.raises(ValueError, match="one number per item"):
        exposure_check(Preferences.from_lists([[0, 1]]), [1.0])


def test_the_exact_p_value_counts_every_pairing_as_brute_force_does():
    from itertools import permutations

    from coarsenrank_core.exposure import _exact_p_value

    shown = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])  # a tie, as appearances often have
    scores = np.array([2.0, 7.0, 1.0, 8.0, 2.5, 0.5])

    def rho(x, y):
        rx, ry = (np.argsort(np.argsort(v)).astype(float) for v in (x, y))
        for r, v in ((rx, x), (ry, y)):  # average ranks over ties
            for value in np.unique(v):
                r[v == value] = r[v == value].mean()
        return np.corrcoef(rx, ry)[0, 1]

    observed = abs(rho(shown, scores))
    pairings = [abs(rho(np.array(p), scores)) for p in permutations(shown)]
    expected = np.mean(np.array(pairings) >= observed - 1e-12)
    assert _exact_p_value(shown, scores) == pytest.approx(expected)


def test_a_strong_but_chance_correlation_over_few_items_is_not_warned():
    # five items: ρ = 0.67 between appearances (2, 4, 6, 6, 6) and scores, which 3 in 10
    # of all pairings reach (p = 0.3): a warning would blame the design for chance
    prefs = Preferences.from_lists([[0, 1], [1, 2], [1, 2], [2, 3], [2, 3], [2, 3],
                                    [3, 4], [3, 4], [3, 4], [4, 0], [4, 1], [4, 2]])
    scores = np.array([1.0, 3.0, 2.0, 5.0, 4.0])
    check = exposure_check(prefs, scores)
    assert check.rho > EXPOSURE_WARNING and check.p_value > 0.05
    assert not check.warn and check.message() is None


def test_items_shown_at_random_in_small_data_sets_are_rarely_warned_about():
    from coarsenrank_core.simulate import simulate_pl

    warned = 0
    for seed in range(40):
        prefs, _ = simulate_pl(5, 10, length=2, random_state=seed)
        warned += exposure_check(prefs, run_method("pl-em", prefs).scores).warn
    assert warned <= 4  # 18 of these 40 were warned about on |ρ| > 0.5 alone
