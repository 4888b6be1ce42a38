"""JSON Schemas (2020-12) of the table config and of every MQTT payload, generated from their msgspec types.

The files under docs/schema/ are this module's output (`make schemas`); tests/schema regenerates them
and fails when a committed file is stale, and validates live payloads and docs/mqtt.md's examples
against them. Beyond msgspec's own schema:

- a payload the controller sends is closed and complete: every field it encodes is listed and
  required (the encoder always writes them; `omit_defaults` structs keep only their non-defaults),
  nothing else may appear;
- `result.outcome`, `result.cards` and `state.game_state` follow the game (mqtt/game_views.py).

    python -m firmware_host.schemas docs/schema
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

import msgspec

from .boards.payload import BoardMessage
from .config import TableConfig
from .mqtt import contract as c
from .mqtt.game_views import GAME_STATES, OUTCOMES, Hands, VoidOutcome

DRAFT = "https://json-schema.org/draft/2020-12/schema"

# What the controller publishes: file name (the payload's `type`) -> (struct, topic under T/)
OUTGOING: dict[str, tuple[type, str]] = {
    "availability": (c.Availability, "T/availability"),
    "state": (c.TableState, "T/state"),
    "result": (c.ResultPayload, "T/result"),
    "settlement": (c.SettlementPayload, "T/settlement"),
    "event": (c.EventPayload, "T/events"),
    "board": (BoardMessage, "T/board"),
    "bet_response": (c.BetResponse, "the request's response topic or <prefix>/replies/<user>/tables/<table>/bets"),
    "console_response": (c.ConsoleResponse,
                         "the request's response topic or <prefix>/replies/<user>/tables/<table>/console"),
    "recall_response": (c.RecallResponse,
                        "the request's response topic or <prefix>/replies/<user>/tables/<table>/recall"),
    "messages_response": (c.MessagesResponse,
                          "the request's response topic or <prefix>/replies/<user>/tables/<table>/recall"),
}
# What the back-office ledger publishes (docs/ledger.md): file name (the payload's `type`) -> (struct, topic)
LEDGER: dict[str, tuple[type, str]] = {
    "anchor": (c.Anchor, "<prefix>/ledger/anchors/<table_id>, retained, by the back-office ledger"),
}
# What it accepts: file name (the request's `type`) -> (struct, topic; <user> is the sender's broker user)
INCOMING: dict[str, tuple[type, str]] = {
    "bet": (c.BetRequest, "T/bets/<user>"),
    "withdraw": (c.WithdrawRequest, "T/bets/<user>"),
    "recall": (c.RecallRequest, "T/recall/<user>"),
    "messages": (c.MessagesRequest, "T/recall/<user>"),
    "console": (c.ConsoleRequest, "T/console/<user>"),
}


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every schema file: its path under docs/schema/ -> the schema."""
    files = {"config.json": document(TableConfig, "tablehw table configuration (TOML, docs/config.md)",
                                     outgoing=False)}
    for name, (struct, topic) in OUTGOING.items():
        files[f"mqtt/{name}.json"] = document(struct, f"`{name}`: published on {topic} (docs/mqtt.md)",
                                              outgoing=True)
    for name, (struct, topic) in LEDGER.items():
        files[f"mqtt/{name}.json"] = document(struct, f"`{name}`: published on {topic} (docs/mqtt.md)",
                                              outgoing=True)
    for name, (struct, topic) in INCOMING.items():
        files[f"mqtt/{name}.json"] = document(struct, f"`{name}` request: accepted on {topic} (docs/mqtt.md)",
                                              outgoing=False)
    return files


def document(root: type, title: str, *, outgoing: bool) -> dict[str, Any]:
    extra = [*OUTCOMES.values(), VoidOutcome, Hands, *GAME_STATES.values()] if outgoing else []
    (schema, *_), components = msgspec.json.schema_components([root, *extra], ref_template="#/$defs/{name}")
    structs = {cls.__name__: cls for cls in struct_types([root, *extra])}
    for name, component in components.items():
        if outgoing and name in structs:
            close(component, structs[name])
    if "ResultPayload" in components:
        by_game(components["ResultPayload"], "outcome", OUTCOMES, void=VoidOutcome)
        components["ResultPayload"]["allOf"].append(when({"game": "punto_banco", "void": False}, "cards", Hands))
    if "TableState" in components:
        by_game(components["TableState"], "game_state", GAME_STATES)
    used = referenced(schema, components)
    return {"$schema": DRAFT, "title": title, **schema, "$defs": {k: v for k, v in components.items() if k in used}}


def close(component: dict[str, Any], cls: type) -> None:
    """What the encoder writes, exactly: all fields required (unless omitted at their default), no others."""
    component["additionalProperties"] = False
    if not cls.__struct_config__.omit_defaults:
        component["required"] = list(component.get("properties", {}))


def by_game(component: dict[str, Any], field: str, views: dict[str, type], *, void: type | None = None) -> None:
    """`field` follows `game` (a void result's outcome is `void`'s)."""
    rules = component.setdefault("allOf", [])
    if void is not None:
        rules.append(when({"void": True}, field, void))
    for game, view in views.items():
        rules.append(when({"game": game} | ({"void": False} if void is not None else {}), field, view))


def when(match: dict[str, Any], field: str, view: type) -> dict[str, Any]:
    return {"if": {"properties": {k: {"const": v} for k, v in match.items()}, "required": list(match)},
            "then": {"properties": {field: {"$ref": f"#/$defs/{view.__name__}"}}}}


def struct_types(roots: list[type]) -> Iterator[type]:
    """Every Struct class reachable from `roots`."""
    seen: set[int] = set()
    stack = list(msgspec.inspect.multi_type_info(roots))
    while stack:
        info = stack.pop()
        if id(info) in seen:
            continue
        seen.add(id(info))
        if isinstance(info, msgspec.inspect.StructType):
            yield info.cls
            stack.extend(f.type for f in info.fields)
        else:
            stack.extend(getattr(info, attr) for attr in ("item_type", "key_type", "value_type", "type")
                         if isinstance(getattr(info, attr, None), msgspec.inspect.Type))
            stack.extend(getattr(info, "types", ()) or getattr(info, "item_types", ()))


def referenced(schema: Any, components: dict[str, Any]) -> set[str]:
    """The component names `schema` needs, directly or through other components."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            name = ref.removeprefix("#/$defs/") if ref.startswith("#/$defs/") else None
            if name and name not in found:
                found.add(name)
                pending.append(components[name])
            pending.extend(v for k, v in node.items() if k != "$ref")
        elif isinstance(node, list):
            pending.extend(node)
    return found


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def write(folder: Path) -> list[Path]:
    """Rewrite every schema file under `folder`; returns the paths written."""
    written = []
    for name, schema in all_schemas().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m firmware_host.schemas FOLDER   (make schemas: docs/schema)", file=sys.stderr)
        return 2
    for path in write(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
