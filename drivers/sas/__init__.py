"""SAS (Slot Accounting System) host: codec with no I/O, wakeup-bit links, a retrying host and port pollers.

Layers, from the wire up: `crc`, `bcd` and the tables (`meters`, `exception_codes`, `denominations`);
`polls` (host -> machine messages) and `replies` (machine -> host); `wire` (how the 9th "wakeup" bit
travels: mark/space parity on a real UART, an escape byte on a pty or socket); `link` (a port that
sends and receives wire bytes with the SAS timing limits); `host` (one transaction: retries, implied
ACK/NACK, ACK/NACK/BUSY); `poller` (a thread per port running the poll cycle for its machines).
See docs/sas.md.
"""
