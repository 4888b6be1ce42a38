"""A simulator's end of a pty, published at a stable path the way /dev/serial/by-id names a USB device."""

from __future__ import annotations

import errno
import os
import select
import tempfile
import tty
from pathlib import Path

from ..errors import DeviceError


class PtyEndpoint:
    """Open a pty pair; the host opens `path` (a symlink to the slave); unplug() makes it vanish."""

    def __init__(self, path: str | Path | None = None) -> None:
        self._own_dir = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="tablehw-sim-")
            path = Path(self._own_dir) / "port"
        self.path = Path(path)
        self.master: int | None = None
        self._slave: int | None = None
        self.tty_name = ""

    @property
    def plugged(self) -> bool:
        return self.master is not None

    def plug(self) -> str:
        """Create a fresh pty and point `path` at it; returns the path."""
        if self.master is not None:
            return str(self.path)
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)  # no echo or line editing before the host configures the port
        os.set_blocking(master, False)
        self.master, self._slave = master, slave
        self.tty_name = os.ttyname(slave)
        tmp = self.path.with_name(self.path.name + ".new")
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(self.tty_name)
        os.replace(tmp, self.path)
        return str(self.path)

    def unplug(self) -> None:
        """Remove the path and close the pty: the host's reads fail as when a USB cable is pulled."""
        if self.path.is_symlink():
            self.path.unlink()
        for fd in (self.master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self._slave = None

    def close(self) -> None:
        self.unplug()
        if self._own_dir is not None:
            try:
                os.rmdir(self._own_dir)
            except OSError:
                pass

    def read(self, timeout: float) -> bytes:
        """Bytes the host wrote (b"" after `timeout` seconds with nothing)."""
        if self.master is None:
            return b""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # the host closed its side: nothing to read until it reopens
                return b""
            raise DeviceError(f"pty {self.tty_name}: read failed: {exc}") from None

    def write(self, data: bytes) -> bool:
        """Write all of `data` or drop it if the host is not draining (as a UART overruns); True if written."""
        if self.master is None:
            return False
        view = memoryview(data)
        while view:
            _, ready, _ = select.select([], [self.master], [], 0.2)
            if not ready:
                return False
            try:
                view = view[os.write(self.master, view):]
            except BlockingIOError:
                continue
            except OSError:
                return False
        return True
