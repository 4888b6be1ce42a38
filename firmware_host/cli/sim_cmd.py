"""`tablehw sim wheel|cammegh|shoe --port PATH`: run one device simulator standalone on a pty at PATH."""

from __future__ import annotations

import argparse
import random
import sys

from drivers.errors import DeviceError
from drivers.sim.cammegh import CammeghSim
from drivers.sim.faults import Faults
from drivers.sim.shoe import ShoeSim, card_code, shuffled_shoe
from drivers.sim.wheel import WheelBoardSim
from drivers.wheel_layout import wheel_order

from ..stop_signal import StopSignal

ERRORS = (DeviceError,)
FAULT_NAMES = ("drop_acks", "ignore_acks", "corrupt_crc", "repeat")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sim", help="run a device simulator on a pty (for tests, `make run`, bench checks)")
    p.add_argument("device", choices=["wheel", "cammegh", "shoe"])
    p.add_argument("--port", required=True, help="path where the simulator publishes its pty (a symlink)")
    p.add_argument("--interval", type=float, default=5.0, help="seconds between spins / cards (default 5)")
    p.add_argument("--count", type=int, default=0, help="spins or cards to play, then exit (0: until stopped)")
    p.add_argument("--numbers", default="", help="winning numbers to play in turn, e.g. 17,0,32 (default random)")
    p.add_argument("--order", default="french", help="wheel order of the board: french | american_numbering")
    p.add_argument("--period", type=float, default=0.5, help="cammegh: seconds between status lines")
    p.add_argument("--mode", type=int, default=1157,
                   help="cammegh: the wheel's mode (handbook: +16 no bare winning number, +128 status repeat, "
                        "+256 *F errors; default 1157, 1029 = repeat off)")
    p.add_argument("--cards", default="", help="shoe: cards to deal, e.g. AS,KD,10H (default a shuffled shoe)")
    p.add_argument("--decks", type=int, default=8, help="shoe: decks in the shuffled shoe")
    p.add_argument("--seed", type=int, default=1, help="random seed for numbers and the shuffled shoe")
    p.add_argument("--serial", default=None, help="serial number the board reports in the handshake")
    p.add_argument("--firmware", default="sim-1.0.0", help="firmware build the board reports")
    p.add_argument("--fault", action="append", default=[], metavar="NAME=N",
                   help=f"inject a fault the next N times: {', '.join(FAULT_NAMES)}; or delay=SECONDS")
    p.add_argument("--silent", type=float, default=0.0, metavar="S", help="go silent for S seconds after start")
    p.add_argument("--unplug", type=float, default=0.0, metavar="S", help="unplug for S seconds after the first play")
    p.set_defaults(func=run)


def parse_faults(items: list[str]) -> Faults:
    faults = Faults()
    for item in items:
        name, _, value = item.partition("=")
        try:
            if name == "delay":
                faults.delay = float(value)
            elif name in FAULT_NAMES:
                setattr(faults, name, int(value or 1))
            else:
                raise ValueError(f"unknown fault {name!r}")
        except ValueError as exc:
            raise DeviceError(f"--fault {item}: {exc} (faults: {', '.join(FAULT_NAMES)}, delay=SECONDS)") from None
    return faults


def numbers_from(text: str, rng: random.Random):
    if text:
        try:
            fixed = [int(n) for n in text.split(",")]
        except ValueError:
            raise DeviceError(f"--numbers {text!r}: not a comma-separated list of numbers") from None
        if any(not 0 <= n <= 36 for n in fixed):
            raise DeviceError(f"--numbers {text!r}: numbers go from 0 to 36")
        while True:
            yield from fixed
    while True:
        yield rng.randrange(37)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    faults = parse_faults(args.fault)
    stop = StopSignal().install()
    if args.device == "cammegh":
        if not 0 <= args.mode <= 0xFFFF:
            raise DeviceError(f"--mode {args.mode}: a wheel mode is 0 to 65535")
        sim = CammeghSim(path=args.port, period=args.period, faults=faults, seed=args.seed, mode=args.mode)
    elif args.device == "wheel":
        extra = {"serial": args.serial} if args.serial else {}
        sim = WheelBoardSim(order=wheel_order(args.order), path=args.port, faults=faults, firmware=args.firmware,
                            **extra)
    else:
        extra = {"serial": args.serial} if args.serial else {}
        sim = ShoeSim(path=args.port, faults=faults, firmware=args.firmware, **extra)
    path = sim.start()
    print(f"tablehw sim {args.device}: listening at {path}", flush=True)
    if args.silent:
        sim.go_silent(args.silent)
    try:
        plays = play_cards(sim, args, rng) if args.device == "shoe" else play_spins(sim, args, rng)
        for played, what in enumerate(plays, 1):
            print(f"tablehw sim {args.device}: {what}", flush=True)
            if played == 1 and args.unplug:
                sim.unplug(args.unplug)
            if args.count and played >= args.count or stop.wait(args.interval):
                break
        if args.count and hasattr(sim, "wait_delivered"):
            sim.wait_delivered(min(10.0, 2 * args.interval + 1))
    finally:
        sim.stop()
    return 0


def play_spins(sim, args, rng):
    numbers = numbers_from(args.numbers, rng)
    for spin in range(1, sys.maxsize):
        number = next(numbers)
        if isinstance(sim, CammeghSim):
            sim.play_spin(number, hold=min(3 * args.period, args.interval / 5))
        else:
            sim.spin(number, revolutions=rng.randint(6, 14))
        yield f"spin {spin}: {number}"


def play_cards(sim: ShoeSim, args, rng):
    cards = args.cards.split(",") if args.cards else shuffled_shoe(args.decks, args.seed)
    for card in cards:
        card_code(card)  # refuse a bad card before the shoe starts
    sim.load()
    cut_at = max(1, len(cards) - 14) if not args.cards else None  # the cut card ~14 cards from the end
    for seq, card in enumerate(cards, 1):
        sim.deal(card)
        if seq == cut_at:
            sim.cut_card()
        yield f"card {seq}: {card}"
    sim.empty()
    yield "shoe empty"
