"""Requests from the floor system over MQTT: on-demand polls, a supervisor's fault clear, pool transfers.

Each request is answered on its MQTT 5 response topic (or `<topic without /request>/response`), with
the request's `id` and correlation data echoed; the answer goes through the journal's outbox like
every other message. A clear needs who and why; the record's time is the when (004 §VIII: a machine
whose meters failed is not opened for play until someone answers for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivers.sas.errors import SasError
from drivers.sas.poller import PollStep
from drivers.sas.replies import reply_fields

from ..journal import MessageProperties
from ..mqtt.link import Inbound
from .floor import ClearFaultRequest, MachineRequest, PollRequest, SlotResponse, TransferRequest, decode

if TYPE_CHECKING:
    from .service import SlotService


class RequestHandler:
    def __init__(self, service: SlotService) -> None:
        self.service = service

    def inbound(self, message: Inbound) -> None:
        target = self.service.topics.parse_request_topic(message.topic)
        if target is None:
            return
        kind, ident = target
        try:
            request = decode(message.payload, MachineRequest if kind == "machine" else TransferRequest)
        except ValueError as exc:
            self.respond(message, ident, "unknown", None, False, f"bad request: {exc}")
            return
        if kind == "machine" and ident not in self.service.machines:
            self.respond(message, ident, request.action if hasattr(request, "action") else "", request.id, False,
                         f"no machine {ident!r}")
            return
        if isinstance(request, PollRequest):
            self.poll(message, ident, request)
        elif isinstance(request, ClearFaultRequest):
            self.clear_fault(message, ident, request)
        else:
            self.transfer(message, ident, request)

    def respond(self, message: Inbound, target: str, action: str, request_id: str | None, accepted: bool,
                text: str, reply: dict[str, Any] | None = None) -> None:
        service = self.service
        topic = message.response_topic or message.topic.rsplit("/", 1)[0] + "/response"
        props = MessageProperties(correlation_data=message.correlation_data)
        with service.journal.transaction() as txn:
            txn.publish(topic, SlotResponse(service.site, 0, txn.utc, id=request_id, target=target, action=action,
                                            accepted=accepted, message=text, reply=reply), properties=props)

    # --- machines ----------------------------------------------------------------------------
    def poll(self, message: Inbound, machine_id: str, request: PollRequest) -> None:
        service = self.service
        port, address = service.address_of[machine_id]
        try:
            poll = PollStep.parse(request.poll).build(address)
        except SasError as exc:
            self.respond(message, machine_id, "poll", request.id, False, str(exc))
            return
        future = service.pollers[port].submit(poll)
        future.add_done_callback(lambda f: service.inbox.put(("poll_done", message, machine_id, request, f)))

    def poll_done(self, message: Inbound, machine_id: str, request: PollRequest, future) -> None:
        error = future.exception()
        if error is not None:
            self.respond(message, machine_id, "poll", request.id, False, str(error))
            return
        reply = future.result()
        self.respond(message, machine_id, "poll", request.id, True, "ok",
                     reply_fields(reply) if reply is not None else None)

    def clear_fault(self, message: Inbound, machine_id: str, request: ClearFaultRequest) -> None:
        service = self.service
        m = service.state.machines[machine_id]
        if m.fault is None:
            self.respond(message, machine_id, "clear_fault", request.id, False, "the machine has no open meter fault")
            return
        fault = {"kind": m.fault.kind, "meter": m.fault.meter, "detail": m.fault.detail, "since": m.fault.utc}
        with service.journal.transaction() as txn:
            service.event(txn, "slot_fault_cleared", {"machine": machine_id, "who": request.who,
                                                      "why": request.why, "utc": txn.utc, "fault": fault,
                                                      "new_baseline": dict(m.held)})
            service.slot_event(txn, machine_id, "fault_cleared", who=request.who, why=request.why,
                               detail={"fault": fault})
            service.set_availability(txn, machine_id, "online")
        service.wanted[machine_id] = ("enable", 0.0)
        self.respond(message, machine_id, "clear_fault", request.id, True, "fault cleared; enabling play (0x02)")

    # --- pools -------------------------------------------------------------------------------
    def transfer(self, message: Inbound, pool_id: str, request: TransferRequest) -> None:
        service = self.service
        pools = service.state.pools.pools
        if pool_id not in pools or request.to not in pools:
            self.respond(message, pool_id, "transfer", request.id, False, f"unknown pool {pool_id!r} or {request.to!r}")
            return
        problem = self.incompatible(pools[pool_id].machines, pools[request.to].machines)
        if problem:
            self.respond(message, pool_id, "transfer", request.id, False, problem)
            return
        with service.journal.transaction() as txn:
            produced = service.event(txn, "pool_transfer", {"source": pool_id, "target": request.to,
                                                            "who": request.who, "why": request.why, "utc": txn.utc})
            service.publish_jackpot(txn, pool_id)
            service.publish_jackpot(txn, request.to)
        self.respond(message, pool_id, "transfer", request.id, True,
                     f"moved {produced['amount']} cents to {request.to}")

    def incompatible(self, source: tuple[str, ...], target: tuple[str, ...]) -> str | None:
        """Why machines of the two pools are not "the same model and bet" (004 §VIII), or None."""
        service = self.service
        kinds = {(service.machines[m][1].model, service.max_bet(m)) for m in (*source, *target)}
        if len(kinds) != 1:
            return f"pools differ in machine model or bet: {sorted(map(str, kinds))}"
        return None
