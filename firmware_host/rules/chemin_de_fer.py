"""Chemin de fer, Portugal 1995 chapter I: the rule book — the bank, the punters' bets, a banco, settlement.

Non-banked (I.1): the banker is a player holding the shoe; the punters ("pontos") bet against
the bank up to its amount (I.45). One punter covering the whole bank makes a banco, where both
sides may make false draws (I.70); the coup itself is chemin_de_fer_coup.ChemindeFerCoup. Equal
points: the coup is void (I.2, I.76). The house takes its commission ("cagnotte", I.47) on the
bank's wins.
"""

from __future__ import annotations

from fractions import Fraction as F

from .bets import Bet, BetOutcome
from .chemin_de_fer_coup import ChemindeFerCoup
from .stakes import Limits
from .errors import BetRefused, RefusalReason, RulebookError
from .layout import same_bet_total
from .misdeal import DecisionRefused
from .money import RoundingRule, format_ratio
from .payout import lose, returned, win
from .shoe import Shoe, ShoeRules, chemin_de_fer_shoe

__all__ = ["ChemindeFer", "ChemindeFerCoup", "DecisionRefused"]


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
        punted = [b for b in placed if b.bet == "player"]
        if not punted and bet.stake == bank[0].stake:
            self.bank_rule.check(bet)  # a banco (I.45): the whole bank, whatever it grew to, not a multiple (I.36)
        else:
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

    def is_banco(self, bets: list[Bet]) -> bool:
        """One punter against the whole bank ("fazer bancô", I.45): a single punter's bet equal to the bank."""
        bank = [b for b in bets if b.bet == "banker"]
        punters = [b for b in bets if b.bet == "player"]
        return len(bank) == 1 and len(punters) == 1 and punters[0].stake == bank[0].stake

    def new_coup(self, shoe: Shoe | None = None, *, banker_by_table: bool = False,
                 banco: list[Bet] | None = None) -> ChemindeFerCoup:
        """A coup; `banco`: the bets of a banco the console declared (checked: one punter covering the
        whole bank, I.45), which frees both sides' draws (I.70)."""
        if banco is not None and not self.is_banco(banco):
            raise DecisionRefused("a banco is one punter's bet against the whole bank (I.45): these bets are not one")
        return ChemindeFerCoup(shoe if shoe is not None else Shoe(self.shoe_rules, burns=False),
                               banker_by_table=banker_by_table, banco=banco is not None)

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
        faults = "".join(f"; {f['article']}: {f['message']}" for f in view.get("faults", []))
        return (("banco: " if view.get("banco") else "") + f"player {view['player_points']} ({' '.join(view['player'])}) "
                f"banker {view['banker_points']} ({' '.join(view['banker'])}): {winner}{faults}")
