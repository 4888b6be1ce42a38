"""`make board`: the reference board page against a simulated table, on this machine.

Starts a loopback Mosquitto with an MQTT and a websockets listener, the simulated table — the
service itself (`tablehw run --config config/sim-<game>.toml --simulate`) when a simulation config
exists for the game, else the replay stand-in (`tablehw board --publish`) — and a static HTTP
server for firmware_host/board/; prints the page's address and runs until Ctrl-C (or --seconds).
"""

from __future__ import annotations

import argparse
import functools
import getpass
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "firmware_host" / "board"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, process: subprocess.Popen, what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not listen on port {port} within {timeout_s:.0f} s")


def start_broker(directory: Path, mqtt_port: int, ws_port: int) -> subprocess.Popen:
    """Mosquitto 2.0.11 starts a websockets listener only beside an ordinary one (and binds it on
    every interface whatever the address says: keep this to a development machine)."""
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    config = directory / "mosquitto.conf"
    lines = [f"listener {mqtt_port} 127.0.0.1", f"listener {ws_port} 127.0.0.1", "protocol websockets",
             "allow_anonymous true", "persistence false"]
    if os.geteuid() == 0:
        lines.append(f"user {getpass.getuser()}")
    config.write_text("\n".join(lines) + "\n")
    process = subprocess.Popen([mosquitto, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(mqtt_port, process, "mosquitto")
    wait_port(ws_port, process, "mosquitto (websockets)")
    return process


def table_command(game: str, source: str, broker: str, interval: float, seed: int | None) -> tuple[list[str], str]:
    """The simulated table's command line and its table id."""
    sim = ROOT / "config" / f"sim-{game}.toml"
    tablehw = [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())"]
    if source == "service" or (source == "auto" and sim.exists()):
        if not sim.exists():
            raise SystemExit(f"no simulation config {sim.relative_to(ROOT)} for {game}: use --source replay")
        from ..config import load_config

        table_id = load_config(sim).table.id
        return tablehw + ["run", "--config", str(sim), "--simulate", "--mqtt", broker], table_id
    table_id = f"demo-{game}"
    command = tablehw + ["board", "--game", game, "--publish", broker, "--table", table_id,
                         "--interval", str(interval)]
    examples = {"craps": "craps-macau-2010", "cussec": "cussec-portugal-1995",
                "banca_francesa": "banca-francesa-portugal-1995", "roulette": "roulette-french-portugal-1995",
                "baccarat": "punto-banco-portugal-1995", "paikao": "paikao-macau"}
    command += ["--config", str(ROOT / "config" / f"{examples[game]}.toml")]
    if seed is not None:
        command += ["--seed", str(seed)]
    return command, table_id


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make board", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="craps",
                        choices=["craps", "cussec", "banca_francesa", "roulette", "baccarat", "paikao"])
    parser.add_argument("--source", default="auto", choices=["auto", "service", "replay"],
                        help="auto: the service when config/sim-<game>.toml exists, else the replay")
    parser.add_argument("--http-port", type=int, default=8080, help="page server port (0: any free port)")
    parser.add_argument("--ws-port", type=int, default=9001, help="broker websockets port (0: any free port)")
    parser.add_argument("--mqtt-port", type=int, default=0, help="broker MQTT port (0: any free port)")
    parser.add_argument("--interval", type=float, default=3.0, help="replay: seconds between results")
    parser.add_argument("--seed", type=int, help="replay: random seed")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    args = parser.parse_args(argv)
    mqtt_port, ws_port = args.mqtt_port or free_port(), args.ws_port or free_port()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with tempfile.TemporaryDirectory(prefix="tablehw-board-") as tmp:
        broker = start_broker(Path(tmp), mqtt_port, ws_port)
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", args.http_port), functools.partial(_QuietHandler, directory=str(PAGE)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        command, table_id = table_command(args.game, args.source, f"mqtt://127.0.0.1:{mqtt_port}",
                                          args.interval, args.seed)
        table = subprocess.Popen(command, cwd=ROOT)
        url = (f"http://127.0.0.1:{server.server_address[1]}/index.html?table={table_id}"
               f"&broker=ws://127.0.0.1:{ws_port}")
        print(f"board: {url}\n(table: {' '.join(command[3:])}; Ctrl-C stops)", flush=True)
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        try:
            while not stop.wait(0.2) and (deadline is None or time.monotonic() < deadline):
                if table.poll() is not None:
                    print(f"the simulated table exited with status {table.returncode}", flush=True)
                    break
        finally:
            for process in (table, broker):
                if process.poll() is None:
                    process.terminate()
                    try:
                        process.wait(10)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait(5)
            server.shutdown()
            server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
