"""`storyworld host`: serve one game to several people, a join code per seat, saved after every round."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.errors import UserError
from storyworld.llm.options import add_model_options, load_lm

if TYPE_CHECKING:
    from storyworld.host.seats import HostedSession, Seat
    from storyworld.host.server import WorldServer
    from storyworld.llm.base import LanguageModel
    from storyworld.minds import Mind

DEFAULT_PORT = 8765
LOOPBACK = "127.0.0.1"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `host`."""
    parser = subparsers.add_parser(
        "host",
        help="host a world for several people (join codes, websockets)",
        description=(
            "Serve a world to several people: each --seat is a character a person plays, opened by the join "
            "code printed for it (`storyworld join URL CODE`). Every other character is an agent. A round "
            "resolves when every seated person has acted, or --turn-timeout seconds after its first line "
            "(who has not acted waits). The game is saved every round; `storyworld host SAVE` resumes it "
            "with the same seats and codes. Listens on 127.0.0.1 (this computer) unless --bind."
        ),
    )
    parser.add_argument("target", metavar="WORLD|SAVE",
                        help="a world id or .toml to start, or a hosted save folder to resume")
    parser.add_argument("--seat", action="append", default=[], metavar="ID",
                        help="a character people may play (id or name); repeat for each seat")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT}; "
                                                                       "0 picks a free one)")
    parser.add_argument("--bind", metavar="ADDRESS", default=LOOPBACK,
                        help="address to listen on; 0.0.0.0 opens the game to your network (default 127.0.0.1)")
    parser.add_argument("--turn-timeout", type=float, default=120.0, metavar="S",
                        help="seconds after a round's first line before it resolves without the rest (default 120)")
    parser.add_argument("--start", help="start point id (default: the world's default)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the kernel and the model")
    parser.add_argument("--save", metavar="DIR", help="save folder for a new game (default: a new one in the saves "
                                                      "folder)")
    add_model_options(parser)
    parser.set_defaults(func=host)


def host(args: argparse.Namespace) -> int:
    """Load or start the game, print the codes, and serve until interrupted."""
    from storyworld.host.server import WorldServer
    from storyworld.minds import LLMMind

    if not args.turn_timeout > 0:
        raise UserError("--turn-timeout must be more than 0 seconds")
    if not 0 <= args.port <= 65535:
        raise UserError("--port must be between 0 and 65535")
    resume = Path(args.target).is_dir()
    if resume and (args.seat or args.start or args.save):
        raise UserError(f"{args.target}: a hosted save keeps its seats, start and folder; drop --seat/--start/--save")
    if not resume and not args.seat:
        raise UserError("give at least one --seat ID: which characters will people play?")
    seats = None
    if resume:
        from storyworld.host.seats import seats_of_save

        seats = seats_of_save(Path(args.target))  # a save that was not hosted is refused before anything loads
    lm = load_lm(args, seed=args.seed)
    try:
        session = _resume(Path(args.target), LLMMind(lm), seats or []) if resume else _start(args, LLMMind(lm), lm)
        try:
            server = WorldServer(session, turn_timeout=args.turn_timeout, say=_say)
            asyncio.run(_serve(server, args))
        finally:
            session.close()
    finally:
        lm.close()
    return 0


def _start(args: argparse.Namespace, mind: Mind, lm: LanguageModel) -> HostedSession:
    """A new hosted game with fresh codes, saved at its start before anyone joins."""
    from saves import SaveError
    from storyworld.game.session import unique_folder
    from storyworld.host.seats import HostedSession, new_seats
    from storyworld.kernel.state import Settings
    from storyworld.locations import find_world, saves_dir
    from storyworld.world import load_world

    world = load_world(find_world(args.target))
    agents = list(dict.fromkeys(world.resolve_player(seat) for seat in args.seat))
    if args.start is not None:
        world.start(args.start)
    slot = Path(args.save) if args.save else unique_folder(saves_dir(), f"{world.file.world.id}-hosted")
    if slot.exists():
        raise UserError(f"{slot}: a save is already there; resume it with `storyworld host {slot}`")
    settings = Settings(seed=args.seed, model=lm.name or "")
    _say(f"preparing {world.file.world.title} (remembering the story so far)…")
    session = HostedSession.new(world, args.start, settings, mind, slot=slot, saves_root=saves_dir())
    session.seats = new_seats(agents)
    session.claim()
    try:
        session.autosave()  # the start itself, and the autosave an undo of the first round goes back to
    except SaveError as exc:
        session.close()
        raise UserError(f"{exc}; nothing was hosted") from None
    return session


def _resume(folder: Path, mind: Mind, seats: list[Seat]) -> HostedSession:
    """A hosted save with its seats and codes, played on in its own save."""
    from storyworld.host.seats import HostedSession

    session = HostedSession.load(folder, mind)  # the world embedded in the save, as it was played
    session.seats = seats
    session.claim()
    return session


async def _serve(server: WorldServer, args: argparse.Namespace) -> None:
    """Serve until SIGINT or SIGTERM, printing where to join once listening."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    def ready(port: int) -> None:
        _announce(server, args.bind, port)
        if sys.stdin is not None and sys.stdin.isatty():
            threading.Thread(target=_console, args=(server, loop), name="host console", daemon=True).start()

    try:
        await server.serve(args.bind, args.port, stop, ready=ready)
    except OSError as exc:
        raise UserError(f"cannot listen on {args.bind}:{args.port} ({exc.strerror or exc})") from None


def _console(server: WorldServer, loop: asyncio.AbstractEventLoop) -> None:
    """The host's own commands, typed where it runs: /undo and /retry (the host's alone), /codes."""
    for typed in sys.stdin:
        command = typed.strip().lower()
        if command in ("/undo", "/retry"):
            done = asyncio.run_coroutine_threadsafe(server.undo(retry=command == "/retry"), loop)
            _say(done.result())
        elif command == "/codes":
            for seat in server.seats.values():
                _say(f"  {server.session.world.name_of(seat.agent)}: {seat.code}" + (" (an agent's now)"
                                                                                    if seat.left else ""))
        elif command:
            _say("host commands: /undo (the last round), /retry (the last round again), /codes")


def _announce(server: WorldServer, bind: str, port: int) -> None:
    """Where people join, one line per seat, and who can reach it."""
    from storyworld.host.server import reachable_address

    session = server.session
    address = reachable_address(bind)
    url = f"ws://{address}:{port}"
    if bind in (LOOPBACK, "localhost", "::1"):
        reach = "this computer only; --bind 0.0.0.0 opens it to your network"
    else:
        reach = f"open to the network on {bind}: anyone with a code can take its seat"
    _say(f"hosting {session.world.file.world.title} at {url} ({reach}); round {session.round}; "
         f"saved in {session.slot}")
    for seat in server.seats.values():
        _say(f"  {session.world.name_of(seat.agent)}: storyworld join {url} {seat.code}")
    _say("Type /undo or /retry here to undo the last round or play it again (the host's alone); /codes lists "
         "the seats")
    _say("Ctrl+C stops the host (the game is saved every round; resume with "
         f"`storyworld host {session.slot}`)")


def _say(line: str) -> None:
    print(line, flush=True)
    sys.stdout.flush()
