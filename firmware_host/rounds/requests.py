"""Requests over MQTT (bets, withdrawals, recall, console), handled on the engine's thread and answered
in the requester's reply tree.

The gate (gate.py) has already decided who sent a request (the broker user in its topic), where its
answer goes, and that its size and rate are within `[access]`. Here: a bet is accepted only for an
owner the terminal may bet for; a ticket's first answer is final (tickets.py), so a re-sent request
is never a second bet nor a contradiction. Consecutive bet requests are handled in one journal
transaction (one fsync for the batch): each answer — accepted or refused — is journalled with its
response queued in the outbox in the same commit, so a bet is never answered "accepted" without
being on record, and a record is never left unanswered. Recall-topic requests are routed by their
`type` (`RECALL_HANDLERS`).
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import msgspec

from ..journal import MessageProperties, Transaction
from ..mqtt.contract import (BadRequest, BetRequest, BetResponse, ConsoleRequest, ConsoleResponse, RecallRequest,
                             RecallResponse, WithdrawRequest, decode_request)
from ..mqtt.identity import Reply
from ..rules.bets import Moment
from ..rules.errors import BetRefused, RefusalReason
from .books import bet_view
from .gate import TableRequest
from .inputs import ConsoleCommand, Phase
from .payloads import round_id
from .tickets import Answer, request_digest

log = logging.getLogger(__name__)

BET_REQUESTS = BetRequest | WithdrawRequest
NOT_AUTHORISED = "not_authorised"


def respond(txn: Transaction, reply: Reply, payload: Any) -> None:
    txn.publish(reply.topic, payload, properties=MessageProperties(correlation_data=reply.correlation))


def handle_batch(engine, items: list) -> None:
    """Handle inbox items in order; runs of admitted bet requests share one transaction."""
    run: list[TableRequest] = []
    for item in items:
        if isinstance(item, TableRequest) and item.kind == "bets" and item.refusal is None:
            run.append(item)
            continue
        if run:
            handle_bets(engine, run)
            run = []
        if isinstance(item, TableRequest):
            handle_request(engine, item)
        else:
            engine.handle(item)
    if run:
        handle_bets(engine, run)


def handle_request(engine, request: TableRequest) -> None:
    if request.refusal is not None:
        refuse(engine, request, request.refusal.reason, request.refusal.message)
    elif request.kind == "console":
        handle_console_request(engine, request)
    elif request.kind == "recall":
        handle_recall_topic(engine, request)
    else:
        handle_bets(engine, [request])


def refuse(engine, request: TableRequest, reason: str, message: str) -> None:
    """Answer a request that was not handled (refused by the gate, or undecodable), in its kind's type."""
    with engine.journal.transaction() as txn:
        respond(txn, request.reply, refusal_payload(engine, txn, request.kind, reason, message))


def refusal_payload(engine, txn: Transaction, kind: str, reason: str, message: str) -> Any:
    table = engine.settings.table_id
    if kind == "bets":
        return bet_response(engine, txn, "", Answer(False, reason, message, engine.round))
    if kind == "console":
        return ConsoleResponse(table=table, seq=0, utc=txn.utc, accepted=False, reason=reason, message=message)
    return RecallResponse(table=table, seq=0, utc=txn.utc, reason=reason, message=message)


# --- bets and withdrawals --------------------------------------------------------------------------
def handle_bets(engine, requests: list[TableRequest]) -> None:
    accepted = 0
    with engine.journal.transaction() as txn:
        for request in requests:
            try:
                decoded = decode_request(request.message.payload, BET_REQUESTS)
            except BadRequest as exc:
                respond(txn, request.reply, bet_response(engine, txn, "", Answer(
                    False, "bad_request", f"not a bet request: {exc}", engine.round)))
                continue
            answer = place(engine, txn, decoded, request.user)
            accepted += answer.accepted and not answer.repeated
            respond(txn, request.reply, bet_response(engine, txn, decoded.ticket, answer))
    if accepted:
        engine.checkpoint("betting", engine.round)


def place(engine, txn: Transaction, request: Any, user: str) -> Answer:
    """Validate one bet or withdrawal from broker user `user` against its rights, the ticket registry,
    the phase and the rules core; journal its answer (refusals of a new ticket too)."""
    access, registry = engine.settings.access, engine.registry
    digest = request_digest(user, msgspec.json.encode(request))
    if not access.may_bet_for(user, request.owner):
        return Answer(False, NOT_AUTHORISED, f"{user} may not bet for {request.owner!r}", engine.round)
    if isinstance(request, WithdrawRequest):
        return withdraw(engine, txn, request, user, digest)
    earlier = registry.bet_answer(request.ticket, digest)
    if earlier is not None:
        return earlier
    answer = judge_bet(engine, txn, request, user, digest)
    registry.answered_bet(request.ticket, digest, engine.round, answer.reason)
    return answer


def judge_bet(engine, txn: Transaction, request: BetRequest, user: str, digest: bytes) -> Answer:
    who = {"user": user, "request": digest.hex()}
    if engine.phase is not Phase.BETTING:
        answer = Answer(False, RefusalReason.BETTING_CLOSED.value,
                        f"bets are accepted only while betting is open (phase {engine.phase.value})", engine.round)
    else:
        book = engine.book
        try:
            bet = book.make_bet(request.ticket, request.owner, request.bet, request.stake, request.number,
                                request.numbers)
            book.place(bet)
        except BetRefused as exc:
            answer = Answer(False, exc.reason.value, exc.message, engine.round)
        else:
            txn.record("bet_accepted", {**bet_view(bet), **who}, round=engine.round)
            return Answer(True, None, f"{request.bet} {request.stake} accepted", engine.round)
    txn.record("bet_refused", {"ticket": request.ticket, "owner": request.owner, **who, "reason": answer.reason,
                               "message": answer.message}, round=engine.round)
    return answer


