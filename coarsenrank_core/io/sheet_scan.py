"""A fast reading of sheets written the way spreadsheet programs write them: whole rows at once."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from itertools import repeat
from operator import itemgetter
from typing import Protocol
from xml.parsers import expat

#: Characters XML 1.0 does not allow (beside ``<`` and ``&``, which the patterns handle).
_NOT_XML = r"\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff"
#: A value's text: plain characters, the five named entities and character references.
_TEXT = (rf"(?:[^<&{_NOT_XML}]++|&(?:amp|lt|gt|quot|apos|#[0-9]{{1,7}}|#x[0-9a-fA-F]{{1,6}});)"
         r"*+")
#: A formula's text (not read, only checked): no character references.
_FORMULA_TEXT = rf"(?:[^<&{_NOT_XML}]++|&(?:amp|lt|gt|quot|apos);)*+"
_WORD = r'"[A-Za-z0-9_]{1,16}"'
_NUMBER = r'"[0-9]{1,10}"'
_DECIMAL = r'"[0-9.eE+-]{1,24}"'
_RANGE = r'"[A-Z0-9:$]{1,40}"'
#: A formula: its attributes in the schema's order, each at most once.
_FORMULA = ("<f" + "".join(f"(?: {name}={kind})?+" for name, kind in (
    ("t", _WORD), ("aca", _WORD), ("ref", _RANGE), ("dt2D", _WORD), ("dtr", _WORD),
    ("del1", _WORD), ("del2", _WORD), ("r1", _RANGE), ("r2", _RANGE), ("ca", _WORD),
    ("si", _NUMBER), ("bx", _WORD))) + f"(?:/>|>{_FORMULA_TEXT}</f>)")


def _cell(capture: bool) -> str:
    """A cell: reference, style, type, then a formula, a value or an inline string."""
    group = "(" if capture else "(?:"
    return (f'<c r="{group}[A-Z]{{1,3}})[0-9]{{0,7}}"'
            f'(?: s="{group}[0-9]{{1,9}})")?+(?: t="{group}[A-Za-z]{{1,9}})")?+'
            f'(?: cm={_NUMBER})?+(?: vm={_NUMBER})?+(?: ph={_WORD})?+'
            f"(?:/>|>(?:{_FORMULA})?+(?:<v>{group}{_TEXT})</v>|<v/>|"
            f'<is><t(?: xml:space="preserve")?+>{group}{_TEXT})</t></is>)?+</c>)')


def _rows(with_dy_descent: bool) -> re.Pattern[str]:
    """Whole rows, in the schema's attribute order (Excel's ``x14ac:dyDescent`` only where
    the worksheet declares its prefix)."""
    attributes = [("spans", r'"[0-9: ]{1,40}"'), ("s", _NUMBER), ("customFormat", _WORD),
                  ("ht", _DECIMAL), ("hidden", _WORD), ("customHeight", _WORD),
                  ("outlineLevel", _NUMBER), ("collapsed", _WORD), ("thickTop", _WORD),
                  ("thickBot", _WORD), ("ph", _WORD)]
    if with_dy_descent:
        attributes.append(("x14ac:dyDescent", _DECIMAL))
    row = ('<row r="[0-9]{1,7}"' + "".join(f"(?: {name}={kind})?+" for name, kind in attributes)
           + f"(?:/>|>(?:{_cell(False)})*+</row>)")
    return re.compile(f"(?:{row})*+")


_ROWS = {declared: _rows(declared) for declared in (False, True)}
#: The parts of each cell of rows the grammar has passed (laxer, so quicker: the grammar has
#: already checked every attribute and element).
_CELLS = re.compile(r'<c r="([A-Z]{1,3})[0-9]*+"(?: s="([0-9]++)")?+(?: t="([A-Za-z]++)")?+'
                    r"[^>/]*+(?:/>|>(?:<f[^>]*/>|<f[^>]*>[^<]*+</f>)?+"
                    r"(?:<v>([^<]*+)</v>|<v/>|<is><t[^>]*>([^<]*+)</t></is>)?+</c>)")
_ROW_NUMBERS = re.compile('<row r="([0-9]{1,7})"')
#: An element the streaming parser acts on, met outside the sheet's data.
_ACTED_ON = re.compile(r"</?(?:[A-Za-z_][\w.-]*:)?(?:c|v|row|t|rPh|sheetData)(?=[\s/>])")
_DECLARED_ENCODING = re.compile(r"""^\ufeff?<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")
_XML_DECLARATION = re.compile(r"\ufeff?<\?xml\s")
_WORKSHEET_TAG = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?worksheet\b[^>]*>")
_REFERENCE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));")
#: A cell's text from its raw value, its type and its style (see :func:`scan_sheet`).
Convert = Callable[[str, str | None, str | None], str]
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_START, _END = "<sheetData>", "</sheetData>"

