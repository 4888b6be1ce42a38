"""Layer 2 of the link: a serial port by URL carrying frames, reopened with backoff when it fails."""

from __future__ import annotations

from typing import Protocol

import serial

from drivers.errors import FrameError
from drivers.protocol import Frame, FrameDecoder
from drivers.transport import Backoff, Opener, SerialLine


class FrameReceiver(Protocol):
    """The session side of a FrameTransport (all calls come from the transport's reader thread)."""

    def link_opened(self, mono: float) -> None: ...

    def frame_received(self, frame: Frame, mono: float) -> None: ...

    def frame_error(self, error: FrameError, mono: float) -> None: ...

    def tick(self, mono: float) -> None: ...

    def link_open_failed(self, reason: str, mono: float) -> None: ...

    def link_closed(self, reason: str, mono: float) -> None: ...


class FrameTransport:
    """Owns the port: opens it by URL, decodes the byte stream into frames, writes encoded frames."""

    def __init__(self, url: str, *, name: str = "", baudrate: int = 115200, tick: float = 0.005,
                 backoff: Backoff | None = None, opener: Opener = serial.serial_for_url) -> None:
        self.url = url
        self.decoder = FrameDecoder()
        self.receiver: FrameReceiver | None = None
        self.line = SerialLine(url, self, name=name or url, baudrate=baudrate, tick=tick, backoff=backoff,
                               opener=opener)

    def attach(self, receiver: FrameReceiver) -> None:
        self.receiver = receiver

    def start(self) -> None:
        self.line.start()

    def stop(self) -> None:
        self.line.stop()

    @property
    def is_open(self) -> bool:
        return self.line.is_open

    def send(self, wire: bytes) -> None:
        """Write encoded frame bytes; LinkError when the port is down."""
        self.line.write(wire)

    # SerialLine's PortHandler
    def port_opened(self, mono: float) -> None:
        self.decoder.reset()
        if self.receiver:
            self.receiver.link_opened(mono)

    def port_data(self, data: bytes, mono: float) -> None:
        if not self.receiver:
            return
        for item in self.decoder.feed(data):
            if isinstance(item, Frame):
                self.receiver.frame_received(item, mono)
            else:
                self.receiver.frame_error(item, mono)

    def port_open_failed(self, reason: str, mono: float) -> None:
        if self.receiver:
            self.receiver.link_open_failed(reason, mono)

    def port_tick(self, mono: float) -> None:
        if self.receiver:
            self.receiver.tick(mono)

    def port_closed(self, reason: str, mono: float) -> None:
        if self.receiver:
            self.receiver.link_closed(reason, mono)
