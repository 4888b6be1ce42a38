"""Punto banco, both books of Portugal 1995: II (Portugal) and III (Macau) — bets, limits, settlement, edge.

Bets: `player` and `banker` pay 1:1, the banker's wins less the casino's 5% (II.18-19), so
19:20; `tie` pays the table's setting, 9:1 by default (II.17 "nove para um"; 8:1 the common
alternative); on a tie, player and banker bets push and stay the players' (II.17).
Limits: Portugal (II.20) max = 70 × min on player and banker, 14 × min on tie. Macau (III.11):
no individual maximum; the difference between the player and banker totals may not pass the
`max_difference` the inspectorate sets, and the tie total may not pass 10% of it.
Pairs in a group's first two cards are recorded for the boards, not bet.
"""

from __future__ import annotations

from fractions import Fraction as F

from .baccarat_edge import CoupCounts, enumerate_decks
from .bets import Bet, BetOutcome
from .stakes import Limits, check_amount
from .edge import EdgeRow, one_ratio_row
from .errors import BetRefused, RefusalReason, RulebookError
from .layout import same_bet_total
from .money import RoundingRule, format_ratio
from .payout import lose, push, returned, win
from .punto_banco_deal import PuntoBancoCoup
from .shoe import Shoe, ShoeRules, punto_banco_shoe

BETS = ("banker", "player", "tie")
RULEBOOKS = {"portugal-1995": "II", "macau": "III"}
PORTUGAL_MAX_RATIO = {"player": 70, "banker": 70, "tie": 14}  # II.20


class PuntoBanco:
    """A punto banco rule book: which bets, their limits, payouts and the house edge."""

    game = "punto_banco"

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 decks: int = 8, tie_pays: F = F(9), commission: F = F(5, 100),
                 max_difference: int | None = None, minor_units_per_unit: int = 100) -> None:
        if rulebook not in RULEBOOKS:
            raise RulebookError(f"punto banco has rule books {sorted(RULEBOOKS)}, not {rulebook!r}")
        if tie_pays not in (F(8), F(9)):
            raise RulebookError(f"the tie pays 9:1 (II.17) or 8:1, not {format_ratio(tie_pays)}")
        if not 0 <= commission < 1:
            raise RulebookError(f"the banker commission must be a share below 1, got {commission}")
        if rulebook == "macau" and (max_difference is None or max_difference < limits.minimum):
            raise RulebookError("the Macau book needs max_difference (III.11 b), at least the table minimum")
        if max_difference is not None:
            check_amount(max_difference, "game.max_difference")
        if rulebook != "macau" and max_difference is not None:
            raise RulebookError("max_difference is a Macau rule (III.11 b); Portugal limits each bet (II.20)")
        limits.check_bets_named(BETS, "punto banco")
        self.rulebook = rulebook
        self.chapter = RULEBOOKS[rulebook]
        self.limits = limits
        self.rounding = rounding
        self.shoe_rules: ShoeRules = punto_banco_shoe(decks)
        self.tie_pays = tie_pays
        self.banker_pays = 1 - commission
        self.max_difference = max_difference
        self.minor_units_per_unit = minor_units_per_unit
        self.stake_rules = {bet: limits.rule(bet, self.maximum_for(bet)) for bet in BETS}  # no multiples (II, III)

    # --- bets ----------------------------------------------------------------------------------
    def maximum_for(self, bet: str) -> int | None:
        """A single bet's maximum: II.20 ratios (Portugal), none (Macau, III.11 a)."""
        if self.rulebook == "macau":
            return self.limits.per_bet_maximum.get(bet)
        return min(self.limits.maximum_for(bet), PORTUGAL_MAX_RATIO[bet] * self.limits.minimum)

    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        if bet.bet not in BETS:
            raise BetRefused(RefusalReason.UNKNOWN_BET, f"punto banco has bets {', '.join(BETS)}, not {bet.bet!r}")
        if bet.number is not None:
            raise BetRefused(RefusalReason.MALFORMED, f"bet {bet.bet} takes no number, got {bet.number}")
        self.stake_rules[bet.bet].check(bet, same_bet_total(bet, placed))
        if self.rulebook == "macau":
            self._check_exposure(placed + [bet], f"with {bet.ticket}")

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        if self.rulebook == "macau":
            self._check_exposure(remaining, f"without {bet.ticket}", RefusalReason.NOT_REMOVABLE)

    def _check_exposure(self, bets: list[Bet], what: str, reason: RefusalReason = RefusalReason.OVER_TABLE_LIMIT) -> None:
        """III.11 b-d: |player total - banker total| <= max_difference; tie total <= 10% of it."""
        total = {b: sum(x.stake for x in bets if x.bet == b) for b in BETS}
        difference = abs(total["player"] - total["banker"])
        if difference > self.max_difference:
            raise BetRefused(reason, f"{what} the player and banker totals would differ by {difference}, "
                                     f"over the maximum difference {self.max_difference} (III.11 b-c)")
        if total["tie"] * 10 > self.max_difference:
            raise BetRefused(reason, f"{what} the tie bets would total {total['tie']}, over 10% of "
                                     f"{self.max_difference} (III.11 d)")

    # --- coups and settlement -----------------------------------------------------------------------
    coup_takes_bets = False  # the deal does not depend on the bets

    def new_shoe(self, *, burns: bool = True) -> Shoe:
        return Shoe(self.shoe_rules, burns=burns)

    def new_coup(self, shoe: Shoe | None = None) -> PuntoBancoCoup:
        if shoe is None:
            shoe = Shoe(self.shoe_rules, burns=False)
        return PuntoBancoCoup(shoe, article=f"{self.chapter}.14")

    def settle(self, coup: PuntoBancoCoup, bets: list[Bet]) -> list[BetOutcome]:
        """Every bet's outcome; a void coup returns every stake; an unfinished coup raises."""
        if coup.is_void:
            return [returned(b) for b in bets]
        winner = coup.result().winner
        out = []
        for bet in bets:
            if winner == "tie":
                out.append(win(bet, self.tie_pays, self.rounding) if bet.bet == "tie" else push(bet))
            elif bet.bet == winner:
                out.append(win(bet, self.banker_pays if winner == "banker" else F(1), self.rounding))
            else:
                out.append(lose(bet))
        return out

    def describe_result(self, view: dict) -> str:
        """One line for a finished coup (`BaccaratResult.view()`)."""
        pairs = [side for side in ("player", "banker") if view[f"{side}_pair"]]
        return (f"player {view['player_points']} ({' '.join(view['player'])}) banker {view['banker_points']} "
                f"({' '.join(view['banker'])}): {view['winner']}{' wins' if view['winner'] != 'tie' else ''}"
                + (" (natural)" if view["natural"] else "") + (f" pairs: {', '.join(pairs)}" if pairs else ""))

    # --- house edge ------------------------------------------------------------------------------
    def edge_rows(self, counts: CoupCounts | None = None) -> list[EdgeRow]:
        """Exact edges from the full-shoe enumeration (a tie is a push for player and banker)."""
        counts = counts or enumerate_decks(self.shoe_rules.decks)
        pb, pp, pt = (counts.probability(r) for r in ("banker", "player", "tie"))
        least = {bet: self.stake_rules[bet].least for bet in BETS}
        return [
            one_ratio_row("banker", self.banker_pays, pb, pp, pt, self.rounding, least["banker"]),
            one_ratio_row("player", F(1), pp, pb, pt, self.rounding, least["player"]),
            one_ratio_row("tie", self.tie_pays, pt, 1 - pt, F(0), self.rounding, least["tie"]),
        ]
