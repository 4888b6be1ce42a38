"""Table configuration: a strict TOML schema (msgspec) with errors that name the file and key path.

A config file has a `version`, a `[game]` table naming the game and rule book with that game's
options, `[money]` (minor units and the payout rounding rule) and `[limits]`. Unknown keys and
out-of-range values are errors. See docs/config.md.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal, Union

import msgspec
from msgspec import Meta, Struct

from drivers.settings import DevicesSection

from .errors import ConfigError
from .rules.money import MAX_PAYOUT_UNIT
from .rules.stakes import MAX_AMOUNT
from .service_config import AccessSection, MqttSection, SimulationSection, StorageSection, TableSection

# x and y up to 9,999 (rules.money.MAX_RATIO_TERM): with Amount, no product in settlement can overflow.
Ratio = Annotated[str, Meta(pattern=r"^\s*\d{1,4}\s*:\s*[1-9]\d{0,3}\s*$",
                            description='a payout "x:y", x and y at most 9999')]
PositiveInt = Annotated[int, Meta(ge=1)]
Amount = Annotated[int, Meta(ge=1, le=MAX_AMOUNT, description="minor units, 1 to 10**12")]


class Money(Struct, forbid_unknown_fields=True, frozen=True):
    """Currency and rounding: stakes and payouts are integers in minor units (cents)."""

    currency: Annotated[str, Meta(pattern=r"^[A-Z]{3}$")] = "EUR"
    minor_units_per_unit: Annotated[int, Meta(ge=1, le=10_000)] = 100
    payout_unit: Annotated[int, Meta(ge=1, le=MAX_PAYOUT_UNIT)] = 1  # payouts are multiples of this many minor units
    rounding: Literal["down", "half_up"] = "down"


class LimitsSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Table minimum and maximum stake (minor units); optional lower maxima and stake steps per bet id;
    a house rule making every stake a multiple of the minimum (beyond what the rule book requires)."""

    minimum: Amount
    maximum: Amount
    per_bet_maximum: dict[str, Amount] = {}
    stake_step: dict[str, Amount] = {}  # a bet's stakes are multiples of its step (so they pay exactly)
    all_multiples_of_minimum: bool = False


