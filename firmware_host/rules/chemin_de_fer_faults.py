"""Chemin de fer faults (Portugal 1995 I.75, I.104-106): what each one fixes, applied to a coup.

The console declares a fault with the cards it brought out of the shoe; the text fixes the outcome:
the points a hand counts, who gets a card, whether the coup stands. Each fault is checked against
the moment it can happen (a banker cannot draw two third cards before the deal is over) and recorded
with its article and remedy. Faults not here need nothing from the rules core: I.104 a (the banker
must deal the coup), l (no claim once the coup is paid), m (cards dropped keep their value), n (a card
against the dealer's call is burned: the `DecisionNeeded` misdeal), I.105 d (the first announcement on
5 counts: `decide`), I.106 a and d (the shoe: a card out face up is burned; the last coup needs six
cards behind the warning card).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from itertools import combinations

from .baccarat_tableau import points
from .cards import Card
from .misdeal import DecisionRefused

ARTICLE = "Portugal 1995 "


class Fault(enum.StrEnum):
    """The faults whose outcome the text fixes; the value is the code the console and settle files use."""

    PLAYER_CARDS_TURNED = "player_cards_turned"  # I.104 b
    STUCK_CARDS = "stuck_cards"  # I.104 c
    BANKER_EXTRA_CARD = "banker_extra_card"  # I.104 d
    BANKER_TWO_CARDS = "banker_two_cards"  # I.104 e
    FIFTH_CARD = "fifth_card"  # I.104 f
    PLAYER_EXTRA_CARD = "player_extra_card"  # I.104 g
    PLAYER_FOURTH_CARD = "player_fourth_card"  # I.104 h
    PLAYER_CARDS_DROPPED = "player_cards_dropped"  # I.104 i
    PLAYER_CARD_DISCARDED = "player_card_discarded"  # I.104 j
    NOT_SHOWN = "not_shown"  # I.105 a (and b)
    ANNOUNCEMENT_CHANGED = "announcement_changed"  # I.105 c
    SLOW_TO_ANNOUNCE = "slow_to_announce"  # I.105 e
    DEALER_CALLED_CARD = "dealer_called_card"  # I.106 b
    DEALER_SLIP = "dealer_slip"  # I.106 c
    BANKER_DISCARDED_CARDS = "banker_discarded_cards"  # I.75
    PLAYER_DISCARDED_CARDS = "player_discarded_cards"  # I.75
    DEALER_DISCARDED_CARDS = "dealer_discarded_cards"  # I.75


class FaultRemedy(enum.StrEnum):
    """What the text does about a fault."""

    BY_THE_TABLE = "by_the_table"  # the banker plays by the table, drawing on his optional cells
    FIXED_POINTS = "fixed_points"  # the text fixes a hand's points
    CARD_ASSIGNED = "card_assigned"  # the text says whose the card is
    RECONSTITUTED = "reconstituted"  # the coup is rebuilt as it should have been dealt
    BANKER_DECIDES = "banker_decides"  # the banker gives the player's card or refuses it
    LOSES_COUP = "loses_coup"
    VOID_COUP = "void_coup"
    RECORDED = "recorded"  # no effect on the hands (the cards change holder)


ARTICLES = {
    Fault.PLAYER_CARDS_TURNED: "I.104 b", Fault.STUCK_CARDS: "I.104 c", Fault.BANKER_EXTRA_CARD: "I.104 d",
    Fault.BANKER_TWO_CARDS: "I.104 e", Fault.FIFTH_CARD: "I.104 f", Fault.PLAYER_EXTRA_CARD: "I.104 g",
    Fault.PLAYER_FOURTH_CARD: "I.104 h", Fault.PLAYER_CARDS_DROPPED: "I.104 i", Fault.PLAYER_CARD_DISCARDED: "I.104 j",
    Fault.NOT_SHOWN: "I.105 a-b", Fault.ANNOUNCEMENT_CHANGED: "I.105 c", Fault.SLOW_TO_ANNOUNCE: "I.105 e",
    Fault.DEALER_CALLED_CARD: "I.106 b", Fault.DEALER_SLIP: "I.106 c", Fault.BANKER_DISCARDED_CARDS: "I.75",
    Fault.PLAYER_DISCARDED_CARDS: "I.75", Fault.DEALER_DISCARDED_CARDS: "I.75",
}
CARDS = {Fault.STUCK_CARDS: 2, Fault.BANKER_EXTRA_CARD: 1, Fault.BANKER_TWO_CARDS: 2, Fault.FIFTH_CARD: 1,
         Fault.PLAYER_EXTRA_CARD: 1, Fault.PLAYER_FOURTH_CARD: 1, Fault.PLAYER_CARD_DISCARDED: 1}


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A fault as declared and what was done about it."""

    fault: Fault
    article: str
    remedy: FaultRemedy
    message: str
    cards: tuple[Card, ...] = ()

    def view(self) -> dict:
        out = {"fault": self.fault.value, "article": self.article, "remedy": self.remedy.value, "message": self.message}
        if self.cards:
            out["cards"] = [str(c) for c in self.cards]
        return out


