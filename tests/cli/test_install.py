"""The install: `make run` pulls no test or browser packages, the locks pin every dependency with hashes."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
LOCK, TEST_LOCK = ROOT / "requirements.lock", ROOT / "requirements-test.lock"
TEST_ONLY = {"pytest", "pytest-timeout", "hypothesis", "crapssim", "jsonschema", "playwright", "greenlet"}
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def pins(lock: Path) -> dict[str, tuple[str, str | None, int]]:
    """name -> (version, marker, number of hashes) of every pin in a lock file."""
    found: dict[str, tuple[str, str | None, int]] = {}
    name = None
    for line in lock.read_text().splitlines():
        match = PIN.match(line)
        if match:
            name = match.group(1).lower().replace("_", "-")
            found[name] = (match.group(2), match.group(3), 0)
        elif name and line.strip().startswith("--hash=sha256:"):
            pinned, marker, hashes = found[name]
            found[name] = (pinned, marker, hashes + 1)
    return found


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def make_dry_run(tmp_path: Path, target: str) -> str:
    """`make -n TARGET` in a scratch copy holding only what a clean clone's Makefile reads (no venv)."""
    for name in ("Makefile", "pyproject.toml", LOCK.name, TEST_LOCK.name):
        shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_on_a_clean_clone_installs_no_browser_and_no_test_extras(tmp_path):
    run = make_dry_run(tmp_path, "run")
    assert f"-r {LOCK.name}" in run and "--require-hashes" in run and "mosquitto" in run
    for pulled in ("chromium", "playwright", TEST_LOCK.name, "socat", "[test", "browser"):
        assert pulled not in run, f"`make run` would install {pulled}"
    test = make_dry_run(tmp_path, "test")  # the contrast: `make test` does install them
    assert f"-r {TEST_LOCK.name}" in test and "chromium" in test and "socat" in test


def test_production_lock_holds_no_test_or_browser_package():
    assert not TEST_ONLY & set(pins(LOCK)), "a test or browser package in the production lock"
    assert TEST_ONLY - {"greenlet"} <= set(pins(TEST_LOCK))


@pytest.mark.parametrize("lock,extras", [(LOCK, ()), (TEST_LOCK, ("test", "browser"))])
def test_lock_pins_every_dependency_inside_pyproject_ranges_with_hashes(lock, extras):
    """A dependency added to pyproject.toml without `make lock`, or a pin outside its range, fails here."""
    locked = pins(lock)
    wanted = project()["dependencies"] + [r for extra in extras for r in project()["optional-dependencies"][extra]]
    for text in wanted:
        requirement = Requirement(text)
        name = requirement.name.lower().replace("_", "-")
        assert name in locked, f"{name} is in pyproject.toml but not in {lock.name}: run `make lock`"
        assert requirement.specifier.contains(locked[name][0], prereleases=True), \
            f"{lock.name} pins {name}=={locked[name][0]}, outside pyproject.toml's {requirement.specifier}"
    assert all(hashes >= 1 for _, _, hashes in locked.values()), "a pin without hashes"


def test_test_lock_agrees_with_the_production_lock():
    production, test = pins(LOCK), pins(TEST_LOCK)
    assert {n: v[0] for n, v in production.items()} == {n: test[n][0] for n in production}


def test_this_environment_was_installed_from_the_lock():
    """The tests run on exactly the versions a table gets (after a lock change: `make venv`)."""
    environment = default_environment()
    wrong = []
    for name, (pinned, marker, _) in pins(TEST_LOCK).items():
        if marker and not Requirement(f"{name}; {marker}").marker.evaluate(environment):
            continue
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "missing"
        if installed != pinned:
            wrong.append(f"{name} {installed} (lock: {pinned})")
    assert not wrong, "not the locked versions (run `make venv`): " + ", ".join(wrong)
