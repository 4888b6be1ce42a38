"""The simulated chemin de fer dealer follows the bank through coups a fault decided (004 §I).

A fault declared once the cards are out can fix the coup's outcome at once (I.104 i: the banker dropped
the player's cards, the player shows 9). The table settles such a coup straight after the supervisor
applies the fault, so the dealer deals no further card in it: he must still see who won. When the player
won, the bank passes (I.96 c) and the dealer announces a new one; a dealer who missed that kept offering
no bank, and `make run GAME=chemin_de_fer` voided every round after it ("no bank or no punter", I.39)."""

from __future__ import annotations

from pathlib import Path

from firmware_host.config import load_config
from firmware_host.evidence import EvidenceStore
from firmware_host.games import build_table_game
from firmware_host.rounds.inputs import ConsoleCommand
from firmware_host.service_config import SimulationSection
from firmware_host.simulation import chemin_de_fer_dealer
from firmware_host.simulation.chemin_de_fer_dealer import SimulatedChemindeFerDealer

ROOT = Path(__file__).resolve().parents[2]


def console_actions(said: list) -> list[str]:
    return [item.action for item in said if isinstance(item, ConsoleCommand)]  # the cards go to the scanner


def dealer_at_a_dealt_coup(tmp_path: Path, rules, seed: int):
    dealer = SimulatedChemindeFerDealer("chemin_de_fer", 0, SimulationSection(seed=seed, void_rate=0.0),
                                        EvidenceStore(tmp_path / f"s{seed}", 7), None, seed=seed)
    dealer.rules, dealer.players = rules, ["term-1", "term-2"]
    said: list[ConsoleCommand] = []
    dealer.sink = said.append
    dealer.load(1)
    dealer.plan_bank()
    coup = dealer.model_coup({"banco": False})
    while not coup.dealt:  # the four cards of the deal, no fault (void_rate 0)
        assert dealer.card(coup)
    return dealer, coup, said


def test_a_coup_the_player_won_by_a_fault_passes_the_bank_and_the_dealer_announces_a_new_one(tmp_path, monkeypatch):
    monkeypatch.setattr(chemin_de_fer_dealer, "FAULTS", ("player_cards_dropped",))
    rules = build_table_game(load_config(ROOT / "config" / "sim-chemin_de_fer.toml"))
    won_by_the_fault = 0
    for seed in range(1, 30):
        dealer, coup, said = dealer_at_a_dealt_coup(tmp_path, rules, seed)
        if coup.is_complete:
            continue  # a natural: the deal ended the coup before any fault could be declared
        assert console_actions(said) == ["bank"]
        assert dealer.fault(coup)  # I.104 i: the player shows 9
        assert coup.is_complete, "the fault fixed the coup's outcome: nothing more is dealt"
        if coup.result().winner != "player":
            continue  # the banker's regular 9 ties it
        won_by_the_fault += 1
        assert dealer.bank_held is False and dealer.finished is coup
        del said[:]
        assert dealer.plan_bank(), f"seed {seed}: the bank passed to the player, yet the dealer offered none"
        assert console_actions(said) == ["bank"]
    assert won_by_the_fault >= 5
