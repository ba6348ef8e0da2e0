"""Containers of tables: Excel workbooks and JSON (lines) become the same tables of text cells."""

from __future__ import annotations

import io
import json
import math
import zipfile
from datetime import date, datetime, time

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ._common import Table

__all__ = ["is_workbook", "sheet_names", "workbook_table", "looks_json", "json_table",
           "WORKBOOK_EXTENSIONS", "JSON_EXTENSIONS"]

WORKBOOK_EXTENSIONS = (".xlsx", ".xlsm")
JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")
_MAX_SHEET_CELLS = 20_000_000


def is_workbook(data: bytes) -> bool:
    """Whether ``data`` is a zipped Office Open XML workbook."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name.startswith("xl/") for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


def _workbook(data: bytes):
    try:
        import openpyxl
    except ImportError:  # pragma: no cover - openpyxl is in requirements.txt
        raise PreferenceFormatError(
            "Reading Excel workbooks needs the openpyxl package, which is not installed.",
            fix="Install it (pip install openpyxl), or save the sheet as CSV.") from None
    try:
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - any damage to the archive
        raise PreferenceFormatError(
            f"The Excel workbook could not be opened ({type(exc).__name__}).",
            fix="Open it in Excel and save it again, or save the sheet as CSV.") from None


def sheet_names(data: bytes) -> tuple[str, ...]:
    """The names of a workbook's sheets, in order."""
    book = _workbook(data)
    try:
        return tuple(book.sheetnames)
    finally:
        book.close()


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 2 ** 53:
            return str(int(value))
        return repr(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (date, time)):
        return value.isoformat()
    return str(value).strip()


def workbook_table(data: bytes, sheet: str | int | None = None) -> tuple[Table, str]:
    """The cells of one sheet as text (the first sheet by default), and the sheet's name."""
    book = _workbook(data)
    try:
        names = book.sheetnames
        position = 0 if sheet is None else sheet
        if isinstance(position, int):
            if not 0 <= position < len(names):
                raise PreferenceFormatError(
                    f"The workbook has {len(names)} sheet(s); there is no sheet "
                    f"{position + 1}.",
                    fix="Choose one of: " + ", ".join(f"'{n}'" for n in names) + ".")
            title = str(names[position])
        else:
            title = str(position)
        if title not in names:
            raise PreferenceFormatError(
                f"The workbook has no sheet called '{title}'.",
                fix="Choose one of: " + ", ".join(f"'{n}'" for n in names) + ".")
        rows, lines, cells = [], [], 0
        for number, values in enumerate(book[title].iter_rows(values_only=True), 1):
            row = [_cell_text(v) for v in values]
            while row and not row[-1]:
                row.pop()
            cells += len(row)
            if cells > _MAX_SHEET_CELLS:
                raise PreferenceFormatError(
                    f"The sheet '{title}' holds more than {_MAX_SHEET_CELLS:,} cells.",
                    fix="Save the sheet as CSV, or remove the columns that are not needed.")
            if row:
                rows.append(row)
                lines.append(number)
        return Table.from_rows(rows, lines, ","), title
    finally:
        book.close()


def looks_json(text: str) -> bool:
    """Whether ``text`` is a JSON array or object, or JSON lines."""
    return text.lstrip()[:1] in ("[", "{")


def json_table(text: str) -> Table:
    """Objects of a JSON array (or of one list inside an object), or JSON lines, as a table.

    Columns are the keys in order of first appearance; a cell is the value as text.
    """
    stripped = text.strip()
    try:
        records = json.loads(stripped)
        numbered = None
    except json.JSONDecodeError as exc:
        records, numbered = _json_lines(text, exc)
    if isinstance(records, dict):
        lists = [v for v in records.values() if isinstance(v, list)]
        if not lists and all(not isinstance(v, dict) for v in records.values()):
            lists = [[records]]
        if len(lists) != 1:
            raise PreferenceFormatError(
                "The JSON file holds one object, not a list of comparisons or rankings.",
                fix="Give a list of objects such as "
                    '[{"model_a": "x", "model_b": "y", "winner": "model_a"}], or one object '
                    "a line.")
        records = lists[0]
    if not isinstance(records, list) or not records:
        raise PreferenceFormatError("The JSON file holds no list of records.",
                                    fix="Give a list of objects, or one object a line.")
    bad = next((i for i, r in enumerate(records) if not isinstance(r, dict)), None)
    if bad is not None:
        raise PreferenceFormatError(
            f"Record {bad + 1} is not an object with named fields.",
            row=numbered[bad] if numbered else bad + 1,
            fix="Write every record as an object such as "
                '{"model_a": "x", "model_b": "y", "winner": "model_a"}.')
    keys = list(dict.fromkeys(k for r in records for k in r))
    frame = pd.DataFrame.from_records(records, columns=keys)
    cells = np.empty((len(frame) + 1, len(keys)), dtype=object)
    cells[0] = [str(k) for k in keys]
    for j, key in enumerate(keys):
        cells[1:, j] = _column_text(frame[key])
    lines = [1] + (list(numbered) if numbered else list(range(1, len(records) + 1)))
    return Table(cells, np.asarray(lines, dtype=np.int64), ",", (len(keys),))


def _column_text(column: pd.Series) -> np.ndarray:
    """A column of JSON values as text cells, converting each distinct value once."""
    try:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # lists or objects in the column: convert cell by cell
        return np.asarray([_json_text(v) for v in column], dtype=object)
    texts = np.asarray([_json_text(u) for u in uniques] + [""], dtype=object)
    return texts[codes]


def _json_lines(text: str, first_error: json.JSONDecodeError):
    records, numbered = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            row = number if len(records) else first_error.lineno
            raise PreferenceFormatError(
                f"This is not valid JSON ({exc.msg}).", row=row,
                fix="Write one complete JSON object per line, or one JSON array.") from None
        numbered.append(number)
    return records, numbered


def _json_text(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value) and abs(value) < 2 ** 53:
        return str(int(value))
    if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
        return " > ".join(str(v) for v in value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value).strip()
