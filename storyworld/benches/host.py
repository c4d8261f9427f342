"""`storyworld bench host --clients N`: a hosted round's seconds with N scripted clients against one client.

Both configurations play the same world from the same start with the same seed and lines alike in form and
length (each its own, so neither is served from the other's embedding cache): N seated characters each say one
scripted line a round; one untimed round first in each. With `--clients N` each seat is a websocket client on
loopback; with one client only the first seat is, and the other N-1 lines are handed to the host in its own
process (WorldServer.submit, no socket). Every other character looks around, through the same scripted mind,
in both. So the round's work is the same and the two differ only in what serving N people costs: N sockets, N
filtered views, N messages. A round's time runs from the first line sent to the last client's Resolved
received. Rounds alternate between the two, each going first in turn, so that load on a shared machine and the
embedder's cache of texts it has seen fall on both alike. The memory store embeds with the real embedder; no
language model is loaded (it would add the same decisions to both).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.benches import print_figures
from storyworld.errors import UserError
from storyworld.locations import find_world
from storyworld.world import load_world

if TYPE_CHECKING:
    from memory.embedder import Embedder
    from storyworld.host.client import Player
    from storyworld.minds import Decision, DecisionContext
    from storyworld.world import World


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench host`."""
    parser = benches.add_parser("host", help="a hosted round's seconds: N scripted clients against one")
    parser.add_argument("world", nargs="?", default="hamlet", help="world id or path (default hamlet)")
    parser.add_argument("--clients", type=int, default=8, help="scripted clients (default 8)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds timed per configuration (default 6)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(func=run)


class LookingAround:
    """The host's mind for the bench: every unseated character looks around (the same in both configurations)."""

    def decide(self, world: World, context: DecisionContext) -> Decision:
        from storyworld.kernel.actions import Observe
        from storyworld.minds import Decision

        return Decision(action=Observe(actor=context.agent))


def line(world: World, agent: str, round_: int, dish: str) -> str:
    """The scripted line of a character in a round; each configuration has its own dish, so neither finds
    the other's lines in the embedder's cache (the lines are alike in form and length)."""
    return f"{world.name_of(agent)} remarks on the {dish} of course {round_}."


class _Config:
    """One configuration: a hosted game and its connected clients."""

    def __init__(self, world: World, characters: list[str], clients: int, folder: Path,
                 embedder: Embedder | None) -> None:
        from storyworld.host.seats import HostedSession, new_seats
        from storyworld.host.server import Hosting, WorldServer
        from storyworld.kernel.state import Settings

        session = HostedSession.new(world, None, Settings(seed=1), LookingAround(), embedder=embedder, slot=folder)
        session.seats = new_seats(characters)
        self.clients = clients
        self.dish = "soup" if clients == 1 else "fish"
        self.hosting = Hosting(WorldServer(session, turn_timeout=600.0)).start()
        self.world = world
        self.players: list[Player] = []

    async def join(self) -> None:
        from storyworld.host.client import Player

        seats = self.hosting.server.session.seats[: self.clients]
        self.players = [Player(self.hosting.url, seat.code) for seat in seats]
        await asyncio.gather(*(p.join() for p in self.players))

    async def round(self, round_: int) -> float:
        """One round: every client sends its line; seconds until the last client has its Resolved."""
        from storyworld.host.protocol import Resolved

        async def resolved(player: Player) -> None:
            while not isinstance(await player.receive(600), Resolved):
                pass

        from storyworld.kernel.actions import Say

        server = self.hosting.server
        started = time.perf_counter()
        for seat in server.session.seats[self.clients:]:  # the seats without a client: handed over in-process
            said = Say(actor=seat.agent, text=line(self.world, seat.agent, round_, self.dish))
            self.hosting.call(server.submit, seat.agent, said)
        for player in self.players:
            assert player.welcome is not None  # every player joined in join()
            await player.send_line(line(self.world, player.welcome.character, round_, self.dish))
        await asyncio.gather(*(resolved(p) for p in self.players))
        return time.perf_counter() - started

    async def close(self) -> None:
        await asyncio.gather(*(p.close() for p in self.players))
        self.hosting.stop()


def run(args: argparse.Namespace) -> int:
    """Time both configurations, round by round, and print the figures."""
    if args.clients < 1 or args.rounds < 1:
        raise UserError("--clients and --rounds must be 1 or more")
    world = load_world(find_world(args.world))
    characters = [a.id for a in world.playable_agents()][: args.clients]
    if len(characters) < args.clients:
        raise UserError(f"{args.world}: {len(characters)} playable characters, fewer than --clients {args.clients}")
    embedder = None  # the store's own: the shared bundled MiniLM, loaded once for both configurations
    with tempfile.TemporaryDirectory(prefix="storyworld-bench-host-") as tmp:
        one = _Config(world, characters, 1, Path(tmp) / "one", embedder)
        many = _Config(world, characters, args.clients, Path(tmp) / "many", embedder)

        async def timed() -> tuple[list[float], list[float]]:
            await one.join()
            await many.join()
            start = one.hosting.server.session.round
            one_s, many_s = [], []
            await one.round(start)  # untimed: the first round embeds the texts every later round repeats
            await many.round(start)
            start += 1
            for n in range(args.rounds):
                # whoever goes second embeds texts the first just embedded (the embedder caches): take turns
                if n % 2 == 0:
                    one_s.append(await one.round(start + n))
                    many_s.append(await many.round(start + n))
                else:
                    many_s.append(await many.round(start + n))
                    one_s.append(await one.round(start + n))
            await one.close()
            await many.close()
            return one_s, many_s

        one_s, many_s = asyncio.run(timed())
    result = {
        "world": world.file.world.id,
        "clients": args.clients,
        "rounds": args.rounds,
        # means: with an even number of rounds each configuration went first equally often
        "one_client_round_s": round(statistics.fmean(one_s), 4),
        "n_clients_round_s": round(statistics.fmean(many_s), 4),
        "ratio": round(statistics.fmean(many_s) / statistics.fmean(one_s), 3),
        "one_client_rounds_s": [round(s, 4) for s in one_s],
        "n_clients_rounds_s": [round(s, 4) for s in many_s],
    }
    print_figures(result, args.json)
    return 0
