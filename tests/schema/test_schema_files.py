"""docs/schema/ is what the code generates, and docs/mqtt.md's and config/'s examples conform to it."""

from __future__ import annotations

import copy
import json
import re
import tomllib

import pytest

from firmware_host.schemas import INCOMING, LEDGER, OUTGOING, all_schemas, render

from .payload_schemas import ROOT, SCHEMAS, payload_problems, validator

MQTT_DOC = ROOT / "docs" / "mqtt.md"


def test_committed_schemas_are_what_the_code_generates():
    stale = [name for name, schema in all_schemas().items()
             if not (SCHEMAS / name).exists() or (SCHEMAS / name).read_text(encoding="utf-8") != render(schema)]
    assert not stale, f"stale or missing under docs/schema/: {stale}; run `make schemas` and commit"


def test_no_schema_file_without_a_type_behind_it():
    generated = set(all_schemas())
    on_disk = {str(p.relative_to(SCHEMAS)) for p in SCHEMAS.rglob("*.json")}
    assert on_disk == generated, f"left over: {sorted(on_disk - generated)}"


def doc_examples() -> list[dict]:
    """Every JSON object in a ```json block of docs/mqtt.md (a block may hold several, one after another)."""
    found = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", MQTT_DOC.read_text(encoding="utf-8"), flags=re.S):
        text, at = block.strip(), 0
        while at < len(text):
            try:
                example, at = decoder.raw_decode(text, at)
            except json.JSONDecodeError as exc:
                pytest.fail(f"docs/mqtt.md: a ```json block is not JSON ({exc}):\n{block[:300]}")
            found.append(example)
            while at < len(text) and text[at].isspace():
                at += 1
    return found


def test_every_json_example_in_mqtt_doc_conforms_to_its_schema():
    examples = doc_examples()
    wrong = {f"{e.get('type')} #{i}": payload_problems(e) for i, e in enumerate(examples)}
    assert not {k: v for k, v in wrong.items() if v}
    documented = {e["type"] for e in examples}
    assert documented == set(OUTGOING) | set(INCOMING) | set(LEDGER), "a payload type without an example in docs/mqtt.md"


def test_the_schema_refuses_what_the_old_document_said():
    """The per-game rules bite: the document's old baccarat example (cards "9h", `player_total`) and an
    availability without `schema` are refused, as a field the wire does not carry would be."""
    result = next(e for e in doc_examples() if e["type"] == "result")
    old = dict(result, game="punto_banco", faces=None, total=None,
               cards={"player": ["9h", "Kd"], "banker": ["3c", "4s", "2d"]},
               outcome={"winner": "banker", "player_total": 9, "banker_total": 9})
    said = " ".join(payload_problems(old))
    assert "'9h' does not match" in said and "player_total" in said
    assert payload_problems({"type": "availability", "table": "t", "state": "online", "reason": None})
    extra = copy.deepcopy(result)
    extra["outcome"]["point"] = 6
    assert payload_problems(extra) and payload_problems(dict(result, colour="red"))


@pytest.mark.parametrize("path", sorted((ROOT / "config").glob("*.toml")), ids=lambda p: p.name)
def test_every_example_config_conforms_to_the_config_schema(path):
    errors = [e.message for e in validator("config").iter_errors(tomllib.loads(path.read_text()))]
    assert not errors


def test_the_config_schema_refuses_what_the_loader_refuses():
    data = tomllib.loads((ROOT / "config" / "sim-craps.toml").read_text())
    data["game"]["name"] = "crapz"
    data["limits"]["colour"] = 1
    assert len(list(validator("config").iter_errors(data))) >= 2
