"""Text for a terminal: what names and speech from a world, a save or a model may hold, made harmless to print."""

from __future__ import annotations

import re

from storyworld.errors import UserError

# C0 controls but tab and newline, DEL, C1 controls (ESC starts terminal sequences, BEL rings, NUL
# truncates), and the bidirectional overrides that reorder what follows them on screen
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = True) -> str:
    """`text` with control characters shown as escapes (`\\x1b`); with `newlines` False, newlines too."""
    safe = _UNSAFE.sub(_escape, text)
    return safe if newlines else safe.replace("\n", "\\n")


MAX_QUERY_CHARS = 1000  # a question or a query past this is a paste gone wrong, not a question


def checked_text(text: str, what: str, limit: int = MAX_QUERY_CHARS) -> str:
    """`text` stripped, or UserError (one line) when it is empty or longer than `limit` characters."""
    stripped = text.strip()
    if not stripped:
        raise UserError(f"{what} is empty")
    if len(stripped) > limit:
        raise UserError(f"{what} is {len(stripped):,} characters long; at most {limit:,}")
    return stripped


def checked_count(value: int, what: str, low: int, high: int) -> int:
    """`value` when low <= value <= high, else UserError (one line)."""
    if not low <= value <= high:
        raise UserError(f"{what} must be between {low:,} and {high:,}, not {value:,}")
    return value
