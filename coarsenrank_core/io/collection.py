"""Several files of one layout (a folder, a glob pattern or a list of paths) as one collection."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import PreferenceFormatError
from ..preferences import ID_DTYPE, Preferences
from ._text import SourceLike
from .report import ReadResult

__all__ = ["source_paths", "read_collection"]

_GLOB_CHARACTERS = set("*?[")


def _is_pattern(text: str) -> bool:
    return bool(_GLOB_CHARACTERS & set(text)) and "\n" not in text


def _folder_files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in suffixes)


def source_paths(source: SourceLike, suffixes: tuple[str, ...]) -> list[Path] | None:
    """The files ``source`` names when it names a collection, else ``None`` (one file).

    A collection is a folder (its files whose endings are in ``suffixes``, sorted by name,
    hidden files left out), a glob pattern such as ``'battles/*.parquet'`` that names no
    existing file itself, or a list or tuple of paths (each may itself be a folder or a
    pattern).
    """
    if isinstance(source, (list, tuple)):
        if not source or not all(isinstance(s, (str, os.PathLike)) for s in source):
            return None
        files: list[Path] = []
        for item in source:
            files.extend(source_paths(item, suffixes) or [Path(item)])
        return files
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = Path(source)
    try:
        if path.is_dir():
            files = _folder_files(path, suffixes)
            if not files:
                raise PreferenceFormatError(
                    f"The folder '{path}' holds no file of rankings.",
                    fix="Accepted endings: " + ", ".join(suffixes) + ".")
            return files
        if isinstance(source, str) and _is_pattern(source) and not path.exists():
            files = sorted(Path(p) for p in glob.glob(source) if Path(p).is_file())
            if not files:
                raise PreferenceFormatError(f"No file matches '{source}'.",
                                            fix="Check the folder and the pattern.")
            return files
    except OSError:  # a name too long, a string of file contents: not a collection
        return None
    return None


#: The name given to a ranker who names no one (``Anonymous``): the row's own.
_ROW_NAMED = re.compile(r"\(row \d+\)")


#: The start of the refusal of a file holding one results list (one race, no event), which
#: a collection reads as one event a file.
ONE_RESULTS_LIST = "This file holds one ranking: a single results list"


def read_collection(paths: list[Path], read_one: Callable[[Path], ReadResult],
                    read_as_event: Callable[[Path], ReadResult] | None = None,
                    check_read: Callable[[Preferences], str | None] | None = None
                    ) -> ReadResult:
    """Read every file with ``read_one`` and join them into one collection.

    The files must have one layout. Items (and rankers) are matched by name across files
    and numbered in order of first appearance; the notes of each file are kept, prefixed
    with its name. Either every file names its rankers or none does. A file of two or more
    that holds one results list and no event (one race a file) is read with
    ``read_as_event``, the file naming its event. ``check_read`` gives the report's warning
    for the joined collection (a file's own warning, such as "more items than rankings",
    need not hold for the whole).
    """
    results = []
    events: list[str] = []
    for path in paths:
        try:
            try:
                results.append(read_one(path))
            except PreferenceFormatError as error:
                if read_as_event is None or len(paths) < 2 or \
                        not error.reason.startswith(ONE_RESULTS_LIST):
                    raise
                results.append(read_as_event(path))
                events.append(path.name)
        except PreferenceFormatError as error:
            raise error.in_file(path.name) from None
    if len(results) == 1:
        return results[0]
    layouts = {r.report.layout for r in results}
    if len(layouts) > 1:
        found = ", ".join(f"'{p.name}' is {r.report.layout}" for p, r in zip(paths, results))
        raise PreferenceFormatError(
            f"The files do not share one layout: {found}.",
            fix="Read files of one layout together, or choose the layout explicitly.")
    ranked = [r.preferences.has_rankers for r in results]
    if any(ranked) and not all(ranked):
        without = [p.name for p, r in zip(paths, ranked) if not r]
        raise PreferenceFormatError(
            f"Some files name their rankers and some do not (without: {', '.join(without)}).",
            fix="Give every file a ranker column, or none (choose '' as the ranker column).")
    item_ids: dict[str, int] = {}
    ranker_ids: dict[str, int] = {}
    items, groups, lengths, weights, rankers = [], [], [], [], []
    notes: list[str] = []
    for path, result in zip(paths, results):
        prefs = result.preferences
        mapping = np.asarray([item_ids.setdefault(n, len(item_ids)) for n in prefs.item_names],
                             dtype=ID_DTYPE)
        items.append(mapping[prefs.items])
        groups.append(prefs.groups)
        lengths.append(prefs.lengths)
        weights.append(np.asarray(prefs.weights))
        if prefs.rankers is not None:
            names = prefs.ranker_names or tuple(str(i) for i in range(prefs.n_rankers))
            # a ranker named by its row ('Anonymous' there) is that file's row, no one else's
            names = tuple(f"{path.name} {n}" if _ROW_NAMED.fullmatch(n) else n for n in names)
            to_global = np.asarray([ranker_ids.setdefault(n, len(ranker_ids)) for n in names],
                                   dtype=ID_DTYPE)
            rankers.append(to_global[prefs.rankers])
        notes.extend(f"{path.name}: {note}" for note in prefs.notes)
    if events:
        notes.insert(0, f"Read {len(events)} of the files as one event's results each (a "
                        "results list with no event column: the file names the event), such "
                        f"as '{events[0]}'")
    all_weights = np.concatenate(weights)
    joined = Preferences.from_arrays(
        np.concatenate(items), np.concatenate(lengths), groups=np.concatenate(groups),
        n_items=len(item_ids), weights=None if np.all(all_weights == 1.0) else all_weights,
        rankers=np.concatenate(rankers) if all(ranked) else None,
        item_names=tuple(item_ids), ranker_names=tuple(ranker_ids) if all(ranked) else None,
        notes=tuple(notes))
    shown = ", ".join(p.name for p in paths[:3]) + (", ..." if len(paths) > 3 else "")
    report = replace(results[0].report, file_name=f"{len(paths)} files ({shown})",
                     notes=joined.notes,
                     warning=check_read(joined) if check_read else results[0].report.warning)
    return ReadResult(joined, report)
