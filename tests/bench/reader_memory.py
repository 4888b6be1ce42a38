"""The service's reader, 10,000 reads in a process of its own: its resident memory as JSON on stdout.

Run by `test_bench_memory_10000_reads` as `python -m tests.bench.reader_memory FOLDER`. A process of its own, so the
figure is the reader's, not what the benchmarks run before it left in pytest's process (run after the rendered mixes
and the service benchmarks, that process sat at 277-970 MB with the reader in it)."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import cv2

from tests.bench.test_bench_vision import rendered_frames, service_vision

READS = 10000


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def main(folder: Path) -> None:
    cv2.setNumThreads(1)
    _, empty, cal, frames = rendered_frames(10)
    reader = service_vision("craps", empty, cal, folder).reader
    for f in frames:
        reader.read(f)
    start = rss_mb()
    samples = []
    for i in range(READS):
        reader.read(frames[i % len(frames)])
        if i % 1000 == 999:
            samples.append(rss_mb())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"reads": READS, "start_mb": start, "samples_mb": samples, "peak_mb": peak}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
