"""Chemin de fer, Portugal 1995 chapter I: the coup with the console's decisions, and its settlement.

Non-banked (I.1): the banker is a player holding the shoe; the punters ("pontos") bet against
the bank up to its amount (I.45). Two cards each, player first, alternately (I.62). The player
shows 8-9, stands on 6-7, draws under 5 and chooses on 5 (I.64); the banker shows 8-9, stands
on 7, draws on 0-2 and follows the table on 3-6, with two optional cells (I.67). Optional draws
are decisions from the dealer console; every other draw is forced. Equal points: the coup is
void (I.2, I.76). The house takes its commission ("cagnotte", I.47) on the bank's wins.
"""

from __future__ import annotations

from fractions import Fraction as F

from .baccarat_tableau import Cell, banker_cell, is_natural, player_cell, points
from .bets import Bet, BetOutcome
from .cards import Card, baccarat_value
from .stakes import Limits
from .errors import BetRefused, RefusalReason, RulebookError
from .layout import same_bet_total
from .misdeal import COMPLETE, CardNotDue, CoupNotFinished, DecisionRefused, Due, Misdeal, Remedy, WrongOrder
from .money import RoundingRule, format_ratio
from .payout import lose, returned, win
from .punto_banco_deal import BaccaratResult, baccarat_result
from .shoe import Shoe, ShoeCoup, ShoeRules, chemin_de_fer_shoe

PLACES = ("player", "banker")


class ChemindeFerCoup(ShoeCoup):
    """One chemin de fer coup; `banker_by_table` makes the banker draw on his optional cells (I.102, I.104 b)."""

    article = "Portugal 1995 I.106 c"
    decision_article = "Portugal 1995 I.104 n"  # a card drawn against the announced play is burned

    def __init__(self, shoe: Shoe | None = None, *, banker_by_table: bool = False) -> None:
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.player_draws: bool | None = None  # the player's announcement: "carta" or "não" (I.65)
        self.banker_draws: bool | None = None
        self.banker_by_table = banker_by_table
        super().__init__(shoe if shoe is not None else Shoe(chemin_de_fer_shoe(), burns=False))

    def _player_choice(self) -> bool | None:
        cell = player_cell(points(self.player[:2]))
        return {Cell.DRAW: True, Cell.STAND: False}.get(cell, self.player_draws)

    def _banker_choice(self) -> bool | None:
        third = baccarat_value(self.player[2]) if len(self.player) == 3 else None
        cell = banker_cell(points(self.banker[:2]), third)
        if cell is Cell.OPTIONAL:
            return True if self.banker_by_table else self.banker_draws
        return cell is Cell.DRAW

    def _due_card(self) -> Due:
        p, b = self.player, self.banker
        if len(p) + len(b) < 4:
            side = "player" if len(p) == len(b) else "banker"
            return Due(to=side, why="one card to the player, one to the banker, twice (I.62)")
        p2, b2 = points(p[:2]), points(b[:2])
        if is_natural(p2):
            return COMPLETE  # the player shows (abate); the banker only turns his cards (I.64 a, I.67)
        draws = self._player_choice()
        if draws is None:
            return Due(decision="player", why="the player has 5: draw or not at his will (I.64 d)")
        if is_natural(b2):
            return COMPLETE  # the banker shows 8 or 9 before any third card (I.67 a)
        if draws and len(p) == 2:
            return Due(to="player", why=f"the player has {p2} and asked for a card (I.64)")
        banker = self._banker_choice()
        if banker is None:
            return Due(decision="banker", why="optional cell of the banker's table (I.67 d)")
        if banker and len(b) == 2:
            return Due(to="banker", why=f"the banker has {b2} and draws by the table (I.67)")
        return COMPLETE

    def decide(self, decision: str, who: str | None = None) -> Due:
        """The console's answer to a due decision: "draw" or "stand" (the first announcement counts, I.105 d)."""
        due = self.due()
        if due.decision is None:
            raise DecisionRefused(f"no decision is due now (next: {due.view()})")
        if who is not None and who != due.decision:
            raise DecisionRefused(f"the {due.decision}'s decision is due, not the {who}'s")
        if decision not in ("draw", "stand"):
            raise DecisionRefused(f"a decision is 'draw' or 'stand', not {decision!r}")
        setattr(self, f"{due.decision}_draws", decision == "draw")
        return self._after_card()

    def _accept(self, card: Card, to: str) -> None:
        (self.player if to == "player" else self.banker).append(card)

    def _misplaced(self, card: Card, to: str, due: Due, face_up: bool) -> Misdeal:
        if to in PLACES and len(self.player) + len(self.banker) < 4:
            return WrongOrder(f"{card} to the {to} out of turn: the card is due to the {due.to}",
                              Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)
        return CardNotDue(f"{card} to {to!r}, which gets no card now: the card is due to the {due.to}",
                          Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)

    def result(self) -> BaccaratResult:
        if self.is_void or not self.is_complete:
            raise CoupNotFinished("the coup is " + ("void" if self.is_void else "not complete") + ": it has no result")
        return baccarat_result(self.player, self.banker)


