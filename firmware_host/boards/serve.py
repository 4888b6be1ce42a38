"""`make board`: the reference board page against a simulated table, on this machine.

Starts a loopback Mosquitto with an MQTT and a websockets listener, the simulated table — the
service itself (`tablehw run --config config/sim-<game>.toml --simulate`) when a simulation config
exists for the game, else the replay stand-in (`tablehw board --publish`) — and a static HTTP
server for firmware_host/board/; prints the page's address and runs until Ctrl-C / SIGTERM (or
--seconds). A port already in use, or a part that will not start, ends it with one line and exit
status 1; whatever was started is stopped in every case, so no Mosquitto is left behind.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from ..stop_signal import StopSignal

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "firmware_host" / "board"
POLL_S = 0.1  # how often the main loop looks at the stop request and the children


class ServeError(Exception):
    """Why `make board` cannot go on: printed as one line, exit status 1."""


class StopRequest(StopSignal):
    """SIGINT/SIGTERM remembered without a lock (stop_signal.py); start-up waits end early through check()."""

    def check(self) -> None:
        """Raise `Stopped` when a signal came (lets start-up waits end early)."""
        if self.is_set():
            raise Stopped()


class Stopped(Exception):
    """A stop was requested while starting."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_in_use(port: int, what: str, option: str, exc: OSError) -> str:
    return (f"port {port} ({what}) is in use ({exc.strerror}): stop what holds it, or pick another port: "
            f"python -m firmware_host.boards.serve {option} N")


def check_port_free(port: int, what: str, option: str, every_interface: bool = False) -> None:
    """Refuse a port another program holds, before anything is started on it. Mosquitto 2.0.11 binds
    its websockets listener on every interface, so that port is checked there too."""
    for host in ("127.0.0.1", "") if every_interface else ("127.0.0.1",):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, port))
            except OSError as exc:
                raise ServeError(port_in_use(port, what, option, exc)) from None


def wait_port(port: int, process: subprocess.Popen, what: str, stop: StopRequest, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        stop.check()
        if process.poll() is not None:
            raise ServeError(f"{what} exited with status {process.returncode} before listening on port {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise ServeError(f"{what} did not listen on port {port} within {timeout_s:.0f} s")


def stop_process(process: subprocess.Popen, timeout_s: float = 10.0) -> None:
    """Terminate a child and wait for it (killed after `timeout_s`): never leave it running."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def start_broker(directory: Path, mqtt_port: int, ws_port: int, stop: StopRequest, stack: ExitStack) -> None:
    """Mosquitto 2.0.11 starts a websockets listener only beside an ordinary one (and binds it on
    every interface whatever the address says: keep this to a development machine)."""
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.access(mosquitto, os.X_OK):
        raise ServeError("mosquitto is not installed (make board installs it with apt)")
    config = directory / "mosquitto.conf"
    lines = [f"listener {mqtt_port} 127.0.0.1", f"listener {ws_port} 127.0.0.1", "protocol websockets",
             "allow_anonymous true", "persistence false"]
    if os.geteuid() == 0:
        lines.append(f"user {getpass.getuser()}")
    config.write_text("\n".join(lines) + "\n")
    process = subprocess.Popen([mosquitto, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stack.callback(stop_process, process)
    wait_port(mqtt_port, process, "mosquitto", stop)
    wait_port(ws_port, process, "mosquitto (websockets)", stop)


def start_page_server(port: int, stack: ExitStack) -> http.server.ThreadingHTTPServer:
    try:
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", port), functools.partial(_QuietHandler, directory=str(PAGE)))
    except OSError as exc:
        raise ServeError(port_in_use(port, "the page's web server", "--http-port", exc)) from None
    stack.callback(server.server_close)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    stack.callback(server.shutdown)  # only once serve_forever runs: shutdown() waits for it
    return server


def table_command(game: str, source: str, broker: str, interval: float, seed: int | None) -> tuple[list[str], str]:
    """The simulated table's command line and its table id."""
    sim = ROOT / "config" / f"sim-{game}.toml"
    tablehw = [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())"]
    if source == "service" or (source == "auto" and sim.exists()):
        if not sim.exists():
            raise ServeError(f"no simulation config {sim.relative_to(ROOT)} for {game}: use --source replay")
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


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make board", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="craps",
                        choices=["craps", "cussec", "banca_francesa", "roulette", "baccarat", "paikao", "blackjack",
                                 "chemin_de_fer"])
    parser.add_argument("--source", default="auto", choices=["auto", "service", "replay"],
                        help="auto: the service when config/sim-<game>.toml exists, else the replay")
    parser.add_argument("--http-port", type=int, default=8080, help="page server port (0: any free port)")
    parser.add_argument("--ws-port", type=int, default=9001, help="broker websockets port (0: any free port)")
    parser.add_argument("--mqtt-port", type=int, default=0, help="broker MQTT port (0: any free port)")
    parser.add_argument("--interval", type=float, default=3.0, help="replay: seconds between results")
    parser.add_argument("--seed", type=int, help="replay: random seed")
    parser.add_argument("--lang", help="the page's languages, e.g. zh,en (default: the table's [board] languages)")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    return parser.parse_args(argv)


def serve(args: argparse.Namespace, stop: StopRequest) -> int:
    """Start everything, run until asked to stop; the ExitStack stops what was started, in reverse."""
    with ExitStack() as stack:
        server = start_page_server(args.http_port, stack)
        ws_port = args.ws_port or free_port()
        check_port_free(ws_port, "the broker's websockets listener", "--ws-port", every_interface=True)
        mqtt_port = args.mqtt_port or free_port()
        check_port_free(mqtt_port, "the broker's MQTT listener", "--mqtt-port")
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="tablehw-board-"))
        start_broker(Path(tmp), mqtt_port, ws_port, stop, stack)
        command, table_id = table_command(args.game, args.source, f"mqtt://127.0.0.1:{mqtt_port}",
                                          args.interval, args.seed)
        table = subprocess.Popen(command, cwd=ROOT)
        stack.callback(stop_process, table)
        url = (f"http://127.0.0.1:{server.server_address[1]}/index.html?table={table_id}"
               f"&broker=ws://127.0.0.1:{ws_port}" + (f"&lang={args.lang}" if args.lang else ""))
        print(f"board: {url}\n(table: {' '.join(command[3:])}; Ctrl-C stops)", flush=True)
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
            if table.poll() is not None:
                raise ServeError(f"the simulated table exited with status {table.returncode}")
            time.sleep(POLL_S)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    stop = StopRequest()
    stop.install()
    try:
        return serve(args, stop)
    except Stopped:
        return 0
    except ServeError as exc:
        print(f"make board: {exc}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
