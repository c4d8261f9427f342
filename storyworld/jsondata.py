"""JSON types: a value of any JSON shape, and a document read back from JSON that its reader indexes by key."""

from __future__ import annotations

from typing import Any, TypeAlias

# any JSON value, as json.loads gives it (narrow it with isinstance before use)
JSON: TypeAlias = "None | bool | int | float | str | list[JSON] | dict[str, JSON]"
# JSON built, then read back by key many levels deep by the keys its writer chose: a bench's figures (in process, or
# from its --out file), a card's object. Any spares an isinstance per level where a wrong key fails loudly anyway
# (a KeyError or TypeError in a bench's report or an export, never in a game); a TypedDict per writer is the
# precise type, not yet written.
Document: TypeAlias = dict[str, Any]  # see above: JSON read back by key
