"""A world file as TOML text: schema table order, defaults left out, short arrays on one line."""

from __future__ import annotations

import re
import tomllib

import msgspec
import tomli_w

from storyworld.world.schema import TABLES, WorldFile


def world_to_toml(world_file: WorldFile) -> str:
    """The TOML text of a world (tables in schema order; default values left out)."""
    data = msgspec.to_builtins(world_file)
    # Empty arrays of tables are defaults and omitted; keep the table order of the schema.
    ordered = {table: data[table] for table in TABLES if table in data}
    text = tomli_w.dumps(ordered, multiline_strings=False)
    compact = _compact_arrays(text)
    # The compaction is a text rewrite; keep it only when it provably means the same TOML.
    return compact if tomllib.loads(compact) == tomllib.loads(text) else text


# tomli-w puts every array item on its own line; short arrays of names read better on one.
_ARRAY_BLOCK_RE = re.compile(r"^(?P<key>[^\n\[]+ = )\[\n(?P<items>(?:    [^\n]+,\n)+)\]$", re.MULTILINE)
_COMPACT_WIDTH = 100


def _compact_arrays(text: str) -> str:
    """Rewrite multi-line arrays whose one-line form fits in _COMPACT_WIDTH columns."""

    def one_line(match: re.Match[str]) -> str:
        items = [line.strip().removesuffix(",") for line in match.group("items").splitlines()]
        joined = f"{match.group('key')}[{', '.join(items)}]"
        return joined if len(joined) <= _COMPACT_WIDTH else match.group(0)

    return _ARRAY_BLOCK_RE.sub(one_line, text)