def best_points(cards: list[Card], sizes: tuple[int, ...], *, lowest: bool = False) -> tuple[int, tuple[int, ...]]:
    """The highest (or lowest) points any `sizes` of `cards` make, and the positions of those cards."""
    options = [(points([cards[i] for i in group]), group) for n in sizes for group in combinations(range(len(cards)), n)]
    return (min if lowest else max)(options, key=lambda option: option[0])


def apply_fault(coup, fault: Fault | str, cards: list[Card], reconstitute: bool, holder: str | None) -> None:
    """Check that `fault` can happen now and apply what its article fixes to `coup` (a ChemindeFerCoup)."""
    try:
        fault = Fault(fault)
    except ValueError:
        raise DecisionRefused(f"unknown fault {fault!r}: one of {', '.join(f.value for f in Fault)}") from None
    article = ARTICLE + ARTICLES[fault]
    wanted = CARDS.get(fault, 0)
    if fault in (Fault.STUCK_CARDS, Fault.DEALER_CALLED_CARD):
        wanted = len(cards) if 1 <= len(cards) <= 2 and fault is Fault.DEALER_CALLED_CARD else 2
    if len(cards) != wanted:
        raise DecisionRefused(f"{fault.value} ({article}) brings {wanted} card(s) out of the shoe, got {len(cards)}")
    when = _MOMENT[fault](coup)
    if when:
        raise DecisionRefused(f"{fault.value} ({article}) cannot happen now: {when}")
    for card in cards:
        coup.take(card)
    remedy, message = _APPLY[fault](coup, cards, reconstitute, holder)
    coup.faults.append(FaultRecord(fault, article, remedy, message, tuple(cards)))


# --- when each fault can happen: "" when it can, else why not ----------------------------------------------

def _during_deal(coup) -> str:
    return "" if not coup.dealt else "the deal is over"


def _after_deal(coup) -> str:
    if not coup.dealt:
        return "the deal is not over"
    return "" if not coup.player_third and not coup.banker_third else "a third card is already out"


def _player_card_due(coup) -> str:
    due = coup.due()
    return "" if coup.dealt and due.to == "player" else f"no third card is being drawn for the player (next: {due.view()})"


def _banker_card_due(coup) -> str:
    due = coup.due()
    return "" if coup.dealt and due.to == "banker" else f"the banker is not drawing his third card (next: {due.view()})"


def _before_announcement(coup) -> str:
    if not coup.dealt or coup.player_third or coup.banker_third or coup.player_fixed is not None:
        return "the deal is not over, or a third card is already out"
    return "" if coup.fifth_card is None else "a fifth card is already out"


def _player_announcing(coup) -> str:
    if not coup.dealt or coup.player_third or coup.player_fixed is not None or coup.player_shows():
        return "the player is not announcing 'carta' or 'não'"
    return ""


def _player_holds_natural(coup) -> str:
    if not coup.dealt or coup.player_third or coup.player_natural_lost or coup.player_fixed is not None:
        return "the player's first two cards are not on the table unplayed"
    return "" if points(coup.player[:2]) >= 8 else f"the player has {points(coup.player[:2])}, not 8 or 9 to show"


