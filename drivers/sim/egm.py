"""The EGM simulator: one or more simulated slot machines answering SAS polls on one line (a pty or port).

It reads wire bytes, starts a message at every byte with the wakeup bit, ends it by the poll's known
length (or drops it after a 5 ms gap), lets every machine see every poll (a poll to another address
or a broadcast is an implied ACK), and sends the addressed machine's answer. It chirps - each machine
sends its address with the wakeup bit every 200 ms - after `chirp_after` seconds with no address byte
on the line (SAS 4.2), at which point the machines also fall out of sync (see egm_responder), and plays
the machines' games as wall time passes.
"""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Iterable

from ..sas.errors import SasCrcError, SasFrameError, SasLinkError
from ..sas.link import FdChannel, SasLink
from ..sas.polls import GENERAL_POLL_BIT, parse_progressive, parse_request, request_length
from .egm_machine import EgmMachine, EgmProfile
from .egm_responder import EgmResponder

INTER_BYTE_LIMIT = 0.005
CHIRP_AFTER = 5.0
CHIRP_EVERY = 0.200
PROGRESSIVE_TIMEOUT = 5.0


class PtyLine:
    """A pty pair: the simulator keeps the master, the host opens `path` (the slave)."""

    def __init__(self, *, pace: bool = False) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)  # no echo or line editing before the host configures its side
        os.set_blocking(master, False)
        self._slave = slave
        self.path = os.ttyname(slave)
        self.link = SasLink(FdChannel(master), pace=pace)

    def close(self) -> None:
        self.link.close()
        os.close(self._slave)


class EgmSimulator:
    """Serves `machines` on `link` from a thread until `stop()`."""

    def __init__(self, link: SasLink, machines: Iterable[EgmMachine], *, chirp_after: float = CHIRP_AFTER,
                 chirp_every: float = CHIRP_EVERY, progressive_timeout: float = PROGRESSIVE_TIMEOUT,
                 clock=time.monotonic) -> None:
        self.link = link
        self.responders = {m.address: EgmResponder(m) for m in machines}
        self.chirp_after = chirp_after
        self.chirp_every = chirp_every
        self.progressive_timeout = progressive_timeout
        self.clock = clock
        self.chirps_sent = 0
        self.bad_polls = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: Exception | None = None

    @classmethod
    def from_profiles(cls, link: SasLink, profiles: Iterable[EgmProfile], **options) -> EgmSimulator:
        return cls(link, [EgmMachine(p) for p in profiles], **options)

    def machine(self, address: int) -> EgmMachine:
        return self.responders[address].machine

    def responder(self, address: int) -> EgmResponder:
        return self.responders[address]

    def start(self) -> EgmSimulator:
        self._thread = threading.Thread(target=self.serve, name="egm-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout)

    def serve(self) -> None:
        """Answer polls until stopped (run on a thread by `start`, or in the foreground by the CLI)."""
        now = self.clock()
        last_address, last_play, next_chirp = now, now, now + self.chirp_after
        message: bytearray | None = None
        loop_break = False  # chirping: no address byte for chirp_after seconds
        last_byte = now
        try:
            while not self._stop.is_set():
                now = self.clock()
                deadline = min(now + 0.02, next_chirp) if message is None else last_byte + INTER_BYTE_LIMIT
                byte = self.link.next_byte(max(deadline, now))
                now = self.clock()
                if now - last_play >= 0.05:
                    self._tick(now, now - last_play)
                    last_play = now
                if byte is None:
                    if message is not None and now - last_byte > INTER_BYTE_LIMIT:
                        message = None  # an incomplete poll cut by a gap is invalid
                    if now - last_address >= self.chirp_after and now >= next_chirp:
                        if not loop_break:
                            loop_break = True
                            for responder in self.responders.values():
                                responder.lose_sync()
                        self._chirp()
                        next_chirp = now + self.chirp_every
                    continue
                last_byte = now
                if byte.wakeup:
                    message = bytearray([byte.value])
                    last_address = now
                    loop_break = False
                    next_chirp = now + self.chirp_after
                elif message is None:
                    continue  # a stray byte outside any message
                else:
                    message.append(byte.value)
                expected = request_length(bytes(message))
                if expected is not None and len(message) >= expected:
                    self._dispatch(bytes(message), now)
                    message = None
        except SasLinkError as exc:
            self.error = exc

    def _tick(self, now: float, elapsed: float) -> None:
        for responder in self.responders.values():
            responder.machine.autoplay(elapsed)
            responder.machine.check_progressive_link(now, self.progressive_timeout)

    def _chirp(self) -> None:
        for address in self.responders:
            self.link.send(bytes([address]), wakeup=True)
            self.chirps_sent += 1

    def _dispatch(self, message: bytes, now: float) -> None:
        address = message[0] & ~GENERAL_POLL_BIT & 0xFF
        try:
            poll = parse_request(message)
        except SasCrcError:
            self.bad_polls += 1
            nack = self.responders[address].reject_crc() if address in self.responders else None
            if nack is not None:
                self._send(nack)
            return
        except SasFrameError:
            self.bad_polls += 1
            return
        for other, responder in self.responders.items():
            if other != poll.address or poll.is_broadcast:
                responder.heard_elsewhere()
        if poll.is_broadcast:
            if poll.command in (0x80, 0x86):
                group, levels = parse_progressive(poll)
                for responder in self.responders.values():
                    responder.machine.receive_progressive(group, levels, now)
            return
        responder = self.responders.get(poll.address)
        if responder is not None:
            reply = responder.handle(poll, now)
            if reply is not None:
                self._send(reply)

    def _send(self, reply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if reply.gap:
            half = len(reply.data) // 2
            self.link.send(reply.data[:half], wakeup=False)
            time.sleep(reply.gap)
            self.link.send(reply.data[half:], wakeup=False)
        else:
            self.link.send(reply.data, wakeup=False)
