"""Every problem of some data against a msgspec schema at once, each with its key path and the valid choices.

msgspec stops at the first problem; an operator fixing a config wants all of them in one go:

    problems({"game": {"name": "crapz"}, "limits": {}}, TableConfig)
    -> [Problem("version", "missing (required)"),
        Problem("game.name", "'crapz' is not one of: 'craps', 'cussec', ..."),
        Problem("limits.minimum", "missing (required)"), ...]

The walk follows the schema's own types (structs, tagged unions, dicts, lists, literals) and converts
each leaf with msgspec, so the checks themselves stay msgspec's; only the reporting is done here.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

_AT = re.compile(r" - at `\$((?:\.[A-Za-z0-9_\-]+|\[(?:\d+|\.\.\.)\])*)`$")
_KEY = re.compile(r" - at `key` in `\$((?:\.[A-Za-z0-9_\-]+|\[(?:\d+|\.\.\.)\])*)`$")  # a bad dict key


@dataclass(frozen=True)
class Problem:
    """One thing wrong: where (a dotted key path; list items by index) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(top level)'}: {self.message}"


def key_path_of(error: msgspec.ValidationError) -> tuple[str, str]:
    """Split a msgspec error into (dotted key path, message); a dict entry shows as `[...]`."""
    text = str(error)
    key = _KEY.search(text)
    if key:
        return f"{key.group(1).lstrip('.')}.<key>", f"a key: {text[: key.start()]}"
    match = _AT.search(text)
    path, message = ("", text) if not match else (match.group(1).lstrip("."), text[: match.start()])
    path = re.sub(r"\[(\d+)\]", r".\1", path).replace("[...]", ".[...]")
    unknown = re.match(r"Object contains unknown field `([^`]+)`", message)
    if unknown:
        return (f"{path}.{unknown.group(1)}" if path else unknown.group(1)), "unknown key"
    return path, message


def problems(data: Any, schema: Any) -> list[Problem]:
    """Every problem of `data` read as `schema` (empty when msgspec.convert accepts it)."""
    try:
        msgspec.convert(data, schema)
    except msgspec.ValidationError as exc:
        return _walk(data, schema, ()) or [Problem(*key_path_of(exc))]
    return []


def convert_strict(data: object, schema: Any, source: str, error_type: type[Exception]):
    """msgspec.convert, or `error_type` naming `source` and every problem with its key path."""
    try:
        return msgspec.convert(data, schema)
    except msgspec.ValidationError:
        found = problems(data, schema)
    raise error_type(report(source, found))


def report(source: str, found: list[Problem]) -> str:
    """`source: path: message` for one problem; a count and one indented line each for more."""
    if len(found) == 1:
        return f"{source}: {found[0]}"
    return f"{source}: {len(found)} problems:\n" + "\n".join(f"  {p}" for p in found)


# --- the walk ------------------------------------------------------------------------------------
def _walk(data: Any, schema: Any, path: tuple[str, ...]) -> list[Problem]:
    bare = _without_metadata(schema)
    origin = get_origin(bare)
    if origin in (Union, types.UnionType):
        return _union(data, schema, get_args(bare), path)
    if isinstance(bare, type) and issubclass(bare, msgspec.Struct):
        return _struct(data, bare, path)
    if origin is dict and isinstance(data, dict):
        key_type, value_type = get_args(bare)
        found = []
        for key, value in data.items():
            found += [Problem(_join(path, str(key)), f"key {key!r}: {p.message}") for p in _leaf(key, key_type, ())]
            found += _walk(value, value_type, path + (str(key),))
        return found or _leaf(data, schema, path)
    if origin is list and isinstance(data, list):
        (item_type,) = get_args(bare)
        found = [p for i, item in enumerate(data) for p in _walk(item, item_type, path + (str(i),))]
        return found or _leaf(data, schema, path)
    return _leaf(data, schema, path)


def _union(data: Any, schema: Any, members: tuple, path: tuple[str, ...]) -> list[Problem]:
    present = [m for m in members if m is not type(None)]
    if data is None and len(present) < len(members):
        return []
    structs = [m for m in present if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    if structs and len(structs) == len(present) and structs[0].__struct_config__.tag_field:
        return _tagged(data, structs, path)
    if len(present) == 1:
        return _walk(data, present[0], path)
    return _leaf(data, schema, path)


def _tagged(data: Any, structs: list[type], path: tuple[str, ...]) -> list[Problem]:
    """A tagged union ([game]): the tag picks the struct; a wrong tag lists the valid ones."""
    tag_field = structs[0].__struct_config__.tag_field
    by_tag = {s.__struct_config__.tag: s for s in structs}
    if not isinstance(data, dict):
        return _leaf(data, structs[0], path)
    valid = "one of: " + ", ".join(repr(t) for t in by_tag)
    if tag_field not in data:
        return [Problem(_join(path, tag_field), f"missing (required); {valid}")]
    tag = data[tag_field]
    if tag not in by_tag:
        return [Problem(_join(path, tag_field), f"{tag!r} is not {valid}")]
    return _struct(data, by_tag[tag], path)


def _struct(data: Any, cls: type, path: tuple[str, ...]) -> list[Problem]:
    if not isinstance(data, dict):
        return _leaf(data, cls, path)
    config = cls.__struct_config__
    fields = {f.encode_name: f for f in msgspec.structs.fields(cls)}
    found = []
    if config.forbid_unknown_fields:
        known = [*fields] + ([config.tag_field] if config.tag_field else [])
        found += [Problem(_join(path, str(key)), f"unknown key; valid keys: {', '.join(known)}")
                  for key in data if key not in known]
    for name, field in fields.items():
        if name in data:
            found += _walk(data[name], field.type, path + (name,))
        elif field.required:
            found.append(Problem(_join(path, name), "missing (required)"))
    return found or _leaf(data, cls, path)


def _leaf(data: Any, schema: Any, path: tuple[str, ...]) -> list[Problem]:
    try:
        msgspec.convert(data, schema)
    except msgspec.ValidationError as exc:
        inner, message = key_path_of(exc)
        choices, described = _literal_choices(schema), _description(schema)
        if described and "matching regex" in message:
            message = f"{data!r} is not {described}"
        elif choices:
            message = f"{data!r} is not one of: {choices}" if not message.startswith("Expected") else \
                f"{message}; one of: {choices}"
        return [Problem(_join(path, *(inner.split(".") if inner else ())), message)]
    return []


def _literal_choices(schema: Any) -> str:
    bare = _without_metadata(schema)
    if get_origin(bare) in (Union, types.UnionType):
        literals = [a for a in get_args(bare) if get_origin(_without_metadata(a)) is Literal]
        bare = _without_metadata(literals[0]) if len(literals) == 1 else bare
    if get_origin(bare) is not Literal:
        return ""
    return ", ".join(repr(v) for v in get_args(bare))


def _description(schema: Any) -> str:
    """The `Meta(description=...)` of an annotated type (what a pattern stands for), if any."""
    if get_origin(schema) in (Union, types.UnionType):
        return next(filter(None, map(_description, get_args(schema))), "")
    if get_origin(schema) is not Annotated:
        return ""
    return next((m.description for m in get_args(schema)[1:] if isinstance(m, msgspec.Meta) and m.description), "")


def _without_metadata(schema: Any) -> Any:
    return get_args(schema)[0] if get_origin(schema) is Annotated else schema


def _join(path: tuple[str, ...], *more: str) -> str:
    return ".".join(path + more)
