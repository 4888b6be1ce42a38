"""`tablehw sas`: poll a slot machine, decode a SAS reply, run the EGM simulator, or run the slot service."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

from drivers.sas import polls
from drivers.sas.crc import crc16_kermit
from drivers.sas.errors import SasError
from drivers.sas.host import SasHost
from drivers.sas.link import open_link
from drivers.sas.replies import decode_reply, reply_fields

from ..stop_signal import StopSignal

ERRORS = (SasError,)
INFO_POLLS = (0x1F, 0x54, 0x55, 0x1C, 0x0F, 0x1A, 0x18)
MAX_EXCEPTIONS = 32


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sas", help="SAS slot machines: poll, decode, simulate, serve")
    commands = p.add_subparsers(dest="sas_command", required=True, metavar="ACTION")

    poll = commands.add_parser("poll", help="read a machine's ids, meters and pending exceptions")
    poll.add_argument("--port", required=True, help="serial device, pty or socket:// URL")
    poll.add_argument("--address", required=True, type=int, help="SAS address 1-127")
    poll.add_argument("--framing", default="auto", choices=("auto", "parity", "escape"))
    poll.add_argument("--timeout-ms", type=float, default=20.0, help="response limit (SAS: 20 ms)")
    poll.add_argument("--json", action="store_true")
    poll.set_defaults(func=run_poll)

    decode = commands.add_parser("decode", help="decode one machine reply and check its CRC")
    decode.add_argument("hexbytes", help='the reply, e.g. "01 1A 00 00 12 34 xx xx"')
    decode.add_argument("--poll", required=True, help="the long poll it answers (0xNN) or 'general'")
    decode.add_argument("--address", type=int, help="the polled address (default: the reply's first byte)")
    decode.add_argument("--json", action="store_true")
    decode.set_defaults(func=run_decode)

    sim = commands.add_parser("sim", help="run the EGM simulator on a port ('pty' creates one)")
    sim.add_argument("--port", required=True, help="'pty', a serial device or socket:// URL")
    sim.add_argument("--framing", default="auto", choices=("auto", "parity", "escape"))
    sim.add_argument("--machines", type=int, default=1, help="machines at addresses 1..N")
    sim.add_argument("--rtp", default="0.92", help="return to player the machines really play at")
    sim.add_argument("--base-pct", type=float, default=92.0, help="base %% they report in 0x1F")
    sim.add_argument("--games-per-second", type=float, default=1.0)
    sim.add_argument("--progressive-group", type=int, default=0)
    sim.add_argument("--pace", action="store_true", help="take 19200-baud time per byte (for ptys)")
    sim.set_defaults(func=run_sim)

    serve = commands.add_parser("serve", help="run the slot service (docs/sas.md)")
    serve.add_argument("--config", required=True, help="slots configuration (TOML)")
    serve.set_defaults(func=run_serve)


def _poll_code(text: str) -> int | None:
    if text.lower() in ("general", "gp"):
        return None
    try:
        command = int(text, 16)
    except ValueError:
        command = -1
    if not 0 <= command <= 0xFF:
        raise SasError(f"--poll {text!r}: give a long poll as 0xNN (one byte) or 'general'")
    return command


def _address(given: int | None, message: bytes, command: int | None) -> int:
    """The polled address: --address (1-127), else the reply's first byte (a general poll needs none)."""
    if given is not None:
        return polls.check_address(given)
    if command is None:
        return 1  # a general poll's reply is one exception byte: no address in it
    try:
        return polls.check_address(message[0] & 0x7F)
    except SasError:
        raise SasError(f"the reply's first byte {message[0]:02X} is not a machine address (1..127); "
                       "give --address") from None


def run_decode(args: argparse.Namespace) -> int:
    try:
        message = bytes.fromhex(args.hexbytes.replace(":", " "))
    except ValueError:
        raise SasError(f"{args.hexbytes!r} is not hex bytes") from None
    if not message:
        raise SasError("no bytes to decode")
    command = _poll_code(args.poll)
    poll = polls.Poll(_address(args.address, message, command), command)
    reply = decode_reply(poll, message)
    fields = reply_fields(reply)
    if len(message) > 2:
        fields["crc"] = {"sent": f"{int.from_bytes(message[-2:], 'little'):04X}",
                         "computed": f"{crc16_kermit(message[:-2]):04X}", "ok": True}
    if args.json:
        print(json.dumps(fields, indent=2))
    else:
        _print_fields(fields)
    return 0


