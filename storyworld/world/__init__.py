"""World files and the World a game runs on.

`schema` (the file's structs), `model` (World), `toml` (the file as text), `check` (every problem,
one line each, with the file and field), `write` (atomic, validated).
"""

from storyworld.world.check import CheckReport, check_bytes, check_world, load_world, world_from_file
from storyworld.world.model import World, WorldError
from storyworld.world.toml import world_to_toml
from storyworld.world.write import write_world

__all__ = ["CheckReport", "World", "WorldError", "check_bytes", "check_world", "load_world", "world_from_file",
           "world_to_toml", "write_world"]
