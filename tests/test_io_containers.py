"""Workbooks read with budgets (issue 21): coarsenrank_core.io.containers.

Hostile workbooks are built here byte by byte (a few KB each): a sheet declaring Excel's whole
grid, a cell in the last column, floods of blank cells, shared strings that are a compression
bomb, damaged cells. Each is read quickly or refused with a message; a valid workbook is
opened once per import and its reading can be stopped.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from coarsenrank_core.errors import Cancelled
from coarsenrank_core.io import (
    PreferenceFormatError,
    ReadOptions,
    containers,
    read_file,
    read_preferences,
    sheet_names,
    table_columns,
)
from coarsenrank_core.io.containers import (
    check_archive,
    clear_workbook_cache,
    interruptible,
    workbook_table,
)

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
SHEET_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"


def workbook(rows_xml: str, *, dimension: str | None = None, shared: str | None = None,
             doctype: str = "") -> bytes:
    """A minimal .xlsx whose one sheet holds ``rows_xml`` inside ``<sheetData>``."""
    types = (f'<?xml version="1.0"?><Types xmlns="{CT}">'
             '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
             'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
             '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.'
             'openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
             f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{SHEET_CT}"/>'
             + ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.'
                'openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
                if shared is not None else "") + "</Types>")
    root_rels = (f'<?xml version="1.0"?><Relationships xmlns="{PKG}"><Relationship Id="rId1" '
                 f'Type="{REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    book = (f'<?xml version="1.0"?><workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>'
            '<sheet name="Votes" sheetId="1" r:id="rId1"/></sheets></workbook>')
    book_rels = (f'<?xml version="1.0"?><Relationships xmlns="{PKG}">'
                 f'<Relationship Id="rId1" Type="{REL}/worksheet" '
                 'Target="worksheets/sheet1.xml"/>'
                 + (f'<Relationship Id="rId2" Type="{REL}/sharedStrings" '
                    'Target="sharedStrings.xml"/>' if shared is not None else "")
                 + "</Relationships>")
    sheet = (f'<?xml version="1.0"?>{doctype}<worksheet xmlns="{MAIN}">'
             + (f'<dimension ref="{dimension}"/>' if dimension else "")
             + f"<sheetData>{rows_xml}</sheetData></worksheet>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", root_rels)
        archive.writestr("xl/workbook.xml", book)
        archive.writestr("xl/_rels/workbook.xml.rels", book_rels)
        if shared is not None:
            archive.writestr("xl/sharedStrings.xml", shared)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return buffer.getvalue()


def text(ref: str, value: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'


PAIRS = ('<row r="1">' + text("A1", "winner") + text("B1", "loser") + "</row>"
         '<row r="2">' + text("A2", "tea") + text("B2", "coffee") + "</row>"
         '<row r="3">' + text("A3", "coffee") + text("B3", "milk") + "</row>")


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_workbook_cache()
    yield
    clear_workbook_cache()


@pytest.mark.timeout(60)
def test_declared_dimensions_are_ignored():
    # 1.6 KB declaring the whole grid: openpyxl padded every row to 16,384 columns and
    # 1,048,576 rows (about 21 minutes a parse); the stream never pads
    data = workbook(PAIRS, dimension="A1:XFD1048576")
    assert len(data) < 2000
    table, title = workbook_table(data)
    assert (len(table), table.width, title) == (3, 2, "Votes")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True) == [["tea", "coffee"], ["coffee", "milk"]]


def test_a_cell_in_the_last_column_counts_the_padding_it_causes(monkeypatch):
    monkeypatch.setattr(containers, "_MAX_SHEET_CELLS", 50_000)
    rows = "".join(f'<row r="{r}">{text(f"A{r}", "x")}</row>' for r in range(1, 5))
    far = '<row r="5"><c r="XFD5"><v>1</v></c></row>'
    with pytest.raises(PreferenceFormatError, match="16,384 columns"):
        workbook_table(workbook(rows + far))


@pytest.mark.parametrize("flood", [
    # blank styled cells, each row holding a single value
    "".join(f'<row r="{r}">{text(f"A{r}", "x")}'
            + "".join(f'<c r="{c}{r}" s="1"/>' for c in "BCDEFGHIJ") + "</row>"
            for r in range(1, 300)),
    # blank rows
    "".join(f'<row r="{r}"/>' for r in range(1, 3000)) + '<row r="3000">' + text("A3000", "x")
    + text("B3000", "y") + "</row>",
])
def test_blank_cells_and_rows_count_toward_the_limit(monkeypatch, flood):
    monkeypatch.setattr(containers, "_MAX_SHEET_CELLS", 2000)
    with pytest.raises(PreferenceFormatError, match="blank ones count too"):
        workbook_table(workbook(flood))


def test_shared_strings_bomb_is_refused_before_opening(monkeypatch):
    entries = "<si><t>spam</t></si>" * 200_000  # 4 MB that packs into a few KB
    shared = f'<?xml version="1.0"?><sst xmlns="{MAIN}">{entries}</sst>'
    data = workbook('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', shared=shared)
    assert len(data) < 40_000
    opened = []
    monkeypatch.setattr(containers._OpenBook, "__init__",
                        lambda self, data: opened.append(1) or None)
    with pytest.raises(PreferenceFormatError, match="compression bomb") as error:
        read_preferences(data)
    assert "sharedStrings.xml" in str(error.value) and "CSV" in error.value.fix
    assert opened == []


def test_part_sizes_are_held_to_budgets_tied_to_the_upload_limit(monkeypatch):
    data = workbook(PAIRS)
    check_archive(data)  # a normal workbook passes
    monkeypatch.setattr(containers, "MAX_PART_BYTES", 300)
    with pytest.raises(PreferenceFormatError, match="unpacks to"):
        check_archive(data)
    assert containers.MAX_ARCHIVE_BYTES <= 10 * containers.UPLOAD_LIMIT_BYTES
    assert containers.MAX_SHARED_STRINGS_BYTES <= containers.UPLOAD_LIMIT_BYTES


def test_a_lying_zip_directory_unpacks_no_more_than_it_declares():
    # the directory says 10 bytes, the stream holds 1 MB: zipfile stops at the declared size
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", "<" * 1_000_000)
    data = bytearray(buffer.getvalue())
    central = data.rfind(b"PK\x01\x02")
    data[central + 24:central + 28] = (10).to_bytes(4, "little")  # uncompressed size
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        with pytest.raises(zipfile.BadZipFile):
            archive.read("xl/worksheets/sheet1.xml")


def test_each_upload_is_opened_and_parsed_once_per_import(monkeypatch):
    # the Data page asks for the sheets, the columns, then reads the file
    data = workbook(PAIRS)
    opened = []
    real_open = zipfile.ZipFile.open

    def counting_open(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", counting_open)
    assert sheet_names(data) == ("Votes",)
    assert table_columns(data, ReadOptions()) == ("winner", "loser")
    result = read_file(data)
    assert len(result.preferences) == 2
    assert opened.count("xl/worksheets/sheet1.xml") == 1
    assert opened.count("xl/workbook.xml") == 1


def test_reading_stops_when_asked():
    rows = "".join(f'<row r="{r}">{text(f"A{r}", "a")}{text(f"B{r}", "b")}</row>'
                   for r in range(1, 20_000))
    data = workbook(rows)
    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= 2

    with interruptible(stop), pytest.raises(Cancelled, match="reading stopped at row"):
        read_preferences(data)
    assert len(calls) == 2
    # a stopped reading is not remembered: the next one completes
    table, _ = workbook_table(data)
    assert len(table) == 19_999


@pytest.mark.parametrize("rows, message", [
    ('<row r="1"><c r="XFE1"><v>1</v></c></row>', "outside Excel's grid"),
    ('<row r="1"><c r="AAAA1"><v>1</v></c></row>', "outside Excel's grid"),
    ('<row r="1048577"><c><v>1</v></c></row>', "outside Excel's grid"),
    ('<row r="1"><c r="A1"><v>' + "9" * 5000 + "</v></c></row>", "could not be read"),
    ('<row r="1"><c r="A1" t="s"><v>7</v></c></row>', "could not be read"),
    ('<row r="1"><c r="A1"><v>1</v></c>', "not well-formed XML"),
])
def test_damaged_sheets_give_a_message(rows, message):
    with pytest.raises(PreferenceFormatError, match=message):
        read_preferences(workbook(rows))


def test_entity_expansion_in_a_sheet_is_refused():
    laughs = ('<!DOCTYPE lolz [<!ENTITY lol "lollollollollollollollollollol">'
              + "".join(f'<!ENTITY lol{k} "' + f"&lol{k - 1 if k > 1 else ''};" * 10 + '">'
                        for k in range(1, 9)) + "]>")
    rows = '<row r="1"><c r="A1" t="inlineStr"><is><t>&lol8;</t></is></c></row>'
    with pytest.raises(PreferenceFormatError, match="DOCTYPE"):
        read_preferences(workbook(rows, doctype=laughs))
    # the same entities in the shared strings, which openpyxl parses to open the workbook
    shared = (f'<?xml version="1.0"?>{laughs}<sst xmlns="{MAIN}"><si><t>&lol8;</t></si>'
              "</sst>")
    with pytest.raises(PreferenceFormatError, match="could not be opened"):
        read_preferences(workbook('<row r="1"><c r="A1" t="s"><v>0</v></c></row>',
                                  shared=shared))


def test_dates_numbers_and_booleans_read_as_before():
    rows = ('<row r="1">' + text("A1", "item") + text("B1", "score") + text("C1", "flag")
            + "</row>"
            '<row r="2">' + text("A2", "tea") + '<c r="B2"><v>2.0</v></c>'
            '<c r="C2" t="b"><v>1</v></c></row>'
            '<row r="3"><c r="A3" t="str"><v> coffee </v></c><c r="B3"><v>0.5</v></c></row>')
    table, _ = workbook_table(workbook(rows))
    assert table.cells.tolist() == [["item", "score", "flag"], ["tea", "2", "TRUE"],
                                    ["coffee", "0.5", ""]]
    assert table.lines.tolist() == [1, 2, 3]


@pytest.mark.parametrize("text", [
    b'[{"model_a": "x", "model_b": "y", "winner": "model_a", "score": Infinity},'
    b' {"model_a": "y", "model_b": "z", "winner": "model_b", "score": NaN}]',
    b'{"model_a": "x", "model_b": "y", "winner": "model_a", "meta": {"t": Infinity}}\n'
    b'{"model_a": "y", "model_b": "z", "winner": "model_b", "meta": -Infinity}\n',
])
def test_infinity_and_nan_in_json_fields_that_are_not_read_are_ignored(text):
    prefs = read_preferences(text)
    assert prefs.to_lists(names=True) == [["x", "y"], ["z", "y"]]


def test_infinity_in_a_json_field_that_is_read_is_refused_by_row_and_column():
    with pytest.raises(PreferenceFormatError, match="weight 'inf' is not a positive") as error:
        read_preferences(b'[{"model_a": "x", "model_b": "y", "winner": "model_a", '
                         b'"count": Infinity}]')
    assert (error.value.row, error.value.column) == (1, "count")


def test_a_flood_of_blank_styled_cells_is_refused_early(monkeypatch):
    # 25 MB of blank styled cells (195 MB of XML) took 9.4 CPU seconds to parse only to be
    # found empty; blank cells beyond 10× the values plus a slack are refused as they come
    monkeypatch.setattr(containers, "BLANK_CELLS_SLACK", 1_000)
    monkeypatch.setattr(containers, "_CHUNK_BYTES", 4096)
    flood = "".join(f'<row r="{r}">' + "".join(f'<c r="{c}{r}" s="1"/>' for c in "ABCDEFGH")
                    + "</row>" for r in range(1, 2_000))
    with pytest.raises(PreferenceFormatError, match="blank cells and rows but only 0 cells "
                                                    "with values") as error:
        workbook_table(workbook(flood))
    assert "Clear the formatting" in error.value.fix
    # a sparse sheet whose blank cells stay within the rule reads
    sparse = "".join(f'<row r="{r}">{text(f"A{r}", "x")}{text(f"B{r}", "y")}'
                     + "".join(f'<c r="{c}{r}" s="1"/>' for c in "CDEFGHIJ") + "</row>"
                     for r in range(1, 2_000))
    table, _ = workbook_table(workbook(sparse))
    assert (len(table), table.width) == (1_999, 2)


def test_reading_reports_its_progress_in_megabytes(monkeypatch):
    monkeypatch.setattr(containers, "_CHUNK_BYTES", 8192)
    rows = "".join(f'<row r="{r}">{text(f"A{r}", "a")}{text(f"B{r}", "b")}</row>'
                   for r in range(1, 2_000))
    data = workbook(rows)
    seen = []
    with interruptible(lambda: False, lambda done, total: seen.append((done, total))):
        workbook_table(data)
    totals = {total for _, total in seen}
    assert len(totals) == 1 and totals.pop() > 5
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1]


def test_shared_strings_cells_out_of_order_and_unusual_references_read_as_before():
    # the sheet stream's short cuts (a shared string's text kept once, a plain reference's
    # column looked up, a row of columns A, B, C ... taken in order) fall back exactly
    shared = (f'<?xml version="1.0"?><sst xmlns="{MAIN}"><si><t> tea </t></si>'
              '<si><t>coffee</t></si><si><r><t>mi</t></r><r><t>lk</t></r></si></sst>')
    rows = ('<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
            '<row r="2"><c r="C2" t="s"><v>2</v></c><c r="A2" t="s"><v>0</v></c></row>'
            '<row r="3"><c r="$B$3" t="s"><v>1</v></c><c t="s"><v>2</v></c></row>'
            '<row r="4"><c r="a4" t="s"><v>2</v></c><c r="B4" t="s"><v> 0 </v></c></row>'
            '<row r="5"><c r="B5" t="s"><v>1</v></c><c r="D5" t="s"><v>0</v></c></row>')
    table, _ = workbook_table(workbook(rows, shared=shared))
    assert table.rows == [["tea", "coffee"], ["tea", "", "milk"], ["", "coffee", "milk"],
                          ["milk", "tea"], ["", "coffee", "", "tea"]]
    assert table.lines.tolist() == [1, 2, 3, 4, 5]


def _openpyxl_rows(data: bytes) -> tuple[list[list[str]], list[int]]:
    """The sheet's rows with values as openpyxl reads them (cached values), and their rows."""
    import openpyxl

    from coarsenrank_core.io.containers import _cell_text

    rows, lines = [], []
    sheet = openpyxl.load_workbook(io.BytesIO(data), data_only=True).active
    for cells in sheet.iter_rows():
        values = [_cell_text(cell.value) for cell in cells]
        while values and not values[-1]:
            values.pop()
        if values:
            rows.append(values)
            lines.append(cells[0].row)
    return rows, lines


