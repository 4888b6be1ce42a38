"""Requests from the floor system over MQTT: on-demand polls, a supervisor's fault clear, pool transfers.

A request arrives on `<prefix>/slots/<machine>/request/<user>` or `<prefix>/jackpots/<pool>/request/<user>`,
`<user>` being the requester's broker user (the broker's ACL lets only that user write there). `admit`
runs on paho's thread: it takes the user from the topic, checks size and rate (mqtt/admission.py) and
that the user is one of `[access]` floor or supervisors, and queues the request for the service's
loop, where `handle` does it. Each request is answered in the requester's reply tree (its response
topic when it lies under `<prefix>/replies/<user>/`, else the default), with the request's `id` and
correlation data echoed; the answer goes through the journal's outbox like every other message. A
clear or a transfer needs a supervisor and a why; who is the broker user (a payload's `who` is kept
as a display name beside it); the record's time is the when (004 §VIII: a machine whose meters
failed is not opened for play until someone answers for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drivers.sas.errors import SasError
from drivers.sas.poller import PollStep
from drivers.sas.replies import reply_fields

from ..journal import MessageProperties
from ..mqtt.admission import Admission, Refusal
from ..mqtt.identity import Reply, reply_to, valid_user
from ..mqtt.link import Inbound
from .floor import ClearFaultRequest, MachineRequest, PollRequest, SlotResponse, TransferRequest, decode

if TYPE_CHECKING:
    from .service import SlotService


@dataclass(frozen=True)
class SlotRequest:
    """One admitted request (or one refused at the gate, to be answered): target, broker user, where to answer."""

    kind: str  # "machine" or "pool"
    target: str
    user: str
    message: Inbound
    reply: Reply
    refusal: Refusal | None = None


class RequestHandler:
    def __init__(self, service: SlotService) -> None:
        self.service = service
        self.access = service.config.access
        self.admission = Admission(self.access.limits())

    # --- paho's thread -----------------------------------------------------------------------
    def admit(self, message: Inbound) -> None:
        topics = self.service.topics
        found = topics.parse_request_topic(message.topic)
        if found is None or not valid_user(found[2]):
            return
        kind, target, user = found
        reply = reply_to(topics.reply_prefix(user), topics.default_reply(kind, target, user), message.response_topic,
                         message.correlation_data)
        request = SlotRequest(kind, target, user, message, reply)
        refusal = self.admission.check(user, len(message.payload))
        if refusal is None and not self.access.may_send(user):
            refusal = self.admission.refuse(user, "not_authorised", f"{user} may not send floor requests")
        if refusal is None:
            self.service.inbox.put(("request", request))
        elif refusal.answer:
            self.service.inbox.put(("request", SlotRequest(kind, target, user, message, reply, refusal)))

    # --- the service's loop ------------------------------------------------------------------
    def handle(self, request: SlotRequest) -> None:
        if request.refusal is not None:
            self.respond(request, "", None, False, f"{request.refusal.reason}: {request.refusal.message}")
            return
        try:
            decoded = decode(request.message.payload, MachineRequest if request.kind == "machine" else TransferRequest)
        except ValueError as exc:
            self.respond(request, "unknown", None, False, f"bad request: {exc}")
            return
        action = getattr(decoded, "action", None) or type(decoded).__struct_config__.tag
        if not isinstance(decoded, PollRequest) and request.user not in self.access.supervisors:
            self.respond(request, action, decoded.id, False, f"not_authorised: {request.user} is not a supervisor")
            return
        if request.kind == "machine" and request.target not in self.service.machines:
            self.respond(request, action, decoded.id, False, f"no machine {request.target!r}")
            return
        if isinstance(decoded, PollRequest):
            self.poll(request, decoded)
        elif isinstance(decoded, ClearFaultRequest):
            self.clear_fault(request, decoded)
        else:
            self.transfer(request, decoded)

    def respond(self, request: SlotRequest, action: str, request_id: str | None, accepted: bool, text: str,
                reply: dict[str, Any] | None = None) -> None:
        service = self.service
        props = MessageProperties(correlation_data=request.reply.correlation)
        with service.journal.transaction() as txn:
            txn.publish(request.reply.topic, SlotResponse(service.site, 0, txn.utc, id=request_id,
                                                          target=request.target, action=action, accepted=accepted,
                                                          message=text, reply=reply), properties=props)

    @staticmethod
    def who(request: SlotRequest, decoded: Any) -> dict[str, str]:
        """Who acted: the broker user, and the display name the request gave, if any."""
        return {"who": request.user, **({"display_name": decoded.who} if decoded.who else {})}

    # --- machines ----------------------------------------------------------------------------
    def poll(self, request: SlotRequest, decoded: PollRequest) -> None:
        service = self.service
        port, address = service.address_of[request.target]
        try:
            poll = PollStep.parse(decoded.poll).build(address)
        except SasError as exc:
            self.respond(request, "poll", decoded.id, False, str(exc))
            return
        future = service.pollers[port].submit(poll)
        future.add_done_callback(lambda f: service.inbox.put(("poll_done", request, decoded, f)))

    def poll_done(self, request: SlotRequest, decoded: PollRequest, future) -> None:
        error = future.exception()
        if error is not None:
            self.respond(request, "poll", decoded.id, False, str(error))
            return
        reply = future.result()
        self.respond(request, "poll", decoded.id, True, "ok", reply_fields(reply) if reply is not None else None)

    def clear_fault(self, request: SlotRequest, decoded: ClearFaultRequest) -> None:
        service = self.service
        machine_id = request.target
        m = service.state.machines[machine_id]
        if m.fault is None:
            self.respond(request, "clear_fault", decoded.id, False, "the machine has no open meter fault")
            return
        fault = {"kind": m.fault.kind, "meter": m.fault.meter, "detail": m.fault.detail, "since": m.fault.utc}
        who = self.who(request, decoded)
        with service.journal.transaction() as txn:
            service.event(txn, "slot_fault_cleared", {"machine": machine_id, **who, "why": decoded.why,
                                                      "utc": txn.utc, "fault": fault, "new_baseline": dict(m.held)})
            service.slot_event(txn, machine_id, "fault_cleared", who=request.user, why=decoded.why,
                               detail={"fault": fault, **({"display_name": decoded.who} if decoded.who else {})})
            service.set_availability(txn, machine_id, "online")
        service.wanted[machine_id] = ("enable", 0.0)
        self.respond(request, "clear_fault", decoded.id, True, "fault cleared; enabling play (0x02)")

    # --- pools -------------------------------------------------------------------------------
    def transfer(self, request: SlotRequest, decoded: TransferRequest) -> None:
        service = self.service
        pool_id = request.target
        pools = service.state.pools.pools
        if pool_id not in pools or decoded.to not in pools:
            self.respond(request, "transfer", decoded.id, False, f"unknown pool {pool_id!r} or {decoded.to!r}")
            return
        problem = self.incompatible(pools[pool_id].machines, pools[decoded.to].machines)
        if problem:
            self.respond(request, "transfer", decoded.id, False, problem)
            return
        with service.journal.transaction() as txn:
            produced = service.event(txn, "pool_transfer", {"source": pool_id, "target": decoded.to,
                                                            **self.who(request, decoded), "why": decoded.why,
                                                            "utc": txn.utc})
            service.publish_jackpot(txn, pool_id)
            service.publish_jackpot(txn, decoded.to)
        self.respond(request, "transfer", decoded.id, True, f"moved {produced['amount']} cents to {decoded.to}")

    def incompatible(self, source: tuple[str, ...], target: tuple[str, ...]) -> str | None:
        """Why machines of the two pools are not "the same model and bet" (004 §VIII), or None."""
        service = self.service
        kinds = {(service.machines[m][1].model, service.max_bet(m)) for m in (*source, *target)}
        if len(kinds) != 1:
            return f"pools differ in machine model or bet: {sorted(map(str, kinds))}"
        return None
