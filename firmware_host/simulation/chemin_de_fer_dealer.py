"""The simulated chemin de fer dealer (004 §I): the bank, bancos, the draws and the faults.

Before the punters bet he announces a bank when none is held (I.39: a player as its holder, the bank
minimum or a few times it), and now and then, after a won coup, the holder passes it (I.77) or, after
its third win, sets half aside (garage, I.34). Some rounds one punter covers the whole bank: the dealer
declares the banco (I.45), or the bancô suivi when it is the punter who lost the last one (I.51). He
answers the player's 5, the banker's optional cells and a banco's false draws (I.64, I.67, I.70), and
now and then makes a fault whose outcome the text fixes (I.104 b, i; I.105 a, c, e; I.106 c), which he
declares and the supervisor applies. He follows the bank from what his own coups did; after a
restart he knows nothing of it and announces a bank, which the table refuses if one is held.
"""

from __future__ import annotations

import copy

from ..rounds.inputs import ConsoleCommand
from ..rules.chemin_de_fer import ChemindeFerCoup
from ..rules.errors import RulesError
from .card_dealers import DEALER, SimulatedCardDealer

FAULTS = ("player_cards_turned", "player_cards_dropped", "not_shown", "announcement_changed", "slow_to_announce",
          "dealer_slip")
BANCO_ROUNDS = 0.25  # the share of rounds in which one punter covers the whole bank


class SimulatedChemindeFerDealer(SimulatedCardDealer):
    devices = ("console", "shoe")
    players: list[str] = []  # the owners the terminals bet for: the bank's holders (set by the wiring)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.bank_held: bool | None = None  # None: not known (after a restart)
        self.bank_wins = 0
        self.last_winner: str | None = None
        self.banco_round = 0  # the round in which the terminals go banco
        self.banco_coup = False  # the dealer declared a banco for the coup he deals next
        self.suivi: str | None = None  # the punter who lost the last banco (I.51)

    # --- betting: the bank, a banco ----------------------------------------------------------------------
    def place_bets(self, round_no: int, done) -> None:
        self.banco_coup = False
        if self.plan_bank() or self.terminals is None or self.rng.random() >= BANCO_ROUNDS:
            super().place_bets(round_no, done)
            return
        self.banco_round = round_no
        follow_up = self.suivi if self.suivi and self.rng.random() < 0.7 else None
        self.terminals.place_banco(round_no, done, owner=follow_up)

    def plan_bank(self) -> bool:
        """Announce, pass or set aside the bank before the punters bet; True when the bank changed."""
        won = self.last_winner == "banker"
        if self.bank_held is not True:
            self.announce_bank()
        elif won and self.rng.random() < 0.1:
            self.sink(ConsoleCommand("pass_bank", who=DEALER, source="sim", why="passo a mão (I.77)"))
            self.announce_bank()
        elif won and self.bank_wins >= 3 and self.bank_wins % 2 and self.rng.random() < 0.5:
            self.sink(ConsoleCommand("garage", who=DEALER, source="sim", why="half the bank aside (I.34)"))
        else:
            return False
        return True

    def announce_bank(self) -> None:
        holder = self.rng.choice(self.players) if self.players else "banker"
        capital = self.rules.bank_minimum * self.rng.choice((1, 1, 2, 3))
        self.sink(ConsoleCommand("bank", who=DEALER, source="sim", play={"holder": holder, "amount": capital}))
        self.bank_held, self.bank_wins, self.last_winner = True, 0, None

    def close_betting(self, round_no: int) -> None:
        owner = self.terminals.banco_answer(round_no) if self.terminals and self.banco_round == round_no else None
        if owner is not None:
            kind = "suivi" if owner == self.suivi else "banco"
            self.sink(ConsoleCommand(kind, who=DEALER, source="sim"))
            self.banco_coup = True
        super().close_betting(round_no)

    # --- the coup -------------------------------------------------------------------------------------------
    def opening(self) -> dict:
        return {"banco": self.banco_coup}

    def model_coup(self, opened: dict):
        return ChemindeFerCoup(self.model, banco=bool(opened.get("banco")))

    def card(self, coup) -> bool:
        if self.rng.random() < self.settings.void_rate and self.fault(coup):
            return False
        return super().card(coup)

    def fault(self, coup) -> bool:
        """Declare a fault the text fixes, if one can happen now (applied to his own coup at once)."""
        for code in self.rng.sample(FAULTS, len(FAULTS)):
            fault = {"fault": code, "holder": self.rng.choice(self.players) if code == "slow_to_announce" and
                     self.players else None}
            try:
                copy.deepcopy(coup).fault(**fault)
            except RulesError:
                continue
            coup.fault(**fault)
            self.record.note(self.coup_no, fault=fault)
            self.slip = "fault"
            if coup.is_complete and not coup.is_void:  # the fault decided the coup (I.104 i: the player shows 9)
                self.finish(coup)  # the table settles it as soon as the fault is applied: the bank follows it now
            self.sink(ConsoleCommand("fault", who=DEALER, source="sim", play=fault))
            return True
        return False

    def choose(self, coup, due) -> tuple[str, list[dict], dict | None]:
        action = "draw" if self.rng.random() < 0.5 else "stand"  # the player's 5, an optional cell, a banco
        return action, [{"decision": action}], None

    def completed(self, coup) -> None:
        winner = coup.result().winner if not coup.is_void else None
        if winner is None or winner == "tie":
            return
        if winner == "player":
            self.bank_held, self.bank_wins = False, 0  # "a mão passa" (I.96 c)
        else:
            self.bank_wins += 1
        self.suivi = self.terminals.banco_answer(self.coup_round) if coup.banco and winner == "banker" and \
            self.terminals else None
        self.last_winner = winner
