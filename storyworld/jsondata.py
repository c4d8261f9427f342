"""JSON types: a document built as JSON and read back by key (a bench's figures, a card's object)."""

from __future__ import annotations

from typing import Any, TypeAlias

# JSON built, then read back by key many levels deep by the keys its writer chose: a bench's figures (in process, or
# from its --out file), a card's object. Any spares an isinstance per level where a wrong key fails loudly anyway
# (a KeyError or TypeError in a bench's report or an export, never in a game); a TypedDict per writer is the
# precise type, not yet written. JSON only written is dict[str, object]; JSON only read is object, narrowed.
Document: TypeAlias = dict[str, Any]  # see above: JSON read back by key
