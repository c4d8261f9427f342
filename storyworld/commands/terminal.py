"""Text for a terminal: what names and speech from a world, a save or a model may hold, made harmless to print."""

from __future__ import annotations

import re

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
