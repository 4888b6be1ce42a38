"""A host and an EGM simulator joined by a real pty, for the SAS tests and the benchmark."""

from __future__ import annotations

from drivers.sas import polls
from drivers.sas.host import SasHost
from drivers.sas.link import open_link
from drivers.sim.egm import EgmSimulator, PtyLine
from drivers.sim.egm_machine import EgmProfile

# The SAS limit is 20 ms; the functional tests allow more so that a loaded CI machine does not turn a
# slow thread switch into a retry. The timing tests set the real limits explicitly.
TEST_RESPONSE_TIMEOUT = 0.25


class SasRig:
    def __init__(self, profiles: list[EgmProfile], *, response_timeout: float = TEST_RESPONSE_TIMEOUT,
                 inter_byte_timeout: float = 0.005, retries: int = 2, pace: bool = False, **sim_options) -> None:
        self.line = PtyLine(pace=pace)
        self.sim = EgmSimulator.from_profiles(self.line.link, profiles, **sim_options).start()
        self.link = open_link(self.line.path, pace=pace)
        self.host = SasHost(self.link, response_timeout=response_timeout, inter_byte_timeout=inter_byte_timeout,
                            retries=retries, ack_address=127)

    def machine(self, address: int = 1):
        return self.sim.machine(address)

    def faults(self, address: int = 1):
        return self.sim.responder(address).faults

    def sync(self) -> None:
        """For tests that write polls by hand: a general poll to an empty address, so the machines
        (which wait for a poll to another address before answering, as Aristocrat's do) are in sync."""
        self.link.send(polls.general_poll(127).message())

    def close(self) -> None:
        self.sim.stop()
        self.link.close()
        self.line.close()

    def __enter__(self) -> SasRig:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
