"""Checking a world file: decode, parse TOML, check every table and reference, one line per problem.

Messages name the file and the field (`worlds/hamlet.toml: agent[3].home: unknown place "hal"`)
with the line where the locator finds it; warnings do not stop a world from loading.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import os
import re
import tomllib
import types
import typing
from collections.abc import Iterable
from pathlib import Path

import msgspec

from storyworld.world.model import World, WorldError
from storyworld.world.schema import ARRAY_TABLES, TABLES, Agent, Event, FieldPath, Place, Start, WorldFile, WorldInfo, WorldObject

# TOML's own names for the values tomllib produces; users read these words in their editor.
_TOML_TYPE_NAMES = {
    str: "string",
    int: "integer",
    float: "float",
    bool: "boolean",
    list: "array",
    dict: "table",
}
_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
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
    problems = _Problems(name, _Locator(text))
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
    problems = _Problems(name, _Locator(""))
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


# ---------------------------------------------------------------- locating lines


class _Locator:
    """Best-effort line numbers for field paths, found from the table headers of the text."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.headers: list[tuple[int, bool, str]] = []  # (line index, is array, dotted name)
        in_multiline = False
        for index, line in enumerate(self.lines):
            # Skip the insides of multi-line strings so a "[" in prose is not taken for a header.
            if line.count('"""') % 2 == 1 or line.count("'''") % 2 == 1:
                in_multiline = not in_multiline
                continue
            if in_multiline:
                continue
            match = _HEADER_RE.match(line)
            if match:
                dotted = ".".join(part.strip().strip("\"'") for part in match.group(2).split("."))
                self.headers.append((index, match.group(1) == "[[", dotted))
        self._positions: dict[tuple[str, bool], list[int]] = {}
        for position, (_, is_array, name) in enumerate(self.headers):
            self._positions.setdefault((name, is_array), []).append(position)

    def _table_span(self, table: str, item: int | None) -> tuple[int, int] | None:
        """Line range (start, end) of `[table]`, or of the item-th `[[table]]`."""
        positions = self._positions.get((table, item is not None), [])
        if item is not None:
            if item >= len(positions):
                return None
            position = positions[item]
        else:
            if not positions:
                return None
            position = positions[0]
        start = self.headers[position][0]
        end = len(self.lines)
        for index, _, name in self.headers[position + 1 :]:
            if not name.startswith(table + "."):
                end = index
                break
        return start, end

    def _key_line(self, start: int, end: int, key: str) -> int | None:
        """Index of the line in [start, end) that sets `key` (or opens a sub-table named for it)."""
        key_re = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*[=.]")
        for index in range(start + 1, end):
            if key_re.match(self.lines[index]):
                return index
        for index, _, name in self.headers:
            if start < index < end and name.split(".")[-1] == key:
                return index
        return None

    def line(self, path: FieldPath, value: object = None) -> int | None:
        """1-based line of a field path, or None when the text does not show it."""
        if not self.lines or not path:
            return None
        table = path[0]
        if len(path) >= 2 and isinstance(path[1], int):
            span = self._table_span(table, path[1])
            rest = path[2:]
        else:
            # A bare table name may be written [name] or (wrongly, e.g. [[world]]) [[name]].
            span = self._table_span(table, None) or self._table_span(table, 0)
            rest = path[1:]
        if span is None:
            return self._top_key_line(table)
        start, end = span
        keys = [part for part in rest if isinstance(part, str)]
        if not keys:
            return start + 1
        found = self._key_line(start, end, keys[0])
        if found is None:
            return start + 1
        # A nested key (positions.hamlet) sits below a sub-table header or on the same inline line.
        if len(keys) > 1:
            sub_end = next((index for index, _, _ in self.headers if index > found), end)
            nested = self._key_line(found, min(sub_end, end), keys[1])
            if nested is not None:
                return nested + 1
        if isinstance(value, str) and value:
            needle = [f'"{value}"', f"'{value}'"]
            for index in range(found, end):
                if index > found and re.match(r"^\s*[\w\"'-]+\s*=", self.lines[index]):
                    break
                if any(n in self.lines[index] for n in needle):
                    return index + 1
        return found + 1

    def _top_key_line(self, key: str) -> int | None:
        """Line of a top-level `key = ...` (an inline array of tables), if any."""
        for index, line in enumerate(self.lines):
            if re.match(rf"^\s*{re.escape(key)}\s*=", line):
                return index + 1
        return None


# ---------------------------------------------------------------- problems