@pytest.mark.parametrize("chunk", [1 << 20, 7])
def test_the_stream_reads_what_openpyxl_reads(monkeypatch, chunk):
    # the stream's short cuts (cells told apart by identity, a shared string's text kept, the
    # values of a row in order kept without a list per row) against openpyxl: cells without
    # a reference after ones with, rows without a number, cells out of order, inline strings
    # in runs with a phonetic run (ignored), booleans, errors, a formula's cached value,
    # exponents, blank styled cells; with 7-byte chunks most texts come in pieces
    monkeypatch.setattr(containers, "_CHUNK_BYTES", chunk)
    shared = (f'<?xml version="1.0"?><sst xmlns="{MAIN}"><si><t>tea</t></si><si><r><t>mi</t>'
              '</r><r><t>lk</t></r><rPh sb="0" eb="2"><t>MIRU</t></rPh></si></sst>')
    rows = ('<row r="1">' + text("A1", "who") + '<c t="inlineStr"><is><t>what</t></is></c>'
            "</row>"
            '<row><c r="B2" t="b"><v>0</v></c><c><v>7</v></c></row>'
            '<row><c t="inlineStr"><is><r><t>ka</t></r><r><t>ta</t></r><rPh sb="0" eb="1">'
            '<t>KA</t></rPh></is></c><c t="s"><v>1</v></c></row>'
            '<row r="6"><c r="A6" t="e"><v>#N/A</v></c><c r="B6" t="str"><f>1+1</f><v>2</v>'
            '</c><c r="D6" s="0" t="n"><v>1.5</v></c></row>'
            '<row r="7" spans="1:3"><c r="C7" t="s"><v>0</v></c><c r="A7" t="s"><v>1</v></c>'
            '<c r="B7" s="0"/></row>'
            '<row r="8"><c r="A8" t="inlineStr"><is><t xml:space="preserve"> x </t></is></c>'
            '<c r="B8" s="0" t="s"><v>0</v></c><c><v>1e3</v></c><c r="E8" s="0"/></row>'
            '<row r="9"/><row r="10"><c r="B10" t="s"><v>1</v></c></row>'
            '<row r="11"><c r="A11"><v>12345678901234567890</v></c><c r="B11" t="s">'
            '<v>0</v></c><c r="B11" t="s"><v>1</v></c></row>')
    data = workbook(rows, shared=shared)
    table, _ = workbook_table(data)
    expected, lines = _openpyxl_rows(data)
    assert expected[:3] == [["who", "what"], ["", "FALSE", "7"], ["kata", "milk"]]
    assert (table.rows, table.lines.tolist()) == (expected, lines)


