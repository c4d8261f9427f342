"""The CLI commands that open the TUI: `play`, bare `storyworld` (home) and interactive `author`.

The composition root (tui/main.py) hands this module to storyworld.cli; nothing here imports
Textual until a handler runs.
"""

from __future__ import annotations

import argparse

from pathlib import Path

from storyworld.llm.options import add_model_options
from storyworld.locations import find_world
from storyworld.world import load_world


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

    return model_runtime(getattr(args, "model", None), getattr(args, "server", None), seed=getattr(args, "seed", 0),
                         parallel=getattr(args, "parallel", None))


def play(args: argparse.Namespace) -> int:
    """Validate the world, character and start here (one-line errors), then open the TUI."""
    world = load_world(find_world(args.world))
    player = world.resolve_player(args.player) if args.player else None
    if args.start is not None:
        world.start(args.start)  # WorldError (a UserError) naming the known starts
    from tui.app import run_play

    return run_play(world, player, args.start, runtime=_runtime(args))


def open_home(args: argparse.Namespace) -> int:
    """Bare `storyworld`: the home screen."""
    from tui.app import run_home

    return run_home(_runtime(args))


def author_review(source: Path, kind: str) -> int:
    """`storyworld author SOURCE` without --headless: the authoring review screen."""
    from tui.app import run_author

    return int(run_author(source, kind) or 0)
