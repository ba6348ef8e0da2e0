"""The fast sheet reading (coarsenrank_core.io.sheet_scan) against the streaming parser.

Every sheet is read both ways: the fast reading must give exactly the streamed table, or
hand the sheet back (``NotCanonical``) so that the caller streams it. Sheets in the grammar
spreadsheet programs write must be read fast (else the test could not fail), and anything
else, including random damage to such a sheet, must end as the stream ends: the same table
or the same refusal.
"""

from __future__ import annotations

import io
import zipfile
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coarsenrank_core.errors import Cancelled
from coarsenrank_core.io import PreferenceFormatError, containers
from coarsenrank_core.io.containers import clear_workbook_cache, interruptible
from coarsenrank_core.io.sheet_scan import NotCanonical, scan_sheet
from tests.test_io_containers import MAIN, openpyxl_workbook, workbook

SHARED = (f'<?xml version="1.0"?><sst xmlns="{MAIN}"><si><t>tea</t></si>'
          '<si><t xml:space="preserve"> coffee </t></si><si><r><t>mi</t></r><r><t>lk</t></r>'
          '</si><si><t>caf&#233; &amp; cr&#xE8;me</t></si><si><t></t></si></sst>')
X14AC = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_workbook_cache()
    yield
    clear_workbook_cache()


def outcome(data: bytes, *, fast: bool) -> tuple:
    """The table read (rows and row numbers) or the refusal's message, one way."""
    clear_workbook_cache()
    try:
        book = containers._workbook(data)
        table = containers._sheet_table(book, book.sheetnames[0], fast=fast)
    except PreferenceFormatError as error:
        return ("refused", str(error))
    return ("read", table.rows, table.lines.tolist())


def scanned(data: bytes, chunk_bytes: int = 1 << 20):
    """The fast reading alone: its values, widths and lines, or None when it hands back."""
    clear_workbook_cache()
    book = containers._workbook(data)
    with book.archive.open(book.parts[book.sheetnames[0]]) as source:
        try:
            return scan_sheet(
                source, chunk_bytes=chunk_bytes, shared_texts=book.shared_texts,
                convert=partial(containers._typed_text, book), columns=containers._COLUMNS,
                max_cells=containers._MAX_SHEET_CELLS,
                blank_slack=containers.BLANK_CELLS_SLACK,
                blank_factor=containers.BLANK_CELLS_FACTOR,
                before_chunk=lambda *_: None, max_row=containers.MAX_SHEET_ROW)
        except NotCanonical:
            return None


def sheet_bytes(rows_xml: str, *, head: str = "", root: str = "") -> bytes:
    """A workbook with shared strings whose sheet holds ``rows_xml``; ``head`` goes before
    ``<sheetData>`` and ``root`` into the worksheet's start tag."""
    data = workbook(rows_xml, shared=SHARED)
    if head or root:
        start = f'<worksheet xmlns="{MAIN}">'.encode()
        data = with_sheet(data, lambda xml: xml.replace(
            start, f'<worksheet xmlns="{MAIN}"{root}>{head}'.encode()))
    return data


