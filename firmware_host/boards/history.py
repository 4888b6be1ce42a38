"""A table's board history: the results of the current session (or shoe) and the board payload
they give. One class per game family; the service feeds each valid result and resets at a new
session or shoe, the `tablehw board` command feeds a results string.

Voided rounds never reach a board: they have no result (004 §X.16, §VII.6).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.paikao import SEATS
from ..rules.roulette import WHEELS
from . import payload as p
from .baccarat_roads import (DERIVED_ROADS, Coup, big_road, column_lengths, derived_roads, next_marks_for,
                             shoe_counts)
from .dice_history import (CrapsThrow, PaiKaoRound, ThreeDiceResult, banca_result, craps_throw, cussec_result,
                           paikao_round, roll_lengths)
from .grid_layout import dragon_tail_layout
from .roulette_stats import Spin, chance_counts, colour_of, hot_and_cold


@dataclass(frozen=True, slots=True)
class BoardSettings:
    """How much history boards show: the last `last_n` results; roulette hot / cold numbers and
    chance counts over the last `window` spins, `hot_cold` numbers each; the labels' languages."""

    last_n: int = 20
    window: int = 100
    hot_cold: int = 5
    languages: tuple[str, ...] = ("en",)

    def __post_init__(self) -> None:
        if not (1 <= self.last_n <= 1000 and 1 <= self.window <= 10_000 and 1 <= self.hot_cold <= 37):
            raise ValueError(f"board settings out of range: {self}")


class History:
    """Common part: the round followed, reset, the table information and the board message."""

    game = ""
    reset_on = "new_session"

    def __init__(self, table_id: str, settings: BoardSettings = BoardSettings(),
                 table: p.TableInfo | None = None) -> None:
        self.table_id, self.settings, self.table = table_id, settings, table
        self.round: int | None = None
        self.round_id: str | None = None
        self.reset_reason: str | None = self.reset_on
        self.clear()

    def clear(self) -> None:
        raise NotImplementedError

    def board(self) -> p.AnyBoard:
        raise NotImplementedError

    def size(self) -> int:
        """How many results the history holds."""
        raise NotImplementedError

    def reset(self, reason: str | None = None) -> None:
        """Empty the history (a new session, or a new shoe at baccarat)."""
        self.clear()
        self.round = self.round_id = None
        self.reset_reason = reason or self.reset_on

    def message(self, utc: str) -> p.BoardMessage:
        """The retained `board` payload (its `seq` is filled in by the outbox)."""
        return p.BoardMessage(table=self.table_id, utc=utc, round=self.round, round_id=self.round_id,
                              reset=self.reset_reason, languages=list(self.settings.languages),
                              table_info=self.table, board=self.board())

    def _followed(self, round: int | None, round_id: str | None) -> None:
        self.round, self.round_id = round, round_id


class RouletteHistory(History):
    game = "roulette"
    wheel = "french"  # the table's wheel (004 IX.2, X.9): set from the config by keeper.history_for_config

    def clear(self) -> None:
        self.spins: list[Spin] = []

    def size(self) -> int:
        return len(self.spins)

    def add(self, spin: Spin, round: int | None = None, round_id: str | None = None) -> None:
        self.spins.append(spin)
        self._followed(round, round_id)

    def board(self) -> p.RouletteBoard:
        s = self.settings
        last = self.spins[-s.last_n:]
        window = [x.number for x in self.spins[-s.window:]]
        hot, cold = hot_and_cold(window, s.hot_cold)
        c = chance_counts(window)
        return p.RouletteBoard(
            spins=len(self.spins),
            last=[p.SpinView(x.number, colour_of(x.number), x.direction) for x in reversed(last)],
            last_n=s.last_n, window=s.window,
            hot=[p.NumberCountView(h.number, h.count) for h in hot],
            cold=[p.NumberCountView(h.number, h.count) for h in cold],
            counts=p.ChanceCountsView(c.spins, c.zero, c.red, c.black, c.odd, c.even, c.low, c.high,
                                      list(c.dozens), list(c.columns)),
            wheel=self.wheel, wheel_order=list(WHEELS[self.wheel]))