def _format_path(path: FieldPath) -> str:
    """("agent", 3, "home") -> agent[3].home."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", part):
            text += f".{part}" if text else part
        else:
            text += f'."{part}"' if text else f'"{part}"'
    return text


class _Problems:
    """Errors and warnings found while checking one file, each formatted with file, line and field path.

    The form is `FILE: line N: table[i].field: message`; table indices count from 0 like the
    arrays in the file, the line counts from 1 like editors do, and is left out where not known.
    """

    def __init__(self, name: str, locator: _Locator):
        self.name = name
        self.locator = locator
        self.errors: list[tuple[int, str]] = []
        self.warnings: list[tuple[int, str]] = []

    def _format(self, path: FieldPath, message: str, value: object) -> tuple[int, str]:
        line = self.locator.line(path, value)
        where = f"line {line}: " if line else ""
        field = f"{_format_path(path)}: " if path else ""
        return (line or 0, f"{self.name}: {where}{field}{message}")

    def error(self, path: FieldPath, message: str, value: object = None) -> None:
        """Record an error at a field path."""
        self.errors.append(self._format(path, message, value))

    def warn(self, path: FieldPath, message: str, value: object = None) -> None:
        """Record a warning at a field path."""
        self.warnings.append(self._format(path, message, value))

    def sorted_errors(self) -> list[str]:
        """Errors in file order (those without a line first), each once."""
        return _in_order(self.errors)

    def sorted_warnings(self) -> list[str]:
        """Warnings in file order, each once."""
        return _in_order(self.warnings)


def _in_order(found: list[tuple[int, str]]) -> list[str]:
    seen: set[str] = set()
    ordered = []
    for _, message in sorted(found, key=lambda pair: pair[0]):
        if message not in seen:
            seen.add(message)
            ordered.append(message)
    return ordered


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


# ---------------------------------------------------------------- structure: keys and types


def _type_name(annotation: object) -> str:
    """A schema annotation in TOML words: `string`, `array of strings`, `one of a, b`."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in _TOML_TYPE_NAMES:
        return _TOML_TYPE_NAMES[annotation]  # type: ignore[index]
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


def _check_value(problems: _Problems, path: FieldPath, value: object, annotation: object) -> bool:
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
            problems.error(path, f'invalid value "{value}" (expected one of {", ".join(args)})' + _suggest(value, args), value)
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


def _check_table(problems: _Problems, path: FieldPath, raw: object, struct: type[msgspec.Struct]) -> msgspec.Struct | None:
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
            problems.error(path + (key,), f"unknown key{_suggest(key, fields)} (allowed: {allowed})")
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


def _check_data(data: object, problems: _Problems) -> WorldFile | None:
    """Check a decoded world (a dict from TOML); the WorldFile when it has no errors."""
    if not isinstance(data, dict):
        problems.error((), "expected TOML tables at the top level")
        return None
    for key in data:
        if key not in TABLES:
            problems.error((key,), f"unknown table{_suggest(key, TABLES)} (tables: {', '.join(TABLES)})")

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

    _check_references(problems, info, raw_items, good)

    if problems.errors:
        return None
    try:
        return msgspec.convert(data, WorldFile, strict=True)
    except msgspec.ValidationError as exc:  # every cause is checked above; keep the message if one slips by
        problems.error((), f"does not fit the world schema: {exc}")
        return None


# ---------------------------------------------------------------- meaning: ids and references


def _ids(problems: _Problems, table: str, items: list[object]) -> dict[str, int]:
    """Ids of a table's items (even items with other errors, so references to them do not cascade)."""
    seen: dict[str, int] = {}
    for index, raw in enumerate(items):
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            continue
        item_id = raw["id"]
        if not item_id.strip():
            problems.error((table, index, "id"), "empty id")
            continue
        if item_id != item_id.strip() or re.search(r"\s", item_id):
            problems.warn((table, index, "id"), f'id "{item_id}" has spaces; commands and exits cannot name it easily')
        if item_id in seen:
            problems.error((table, index, "id"), f'duplicate id "{item_id}" (first used by {table}[{seen[item_id]}])', item_id)
            continue
        seen[item_id] = index
    return seen


def _check_references(
    problems: _Problems,
    info: WorldInfo | None,
    raw_items: dict[str, list[object] | None],
    good: dict[str, list[tuple[int, msgspec.Struct]]],
) -> None:
    """Duplicate ids, references between tables, story order, and the warnings worth an author's look."""
    places = _ids(problems, "place", raw_items["place"] or [])
    agents = _ids(problems, "agent", raw_items["agent"] or [])
    objects = _ids(problems, "object", raw_items["object"] or [])
    _ids(problems, "event", raw_items["event"] or [])
    starts = _ids(problems, "start", raw_items["start"] or [])
    _check_id_clashes(problems, places, agents, objects)
    _check_info(problems, info, starts)
    _check_required_tables(problems, raw_items)
    _check_places(problems, good["place"], places)
    archived = _check_agents(problems, good["agent"], raw_items, places)
    _check_objects(problems, good["object"], places, agents, objects)
    _check_events(problems, good["event"], places, agents, archived, _default_start_round(info, good["start"]))
    _check_starts(problems, good["start"], places, agents, archived)


