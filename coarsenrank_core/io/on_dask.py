"""Pairwise files beyond one machine: per-partition counts on Dask, summed on the driver."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ._common import guard, parse_weights
from .arrow import ARROW_EXTENSIONS
from .pairwise import _FALSE, _TRUE
from .report import ReadResult
from .streaming import _Coding, _Reader

__all__ = ["dask_pairwise", "DASK_MISSING"]

DASK_MISSING = ("Reading on Dask needs the optional extra: pip install 'coarsenrank[dask]' "
                "(dask[distributed]).")


def _dask():
    try:
        import dask.dataframe as dd
        import distributed
    except ImportError:
        raise PreferenceFormatError("Dask is not installed.",
                                    fix=DASK_MISSING) from None
    return dd, distributed


def _header(path: Path) -> list[str]:
    if path.suffix.lower() in ARROW_EXTENSIONS:
        import pyarrow.parquet as pq

        return [str(n) for n in pq.ParquetFile(str(path)).schema_arrow.names]
    from .streaming import _csv_batches

    return _csv_batches(path, 1 << 16)[0]


def partition_counts(frame: pd.DataFrame, part: int, coding: _Coding) -> pd.DataFrame:
    """One partition's comparisons summed per distinct (winner, loser, tie, ranker) cell text.

    Also returns each key's first row in the partition (``first``) and how many rows it
    had (``rows``), so that the driver can number names in order of first appearance and
    count self-comparisons. The map of the map-reduce: runs on a worker.
    """
    header = coding.header
    n = len(frame)

    def text(j: int) -> pd.Series:
        return frame.iloc[:, j].astype("string").fillna("").str.strip()

    def refuse(j: int, position: int, reason: str, fix: str):
        raise PreferenceFormatError(
            f"{reason} (row {position + 1} of partition {part + 1}, column "
            f"'{header[j] or j + 1}')", column=header[j] or str(j + 1), fix=fix)

    columns = {}
    for name, j in (("w", coding.winner), ("l", coding.loser)):
        values = text(j)
        blank = np.flatnonzero((values == "").to_numpy())
        if blank.size:
            refuse(j, int(blank[0]), "This cell is blank; every comparison needs two items",
                   "Fill in the item or delete the row.")
        columns[name] = values.to_numpy(dtype=object)
    tie = np.zeros(n, dtype=bool)
    if coding.tie is not None:
        words = text(coding.tie).str.lower().str.removesuffix(".0")
        truth = words.isin(_TRUE).to_numpy()
        bad = np.flatnonzero(~(truth | words.isin(_FALSE).to_numpy()))
        if bad.size:
            refuse(coding.tie, int(bad[0]), f"'{words.iloc[bad[0]]}' is not a yes/no flag",
                   "Write 1 or 0 (or true/false, yes/no).")
        tie = truth
    weight = np.ones(n)
    if coding.count is not None:
        cells = text(coding.count).to_numpy(dtype=object)
        weight = parse_weights(cells, np.arange(1, n + 1), header[coding.count])
    ranker = np.full(n, "", dtype=object)
    if coding.ranker is not None:
        ranker = text(coding.ranker).to_numpy(dtype=object)
        blank = np.flatnonzero(ranker == "")
        if blank.size:
            refuse(coding.ranker, int(blank[0]), "The ranker is blank on this row",
                   "Fill in who gave this comparison, or delete the ranker column.")
    table = pd.DataFrame({"w": columns["w"], "l": columns["l"], "tie": tie, "r": ranker,
                          "weight": weight, "row": np.arange(n)})
    summed = table.groupby(["w", "l", "tie", "r"], sort=False).agg(
        weight=("weight", "sum"), rows=("row", "size"), first=("row", "min")).reset_index()
    summed["part"] = part
    return summed


def reduce_counts(parts: list[pd.DataFrame], coding: _Coding, names: list[str]) -> ReadResult:
    """The driver's reduce: names numbered in order of first appearance, then the summed
    weight of every distinct (winner, loser, tie, ranker), as :func:`stream_pairwise`."""
    import pyarrow as pa

    counts = pd.concat(parts, ignore_index=True)
    reader = _Reader()
    reader.coding = coding
    order = np.lexsort((counts["first"].to_numpy(), counts["part"].to_numpy()))
    counts = counts.iloc[order].reset_index(drop=True)
    # a name first appears at the first row of any key holding it: winner before loser
    seen = pd.DataFrame({"name": np.concatenate([counts["w"], counts["l"]]),
                         "at": np.concatenate([2 * np.arange(len(counts)),
                                               2 * np.arange(len(counts)) + 1])})
    place = np.lexsort((seen["at"].to_numpy(),))
    first_names = pd.unique(seen["name"].to_numpy()[place])
    reader.items.of(list(first_names))
    winner = reader.items.of(list(counts["w"]))
    loser = reader.items.of(list(counts["l"]))
    ranker = None
    if coding.ranker is not None:
        reader.rankers.of(list(pd.unique(counts["r"].to_numpy())))
        ranker = reader.rankers.of(list(counts["r"]))
    tie = counts["tie"].to_numpy(dtype=bool)
    reader.rows = int(counts["rows"].sum())
    self_pair = winner == loser
    reader.self_pairs = int(counts["rows"].to_numpy()[self_pair].sum())
    swap = tie & (winner > loser)
    winner, loser = np.where(swap, loser, winner), np.where(swap, winner, loser)
    keep = ~self_pair
    side = (np.zeros(len(counts), dtype=np.int64) if ranker is None else ranker * 2) + tie
    key = (winner << 32) | loser
    reader.counts.add(pa.table({"key": key[keep], "side": side[keep],
                                "weight": counts["weight"].to_numpy(dtype=float)[keep]}))
    return reader.result(names)


def dask_pairwise(paths, scheduler: str | None = None, *, blocksize: str = "64MB",
                  n_workers: int | None = None) -> ReadResult:
    """Read ``winner,loser`` files on a Dask cluster into one weighted collection.

    Each partition of the ``dask.dataframe`` (a block of a CSV file, a row group of a
    Parquet file) is summed per distinct (winner, loser, tie, ranker) on a worker
    (:func:`partition_counts`); the driver sums the partitions' counts
    (:func:`reduce_counts`). The result equals :func:`~coarsenrank_core.io.stream_pairwise`
    on the same files: the same items and rankers in the same order, the same weights.
    The fit then runs locally on the counts.

    Parameters
    ----------
    paths : str, pathlib.Path or sequence of them
        CSV/TSV or Parquet files of one set of columns (a folder or a glob pattern is
        expanded first, as by :func:`~coarsenrank_core.io.read_preferences`).
    scheduler : str, optional
        The address of a running Dask scheduler (``tcp://host:8786``); by default a
        ``LocalCluster`` is started on this machine for the read and closed after it.
    blocksize : str
        Bytes of CSV per partition.
    n_workers : int, optional
        Workers of the local cluster (default: the cores, at most 4).

    Raises
    ------
    PreferenceFormatError
        When dask is not installed (with the command that installs it), the files are not
        ``winner``/``loser`` tables, or a cell is bad (naming the partition, row and column).
    """
    def task() -> ReadResult:
        from .collection import source_paths
        from .formats import extensions

        dd, distributed = _dask()
        files = source_paths(paths, tuple(f".{e}" for e in extensions()))
        if files is None:
            files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
        for path in files:
            if not path.is_file():
                raise PreferenceFormatError(f"Cannot read '{path}': there is no such file.",
                                            fix="Check the file name and folder.")
        header = _header(files[0])
        coding = _Coding.of(header)
        for path in files[1:]:
            other = _header(path)
            if other != header:
                raise PreferenceFormatError(
                    f"'{path.name}' names other columns than '{files[0].name}'.",
                    fix="Read files of one layout together, with the same column titles.")
        frames = []
        for path in files:
            if path.suffix.lower() in ARROW_EXTENSIONS:
                frames.append(dd.read_parquet(str(path), split_row_groups=True))
            else:
                delimiter = "\t" if path.suffix.lower() == ".tsv" else None
                frames.append(dd.read_csv(str(path), dtype=str, blocksize=blocksize,
                                          keep_default_na=False, sep=delimiter or ",",
                                          skipinitialspace=False))
        delayed_parts = [part for frame in frames for part in frame.to_delayed()]
        import dask

        summaries = [dask.delayed(partition_counts)(part, k, coding)
                     for k, part in enumerate(delayed_parts)]
        if scheduler is None:
            import os

            workers = n_workers or max(1, min(4, os.cpu_count() or 1))
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                          processes=True, dashboard_address=":0") as cluster, \
                    distributed.Client(cluster) as client:
                parts = client.gather(client.compute(summaries))
        else:
            with distributed.Client(scheduler) as client:
                parts = client.gather(client.compute(summaries))
        return reduce_counts(list(parts), coding, [p.name for p in files])
    return guard(task)