def _player_drew(coup) -> str:
    return "" if coup.player_third and not coup.banker_third else "the player has not drawn (or the banker has)"


def _player_stood(coup) -> str:
    if not coup.dealt or coup.player_third or coup.banker_third:
        return "no card is out after the player's announcement"
    return "" if coup.player_draws() is False else "the player did not say 'não'"


def _any_time(coup) -> str:
    return ""


def _before_complete(coup) -> str:
    return "the coup is complete" if coup.is_complete else ""


def _in_the_deal(coup) -> str:
    return "" if not coup.player_third and not coup.banker_third else "the deal is over and a third card is out"


# --- what each fault fixes: (remedy, message) ---------------------------------------------------------------

def _turned(coup, cards, reconstitute, holder):
    coup.banker_by_table = True
    return FaultRemedy.BY_THE_TABLE, "the banker turned the player's cards: he plays by the table, drawing on his optional cells"


def _stuck(coup, cards, reconstitute, holder):
    if not reconstitute:
        coup.burned.extend(cards)
        coup.void("two cards came out stuck together on the player's draw", ARTICLE + "I.104 c")
        return FaultRemedy.VOID_COUP, "two cards stuck together on the player's draw: the coup is void, the cards burned"
    coup.player.append(cards[0])
    coup.player_third = True
    coup.held.append(cards[1])  # the banker's if he draws, else burned
    return FaultRemedy.RECONSTITUTED, (f"reconstituted: {cards[0]} is the player's third card, {cards[1]} the banker's "
                                       f"if he draws, else burned")


def _banker_extra(coup, cards, reconstitute, holder):
    coup.banker.append(cards[0])
    coup.banker_counts_from = len(coup.banker)
    return FaultRemedy.FIXED_POINTS, ("the banker has three cards after the deal: they count baccarat, and he takes a "
                                      "card even if the player showed")


def _banker_two(coup, cards, reconstitute, holder):
    four = coup.banker + cards
    points_, kept = best_points(four, (3,), lowest=True)
    excluded = next(card for i, card in enumerate(four) if i not in kept)
    coup.banker[:] = [four[i] for i in kept]
    coup.banker_third = True
    coup.burned.append(excluded)
    return FaultRemedy.FIXED_POINTS, (f"the banker drew two cards for himself: the lowest three of four count "
                                      f"({points_}), {excluded} burned")


def _fifth(coup, cards, reconstitute, holder):
    coup.fifth_card = cards[0]
    return FaultRemedy.CARD_ASSIGNED, (f"{cards[0]}: the player's if he asks for a card; if he says 'não', the banker's, "
                                       f"who loses his right to show")


def _player_extra(coup, cards, reconstitute, holder):
    coup.player.append(cards[0])
    coup.player_fixed, _ = best_points(coup.player, (2, 3))
    coup.banker_right_to_draw = True
    return FaultRemedy.FIXED_POINTS, (f"the player has three cards after the deal: the best of two or three counts "
                                      f"({coup.player_fixed}); the banker keeps his draw unless he has 7 or 8")


def _player_fourth(coup, cards, reconstitute, holder):
    coup.player.append(cards[0])
    coup.player_fixed, _ = best_points(coup.player, (3,))
    return FaultRemedy.FIXED_POINTS, f"the player has four cards: the best three count ({coup.player_fixed})"


def _dropped(coup, cards, reconstitute, holder):
    coup.player_fixed, coup.player_shows_nine = 9, True
    return FaultRemedy.FIXED_POINTS, ("the banker dropped the player's cards in the deal: the player shows 9; "
                                      "the banker ties only with a regular 9")


def _discarded(coup, cards, reconstitute, holder):
    coup.discarded.append(cards[0])
    coup.player_fixed, coup.player_third, coup.banker_right_to_draw = 9, True, True
    return FaultRemedy.FIXED_POINTS, ("the player's card went to the discard: the player counts 9; the banker "
                                      "keeps his draw, except on 7")


def _not_shown(coup, cards, reconstitute, holder):
    coup.player_natural_lost = True
    return FaultRemedy.BANKER_DECIDES, ("the player did not show in time: he loses that right; if he asks for a card, "
                                        "the banker gives it or not; a 9 not shown loses to the banker's 8 (I.105 b)")


