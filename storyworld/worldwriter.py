"""Writing a world back to TOML: schema table order, defaults left out, atomic (temp, fsync, rename)."""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from pathlib import Path

import msgspec
import tomli_w

from storyworld.schema import WorldFile
from storyworld.world import TABLES, World
from storyworld.worldcheck import display_name

def world_to_toml(world_file: WorldFile | World) -> str:
    """The TOML text of a world (tables in schema order; default values left out)."""
    if isinstance(world_file, World):
        world_file = world_file.file
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


def write_world(world_file: WorldFile | World, path: str | os.PathLike[str], *, validate: bool = True) -> Path:
    """Write a world as TOML atomically (temp file, fsync, rename); load → write → load is equal.

    With validate=True (the default) an invalid world raises WorldError and nothing is written.
    """
    if isinstance(world_file, World):
        world_file = world_file.file
    path = Path(path)
    if validate:
        World.from_file(world_file, name=display_name(path))
    payload = world_to_toml(world_file).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        # Leave the previous file as it was; only our temporary file goes.
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return path


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable where the platform lets us open a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on folders; the rename itself already happened
    finally:
        os.close(fd)