def _ref(problems: _Problems, path: FieldPath, value: str, known: dict[str, int], what: str) -> bool:
    """True when `value` is a known id; else an error naming the closest one."""
    if value in known:
        return True
    problems.error(path, f'unknown {what} "{value}"' + _suggest(value, known), value)
    return False


def _check_id_clashes(problems: _Problems, places: dict[str, int], agents: dict[str, int], objects: dict[str, int]) -> None:
    """An object can be the source of what an agent knows (via=read); an agent with the same id is ambiguous."""
    for object_id, index in objects.items():
        if object_id in agents:
            problems.error(
                ("object", index, "id"),
                f'id "{object_id}" is also an agent (agent[{agents[object_id]}]); agents and objects need distinct ids',
                object_id,
            )
        elif object_id in places:
            problems.warn(("object", index, "id"), f'id "{object_id}" is also a place', object_id)
    for agent_id, index in agents.items():
        if agent_id in places:
            problems.warn(("agent", index, "id"), f'id "{agent_id}" is also a place', agent_id)


def _check_info(problems: _Problems, info: WorldInfo | None, starts: dict[str, int]) -> None:
    """The [world] table: a usable id, a title, a known default start."""
    if info is not None:
        if not info.id.strip():
            problems.error(("world", "id"), "empty id")
        elif re.search(r"[/\\]|^\.|\s", info.id):
            problems.error(("world", "id"), f'"{info.id}" cannot be a file name (no slashes, spaces or leading dot)', info.id)
        if not info.title.strip():
            problems.error(("world", "title"), "empty title")
        if info.default_start and info.default_start not in starts:
            problems.error(
                ("world", "default_start"),
                f'unknown start "{info.default_start}"' + _suggest(info.default_start, starts),
                info.default_start,
            )


def _check_required_tables(problems: _Problems, raw_items: dict[str, list[object] | None]) -> None:
    """A world needs at least one place, one agent and one start point."""
    if raw_items["place"] == []:
        problems.error(("place",), "no [[place]] tables; a world needs at least one place")
    if raw_items["agent"] == []:
        problems.error(("agent",), "no [[agent]] tables; a world needs at least one agent")
    if raw_items["start"] == []:
        problems.error(("start",), "no [[start]] tables; a world needs at least one start point")


def _check_places(problems: _Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int]) -> None:
    """Place names and exits: known places, no loops or doubles, one-way exits warned."""
    exits_of: dict[str, list[str]] = {}
    for index, place in good:
        assert isinstance(place, Place)
        exits_of[place.id] = list(place.exits)
        if not place.name.strip():
            problems.error(("place", index, "name"), "empty name")
        seen_exits: set[str] = set()
        for j, exit_id in enumerate(place.exits):
            path = ("place", index, "exits", j)
            if exit_id == place.id:
                problems.warn(path, f'exit leads back to "{exit_id}" itself', exit_id)
            elif exit_id in seen_exits:
                problems.warn(path, f'exit "{exit_id}" listed twice', exit_id)
            seen_exits.add(exit_id)
            _ref(problems, path, exit_id, places, "place")
    for index, place in good:
        assert isinstance(place, Place)
        for j, exit_id in enumerate(place.exits):
            back = exits_of.get(exit_id)
            if back is not None and exit_id != place.id and place.id not in back:
                problems.warn(
                    ("place", index, "exits", j),
                    f'one-way exit: "{exit_id}" has no exit back to "{place.id}"',
                    exit_id,
                )


def _check_agents(problems: _Problems, good: list[tuple[int, msgspec.Struct]],
                  raw_items: dict[str, list[object] | None], places: dict[str, int]) -> set[str]:
    """Agent names, aliases, native names and homes; someone playable. Returns the archived agents."""
    archived: set[str] = set()
    playable = 0
    claimed: dict[str, str] = {}  # a native name -> the first agent that has it
    for index, agent in good:
        assert isinstance(agent, Agent)
        if not agent.name.strip():
            problems.error(("agent", index, "name"), "empty name")
        if agent.native_name and not agent.native_name.strip():
            problems.error(("agent", index, "native_name"), "blank native name; leave it out instead")
        for j, alias in enumerate(agent.aliases):
            if not alias.strip():
                problems.error(("agent", index, "aliases", j), "empty alias")
        if agent.native_name.strip():
            # Courtesy names are shared (two men styled Ziyi); a native name names one person.
            owner = claimed.setdefault(agent.native_name.strip(), agent.id)
            if owner != agent.id:
                problems.warn(("agent", index, "native_name"), f'"{agent.native_name}" is also agent "{owner}"', owner)
        _ref(problems, ("agent", index, "home"), agent.home, places, "place")
        if agent.status == "archived":
            archived.add(agent.id)
        elif agent.playable:
            playable += 1
    if good and playable == 0 and len(good) == len(raw_items["agent"] or []):
        problems.warn(("agent",), "no active playable agent; nobody can be played")
    return archived


