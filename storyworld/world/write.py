"""Writing a world file: validated, then atomically (temp file, fsync, rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from storyworld.world.check import display_name, world_from_file
from storyworld.world.model import World
from storyworld.world.schema import WorldFile
from storyworld.world.toml import world_to_toml



def write_world(world_file: WorldFile | World, path: str | os.PathLike[str], *, validate: bool = True) -> Path:
    """Write a world as TOML atomically (temp file, fsync, rename); load → write → load is equal.

    With validate=True (the default) an invalid world raises WorldError and nothing is written.
    """
    if isinstance(world_file, World):
        world_file = world_file.file
    path = Path(path)
    if validate:
        world_from_file(world_file, name=display_name(path))
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
