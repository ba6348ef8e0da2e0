"""Read-only building blocks of the frozen results: arrays and a mapping that survive pickling."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, overload

import numpy as np

__all__ = ["FrozenDict", "readonly_array", "restore_readonly"]


@overload
def readonly_array(array: None, dtype: Any = float) -> None: ...


@overload
def readonly_array(array: Any, dtype: Any = float) -> np.ndarray: ...


def readonly_array(array, dtype=float):
    """A read-only copy of ``array`` as ``dtype`` (``None`` stays ``None``)."""
    if array is None:
        return None
    out = np.array(array, dtype=dtype, copy=True)
    out.flags.writeable = False
    return out


def restore_readonly(record, state) -> None:
    """``__setstate__`` of a frozen record: put the pickled state back, arrays read-only.

    Unpickling builds fresh arrays, which numpy makes writeable; nothing else holds them, so
    the flag is cleared in place (no copy). ``state`` is the instance ``__dict__`` that
    pickle saved (``None`` when it was empty).
    """
    for value in (state or {}).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    record.__dict__.update(state or {})


class FrozenDict(Mapping):
    """An immutable dictionary for the ``params``/``extra`` fields of frozen results.

    Results are pickled by ``st.cache_data`` and by worker processes, which
    ``MappingProxyType`` does not allow.
    """

    __slots__ = ("_data",)

    def __init__(self, *args, **kwargs):
        self._data = dict(*args, **kwargs)

    def __getitem__(self, key) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __reduce__(self):
        return FrozenDict, (self._data,)
