"""The one error type the readers raise, shaped for display to a user."""

from __future__ import annotations

from collections.abc import Callable

#: The ``should_stop`` callback of every long computation: true asks it to stop.
ShouldStop = Callable[[], bool]
#: The ``progress(done, total)`` callback of every long computation (``done`` may be
#: fractional).
Progress = Callable[[float, int], None]


class PreferenceFormatError(ValueError):
    """A file or table could not be read as preferences or as a ground truth.

    The message is written for the person who made the file: it names the row and the
    column where the problem is, what was found, and what was expected instead.

    Parameters
    ----------
    message : str
        What is wrong, in plain words.
    row : int, optional
        The 1-based line of the file (the header is line 1) where the problem is.
    column : str, optional
        The column's name (or 1-based position) where the problem is.
    fix : str, optional
        What to change so that the file reads.
    """

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None,
                 fix: str | None = None):
        self.reason = message
        self.row = row
        self.column = column
        self.fix = fix
        super().__init__(self._compose())

    def moved_down(self, lines: int) -> PreferenceFormatError:
        """The same error with its row ``lines`` further down: a piece's row in its file."""
        return PreferenceFormatError(self.reason, row=None if self.row is None
                                     else self.row + lines, column=self.column, fix=self.fix)

    def in_file(self, name: str) -> PreferenceFormatError:
        """The same error said of the file ``name``, one of several read together."""
        return PreferenceFormatError(f"In '{name}': {self.reason}", row=self.row,
                                     column=self.column, fix=self.fix)

    def _compose(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        place = ", ".join(where)
        text = (place[:1].upper() + place[1:] + ": " if where else "") + self.reason
        if self.fix:
            text += f" Fix: {self.fix}"
        return text


class Cancelled(Exception):
    """A long computation stopped because its ``should_stop`` callback asked it to.

    Raised from inside the fit (between passes or batches), so no partial result is
    returned; the message says how far the fit got.
    """


def check_stop(should_stop: ShouldStop | None, what: str) -> None:
    """Raise :class:`Cancelled` with ``what`` (how far the fit got) if ``should_stop()`` is true.

    Every long fit calls this every few iterations; ``should_stop=None`` never stops.
    """
    if should_stop is not None and should_stop():
        raise Cancelled(what)


class ClusterError(RuntimeError):
    """A computation on a Dask cluster lost work it could not recover.

    Raised instead of a partial answer when a worker died holding the only copy of a
    partition, or when a task failed on more workers than the scheduler allows. The message
    says what was lost and how to run again (``keep_local=True``, or the local engine).
    """
