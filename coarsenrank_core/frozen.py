"""A read-only mapping that, unlike ``types.MappingProxyType``, survives pickling."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["FrozenDict"]


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
