"""JSON types: a value of any JSON shape, and a document read back from JSON that its reader indexes by key."""

from __future__ import annotations

from typing import Any, TypeAlias

# any JSON value, as json.loads gives it (narrow it with isinstance before use)
JSON: TypeAlias = "None | bool | int | float | str | list[JSON] | dict[str, JSON]"
# JSON read back (a bench's --out file) and indexed many levels deep by the keys its writer chose; Any spares a
# check per level where a wrong key fails loudly anyway (a KeyError or TypeError in a report, never in a run)
Document: TypeAlias = dict[str, Any]  # see above: a JSON document read by key
