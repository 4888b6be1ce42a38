"""Which simulated table and terminals a config gets under `tablehw run --simulate`."""

from __future__ import annotations

import logging
from typing import Any

from ..config import TableConfig
from ..errors import ConfigError
from ..evidence import EvidenceStore
from ..mqtt.contract import Topics
from ..rounds.setup import game_name
from ..service_config import SimulationSection
from .terminals import SimulatedTerminals, bet_maker

log = logging.getLogger(__name__)


# game -> (module, simulated table, the bet ids its terminals place)
CARD_AND_WHEEL = {"roulette": (".wheel_and_shoe", "SimulatedWheel", ["straight"]),
                  "punto_banco": (".wheel_and_shoe", "SimulatedShoe", ["banker", "player", "tie"]),
                  "blackjack": (".card_dealers", "SimulatedBlackjackDealer", ["box"]),
                  "chemin_de_fer": (".chemin_de_fer_dealer", "SimulatedChemindeFerDealer", ["player"])}


def simulated_devices(config: TableConfig, source: str, sim: SimulationSection, evidence: EvidenceStore, url: str,
                      topics: Topics) -> tuple[Any, SimulatedTerminals | None]:
    import random

    name = game_name(config)
    rng = random.Random(sim.seed)
    if name in ("craps", "banca_francesa", "cussec"):
        from ..games import build_dice_game
        from .table import SimulatedDiceTable, SimulatedDome

        rules = build_dice_game(config, source)
        bet_ids = [b for b in rules.table.bet_ids if b not in ("odds", "dont_odds")]
        cls = SimulatedDome if name == "cussec" else SimulatedDiceTable
        n_dice = rules.n_dice
        make_table = lambda terminals: cls(name, n_dice, sim, evidence, terminals, seed=sim.seed)  # noqa: E731
    elif name in CARD_AND_WHEEL:
        from importlib import import_module

        from ..games import build_table_game

        module, cls_name, bet_ids = CARD_AND_WHEEL[name]
        cls = getattr(import_module(module, __package__), cls_name)
        rules = build_table_game(config, source)
        players = [owner for owners in config.access.terminals.values() for owner in owners]

        def make_table(terminals):
            table = cls(name, 0, sim, evidence, terminals, seed=sim.seed)
            table.rules = rules
            if name == "chemin_de_fer":
                table.players = players  # who may hold the bank
            return table
    elif name == "paikao":
        from .bowl_and_tiles import SimulatedBowl

        bet_ids = ["seat"]
        make_table = lambda terminals: SimulatedBowl(name, 4, sim, evidence, terminals, seed=sim.seed)  # noqa: E731
    else:
        raise ConfigError(f"{source}: no simulated table for {name}")
    terminals = None
    allowed = dict(list(config.access.terminals.items())[: sim.terminals])
    if sim.bets_per_round and not allowed:
        log.warning("%s: [access] terminals names no betting terminal: the simulated terminals place no bets", source)
    elif sim.bets_per_round:
        terminals = SimulatedTerminals(url, topics, bet_maker(name, bet_ids, config.limits.minimum, rng),
                                       terminals=allowed, bets_per_round=sim.bets_per_round, seed=sim.seed)
    return make_table(terminals), terminals
