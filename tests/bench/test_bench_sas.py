"""Benchmark: SAS polls per second per port on the simulator with the real timing rules vs the line limit.

Both ends of the pty pace their bytes to 19200 baud at 11 bits a byte (start, 8 data, wakeup, stop),
so a byte takes 11 / 19200 s = 572.9 us and the line carries at most 19200 / 11 = 1745.45 bytes/s.
For a mix of polls whose exchanges (poll + reply bytes) average B bytes the line limit is
1745.45 / B polls/s; the host's share of it is (bytes moved x 572.9 us) / elapsed time. The host keeps
the SAS rules: 20 ms response and 5 ms inter-byte limits, retries, implied ACKs, at most one poll per
machine every 200 ms - so a port needs enough machines for the line, not the rule, to be the limit.
Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from drivers.sas.host import SasHost
from drivers.sas.link import BAUD, BITS_PER_BYTE, open_link
from drivers.sas.poller import PollStep, PortPoller

SECONDS = 8.0
CYCLE = ["general", "0x1C", "general", "0x2F:00,01,02,05,06,07,04", "general", "0x1A"]
LINE_BYTES_PER_S = BAUD / BITS_PER_BYTE


class Port:
    """A bank of simulated machines in their own process (an EGM is another device) on a paced pty."""

    def __init__(self, machines: int, cycle: list[str], min_interval: float = 0.200) -> None:
        self.machines, self.min_interval = machines, min_interval
        tablehw = str(Path(sys.executable).with_name("tablehw"))
        self.process = subprocess.Popen([tablehw, "sas", "sim", "--port", "pty", "--pace", "--machines",
                                         str(machines), "--games-per-second", "0.5"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        path = self.process.stdout.readline().split(" on ")[1].split(" ")[0]
        self.link = open_link(path, pace=True)
        self.host = SasHost(self.link, response_timeout=0.020, inter_byte_timeout=0.005, retries=2, ack_address=127)
        self.outcomes = []
        self.poller = PortPoller(path, self.host, range(1, machines + 1), [PollStep.parse(s) for s in cycle],
                                 on_outcome=self.outcomes.append, min_interval=min_interval)

    def run(self, seconds: float) -> dict:
        self.poller.start()
        time.sleep(1.0)  # warm up: first polls, exceptions from start-up
        sent0, received0, polls0 = self.link.bytes_sent, self.link.bytes_received, len(self.outcomes)
        start = time.monotonic()
        time.sleep(seconds)
        elapsed = time.monotonic() - start
        polls = len(self.outcomes) - polls0
        moved = self.link.bytes_sent - sent0 + self.link.bytes_received - received0
        window = self.outcomes[polls0:polls0 + polls]
        self.poller.stop()
        self.link.close()
        self.process.terminate()
        self.process.wait(10)
        errors = sum(1 for o in window if o.error)
        bytes_per_poll = moved / polls
        limit = LINE_BYTES_PER_S / bytes_per_poll
        rule = self.machines / self.min_interval if self.min_interval else float("inf")
        return {"polls_per_s": polls / elapsed, "bytes_per_poll": bytes_per_poll, "limit": limit, "rule": rule,
                "share": (polls / elapsed) / min(limit, rule), "errors": errors, "polls": polls,
                "retries": self.host.stats.retries, "ack_polls": self.host.stats.ack_polls,
                "sync_polls": self.host.stats.sync_polls,
                "timeouts": self.host.stats.timeouts, "bad_frames": self.host.stats.bad_frames}


def _report(name: str, r: dict) -> None:
    rule = f"{r['rule']:.0f} polls/s" if r["rule"] != float("inf") else "none"
    binding = "line" if r["limit"] <= r["rule"] else "200 ms rule"
    print(f"\n{name}: {r['polls_per_s']:.1f} polls/s, {r['bytes_per_poll']:.2f} bytes per exchange "
          f"-> line limit {LINE_BYTES_PER_S:.2f} / {r['bytes_per_poll']:.2f} = {r['limit']:.1f} polls/s, "
          f"200 ms rule limit {rule}; achieved {r['share'] * 100:.1f} % of the {binding} limit "
          f"({r['polls']} polls, {r['errors']} failed, "
          f"{r['retries']} retries: {r['timeouts']} timeouts, {r['bad_frames']} bad frames; "
          f"{r['ack_polls']} ack polls, {r['sync_polls']} sync polls)")


def test_bench_polls_per_second_per_port():
    print(f"\nline: 19200 baud / 11 bits per byte = {LINE_BYTES_PER_S:.2f} bytes/s "
          f"({1e6 * BITS_PER_BYTE / BAUD:.1f} us a byte)")
    bank = Port(32, CYCLE).run(SECONDS)
    _report("32 machines on one port, cycle " + " ".join(CYCLE), bank)
    single = Port(1, CYCLE).run(SECONDS)
    _report("1 machine on one port (capped by the 200 ms rule at 5 polls/s)", single)
    general = Port(127 - 1, ["general"]).run(SECONDS)
    _report("126 machines (a full port), general polls only", general)
    turnaround = Port(8, ["general"], min_interval=0.0).run(SECONDS)
    _report("general polls with the 200 ms rule lifted (2-byte exchanges: the host's turnaround bound)",
            turnaround)
    print(f"\nTARGET >= 90 % of the line limit: bank {bank['share'] * 100:.1f} % "
          f"({'met' if bank['share'] >= 0.9 else 'NOT met'})")


def test_bench_two_ports_concurrently():
    ports = [Port(32, CYCLE), Port(32, CYCLE)]
    results = [None, None]

    def run(i):
        results[i] = ports[i].run(SECONDS)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        _report(f"port {i + 1} of 2 polled concurrently (32 machines each)", r)
