"""Give memory freed by a large parse back to the operating system (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

__all__ = ["release_freed_memory"]


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None on other C libraries (macOS, Windows, musl)."""
    name = ctypes.util.find_library("c")
    try:
        function = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    if function is not None:
        function.argtypes, function.restype = [ctypes.c_size_t], ctypes.c_int
    return function


def release_freed_memory() -> bool:
    """Return free heap pages to the system; True when trimmed.

    A parse of tens of megabytes frees far more than it keeps, but the C allocator holds
    the freed pages for reuse, so a server that read one large upload would look that much
    bigger for good. ``malloc_trim(0)`` hands them back (glibc only; elsewhere a no-op).
    """
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
