"""`storyworld screenplay SAVE [-o FILE]`: a saved run as a markdown screenplay."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import msgspec

from storyworld.commands.terminal import printable
from storyworld.errors import UserError
from storyworld.locations import existing_save, find_world


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `screenplay`."""
    parser = subparsers.add_parser(
        "screenplay",
        help="render a saved run as a markdown screenplay",
        description=(
            "Render a save's event log as a screenplay: beats (events without looking-around, catching-up and "
            "waiting, and without repeated identical lines) grouped into scenes by place and stretch of rounds "
            "(at most --max-scene-rounds each), as markdown."
        ),
    )
    parser.add_argument("save", metavar="SAVE", help="a save folder")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the markdown here (default: print it)")
    parser.add_argument("--world", help="the world file or id to read the save with (default: the world the save "
                                        "holds, as it was played)")
    parser.add_argument("--max-scene-rounds", type=int, default=20, help="rounds per scene at most (default 20)")
    parser.add_argument("--json", action="store_true", help="print the screenplay's figures as JSON")
    parser.add_argument("--format", choices=("markdown", "fountain"), default="markdown",
                        help="markdown (default) or a Fountain screenplay that screenwriting apps open")
    parser.set_defaults(func=screenplay_command)


def screenplay_command(args: argparse.Namespace) -> int:
    """Read the save, render, write or print."""
    from storyworld.report import screenplay
    from storyworld.game.session import read_game, saved_world
    from storyworld.world import load_world

    if args.max_scene_rounds < 1:
        raise UserError("--max-scene-rounds must be 1 or more")
    folder = existing_save(args.save)
    game, files = read_game(folder)
    if args.world:
        world = load_world(find_world(args.world))
    else:  # the world as it was played, which the save holds (else the installed world of its id)
        world = saved_world(folder, files, game.state.world_id)
    if world.file.world.id != game.state.world_id:
        raise UserError(f"--world: {world.file.world.id!r} is not the save's world {game.state.world_id!r}")
    try:
        positions = world.start_positions(game.state.start_id)
    except (KeyError, ValueError):
        positions = {}
    note = f"From the start \u201c{game.state.start_id}\u201d, memory backend {game.settings.backend}."
    player = game.settings.player  # the story order the player's screen showed (report.roundview)
    play = screenplay.render(world, game.state.events, positions=positions, max_rounds=args.max_scene_rounds,
                             note=note, player=player)
    if args.format == "fountain":
        text = screenplay.render_fountain(world, game.state.events, positions=positions,
                                          max_rounds=args.max_scene_rounds, note=note, player=player)
        play = msgspec.structs.replace(play, markdown=text)
    if args.output:
        out = Path(args.output)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(play.markdown, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{out}: cannot write ({exc.strerror or exc})") from None
    summary = play.summary()
    if args.json:
        print(json.dumps(summary))
    elif args.output:
        print(f"{args.output}: " + ", ".join(f"{k} {v}" for k, v in summary.items()), file=sys.stderr)
    else:
        sys.stdout.write(printable(play.markdown))
    return 0
