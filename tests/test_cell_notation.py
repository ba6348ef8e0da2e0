"""One ranking per cell: the arrows and tie marks people type between items."""

import pytest

from coarsenrank_core.io import read_preferences

ROWS = [["Rome", "Paris", "London"], ["Paris", "Rome", "London"], ["London", "Rome", "Paris"]]


def cell_file(separator: str, rows=ROWS) -> bytes:
    lines = ["Name,My ranking"] + [f"P{i},{separator.join(r)}" for i, r in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def lists(data: bytes):
    prefs = read_preferences(data)
    return prefs.item_names, prefs.to_lists(names=True)


@pytest.mark.parametrize("arrow", [" -> ", "->", " --> ", " => ", " >> ", " → ", "→", " » ",
                                   " ⇒ "])
def test_arrows_read_as_the_greater_than_sign(arrow):
    assert lists(cell_file(arrow)) == lists(cell_file(" > "))
    names, _ = lists(cell_file(arrow))
    assert sorted(names) == ["London", "Paris", "Rome"]


@pytest.mark.parametrize("tie", ["|", " | ", " = "])
def test_a_bar_ties_items_as_an_equals_sign_does(tie):
    rows = ["Apple > Banana = Cherry > Date", "Banana > Apple > Date > Cherry",
            f"Cherry > Apple{tie}Banana > Date"]
    data = ("voter,ranking\n" + "\n".join(f"v{i},{r}" for i, r in enumerate(rows))).encode()
    prefs = read_preferences(data)
    assert sorted(prefs.item_names) == ["Apple", "Banana", "Cherry", "Date"]
    expected = read_preferences(data.replace(tie.encode(), b" = "))
    assert prefs.to_lists(names=True) == expected.to_lists(names=True)
    assert prefs.has_ties