class ShoeHistory(History):
    """A card game's history: it follows the shoe (emptied at a new shoe), numbering the shoes of a session."""

    reset_on = "new_shoe"

    def __init__(self, table_id: str, settings: BoardSettings = BoardSettings(),
                 table: p.TableInfo | None = None, shoe: int = 1) -> None:
        self.shoe = shoe
        super().__init__(table_id, settings, table)

    def reset(self, reason: str | None = None) -> None:
        """A new shoe (the next shoe number) or a new session (shoe 1 again)."""
        self.shoe = 1 if reason == "new_session" else self.shoe + 1
        super().reset(reason)


class BaccaratHistory(ShoeHistory):
    game = "baccarat"
    board_type: type[p.BaccaratBoard] = p.BaccaratBoard

    def clear(self) -> None:
        self.coups: list[Coup] = []
        self.last_coup = False

    def size(self) -> int:
        return len(self.coups)

    def add(self, coup: Coup, round: int | None = None, round_id: str | None = None,
            last_coup: bool = False) -> None:
        self.coups.append(coup)
        self.last_coup = self.last_coup or last_coup
        self._followed(round, round_id)

    def announce_last_coup(self) -> None:
        """The cut card came out: the coup being dealt is the shoe's last."""
        self.last_coup = True

    def board(self) -> p.BaccaratBoard:
        road = big_road(self.coups)
        lengths = column_lengths(road)
        derived = derived_roads(lengths)
        layout = {"big_road": dragon_tail_layout([len(col) for col in road])}
        for name in DERIVED_ROADS:
            layout[name] = dragon_tail_layout([len(col) for col in derived[name]])
        n = shoe_counts(self.coups)
        return self.board_type(
            shoe=self.shoe, last_coup=self.last_coup,
            counts=p.BaccaratCounts(n.coups, n.banker, n.player, n.tie, n.banker_pair, n.player_pair),
            bead_plate=[p.BeadView(c.winner, c.banker_pair, c.player_pair) for c in self.coups],
            big_road=[[p.BigRoadCellView(cell.winner, cell.ties, cell.banker_pair, cell.player_pair) for cell in col]
                      for col in road],
            big_eye_boy=derived["big_eye_boy"], small_road=derived["small_road"],
            cockroach_pig=derived["cockroach_pig"],
            layout={name: [[x, y] for x, y in cells] for name, cells in layout.items()},
            next=next_marks_for(road))


class ChemindeFerHistory(BaccaratHistory):
    """Chemin de fer's coups on the baccarat roads (004 §I: the bank "B", the punter "P", equal points "T")."""

    game = "chemin_de_fer"
    board_type = p.ChemindeFerBoard


@dataclass(frozen=True, slots=True)
class BlackjackCoup:
    dealer: tuple[str, ...]
    total: int
    bust: bool
    blackjack: bool
    boxes: int


class BlackjackHistory(ShoeHistory):
    """Blackjack: the dealer's hand of each coup this shoe (totals, busts, blackjacks)."""

    game = "blackjack"

    def clear(self) -> None:
        self.coups: list[BlackjackCoup] = []

    def size(self) -> int:
        return len(self.coups)

    def add(self, coup: BlackjackCoup, round: int | None = None, round_id: str | None = None) -> None:
        self.coups.append(coup)
        self._followed(round, round_id)

    def board(self) -> p.BlackjackBoard:
        cs = self.coups
        standing = [c.total for c in cs if not c.bust and not c.blackjack and 17 <= c.total <= 21]
        counts = p.BlackjackCounts(coups=len(cs), busts=sum(c.bust for c in cs),
                                   blackjacks=sum(c.blackjack for c in cs),
                                   totals={str(t): standing.count(t) for t in range(17, 22)})
        last = [p.BlackjackCoupView(list(c.dealer), c.total, c.bust, c.blackjack, c.boxes)
                for c in reversed(cs[-self.settings.last_n:])]
        return p.BlackjackBoard(shoe=self.shoe, last=last, last_n=self.settings.last_n, counts=counts)


