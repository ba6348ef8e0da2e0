"""Pairwise files beyond one machine: per-partition counts on Dask, summed on the driver."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import PreferenceFormatError
from ._text import SourceLike
from .arrow import ARROW_EXTENSIONS
from .assembly import guard
from .report import ReadResult
from .streaming import (
    _Coding,
    _csv_layout,
    _csv_range,
    _files,
    _is_arrow_file,
    _Reader,
    record_starts,
)

__all__ = ["dask_pairwise", "dask_client", "DASK_MISSING"]

DASK_MISSING = ("Reading on Dask needs the optional extra: pip install 'coarsenrank[dask]' "
                "(dask[distributed]).")


def _dask() -> tuple[Any, Any]:
    try:
        import dask
        import distributed
    except ImportError:
        raise PreferenceFormatError("Dask is not installed.",
                                    fix=DASK_MISSING) from None
    return dask, distributed


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, n_workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or of a ``LocalCluster``
    started for the block and closed after it.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``).
    n_workers : int, optional
        Worker processes of the local cluster, one thread each; default the cores, at
        most 4.

    Raises
    ------
    PreferenceFormatError
        When dask[distributed] is not installed.
    """
    _, distributed = _dask()
    if scheduler is not None:
        try:
            client = distributed.Client(scheduler)
        except (OSError, ValueError, TypeError) as error:  # no address, or no one answers
            raise PreferenceFormatError(
                f"The reader cannot reach the Dask scheduler at {str(scheduler)[:200]} "
                f"({str(error)[:200]}).",
                fix="Give the address of a running scheduler (tcp://host:8786, as "
                    "`dask scheduler` prints it), or leave the scheduler out to start a "
                    "local cluster.") from None
        with client:
            yield client
        return
    workers = n_workers or max(1, min(4, os.cpu_count() or 1))
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


#: A partition: ``("parquet", path, row group)`` or ``("csv", path, delimiter, width, start,
#: end)``
Piece = tuple[Any, ...]


def _pieces(path: Path, block_bytes: int) -> tuple[list[str], list[Piece]]:
    """A file's header and its partitions: Parquet row groups, or byte ranges of a CSV
    (each range holds the lines that start in it)."""
    if path.suffix.lower() in ARROW_EXTENSIONS or _is_arrow_file(path):
        import pyarrow.parquet as pq

        try:
            meta = pq.ParquetFile(str(path)).metadata
        except Exception as exc:  # noqa: BLE001 - Arrow/Feather or a damaged file
            raise PreferenceFormatError(
                f"'{path.name}' is not a Parquet file ({type(exc).__name__}); the Dask engine "
                "reads Parquet, CSV and TSV.", fix="Write it as Parquet, or read it locally.") \
                from None
        header = [str(n) for n in meta.schema.to_arrow_schema().names]
        return header, [("parquet", str(path), k) for k in range(meta.num_row_groups)]
    header, delimiter, start = _csv_layout(path)
    size = path.stat().st_size
    step = max(int(block_bytes), 1 << 10)
    # each range starts a record: never inside a quoted cell over several lines
    bounds = [start, *record_starts(path, range(start + step, size, step),
                                    longest=4 * step), size]
    return header, [("csv", str(path), delimiter, len(header), lo, hi)
                    for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo or lo == start]


def count_piece(piece: Piece, header: list[str]) -> dict[str, Any]:
    """The map: one partition counted by the chunked reader into its own names and keys.

    Returns the names (items and rankers) in order of first appearance in the partition,
    the summed weight of each (winner, loser, tie, ranker) key in those local ids, the
    rows read and skipped, and the raw names that tidying changed; or, for a bad cell, the
    error with its row counted from the partition's start. Runs on a worker.
    """
    reader = _Reader()
    try:
        reader.start(header, Path(piece[1]).name)
        if piece[0] == "parquet":
            import pyarrow.parquet as pq

            file = pq.ParquetFile(piece[1], pre_buffer=False)
            for batch in file.iter_batches(batch_size=1 << 18, row_groups=[piece[2]],
                                           use_threads=False):
                reader.chunk(batch, 1)
        else:
            _, path, delimiter, width, start, end = piece
            for batch, row_lines, n_lines in _csv_range(Path(path), delimiter, width, start,
                                                        end, 16 << 20):
                reader.chunk(batch, 2, row_lines, n_lines)
    except PreferenceFormatError as error:
        return {"error": error, "rows": reader.rows, "file": str(piece[1])}
    counts = reader.counts.compact()
    empty = np.zeros(0, dtype=np.int64)
    return {"items": list(reader.items.ids), "rankers": list(reader.rankers.ids),
            "key": empty if counts is None else counts.column("key").to_numpy(),
            "side": empty if counts is None else counts.column("side").to_numpy(),
            "weight": np.zeros(0) if counts is None else counts.column("weight").to_numpy(),
            "rows": reader.rows, "ranked_rows": reader.ranked_rows,
            "self_pairs": reader.self_pairs, "byes": reader.byes,
            "item_spellings": list(reader.items.raw),
            "ranker_spellings": list(reader.rankers.raw),
            "unfinished": reader.unfinished, "anonymous_shown": reader.anonymous_shown,
            "walkovers": reader.walkovers, "walkover_shown": reader.walkover_shown,
            "file": str(piece[1])}


