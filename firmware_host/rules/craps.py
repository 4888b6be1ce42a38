"""Craps: three rule books as data (Macau 2010, Macau 1985, Portugal 1995), the point and the shooter.

Every bet is a `BetKind` table over (the bet's own point, the two dice). Pass and come share one
table, as do don't pass and don't come: they differ only in when they may be made.
References: Macau 2010 = Despacho 53/2010 (seed 001) Art. 3-6; Macau 1985 = Portaria 97/85/M
(seed 003) Art. 1-12; Portugal 1995 = Portaria 1441/95 (seed 004) chapter VI.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

from .bet_table import LOSE, PUSH, STAY, WIN, BetKind, SmallStake, build_kind, one_roll
from .bets import Bet, Moment
from .dice_game import DiceGame, closed_for_withdrawals, refuse
from .stakes import Limits
from .errors import RefusalReason, RulebookError
from .money import RoundingRule, format_ratio

POINTS = (4, 5, 6, 8, 9, 10)
STATES = 11  # a line bet's state is its point (0 = no point yet), so index = point number
TRUE_ODDS = {4: F(2), 10: F(2), 5: F(3, 2), 9: F(3, 2), 6: F(6, 5), 8: F(6, 5)}
LINE_BETS = ("pass", "come", "dont_pass", "dont_come")
LIGHT_LINE, DARK_LINE = ("pass", "come"), ("dont_pass", "dont_come")


@dataclass(frozen=True)
class OddsLimit:
    """How big odds may be against the line bet they back.
    basis "win": the odds' win may not exceed `multiple` × the line stake (1985 Art. 2.2 with
    multiple 1; a "3-4-5x" table is multiple 6); basis "stake": the odds stake may not exceed
    `multiple` × the line stake (1995 VI.11.1). multiple None: the table's `odds_multiple`."""

    basis: str
    multiple: int | None


@dataclass(frozen=True)
class CrapsBook:
    """What a rule book allows and pays; the options a table may choose are named as such."""

    name: str
    any_seven: F
    field_12_choices: tuple[F, ...]  # the operator's choice for 12 on the field
    bar_choices: tuple[int, ...]  # the total that bars don't pass / don't come
    one_roll_extra: tuple[str, ...]  # one-roll bets beyond field, any craps, any seven, eleven
    place: dict[int, F]  # place-to-win numbers and ratios ("Big 6 or 8" etc.)
    place_small_stake: dict[int, tuple[int, F]]  # number -> (stake in whole units below which, ratio)
    lay: dict[int, F]  # place-to-lose (1995)
    big_6_8_even: bool  # 1995 Big 6 / Big 8 paying 1:1
    under_over_7: bool  # 1995 under seven / over seven
    big_small: bool  # 2010 big / small
    light_odds: OddsLimit
    dark_odds: OddsLimit
    multiples: tuple[str, tuple[str, ...]] | None  # (article, bet id prefixes; () for every bet) or None
    odds_pay_at_most_maximum: bool  # 1995 VI.11.1: odds may not lead to a payment above the maximum
    odds_withdrawal: str | None  # 1995 VI.11.1: "until_decision"; None: the book is silent (a table choice)
    void_reasons: dict[str, str]  # code -> article
    shooter_must_bet: str | None  # the article that lets only a player with a bet throw, or None
    pass_line_first: bool  # 1995 VI.5: pass-line bettors have preference to throw


