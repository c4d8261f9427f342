"""Checking a world file: decode, parse TOML, check every table's keys and types, then what they mean
(storyworld.world.references), one line per problem (storyworld.world.problems).

Messages name the file and the field (`worlds/hamlet.toml: agent[3].home: unknown place "hal"`)
with the line where the locator finds it; warnings do not stop a world from loading.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tomllib
import types
import typing
from pathlib import Path

import msgspec

from storyworld.world.model import World, WorldError
from storyworld.world.problems import Locator, Problems, suggest
from storyworld.world.references import check_references
from storyworld.world.schema import ARRAY_TABLES, TABLES, FieldPath, WorldFile, WorldInfo

# TOML's own names for the values tomllib produces; users read these words in their editor.
_TOML_TYPE_NAMES = {
    str: "string",
    int: "integer",
    float: "float",
    bool: "boolean",
    list: "array",
    dict: "table",
}
_TOML_ERROR_RE = re.compile(r"^(?P<msg>.*?)\s*\(at (?:line (?P<line>\d+), column (?P<col>\d+)|end of document)\)$")


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """What checking a world file found: errors, warnings, and the world when there were no errors."""

    errors: list[str]
    warnings: list[str]
    world: World | None = None

    @property
    def ok(self) -> bool:
        """True when the world has no errors (warnings allowed)."""
        return not self.errors


def check_world(path: str | os.PathLike[str]) -> CheckReport:
    """Check a world file and report every error and warning; never raises for a bad file."""
    path = Path(path)
    name = display_name(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return CheckReport(errors=[f"{name}: no such file"], warnings=[])
    except IsADirectoryError:
        return CheckReport(errors=[f"{name}: is a folder, not a world file"], warnings=[])
    except OSError as exc:
        return CheckReport(errors=[f"{name}: cannot read: {exc.strerror or exc}"], warnings=[])
    return check_bytes(raw, name=name, path=path)


def check_bytes(raw: bytes, *, name: str = "<world>", path: Path | None = None) -> CheckReport:
    """Check the bytes of a world file; `name` is the file name messages start with."""
    text_or_error = _decode(raw, name)
    if isinstance(text_or_error, list):
        return CheckReport(errors=text_or_error, warnings=[])
    text = text_or_error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return CheckReport(errors=[_toml_error(name, str(exc))], warnings=[])
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively; a hostile file can nest thousands deep.
        return CheckReport(errors=[f"{name}: not valid TOML: arrays or tables nested too deeply"], warnings=[])
    problems = Problems(name, Locator(text))
    try:
        world_file = _check_data(data, problems)
    except RecursionError:
        return CheckReport(errors=[f"{name}: values nested too deeply to check"], warnings=[])
    if problems.errors or world_file is None:
        return CheckReport(errors=problems.sorted_errors(), warnings=problems.sorted_warnings())
    warnings = problems.sorted_warnings()
    digest = hashlib.blake2b(raw, digest_size=32).hexdigest()
    world = World(world_file, path=path, digest=digest, warnings=warnings)
    return CheckReport(errors=[], warnings=warnings, world=world)


def load_world(path: str | os.PathLike[str]) -> World:
    """Load and validate a world file; raises WorldError listing every problem found."""
    report = check_world(path)
    if report.errors or report.world is None:
        raise WorldError(report.errors)
    return report.world


def world_from_file(world_file: WorldFile, name: str = "<world>") -> World:
    """A World from an in-memory WorldFile (e.g. from authoring), validated; raises WorldError."""
    data = msgspec.to_builtins(world_file)
    problems = Problems(name, Locator(""))
    checked = _check_data(data, problems)
    if problems.errors or checked is None:
        raise WorldError(problems.sorted_errors())
    return World(checked, warnings=problems.sorted_warnings())


def display_name(path: Path) -> str:
    """The path as users should read it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


# ---------------------------------------------------------------- bytes and TOML


def _decode(raw: bytes, name: str) -> str | list[str]:
    """The file's text, or the error lines saying why it is not UTF-8 TOML text."""
    if not raw.strip():
        return [f"{name}: empty file (a world needs at least a [world] table)"]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return [f"{name}: line 1: UTF-16 text; save the file as UTF-8"]
    if b"\x00" in raw:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        return [f"{name}: line {line}: binary file, not TOML text (NUL byte)"]
    try:
        # utf-8-sig: a byte-order mark some editors add is harmless, not an error.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return [f"{name}: line {line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"]


def _toml_error(name: str, message: str) -> str:
    """tomllib's message in our style: `FILE: line N: not valid TOML: ...`."""
    match = _TOML_ERROR_RE.match(message)
    if match is None:
        return f"{name}: not valid TOML: {message}"
    detail = match.group("msg")
    detail = detail[:1].lower() + detail[1:]
    if match.group("line"):
        return f"{name}: line {match.group('line')}: not valid TOML: {detail} (column {match.group('col')})"
    return f"{name}: not valid TOML: {detail} (at the end of the file)"


# ---------------------------------------------------------------- structure: keys and types