#: Text read before ``<sheetData>`` or held between two rows, at most.
_MAX_HELD = 16 * 2 ** 20


class NotCanonical(Exception):
    """The sheet leaves the grammar this reader knows: read it with the streaming parser."""


def _character(match: re.Match[str]) -> str:
    name, decimal, hexadecimal = match.groups()
    if name:
        return _NAMED[name]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise NotCanonical(f"character reference {match.group()} is not an XML character")
    return chr(code)


def _xml_text(raw: str) -> str:
    """A value's text as an XML parser reports it: line ends made ``\\n``, references resolved."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "&" in raw:
        raw = _REFERENCE.sub(_character, raw)
    return raw


class Readable(Protocol):
    """A binary stream read a chunk at a time (an unpacked zip member, or a wrapper of one)."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes; empty at the end."""


def scan_sheet(source: Readable, *, chunk_bytes: int, shared_texts: list[str | None],
               convert: Convert, columns: dict[str, int],
               max_cells: int, blank_slack: int, blank_factor: int,
               before_chunk: Callable[[int, int], None], max_row: int
               ) -> tuple[list[str], list[int], list[int]]:
    """The values, row widths and row numbers of one sheet's rows with values.

    Parameters
    ----------
    source : binary file
        The sheet's XML, read ``chunk_bytes`` at a time.
    chunk_bytes : int
        How much XML to read at a time (``before_chunk`` is called before each).
    shared_texts : list
        The workbook's shared strings as cell texts, ``None`` where not yet worked out.
    convert : callable
        ``convert(raw, type, style)``: a cell's text from its raw value, its ``t`` attribute
        and its ``s`` attribute (``None`` when absent); raises on a damaged cell.
    columns : dict
        Column letters → column number, in column order (``A`` → 1 ... ``XFD`` → 16,384).
    max_cells, blank_slack, blank_factor : int
        The streaming parser's limits: when the sheet comes within reach of one, the
        streaming parser is left to refuse it, with its own message.
    before_chunk : callable
        Called before each chunk with the number of chunks read so far and the last row
        number read (for progress, and for a Stop to raise).
    max_row : int
        The largest row number of the grid.

    Returns
    -------
    values : list of str
        The cells of the rows with values, one row after another, each row padded to its
        last value's column.
    widths, lines : list of int
        Each of those rows' width and row number.

    Raises
    ------
    NotCanonical
        The sheet leaves the grammar (or comes near a limit): read it with the parser.

    Notes
    -----
    A sheet of a million rows costs the streaming parser some 17 million Python callbacks.
    The XML that Excel, LibreOffice, Google Sheets and openpyxl write follows a narrow grammar,
    so each megabyte of rows is checked against it in one regular-expression call and its
    cells are taken out in another. Whatever leaves the grammar (a comment, a namespace
    prefix, whitespace between tags, a DOCTYPE, another encoding, an odd attribute order, a
    blank flood or a limit within reach) raises :class:`NotCanonical`, and the caller reads
    the sheet again with its streaming parser (``containers._SheetStream``), which gives the
    reference answer and every refusal; read here, a sheet gives the same rows with values,
    columns, texts, line numbers and counts of cells and rows met.
    """
    # the XML around the rows (before <sheetData> and after </sheetData>) is checked by the
    # parser itself, without handlers; the rows are checked by the grammar
    outside = expat.ParserCreate(namespace_separator="}")

    def refuse(*_: object) -> None:
        raise NotCanonical("a DOCTYPE")

    outside.StartDoctypeDeclHandler = refuse
    letters = list(columns)  # "A", "B", ... in order
    decoder = codecs.getincrementaldecoder("utf-8")()
    flat: list[str] = []
    widths: list[int] = []
    lines: list[int] = []
    rows: re.Pattern[str] | None = None
    pending = ""
    parsed = values = width = 0
    chunks = 0
    while True:
        before_chunk(chunks, lines[-1] if lines else 0)
        chunks += 1
        chunk = source.read(chunk_bytes)
        if not chunk:
            raise NotCanonical("the sheet ends before its data does")
        try:
            pending += decoder.decode(chunk)
        except UnicodeDecodeError:
            raise NotCanonical("not UTF-8") from None
        if rows is None:
            start = pending.find(_START)
            if start < 0:
                if len(pending) > _MAX_HELD:
                    raise NotCanonical("no <sheetData> near the start")
                continue
            head = pending[:start + len(_START)]
            rows = _rows_of(head)
            _check_outside(outside, head)
            pending = pending[start + len(_START):]
        end = pending.find(_END)
        if end >= 0:
            segment, pending = pending[:end], pending[end:]
        else:
            cut = pending.rfind("</row>") + len("</row>") if "</row>" in pending else 0
            segment, pending = pending[:cut], pending[cut:]
            if len(pending) > _MAX_HELD:
                raise NotCanonical("a row longer than the reader holds")
        if segment:
            if "]]>" in segment or rows.fullmatch(segment) is None:
                raise NotCanonical("rows outside the grammar")
            values_before = values
            met, found, widest = _read_rows(segment, flat, widths, lines, shared_texts,
                                            convert, columns, letters, max_row)
            parsed += met
            values += found
            width = max(width, widest)
            if (parsed > max_cells or width * len(widths) > max_cells
                    or parsed - values_before > blank_slack + blank_factor * values_before):
                raise NotCanonical("a limit within reach")
        if end >= 0:
            if _ACTED_ON.search(pending, len(_END)):
                raise NotCanonical("cells or rows after the sheet's data")
            _check_outside(outside, pending)
            return flat, widths, lines


