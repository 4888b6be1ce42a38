"""Building the contract's payloads (docs/mqtt.md) from the engine's round data."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..mqtt.contract import BetLine, Evidence, Manual, ResultPayload, SettlementPayload, Totals, fraction_text
from ..rules.bets import BetOutcome
from .inputs import Evidence as InputEvidence


def round_id(table_id: str, round_no: int) -> str:
    return f"{table_id}-{round_no:08d}"


def evidence_payload(evidence: InputEvidence | None) -> Evidence | None:
    return Evidence(evidence.ref, evidence.sha256) if evidence else None


def result_payload(table: str, game: str, round_no: int, attempt: int, utc: str, *, void: bool,
                   reason: str | None, fields: dict[str, Any], evidence: InputEvidence | None,
                   manual: tuple[str, str] | None = None) -> ResultPayload:
    """A result (or a void attempt): `fields` holds faces / total / number / cards / outcome."""
    return ResultPayload(table=table, seq=0, utc=utc, game=game, round=round_no, round_id=round_id(table, round_no),
                         attempt=attempt, void=void, reason=reason,
                         faces=None if void else fields.get("faces"), total=None if void else fields.get("total"),
                         number=None if void else fields.get("number"), cards=None if void else fields.get("cards"),
                         outcome=fields.get("outcome", {}) if not void else fields.get("void_outcome", {}),
                         evidence=evidence_payload(evidence),
                         manual=Manual(*manual) if manual else None)


def bet_line(outcome: BetOutcome) -> BetLine:
    bet = outcome.bet
    numbers = getattr(bet, "numbers", ())
    number = bet.number
    line = BetLine(bet.ticket, bet.owner, bet.bet, number, bet.stake, outcome.result.value, outcome.paid,
                   outcome.returned, outcome.kept, fraction_text(outcome.breakage), outcome.point)
    if numbers:
        line.numbers = list(numbers)
    return line


def settlement_payload(table: str, round_no: int, utc: str, currency: str, outcomes: list[BetOutcome], *,
                       void: bool = False) -> SettlementPayload:
    lines = [bet_line(o) for o in outcomes]
    breakage = sum((o.breakage for o in outcomes), Fraction(0))
    totals = Totals(staked=sum(o.bet.stake for o in outcomes), paid=sum(o.paid for o in outcomes),
                    returned=sum(o.returned for o in outcomes), kept=sum(o.kept for o in outcomes),
                    breakage=fraction_text(breakage))
    return SettlementPayload(table=table, seq=0, utc=utc, round=round_no, round_id=round_id(table, round_no),
                             void=void, currency=currency, bets=lines, totals=totals)
