"""A simulated slot machine: meters that advance as it plays at a configured RTP, exceptions and faults.

Meters are kept as unbounded integers (credits or counts); the SAS replies show them modulo their field
size, so a meter near 99,999,999 rolls over on the 4-byte polls exactly as a real machine's would.
Every method takes the machine's lock: the simulator thread answers polls while a test plays games.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

from ..sas.denominations import cents_per_credit
from .egm_paytable import Paytable

METER_NAMES = ("coin_in", "coin_out", "total_drop", "jackpot", "games_played", "games_won", "games_lost",
               "cancelled_credits", "current_credits", "credits_from_bills_accepted", "slot_door_opened",
               "power_resets", "games_since_power_reset", "games_since_slot_door_closure",
               "attendant_paid_progressive_win")
EXCEPTION_QUEUE_SIZE = 20  # SAS 2.2.1: at least 20, oldest lost on overflow, then exception 0x70


@dataclass
class EgmProfile:
    """What a simulated machine is: its SAS identity, its game and how it plays."""

    address: int
    serial: str = "SIM0000001"
    game_id: str = "SM"
    additional_id: str = "001"
    paytable_id: str = "PT9200"
    denomination_code: int = 0x01  # 1 cent per credit
    max_bet: int = 10
    base_pct_hundredths: int = 9200  # what 0x1F reports
    rtp: Fraction = Fraction(92, 100)  # what it really pays (a faulty machine may differ from base %)
    progressive_group: int = 0
    level_hit_odds: dict[int, Fraction] = field(default_factory=dict)  # level -> probability per game
    handpay_limit: int = 5000  # credits: a win at or above it locks up for an attendant
    bill_credits: int = 100  # a bill inserted when the credits do not cover the bet
    cashout_above: int = 2000  # the player cashes out when the credits reach this
    games_per_second: float = 0.0  # autoplay while serving polls (0 = only when told to play)
    attendant_resets: bool = False  # an attendant pays every handpay before the next game
    sas_version: str = "602"
    seed: int = 1


@dataclass(frozen=True, slots=True)
class Handpay:
    amount: int  # credits
    group: int = 0
    level: int = 0x40  # 0x40 = not a progressive win


class EgmMachine:
    """State and behaviour of one machine; `egm_responder` turns its state into SAS replies."""

    def __init__(self, profile: EgmProfile) -> None:
        self.profile = profile
        self.address = profile.address
        self.lock = threading.RLock()
        self.rng = random.Random(profile.seed)
        self.paytable = Paytable.for_rtp(profile.rtp)
        self.meters = dict.fromkeys(METER_NAMES, 0)
        self.enabled = True
        self.exceptions: deque[int] = deque()
        self.overflowed = False
        self.priority: deque[int] = deque()
        self.handpays: deque[Handpay] = deque()
        self.progressive_wins: deque[tuple[int, int, int]] = deque()  # (group, level, cents)
        self.progressive_amounts: dict[int, int] = {}  # level -> cents, from 0x80/0x86
        self.last_progressive_broadcast: float | None = None
        self.selected_game = 1
        self.door_open = False
        self.autoplay_games = 0.0

    # --- exceptions ----------------------------------------------------------------------------
    def raise_exception(self, code: int, *, priority: bool = False) -> None:
        with self.lock:
            if priority:
                self.priority.append(code)
                return
            if len(self.exceptions) >= EXCEPTION_QUEUE_SIZE:
                self.exceptions.popleft()
                self.overflowed = True
            self.exceptions.append(code)

    def peek_exception(self) -> int:
        with self.lock:
            if self.priority:
                return self.priority[0]
            if self.overflowed:
                return 0x70
            return self.exceptions[0] if self.exceptions else 0x00

    def pop_exception(self, code: int) -> None:
        """The host acknowledged `code`: drop it (and only it) from the head of its queue."""
        with self.lock:
            if self.priority and self.priority[0] == code:
                self.priority.popleft()
            elif code == 0x70 and self.overflowed:
                self.overflowed = False
            elif self.exceptions and self.exceptions[0] == code:
                self.exceptions.popleft()

    # --- play ----------------------------------------------------------------------------------
    @property
    def playable(self) -> bool:
        return self.enabled and not self.handpays and not self.door_open

    def play(self, games: int = 1) -> int:
        """Play up to `games` games; returns how many were played (none while disabled or locked up)."""
        played = 0
        with self.lock:
            for _ in range(games):
                if self.handpays and self.profile.attendant_resets:
                    self.reset_handpay()
                if not self.playable:
                    break
                self._play_one()
                played += 1
        return played

    def _play_one(self) -> None:
        m, p = self.meters, self.profile
        bet = self.rng.randint(1, p.max_bet)
        if m["current_credits"] < bet:
            self._insert_bill()
        m["current_credits"] -= bet
        m["coin_in"] += bet
        for name in ("games_played", "games_since_power_reset", "games_since_slot_door_closure"):
            m[name] += 1
        win = bet * self.paytable.draw(self.rng)
        if win == 0:
            m["games_lost"] += 1
        else:
            m["games_won"] += 1
            if win >= p.handpay_limit:
                self.start_handpay(win)
            else:
                m["coin_out"] += win
                m["current_credits"] += win
        self._maybe_hit_progressive()
        if m["current_credits"] >= p.cashout_above:
            m["cancelled_credits"] += m["current_credits"]
            m["current_credits"] = 0

    def _insert_bill(self) -> None:
        credits = self.profile.bill_credits
        for name in ("total_drop", "credits_from_bills_accepted", "current_credits"):
            self.meters[name] += credits
        self.raise_exception(0x4F)

    def _maybe_hit_progressive(self) -> None:
        p = self.profile
        if not p.progressive_group or self.handpays:
            return
        for level, odds in sorted(p.level_hit_odds.items()):
            if level in self.progressive_amounts and self.rng.random() < odds:
                self.hit_progressive(level)
                return

    def hit_progressive(self, level: int) -> int:
        """Win progressive `level` at its last broadcast amount: exception 0x56 and a handpay."""
        with self.lock:
            cents = self.progressive_amounts[level]
            self.progressive_wins.append((self.profile.progressive_group, level, cents))
            self.raise_exception(0x56, priority=True)
            credits = int(Fraction(cents) / cents_per_credit(self.profile.denomination_code))
            self.start_handpay(credits, group=self.profile.progressive_group, level=level)
            return cents

    def start_handpay(self, credits: int, *, group: int = 0, level: int = 0x40) -> None:
        with self.lock:
            self.handpays.append(Handpay(credits, group, level))
            self.raise_exception(0x51, priority=True)

    def reset_handpay(self) -> Handpay | None:
        """The attendant pays the first pending handpay: jackpot meter up, exception 0x52."""
        with self.lock:
            if not self.handpays:
                return None
            handpay = self.handpays.popleft()
            self.meters["jackpot"] += handpay.amount
            if handpay.level != 0x40:
                self.meters["attendant_paid_progressive_win"] += handpay.amount
            self.raise_exception(0x52, priority=True)
            return handpay

    def autoplay(self, seconds: float) -> int:
        """Advance play by `seconds` of wall time at the profile's games per second."""
        with self.lock:
            self.autoplay_games += seconds * self.profile.games_per_second
            whole = int(self.autoplay_games)
            self.autoplay_games -= whole
            return self.play(whole) if whole else 0

    # --- doors, power, memory ------------------------------------------------------------------
    def open_door(self) -> None:
        with self.lock:
            self.door_open = True
            self.meters["slot_door_opened"] += 1
            self.raise_exception(0x11)

    def close_door(self) -> None:
        with self.lock:
            self.door_open = False
            self.meters["games_since_slot_door_closure"] = 0
            self.raise_exception(0x12)

    def power_cycle(self) -> None:
        """Power lost and restored: exceptions 0x18 then 0x17; play is enabled again at start-up."""
        with self.lock:
            self.raise_exception(0x18)
            self.meters["power_resets"] += 1
            self.meters["games_since_power_reset"] = 0
            self.enabled = True
            self.raise_exception(0x17)

    def ram_clear(self, *, report: bool = True) -> None:
        """A RAM clear: every meter back to zero, queues emptied; `report` sends 0x3A afterwards."""
        with self.lock:
            self.meters = dict.fromkeys(METER_NAMES, 0)
            self.exceptions.clear()
            self.priority.clear()
            self.handpays.clear()
            self.progressive_wins.clear()
            self.overflowed = False
            self.enabled = True
            if report:
                self.raise_exception(0x3A)

    def set_meter(self, name: str, value: int) -> None:
        """Put a meter at `value` (e.g. just below a rollover); it must be a known meter."""
        with self.lock:
            if name not in self.meters:
                raise KeyError(f"the simulator has no meter {name!r}")
            self.meters[name] = value

    def receive_progressive(self, group: int, levels: dict[int, int], now: float) -> None:
        with self.lock:
            if group == self.profile.progressive_group:
                self.progressive_amounts.update(levels)
                self.last_progressive_broadcast = now

    def check_progressive_link(self, now: float, timeout: float) -> None:
        """Exception 0x53 once when broadcasts for the machine's group stop for `timeout` (SAS 10.2)."""
        with self.lock:
            last = self.last_progressive_broadcast
            if self.profile.progressive_group and last is not None and now - last > timeout:
                self.raise_exception(0x53)
                self.last_progressive_broadcast = None
