"""Macau 2010 Art. 7.2: the house advantage a regulator is shown is the one the table actually pays.

`tablehw edge` prints, beside each exact edge, the edge paid at the least stake the table takes on
that bet, every win rounded by the configured rule. The audit's cases: Portugal 1995 lay 6 (10:13,
VI.12) at EUR 5 with whole-euro payouts, and Macau 1985 "Big 7" ("4 vezes e meia", Art. 6) at MOP 1
with whole-pataca payouts — both paid visibly under the ratio. Hand computations below.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from firmware_host.cli import main

ROOT = Path(__file__).resolve().parents[2]


def edge_doc(config: Path, capsys) -> dict:
    assert main(["edge", "--config", str(config), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def row(doc: dict, bet: str, number: int | None = None) -> dict:
    return next(r for r in doc["bets"] if r["bet"] == bet and r.get("number") == number and "condition" not in r)


def table(tmp_path: Path, rulebook: str, currency: str, minimum: int, steps: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'version = 1\n[game]\nname = "craps"\nrulebook = "{rulebook}"\n'
                    f'[money]\ncurrency = "{currency}"\nminor_units_per_unit = 100\npayout_unit = 100\nrounding = "down"\n'
                    f'[limits]\nminimum = {minimum}\nmaximum = 1000000\n{steps}')
    return path


def test_art_7_2_lay_6_at_eur_5_by_hand(tmp_path, capsys):
    """Lay 6 wins when 7 comes before 6: P = 6/11, loses 5/11; pays 10 for 13 (VI.12, second column).
    Exact edge: 5/11 - 6/11 x 10/13 = (65 - 60)/143 = 5/143 = 3.4965%.
    On EUR 5 (500 cents) the exact win is 500 x 10/13 = 384.6 cents; paid in whole euros, rounded down:
    300 cents, i.e. 3/5 of the stake. Edge paid: 5/11 - 6/11 x 3/5 = (25 - 18)/55 = 7/55 = 12.7273%."""
    doc = edge_doc(table(tmp_path, "portugal-1995", "EUR", 500), capsys)
    lay_6 = row(doc, "lay_6")
    assert F(lay_6["edge"]) == F(5, 11) - F(6, 11) * F(10, 13) == F(5, 143)
    assert lay_6["least_stake"] == 500
    assert F(lay_6["paid_edge"]) == F(5, 11) - F(6, 11) * F(300, 500) == F(7, 55)
    assert (lay_6["edge_pct"], lay_6["paid_edge_pct"]) == (3.4965, 12.7273)


def test_art_6_1985_any_seven_at_mop_1_by_hand(tmp_path, capsys):
    """"Big 7": wins 4 and a half times the stake on a 7 (Art. 6): P = 6/36 = 1/6.
    Exact edge: 5/6 - 1/6 x 9/2 = (10 - 9)/12 = 1/12 = 8.3333%.
    On MOP 1 (100 avos) the exact win is 450 avos; paid in whole patacas, rounded down: 400 avos, 4 x the
    stake. Edge paid: 5/6 - 1/6 x 4 = 1/6 = 16.6667% — twice the edge of the text."""
    doc = edge_doc(table(tmp_path, "macau-1985", "MOP", 100), capsys)
    seven = row(doc, "any_seven")
    assert seven["pays"] == "9:2" and seven["least_stake"] == 100
    assert F(seven["edge"]) == F(5, 6) - F(1, 6) * F(9, 2) == F(1, 12)
    assert F(seven["paid_edge"]) == F(5, 6) - F(1, 6) * F(400, 100) == F(1, 6)
    assert (seven["edge_pct"], seven["paid_edge_pct"]) == (8.3333, 16.6667)


def test_art_7_2_a_stake_step_makes_the_least_stake_pay_exactly(tmp_path, capsys):
    """limits.stake_step: lay 6 in multiples of EUR 65 (13 x 5, a multiple of the minimum as VI.12 asks)
    pays 50 exactly; any seven in multiples of MOP 2 pays 9. A step that breaks VI.12 is a config error."""
    doc = edge_doc(table(tmp_path, "portugal-1995", "EUR", 500, "[limits.stake_step]\nlay_6 = 6500\nodds_5 = 200\n"),
                   capsys)
    assert (row(doc, "lay_6")["least_stake"], row(doc, "lay_6")["paid_edge"]) == (6500, "5/143")
    assert (row(doc, "odds", 5)["least_stake"], row(doc, "odds", 5)["paid_edge"]) == (600, "0")
    assert row(doc, "odds", 9)["least_stake"] == 500 and row(doc, "odds", 9)["paid_edge"] != "0"  # 750 -> 700
    doc = edge_doc(table(tmp_path, "macau-1985", "MOP", 100, "[limits.stake_step]\nany_seven = 200\n"), capsys)
    assert row(doc, "any_seven")["paid_edge"] == row(doc, "any_seven")["edge"] == "1/12"
    assert main(["edge", "--config", str(table(tmp_path, "portugal-1995", "EUR", 500,
                                                 "[limits.stake_step]\nlay_6 = 1300\n"))]) == 2
    assert "limits.stake_step.lay_6: 1300 is not a multiple of the minimum 500" in capsys.readouterr().err


def test_art_9_1985_place_6_under_mop_6_pays_even_money_and_its_row_says_so(tmp_path, capsys):
    """Art. 9: "Nas apostas inferiores a $6,00, o prémio será igual ao seu valor": the 7:6 row applies
    from MOP 6 (paid 7 exactly), the 1:1 row to the MOP 1 least stake."""
    doc = edge_doc(table(tmp_path, "macau-1985", "MOP", 100), capsys)
    place = [r for r in doc["bets"] if r["bet"] == "place_6"]
    assert [(r["pays"], r["least_stake"], r["paid_edge"]) for r in place] == [("7:6", 600, "1/66"), ("1:1", 100, "1/11")]


@pytest.mark.parametrize("config", sorted(p.name for p in (ROOT / "config").glob("*.toml")))
def test_art_7_2_every_config_prints_the_paid_edge_beside_the_exact_one(config, capsys):
    doc = edge_doc(ROOT / "config" / config, capsys)
    if "bets" in doc:
        rows = doc["bets"]
    elif "shoes" in doc:
        rows = [b for shoe in doc["shoes"] if shoe["configured"] for b in shoe["bets"]]
    else:
        rows = doc["paid_at_least_stake"]
        assert rows and all(r["paid"] <= F(r["exact"]) for r in rows)
        return
    assert rows and all("least_stake" in r and "paid_edge" in r for r in rows if "condition" not in r)
    assert all(F(r["paid_edge"]) >= F(r["edge"]) for r in rows if "paid_edge" in r)  # rounding down never pays more
    assert main(["edge", "--config", str(ROOT / "config" / config)]) == 0
    assert "paid %" in capsys.readouterr().out