class CrapsHistory(History):
    """Craps throws; the point and shooter are the rules core's state, passed in with each throw."""

    game = "craps"

    def clear(self) -> None:
        self.throws: list[CrapsThrow] = []
        self.point, self.shooter = 0, 1

    def size(self) -> int:
        return len(self.throws)

    def add(self, faces: tuple[int, ...], point_before: int, point_after: int, shooter_before: int,
            shooter_after: int, round: int | None = None, round_id: str | None = None) -> None:
        self.throws.append(craps_throw(faces, point_before, shooter_before))
        self.point, self.shooter = point_after, shooter_after
        self._followed(round, round_id)

    def new_shooter(self, shooter: int) -> None:
        """The dice passed without a seven-out (the shooter stopped: 2010 Art. 4.1)."""
        self.shooter = shooter

    def board(self) -> p.CrapsBoard:
        lengths = roll_lengths(self.throws)
        last = self.throws[-self.settings.last_n:]
        return p.CrapsBoard(
            throws=len(self.throws),
            last=[p.CrapsThrowView(list(t.faces), t.total, t.point, t.outcome, t.shooter) for t in reversed(last)],
            last_n=self.settings.last_n, point=self.point or None, shooter=self.shooter,
            hot_roll=lengths.get(self.shooter, 0), longest_roll=max(lengths.values(), default=0))


class ThreeDiceHistory(History):
    """Cussec or banca francesa results."""

    def __init__(self, game: str, table_id: str, settings: BoardSettings = BoardSettings(),
                 table: p.TableInfo | None = None) -> None:
        if game not in ("cussec", "banca_francesa"):
            raise ValueError(f"three-dice boards are for cussec and banca_francesa, not {game!r}")
        self.game = game
        self._describe = cussec_result if game == "cussec" else banca_result
        super().__init__(table_id, settings, table)

    def clear(self) -> None:
        self.results: list[ThreeDiceResult] = []

    def size(self) -> int:
        return len(self.results)

    def add(self, faces: tuple[int, ...], round: int | None = None, round_id: str | None = None) -> None:
        self.results.append(self._describe(faces))
        self._followed(round, round_id)

    def board(self) -> p.CussecBoard | p.BancaFrancesaBoard:
        rs = self.results
        counts = p.ThreeDiceCounts(
            results=len(rs), small=sum(r.chance == "small" for r in rs), big=sum(r.chance == "big" for r in rs),
            aces=sum(r.chance == "aces" for r in rs), triples=sum(r.triple for r in rs),
            no_decision=sum(r.chance is None for r in rs))
        last = [p.ThreeDiceView(list(r.faces), r.total, r.chance, r.triple) for r in reversed(rs[-self.settings.last_n:])]
        cls = p.CussecBoard if self.game == "cussec" else p.BancaFrancesaBoard
        return cls(results=len(rs), last=last, last_n=self.settings.last_n,
                   counts=counts)


class PaiKaoHistory(History):
    game = "paikao"

    def clear(self) -> None:
        self.rounds: list[PaiKaoRound] = []

    def size(self) -> int:
        return len(self.rounds)

    def add(self, faces: tuple[int, ...], round: int | None = None, round_id: str | None = None,
            winning_seats: tuple[int, ...] = ()) -> None:
        self.rounds.append(paikao_round(faces, winning_seats))
        self._followed(round, round_id)

    def board(self) -> p.PaiKaoBoard:
        seats = [0] * SEATS
        for r in self.rounds:
            seats[r.first_seat] += 1
        last = [p.PaiKaoView(list(r.faces), r.total, r.first_seat, list(r.winning_seats))
                for r in reversed(self.rounds[-self.settings.last_n:])]
        return p.PaiKaoBoard(rounds=len(self.rounds), last=last,
                             last_n=self.settings.last_n, seat_counts=seats)
