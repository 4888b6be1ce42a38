"""A chemin de fer coup (Portugal 1995 chapter I): the deal, the announcements, the draws, a banco's
false draws and the faults whose outcome the text fixes.

Two cards each, player first, alternately (I.62). The player shows 8-9, stands on 6-7, draws under 5
and chooses on 5 (I.64); the banker shows 8-9, stands on 7, draws on 0-2 and follows the table on 3-6,
with two optional cells (I.67). In a banco — one punter against the whole bank (I.45) — both may make
false draws, draw or stand against the table, except the banker on baccarat (I.70): every draw of a
non-natural hand is then a console decision. Optional draws are console decisions; every other draw
is forced. The faults of I.75 and I.104-106 are declared by the console (`fault`), each applying what
its article fixes (chemin_de_fer_faults.py).
"""

from __future__ import annotations

from .baccarat_tableau import Cell, banker_cell, is_natural, player_cell, points
from .cards import Card, baccarat_value, parse_card
from .misdeal import COMPLETE, CardNotDue, CoupNotFinished, DecisionRefused, Due, Misdeal, Remedy, WrongOrder
from .punto_banco_deal import BaccaratResult
from .shoe import Shoe, ShoeCoup, chemin_de_fer_shoe

PLACES = ("player", "banker")


class ChemindeFerCoup(ShoeCoup):
    """One chemin de fer coup. `banco`: one punter against the whole bank, false draws allowed (I.70);
    `banker_by_table`: the banker draws on his optional cells (I.102, I.104 b)."""

    article = "Portugal 1995 I.106 c"
    decision_article = "Portugal 1995 I.104 n"  # a card drawn against the announced play is burned

    def __init__(self, shoe: Shoe | None = None, *, banker_by_table: bool = False, banco: bool = False) -> None:
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.banco = banco
        self.banker_by_table = banker_by_table
        self.player_announce: bool | None = None  # the player's "carta" (True) or "não" (I.65)
        self.player_given: bool | None = None  # the banker gives or refuses the card (I.105 a, c)
        self.banker_draws: bool | None = None  # the banker's own choice where he has one
        self.player_third = False  # the player took his third card
        self.banker_third = False  # the banker took his third card (or the fifth card was forced on him)
        # What the faults fix (chemin_de_fer_faults.py):
        self.player_fixed: int | None = None  # the player's points fixed by the text (I.104 g, h, i, j)
        self.player_shows_nine = False  # I.104 i: deemed to have shown 9
        self.player_natural_lost = False  # I.105 a: did not show in time
        self.announcement_changed = False  # I.105 c: the banker decides whether the player draws
        self.banker_counts_from = 0  # I.104 d: the cards before this one count baccarat
        self.banker_natural_lost = False  # I.104 f: the fifth card was forced on him
        self.banker_right_to_draw = False  # I.104 g, j: he keeps the right to draw (a decision)
        self.fifth_card: Card | None = None  # I.104 f, out of the shoe until the player announces
        self.forced_winner: str | None = None  # I.75, I.105 b
        self.holder: str | None = None  # I.105 e: the punter now holding the cards
        self.faults: list = []  # FaultRecord, in the order declared
        super().__init__(shoe if shoe is not None else Shoe(chemin_de_fer_shoe(), burns=False))

    # --- points ---------------------------------------------------------------------------------
    @property
    def dealt(self) -> bool:
        return len(self.player) >= 2 and len(self.banker) >= 2

    def player_points(self) -> int:
        return points(self.player) if self.player_fixed is None else self.player_fixed

    def banker_points(self) -> int:
        return points(self.banker[self.banker_counts_from:])

    def player_shows(self) -> bool:
        """The player shows ("abate") 8 or 9 on his first two cards (I.64 a), or is deemed to (I.104 i)."""
        return self.player_shows_nine or (self.player_fixed is None and not self.player_natural_lost
                                          and is_natural(points(self.player[:2])))

    def banker_shows(self) -> bool:
        """The banker shows 8 or 9 on his first two cards (I.67 a), unless a fault took that right."""
        return (self.banker_counts_from == 0 and not self.banker_natural_lost
                and is_natural(points(self.banker[:2])))

    # --- the player's part ------------------------------------------------------------------------
    def _player_announcement(self) -> bool | None:
        """The player's "carta" or "não": forced by I.64 except on 5, and free in a banco (I.70) or
        after he failed to show his 8 or 9 in time (I.105 a); None while it is not made."""
        if self.player_announce is not None or self.banco or self.player_natural_lost:
            return self.player_announce
        cell = player_cell(points(self.player[:2]))
        return {Cell.DRAW: True, Cell.STAND: False}.get(cell)

    def player_draws(self) -> bool | None:
        """Whether the player gets a third card; None while a decision is due."""
        if self.announcement_changed:
            return self.player_given  # I.105 c: the banker gives or refuses it
        announce = self._player_announcement()
        if announce and self.player_natural_lost:
            return self.player_given  # I.105 a: asking after not showing, he is at the banker's disposal
        return announce

    # --- the banker's part -------------------------------------------------------------------------
    def _banker_choice(self) -> bool | None:
        if self.banker_counts_from:
            return True  # I.104 d: his cards count baccarat; he draws one card, even against a natural
        b = self.banker_points()
        if self.banker_right_to_draw:  # I.104 g, j: a right to draw, except where the text stops him
            if b >= 7:
                return False
            return True if self.banker_by_table and b <= 5 else self.banker_draws
        if self.banco and not self.banker_by_table:
            return True if b == 0 else self.banker_draws  # I.70: no false draw on baccarat
        third = baccarat_value(self.player[2]) if self.player_third else None
        cell = banker_cell(b, third)
        if cell is Cell.OPTIONAL:
            return True if self.banker_by_table else self.banker_draws
        return cell is Cell.DRAW

    # --- what comes next -----------------------------------------------------------------------------
    def _due_card(self) -> Due:
        p, b = self.player, self.banker
        if self.forced_winner is not None:
            return COMPLETE
        if not self.dealt:
            side = "player" if len(p) <= len(b) else "banker"
            return Due(to=side, why="one card to the player, one to the banker, twice (I.62)")
        if self.player_shows_nine:
            return COMPLETE  # I.104 i: the banker compares his regular cards
        if self.player_fixed is None and not self.player_third:
            if self.player_shows():
                if not self.banker_counts_from or self.banker_third:
                    return COMPLETE  # the player shows (I.64 a); the banker only turns his cards (I.67)
            else:
                draws = self.player_draws()
                if draws is None:
                    return self._player_decision()
                if self.banker_shows():
                    return COMPLETE  # the banker shows 8 or 9 before any third card (I.67 a)
                if draws:
                    return Due(to="player", why=f"the player has {points(p[:2])} and draws (I.64)")
        elif self.player_fixed is None and self.banker_shows():
            return COMPLETE
        if self.banker_third:
            return COMPLETE
        banker = self._banker_choice()
        if banker is None:
            why = ("a banco: the banker draws or stands at his will, except on baccarat (I.70)" if self.banco
                   else "the banker keeps his right to draw (I.104 g, j)" if self.banker_right_to_draw
                   else "optional cell of the banker's table (I.67 d)")
            return Due(decision="banker", why=why)
        if banker:
            return Due(to="banker", why=f"the banker has {self.banker_points()} and draws (I.67)")
        return COMPLETE

    def _player_decision(self) -> Due:
        if self.announcement_changed or (self.player_natural_lost and self.player_announce):
            return Due(decision="banker_for_player",
                       why="the banker gives the player his card or refuses it (I.105 a, c): 'draw' gives it")
        why = ("a banco: the player draws or stands at his will (I.70)" if self.banco
               else "the player did not show in time: he asks for a card or not (I.105 a)" if self.player_natural_lost
               else "the player has 5: draw or not at his will (I.64 d)")
        return Due(decision="player", why=why)

    # --- events ------------------------------------------------------------------------------------------
    def decide(self, decision: str, who: str | None = None) -> Due:
        """The console's answer to a due decision: "draw" or "stand" (the first announcement counts,
        I.105 d); `who` "player", "banker" or "banker_for_player" (the banker giving the player's card)."""
        due = self.due()
        if due.decision is None:
            raise DecisionRefused(f"no decision is due now (next: {due.view()})")
        if who is not None and who != due.decision:
            raise DecisionRefused(f"the {due.decision}'s decision is due, not the {who}'s")
        if decision not in ("draw", "stand"):
            raise DecisionRefused(f"a decision is 'draw' or 'stand', not {decision!r}")
        attribute = {"player": "player_announce", "banker": "banker_draws", "banker_for_player": "player_given"}
        setattr(self, attribute[due.decision], decision == "draw")
        return self._after_card()

    def fault(self, fault, *, cards: tuple = (), reconstitute: bool = False, holder: str | None = None) -> Due:
        """A fault of I.75, I.104-106 declared by the console, with the cards it brought out of the shoe;
        what the article fixes is applied and recorded in `faults` (see chemin_de_fer_faults.py)."""
        from .chemin_de_fer_faults import apply_fault

        if self.is_void:
            raise DecisionRefused("the coup is void: no fault can be declared")
        if self._closed:
            self._reopen()  # a fault found once the cards are out (a 9 not shown, a third banker card) reopens it
        try:
            apply_fault(self, fault, [parse_card(c, article=self.article) for c in cards], reconstitute, holder)
        except Exception:
            self._after_card()
            raise
        return self._after_card()

    def take(self, card: Card) -> Card:
        """A card a fault brought out of the shoe (its composition is checked)."""
        self.shoe.take(card, self.article)
        return card

    def _after_card(self) -> Due:
        if self.fifth_card is not None and self.dealt and not self.is_void:
            self._place_fifth_card()
        return super()._after_card()

    def _place_fifth_card(self) -> None:
        """I.104 f: the fifth card is the player's if he asks for a card; if he says "não" (or shows) it
        is the banker's, who loses his right to show. The banker showing first, no card is given: burned."""
        draws = None if self.player_shows() else self.player_draws()
        if draws is None and not self.player_shows():
            return
        card, self.fifth_card = self.fifth_card, None
        if draws and self.banker_shows():
            self.burned.append(card)
        elif draws:
            self.player.append(card)
            self.player_third = True
        else:
            self.banker.append(card)
            self.banker_third = self.banker_natural_lost = True

    def _accept(self, card: Card, to: str) -> None:
        dealt = self.dealt
        (self.player if to == "player" else self.banker).append(card)
        if dealt:
            setattr(self, "player_third" if to == "player" else "banker_third", True)

    def _misplaced(self, card: Card, to: str, due: Due, face_up: bool) -> Misdeal:
        if to in PLACES and not self.dealt:
            return WrongOrder(f"{card} to the {to} out of turn: the card is due to the {due.to}",
                              Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)
        return CardNotDue(f"{card} to {to!r}, which gets no card now: the card is due to the {due.to}",
                          Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)

    # --- the result ------------------------------------------------------------------------------------------
    def result(self) -> BaccaratResult:
        if self.is_void or not self.is_complete:
            raise CoupNotFinished("the coup is " + ("void" if self.is_void else "not complete") + ": it has no result")
        p, b = self.player_points(), self.banker_points()
        winner = self.forced_winner or ("banker" if b > p else "player" if p > b else "tie")
        if self.player_natural_lost and points(self.player[:2]) == 9 and self.banker_shows() and b == 8:
            winner = "banker"  # I.105 b: a 9 not shown loses to the banker's 8
        pair = (lambda cards: len(cards) >= 2 and cards[0].rank == cards[1].rank)
        return BaccaratResult(tuple(self.player), tuple(self.banker), p, b, winner,
                              self.player_shows() or self.banker_shows(), pair(self.player), pair(self.banker))

    def view(self) -> dict:
        """The finished coup for the boards and the journal, with the faults declared."""
        out = self.result().view()
        if self.banco:
            out["banco"] = True
        if self.faults:
            out["faults"] = [record.view() for record in self.faults]
        return out
