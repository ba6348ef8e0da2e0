"""Header rules found by content (issue 18): group-title rows above the header, columns of a
few values beside rank columns, and ranks written beside item names (``**x** 3rd``).

Each rule has a property over random layouts with random metadata columns inserted anywhere:
the read is unchanged, or refused with a reason; it is never different.
"""

import io

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError, read_file
from tests.test_io_content import (
    LAYOUTS,
    PROPERTY,
    insert,
    metadata,
    rankings,
    read_or_refuse,
    to_csv,
)

GROUP_TITLES = ["Respondent", "About you", "Ranking", "Your answers", "Ballot", "Other",
                "Section 2: pizzas"]


def workbook(rows, merges=()) -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append([c if c != "" else None for c in row])
    for first, last in merges:
        sheet.merge_cells(start_row=1, start_column=first + 1, end_row=1, end_column=last + 1)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def group_row(kinds, titles):
    """One title at the start of each run of columns of a kind (as merged cells read)."""
    row, merges, start = [""] * len(kinds), [], 0
    for j in range(1, len(kinds) + 1):
        if j == len(kinds) or kinds[j] != kinds[start]:
            row[start] = titles[len(merges) % len(titles)]
            merges.append((start, j - 1))
            start = j
    return row, merges


def same_read(result, plain):
    """Both refused, or both read to the same rankings, weights and rankers."""
    if plain is None or result is None:
        assert result is None or plain is None
        return
    before, after = plain.preferences, result.preferences
    assert after.to_lists(names=True) == before.to_lists(names=True), result.report.lines()
    assert after.weights.tolist() == before.weights.tolist()
    assert after.ranker_names == before.ranker_names


# ---------------------------------------------------------------------------- group titles
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@PROPERTY
@given(data=rankings(), voter=st.booleans(), extra=st.data(),
       titles=st.permutations(GROUP_TITLES), as_workbook=st.booleans())
def test_property_a_group_title_row_above_the_header_never_changes_a_read(
        layout, data, voter, extra, titles, as_workbook):
    names, lists = data
    head, rows, owner = LAYOUTS[layout](names, lists, voter)
    columns = extra.draw(st.lists(metadata(len(lists)), max_size=4))
    positions = extra.draw(st.lists(st.integers(0, 30), min_size=len(columns),
                                    max_size=len(columns)))
    with_meta, rows = insert(head, rows, owner, columns, positions)
    kinds = [t in head for t in with_meta]  # the layout's own columns, or metadata
    above, merges = group_row(kinds, titles)
    at = [j for j, c in enumerate(above) if c]
    # a merged span shows as a blank before or between titles (a row like 'a,b' over 'c,d,e'
    # could as well be a short first ranking)
    assume(at[0] > 0 or any(b - a > 1 for a, b in zip(at, at[1:])))
    plain = read_or_refuse(to_csv(with_meta, rows))
    if as_workbook:
        grouped = read_or_refuse(workbook([above, with_meta, *rows], merges))
    else:
        grouped = read_or_refuse(to_csv(above, [with_meta, *rows]))
    same_read(grouped, plain)
    if grouped is not None:
        assert grouped.report.header_rows == plain.report.header_rows + 1


def test_group_titles_over_three_blocks_merge_into_one_header():
    lists = [["Hawaii", "Funghi", "Diavola"], ["Funghi", "Diavola", "Hawaii"],
             ["Diavola", "Hawaii", "Funghi"], ["Hawaii", "Diavola", "Funghi"]]
    above = ["Respondent", "", "Ranking", "", "", "Other"]
    head = ["Name", "", "Rank 1", "Rank 2", "Rank 3", "Comments"]
    rows = [[f"Person {i}", f"p{i}@example.org", *r, "great" if i % 2 else "too loud"]
            for i, r in enumerate(lists)]
    for data in (to_csv(above, [head, *rows]),
                 workbook([above, head, *rows], [(0, 1), (2, 4)])):
        result = read_file(data)
        assert result.preferences.to_lists(names=True) == lists
        assert result.report.header_rows == 2
        # the e-mail column's blank title is its group's: 'Respondent'
        assert "Respondent" in " ".join(result.report.lines())


def test_a_short_first_ranking_is_not_a_group_title_row():
    text = b"a,b\na,b,c\nc,b,a\nb,c,a\n"
    assert read_file(text).preferences.to_lists(names=True)[0] == ["a", "b"]
    # R's write.csv: an untitled first column of row numbers under a shorter header
    ranks = b",x,y,z\n1,1,2,3\n2,3,1,2\n3,2,3,1\n"
    assert read_file(ranks).preferences.item_names == ("x", "y", "z")


# ---------------------------------------------------------------------------- few values
FEW = {"Precinct": ["P 101", "P 102", "P 205"], "Ballot Style": ["BS 1", "BS 2"],
       "Area": ["North", "South"], "Group": ["x", "y", "z"], "Tabulator": ["3", "4"],
       "Contest": ["Mayor"], "Batch": ["A", "B", "C"]}


