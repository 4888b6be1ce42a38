"""The chemin de fer bank from coup to coup (Portugal 1995 I.30-35, I.39, I.46, I.51, I.76-77, I.89, I.96 c).

The bank is a player's capital, announced by him and repeated by the dealer (I.39: "Banca de ...$"),
who puts its chips on the table. After a coup the bank has:
- won: it stays with its holder at the capital accumulated, its net winnings included (I.46), unless
  he sets part of it aside ("garage"): down to twice the stakes it won when the punters did not
  cover it (I.46), or by half after its third win and every odd one after (I.34, ties not counted);
  never under the table's bank minimum (I.35). He may also pass it (I.77, "passo a mão");
- lost: "a mão passa" (I.96 c, I.32): a new bank is announced, at least the minimum (I.35);
- equal points (I.76, I.89): the coup is void and the bank is as it was; its holder may go on or pass it.
A holder may also give the bank up between coups ("a mão passa por abandono", I.96 c).
A punter who made a banco and lost it may follow it up ("bancô suivi", I.51).

`ChemindeFerBank` is what a chemin de fer table's `Layout` checks bets with: the rule book's checks,
then the bank's: the bank's bet is its holder's at the bank's capital, and the holder does not punt
against his own bank (I.30). Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .bets import Bet, BetOutcome, Result
from .chemin_de_fer import ChemindeFer
from .errors import BetRefused, RefusalReason
from .misdeal import DecisionRefused


@dataclass(frozen=True, slots=True)
class Bank:
    """The bank between coups: its holder, the capital in play next coup, its wins in a row, the stakes
    it won in the last coup, what it set aside, the last thing that happened to it, and the punter who
    may follow up a lost banco."""

    holder: str | None = None
    capital: int = 0
    wins: int = 0
    won_stakes: int = 0
    uncovered: bool = False  # the punters' stakes did not match the bank in the coup it won (I.46)
    garage: int = 0
    last: str = "none"  # none, taken, won, lost, tie, garage, passed
    suivi: str | None = None
    offered: int = 0  # a bank passed is offered at the capital it had (I.78, I.80); else auctioned from the minimum

    def view(self) -> dict:
        return dataclasses.asdict(self)


class ChemindeFerBank:
    """A chemin de fer table's bets and bank across coups (I.30, I.35, I.39, I.46)."""

    def __init__(self, game: ChemindeFer, bank: Bank | None = None) -> None:
        self.game = game
        self.bank = bank or Bank()

    # --- bets --------------------------------------------------------------------------------------
    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        bank = self.bank
        if bet.bet == "banker":
            if bank.holder is None:
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, "no bank: the banker announces it at the console "
                                                                "and the dealer puts it on the table (I.39)")
            if bet.owner != bank.holder:
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, f"the bank is {bank.holder}'s (I.30)")
            if bet.stake != bank.capital:
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, f"the bank is {bank.capital}: it goes on with what it "
                                                                f"accumulated unless its holder sets some aside (I.46, "
                                                                f"I.34), not {bet.stake}")
        elif bet.owner == bank.holder:
            raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, f"{bet.owner} holds the bank: the others are the punters "
                                                            f"(I.30)")
        self.game.check_bet(bet, placed)

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        self.game.check_withdrawal(bet, remaining)

    # --- the bank between coups -----------------------------------------------------------------------
    def take(self, holder: str, capital: int) -> None:
        """A new bank announced (I.39): only when none is held, at least the bank minimum (I.35)."""
        if self.bank.holder is not None:
            raise DecisionRefused(f"the bank is {self.bank.holder}'s: it passes when he loses, passes it or gives "
                                  f"it up (I.32, I.77, I.96 c)")
        if not holder:
            raise DecisionRefused("a bank needs its holder (I.30)")
        if isinstance(capital, bool) or not isinstance(capital, int) or capital < self.game.bank_minimum:
            raise DecisionRefused(f"a bank is at least {self.game.bank_minimum}, with no maximum (I.35): got {capital!r}")
        self.bank = Bank(holder, capital, last="taken", suivi=self.bank.suivi)  # at auction, or at the level offered (I.80)

    def garage_levels(self) -> list[int]:
        """What the holder may reduce the bank to now (I.34, I.46), each at least the minimum (I.35)."""
        bank, least = self.bank, self.game.bank_minimum
        if bank.holder is None or bank.last != "won":
            return []
        levels = set()
        if bank.uncovered:
            levels.add(2 * bank.won_stakes)  # I.46: twice the stakes won in the last coup
        if bank.wins >= 3 and bank.wins % 2:
            levels.add(bank.capital // 2)  # I.34: by half after the third win and every odd one after
        return sorted(level for level in levels if least <= level < bank.capital)

    def set_aside(self, capital: int | None = None) -> int:
        """Garage (I.34, I.46): the bank goes on at `capital` (None: the lowest level allowed); returns
        what was set aside."""
        levels = self.garage_levels()
        if not levels:
            raise DecisionRefused("no garage now: after a won coup the punters did not cover (I.46), or after the "
                                  "third win and every odd one after (I.34), and never under the bank minimum (I.35)")
        capital = levels[0] if capital is None else capital
        if capital not in levels:
            raise DecisionRefused(f"the bank may go down to {' or '.join(map(str, levels))} now (I.34, I.46), "
                                  f"not {capital}")
        bank = self.bank
        aside = bank.capital - capital
        self.bank = dataclasses.replace(bank, capital=capital, garage=bank.garage + aside, last="garage")
        return aside

    def pass_bank(self) -> Bank:
        """The holder passes the bank ("passo a mão", I.77; after equal points I.89) or gives it up
        (I.96 c): the bank's chips and his garage go back to him. Returns the bank he left."""
        bank = self.bank
        if bank.holder is None:
            raise DecisionRefused("no bank is held: there is nothing to pass")
        self.bank = Bank(last="passed", suivi=bank.suivi, offered=bank.capital)
        return bank

    def coup_settled(self, bets: list[Bet], outcomes: list[BetOutcome], banco: str | None = None) -> None:
        """The coup is settled: the bank won (it stays, with its winnings), lost (it passes) or tied
        (as it was: ChemindeFer.settle returns every stake on equal points, I.76). A void round never
        comes here: its stakes are returned and the bank is as it was. `banco`: the punter who made a banco this coup, who
        may follow it up if he lost (I.51)."""
        capital = next((b for b in bets if b.bet == "banker"), None)
        if capital is None:
            return
        outcome = next(o for o in outcomes if o.bet.ticket == capital.ticket)
        bank = self.bank
        if outcome.result is Result.WIN:
            won = sum(b.stake for b in bets if b.bet == "player")
            self.bank = dataclasses.replace(bank, capital=capital.stake + outcome.paid, wins=bank.wins + 1,
                                            won_stakes=won, uncovered=won < capital.stake, last="won", suivi=banco)
        elif outcome.result is Result.LOSE:
            self.bank = Bank(last="lost")  # "a mão passa" (I.96 c)
        else:  # equal points (I.76): the bank as it was; its holder may go on or pass it (I.89)
            self.bank = dataclasses.replace(bank, last="tie")
