"""What each game puts in `result.outcome` and `state.game_state` (docs/mqtt.md), as msgspec structs.

The payloads carry these as JSON objects that depend on the game; the round families build them. These
structs are their schema: docs/schema/mqtt/result.json and state.json apply them per `game` (and a
void result's `outcome` is `VoidOutcome`), and tests/schema checks live payloads of every game
against them, so the wire, the schema and the document cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

Card = Annotated[str, Meta(pattern=r"^(A|[2-9]|10|J|Q|K)[CDHS]$",
                           description='rank A, 2-10, J, Q, K then suit C, D, H, S: "10H", "AS"')]
Colour = Literal["red", "black", "green"]
Direction = Literal["cw", "ccw"]


class CrapsOutcome(Struct, forbid_unknown_fields=True):
    """A craps throw: the point before and after it (null: come-out) and the shooter before and after."""

    point_before: int | None
    point_after: int | None
    shooter: int
    shooter_after: int


class BancaFrancesaOutcome(Struct, forbid_unknown_fields=True):
    """What the total decides (004 §IV.9): null for the totals that decide nothing (the bets stay)."""

    chance: Literal["aces", "small", "big"] | None


class CussecOutcome(Struct, forbid_unknown_fields=True):
    """Cussec's result is its faces and total alone: the outcome is empty."""


class RouletteOutcome(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The winning number (X.17) with its colour and the ball's direction; dozen, column, even and low
    are absent for 0."""

    number: int
    colour: Colour
    direction: Direction | None
    dozen: int | None = None
    column: int | None = None
    even: bool | None = None
    low: bool | None = None


class PuntoBancoOutcome(Struct, forbid_unknown_fields=True):
    """A punto banco coup: the hands' points, the winner, a natural, and the pairs of the first two cards."""

    player_points: int
    banker_points: int
    winner: Literal["player", "banker", "tie"]
    natural: bool
    player_pair: bool
    banker_pair: bool


class Hands(Struct, forbid_unknown_fields=True):
    """A punto banco coup's cards (`result.cards`), each hand in the order dealt."""

    player: list[Card]
    banker: list[Card]


class VoidOutcome(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A void attempt's outcome: what the reading saw, when there is something to say."""

    detail: str | None = None  # dice: the camera's reason in words (which die, where, the article)
    declined: str | None = None  # dice `uncertain`: why the die `detail` names was not read (docs/vision.md)
    message: str | None = None  # dice: why the faces read cannot be a throw (wrong_count)
    ball_back_on: int | None = None  # roulette no-spin: the previous number stands on the wheel (X.16)
    timeout_s: float | None = None  # no reading came within [table] reading_timeout_s
    interrupted_phase: str | None = None  # the controller restarted in this phase (service_restart)


class CrapsState(Struct, forbid_unknown_fields=True):
    """The point (null: the next throw is a come-out) and the shooter, numbered from 1 in the session."""

    point: int | None
    shooter: int


class NoState(Struct, forbid_unknown_fields=True):
    """Cussec and banca francesa carry nothing from one round to the next: empty."""


class RouletteState(Struct, forbid_unknown_fields=True):
    """The wheel and the last spin (null before the first)."""

    wheel: Literal["french", "american_numbering"]
    last_number: int | None
    last_direction: Direction | None


class PuntoBancoState(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The shoe (numbered from 1), the cards left in it, and while dealing what the coup waits for."""

    shoe: int
    cards_left: int
    due: dict[str, Any] | None = None  # {"complete", "to" (burn, player, banker), "decision", "why"}


# The games `tablehw run` plays, by the name payloads carry in `game`.
OUTCOMES: dict[str, type] = {"craps": CrapsOutcome, "banca_francesa": BancaFrancesaOutcome, "cussec": CussecOutcome,
                             "roulette": RouletteOutcome, "punto_banco": PuntoBancoOutcome}
GAME_STATES: dict[str, type] = {"craps": CrapsState, "banca_francesa": NoState, "cussec": NoState,
                                "roulette": RouletteState, "punto_banco": PuntoBancoState}
