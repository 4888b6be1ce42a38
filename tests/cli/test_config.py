"""Configuration: every example config loads; unknown keys and bad values are errors naming file and key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.config import load_config
from firmware_host.errors import ConfigError
from firmware_host.games import build_dice_game

ROOT = Path(__file__).resolve().parents[2]
DICE_CONFIGS = ["craps-macau-2010.toml", "craps-macau-1985.toml", "craps-portugal-1995.toml",
                "cussec-portugal-1995.toml", "banca-francesa-portugal-1995.toml"]


@pytest.mark.parametrize("name", DICE_CONFIGS)
def test_example_dice_configs_build_their_game(name):
    config = load_config(ROOT / "config" / name)
    game = build_dice_game(config, name)
    assert game.rulebook == config.game.rulebook


def test_every_example_config_is_valid():
    for path in sorted((ROOT / "config").glob("*.toml")):
        load_config(path)


BASE = 'version = 1\n[game]\nname = "craps"\nrulebook = "macau-2010"\n[limits]\nminimum = 100\nmaximum = 1000\n'


@pytest.mark.parametrize("text,message", [
    (BASE + "colour = 1\n", "limits.colour: unknown key"),
    (BASE.replace('rulebook = "macau-2010"', 'rulebook = "macau-2010"\nshoe = 8'), "game.shoe: unknown key"),
    (BASE.replace('"macau-2010"', '"las-vegas"'), "game.rulebook"),
    (BASE.replace("minimum = 100", "minimum = 0"), "limits.minimum"),
    (BASE.replace("maximum = 1000", "maximum = 10"), "limits.maximum"),
    (BASE.replace("version = 1", "version = 2"), "version"),
    (BASE.replace('name = "craps"', 'name = "poker"'), "game"),
    (BASE + '[money]\nrounding = "sideways"\n', "money.rounding"),
    (BASE + '[money]\npayout_unit = -5\n', "money.payout_unit"),
    (BASE.replace('rulebook = "macau-2010"', 'rulebook = "macau-2010"\nfield_12_pays = "three"'), "game.field_12_pays"),
    (BASE.replace("[limits]", "[limits]\nper_bet_maximum = { aces = 0 }"), "limits.per_bet_maximum.aces"),
    ("version = 1\n[game\n", "not valid TOML"),
])
def test_bad_config_names_the_file_and_key_path(tmp_path, text, message):
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_rule_book_errors_are_config_errors_naming_the_file(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(BASE.replace('rulebook = "macau-2010"', 'rulebook = "macau-1985"\nfield_12_pays = "3:1"'))
    with pytest.raises(ConfigError, match="field 12"):
        build_dice_game(load_config(path), str(path))
    path.write_text(BASE.replace("maximum = 1000", "maximum = 1000\nper_bet_maximum = { lucky = 500 }"))
    with pytest.raises(ConfigError, match="lucky"):
        build_dice_game(load_config(path), str(path))


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")
