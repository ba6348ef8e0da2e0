"""The dashboard's α controller (ui/alpha.py), without a page: its setting, the one "quick to
choose" rule, the provisional-then-refine step, and α as text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import ui.alpha as controller
from coarsenrank_core import Preferences, choose_alpha, read_preferences
from coarsenrank_core.defaults import QUICK_CHOICE_ENTRIES
from ui import compute, state
from ui.dataset import Dataset

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
PIZZA = read_preferences(SAMPLE / "pizza_rankings.csv")


@pytest.fixture
def session(monkeypatch):
    """A plain dict as the session state, holding the pizza survey."""
    store: dict = {}
    monkeypatch.setattr(state.st, "session_state", store)
    state.set_current(Dataset(name="pizza", preferences=PIZZA, origin="sample"))
    return store


def lists(n: int, m: int = 10, distinct: bool = True) -> Preferences:
    rng = np.random.default_rng(0)
    orders = [rng.permutation(m).tolist() for _ in range(n)] if distinct else \
        [list(range(m))] * n
    return Preferences.from_lists(orders, n_items=m)


def test_the_setting_keeps_the_rule_and_the_control_apart():
    chosen = controller.AlphaSetting(alpha=8.0, rule="knee", control="button", data_key="k")
    typed = controller.AlphaSetting(alpha=8.0, rule=None, control="typed", data_key="k")
    assert (chosen.token, typed.token) == ("knee", "typed")
    assert chosen.how == "chosen from the data: where the DIC curve levels off"
    assert typed.how == "typed in" and not typed.provisional
    for token in ("knee", "dic-min", "cv", "slider", "typed"):
        back = controller.AlphaSetting.from_token(3.0, token, "k")
        assert back.token == token and back.alpha == 3.0
        assert (back.rule is None) == (token in ("slider", "typed"))


def test_one_quick_to_choose_rule_counts_distinct_entries():
    assert controller.QUICK_CHOICE_ENTRIES == QUICK_CHOICE_ENTRIES
    assert controller.quick_to_choose(PIZZA)
    many = lists(QUICK_CHOICE_ENTRIES // 10 + 1)  # one entry over, every list distinct
    assert many.pooled.items.size > QUICK_CHOICE_ENTRIES
    assert not controller.quick_to_choose(many)
    same = lists(QUICK_CHOICE_ENTRIES, distinct=False)  # 10× over, all one list
    assert same.items.size > QUICK_CHOICE_ENTRIES and controller.quick_to_choose(same)


def test_first_use_chooses_by_the_default_rule_and_keeps_it(session):
    assert controller.peek() is None
    setting = controller.current()
    assert setting.alpha == choose_alpha(PIZZA).alpha
    assert (setting.rule, setting.control) == ("knee", "default")
    assert controller.peek() == setting and controller.current() is setting


def test_slow_data_get_a_provisional_alpha_that_refine_replaces(session, monkeypatch):
    monkeypatch.setattr(controller, "QUICK_CHOICE_ENTRIES", -1)
    compute.alpha_choice.clear()
    setting = controller.current()
    assert setting.provisional and setting.alpha == PIZZA.total_weight
    assert not compute.alpha_choice.peek(PIZZA, state.current().key)  # nothing swept yet
    assert controller.refine()
    refined = controller.current()
    assert refined.alpha == choose_alpha(PIZZA).alpha and not refined.provisional
    assert not controller.refine()  # only a provisional α is refined


def test_a_control_sets_alpha_for_the_data_and_its_noisy_copies(session):
    controller.set_alpha(42.0, None, control="slider")
    original = state.current()
    copy = dataclasses.replace(original, name="copy", parent=original)
    state.set_current(copy)
    assert controller.current().alpha == 42.0 and controller.current().how == "set with the slider"
    controller.set_from_token(7.0, "cv")
    assert (controller.current().rule, controller.current().control) == ("cv", "link")
    state.set_current(Dataset(name="other", preferences=lists(5), origin="upload"))
    assert controller.peek() is None  # α belongs to the data it was set for


def test_alpha_as_text(session):
    assert controller.alpha_input_text(float("inf")) == "inf"
    assert controller.alpha_input_text(12.5) == "12.5"
    assert controller.parse_alpha(" ∞ ") == float("inf")
    assert controller.parse_alpha("12.5") == 12.5
    assert controller.parse_alpha("0") is None and controller.parse_alpha("x") is None
    assert controller.alpha_text(30.0) == "α = 30 (τ = 0.5)"
    assert controller.alpha_text(float("inf")) == "α = ∞ (τ = 1, the plain model)"
