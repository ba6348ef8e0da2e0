"""Workbooks whose first sheet holds notes or instructions rather than the rankings."""

import io
import shlex

import openpyxl
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file
from tests.helpers import note_command, rank_on_the_command_line

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


@pytest.mark.parametrize("sheet", ["Grades of May", 1])
def test_a_notes_command_names_the_sheet_it_read(tmp_path, sheet):
    book = openpyxl.Workbook()
    book.active.title = "Read me"
    book.active.append(["Essays graded in May"])
    grades = book.create_sheet("Grades of May")
    grades.append(["reviewer", "essay", "grade"])
    for reviewer, row in enumerate([[7, 5, 10, 0], [6, 6, 8, 3], [9, 4, 7, 1]]):
        for essay, grade in enumerate(row):
            grades.append([f"R{reviewer}", f"E{essay}", grade])
    path = tmp_path / "grades book.xlsx"
    book.save(path)
    result = read_file(path, options=ReadOptions(sheet=sheet))
    (note,) = [n for n in result.report.notes if "in the command line" in n]
    command = shlex.split(note_command(note))
    assert command[:5] == ["coarsenrank", "rank", path.name, "--sheet", "Grades of May"]
    flipped = rank_on_the_command_line(path, *command[3:])
    assert flipped.returncode == 0, flipped.stderr
    assert "E3" in flipped.stdout.splitlines()[1]  # lower grades better: E3 (0, 3, 1) first
