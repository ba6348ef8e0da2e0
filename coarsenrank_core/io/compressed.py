"""Gzip-compressed files (``.csv.gz``, ``.jsonl.gz``) unpacked within the readers' budget (zlib)."""

from __future__ import annotations

import re
import zlib

from ..errors import PreferenceFormatError

GZIP_MAGIC = b"\x1f\x8b"
_WINDOW = 1 << 16
#: Zero bytes after a member (padding some writers add to a block's end).
_ZERO_PADDING = re.compile(rb"\x00*")


def gunzipped(data: bytes, name: str | None) -> tuple[bytes, str | None]:
    """``data`` unpacked when it is gzip-compressed (every member, in order), with ``name``
    less its ``.gz``; else both as given.

    Raises
    ------
    PreferenceFormatError
        Where the file would unpack beyond the budget of a workbook's part (four times the
        upload limit: a few bytes can unpack to gigabytes), or is damaged or cut short.
    """
    if not data.startswith(GZIP_MAGIC):
        return data, name
    from .containers import MAX_PART_BYTES

    pieces: list[bytes] = []
    total, position = 0, 0
    try:
        while data.startswith(GZIP_MAGIC, position):
            # fed a window at a time, so that what follows a member (its unused data) is
            # never the whole rest of the file: many members stay linear in the file's size
            unpacker = zlib.decompressobj(wbits=31)
            while not unpacker.eof:
                if position >= len(data):
                    raise zlib.error("cut short")
                chunk = data[position:position + _WINDOW]
                position += len(chunk)
                while chunk and not unpacker.eof:
                    piece = unpacker.decompress(chunk, MAX_PART_BYTES + 1 - total)
                    total += len(piece)
                    if total > MAX_PART_BYTES:
                        raise PreferenceFormatError(
                            f"This gzip file unpacks to more than {MAX_PART_BYTES >> 20} MB, "
                            "more than a file read whole may hold.",
                            fix="Unpack it and read it in chunks (coarsenrank rank FILE "
                                "--stream), or split it into smaller files.")
                    pieces.append(piece)
                    chunk = unpacker.unconsumed_tail
            position -= len(unpacker.unused_data)
            position = _ZERO_PADDING.match(data, position).end()  # type: ignore[union-attr]
    except zlib.error:
        raise PreferenceFormatError(
            "This gzip file is damaged or cut short, so it cannot be unpacked.",
            fix="Download or copy the file again, or unpack it yourself and load the "
                "unpacked file.") from None
    if name is not None and name.lower().endswith(".gz"):
        name = name[:-3]
    return b"".join(pieces), name