def _check_objects(problems: _Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                   agents: dict[str, int], objects: dict[str, int]) -> None:
    """Objects: held by an agent, or lying in a place — exactly one of the two."""
    for index, obj in good:
        assert isinstance(obj, WorldObject)
        path = ("object", index)
        if not obj.name.strip():
            problems.error(path + ("name",), "empty name")
        if obj.holder is not None and obj.place is not None:
            problems.error(path + ("holder",), "has both holder and place; give one of them")
        elif obj.holder is None and obj.place is None:
            problems.error(path, "has neither holder nor place; give one of them")
        if obj.holder is not None and obj.holder not in agents:
            if obj.holder in objects:
                problems.error(path + ("holder",), f'holder "{obj.holder}" is an object; only agents hold objects', obj.holder)
            elif obj.holder in places:
                problems.error(path + ("holder",), f'holder "{obj.holder}" is a place; write place = "{obj.holder}"', obj.holder)
            else:
                _ref(problems, path + ("holder",), obj.holder, agents, "agent")
        if obj.place is not None:
            _ref(problems, path + ("place",), obj.place, places, "place")


def _check_events(problems: _Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                  agents: dict[str, int], archived: set[str], first_start_round: int | None) -> None:
    """Events: references, content, story order."""
    previous: tuple[int, int] | None = None  # (index, round)
    for index, event in good:
        assert isinstance(event, Event)
        path = ("event", index)
        _ref(problems, path + ("place",), event.place, places, "place")
        for j, actor in enumerate(event.actors):
            _ref(problems, path + ("actors", j), actor, agents, "agent")
        witnesses = event.witness_ids()
        if event.witnesses is not None:
            for j, witness in enumerate(event.witnesses):
                _ref(problems, path + ("witnesses", j), witness, agents, "agent")
            for actor in event.actors:
                if actor in agents and actor not in event.witnesses:
                    problems.warn(path + ("witnesses",), f'actor "{actor}" is not among the witnesses', actor)
        for field, values in (("actors", event.actors), ("witnesses", event.witnesses or [])):
            doubled = sorted({v for v in values if values.count(v) > 1})
            if doubled:
                problems.warn(path + (field,), f"listed twice: {', '.join(doubled)}")
        if not event.text.strip():
            problems.error(path + ("text",), "empty text")
        for j, statement in enumerate(event.statements):
            if not statement.strip():
                problems.error(path + ("statements", j), "empty statement")
        if event.kind == "say" and not event.actors:
            problems.error(path + ("actors",), "a say event needs its speaker as the first actor")
        if not witnesses and event.kind != "narration":
            problems.warn(path + ("witnesses",), "nobody witnesses this event, so nobody will remember it")
        if first_start_round is not None and event.round >= first_start_round:
            for who in sorted(set(event.actors) | set(witnesses)):
                if who in archived:
                    problems.warn(
                        path,
                        f'archived agent "{who}" takes part at round {event.round}, after the default start',
                        who,
                    )
        if previous is not None and event.round < previous[1]:
            problems.error(
                path + ("round",),
                f"round {event.round} comes before round {previous[1]} of event[{previous[0]}]; "
                "events must be in story order",
            )
        previous = (index, event.round)


def _check_starts(problems: _Problems, good: list[tuple[int, msgspec.Struct]], places: dict[str, int],
                  agents: dict[str, int], archived: set[str]) -> None:
    """Start points: known agents and places, nobody both absent and placed."""
    for index, start in good:
        assert isinstance(start, Start)
        for agent_id, place_id in start.positions.items():
            path = ("start", index, "positions", agent_id)
            known_agent = _ref(problems, path, agent_id, agents, "agent")
            _ref(problems, path, place_id, places, "place")
            if known_agent and agent_id in archived:
                problems.warn(path, f'archived agent "{agent_id}" has a start position')
        for item, agent_id in enumerate(start.absent):
            path = ("start", index, "absent", item)
            if _ref(problems, path, agent_id, agents, "agent") and agent_id in start.positions:
                problems.error(path, f'agent "{agent_id}" is both absent and given a start position')


def _default_start_round(info: WorldInfo | None, starts: list[tuple[int, msgspec.Struct]]) -> int | None:
    """Round of the default start (else the first start), if it can be told."""
    if not starts:
        return None
    by_id = {start.id: start for _, start in starts}  # type: ignore[attr-defined]
    if info is not None and info.default_start in by_id:
        return by_id[info.default_start].round  # type: ignore[attr-defined]
    return starts[0][1].round  # type: ignore[attr-defined]
