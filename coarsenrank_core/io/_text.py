"""Bytes to text: loading a source, recognising binary files, decoding with a fallback chain."""

from __future__ import annotations

import codecs
import os
import re
from pathlib import Path
from typing import TypeAlias

from ..errors import PreferenceFormatError
from .compressed import gunzipped

# ---------------------------------------------------------------------------- bytes -> text
SourceLike: TypeAlias = object
"""What the readers take: a path (``str`` or ``os.PathLike``), the file's bytes, or an object
with ``getvalue()`` or ``read()`` (an upload); a collection reader also takes a list of paths.
Each reader narrows it by ``isinstance``."""
ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MATLAB_MAGIC = b"MATLAB 5.0 MAT-file"  # the text header of MATLAB's v5 to v7.3 files
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
#: A control character (C0 but tab and line ends, DEL, C1): no name in a text file holds one.
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_PREFLIB_EXTENSIONS = {".soc", ".soi", ".toc", ".toi"}
BINARY_FIX = ("Open the file in Excel (or another spreadsheet program), choose File > Save As, "
               "pick 'CSV (comma delimited)' and upload the .csv file.")


def load_source(source: SourceLike) -> tuple[bytes, str | None]:
    """The raw bytes of ``source`` and its file name (when it has one), unpacked (and the
    name without ``.gz``) when gzip-compressed."""
    return gunzipped(*_raw_source(source))


def _raw_source(source: SourceLike) -> tuple[bytes, str | None]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return path.read_bytes(), path.name
        except (OSError, ValueError) as exc:
            hint = ("It looks like file contents rather than a file name; pass the contents as "
                    "bytes (text.encode()) instead." if isinstance(source, str)
                    and ("\n" in source or "," in source) else "Check the file name and folder.")
            reason = ("there is no file with that name" if isinstance(exc, FileNotFoundError)
                      else "it is a folder" if isinstance(exc, IsADirectoryError)
                      else "it could not be opened")
            shown = str(source).replace("\n", " ")
            shown = shown if len(shown) < 80 else shown[:77] + "..."
            raise PreferenceFormatError(f"Cannot read '{shown}': {reason}.", fix=hint) from None
    reader = getattr(source, "getvalue", None) or getattr(source, "read", None)
    if reader is None:
        raise PreferenceFormatError(
            f"Cannot read preferences from a {type(source).__name__}.",
            fix="Pass a file path, the file's bytes, or an uploaded file.")
    data = reader()
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PreferenceFormatError(
            f"Reading the uploaded file gave a {type(data).__name__}, not its contents.",
            fix="Pass a file path, the file's bytes, or an uploaded file.")
    name = getattr(source, "name", None)
    return bytes(data), (str(name) if name else None)


def line_of(data: bytes, position: int) -> int:
    return data[:position].count(b"\n") + 1


