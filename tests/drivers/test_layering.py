"""The device layer never imports the service (COMMON rule: firmware_host -> drivers, never back)."""

from __future__ import annotations

import ast
from pathlib import Path

DRIVERS = Path(__file__).resolve().parents[2] / "drivers"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_module_under_drivers_imports_firmware_host():
    offenders = {str(p.relative_to(DRIVERS)): sorted(m for m in imported_modules(p) if m.split(".")[0] == "firmware_host")
                 for p in DRIVERS.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
