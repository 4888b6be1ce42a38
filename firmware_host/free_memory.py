"""Handing the heap's free memory back to the system after a throw is read.

A read allocates and frees frame-sized buffers (frames, Lab images, scores; in the simulation the rendered
frame too). Once glibc has seen one freed, it keeps buffers of that size in its heaps rather than mapping
them anew (its mmap threshold rises), so the freed megabytes stay resident until the next read wants them.
`malloc_trim(0)` returns them; called once a throw's result has been handed on (never per frame: mapping the
pages again on every frame doubled the read time, docs/vision.md), it costs the result nothing.
Elsewhere than glibc (no `malloc_trim`) it does nothing.
"""

from __future__ import annotations

import ctypes


def _malloc_trim():
    try:  # the process's own symbols: libc is loaded already (find_library would run ldconfig at start-up)
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release_free_memory() -> bool:
    """Return the heap's free pages to the system (glibc); True when something was given back."""
    if _TRIM is None:
        return False
    return bool(_TRIM(0))  # ctypes releases the GIL for the call
