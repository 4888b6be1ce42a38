"""The committed schemas of docs/schema/, as validators: every payload checked against the file of its `type`."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schema"


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    """The validator of docs/schema/<name>.json (`mqtt/result`, `config` ...)."""
    schema = json.loads((SCHEMAS / f"{name}.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def payload_problems(payload: dict) -> list[str]:
    """What is wrong with one MQTT payload by the schema of its `type` (empty: it conforms)."""
    kind = payload.get("type")
    if not isinstance(kind, str) or not (SCHEMAS / "mqtt" / f"{kind}.json").exists():
        return [f"no schema for a payload of type {kind!r}"]
    return [f"{'/'.join(map(str, e.absolute_path)) or '(payload)'}: {e.message}"
            for e in validator(f"mqtt/{kind}").iter_errors(payload)]