class CrapsGame(Struct, tag_field="name", tag="craps", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["macau-2010", "macau-1985", "portugal-1995"]
    field_12_pays: Ratio | None = None  # Macau 2010 Art. 6.12: the operator's 2:1 or 3:1
    bar: Literal[2, 12] = 12  # Portugal 1995 VI.10.2: "par de senas" (12) or "de ases" (2)
    odds_multiple: Annotated[int, Meta(ge=1, le=100)] = 1  # where the book leaves odds to the table
    # Odds come down "any time before the decision" in 1995 (VI.11.1); 2010 and 1985 are silent.
    odds_withdrawal: Literal["while_betting", "until_decision"] | None = None


class CussecGame(Struct, tag_field="name", tag="cussec", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995"]
    paytable: dict[str, Ratio] = {}  # replace chances' ratios (needs the regulator's approval)


class BancaFrancesaGame(Struct, tag_field="name", tag="banca_francesa", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995"]
    # IV.7 d: dice the dealer touched before announcing: winners paid, the other chances "não perdendo"
    touched_dice_losers: Literal["stay", "returned"] = "stay"


class PaiKaoGame(Struct, tag_field="name", tag="paikao", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["macau-1985"]
    commission_pct: Annotated[int, Meta(ge=0, le=100)] = 5  # Art. 4.2
    banker_capital_caps: bool = True  # Art. 4.5: the banker wins or loses at most his capital per deal


class PuntoBancoGame(Struct, tag_field="name", tag="punto_banco", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995", "macau"]  # Portugal 1995 chapter II, or III (Macau)
    decks: Literal[6, 8] = 8  # II.1: 6 on a single table, 8 on a double
    tie_pays: Literal["9:1", "8:1"] = "9:1"  # II.17 "nove para um"
    commission_pct: Annotated[int, Meta(ge=0, le=100)] = 5  # II.19, on banker wins
    max_difference: Amount | None = None  # III.11 b (Macau only): player vs banker totals


class ChemindeFerGame(Struct, tag_field="name", tag="chemin_de_fer", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995"]
    commission_pct: Annotated[int, Meta(ge=0, le=100)] = 5  # the cagnotte on the bank's wins (I.47)
    bank_minimum: Amount | None = None  # I.35, I.37: the bank's minimum (default: limits.minimum)


class BlackjackGame(Struct, tag_field="name", tag="blackjack", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995"]
    decks: Literal[4, 6] = 6  # V.3
    boxes: Literal[6, 7] = 7  # V.2
    dealer_blackjack_takes: Literal["all", "original"] = "all"  # stakes lost to a dealer blackjack (V is silent)
    resplit_aces: bool = True  # V.27 excludes no pair from splitting again; false: split aces stay as dealt


class RouletteGame(Struct, tag_field="name", tag="roulette", forbid_unknown_fields=True, frozen=True):
    rulebook: Literal["portugal-1995"]
    wheel: Literal["french", "american_numbering"] = "french"  # X.9 / IX.2
    corner_max_ratio: Annotated[int, Meta(ge=1, le=1000)] = 40  # X.27 gives none for corners


GameSection = Union[CrapsGame, CussecGame, BancaFrancesaGame, PaiKaoGame, PuntoBancoGame, ChemindeFerGame,
                    BlackjackGame, RouletteGame]


BoardLanguage = Literal["en", "pt", "zh"]


class BoardSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Result boards (docs/mqtt.md, "Board payloads"): how many recent results they list; roulette's
    hot / cold numbers and chance counts over the last `window` spins, `hot_cold` numbers each; the
    languages of the boards' labels (one, or two shown together: the first large, the second under it)."""

    last_n: Annotated[int, Meta(ge=1, le=1000)] = 20
    window: Annotated[int, Meta(ge=1, le=10_000)] = 100
    hot_cold: Annotated[int, Meta(ge=1, le=37)] = 5
    languages: Annotated[tuple[BoardLanguage, ...], Meta(min_length=1, max_length=2)] = ("en",)

    def __post_init__(self) -> None:
        if len(set(self.languages)) != len(self.languages):
            raise ValueError(f"languages lists {self.languages[0]!r} twice")


class TableConfig(Struct, forbid_unknown_fields=True, frozen=True):
    """A whole configuration file."""

    version: Literal[1]
    game: GameSection
    limits: LimitsSection
    money: Money = Money()
    # The service's sections (optional: a rules-only config stays valid; `tablehw run` needs [table]).
    table: TableSection | None = None
    mqtt: MqttSection | None = None
    access: AccessSection = AccessSection()  # who may bet, act on the console, recall (nobody by default)
    storage: StorageSection | None = None
    simulation: SimulationSection | None = None
    board: BoardSection = BoardSection()
    devices: DevicesSection | None = None  # [devices]: see docs/devices.md


_PATH = re.compile(r" - at `\$((?:\.[A-Za-z0-9_\-]+|\[(?:\d+|\.\.\.)\])*)`$")
_KEY = re.compile(r" - at `key` in `\$((?:\.[A-Za-z0-9_\-]+|\[(?:\d+|\.\.\.)\])*)`$")  # a bad dict key


def key_path_of(error: msgspec.ValidationError) -> tuple[str, str]:
    """Split a msgspec error into (dotted key path, message); a dict entry shows as `[...]`."""
    text = str(error)
    key = _KEY.search(text)
    if key:
        return f"{key.group(1).lstrip('.')}.<key>", f"a key: {text[: key.start()]}"
    match = _PATH.search(text)
    path, message = ("", text) if not match else (match.group(1).lstrip("."), text[: match.start()])
    path = re.sub(r"\[(\d+)\]", r".\1", path).replace("[...]", ".[...]")
    unknown = re.match(r"Object contains unknown field `([^`]+)`", message)
    if unknown:
        return (f"{path}.{unknown.group(1)}" if path else unknown.group(1)), "unknown key"
    return path, message


def convert_strict(data: object, schema: type, source: str, error_type: type[Exception]):
    """msgspec.convert with errors naming `source` and the key path (dict keys resolved by name)."""
    try:
        return msgspec.convert(data, schema)
    except msgspec.ValidationError as exc:
        path, message = key_path_of(exc)
        if ".[...]" in path:
            path = _resolve_dict_key(data, schema, path)
        raise error_type(f"{source}: {path or '(top level)'}: {message}") from None


def _resolve_dict_key(data: object, schema: type, path: str) -> str:
    """msgspec does not name the failing key of a dict: find it by converting one entry at a time."""
    head, _, tail = path.partition(".[...]")
    parts = head.split(".") if head else []
    node = data
    for part in parts:
        node = node[int(part)] if isinstance(node, list) else node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        return path.replace("[...]", "<key>")
    for key in node:
        trial = _replace_at(data, parts, {key: node[key]})
        try:
            msgspec.convert(trial, schema)
        except msgspec.ValidationError:
            return f"{head}.{key}{tail}"
    return path.replace("[...]", "<key>")


def _replace_at(data, parts: list[str], value):
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(data, list):
        copy = list(data)
        copy[int(head)] = _replace_at(data[int(head)], rest, value)
        return copy
    return {**data, head: _replace_at(data[head], rest, value)}


def parse_config(data: dict, source: str = "<config>") -> TableConfig:
    """Validate already-parsed TOML data; errors name `source` and the key path."""
    config = convert_strict(data, TableConfig, source, ConfigError)
    if config.limits.maximum < config.limits.minimum:
        raise ConfigError(f"{source}: limits.maximum: {config.limits.maximum} is below limits.minimum "
                          f"{config.limits.minimum}")
    return config


def load_config(path: str | Path) -> TableConfig:
    """Read and validate one configuration file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_config(data, str(path))
