"""What a world may hold that a run can play: id syntax, text sizes, no control characters.

One set of limits, read by `check` (a world that breaks them is refused with the field named) and by
what a player types (storyworld.game.playerinput), so nothing that passes them can crash a round:
an agent id is a memory owner (memory.store's OWNER_ID), names and texts end up in deposits whose
text the store caps, and a NUL or an escape sequence in a name would reach the terminal.
"""

from __future__ import annotations

import re

AGENT_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}")  # memory keys its owners by these
MAX_ID = 128  # any other id (a place, an object, an event, a start)
MAX_NAME = 200  # a name, a title, an alias
MAX_TEXT = 20_000  # a description, a goal, an event's text or statement, what an object carries
MAX_LINE = 2_000  # one line a player says or does at once

_CONTROL_IN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline are text
_CONTROL_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f]")  # a name is one line


def _control(found: re.Match[str]) -> str:
    return "a NUL character" if found.group() == "\x00" else f"a control character (U+{ord(found.group()):04X})"


def name_problem(text: str) -> str | None:
    """Why `text` cannot be a name (too long, more than one line, a control character), or None."""
    if len(text) > MAX_NAME:
        return f"name of {len(text):,} characters; at most {MAX_NAME}"
    found = _CONTROL_IN_LINE.search(text)
    return f"name holds {_control(found)}" if found else None


def text_problem(text: str) -> str | None:
    """Why `text` cannot be a world's text (too long, a control character other than tab or newline), or None."""
    if len(text) > MAX_TEXT:
        return f"text of {len(text):,} characters; at most {MAX_TEXT:,}"
    found = _CONTROL_IN_TEXT.search(text)
    return f"text holds {_control(found)}" if found else None


def id_problem(item_id: str, *, agent: bool) -> str | None:
    """Why `item_id` cannot be an id (an agent's: memory's owner syntax), or None."""
    if agent and not AGENT_ID.fullmatch(item_id):
        return (f'agent id "{item_id[:60]}" must be 1-128 of the letters a-z and A-Z, digits, "_", "-" and "." '
                '(not starting with "-" or "."): memory keys what an agent knows by it')
    if len(item_id) > MAX_ID:
        return f"id of {len(item_id):,} characters; at most {MAX_ID}"
    found = _CONTROL_IN_LINE.search(item_id)
    return f"id holds {_control(found)}" if found else None


def player_line(text: str) -> tuple[str, str | None]:
    """A typed line with its control characters taken out, and why it is too long to say (or None)."""
    clean = _CONTROL_IN_TEXT.sub("", text)
    if len(clean) > MAX_LINE:
        return clean, f"that line is {len(clean):,} characters; at most {MAX_LINE:,} can be said at once"
    return clean, None