BOOKS = {
    # Macau 2010, Despacho 53/2010, Art. 5-6.
    "macau-2010": CrapsBook(
        "macau-2010", F(4), (F(2), F(3)), (12,), ("ace_deuce", "aces", "boxcars", "horn"),
        {4: F(9, 5), 10: F(9, 5), 5: F(7, 5), 9: F(7, 5), 6: F(7, 6), 8: F(7, 6)}, {}, {},
        big_6_8_even=False, under_over_7=False, big_small=True,
        light_odds=OddsLimit("win", None), dark_odds=OddsLimit("win", None),
        multiples=("Macau 2010 Art. 5.6", ()), odds_pay_at_most_maximum=False, odds_withdrawal=None,
        void_reasons={"off_table": "Macau 2010 Art. 3.2 (1)", "not_past_middle": "Macau 2010 Art. 3.2 (2)",
                      "not_rolled": "Macau 2010 Art. 3.3"},
        shooter_must_bet="Macau 2010 Art. 2.1", pass_line_first=False),
    # Macau 1985, Portaria 97/85/M, Art. 2-12 ("Big 7" pays 4 and a half: Art. 6).
    "macau-1985": CrapsBook(
        "macau-1985", F(9, 2), (F(2),), (12,), (),
        {4: F(9, 5), 10: F(9, 5), 5: F(7, 5), 9: F(7, 5), 6: F(7, 6), 8: F(7, 6)},
        {6: (6, F(1)), 8: (6, F(1)), 5: (5, F(1)), 9: (5, F(1))}, {},
        big_6_8_even=False, under_over_7=False, big_small=False,
        light_odds=OddsLimit("win", 1), dark_odds=OddsLimit("win", None),
        multiples=None, odds_pay_at_most_maximum=False, odds_withdrawal=None,
        void_reasons={"off_table": "Macau 1985 Art. 1"}, shooter_must_bet=None, pass_line_first=False),
    # Portugal 1995, Portaria 1441/95, chapter VI, 10-13.
    "portugal-1995": CrapsBook(
        "portugal-1995", F(4), (F(2),), (12, 2), ("ace_deuce", "aces", "boxcars"),
        {4: F(9, 5), 10: F(9, 5), 5: F(7, 5), 9: F(7, 5), 6: F(7, 6), 8: F(7, 6)}, {},
        {4: F(5, 11), 10: F(5, 11), 5: F(5, 8), 9: F(5, 8), 6: F(10, 13), 8: F(10, 13)},
        big_6_8_even=True, under_over_7=True, big_small=False,
        light_odds=OddsLimit("stake", 1), dark_odds=OddsLimit("stake", 1),
        multiples=("Portugal 1995 VI.12", ("place_", "lay_")), odds_pay_at_most_maximum=True,
        odds_withdrawal="until_decision",
        void_reasons={"off_table": "Portugal 1995 VI.7 a", "not_past_middle": "Portugal 1995 VI.7 b"},
        shooter_must_bet="Portugal 1995 VI.5", pass_line_first=True),
}


@dataclass(frozen=True, slots=True)
class CrapsState:
    """The table's point (0 when the next throw is a come-out) and the shooter's number."""

    point: int = 0
    shooter: int = 1


def _line_rule(dark: bool, bar: int):
    def rule(point: int, faces: tuple[int, ...]):
        total = sum(faces)
        if point == 0:
            if total in (7, 11):
                return (LOSE, None, 0) if dark else (WIN, F(1), 0)
            if total in (2, 3, 12):
                if dark:
                    return (PUSH, None, 0) if total == bar else (WIN, F(1), 0)
                return LOSE, None, 0
            return STAY, None, total
        if total == point:
            return (LOSE, None, point) if dark else (WIN, F(1), point)
        if total == 7:
            return (WIN, F(1), point) if dark else (LOSE, None, point)
        return STAY, None, point
    return rule


def _versus_seven(number: int, ratio: F, wins_on_seven: bool):
    """A multi-roll bet on `number` against 7 (place, lay, odds, big 6/8)."""
    def rule(state: int, faces: tuple[int, ...]):
        total = sum(faces)
        if total == number:
            return (LOSE, None, state) if wins_on_seven else (WIN, ratio, state)
        if total == 7:
            return (WIN, ratio, state) if wins_on_seven else (LOSE, None, state)
        return STAY, None, state
    return rule


def _hardway(number: int, ratio: F):
    def rule(state: int, faces: tuple[int, ...]):
        total = sum(faces)
        if total == number:
            return (WIN, ratio, state) if faces[0] == faces[1] else (LOSE, None, state)
        return (LOSE, None, state) if total == 7 else (STAY, None, state)
    return rule


