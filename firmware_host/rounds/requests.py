"""Requests over MQTT (bets, withdrawals, recall, console), answered on the MQTT 5 response topic.

Consecutive bet requests in the engine's inbox are handled in one journal transaction (one fsync
for the batch): each accepted bet is journalled and its response queued in the outbox in the same
commit, so a bet is never answered "accepted" without being on record, and a record is never left
unanswered. A re-sent request (same ticket, same content) is answered "accepted" again.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from ..journal import MessageProperties, Transaction
from ..mqtt.contract import (BadRequest, BetRequest, BetResponse, ConsoleRequest, RecallRequest, WithdrawRequest,
                             decode_request)
from ..mqtt.link import Inbound
from ..rules.errors import BetRefused, RefusalReason
from .books import bet_view
from .inputs import ConsoleCommand, Phase, Reply
from .payloads import round_id

log = logging.getLogger(__name__)

BET_REQUESTS = BetRequest | WithdrawRequest


def reply_for(engine, message: Inbound, default: str) -> Reply:
    """Where to answer: the request's response topic, unless it points into a table's own topics
    (a terminal may not make the controller write there) or is not a plain topic."""
    topic = message.response_topic
    tables = f"{engine.topics.base.rsplit('/', 1)[0]}/"
    if not topic or "+" in topic or "#" in topic or (topic.startswith(tables) and topic != default):
        topic = default
    return Reply(topic, message.correlation_data)


def respond(txn: Transaction, reply: Reply, payload: Any) -> None:
    txn.publish(reply.topic, payload, properties=MessageProperties(correlation_data=reply.correlation))


def handle_batch(engine, items: list) -> None:
    """Handle inbox items in order; runs of bet requests share one transaction."""
    run: list[Inbound] = []
    for item in items:
        if isinstance(item, Inbound) and item.topic == engine.topics.bets:
            run.append(item)
            continue
        if run:
            handle_bets(engine, run)
            run = []
        if isinstance(item, Inbound) and item.topic == engine.topics.recall:
            handle_recall(engine, item)
        elif isinstance(item, Inbound) and item.topic == engine.topics.console:
            handle_console_request(engine, item)
        else:
            engine.handle(item)
    if run:
        handle_bets(engine, run)


def handle_bets(engine, messages: list[Inbound]) -> None:
    accepted = 0
    with engine.journal.transaction() as txn:
        for message in messages:
            reply = reply_for(engine, message, engine.topics.bets_response)
            try:
                request = decode_request(message.payload, BET_REQUESTS)
            except BadRequest as exc:
                respond(txn, reply, _response(engine, txn, "", False, "bad_request", f"not a bet request: {exc}"))
                continue
            ok, reason, text = place(engine, txn, request, message.payload)
            accepted += ok
            respond(txn, reply, _response(engine, txn, request.ticket, ok, reason, text))
    if accepted:
        engine.checkpoint("betting", engine.round)


def place(engine, txn: Transaction, request: Any, raw: bytes) -> tuple[bool, str | None, str]:
    """Validate one bet or withdrawal against the phase and the rules core; journal it if accepted."""
    canonical = msgspec.json.encode(request)
    if isinstance(request, BetRequest) and engine.tickets.get(request.ticket) == canonical:
        return True, None, "already accepted (repeated request)"
    if engine.phase is not Phase.BETTING:
        return False, RefusalReason.BETTING_CLOSED.value, (
            f"bets are accepted only while betting is open (phase {engine.phase.value})")
    book = engine.book
    try:
        if isinstance(request, BetRequest):
            bet = book.make_bet(request.ticket, request.owner, request.bet, request.stake, request.number,
                                request.numbers)
            book.place(bet)
            txn.record("bet_accepted", bet_view(bet), round=engine.round)
            engine.tickets[request.ticket] = canonical
            return True, None, f"{request.bet} {request.stake} accepted"
        owner = next((b.owner for b in book.bets() if b.ticket == request.ticket), None)
        if owner is not None and owner != request.owner:
            return False, RefusalReason.MALFORMED.value, f"ticket {request.ticket} is not {request.owner}'s bet"
        outcome = book.withdraw(request.ticket)
        txn.record("bet_withdrawn", {"ticket": request.ticket, "owner": request.owner,
                                     "returned": outcome.returned}, round=engine.round)
        engine.tickets.pop(request.ticket, None)
        return True, None, f"withdrawn, {outcome.returned} returned"
    except BetRefused as exc:
        return False, exc.reason.value, exc.message


def _response(engine, txn: Transaction, ticket: str, accepted: bool, reason: str | None, message: str) -> BetResponse:
    return BetResponse(table=engine.settings.table_id, seq=0, utc=txn.utc, ticket=ticket, accepted=accepted,
                       reason=reason, message=message, round=engine.round,
                       round_id=round_id(engine.settings.table_id, engine.round) if engine.round else "")


def handle_recall(engine, message: Inbound) -> None:
    from ..recall import messages_since, recall_rounds
    from ..mqtt.contract import MessagesRequest, MessagesResponse, RecallResponse

    reply = reply_for(engine, message, f"{engine.topics.recall}/response")
    try:
        request = decode_request(message.payload, RecallRequest | MessagesRequest)
    except BadRequest as exc:
        log.warning("bad recall request: %s", exc)
        request = exc
    with engine.journal.transaction() as txn:
        if isinstance(request, MessagesRequest):
            empty = MessagesResponse(table=engine.settings.table_id, seq=0, utc=txn.utc)
            answer = messages_since(engine.journal, engine.topics.base, request, empty)
        elif isinstance(request, BadRequest) and request_type(message.payload) == "messages":
            answer = MessagesResponse(table=engine.settings.table_id, seq=0, utc=txn.utc, reason="bad_request",
                                      message=f"not a messages request: {request}")
        else:
            rounds = recall_rounds(engine.journal, request.last) if isinstance(request, RecallRequest) else []
            answer = RecallResponse(table=engine.settings.table_id, seq=0, utc=txn.utc, rounds=rounds)
        respond(txn, reply, answer)


def request_type(payload: bytes) -> str | None:
    """The `type` a request says it is, even when the rest of it is wrong (to answer in its own kind)."""
    try:
        value = msgspec.json.decode(payload)
    except msgspec.DecodeError:
        return None
    return value.get("type") if isinstance(value, dict) else None


def handle_console_request(engine, message: Inbound) -> None:
    from .console import handle_console, refuse_console

    reply = reply_for(engine, message, f"{engine.topics.console}/response")
    try:
        request = decode_request(message.payload, ConsoleRequest)
    except BadRequest as exc:
        refuse_console(engine, ConsoleCommand("unknown", source="mqtt", reply=reply), "bad_request", str(exc))
        return
    result = {k: v for k, v in msgspec.structs.asdict(request.result).items() if v is not None} if request.result else None
    handle_console(engine, ConsoleCommand(request.action, request.who, request.why, result, "mqtt", reply))
