"""`tablehw edge` reproduces every craps and three-dice figure of shared/oracles/PUBLISHED.md exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_host.cli import main

ROOT = Path(__file__).resolve().parents[2]


def edge_json(config: Path, capsys) -> dict:
    assert main(["edge", "--config", str(config), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return doc


def rows(doc: dict) -> dict:
    return {(r["bet"], r.get("number"), r.get("condition")): r for r in doc["bets"]}


def write_config(tmp_path: Path, game: str) -> Path:
    path = tmp_path / "test.toml"
    path.write_text("version = 1\n" + game + "\n[limits]\nminimum = 100\nmaximum = 100000\n")
    return path


# PUBLISHED.md "Craps (36 outcomes, exact)", per bet made, a push counting as a bet made.
CRAPS_FIGURES = [
    ("craps-macau-2010.toml", "pass", None, "7/495", 1.4141),
    ("craps-macau-2010.toml", "come", None, "7/495", 1.4141),
    ("craps-macau-2010.toml", "dont_pass", None, "3/220", 1.3636),  # bar 12
    ("craps-macau-2010.toml", "dont_come", None, "3/220", 1.3636),
    ("craps-macau-2010.toml", "field", None, "1/36", 2.7778),  # 12 pays 3:1 (the 2010 config's choice)
    ("craps-macau-1985.toml", "field", None, "1/18", 5.5556),  # 2 and 12 pay 2:1
    ("craps-macau-2010.toml", "any_craps", None, "1/9", 11.1111),
    ("craps-macau-2010.toml", "any_seven", None, "1/6", 16.6667),
    ("craps-macau-2010.toml", "eleven", None, "1/9", 11.1111),
    ("craps-macau-2010.toml", "ace_deuce", None, "1/9", 11.1111),
    ("craps-macau-2010.toml", "aces", None, "5/36", 13.8889),
    ("craps-macau-2010.toml", "boxcars", None, "5/36", 13.8889),
    ("craps-macau-2010.toml", "hard_6", None, "1/11", 9.0909),
    ("craps-macau-2010.toml", "hard_8", None, "1/11", 9.0909),
    ("craps-macau-2010.toml", "hard_4", None, "1/9", 11.1111),
    ("craps-macau-2010.toml", "hard_10", None, "1/9", 11.1111),
    ("craps-macau-2010.toml", "place_6", None, "1/66", 1.5152),
    ("craps-macau-2010.toml", "place_8", None, "1/66", 1.5152),
    ("craps-macau-2010.toml", "place_5", None, "1/25", 4.0),
    ("craps-macau-2010.toml", "place_9", None, "1/25", 4.0),
    ("craps-macau-2010.toml", "place_4", None, "1/15", 6.6667),
    ("craps-macau-2010.toml", "place_10", None, "1/15", 6.6667),
    ("craps-portugal-1995.toml", "big_6", None, "1/11", 9.0909),
    ("craps-portugal-1995.toml", "big_8", None, "1/11", 9.0909),
    ("craps-portugal-1995.toml", "pass", None, "7/495", 1.4141),
    ("craps-portugal-1995.toml", "dont_pass", None, "3/220", 1.3636),
    ("craps-portugal-1995.toml", "field", None, "1/18", 5.5556),
]


@pytest.mark.parametrize("config,bet,number,edge,pct", CRAPS_FIGURES)
def test_published_craps_edges(config, bet, number, edge, pct, capsys):
    row = rows(edge_json(ROOT / "config" / config, capsys))[(bet, number, None)]
    assert row["edge"] == edge and row["edge_pct"] == pct


@pytest.mark.parametrize("point", [4, 5, 6, 8, 9, 10])
@pytest.mark.parametrize("config", ["craps-macau-2010.toml", "craps-macau-1985.toml", "craps-portugal-1995.toml"])
def test_published_true_odds_have_no_edge(config, point, capsys):
    table = rows(edge_json(ROOT / "config" / config, capsys))
    assert table[("odds", point, None)]["edge"] == "0"
    assert table[("dont_odds", point, None)]["edge"] == "0"


def test_published_dont_pass_bar_2_same_as_bar_12(tmp_path, capsys):
    config = write_config(tmp_path, '[game]\nname = "craps"\nrulebook = "portugal-1995"\nbar = 2')
    row = rows(edge_json(config, capsys))[("dont_pass", None, None)]
    assert row["edge"] == "3/220"


def test_published_dont_pass_edge_excluding_pushes_is_27_1925(capsys):
    from fractions import Fraction as F
    row = rows(edge_json(ROOT / "config" / "craps-macau-2010.toml", capsys))[("dont_pass", None, None)]
    decided = 1 - F(row["p_push"])
    assert F(row["edge"]) / decided == F(27, 1925)


# PUBLISHED.md "Three dice (216 outcomes)".
CUSSEC_FIGURES = [("small", "1/36"), ("big", "1/36"), ("single_1", "17/216"), ("single_6", "17/216"),
                  ("combination_1_2", "1/6"), ("combination_5_6", "1/6")]


@pytest.mark.parametrize("bet,edge", CUSSEC_FIGURES)
def test_published_three_dice_edges_from_the_cussec_config(bet, edge, capsys):
    row = rows(edge_json(ROOT / "config" / "cussec-portugal-1995.toml", capsys))[(bet, None, None)]
    assert row["edge"] == edge


def test_published_three_dice_edges_from_a_test_paytable(tmp_path, capsys):
    # The published triple (180:1), any triple (30:1) and total 4 (60:1) differ from the seeds' 190, 32 and 65.
    config = write_config(tmp_path, '[game]\nname = "cussec"\nrulebook = "portugal-1995"\n'
                          '[game.paytable]\ntriple_1 = "180:1"\nany_triple = "30:1"\ntotal_4 = "60:1"\ntotal_17 = "60:1"')
    table = rows(edge_json(config, capsys))
    assert table[("triple_1", None, None)]["edge"] == "35/216"
    assert table[("triple_1", None, None)]["edge_pct"] == 16.2037
    assert table[("any_triple", None, None)]["edge"] == "5/36"
    assert table[("total_4", None, None)]["edge"] == "11/72"
    assert table[("total_17", None, None)]["edge_pct"] == 15.2778


@pytest.mark.parametrize("bet", ["aces", "small", "big"])
def test_published_banca_francesa_per_decision_and_per_roll(bet, capsys):
    row = rows(edge_json(ROOT / "config" / "banca-francesa-portugal-1995.toml", capsys))[(bet, None, None)]
    assert row["edge"] == "1/63" and row["edge_pct"] == 1.5873
    assert row["edge_per_throw"] == "1/216" and row["edge_per_throw_pct"] == 0.463


def test_edge_json_shape(capsys):
    doc = edge_json(ROOT / "config" / "craps-macau-2010.toml", capsys)
    assert doc["game"] == "craps" and doc["rulebook"] == "macau-2010"
    first = next(r for r in doc["bets"] if r["bet"] == "pass")
    assert first["pays"] == "1:1" and first["edge"] == "7/495" and first["edge_pct"] == 1.4141


def test_paikao_edge_prints_the_first_seat_distribution(capsys):
    doc = edge_json(ROOT / "config" / "paikao-macau.toml", capsys)
    from fractions import Fraction as F
    assert sum(F(s["probability"]) for s in doc["first_seat"]) == 1
    assert len(doc["first_seat"]) == 8
