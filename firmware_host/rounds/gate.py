"""The request gate: paho's `on_message` for a table. Who sent it, may they, how big, how often; then the inbox.

    gate = RequestGate(topics, config.access, engine.inbox)
    link = MqttLink(..., subscriptions=topics.inbound(), on_message=gate)

For each message on `T/<kind>/<user>` it takes the requester from the topic (docs/mqtt.md,
"Identity"), the reply topic from the request's response topic if that lies in the requester's
reply tree, and checks before anything is decoded: the size and the user's rate (mqtt/admission.py)
and whether the user may send this kind of request at all (`[access]`). Admitted requests go to the
engine's inbox (console requests among the events, served first; bets and recalls in the user's own
bounded lane). A refused one is answered (an answer is queued for the engine, at most once a second
per user) or only counted and logged. It runs on paho's thread: no journal, no blocking.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from ..mqtt.admission import Admission, Refusal
from ..mqtt.contract import Topics
from ..mqtt.identity import Reply, reply_to, valid_user
from ..mqtt.link import Inbound
from ..service_config import AccessSection
from .inbox import Inbox

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableRequest:
    """One request as the engine gets it: kind (bets, console, recall), the broker user, the message,
    where to answer; `refusal` set when the gate refused it and only the answer is left to give."""

    kind: str
    user: str
    message: Inbound
    reply: Reply
    refusal: Refusal | None = None


class RequestGate:
    """Callable as the link's `on_message`; `admission.counts` holds refusals by reason."""

    def __init__(self, topics: Topics, access: AccessSection, inbox: Inbox,
                 admission: Admission | None = None) -> None:
        self.topics = topics
        self.access = access
        self.inbox = inbox
        self.admission = admission or Admission(access.limits())

    def __call__(self, message: Inbound) -> None:
        found = self.topics.requester(message.topic)
        if found is None or not valid_user(found[1]):
            self.admission.counts["not_a_request"] += 1
            log.debug("message on %s ignored: not a request topic", message.topic)
            return
        kind, user = found
        refusal = self.admission.check(user, len(message.payload))
        if refusal is None and not self.access.may_send(kind, user):
            refusal = self.admission.refuse(user, "not_authorised", f"{user} may not send {kind} requests to "
                                                                    f"table {self.topics.table_id}")
        if refusal is not None and not refusal.answer:
            return  # counted (and logged, throttled) only: a flood costs this much and no more
        reply = reply_to(self.topics.reply_prefix(user), self.topics.default_reply(kind, user),
                         message.response_topic, message.correlation_data)
        request = TableRequest(kind, user, message, reply, refusal)
        if refusal is not None:
            self.inbox.put_request(user, request, beyond_limit=True)
        elif kind == "console":
            self.inbox.put(request)  # the dealer's calls go before bets (the rate limit still applies)
        elif not self.inbox.put_request(user, request):
            refusal = self.admission.refuse(user, "rate_limited", f"{self.inbox.per_user} requests from {user} "
                                                                  "are already waiting: slow down")
            if refusal.answer:
                self.inbox.put_request(user, dataclasses.replace(request, refusal=refusal), beyond_limit=True)