def _rows_of(head: str) -> re.Pattern[str]:
    """The grammar of the rows under ``head`` (the XML up to ``<sheetData>``)."""
    declared = _DECLARED_ENCODING.match(head)
    if declared is not None and declared.group(1).lower() not in ("utf-8", "utf8"):
        raise NotCanonical(f"encoding {declared.group(1)}")
    if "<!" in head or head.count("<?") > (1 if _XML_DECLARATION.match(head) else 0):
        raise NotCanonical("a comment, DOCTYPE, CDATA or processing instruction")
    if _ACTED_ON.search(head, 0, len(head) - len(_START)):
        raise NotCanonical("cells or rows outside the sheet's data")
    worksheet = _WORKSHEET_TAG.search(head)
    return _ROWS[worksheet is not None and "xmlns:x14ac=" in worksheet.group()]


def _check_outside(parser: expat.XMLParserType, text: str) -> None:
    """Have the parser check XML outside the rows (the streaming parser reads it too)."""
    try:
        parser.Parse(text.encode("utf-8"), False)
    except expat.ExpatError as error:
        raise NotCanonical(f"not well-formed ({error})") from None


def _read_rows(segment: str, flat: list[str], widths: list[int], lines: list[int],
               shared_texts: list[str | None], convert: Convert,
               columns: dict[str, int], letters: list[str], max_row: int
               ) -> tuple[int, int, int]:
    """Add the rows with values of ``segment`` (whole rows in the grammar) to the lists;
    return the rows and cells met, the cells with values, and the widest row's width."""
    numbers = list(map(int, _ROW_NUMBERS.findall(segment)))
    if numbers and (min(numbers) < 1 or max(numbers) > max_row):
        raise NotCanonical("a row outside the grid")
    per_row = list(map(str.count, segment.split('<row r="')[1:], repeat('<c r="')))
    cells = _CELLS.findall(segment)
    texts = _cell_texts(cells, shared_texts, convert, "&" in segment or "\r" in segment)
    found = len(texts) - texts.count("")
    if per_row and per_row[0] and per_row.count(per_row[0]) == len(per_row) \
            and found == len(texts):
        # every row has the same cells, all with values: columns A, B, C ... in order?
        width = per_row[0]
        if list(map(itemgetter(0), cells)) == letters[:width] * len(per_row):
            flat.extend(texts)
            widths.extend(repeat(width, len(per_row)))
            lines.extend(numbers)
            return len(numbers) + len(cells), found, width
    widest = 0
    at = 0
    for row_number, count in zip(numbers, per_row):
        if not count:
            continue
        expected = 1
        scattered: dict[int, str] = {}
        for position in range(at, at + count):
            value = texts[position]
            if not value:
                continue
            column = columns.get(cells[position][0])
            if column is None:
                raise NotCanonical("a column outside the grid")
            if column == expected:
                flat.append(value)
                expected += 1
            else:
                if expected:
                    scattered, expected = take_back_row(flat, expected), 0
                scattered[column] = value
        at += count
        if expected == 1:
            continue
        last = expected - 1 if expected else pad_row(flat, scattered)
        widths.append(last)
        lines.append(row_number)
        if last > widest:
            widest = last
    return len(numbers) + len(cells), found, widest


