"""Benchmarks of the firmware link over a real pty (printed figures, no timed assertions; run by `make bench`).

- codec: frames encoded and decoded per second (pure Python, no I/O);
- link throughput: board events per second through simulator -> pty -> session (each acked);
- round trip: PING command -> RESULT latency;
- event latency: from the simulator's write to the typed event leaving the service queue (target <= 2 ms).
"""

from __future__ import annotations

import queue
import statistics
import threading
import time

from drivers.events import CardOut
from drivers.protocol import DeviceType, Frame, FrameDecoder, Kind, encode_frame
from drivers.protocol.messages import EventMsg
from drivers.shoe import ShoeBoard
from drivers.sim.board import BoardSim
from drivers.sim.shoe import ShoeSim
from drivers.protocol.boards import WHEEL
from firmware_host.link import ExpectedDevice
from tests.link.harness import Collector, make_session


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def test_codec_frames_per_second():
    frame = Frame(Kind.EVENT, 7, 3, EventMsg(1234, 99_000, 1, b"\x01\x02\x00\x2c").encode())
    n = 20_000
    start = time.perf_counter()
    wires = [encode_frame(frame) for _ in range(n)]
    encoded = time.perf_counter() - start
    decoder = FrameDecoder()
    start = time.perf_counter()
    frames = decoder.feed(b"".join(wires))
    decoded = time.perf_counter() - start
    assert len(frames) == n and frames[0] == frame
    print(f"\n[bench] codec: encode {n / encoded:,.0f} frames/s, decode {n / decoded:,.0f} frames/s "
          f"({len(wires[0])} bytes per frame)")


def test_link_throughput_and_round_trip_over_a_pty(tmp_path):
    sim = BoardSim(WHEEL, serial="BENCH-1", path=tmp_path / "bench0")
    sim.start()
    collector = Collector()
    session = make_session(sim.path, collector, ExpectedDevice(DeviceType.WHEEL_SENSOR))
    try:
        session.connect(timeout=5)
        n = 3000
        start = time.perf_counter()
        for i in range(n):
            sim.emit("ball_pass", sensor=i % 2)
        got = collector.take_events(n, timeout=60)
        elapsed = time.perf_counter() - start
        assert [e.event_id for e in got] == list(range(1, n + 1))
        print(f"\n[bench] link throughput over a pty: {n / elapsed:,.0f} events/s acknowledged "
              f"({n} events in {elapsed:.2f} s, window 8; retransmissions {sim.channel.stats.retransmitted})")
        rtts = []
        for i in range(500):
            t0 = time.perf_counter()
            session.ping(i.to_bytes(2, "little"))
            rtts.append(time.perf_counter() - t0)
        print(f"[bench] command round trip (PING -> RESULT) over a pty: median {ms(statistics.median(rtts))}, "
              f"p99 {ms(percentile(rtts, 0.99))}, max {ms(max(rtts))} ({len(rtts)} commands)")
    finally:
        session.stop()
        sim.stop()


class StampedShoe(ShoeSim):
    """Records when each card's frame is handed to the pty (same process, same monotonic clock)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.written: dict[int, float] = {}

    def _write(self, wire: bytes) -> None:
        body = FrameDecoder().feed(wire)
        if body and isinstance(body[0], Frame) and body[0].kind == Kind.EVENT:
            event = EventMsg.decode(body[0].payload)
            if event.code == 0x01:  # card_out: seq is the last two data bytes
                self.written.setdefault(int.from_bytes(event.data[2:4], "little"), time.monotonic())
        super()._write(wire)


def test_event_latency_wire_to_service_queue(tmp_path):
    sim = StampedShoe(path=tmp_path / "shoe0")
    sim.start()
    service_queue: queue.Queue = queue.Queue()
    session = make_session(sim.path, Collector(), ExpectedDevice(DeviceType.SHOE_SCANNER))
    ShoeBoard(session, emit=service_queue.put)
    received: dict[int, float] = {}
    n = 500
    done = threading.Event()

    def service_loop() -> None:  # the one loop that owns rounds: takes events off its queue
        while len(received) < n:
            try:
                event = service_queue.get(timeout=10)
            except queue.Empty:
                break
            if isinstance(event, CardOut):
                received[event.seq] = time.monotonic()
        done.set()

    consumer = threading.Thread(target=service_loop, daemon=True)
    consumer.start()
    try:
        session.connect(timeout=5)
        sim.load()
        for _ in range(n):
            sim.deal("AS")
            time.sleep(0.002)  # a dealer is slower than this; the link is not saturated
        assert done.wait(30)
        latencies = [received[seq] - sim.written[seq] for seq in range(1, n + 1)]
        print(f"\n[bench] event latency wire -> service queue (shoe card_out over a pty): "
              f"median {ms(statistics.median(latencies))}, p95 {ms(percentile(latencies, 0.95))}, "
              f"p99 {ms(percentile(latencies, 0.99))}, max {ms(max(latencies))}; target <= 2 ms")
    finally:
        session.stop()
        sim.stop()