def decode(data: bytes, encoding: str | None = None) -> str:
    """Decode file bytes: BOM first, then UTF-8, Windows-1252 and Latin-1."""
    if data.startswith(ZIP_MAGIC):
        raise PreferenceFormatError(
            "This looks like an Excel workbook (.xlsx) or another zipped binary file, not a "
            "CSV text file.", fix=BINARY_FIX)
    if data.startswith(_MATLAB_MAGIC):
        raise PreferenceFormatError(
            "This is a MATLAB data file (.mat), not a CSV text file.",
            fix="In MATLAB, load it and write the rankings out as a CSV file: one ranking "
                "per row, best first, and a blank cell (not 0) where a ranking is shorter; "
                "then upload that file.")
    if data.startswith(_OLE_MAGIC):
        raise PreferenceFormatError(
            "This looks like an old Excel (.xls) or other Office binary file, not a CSV text "
            "file.", fix=BINARY_FIX)
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except LookupError:
            raise PreferenceFormatError(f"'{encoding}' is not a known text encoding.",
                                        fix="Use e.g. 'utf-8', 'cp1252' or 'latin-1'.") from None
        except UnicodeDecodeError as exc:
            line = line_of(data, exc.start)
            raise PreferenceFormatError(
                f"The file is not valid {encoding} text (byte {exc.start + 1}).", row=line,
                fix="Choose the encoding the file was saved with, or leave it to be "
                    "detected.") from None
    else:
        bom = next((enc for magic, enc in _BOMS if data.startswith(magic)), None)
        if bom is None and b"\x00" in data:
            raise PreferenceFormatError(
                "This looks like an Excel or other binary file: it contains zero bytes, which "
                "a CSV text file never has.", fix=BINARY_FIX)
        text = None
        for enc in ([bom] if bom else ["utf-8", "cp1252", "latin-1"]):
            try:
                text = data.decode(enc)
                break
            except UnicodeDecodeError as exc:
                if enc in ("utf-8", "utf-8-sig") and (bom or not data[:exc.start].isascii()):
                    text = _utf8_with_cp1252_bytes(data)  # UTF-8 before the bad byte
                    break
                if bom:
                    shown = bom.upper().removesuffix("-SIG")
                    raise PreferenceFormatError(
                        f"The file starts with a {shown} marker but is not valid {shown} text.",
                        row=line_of(data, exc.start),
                        fix="Save the file again as 'CSV UTF-8'.") from None
    assert text is not None  # Latin-1 decodes any bytes
    text = text.removeprefix("\ufeff").rstrip("\x1a")
    bad = CONTROL_CHARACTER.search(text) if _may_hold_controls(text) else None
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise PreferenceFormatError(
            "This looks like an Excel or other binary file, or text in an unknown encoding: "
            f"it contains the control character U+{ord(bad.group()):04X}, which text files "
            "do not have.", row=line, fix=BINARY_FIX + " Use the 'CSV UTF-8' option if "
            "offered.")
    return text


def _as_cp1252(error: UnicodeError) -> tuple[str, int]:
    """A decoding error handler: the bytes that are no UTF-8, read as Windows-1252 (Latin-1
    for its five undefined bytes)."""
    assert isinstance(error, UnicodeDecodeError)
    bad = error.object[error.start:error.end]
    return bad.decode("cp1252", errors="coarsenrank-latin1"), error.end


codecs.register_error("coarsenrank-cp1252", _as_cp1252)

#: Two-byte UTF-8 characters that Windows-1252 text spells by accident (``É®`` is the UTF-8
#: of ``ɮ``, ``È\xa0`` of ``Ƞ``) and names seldom hold: Latin Extended-B, IPA, spacing
#: modifiers.
_ACCIDENTAL = re.compile("[\u0180-\u02ff]")


#: A UTF-8 character of two or three bytes.
_UTF8_PAIR = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}")


def _utf8_with_cp1252_bytes(data: bytes) -> str:
    """Text of UTF-8 rows with Windows-1252 rows (or bytes) among them, exports appended to
    one another, line by line: each line as UTF-8, a byte that is no UTF-8 read as
    Windows-1252, unless the line then holds a character Windows-1252 spells by accident
    (:data:`_ACCIDENTAL`): that line is Windows-1252 throughout."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = []
    for line in data.split(b"\n"):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:  # no UTF-8 in it at all: Windows-1252 at C speed
            text = (line.decode("utf-8", errors="coarsenrank-cp1252")
                    if _UTF8_PAIR.search(line) else "")
        if not text or _ACCIDENTAL.search(text):
            text = line.decode("cp1252", errors="coarsenrank-latin1")
        lines.append(text)
    return "\n".join(lines)


def _as_latin1(error: UnicodeError) -> tuple[str, int]:
    """A decoding error handler: Windows-1252's five undefined bytes, read as Latin-1."""
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start:error.end].decode("latin-1"), error.end


codecs.register_error("coarsenrank-latin1", _as_latin1)


_ASCII_CONTROLS = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_NOT_CONTROL = bytes(b for b in range(256) if b not in _ASCII_CONTROLS)


def _may_hold_controls(text: str) -> bool:
    """A fast pre-check: an ASCII text without control bytes holds no control character."""
    if not text.isascii():
        return True
    return bool(text.encode("ascii").translate(None, _NOT_CONTROL))


def source_text(source: SourceLike, encoding: str | None = None) -> tuple[str, str | None]:
    data, name = load_source(source)
    return decode(data, encoding), name
