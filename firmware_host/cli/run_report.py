"""What `tablehw run` prints: where the table starts from, one line per round in the table's currency, a summary.

A round line starts with the round id (`sim-craps-00000012`, the key `tablehw recall` and the MQTT
payloads use), then the result as the table's players would say it, then what the bets did:

    sim-craps-00000012  5-2 = 7  seven out (point 6), shooter 4 next  | 9 bets: paid MOP 150.00, kept MOP 400.00
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from ..boards.dice_history import craps_outcome, cussec_result
from ..config import Money, TableConfig
from ..rounds.engine import RoundSummary
from ..rounds.observer import RoundObserver

CRAPS_SAYS = {"natural": "come-out natural", "craps": "come-out craps"}


def money_text(minor: int, money: Money) -> str:
    """An amount in minor units as the currency is written: `MOP 1,234.50`; `EUR -3.00`."""
    units, digits = money.minor_units_per_unit, 0
    while 10 ** digits < units:
        digits += 1
    if 10 ** digits == units:
        return f"{money.currency} {Decimal(minor).scaleb(-digits):,.{digits}f}"
    whole, rest = divmod(abs(minor), units)  # a currency whose minor unit is not a power of ten
    return f"{money.currency} {'-' if minor < 0 else ''}{whole:,} {rest}/{units}"


def result_text(game: str, summary: RoundSummary) -> str:
    """The result as the table says it (a void round: why, and that the stakes went back)."""
    if summary.void:
        return f"VOID ROUND ({summary.reason}): every stake returned"
    fields, outcome = summary.fields, summary.fields.get("outcome", {})
    if "faces" in fields:
        said = f"{'-'.join(map(str, fields['faces']))} = {fields['total']}"
        return f"{said}  {dice_text(game, fields['faces'], fields['total'], outcome)}".rstrip()
    if "number" in fields:
        ball = f" (ball {outcome['direction']})" if outcome.get("direction") else ""
        return f"{fields['number']} {outcome.get('colour', '')}{ball}"
    if "cards" in fields and "dealer" in fields["cards"]:
        return blackjack_text(outcome)
    if "cards" in fields:
        cards = fields["cards"]
        return (f"player {' '.join(cards['player'])} ({outcome.get('player_points')})  banker "
                f"{' '.join(cards['banker'])} ({outcome.get('banker_points')})  {winner_text(outcome.get('winner'))}")
    return "(no result fields)"


def dice_text(game: str, faces: list[int], total: int, outcome: dict[str, Any]) -> str:
    if game == "craps":
        before, after = outcome.get("point_before"), outcome.get("point_after")
        said = craps_outcome(before or 0, total)
        text = (CRAPS_SAYS.get(said) or {"point": f"point {after} set", "point_made": f"point {before} made",
                                        "seven_out": f"seven out (point {before})"}.get(said)
                or f"point {before}: no decision")
        shooter, next_shooter = outcome.get("shooter"), outcome.get("shooter_after")
        return f"{text}, shooter {next_shooter} next" if next_shooter != shooter else f"{text}, shooter {shooter}"
    if game == "banca_francesa":
        chance = outcome.get("chance")
        return chance if chance else f"no decision ({total} decides nothing)"
    if game == "cussec":
        result = cussec_result(tuple(faces))
        return "triple: small and big lose" if result.triple else result.chance or ""
    return ""


def blackjack_text(outcome: dict[str, Any]) -> str:
    """Blackjack: the dealer's hand, then each box's hand totals (`3:18/21`: box 3 split, two hands)."""
    dealer = outcome["dealer"]
    said = " bust" if dealer["bust"] else " blackjack" if dealer["blackjack"] else ""
    boxes = " ".join(f"{b['box']}:{'/'.join(str(h['total']) for h in b['hands'])}" for b in outcome["boxes"])
    return f"dealer {' '.join(dealer['cards'])} ({dealer['total']}{said})  boxes {boxes}"


def winner_text(winner: str | None) -> str:
    return "tie" if winner == "tie" else f"{winner} wins"


class RunReport(RoundObserver):
    """Prints each round as it ends and keeps the tallies for `summary()`."""

    def __init__(self, config: TableConfig, out: TextIO) -> None:
        self.game = type(config.game).__struct_config__.tag
        self.money = config.money
        self.out = out
        self.rounds: list[RoundSummary] = []
        self.void_attempts: Counter[str] = Counter()
        self.round_voids: list[str] = []  # this round's void attempts so far
        self.declined: Counter[str] = Counter()  # void throws' dice the camera did not read, by why

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # --- the observer ------------------------------------------------------------------------------
    def attempt_voided(self, reason: str) -> None:
        self.void_attempts[reason] += 1
        self.round_voids.append(reason)

    def die_declined(self, why: str) -> None:
        self.declined[why] += 1
        if self.round_voids:
            self.round_voids[-1] += f" ({why})"  # the void attempt just told: why its die was not read

    def round_finished(self, summary: RoundSummary) -> None:
        self.rounds.append(summary)
        self.say(self.round_line(summary))
        self.round_voids = []

    def round_line(self, summary: RoundSummary) -> str:
        voids = f"  [{len(self.round_voids)} void first: {', '.join(self.round_voids)}]" if self.round_voids else ""
        return f"{summary.round_id}  {result_text(self.game, summary)}{voids}  | {self.bets_text(summary)}"

    def bets_text(self, summary: RoundSummary) -> str:
        if summary.bets == 0:
            return "no bets"
        decided = summary.bets - summary.stayed
        if decided == 0:
            return f"{summary.bets} bets, all stay on the layout"
        amounts = [("paid", summary.paid), ("kept", summary.kept), ("returned", summary.returned)]
        said = ", ".join(f"{what} {self.amount(amount)}" for what, amount in amounts if amount)
        stay = f" ({summary.stayed} stay)" if summary.stayed else ""
        return f"{summary.bets} bets{stay}: {said or 'nothing paid, kept or returned'}"

    # --- the summary -------------------------------------------------------------------------------
    def summary(self, table_id: str, storage: Path, board_topic: str, config_file: str, seed: int | None) -> list[str]:
        """The lines printed when the run ends (rounds, voids, books, where things are, how to look)."""
        rounds = self.rounds
        voided = [r for r in rounds if r.void]
        span = f" (rounds {rounds[0].round}-{rounds[-1].round})" if rounds else ""
        lines = [f"--- {table_id}: {len(rounds)} rounds this run{span}: {len(rounds) - len(voided)} settled, "
                 f"{len(voided)} voided with stakes returned"]
        if self.void_attempts:
            by_reason = ", ".join(f"{reason} {n}" for reason, n in self.void_attempts.most_common())
            lines.append(f"void attempts: {sum(self.void_attempts.values())} ({by_reason})")
        if self.declined:
            lines.append("dice the camera did not read, by why (docs/vision.md): "
                         + ", ".join(f"{why} {n}" for why, n in self.declined.most_common()))
        if voided:
            lines.append("voided rounds: " + ", ".join(f"{reason} {n}" for reason, n in
                                                       Counter(r.reason for r in voided).most_common()))
        paid, kept, returned = (sum(getattr(r, what) for r in rounds) for what in ("paid", "kept", "returned"))
        lines.append(f"books: {sum(r.bets - r.stayed for r in rounds)} bets decided: paid {self.amount(paid)} in "
                     f"wins, kept {self.amount(kept)} of stakes, returned {self.amount(returned)} of stakes; "
                     f"house result {self.amount(kept - paid)}")
        lines.append(f"journal: {storage / 'journal.sqlite'} (the next run carries on from it)")
        lines.append(f"evidence: {storage / 'evidence'}/")
        board = f"board: retained on MQTT {board_topic} (docs/mqtt.md, \"Board payloads\")"
        if Path(config_file).parent.name == "config" and Path(config_file).name == f"sim-{self.game_folder()}.toml":
            board += f"; the board page: make board GAME={self.game_folder()} (plays this table on from its journal)"
        lines.append(board)
        lines.append(f"recall: tablehw recall --config {config_file} --last 10")
        if seed is not None:
            lines.append(f"seed: {seed} (replay: tablehw run --config {config_file} --simulate --seed {seed}, "
                         "from the same journal)")
        return lines

    def amount(self, minor: int) -> str:
        return money_text(minor, self.money)

    def game_folder(self) -> str:
        """The game's name in `make run` / `make board` (GAME=baccarat for punto banco)."""
        return "baccarat" if self.game == "punto_banco" else self.game