def _on_totals(table: dict[int, F]):
    return lambda faces: table.get(sum(faces))


def _numbered(bet: str, number: int, ratio: F, wins_on_seven: bool, **options) -> BetKind:
    return build_kind(bet, format_ratio(ratio), _versus_seven(number, ratio, wins_on_seven), 2,
                      STATES, (number,), start_state=number, number=number, **options)


def craps_kinds(book: CrapsBook, field_12: F, bar: int, minor_units_per_unit: int) -> list[BetKind]:
    """Every bet of a rule book as resolution tables."""
    line_states = (0, *POINTS)
    kinds = [
        build_kind("pass", "1:1", _line_rule(False, bar), 2, STATES, line_states),
        build_kind("come", "1:1", _line_rule(False, bar), 2, STATES, line_states),
        build_kind("dont_pass", "1:1", _line_rule(True, bar), 2, STATES, line_states),
        build_kind("dont_come", "1:1", _line_rule(True, bar), 2, STATES, line_states),
    ]
    for point in POINTS:
        kinds.append(_numbered("odds", point, TRUE_ODDS[point], False))
        kinds.append(_numbered("dont_odds", point, 1 / TRUE_ODDS[point], True))
    field_pays = {3: F(1), 4: F(1), 9: F(1), 10: F(1), 11: F(1), 2: F(2), 12: field_12}
    one_rolls = {
        "field": (_on_totals(field_pays), F(1)),
        "any_craps": (_on_totals({2: F(7), 3: F(7), 12: F(7)}), F(7)),
        "any_seven": (_on_totals({7: book.any_seven}), book.any_seven),
        "eleven": (_on_totals({11: F(15)}), F(15)),
        "ace_deuce": (_on_totals({3: F(15)}), F(15)),
        "aces": (_on_totals({2: F(30)}), F(30)),
        "boxcars": (_on_totals({12: F(30)}), F(30)),
        # Horn: one stake on 2, 3, 11, 12 in four equal parts, paid on the whole stake (2010 Art. 6.11).
        "horn": (_on_totals({2: F(27, 4), 12: F(27, 4), 3: F(3), 11: F(3)}), F(27, 4)),
        "big": (_on_totals({t: F(1) for t in (8, 9, 10, 11, 12)}), F(1)),
        "small": (_on_totals({t: F(1) for t in (2, 3, 4, 5, 6)}), F(1)),
        "under_7": (_on_totals({t: F(1) for t in (2, 3, 4, 5, 6)}), F(1)),
        "over_7": (_on_totals({t: F(1) for t in (8, 9, 10, 11, 12)}), F(1)),
    }
    chosen = ["field", "any_craps", "any_seven", "eleven", *book.one_roll_extra]
    if book.big_small:
        chosen += ["big", "small"]
    if book.under_over_7:
        chosen += ["under_7", "over_7"]
    for bet in chosen:
        pays, headline = one_rolls[bet]
        kinds.append(one_roll(bet, 2, pays, headline))
    for number, ratio in ((4, F(7)), (6, F(9)), (8, F(9)), (10, F(7))):
        kinds.append(build_kind(f"hard_{number}", format_ratio(ratio), _hardway(number, ratio), 2))
    for number, ratio in book.place.items():
        small = book.place_small_stake.get(number)
        small_stake = SmallStake(small[0] * minor_units_per_unit, small[1]) if small else None
        kinds.append(build_kind(f"place_{number}", format_ratio(ratio), _versus_seven(number, ratio, False), 2,
                                small_stake=small_stake))
    for number, ratio in book.lay.items():
        kinds.append(build_kind(f"lay_{number}", format_ratio(ratio), _versus_seven(number, ratio, True), 2))
    if book.big_6_8_even:
        for number in (6, 8):
            kinds.append(build_kind(f"big_{number}", "1:1", _versus_seven(number, F(1), False), 2))
    return sorted(kinds, key=lambda k: (k.bet, k.number or 0))