def _type_name(annotation: object) -> str:
    """A schema annotation in TOML words: `string`, `array of strings`, `one of a, b`."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in _TOML_TYPE_NAMES:
        return _TOML_TYPE_NAMES[annotation]
    if origin is typing.Literal:
        return "one of " + ", ".join(str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args if a is not type(None))
    if origin is list:
        return f"array of {_type_name(args[0])}s" if args else "array"
    if origin is dict:
        return "table"
    return getattr(annotation, "__name__", str(annotation))


def _value_name(value: object) -> str:
    """A TOML value's type in TOML words, with a short preview for scalars."""
    kind = _TOML_TYPE_NAMES.get(type(value), type(value).__name__)
    if isinstance(value, str):
        preview = value if len(value) <= 30 else value[:27] + "..."
        return f'{kind} "{preview}"'
    if isinstance(value, (bool, int, float)):
        return f"{kind} {str(value).lower() if isinstance(value, bool) else value}"
    return kind


def _check_value(problems: Problems, path: FieldPath, value: object, annotation: object) -> bool:
    """Check one value against its annotation, recording every mismatch; True when it fits."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        if len(non_none) == 1:
            return _check_value(problems, path, value, non_none[0])
    if origin is typing.Literal:
        if isinstance(value, str) and value in args:
            return True
        if isinstance(value, str):
            problems.error(path, f'invalid value "{value}" (expected one of {", ".join(args)})' + suggest(value, args), value)
        else:
            problems.error(path, f"expected one of {', '.join(args)}, got {_value_name(value)}")
        return False
    if origin is list:
        if not isinstance(value, list):
            problems.error(path, f"expected {_type_name(annotation)}, got {_value_name(value)}")
            return False
        ok = True
        for index, item in enumerate(value):
            ok = _check_value(problems, path + (index,), item, args[0]) and ok
        return ok
    if origin is dict:
        if not isinstance(value, dict):
            problems.error(path, f"expected a table, got {_value_name(value)}")
            return False
        ok = True
        for key, item in value.items():
            ok = _check_value(problems, path + (key,), item, args[1]) and ok
        return ok
    try:
        msgspec.convert(value, annotation, strict=True)
    except msgspec.ValidationError:
        problems.error(path, f"expected {_type_name(annotation)}, got {_value_name(value)}")
        return False
    return True


@functools.cache
def _fields(struct: type[msgspec.Struct]) -> dict[str, msgspec.structs.FieldInfo]:
    """A struct's fields by their TOML key (resolved once per struct)."""
    return {field.encode_name: field for field in msgspec.structs.fields(struct)}


def _check_table(problems: Problems, path: FieldPath, raw: object, struct: type[msgspec.Struct]) -> msgspec.Struct | None:
    """Check one table against its struct (unknown keys, missing and mistyped fields); the struct if it fits."""
    if not isinstance(raw, dict):
        problems.error(path, f"expected a table, got {_value_name(raw)}")
        return None
    fields = _fields(struct)
    ok = True
    for key, value in raw.items():
        field = fields.get(key)
        if field is None:
            allowed = ", ".join(fields)
            problems.error(path + (key,), f"unknown key{suggest(key, fields)} (allowed: {allowed})")
            ok = False
            continue
        ok = _check_value(problems, path + (key,), value, field.type) and ok
    for key, field in fields.items():
        if field.required and key not in raw:
            problems.error(path + (key,), "missing required field")
            ok = False
    if not ok:
        return None
    try:
        return msgspec.convert(raw, struct, strict=True)
    except msgspec.ValidationError as exc:  # our checks above should already have said why
        problems.error(path, str(exc))
        return None


def _check_data(data: object, problems: Problems) -> WorldFile | None:
    """Check a decoded world (a dict from TOML); the WorldFile when it has no errors."""
    if not isinstance(data, dict):
        problems.error((), "expected TOML tables at the top level")
        return None
    for key in data:
        if key not in TABLES:
            problems.error((key,), f"unknown table{suggest(key, TABLES)} (tables: {', '.join(TABLES)})")

    info: WorldInfo | None = None
    if "world" not in data:
        problems.error((), "missing [world] table (id and title of the world)")
    elif isinstance(data["world"], list):
        problems.error(("world",), "expected one [world] table, got an array of tables [[world]]")
    else:
        info = _check_table(problems, ("world",), data["world"], WorldInfo)  # type: ignore[assignment]

    raw_items: dict[str, list[object] | None] = {}
    good: dict[str, list[tuple[int, msgspec.Struct]]] = {}
    for table in ARRAY_TABLES:
        good[table] = []
        value = data.get(table, [])
        if isinstance(value, dict):
            problems.error((table,), f"expected an array of tables [[{table}]], got a single table [{table}]")
            value = None
        elif not isinstance(value, list):
            problems.error((table,), f"expected an array of tables [[{table}]], got {_value_name(value)}")
            value = None
        # None: the table is there but misshapen, which is already reported; do not also call it missing.
        raw_items[table] = value
        for index, raw in enumerate(value or []):
            checked = _check_table(problems, (table, index), raw, TABLES[table])
            if checked is not None:
                good[table].append((index, checked))

    check_references(problems, info, raw_items, good)

    if problems.errors:
        return None
    try:
        return msgspec.convert(data, WorldFile, strict=True)
    except msgspec.ValidationError as exc:  # every cause is checked above; keep the message if one slips by
        problems.error((), f"does not fit the world schema: {exc}")
        return None