@st.composite
def many_rankings(draw):
    """10 to 40 strict rankings of three to five named items."""
    names = draw(st.lists(st.sampled_from(["Hawaii", "Funghi", "Diavola", "Margherita",
                                           "Pepperoni", "Quattro", "Marinara"]),
                          min_size=3, max_size=5, unique=True))
    lists = [draw(st.permutations(names))[:draw(st.integers(2, len(names)))]
             for _ in range(draw(st.integers(10, 40)))]
    return names, lists


@PROPERTY
@given(data=many_rankings(), extra=st.data(),
       title=st.sampled_from(["Rank {}", "Choice {}", "Candidate {}", "Q5_{}", "{} choice",
                              "Mayor {} Choice"]))
def test_property_few_valued_columns_beside_rank_columns_are_not_items(data, extra, title):
    names, lists = data
    width = max(len(r) for r in lists)
    head = [title.format(ordinal(k + 1) if "choice" in title.lower() else k + 1)
            for k in range(width)]
    rows = [list(r) + [""] * (width - len(r)) for r in lists]
    plain = read_file(to_csv(head, rows))
    chosen = extra.draw(st.lists(st.sampled_from(sorted(FEW)), min_size=1, max_size=3,
                                 unique=True))
    columns = [(t, [extra.draw(st.sampled_from(FEW[t])) for _ in lists]) for t in chosen]
    columns += extra.draw(st.lists(metadata(len(lists)), max_size=2))
    positions = extra.draw(st.lists(st.integers(0, 30), min_size=len(columns),
                                    max_size=len(columns)))
    result = read_or_refuse(to_csv(*insert(head, rows, None, columns, positions)))
    if result is None:
        return
    after = result.preferences
    assert after.to_lists(names=True) == plain.preferences.to_lists(names=True), \
        result.report.lines()
    assert not set(after.item_names) - set(names)


# ---------------------------------------------------------------------------- written ranks
MARKUP = ["**{}**", "__{}__", "*{}*", "<b>{}</b>", "{}"]
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(k: int) -> str:
    return ORDINAL.get(k, f"{k}th")


@pytest.mark.parametrize("layout", ["wide", "cell"])
@PROPERTY
@given(data=rankings(), voter=st.booleans(), extra=st.data(),
       markup=st.sampled_from(MARKUP), style=st.sampled_from(["{} {}", "{} ({})", "{}: {}"]))
def test_property_ranks_written_beside_names_read_as_those_ranks(layout, data, voter, extra,
                                                                 markup, style):
    names, lists = data
    head, rows, owner = LAYOUTS[layout](names, lists, voter)
    plain = read_file(to_csv(head, rows))
    written = []
    for n, ranking in enumerate(lists):
        cells = [style.format(markup.format(item), ordinal(k + 1))
                 for k, item in enumerate(ranking)]
        cells = extra.draw(st.permutations(cells))  # the written rank decides, not the order
        if layout == "wide":
            width = len(head) - voter
            written.append(([f"r{n}"] if voter else []) + cells + [""] * (width - len(cells)))
        else:
            written.append(([f"r{n}"] if voter else []) + ["; ".join(cells)])
    columns = extra.draw(st.lists(metadata(len(lists)), max_size=3))
    positions = extra.draw(st.lists(st.integers(0, 30), min_size=len(columns),
                                    max_size=len(columns)))
    result = read_or_refuse(to_csv(*insert(head, written, owner, columns, positions)))
    if result is None:
        return
    assert result.preferences.to_lists(names=True) == plain.preferences.to_lists(names=True), \
        result.report.lines()


def test_a_rank_beside_only_some_names_is_refused_naming_the_notation():
    text = b"voter,c1,c2,c3\nv1,**x** 2nd,y,z\nv2,y,z,x\nv3,z,x,y\n"
    with pytest.raises(PreferenceFormatError, match="notation 'name 2nd' with emphasis"):
        read_file(text)


def test_an_ordinal_that_belongs_to_a_name_stays():
    text = b"voter,1st,2nd,3rd\nv1,Henry 8th,Mary,Anne\nv2,Mary,Henry 8th,Anne\n"
    assert read_file(text).preferences.to_lists(names=True)[0] == ["Henry 8th", "Mary", "Anne"]
    kings = (b"voter,1st,2nd,3rd\nv1,Henry 8th,Henry 7th,Edward 6th\n"
             b"v2,Edward 6th,Henry 8th,Henry 7th\n")
    assert read_file(kings).preferences.to_lists(names=True)[1] == ["Edward 6th", "Henry 8th",
                                                                    "Henry 7th"]


def test_a_short_first_ranking_written_with_ranks_is_data_not_a_title_row():
    # found by the property above: with '; ' read as the delimiter, the first ranking fills
    # fewer cells than those below and its cells ('x 1st') never recur as they stand
    text = (b"ranking\n**x** 1st; **y** 2nd\n**y** 1st; **x** 2nd; **z** 3rd\n"
            b"**y** 1st; **x** 2nd; **z** 3rd; **w** 4th\n")
    assert read_file(text).preferences.to_lists(names=True) == [
        ["x", "y"], ["y", "x", "z"], ["y", "x", "z", "w"]]