def openpyxl_workbook() -> bytes:
    """A workbook saved by openpyxl: dates and times through the workbook's number formats,
    numbers, booleans, text with XML's special characters, and a far-away cell."""
    from datetime import date, datetime, time

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["when", "at", "score", "ok", "name"])
    for k in range(1, 40):
        sheet.append([date(2024, 1, k % 28 + 1), time(k % 24, 30), k / 4, k % 3 == 0,
                      f"item {k % 5} & <{k}>"])
    sheet.append([datetime(2024, 5, 6, 7, 8, 9), None, -3, None, "  spaced  "])
    sheet.cell(row=45, column=7, value="far")
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_an_openpyxl_workbook_reads_as_openpyxl_reads_it():
    data = openpyxl_workbook()
    table, _ = workbook_table(data)
    expected, lines = _openpyxl_rows(data)
    assert (table.rows, table.lines.tolist()) == (expected, lines)
    assert table.rows[1][:4] == ["2024-01-02 00:00:00", "01:30:00", "0.25", "FALSE"]


def test_values_after_the_last_row_and_before_a_row_read_as_before():
    # a cell between two rows belongs to the next row; one after the last row to none
    rows = ('<row r="1">' + text("A1", "a") + "</row>" + text("B1", "between")
            + '<row r="2">' + text("A2", "b") + "</row>" + text("A3", "after"))
    table, _ = workbook_table(workbook(rows))
    assert table.rows == [["a"], ["b", "between"]]
    assert table.lines.tolist() == [1, 2]
