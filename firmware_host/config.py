"""Table configuration: a strict TOML schema (msgspec) with errors that name the file and key path.

A config file has a `version`, a `[game]` table naming the game and rule book with that game's
options, `[money]` (minor units and the payout rounding rule) and `[limits]`. Unknown keys and
out-of-range values are errors. See docs/config.md.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Literal, Union

import msgspec
from msgspec import Meta, Struct

from drivers.settings import DevicesSection

from .errors import ConfigError
from .rules.money import MAX_PAYOUT_UNIT
from .rules.stakes import MAX_AMOUNT
from .schema_check import Problem, problems, report
from .service_config import AccessSection, MetricsSection, MqttSection, SimulationSection, StorageSection, TableSection

# x and y up to 9,999 (rules.money.MAX_RATIO_TERM): with Amount, no product in settlement can overflow.
Ratio = Annotated[str, Meta(pattern=r"^\s*\d{1,4}\s*:\s*[1-9]\d{0,3}\s*$",
                            description='a payout "x:y", x and y at most 9999')]
PositiveInt = Annotated[int, Meta(ge=1)]
Amount = Annotated[int, Meta(ge=1, le=MAX_AMOUNT, description="minor units, 1 to 10**12")]


class Money(Struct, forbid_unknown_fields=True, frozen=True):
    """Currency and rounding: stakes and payouts are integers in minor units (cents)."""

    currency: Annotated[str, Meta(pattern=r"^[A-Z]{3}$", description="an ISO 4217 code such as 'EUR'")] = "EUR"
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
    metrics: MetricsSection | None = None  # Prometheus endpoint (off unless configured)
    simulation: SimulationSection | None = None
    board: BoardSection = BoardSection()
    devices: DevicesSection | None = None  # [devices]: see docs/devices.md


def config_problems(data: object) -> list[Problem]:
    """Every problem of already-parsed TOML data as a table config (empty: it is valid)."""
    found = problems(data, TableConfig)
    limits = data.get("limits") if isinstance(data, dict) else None
    if not {"limits", "limits.minimum", "limits.maximum"} & {p.path for p in found} and isinstance(limits, dict):
        low, high = limits.get("minimum"), limits.get("maximum")
        if isinstance(low, int) and isinstance(high, int) and high < low:
            found.append(Problem("limits.maximum", f"{high} is below limits.minimum {low}"))
    return found


def parse_config(data: dict, source: str = "<config>") -> TableConfig:
    """Validate already-parsed TOML data; the error lists every problem with its key path."""
    found = config_problems(data)
    if found:
        raise ConfigError(report(source, found), found)
    return msgspec.convert(data, TableConfig)


def read_toml(path: Path) -> dict:
    """A config file's TOML, parsed; a ConfigError naming the file when it cannot be read or parsed."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        problem = Problem("", f"cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        problem = Problem("", f"not UTF-8 text: {exc.reason} at byte {exc.start}")
    except tomllib.TOMLDecodeError as exc:
        problem = Problem("", f"not valid TOML: {exc}")
    raise ConfigError(f"{path}: {problem.message}", [problem])


def load_config(path: str | Path) -> TableConfig:
    """Read and validate one configuration file."""
    return parse_config(read_toml(Path(path)), str(path))
