"""Workbooks whose first sheet holds notes or instructions rather than the rankings."""

import io

import openpyxl
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file

FILMS = ["Film A", "Film B", "Film C", "Film D"]


def workbook(first: list[list[str]]) -> bytes:
    book = openpyxl.Workbook()
    notes = book.active
    notes.title = "Read me"
    for row in first:
        notes.append(row)
    answers = book.create_sheet("Form responses 1")
    answers.append(["Timestamp"] + [f"Rank the films [{f}]" for f in FILMS])
    for k, order in enumerate([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]]):
        answers.append([f"2024/03/0{k + 1} 10:00"] + [f"{r}st" if r == 1 else str(r)
                                                       for r in order])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_first_sheet_of_notes_gives_way_to_the_sheet_of_rankings_with_a_note():
    data = workbook([["Survey of class 3B, collected March 2024"], ["Do not edit"]])
    result = read_file(data)
    assert result.report.sheet == "Form responses 1"
    assert list(result.preferences.item_names) == FILMS
    assert any("The first sheet, 'Read me', was not read" in n for n in result.report.notes)
    chosen = read_file(data, options=ReadOptions(sheet="Read me"))  # chosen: as it stands
    assert chosen.report.sheet == "Read me" and len(chosen.preferences) < 2


def test_a_first_sheet_that_cannot_be_read_names_the_other_sheets():
    data = workbook([["Please rank the projects. 1 = best."]])
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data)
    assert "first sheet, 'Read me'" in info.value.fix
    assert "'Form responses 1'" in info.value.fix