def reduce_counts(parts: list[dict[str, Any]], coding: _Coding, names: list[str]) -> ReadResult:
    """The reduce, on the driver: every partition's names registered in partition order
    (so in order of first appearance in the files), its keys moved to the global ids and
    the weights of equal keys summed, as :func:`~coarsenrank_core.io.stream_pairwise`."""
    import pyarrow as pa

    reader = _Reader()
    reader.coding = coding
    before, file = 0, None
    for part in parts:
        if part.get("file") != file:  # rows count from each file's own start
            before, file = 0, part.get("file")
        if "error" in part:  # rows of the file's partitions before it, then its own row
            error = part["error"].moved_down(before)
            raise error.in_file(Path(file).name) if len(names) > 1 and file else error
        before += part["rows"]
    def global_ids(names: Any, part_names: list[str], spellings: list[str]) -> np.ndarray:
        # every spelling, in the partition's order of first appearance: the global names
        # come in the same order, and look-alikes are merged (and noted) as one reader would
        names.of(spellings)
        return np.asarray([names.ids[n] for n in part_names], dtype=np.int64)

    for part in parts:
        items = global_ids(reader.items, part["items"], part["item_spellings"])
        rankers = (global_ids(reader.rankers, part["rankers"], part["ranker_spellings"])
                   if part["rankers"] else None)
        reader.rows += part["rows"]
        reader.ranked_rows += part.get("ranked_rows", 0)
        reader.byes += part.get("byes", 0)
        reader.self_pairs += part["self_pairs"]
        reader.unfinished += part.get("unfinished", 0)
        reader.anonymous_shown = reader.anonymous_shown or part.get("anonymous_shown")
        reader.walkovers += part.get("walkovers", 0)
        reader.walkover_shown = reader.walkover_shown or part.get("walkover_shown")
        if not len(part["key"]):
            continue
        key, side = part["key"], part["side"]
        winner, loser = items[key >> 32], items[key & 0xFFFFFFFF]
        tie = side & 1
        swap = (tie == 1) & (winner > loser)
        winner, loser = np.where(swap, loser, winner), np.where(swap, winner, loser)
        ranker = side >> 1 if rankers is None else rankers[side >> 1]
        reader.counts.add(pa.table({"key": (winner << 32) | loser, "side": ranker * 2 + tie,
                                    "weight": part["weight"]}))
    return reader.result(names)


def dask_pairwise(paths: SourceLike, scheduler: str | None = None, *, block_bytes: int = 64 << 20,
                  n_workers: int | None = None) -> ReadResult:
    """Read pairwise files (the codings :func:`~coarsenrank_core.io.stream_pairwise` reads)
    on a Dask cluster into one weighted collection.

    Each partition (a row group of a Parquet file, a byte range of a CSV/TSV file) is
    counted on a worker by the chunked reader into its own names and keys
    (:func:`count_piece`, the map); the driver registers the names in partition order and
    sums the weights of equal keys (:func:`reduce_counts`, the reduce). The result equals
    :func:`~coarsenrank_core.io.stream_pairwise` on the same files: the same items and
    rankers in the same order, the same weights, the same errors with their rows. The fit
    then runs locally on the counts. A task whose worker dies is run again elsewhere by
    Dask (its ``allowed-failures``); a task that keeps failing raises, never a partial sum.

    Parameters
    ----------
    paths : str, pathlib.Path or sequence of them
        CSV/TSV or Parquet files of one set of columns (a folder or a glob pattern is
        expanded first, as by :func:`~coarsenrank_core.io.read_preferences`).
    scheduler : str, optional
        The address of a running Dask scheduler (``tcp://host:8786``); by default a
        ``LocalCluster`` is started on this machine for the read and closed after it.
    block_bytes : int
        Bytes of CSV per partition.
    n_workers : int, optional
        Workers of the local cluster (default: the cores, at most 4).

    Raises
    ------
    PreferenceFormatError
        When dask is not installed (with the command that installs it), the files are not
        in a pairwise layout the chunked reader takes (``winner``/``loser``, left/right with
        a winner label, or 0/1 winner flags), or a cell is bad (naming the row and column).
    """
    def task() -> ReadResult:
        _dask()  # before any file is read: the extra to install
        files = _files(paths)
        if not files:
            raise PreferenceFormatError("No files were given.", fix="Name at least one file.")
        for path in files:
            if not path.is_file():
                raise PreferenceFormatError(f"Cannot read '{path}': there is no such file.",
                                            fix="Check the file name and folder.")
        pieces: list[Piece] = []
        header: list[str] | None = None
        for path in files:
            try:
                head, ranges = _pieces(path, block_bytes)
                _Coding.of(head)  # a file that is not a winner/loser table is refused here
            except PreferenceFormatError as error:
                raise error.in_file(path.name) if len(files) > 1 else error from None
            if header is not None and head != header:
                raise PreferenceFormatError(
                    f"'{path.name}' names other columns than '{files[0].name}'.",
                    fix="Read files of one layout together, with the same column titles.")
            header = head
            pieces.extend(ranges)

        def run(client: Any) -> list[dict[str, Any]]:
            futures = client.map(count_piece, pieces, header=header, pure=False)
            parts: list[dict[str, Any]] = client.gather(futures)
            return parts

        with dask_client(scheduler, n_workers) as client:
            parts = run(client)
        assert header is not None
        return reduce_counts(parts, _Coding.of(header), [p.name for p in files])
    return guard(task)
