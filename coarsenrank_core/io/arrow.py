"""Parquet, Arrow IPC and Feather files as the same tables of text cells as CSV (pyarrow)."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from .tables import MAX_GRID_CELLS, Table, scalar_text

__all__ = ["ARROW_EXTENSIONS", "is_arrow", "arrow_table", "arrow_reader"]

ARROW_EXTENSIONS = (".parquet", ".pq", ".arrow", ".feather", ".ipc")
_PARQUET_MAGIC = b"PAR1"
_ARROW_MAGIC = b"ARROW1"
_FEATHER_V1_MAGIC = b"FEA1"


def is_arrow(data: bytes) -> bool:
    """Whether ``data`` is a Parquet file, an Arrow IPC (Feather v2) file or Feather v1."""
    return ((data[:4] == _PARQUET_MAGIC and data[-4:] == _PARQUET_MAGIC)
            or data[:6] == _ARROW_MAGIC or data[:4] == _FEATHER_V1_MAGIC)


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:  # pragma: no cover - pyarrow is in requirements.txt
        raise PreferenceFormatError(
            "Reading Parquet, Arrow or Feather files needs the pyarrow package, which is not "
            "installed.",
            fix="Install it (pip install pyarrow), or save the table as CSV.") from None
    return pyarrow


def arrow_reader(data: bytes) -> Any:
    """The file as a :class:`pyarrow.Table` (Parquet, Arrow IPC file or stream, Feather)."""
    pa = _pyarrow()
    try:
        if data[:4] == _PARQUET_MAGIC:
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(pa.BufferReader(data)).metadata
            _refuse_cells(int(meta.num_rows), int(meta.num_columns))
            return pq.read_table(pa.BufferReader(data))
        import pyarrow.feather as feather
        import pyarrow.ipc as ipc

        if data[:6] == _ARROW_MAGIC or data[:4] == _FEATHER_V1_MAGIC:
            return feather.read_table(pa.BufferReader(data))
        return ipc.open_stream(io.BytesIO(data)).read_all()
    except PreferenceFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - any damage to the file
        raise PreferenceFormatError(
            f"The Parquet/Arrow file could not be read ({type(exc).__name__}).",
            fix="Write it again (e.g. pandas' to_parquet), or save the table as CSV.") from None


def _text(value: object) -> str:
    """One cell as the CSV reader would see it: integral floats without '.0', nulls blank."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    scalar = scalar_text(value)
    if scalar is not None:
        return scalar
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace").strip()
    if isinstance(value, dict) or isinstance(value, (list, tuple)) and any(
            isinstance(v, dict) for v in value):
        return json.dumps(value, ensure_ascii=False, default=str)  # records, as in JSON
    if isinstance(value, (list, tuple)):  # a list best first; a list inside it, a tie
        return " > ".join(" = ".join(_text(m) for m in v) if isinstance(v, (list, tuple))
                          else _text(v) for v in value)
    return str(value).strip()


def _column_cells(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """A column as text cells, converting each distinct value once (dictionary-encoded),
    and whether each cell holds more than white space."""
    pa = _pyarrow()
    import pyarrow.compute as pc

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    try:
        encoded = pc.dictionary_encode(column) if not pa.types.is_dictionary(
            column.type) else column
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # nested values: one by one
        cells = np.asarray([_text(v) for v in column.to_pylist()], dtype=object)
        return cells, np.asarray([bool(c.strip()) for c in cells], dtype=bool)
    texts = np.asarray([_text(v) for v in encoded.dictionary.to_pylist()] + [""], dtype=object)
    filled = np.asarray([bool(t.strip()) for t in texts], dtype=bool)
    codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.intp)
    codes[codes < 0] = len(texts) - 1
    return texts[codes], filled[codes]


def _nested_columns(table: Any, names: list[str], lines: np.ndarray) -> dict[str, np.ndarray]:
    """The rankings held in list-of-struct columns (Nectar's ``answers``: each struct names
    its item and gives it a rank or a score; or a column picks one struct by its position),
    one text column each, as the JSON reader builds them
    (:func:`~coarsenrank_core.io.containers.nested_rankings`,
    :func:`~coarsenrank_core.io.containers.chosen_rankings`)."""
    pa = _pyarrow()
    from .containers import CHOSEN_INDEX, built_from, chosen_rankings, nested_rankings

    found: dict[str, np.ndarray] = {}
    records: dict[str, pd.Series] = {}
    for name, column in zip(names, table.columns):
        kind = column.type
        if CHOSEN_INDEX.fullmatch(name) and pa.types.is_integer(kind):
            records[name] = pd.Series(column.to_pylist(), dtype=object)
        if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) \
                or not pa.types.is_struct(kind.value_type):
            continue
        records[name] = values = pd.Series(column.to_pylist(), dtype=object)
        found.update({title: texts for title, texts in nested_rankings(
            name, values, lines.tolist()).items() if title not in names})
    found.update({title: texts for title, texts in chosen_rankings(
        pd.DataFrame(records)).items() if title not in names and not built_from(title, found)})
    return found


def _refuse_cells(rows: int, columns: int) -> None:
    """Refuse a file whose metadata declares more rows than a file within the upload limit
    could hold as text (10 M: a few hundred kilobytes of repeated values can declare 50 M),
    or more than four times the cells a table may hold: checked before reading."""
    if rows > MAX_GRID_CELLS // 2 or rows * max(columns, 1) > 4 * MAX_GRID_CELLS:
        raise PreferenceFormatError(
            f"The file holds {rows:,} rows of {columns:,} columns, more than can be read "
            f"whole ({MAX_GRID_CELLS // 2:,} rows, {4 * MAX_GRID_CELLS:,} cells; a CSV file "
            "within the upload limit holds fewer).",
            fix="Read it in parts, or, for a pairwise file, with the chunked reader (--stream) "
                "or on Dask, which count the comparisons without holding them as cells.")


def arrow_table(data: bytes) -> Table:
    """A Parquet/Arrow/Feather file as a table: its column names, then one record a row.

    Record ``k`` (counting from 1) is row ``k``, as for JSON records; the column names are
    the header, so detection and the reading report work as for a CSV file.
    """
    table = arrow_reader(data)
    names = [str(n) for n in table.column_names]
    if not names:
        raise PreferenceFormatError("The Parquet/Arrow file has no columns.",
                                    fix="Write the comparisons or rankings as columns.")
    lines = np.arange(table.num_rows + 1, dtype=np.int64)
    lines[0] = 1
    nested = _nested_columns(table, names, lines[1:])
    cells = np.empty((table.num_rows + 1, len(names) + len(nested)), dtype=object)
    cells[0] = names + list(nested)
    filled = np.zeros(table.num_rows + 1, dtype=bool)
    filled[0] = True
    for j in range(len(names)):
        cells[1:, j], column_filled = _column_cells(table.column(j))
        filled[1:] |= column_filled
    for j, texts in enumerate(nested.values(), len(names)):
        cells[1:, j] = texts
    names += list(nested)
    # a record of blank cells is skipped, as a blank line of a CSV file or row of a sheet
    return Table(cells[filled], lines[filled], ",", (len(names),))
