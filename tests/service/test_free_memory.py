"""Handing freed heap memory back after a throw (firmware_host/free_memory.py), measured on this process."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from firmware_host.free_memory import release_free_memory


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_freed_frame_buffers_kept_by_the_heap_are_given_back():
    big = np.ones((720, 1280, 3), np.float32)  # a rendered frame: freeing it raises glibc's mmap threshold
    del big
    buffers, pins = [], []
    for _ in range(40):  # 37 MB from the heap (below that threshold), each followed by a small buffer kept:
        buffers.append(np.ones((480, 640, 3), np.uint8))  # freed, they are holes glibc cannot trim by itself
        pins.append(np.ones(64 * 1024, np.uint8))
    del buffers
    before = resident_mb()
    assert release_free_memory()
    after = resident_mb()
    assert before - after > 25, (before, after)  # most of the 37 MB freed but still resident went back
    assert sum(int(p[0]) for p in pins) == 40
