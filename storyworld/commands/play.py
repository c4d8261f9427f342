"""`storyworld play WORLD [--as AGENT] [--start ID]` and bare `storyworld` (the TUI home)."""

from __future__ import annotations

import argparse

from storyworld.commands.common import add_model_options, load_world_arg
from storyworld.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `play`."""
    parser = subparsers.add_parser(
        "play",
        help="play a character in a world (TUI)",
        description=(
            "Play one character while every other character is an agent on a local model. "
            "Without --as, choose the character in the new-game dialog."
        ),
    )
    parser.add_argument("world", help="a bundled world id (hamlet, three_kingdoms) or a path to a .toml")
    parser.add_argument("--as", dest="player", metavar="AGENT", help="the character you play (an agent id or name)")
    parser.add_argument("--start", metavar="ID", help="start point id (default: the world's default)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the kernel and the model")
    add_model_options(parser)
    parser.set_defaults(func=play)


def _runtime(args: argparse.Namespace):  # -> tui.runtime.Runtime (tui is imported lazily)
    from tui.runtime import model_runtime

    return model_runtime(getattr(args, "model", None), getattr(args, "server", None), seed=getattr(args, "seed", 0))


def resolve_player(world, wanted: str) -> str:
    """An agent id from an id, a name or an alias (case-insensitive); UserError naming the playable cast."""
    key = wanted.strip().lower()
    for agent in world.file.agent:
        names = {agent.id.lower(), agent.name.lower(), *(a.lower() for a in agent.aliases)}
        if key in names:
            if not agent.playable or agent.status != "active":
                raise UserError(f"{agent.id} is not playable in {world.id}; playable: {playable(world)}")
            return agent.id
    raise UserError(f"no character {wanted!r} in {world.id}; playable: {playable(world)}")


def playable(world) -> str:
    """The playable cast's ids, comma-separated."""
    return ", ".join(a.id for a in world.file.agent if a.playable and a.status == "active") or "none"


def play(args: argparse.Namespace) -> int:
    """Validate the world, character and start here (one-line errors), then open the TUI."""
    world = load_world_arg(args.world)
    player = resolve_player(world, args.player) if args.player else None
    if args.start is not None:
        world.start(args.start)  # WorldError (a UserError) naming the known starts
    from tui.app import run_play

    return run_play(world, player, args.start, runtime=_runtime(args))


def open_home(args: argparse.Namespace) -> int:
    """Bare `storyworld`: the home screen."""
    from tui.app import run_home

    return run_home(_runtime(args))