def withdraw(engine, txn: Transaction, request: WithdrawRequest, user: str, digest: bytes) -> Answer:
    earlier = engine.registry.withdrawal_answer(request.ticket, digest)
    if earlier is not None:
        return earlier
    # A withdrawal after "no more bets", before the throw, goes on to the rules core, which allows only
    # what the rule book does (craps odds until the decision, Portugal 1995 VI.11.1), betting_closed else.
    late = engine.phase is Phase.NO_MORE_BETS
    if engine.phase is not Phase.BETTING and not late:
        return Answer(False, RefusalReason.BETTING_CLOSED.value,
                      f"bets are accepted only while betting is open (phase {engine.phase.value})", engine.round)
    book = engine.book
    owner = next((b.owner for b in book.bets() if b.ticket == request.ticket), None)
    if owner is not None and owner != request.owner:
        return Answer(False, NOT_AUTHORISED, f"ticket {request.ticket} is not {request.owner}'s bet", engine.round)
    try:
        outcome = book.withdraw(request.ticket, Moment.BEFORE_DECISION if late else Moment.BETTING)
    except BetRefused as exc:
        return Answer(False, exc.reason.value, exc.message, engine.round)
    txn.record("bet_withdrawn", {"ticket": request.ticket, "owner": request.owner, "returned": outcome.returned,
                                 "user": user, "request": digest.hex()}, round=engine.round)
    engine.registry.withdrawn(request.ticket, digest, engine.round)
    return Answer(True, None, f"withdrawn, {outcome.returned} returned", engine.round)


def bet_response(engine, txn: Transaction, ticket: str, answer: Answer) -> BetResponse:
    table = engine.settings.table_id
    return BetResponse(table=table, seq=0, utc=txn.utc, ticket=ticket, accepted=answer.accepted,
                       reason=answer.reason, message=answer.message, round=answer.round,
                       round_id=round_id(table, answer.round) if answer.round else "", repeated=answer.repeated)


# --- recall topic: routed by `type` -----------------------------------------------------------------
class _Typed(msgspec.Struct):
    type: str = ""


def handle_recall(engine, request: TableRequest) -> None:
    """`recall`: the last rounds from the journal."""
    from ..recall import recall_rounds

    try:
        decoded = decode_request(request.message.payload, RecallRequest)
    except BadRequest as exc:
        refuse(engine, request, "bad_request", f"not a recall request: {exc}")
        return
    rounds = recall_rounds(engine.journal, decoded.last)
    with engine.journal.transaction() as txn:
        respond(txn, request.reply, RecallResponse(table=engine.settings.table_id, seq=0, utc=txn.utc, rounds=rounds))


def handle_messages(engine, request: TableRequest) -> None:
    """`messages`: what the table published after a seq, exact bytes (recall.py; the ledger fills gaps)."""
    from ..mqtt.contract import MessagesRequest, MessagesResponse
    from ..recall import messages_since

    with engine.journal.transaction() as txn:
        empty = MessagesResponse(table=engine.settings.table_id, seq=0, utc=txn.utc)
        try:
            decoded = decode_request(request.message.payload, MessagesRequest)
        except BadRequest as exc:
            answer = msgspec.structs.replace(empty, reason="bad_request", message=f"not a messages request: {exc}")
        else:
            answer = messages_since(engine.journal, engine.topics.base, decoded, empty)
        respond(txn, request.reply, answer)


RECALL_HANDLERS: dict[str, Callable[[Any, TableRequest], None]] = {"recall": handle_recall,
                                                                   "messages": handle_messages}


def handle_recall_topic(engine, request: TableRequest) -> None:
    try:
        kind = msgspec.json.decode(request.message.payload, type=_Typed).type
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        refuse(engine, request, "bad_request", f"not JSON with a type: {exc}")
        return
    handler = RECALL_HANDLERS.get(kind)
    if handler is None:
        refuse(engine, request, "bad_request", f"unknown request type {kind!r} on the recall topic "
                                               f"(one of: {', '.join(sorted(RECALL_HANDLERS))})")
        return
    handler(engine, request)


# --- console -----------------------------------------------------------------------------------------
def handle_console_request(engine, request: TableRequest) -> None:
    """A pit console's action: done as its broker user (the payload's `who` is only a display name)."""
    from .console import handle_console, refuse_console

    try:
        decoded = decode_request(request.message.payload, ConsoleRequest)
    except BadRequest as exc:
        refuse_console(engine, ConsoleCommand("unknown", who=request.user, source="mqtt", reply=request.reply),
                       "bad_request", str(exc))
        return
    result, play = (({k: v for k, v in msgspec.structs.asdict(part).items() if v is not None} if part else None)
                    for part in (decoded.result, decoded.play))
    tiles = msgspec.to_builtins(decoded.tiles) if decoded.tiles else None
    command = ConsoleCommand(decoded.action, request.user, decoded.why, result, "mqtt", request.reply,
                             display_name=decoded.who, tiles=tiles, play=play)
    if decoded.action == "override" and request.user not in engine.settings.access.supervisors:
        refuse_console(engine, command, NOT_AUTHORISED, f"{request.user} is not a supervisor: only supervisors "
                                                        "may override a result")
        return
    handle_console(engine, command)
