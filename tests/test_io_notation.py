"""io.notation: ranks written beside item names (``**x** 3rd``), read or refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io.notation import strip_markup, written_ranks


@pytest.mark.parametrize("text, out", [("**x**", ("x", True)), ("__x y__", ("x y", True)),
                                       ("<b>x</b>", ("x", True)), ("<STRONG>x</STRONG>",
                                                                   ("x", True)),
                                       (" x ", ("x", False)), ("**", ("**", False)),
                                       ("a*b*", ("a*b*", False))])
def test_strip_markup(text, out):
    assert strip_markup(text) == out


def entries(rows):
    """pref, group, item, names of rows of item names in cell order."""
    names = list(dict.fromkeys(n for row in rows for n in row))
    pref = np.array([i for i, row in enumerate(rows) for _ in row])
    group = np.array([k for row in rows for k in range(len(row))])
    item = np.array([names.index(n) for row in rows for n in row])
    return pref, group, item, tuple(names)


def lists(pref, group, item, names):
    out: dict[int, list[list[str]]] = {}
    for p, g, i in zip(pref, group, item):
        stages = out.setdefault(int(p), [])
        if len(stages) <= g:
            stages.append([])
        stages[g].append(names[i])
    return [[sorted(s) for s in stages] for _, stages in sorted(out.items())]


def test_ranks_beside_marked_names_decide_the_order():
    pref, group, item, names = entries([["**b** 2nd", "**a** 1st"], ["**a** 2nd", "**b** 1st",
                                                                    "**c** 2nd"]])
    *read, new_names, notes = written_ranks(pref, group, item, names, np.array([2, 3]))
    assert new_names == ("b", "a", "c")
    assert lists(*read, new_names) == [[["a"], ["b"]], [["b"], ["a", "c"]]]  # equal ranks tie
    assert "'**b** 2nd' as 'b' at rank 2" in notes[0]


def test_plain_ordinals_need_rankings_of_exactly_one_to_k():
    rows = [["x 2nd", "y 1st", "z 3rd"], ["z 1st", "x 2nd"]]
    *read, new_names, _ = written_ranks(*entries(rows), np.array([2, 3]))
    assert lists(*read, new_names) == [[["y"], ["x"], ["z"]], [["z"], ["x"]]]
    kings = [["Henry 8th", "Henry 7th"], ["Henry 7th", "Edward 6th"]]
    pref, group, item, names = entries(kings)
    assert written_ranks(pref, group, item, names, np.array([2, 3]))[3] == names


def test_only_some_marked_names_with_ranks_are_refused_naming_the_notation():
    pref, group, item, names = entries([["**x** (2nd)", "y"], ["y", "x"]])
    with pytest.raises(PreferenceFormatError, match=r"notation 'name 2nd' with emphasis") as info:
        written_ranks(pref, group, item, names, np.array([5, 6]), "ballot")
    assert info.value.row == 5 and info.value.column == "ballot"


def test_names_without_ranks_are_unchanged():
    pref, group, item, names = entries([["a", "b"], ["b", "Henry 8th"]])
    out = written_ranks(pref, group, item, names, np.array([2, 3]))
    assert out[3] == names and out[4] == [] and out[2] is item


def test_the_note_quotes_an_item_read_by_its_written_rank_not_a_title_row():
    # a title read as a one-item row comes first; the note must name a ranked item
    rows = [["Islands"], ["Hawaii 1st", "Fiji 2nd"], ["Fiji 1st", "Hawaii 2nd"]]
    *_, notes = written_ranks(*entries(rows), np.array([1, 2, 3]))
    assert "'Hawaii 1st' as 'Hawaii' at rank 1" in notes[0]
    assert "Islands" not in notes[0]
