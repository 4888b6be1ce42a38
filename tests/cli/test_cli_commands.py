"""The `tablehw` entry point as a real process: --version, --help without OpenCV, config check."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from firmware_host.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
TABLEHW = [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())"]
HEAVY = ("cv2", "numpy", "paho", "gpiozero", "serial", "prometheus_client")


def tablehw(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*TABLEHW, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def modules_loaded_by(*argv: str) -> set[str]:
    """The heavy packages a `tablehw ARGV` process has imported by the time it exits."""
    probe = (f"import sys\nfrom firmware_host.cli import main\ntry:\n    main({list(argv)!r})\nexcept SystemExit:\n"
             f"    pass\nprint(*sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


def test_version_says_the_installed_version():
    done = tablehw("--version")
    assert done.returncode == 0 and done.stdout.startswith(f"tablehw {version('tablehw')} (Python ")


def test_help_lists_every_command_and_loads_nothing_heavy():
    start = time.monotonic()
    done = tablehw("--help")
    seconds = time.monotonic() - start
    assert done.returncode == 0 and all(f"    {name}" in done.stdout for name in COMMANDS)
    print(f"\ntablehw --help: {seconds:.2f} s wall (a fresh interpreter included)")


@pytest.mark.parametrize("argv", [("--help",), ("run", "--help"), ("config", "check", "--help"),
                                  ("edge", "--help"), ("recall", "--help"), ("settle", "--help")])
def test_commands_that_need_no_opencv_do_not_import_it(argv):
    loaded = modules_loaded_by(*argv)
    assert "cv2" not in loaded, loaded
    if argv == ("--help",):
        assert not loaded, loaded


def test_vision_does_import_opencv():
    """The probe sees what is imported: vision needs OpenCV and loads it."""
    assert "cv2" in modules_loaded_by("vision", "read", "--help")


def test_command_list_help_is_each_modules_own():
    for name, help_text in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"firmware_host.cli.{name}_cmd").register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered == {name: help_text}, name


# --- config check ------------------------------------------------------------------------------
BAD = '''version = 1
[game]
name = "crapz"
[limits]
minimum = 100
maximum = 1000
colour = 1
per_bet_maximum = { aces = 0 }
'''


def test_config_check_passes_every_example_config():
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "config").glob("*.toml"))
    done = tablehw("config", "check", *files)
    assert done.returncode == 0, done.stdout
    assert [line.split(": ok: ")[0] for line in done.stdout.splitlines()] == files


def test_config_check_lists_every_problem_with_key_path_and_choices(tmp_path):
    bad = tmp_path / "craps-1.toml"
    bad.write_text(BAD)
    done = tablehw("config", "check", str(bad), str(ROOT / "config" / "sim-craps.toml"))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == f"{bad}: 3 problems:"
    assert lines[1] == ("  game.name: 'crapz' is not one of: 'craps', 'cussec', 'banca_francesa', 'paikao', "
                        "'punto_banco', 'chemin_de_fer', 'blackjack', 'roulette'")
    assert lines[2] == ("  limits.colour: unknown key; valid keys: minimum, maximum, per_bet_maximum, stake_step, "
                        "all_multiples_of_minimum")
    assert lines[3] == "  limits.per_bet_maximum.aces: Expected `int` >= 1"
    assert lines[4].endswith("sim-craps.toml: ok: table sim-craps, craps (macau-2010), MOP")
    documented = (ROOT / "docs" / "config.md").read_text()  # docs/config.md shows this very output
    assert all(line in documented for line in lines[1:4])


def test_config_check_reports_files_it_cannot_read_and_rule_book_problems(tmp_path):
    not_toml = tmp_path / "a.toml"
    not_toml.write_text("version = 1\n[game\n")
    rule_book = tmp_path / "b.toml"
    rule_book.write_text('version = 1\n[game]\nname = "craps"\nrulebook = "macau-1985"\nfield_12_pays = "3:1"\n'
                         '[limits]\nminimum = 10\nmaximum = 100\n[table]\nid = "t"\n'
                         f'camera_calibration = "{tmp_path / "missing.json"}"\n')
    done = tablehw("config", "check", "--json", str(not_toml), str(rule_book), str(tmp_path / "none.toml"))
    assert done.returncode == 1
    files = {Path(f["file"]).name: f for f in json.loads(done.stdout)["files"]}
    assert not any(f["ok"] for f in files.values())
    assert "not valid TOML" in files["a.toml"]["problems"][0]["message"]
    assert "cannot read" in files["none.toml"]["problems"][0]["message"]
    paths = {p["path"]: p["message"] for p in files["b.toml"]["problems"]}
    assert "field 12 pays" in paths["game"] and "cannot read" in paths["table.camera_calibration"]


def test_run_refuses_a_bad_config_with_the_same_list(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text(BAD)
    done = tablehw("run", "--config", str(bad), "--simulate")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{bad}: 3 problems:" in done.stderr and "limits.colour: unknown key" in done.stderr


def test_a_parser_built_without_a_command_line_knows_every_command_in_full():
    """For tools and tests that parse many command lines with one parser (the CLI fuzz tests)."""
    from firmware_host.cli import build_parser

    parser, _ = build_parser()
    assert parser.parse_args(["run", "--config", "t.toml", "--seed", "3"]).seed == 3
    assert parser.parse_args(["config", "check", "a.toml"]).files == [Path("a.toml")]


def test_config_check_reports_what_the_camera_would_refuse_in_the_calibration(tmp_path):
    """A calibration file the camera cannot use, a camera leaning more than the reader was validated for (vision/
    camera_check.py) and an empty-table photo of a felt the reader was not validated on (vision/felt_check.py), each
    unless the config says it was checked (`table.camera_unvalidated_tilt`, `_felt`): found before the table starts."""
    import numpy as np

    from vision.calibration import calibrate
    from vision.synthetic import render
    from vision.synthetic_scenes import camera_leaning, random_rig

    rng = np.random.default_rng(3)
    rig = random_rig("craps", rng)
    rig = rig.on_felt((96, 96, 96), "grey")
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    grey = tmp_path / "grey.json"
    calibrate(empty, rig.layout, float(rig.camera.position[2])).save(grey, empty_table=empty)
    leaning = tmp_path / "leaning.json"  # a camera leaning more than the reader was validated for (camera_check.py)
    rig = camera_leaning(random_rig("craps", rng), 4.0, 1.0)
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    calibrate(empty, rig.layout, float(rig.camera.position[2])).save(leaning, empty_table=empty)
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1}')
    head = 'version = 1\n[game]\nname = "craps"\nrulebook = "macau-1985"\n[limits]\nminimum = 10\nmaximum = 100\n'
    files = {"grey.toml": f'[table]\nid = "t"\ncamera_calibration = "{grey}"\n',
             "checked.toml": f'[table]\nid = "t"\ncamera_calibration = "{grey}"\ncamera_unvalidated_felt = true\n',
             "leaning.toml": f'[table]\nid = "t"\ncamera_calibration = "{leaning}"\n',
             "leaning_checked.toml": f'[table]\nid = "t"\ncamera_calibration = "{leaning}"\n'
                                     'camera_unvalidated_tilt = true\n',
             "broken.toml": f'[table]\nid = "t"\ncamera_calibration = "{broken}"\n'}
    for name, table in files.items():
        (tmp_path / name).write_text(head + table)
    done = tablehw("config", "check", "--json", *(str(tmp_path / name) for name in files))
    assert done.returncode == 1
    found = {Path(f["file"]).name: f for f in json.loads(done.stdout)["files"]}
    assert found["checked.toml"]["ok"] and found["leaning_checked.toml"]["ok"]
    leaning_problem = {p["path"]: p["message"] for p in found["leaning.toml"]["problems"]}["table.camera_calibration"]
    assert "the camera leans 4.0 degrees" in leaning_problem and "camera_unvalidated_tilt = true" in leaning_problem
    grey_problem = {p["path"]: p["message"] for p in found["grey.toml"]["problems"]}["table.camera_calibration"]
    assert "more neutral than any the pose network was trained" in grey_problem
    assert "[table] camera_unvalidated_felt = true" in grey_problem
    broken_problem = {p["path"]: p["message"] for p in found["broken.toml"]["problems"]}["table.camera_calibration"]
    assert "missing or malformed key" in broken_problem