class ChemindeFer:
    """The chemin de fer rule book: the bank (`banker`) against the punters' bets (`player`)."""

    game = "chemin_de_fer"
    coup_takes_bets = False

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 commission: F = F(5, 100), bank_minimum: int | None = None, minor_units_per_unit: int = 100) -> None:
        if rulebook != "portugal-1995":
            raise RulebookError(f"chemin de fer has rule book 'portugal-1995' only, not {rulebook!r}")
        if not 0 <= commission < 1:
            raise RulebookError(f"the commission must be a share below 1, got {commission}")
        self.rulebook = rulebook
        self.limits = limits
        self.rounding = rounding
        self.bank_pays = 1 - commission
        self.bank_minimum = bank_minimum or limits.minimum
        limits.check_bets_named(("banker", "player"), "chemin de fer")
        # I.35: the bank has a minimum and no maximum (MAX_AMOUNT bounds it) and need not be a multiple;
        # I.36: the punters' bets are the minimum or multiples of it, together at most the bank (I.45).
        self.bank_rule = limits.rule("banker", None, minimum=self.bank_minimum)
        self.punter_rule = limits.rule("player", None, multiple=True, why="Portugal 1995 I.36")
        self.shoe_rules: ShoeRules = chemin_de_fer_shoe()
        self.minor_units_per_unit = minor_units_per_unit

    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        if bet.bet not in ("banker", "player") or bet.number is not None:
            raise BetRefused(RefusalReason.UNKNOWN_BET, f"chemin de fer has the bank ('banker') and the punters' "
                                                        f"bets ('player'), not {bet.bet!r}")
        bank = [b for b in placed if b.bet == "banker"]
        if bet.bet == "banker":
            if bank:
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, f"the bank is already on the table ({bank[0].ticket})")
            self.bank_rule.check(bet)
            return
        if not bank:
            raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, "the bank must be announced before the punters bet (I.39-40)")
        self.punter_rule.check(bet, same_bet_total(bet, placed))
        covered = bet.stake + sum(b.stake for b in placed if b.bet == "player")
        if covered > bank[0].stake:
            raise BetRefused(RefusalReason.OVER_TABLE_LIMIT, f"the punters would total {covered}, over the bank "
                                                             f"{bank[0].stake} (I.45)")

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        if bet.bet == "banker" and any(b.bet == "player" for b in remaining):
            raise BetRefused(RefusalReason.NOT_REMOVABLE, "the bank cannot leave while punters' bets stand against it")

    def new_shoe(self, *, burns: bool = True) -> Shoe:
        return Shoe(self.shoe_rules, burns=burns)

    def new_coup(self, shoe: Shoe | None = None, *, banker_by_table: bool = False) -> ChemindeFerCoup:
        return ChemindeFerCoup(shoe if shoe is not None else Shoe(self.shoe_rules, burns=False),
                               banker_by_table=banker_by_table)

    def settle(self, coup: ChemindeFerCoup, bets: list[Bet]) -> list[BetOutcome]:
        """Punters win or lose 1:1 against the bank; the bank wins the punters' stakes less the
        commission; equal points and void coups return every stake (I.76)."""
        if coup.is_void:
            return [returned(b) for b in bets]
        result = coup.result()
        faded = sum(b.stake for b in bets if b.bet == "player")
        out = []
        for bet in bets:
            if result.winner == "tie":
                out.append(returned(bet))
            elif bet.bet == "player":
                out.append(win(bet, F(1), self.rounding) if result.winner == "player" else lose(bet))
            else:
                at_risk = min(faded, bet.stake)
                out.append(win(bet, self.bank_pays, self.rounding, at_risk=at_risk) if result.winner == "banker"
                           else lose(bet, at_risk=at_risk))
        return out

    def paytable(self) -> dict[str, str]:
        return {"player (punter against the bank)": "1:1", "banker (the bank, on the punters' stakes)":
                format_ratio(self.bank_pays), "equal points": "void, stakes returned (I.76)"}

    def payouts(self) -> list[tuple[str, F, int]]:
        """(payout, ratio, least stake) for `tablehw edge`: a punter's least stake, won or faded by the bank."""
        least = self.punter_rule.least
        return [("player (punter)", F(1), least), ("banker, on a punter's stake", self.bank_pays, least)]

    def describe_result(self, view: dict) -> str:
        winner = {"tie": "equal points: void coup (I.76)"}.get(view["winner"], f"{view['winner']} wins")
        return (f"player {view['player_points']} ({' '.join(view['player'])}) banker {view['banker_points']} "
                f"({' '.join(view['banker'])}): {winner}")