class Craps(DiceGame):
    """Craps under one rule book; the state is the point and the shooter."""

    game = "craps"
    n_dice = 2

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 field_12_pays: F | None = None, bar: int = 12, odds_multiple: int = 1,
                 odds_withdrawal: str | None = None, minor_units_per_unit: int = 100) -> None:
        """`odds_withdrawal` where the book is silent (2010, 1985): "while_betting" (default) or
        "until_decision"; 1995 fixes "until_decision" (VI.11.1)."""
        if rulebook not in BOOKS:
            raise RulebookError(f"craps has no rule book {rulebook!r}; choose one of {sorted(BOOKS)}")
        book = BOOKS[rulebook]
        field_12 = book.field_12_choices[0] if field_12_pays is None else field_12_pays
        if field_12 not in book.field_12_choices:
            raise RulebookError(f"{rulebook}: field 12 pays {[format_ratio(c) for c in book.field_12_choices]}, "
                                f"not {format_ratio(field_12)}")
        if bar not in book.bar_choices:
            raise RulebookError(f"{rulebook}: don't pass is barred on {list(book.bar_choices)}, not {bar}")
        if odds_multiple < 1:
            raise RulebookError(f"odds_multiple must be at least 1, got {odds_multiple}")
        if odds_withdrawal not in (None, "while_betting", "until_decision"):
            raise RulebookError(f"odds_withdrawal is 'while_betting' or 'until_decision', not {odds_withdrawal!r}")
        if book.odds_withdrawal and odds_withdrawal not in (None, book.odds_withdrawal):
            raise RulebookError(f"{rulebook}: odds come down until the decision (VI.11.1); the table cannot "
                                f"choose {odds_withdrawal!r}", key="game.odds_withdrawal")
        self.odds_withdrawal = book.odds_withdrawal or odds_withdrawal or "while_betting"
        self.void_reasons = book.void_reasons
        self.book, self.bar, self.odds_multiple = book, bar, odds_multiple
        super().__init__(rulebook, craps_kinds(book, field_12, bar, minor_units_per_unit), limits, rounding,
                         minor_units_per_unit)

    def initial_state(self) -> CrapsState:
        return CrapsState()

    def next_state(self, state: CrapsState, faces: tuple[int, ...]) -> CrapsState:
        """The point is set on a come-out point number and cleared when made; a seven-out
        changes the shooter (2010 Art. 4; 1995 VI.8)."""
        total = sum(faces)
        if state.point == 0:
            return CrapsState(total, state.shooter) if total in POINTS else state
        if total == state.point:
            return CrapsState(0, state.shooter)
        if total == 7:
            return CrapsState(0, state.shooter + 1)
        return state

    def multiple_of_minimum(self, bet: str) -> str | None:
        """2010 Art. 5.6: every stake; 1995 VI.12: the bets on the numbers (place to win, place to
        lose); 1985: none."""
        if self.book.multiples is None:
            return None
        article, prefixes = self.book.multiples
        return article if not prefixes or bet.startswith(prefixes) else None

    def shooter_refusal(self, open_bets, owner: str) -> str | None:
        """Why `owner` may not throw the dice, or None: in 2010 only a player who has bet (Art. 2.1: "só
        um jogador que tenha apostado o valor mínimo"), in 1995 a player who has made any bet (VI.5);
        1985 sets no condition (Art. 1)."""
        if self.book.shooter_must_bet and not any(b.owner == owner for b in open_bets.bets):
            return f"{owner} has no bet on the layout: only a player who has bet throws ({self.book.shooter_must_bet})"
        return None

    def shooters(self, open_bets, players: list[str]) -> list[str]:
        """Who may throw, in the order they are offered the dice: `players` from the stickman's left,
        those refused by `shooter_refusal` left out, pass-line bettors first in 1995 (VI.5)."""
        eligible = [p for p in players if self.shooter_refusal(open_bets, p) is None]
        if not self.book.pass_line_first:
            return eligible
        on_pass = {b.owner for b in open_bets.bets if b.bet == "pass"}
        return [p for p in eligible if p in on_pass] + [p for p in eligible if p not in on_pass]

    def new_shooter(self, state: CrapsState) -> CrapsState:
        """The shooter stopped betting or passed the dice (2010 Art. 4.1; 1995 VI.8a)."""
        return CrapsState(state.point, state.shooter + 1)

    def state_view(self, state: CrapsState) -> dict:
        return {"point": state.point or None, "shooter": state.shooter}

    def kind_for(self, state: CrapsState, open_bets, bet: Bet) -> tuple[int, int]:
        if bet.bet in ("odds", "dont_odds"):
            return self._odds_kind(open_bets, bet)
        kind, start = super().kind_for(state, open_bets, bet)
        if bet.bet in ("pass", "dont_pass") and state.point:
            raise refuse(RefusalReason.NOT_ALLOWED_NOW,
                         f"{bet.bet} is made on the come-out; the point is {state.point} (use come / don't come)")
        if bet.bet in ("come", "dont_come") and not state.point:
            raise refuse(RefusalReason.NOT_ALLOWED_NOW, f"{bet.bet} is made only after a point is set")
        return kind, start

    def _odds_kind(self, open_bets, bet: Bet) -> tuple[int, int]:
        if bet.number not in POINTS:
            raise refuse(RefusalReason.MALFORMED, f"{bet.bet} needs the point it backs (4, 5, 6, 8, 9 or 10), got {bet.number!r}")
        dark = bet.bet == "dont_odds"
        bases = DARK_LINE if dark else LIGHT_LINE
        line = sum(open_bets.total_in_state(bet.owner, base, bet.number) for base in bases)
        if not line:
            raise refuse(RefusalReason.NO_LINE_BET,
                         f"{bet.bet} on {bet.number} needs {bet.owner}'s {' or '.join(bases)} bet with point {bet.number}")
        odds = open_bets.total(bet.owner, bet.bet, bet.number)
        total = odds + bet.stake if isinstance(bet.stake, int) else odds
        limit = self.book.dark_odds if dark else self.book.light_odds
        multiple = limit.multiple or self.odds_multiple
        ratio = (1 / TRUE_ODDS[bet.number]) if dark else TRUE_ODDS[bet.number]
        amount = total * ratio if limit.basis == "win" else F(total)
        if amount > line * multiple:
            what = "win" if limit.basis == "win" else "stake"
            raise refuse(RefusalReason.ODDS_OVER_LIMIT,
                         f"{bet.bet} on {bet.number} totalling {total} would {what} {amount}, over {multiple} × the line bet {line}")
        if self.book.odds_pay_at_most_maximum:
            paid, _ = self.rounding.pay(total * ratio)
            maximum = self.limits.maximum_for(bet.bet)
            if paid > maximum:
                raise refuse(RefusalReason.ODDS_OVER_LIMIT,
                             f"{bet.bet} on {bet.number} totalling {total} would pay {paid}, over the table maximum "
                             f"{maximum} (Portugal 1995 VI.11.1)")
        kind = self.table.kind_of(bet.bet, bet.number)
        return kind, bet.number

    def check_withdrawal(self, state: CrapsState, open_bets, position: int, moment: Moment) -> None:
        """Line bets may not be removed or changed once their point is set (1995 VI.10.9). Odds come
        down "em qualquer altura antes da decisão" (1995 VI.11.1): also after no more bets, until the
        dice are thrown — where the book says so or the table's `odds_withdrawal` chooses it. Every
        other bet comes down only while betting is open."""
        bet = open_bets.bets[position]
        if bet.bet in LINE_BETS and int(open_bets.state[position]):
            raise refuse(RefusalReason.NOT_REMOVABLE,
                         f"{bet.bet} has point {int(open_bets.state[position])}: a line bet stays until decided")
        if bet.bet in ("odds", "dont_odds") and self.odds_withdrawal == "until_decision" \
                and moment is Moment.BEFORE_DECISION:
            return
        closed_for_withdrawals(moment, bet)
