"""Where a problem sits in a world file, and its one line: `FILE: line N: table[i].field: message`.

Line numbers are best effort, found from the table headers of the text (a world built in code has none).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from storyworld.world.schema import FieldPath

_HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")


class Locator:
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
        if not isinstance(table, str):  # a path opens with its table's name
            return None
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


def format_path(path: FieldPath) -> str:
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


class Problems:
    """Errors and warnings found while checking one file, each formatted with file, line and field path.

    The form is `FILE: line N: table[i].field: message`; table indices count from 0 like the
    arrays in the file, the line counts from 1 like editors do, and is left out where not known.
    """

    def __init__(self, name: str, locator: Locator):
        self.name = name
        self.locator = locator
        self.errors: list[tuple[int, str]] = []
        self.warnings: list[tuple[int, str]] = []

    def _format(self, path: FieldPath, message: str, value: object) -> tuple[int, str]:
        line = self.locator.line(path, value)
        where = f"line {line}: " if line else ""
        field = f"{format_path(path)}: " if path else ""
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


def suggest(word: str, choices: Iterable[str]) -> str:
    """'; did you mean "X"?' for the closest of `choices`, else ""."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""