def _changed(coup, cards, reconstitute, holder):
    coup.announcement_changed = True
    return FaultRemedy.BANKER_DECIDES, "the player said 'carta' and 'não': the banker gives or refuses the card"


def _slow(coup, cards, reconstitute, holder):
    coup.holder = holder
    return FaultRemedy.RECORDED, f"the cards pass to the punter with the next highest stake ({holder or 'unnamed'})"


def _dealer_called(coup, cards, reconstitute, holder):
    b = coup.banker_points()
    if b <= 5:  # "bacará, 1, 2, 3, 4 ou 5": the first card is his, a second is burned
        coup.banker.append(cards[0])
        coup.burned.extend(cards[1:])
        coup.banker_third = True
        return FaultRemedy.RECONSTITUTED, f"reconstituted by the table: {cards[0]} is the banker's third card"
    coup.burned.extend(cards)
    coup.banker_third = True
    return FaultRemedy.RECONSTITUTED, f"reconstituted by the table: the banker has {b} and stands; the card(s) burned"


def _slip(coup, cards, reconstitute, holder):
    coup.void("the dealer's slip passing the cards cannot be reconstituted", ARTICLE + "I.106 c")
    return FaultRemedy.VOID_COUP, "a dealing slip that cannot be reconstituted: the coup is void"


def _loser(side: str):
    def apply(coup, cards, reconstitute, holder):
        coup.forced_winner = "player" if side == "banker" else "banker"
        return FaultRemedy.LOSES_COUP, f"the {side} put cards in the discard: he loses the coup"
    return apply


def _dealer_discarded(coup, cards, reconstitute, holder):
    coup.void("the dealer put cards in the discard before the points were shown", ARTICLE + "I.75")
    return FaultRemedy.VOID_COUP, "the dealer discarded cards before the points were shown: the coup is void"


_MOMENT = {
    Fault.PLAYER_CARDS_TURNED: _during_deal, Fault.STUCK_CARDS: _player_card_due, Fault.BANKER_EXTRA_CARD: _after_deal,
    Fault.BANKER_TWO_CARDS: _banker_card_due, Fault.FIFTH_CARD: _before_announcement,
    Fault.PLAYER_EXTRA_CARD: _after_deal, Fault.PLAYER_FOURTH_CARD: _player_drew,
    Fault.PLAYER_CARDS_DROPPED: _in_the_deal, Fault.PLAYER_CARD_DISCARDED: _player_card_due,
    Fault.NOT_SHOWN: _player_holds_natural, Fault.ANNOUNCEMENT_CHANGED: _player_announcing,
    Fault.SLOW_TO_ANNOUNCE: _before_complete, Fault.DEALER_CALLED_CARD: _player_stood, Fault.DEALER_SLIP: _before_complete,
    Fault.BANKER_DISCARDED_CARDS: _any_time, Fault.PLAYER_DISCARDED_CARDS: _any_time,
    Fault.DEALER_DISCARDED_CARDS: _before_complete,
}
_APPLY = {
    Fault.PLAYER_CARDS_TURNED: _turned, Fault.STUCK_CARDS: _stuck, Fault.BANKER_EXTRA_CARD: _banker_extra,
    Fault.BANKER_TWO_CARDS: _banker_two, Fault.FIFTH_CARD: _fifth, Fault.PLAYER_EXTRA_CARD: _player_extra,
    Fault.PLAYER_FOURTH_CARD: _player_fourth, Fault.PLAYER_CARDS_DROPPED: _dropped,
    Fault.PLAYER_CARD_DISCARDED: _discarded, Fault.NOT_SHOWN: _not_shown, Fault.ANNOUNCEMENT_CHANGED: _changed,
    Fault.SLOW_TO_ANNOUNCE: _slow, Fault.DEALER_CALLED_CARD: _dealer_called, Fault.DEALER_SLIP: _slip,
    Fault.BANKER_DISCARDED_CARDS: _loser("banker"), Fault.PLAYER_DISCARDED_CARDS: _loser("player"),
    Fault.DEALER_DISCARDED_CARDS: _dealer_discarded,
}
