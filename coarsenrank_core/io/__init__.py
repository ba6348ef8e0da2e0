"""Reading files of rankings: one module per layout, a Format registry, and the public readers.

This package is the only part of the engine that imports pandas.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from ._text import SourceLike
from .assembly import DECLARED_FACTOR, DECLARED_SLACK, UNEXPECTED, declared_within_present, guard
from .collection import read_collection, source_paths
from .containers import interruptible, sheet_names
from .formats import (
    FORMAT_LIST,
    FORMATS,
    Format,
    Source,
    detect,
    extensions,
    file_as_event,
    unusual_read,
)
from .formats import read_file as _read_file
from .options import ReadOptions
from .report import ReadReport, ReadResult
from .streaming import stream_pairwise
from .truth import read_truth

__all__ = ["FORMATS", "FORMAT_LIST", "Format", "ReadOptions", "ReadReport", "ReadResult",
           "read_preferences", "read_file", "read_truth", "detect_format", "example_file",
           "extensions", "sheet_names", "table_columns", "interruptible", "UNEXPECTED",
           "declared_within_present", "DECLARED_FACTOR", "DECLARED_SLACK", "stream_pairwise",
           "PreferenceFormatError"]


def read_preferences(source: SourceLike, format: str = "auto", *, encoding: str | None = None,
                     options: ReadOptions | None = None, engine: str = "local",
                     scheduler: str | None = None) -> Preferences:
    """Read a file of rankings into :class:`Preferences`.

    Parameters
    ----------
    source : str, pathlib.Path, bytes, file-like, or several paths
        A path, the file's bytes, or an object with ``getvalue()``/``read()`` (e.g.
        Streamlit's ``UploadedFile``); its ``name`` helps to recognise the layout. A
        folder, a glob pattern (``'battles/*.parquet'``) or a list of paths reads every
        file, of one layout, as one collection (items and rankers matched by name).
    format : str
        ``"auto"`` (detect the layout) or one of the ids of :data:`FORMATS`.
    encoding : str, optional
        The text encoding; by default a byte-order mark, then UTF-8, Windows-1252 and
        Latin-1 are tried.
    options : ReadOptions, optional
        Corrections: the sheet, the item columns, the ranker and count columns, and whether
        rank 1 is the best.
    engine : {"local", "dask"}
        ``"dask"`` counts pairwise files on a Dask cluster
        (:func:`~coarsenrank_core.io.on_dask.dask_pairwise`; the optional extra
        ``pip install coarsenrank[dask]``) into the weighted collection the chunked reader
        gives (:func:`stream_pairwise`).
    scheduler : str, optional
        With ``engine="dask"``: the address of a running scheduler; default a
        ``LocalCluster`` on this machine.

    Returns
    -------
    Preferences
        Items are numbered in order of first appearance (PrefLib and BLT: in the file's
        numbering; item columns: in column order); rows that were skipped are described in
        ``notes``. :func:`read_file` also returns the record of how the file was read.

    Raises
    ------
    PreferenceFormatError
        For every problem with the input, naming the row and column where possible.

    Examples
    --------
    >>> prefs = read_preferences(b"voter,1st,2nd\\nann,tea,coffee\\nbob,coffee,tea\\n")
    >>> prefs.to_lists(names=True), prefs.ranker_names
    ([['tea', 'coffee'], ['coffee', 'tea']], ('ann', 'bob'))
    """
    return read_file(source, format, encoding=encoding, options=options, engine=engine,
                     scheduler=scheduler).preferences


def read_file(source: SourceLike, format: str = "auto", *, encoding: str | None = None,
              options: ReadOptions | None = None, engine: str = "local",
              scheduler: str | None = None) -> ReadResult:
    """Read a file of rankings and say how it was read.

    Parameters are those of :func:`read_preferences`.

    Returns
    -------
    ReadResult
        ``preferences`` and ``report``: the layout, the sheet, which columns were items,
        ranker and count, which columns and rows were skipped, and whether 1 meant best.

    Raises
    ------
    PreferenceFormatError
        For every problem with the input (never another exception).

    Examples
    --------
    >>> result = read_file(b"Timestamp,Q [tea],Q [coffee]\\n2024-05-01 10:00,2,1\\n")
    >>> result.report.layout, result.preferences.to_lists(names=True)
    ('ranks', [['coffee', 'tea']])
    """
    if engine == "dask":
        from .on_dask import dask_pairwise

        if format not in ("auto", "pairwise"):
            raise PreferenceFormatError(f"The Dask engine reads pairwise files, not {format}.",
                                        fix="Choose the local engine for other layouts.")
        given, default = options or ReadOptions(), ReadOptions()
        chosen = [f.name for f in fields(ReadOptions) if f.name != "one_is_best"
                  and getattr(given, f.name) != getattr(default, f.name)]  # no ranks here
        chosen += ["encoding"] if encoding and encoding.lower().replace("_", "-") not in (
            "utf-8", "utf8", "utf-8-sig") else []
        if chosen:  # never read past in silence: the counts would ignore the correction
            raise PreferenceFormatError(
                f"The Dask engine finds its columns by their titles and does not take the "
                f"corrections {', '.join(chosen)}.",
                fix="Read the file with the local engine, or title its columns winner,loser "
                    "(or left,right,winner), ranker and count, in UTF-8.")
        return dask_pairwise(source, scheduler)
    if engine != "local":
        raise PreferenceFormatError(f"'{engine}' is not a reading engine.",
                                    fix="Use 'local' or 'dask'.")

    def task() -> ReadResult:
        paths = source_paths(source, tuple(f".{e}" for e in extensions()))
        if paths is None:
            return _read_file(source, format, encoding=encoding, options=options)

        def one(path: Path) -> ReadResult:
            return _read_file(path, format, encoding=encoding, options=options)

        def as_event(path: Path) -> ReadResult:
            with file_as_event(path.stem):
                return one(path)

        return read_collection(paths, one, as_event, unusual_read)
    return guard(task)


def detect_format(source: SourceLike) -> str:
    """Say which layout a file has: the id of the first registry format that fits.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file-like
        As for :func:`read_preferences`.

    Returns
    -------
    str
        One of the ids of :data:`FORMATS`.

    Raises
    ------
    PreferenceFormatError
        When the file is empty, binary, or names columns that fit no layout.
    """
    def task() -> str:
        file = Source(source, ReadOptions())
        if not file.data[:4096].strip() and not file.data.strip():
            from .assembly import empty_error
            raise empty_error()
        return detect(file).id
    return guard(task)


def table_columns(source: SourceLike, options: ReadOptions | None = None) -> tuple[str, ...]:
    """The titles of a table file's columns as the readers see them; () for other files.

    Survey header rows are understood (Qualtrics, SurveyMonkey) and wrappers such as
    ``Question [Item]`` stripped. Used to offer the columns when correcting a reading.
    """
    def task() -> tuple[str, ...]:
        file = Source(source, options or ReadOptions())
        if not file.binary_table and not file.data[:4096].strip() and not file.data.strip():
            return ()
        if not file.binary_table and any(f.detect(file) for f in FORMAT_LIST if not f.table):
            return ()
        prepared = file.prepared
        return tuple(prepared.label(j) for j in range(prepared.width))
    try:
        return guard(task)
    except PreferenceFormatError:
        return ()


def example_file(format: str) -> bytes:
    """A small, correctly laid out example file of a format (UTF-8 bytes).

    Parameters
    ----------
    format : str
        One of the ids of :data:`FORMATS`.

    Returns
    -------
    bytes
        The file's contents; :func:`read_preferences` reads them back, and
        :func:`detect_format` recognises the format.
    """
    if format not in FORMATS:
        raise PreferenceFormatError(f"'{format}' is not a known format.",
                                    fix=f"Use one of: {', '.join(FORMATS)}.")
    return FORMATS[format].example.encode("utf-8")