def with_sheet(data: bytes, change) -> bytes:
    """The workbook ``data`` with its sheet's XML bytes passed through ``change``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, \
            zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            part = source.read(name)
            target.writestr(name, change(part) if name.endswith("sheet1.xml") else part)
    return buffer.getvalue()


# ------------------------------------------------------------------ canonical sheets
LETTERS = list(containers._COLUMNS)  # "A", "B", ... as the reader names the columns


TEXTS = st.lists(st.sampled_from(list("ab Zé😀\t\n") + ["&amp;", "&lt;", "&gt;",
                                                                  "&quot;", "&apos;", "&#233;",
                                                                  "&#x1F600;", "\r\n", "\r",
                                                                  "&#13;", ">", "'", '"']),
                 max_size=6).map("".join)


@st.composite
def cells(draw, reference: str) -> str:
    """One cell of each kind spreadsheet programs write, its text drawn."""
    numbers = st.sampled_from(["7", "-3", "2.5", "1e3", "12345678901234567890", "0.1", "1E-2",
                               " 4 "])
    formulas = st.sampled_from(["<f>1+1</f>", '<f t="shared" ref="A1:A9" si="0">A1&amp;"x"</f>',
                                '<f t="shared" si="0"/>'])
    kinds = {  # attributes after the reference, and what the cell holds
        "s": lambda: (' t="s"', f"<v>{draw(st.integers(0, 4))}</v>"),
        "n": lambda: (draw(st.sampled_from(["", ' s="0"'])), f"<v>{draw(numbers)}</v>"),
        "b": lambda: (' t="b"', f"<v>{draw(st.sampled_from('01'))}</v>"),
        "e": lambda: (' t="e"', "<v>#N/A</v>"),
        "str": lambda: (' t="str"', f"<v>{draw(TEXTS)}</v>"),
        "inline": lambda: (' t="inlineStr"', "<is><t{}>{}</t></is>".format(
            draw(st.sampled_from(["", ' xml:space="preserve"'])), draw(TEXTS))),
        "blank": lambda: (' s="1"', None),
        "empty": lambda: ("", "<v></v>"),
        "formula": lambda: (' t="str"', f"{draw(formulas)}<v>{draw(TEXTS)}</v>"),
    }
    attributes, held = kinds[draw(st.sampled_from(sorted(kinds)))]()
    if held is None:
        return f'<c r="{reference}"{attributes}/>'
    return f'<c r="{reference}"{attributes}>{held}</c>'


@st.composite
def canonical_rows(draw) -> str:
    """Rows as spreadsheet programs write them: numbered, cells referenced, in any order."""
    numbers = draw(st.lists(st.integers(1, 40), min_size=0, max_size=12))
    rows = []
    for number in numbers:
        attributes = draw(st.sampled_from(["", ' spans="1:3"', ' spans="1:3" ht="30" '
                                           'customHeight="1"', ' x14ac:dyDescent="0.25"']))
        if draw(st.booleans()) and not draw(st.booleans()):
            rows.append(f'<row r="{number}"{attributes}/>')
            continue
        columns = draw(st.lists(st.integers(1, 30), max_size=6))
        if draw(st.booleans()):
            columns = sorted(set(columns))
        rows.append(f'<row r="{number}"{attributes}>'
                    + "".join(draw(cells(f"{LETTERS[c - 1]}{number}")) for c in columns)
                    + "</row>")
    return "".join(rows)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=canonical_rows(), chunk=st.sampled_from([1 << 20, 64, 7]))
def test_canonical_sheets_are_read_fast_and_as_the_stream_reads_them(rows, chunk):
    data = sheet_bytes(rows, root=f' xmlns:x14ac="{X14AC}"')
    streamed = outcome(data, fast=False)
    fast = scanned(data, chunk)
    if streamed[0] == "refused":  # a refusal is the stream's (a damaged number, say)
        assert fast is None or streamed[1].startswith("The sheet")
        assert outcome(data, fast=True) == streamed
        return
    assert fast is not None, rows
    assert outcome(data, fast=True) == streamed


def test_a_dense_sheet_and_a_sheet_with_gaps_read_as_the_stream_reads_them():
    # the fast reading's two ways through a chunk: every row full (A, B, C in order), or not
    dense = "".join(f'<row r="{r}"><c r="A{r}" t="s"><v>{r % 4}</v></c><c r="B{r}"><v>{r}'
                    f'</v></c><c r="C{r}" t="s"><v>1</v></c></row>' for r in range(1, 3000))
    gaps = dense.replace('<c r="B7"><v>7</v></c>', "").replace('<row r="9">', '<row r="99">')
    for rows in (dense, gaps):
        data = sheet_bytes(rows)
        assert scanned(data, 4096) is not None
        assert outcome(data, fast=True) == outcome(data, fast=False)
    assert outcome(sheet_bytes(dense), fast=True)[1][:2] == [["coffee", "1", "coffee"],
                                                             ["milk", "2", "coffee"]]


def test_an_openpyxl_workbook_with_dates_is_read_fast():
    data = openpyxl_workbook()
    assert scanned(data) is not None
    assert outcome(data, fast=True) == outcome(data, fast=False)
    assert outcome(data, fast=True)[1][1][:4] == ["2024-01-02 00:00:00", "01:30:00", "0.25",
                                                  "FALSE"]


# ------------------------------------------------------------------ everything else
ROW = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
ROW2 = '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c></row>'


@pytest.mark.parametrize("rows, head, root", [
    (ROW + "\n" + ROW2, "", ""),                                        # whitespace
    (ROW.replace('r="A1"', "r='A1'"), "", ""),                          # single quotes
    (ROW + "<!-- a comment -->" + ROW2, "", ""),
    (ROW.replace("<v>0</v>", "<v><![CDATA[0]]></v>"), "", ""),
    (ROW.replace('t="s"><v>0', 's="0" t="s" cm="1" cm="1"><v>0'), "", ""),  # twice
    (ROW.replace('r="A1" t="s"', 't="s" r="A1"'), "", ""),              # attribute order
    (ROW.replace('<c r="B1"', "<c"), "", ""),                           # no reference
    (ROW.replace('r="B1"', 'r="$B$1"'), "", ""),
    (ROW.replace('r="B1"', 'r="b1"'), "", ""),
    (ROW.replace('r="B1"', 'r="XFE1"'), "", ""),                        # outside the grid
    (ROW.replace('<row r="1"', '<row r="1048577"'), "", ""),
    (ROW.replace('<row r="1"', '<row r="0"'), "", ""),
    (ROW.replace('<row r="1"', "<row"), "", ""),                        # no row number
    (ROW.replace('r="1"', 'r="1" x14ac:dyDescent="0.25"'), "", ""),     # prefix not declared
    (ROW.replace("<c ", "<x:c ").replace("</c>", "</x:c>"), "", ' xmlns:x="urn:x"'),
    (ROW.replace("<v>0</v>", "<v>&#0;</v>"), "", ""),                   # not a character
    (ROW.replace("<v>0</v>", "<v>&nbsp;</v>"), "", ""),                 # unknown entity
    (ROW.replace("<v>0</v>", "<v>0]]&gt;</v>"), "", ""),
    (ROW.replace("<v>0</v>", "<v>x</v>"), "", ""),                      # damaged string index
    (ROW.replace("<v>0</v>", "<v>99</v>"), "", ""),
    (ROW.replace('t="s"><v>0</v>', '><v>1x</v>'), "", ""),              # damaged number
    (ROW.replace('<c r="A1" t="s"><v>0</v></c>', '<c r="A1" t="inlineStr"><is><r><t>mi</t>'
                 '</r><r><t>lk</t></r></is></c>'), "", ""),             # rich inline text
    (ROW + ROW2, '<sheetPr><row r="9"><c r="A9"><v>5</v></c></row></sheetPr>', ""),
    (ROW + ROW2, "<!-- <sheetData> -->", ""),
    (ROW + ROW2, '<?pi <sheetData>?>', ""),
    (ROW, "", ""),
    (ROW + "</sheetData><row r=\"7\"><c r=\"A7\"><v>1</v></c></row><sheetData>", "", ""),
    (ROW + '<c r="C1"><v>1</v></c>' + ROW2, "", ""),                    # a cell between rows
    (ROW.replace("</row>", "<row r=\"5\"/></row>"), "", ""),            # a row in a row
    (ROW[:-6], "", ""),                                                 # not well-formed
])
def test_other_sheets_are_handed_back_and_end_as_the_stream_ends(rows, head, root):
    data = sheet_bytes(rows, head=head, root=root)
    streamed = outcome(data, fast=False)
    if rows != ROW:  # the plain row is the control: read fast
        assert scanned(data) is None, rows
    else:
        assert scanned(data) is not None
    assert outcome(data, fast=True) == streamed


def test_another_encoding_is_handed_back():
    data = sheet_bytes(ROW.replace('t="s"><v>0</v>', 't="inlineStr"><is><t>caf\u00e9</t></is>'))
    latin = with_sheet(data, lambda xml: xml.decode().replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>').encode("latin-1"))
    assert scanned(latin) is None
    assert outcome(latin, fast=True) == outcome(latin, fast=False)
    assert outcome(latin, fast=True)[1][0][0] == "café"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=canonical_rows(), at=st.floats(0, 1), damage=st.sampled_from(
    [" ", "\n", "<", ">", "&", '"', "'", "/", "</row>", "<row r=\"3\">", "<c r=\"A3\">",
     "</c>", "<v>", "</v>", "<!--x-->", "]]>", "\x01", "&#0;", "é", "<is><t>", ":", "="]))
def test_damaged_sheets_end_as_the_stream_ends(rows, at, damage):
    text = rows or ROW
    position = int(at * len(text))
    data = sheet_bytes(text[:position] + damage + text[position:],
                       root=f' xmlns:x14ac="{X14AC}"')
    assert outcome(data, fast=True) == outcome(data, fast=False)


# ------------------------------------------------------------------ limits and Stop
@pytest.mark.parametrize("limit, slack", [(60, 1_000_000), (10 ** 6, 20), (10 ** 6, 5)])
@pytest.mark.parametrize("chunk", [1 << 20, 256])
def test_limits_refuse_with_the_streams_message(monkeypatch, limit, slack, chunk):
    monkeypatch.setattr(containers, "_MAX_SHEET_CELLS", limit)
    monkeypatch.setattr(containers, "BLANK_CELLS_SLACK", slack)
    monkeypatch.setattr(containers, "_CHUNK_BYTES", chunk)
    blanks = "".join(f'<row r="{r}"><c r="A{r}" s="1"/><c r="B{r}" s="1"/></row>'
                     for r in range(3, 40))
    for rows in (ROW + ROW2 + blanks, ROW + blanks + ROW2 * 5):
        data = sheet_bytes(rows)
        fast, streamed = outcome(data, fast=True), outcome(data, fast=False)
        assert fast == streamed
    if limit == 60 or (slack == 5 and chunk == 256):  # limits the data reaches
        assert streamed[0] == "refused", streamed


def test_a_fast_reading_stops_when_asked():
    rows = "".join(f'<row r="{r}"><c r="A{r}" t="s"><v>0</v></c><c r="B{r}" t="s"><v>1</v>'
                   f"</c></row>" for r in range(1, 40_000))
    data = sheet_bytes(rows)
    assert scanned(data) is not None
    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= 2

    with interruptible(stop), pytest.raises(Cancelled, match="reading stopped at row"):
        containers.workbook_table(data)
    assert len(calls) == 2