def _print_fields(fields: dict, indent: str = "") -> None:
    for key, value in fields.items():
        if isinstance(value, dict):
            print(f"{indent}{key}:")
            _print_fields(value, indent + "  ")
        else:
            print(f"{indent}{key}: {value}")


def run_poll(args: argparse.Namespace) -> int:
    polls.check_address(args.address)
    if not 0 < args.timeout_ms <= 10_000:
        raise SasError(f"--timeout-ms {args.timeout_ms:g}: give 1 to 10000 ms (SAS: 20)")
    link = open_link(args.port, framing=args.framing)
    host = SasHost(link, response_timeout=args.timeout_ms / 1000,
                   ack_address=next(a for a in range(127, 0, -1) if a != args.address))
    result: dict = {"port": args.port, "address": args.address, "framing": link.framing, "replies": {},
                    "exceptions": [], "errors": {}}
    try:
        for command in INFO_POLLS:
            try:
                result["replies"][f"0x{command:02X}"] = reply_fields(host.transact(polls.read_poll(args.address, command)))
            except SasError as exc:
                result["errors"][f"0x{command:02X}"] = str(exc)
        for _ in range(MAX_EXCEPTIONS):
            reply = host.transact(polls.general_poll(args.address))
            if reply.code == 0:
                break
            result["exceptions"].append(reply_fields(reply))
            host.acknowledge()
    finally:
        link.close()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"SAS machine {args.address} on {args.port} ({link.framing} framing)")
        for name, fields in result["replies"].items():
            print(f"{name}:")
            _print_fields({k: v for k, v in fields.items() if k not in ("address", "command")}, "  ")
        for name, error in result["errors"].items():
            print(f"{name}: no reply ({error})")
        print("exceptions: " + (", ".join(f"0x{e['code']:02X} {e['name']}" for e in result["exceptions"]) or "none"))
    return 0 if result["replies"] else 1


def run_sim(args: argparse.Namespace) -> int:
    from drivers.sim.egm import EgmSimulator, PtyLine
    from drivers.sim.egm_machine import EgmProfile

    if not 1 <= args.machines <= 126:
        raise SasError("--machines: 1 to 126")
    profiles = [EgmProfile(address=a, serial=f"SIM{a:07d}", rtp=Fraction(args.rtp),
                           base_pct_hundredths=round(args.base_pct * 100), games_per_second=args.games_per_second,
                           progressive_group=args.progressive_group, seed=a, attendant_resets=True)
                for a in range(1, args.machines + 1)]
    line = PtyLine(pace=args.pace) if args.port == "pty" else None
    link = line.link if line else open_link(args.port, framing=args.framing, pace=args.pace)
    simulator = EgmSimulator.from_profiles(link, profiles)
    where = line.path if line else args.port
    print(f"EGM simulator: {args.machines} machine(s) at addresses 1..{args.machines} on {where} "
          f"({link.framing} framing); Ctrl-C to stop", flush=True)
    stop = StopSignal().install()
    simulator.start()  # answers on its own thread; the main thread only waits for the stop
    try:
        stop.wait()
    finally:
        simulator.stop()
        (line or link).close()
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from ..journal import Journal
    from ..slots.config import load_slots_config
    from ..slots.service import SlotService, mqtt_link

    config = load_slots_config(args.config)
    journal = Journal.open(config.service.journal)
    service = SlotService(config, journal=journal, mqtt=mqtt_link(config)).start()
    done = StopSignal().install()
    print(f"slot service {config.service.site}: {len(service.machines)} machine(s) on "
          f"{len(config.ports)} port(s), publishing under {config.mqtt.prefix}/slots", flush=True)
    done.wait()
    service.stop()
    journal.close()
    return 0 if service.error is None else 1