def take_back_row(flat: list[str], expected: int) -> dict[int, str]:
    """The values of the row being read, taken back out of ``flat`` by column (they came
    in columns 1, 2, ..., ``expected - 1``; one out of order comes next)."""
    held = len(flat) - expected + 1
    values = dict(enumerate(flat[held:], 1))
    del flat[held:]
    return values


def pad_row(flat: list[str], scattered: dict[int, str]) -> int:
    """Add a row whose values came out of order to ``flat``, blanks where it has none, and
    return its width (its last value's column)."""
    last = max(scattered)
    full = [""] * last
    for column, value in scattered.items():
        full[column - 1] = value
    flat.extend(full)
    return last


def _cell_texts(cells: list[tuple[str, ...]], shared_texts: list[str | None],
                convert: Convert, escaped: bool) -> list[str]:
    """Each cell's text, "" for a cell without one."""
    texts: list[str | None] = [None] * len(cells)
    kinds = list(map(itemgetter(2), cells))
    if not escaped and kinds.count("s") == len(kinds):
        try:  # all shared strings (most sheets of text): their texts, where known
            texts = list(map(shared_texts.__getitem__, map(int, map(itemgetter(3), cells))))
        except (ValueError, IndexError):
            texts = [None] * len(cells)
    if None in texts:
        for position, (_, style, kind, raw, inline) in enumerate(cells):
            if texts[position] is not None:
                continue
            raw = raw or inline
            if not raw:
                texts[position] = ""
                continue
            if escaped:
                raw = _xml_text(raw)
            try:
                if not kind and not style and raw.isascii() and raw.isdigit():
                    texts[position] = str(int(raw))  # a whole number without a date style
                else:
                    texts[position] = convert(raw, kind or None, style or None)
            except Exception:  # noqa: BLE001 - the parser names a damaged cell
                raise NotCanonical("a damaged cell") from None
    return texts  # type: ignore[return-value]  # no None is left
