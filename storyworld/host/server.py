"""The world server: owns a hosted Session, seats people by join code, and plays a round when they have acted.

One asyncio loop serves every connection (websockets); a round is played on a thread (the Session's
blocking `play_round` and `autosave`), so connections stay served while the model thinks. A round
resolves when every seated person has acted, or `turn_timeout` seconds after the round's first line
(whoever has not acted then waits). Each seat is sent only what storyworld.host.views lets its
character see.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, TypeVar

import msgspec
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from storyworld.errors import UserError
from storyworld.game.playerinput import Help, Play, Problem, Recall, Surroundings, help_text, parse
from storyworld.game.simulation import RoundRefused
from storyworld.host import views
from storyworld.host.protocol import (
    MAX_MESSAGE_BYTES, PROTOCOL, Accepted, Bye, Error, Join, Leave, Line, Notice, Progress, Recalled, Resolved,
    Rewound, Welcome, client_decoder, encode,
)
from storyworld.host.seats import HostedSession, Seat
from storyworld.kernel.actions import Action, Wait, describe

if TYPE_CHECKING:
    from storyworld.game.playerinput import Parsed
    from storyworld.host.protocol import Holding, HostMessage, View
    from storyworld.kernel.resolve import RoundOutcome

log = logging.getLogger("storyworld.host.server")
_T = TypeVar("_T")

HOST_ONLY = ("/retry", "/undo", "/rewind")
FLOOD_RATE = 20.0  # messages a second a connection may send, on average
FLOOD_BURST = 40.0
OUTBOX_LIMIT = 256  # messages waiting on a client that does not read; past it the host lets that client go


class _Bucket:
    """A token bucket: whether one more message from a connection is within its rate."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.tokens = FLOOD_BURST
        self.at = clock()
        self.warned = False

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(FLOOD_BURST, self.tokens + (now - self.at) * FLOOD_RATE)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        self.warned = False
        return True


class _Outbox:
    """One connection's messages, in order, sent by their own task: a client that stops reading stalls no one."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue(OUTBOX_LIMIT)
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            data = await self.queue.get()
            try:
                await self.ws.send(data)
            except ConnectionClosed:
                return
            finally:
                self.queue.task_done()

    def put(self, data: str) -> bool:
        """Queue a message; False when the client has let too many pile up."""
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            return False
        return True

    async def flush(self, timeout: float) -> None:
        """Wait (a while at most) until what is queued has gone out."""
        try:
            await asyncio.wait_for(self.queue.join(), timeout)
        except TimeoutError:
            pass

    def close(self) -> None:
        self.task.cancel()


class WorldServer:
    """Seats, pending lines and the round loop of one hosted game."""

    def __init__(self, session: HostedSession, *, turn_timeout: float = 120.0,
                 clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.turn_timeout = turn_timeout
        self.clock = clock
        self.say = say or (lambda line: log.info("%s", line))
        self.seats: dict[str, Seat] = {seat.agent: seat for seat in session.seats}
        self.connections: dict[str, ServerConnection] = {}
        self._outboxes: dict[ServerConnection, _Outbox] = {}
        self._closing: set[asyncio.Task[None]] = set()  # closes of clients let go, kept until done
        self.pending: dict[str, Action] = {}
        self.first_line_at: float | None = None
        self.resolving = False
        self.rounds_played = 0
        self.round_seconds: list[float] = []  # last line in to last seat's Resolved sent, per round
        self.last_seated: dict[str, Action] = {}  # the seats' actions in the last round played (what /retry replays)
        self._wake: asyncio.Event | None = None
        self._round_task: asyncio.Task[None] | None = None

    # --- serving -----------------------------------------------------------------------------------
    async def serve(self, host: str, port: int, stop: asyncio.Event,
                    ready: Callable[[int], None] | None = None) -> None:
        """Serve until `stop` is set; `ready(port)` once listening. The game is saved after every round."""
        self._wake = asyncio.Event()
        async with serve(self._connection, host, port, max_size=MAX_MESSAGE_BYTES, ping_interval=20, close_timeout=2,
                         ping_timeout=20) as server:
            bound = server.sockets[0].getsockname()[1] if server.sockets else port
            if ready is not None:
                ready(bound)
            loop = asyncio.create_task(self._rounds(stop))
            await stop.wait()
            self._wake.set()
            await loop
            await self._broadcast_bye("the host stopped; the game is saved at its last round")

    async def _rounds(self, stop: asyncio.Event) -> None:
        """Play a round whenever one is due; until stopped (a round in play is finished first)."""
        assert self._wake is not None
        while not stop.is_set():
            left = self._seconds_left()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=left)
            except TimeoutError:
                pass
            self._wake.clear()
            if not stop.is_set() and self._due():
                await self._play()

    def _active(self) -> list[str]:
        """Seated characters whose person has not handed them to an agent."""
        return [agent for agent, seat in self.seats.items() if not seat.left]

    def _seconds_left(self) -> float | None:
        if self.first_line_at is None:
            return None
        return max(0.0, self.first_line_at + self.turn_timeout - self.clock())

    def _due(self) -> bool:
        """A round is due when someone has acted and everyone seated has, or the turn has timed out."""
        if not self.pending or self.resolving:
            return False
        if all(agent in self.pending for agent in self._active()):
            return True
        return self._seconds_left() == 0.0

    async def _play(self, seated: dict[str, Action] | None = None, *, draw: int = 0) -> None:
        """Play the round with the seats' lines (a seat that did not act waits), save it, and tell each seat;
        `draw`: which drawing of the round (a retry's, Simulation.step)."""
        if seated is None:
            seated = {a: self.pending.get(a) or Wait(actor=a) for a in self._active()}
        waited = {a for a in seated if a not in self.pending} if self.pending else set()
        self.pending, self.first_line_at, self.resolving = {}, None, True
        self.last_seated = dict(seated)
        started = self.clock()
        round_ = self.session.round
        try:
            outcome = await asyncio.to_thread(self._step, seated, draw)
        except RoundRefused as exc:  # the game is as it was before the round
            self.resolving = False
            self.say(str(exc))
            await self._broadcast(Notice(text=f"{exc}; send your lines again"))
            return
        self.rounds_played += 1
        messages = await asyncio.to_thread(self._resolved, outcome, waited)
        self.resolving = False
        await asyncio.gather(*(self._send_to(agent, message) for agent, message in messages.items()))
        self.round_seconds.append(self.clock() - started)
        self.say(f"round {round_} played ({len(seated) - len(waited)} of {len(seated)} seats acted)")

    def _step(self, seated: dict[str, Action], draw: int = 0) -> RoundOutcome:
        """The round itself, then its autosave (on a thread: both block)."""
        from saves import SaveError

        outcome = self.session.play_round(None, seated=seated, draw=draw)
        if self.session.slot is not None:
            try:
                self.session.autosave()
            except SaveError as exc:
                self.say(f"round {outcome.round} played but not saved: {exc}")
        return outcome

    def _resolved(self, outcome: RoundOutcome, waited: set[str]) -> dict[str, Resolved]:
        """Each connected seat's share of the round (built under the session's lock)."""
        with self.session.reading() as sim:
            return {agent: Resolved(round=outcome.round, waited=agent in waited, view=views.view(sim, agent),
                                    entries=views.entries(sim.world, outcome.events, agent, outcome.results))
                    for agent in list(self.connections)}

    # --- the host's own commands -------------------------------------------------------------------
    async def undo(self, *, retry: bool = False) -> str:
        """Undo the last round (memory included), or with `retry` play it again with the seats' same lines as
        the round's next drawing (its own seed); every seat is told. The host's alone: one player's undo would
        undo everyone's round."""
        if self.resolving:
            return "a round is being played; undo it once it has resolved"
        seated = dict(self.last_seated)
        draw = self.session.sim.state.draw + 1  # a retry is the round's next drawing (Session.retry)
        self.resolving = True
        try:
            round_ = await asyncio.to_thread(self.session.rewind)
        except UserError as exc:
            return str(exc)
        finally:
            self.resolving = False
        self.pending, self.first_line_at = {}, None
        if retry:
            await asyncio.to_thread(self._reseed, draw)
        shown = await asyncio.to_thread(self._views)
        await asyncio.gather(*(self._send_to(agent, Rewound(round=round_, view=view, retried=retry))
                               for agent, view in shown.items()))
        self.say(f"round {round_} undone" + (f"; playing it again (draw {draw + 1})" if retry else ""))
        if retry:
            await self._play({a: act for a, act in seated.items() if a in self._active()}, draw=draw)
        return f"round {round_} undone" + (" and played again" if retry else "")

    def _reseed(self, draw: int) -> None:
        """The seed of the round about to be drawn again as drawing `draw` (as Session.retry does for one player)."""
        from storyworld.game.simulation import redraw

        with self.session.lock:
            redraw(self.session.sim, draw)

    def _views(self) -> dict[str, View]:
        with self.session.reading() as sim:
            return {agent: views.view(sim, agent) for agent in list(self.connections)}

    # --- one connection ------------------------------------------------------------------------------
    async def _connection(self, ws: ServerConnection) -> None:
        """Read one client's messages until it goes; a bad message gets an Error and the connection lives."""
        agent: str | None = None
        bucket = _Bucket(self.clock)
        outbox = self._outboxes[ws] = _Outbox(ws)
        try:
            async for raw in ws:
                if not bucket.take():
                    if not bucket.warned:
                        bucket.warned = True
                        await self._send(ws, Error(message="too many messages: slow down (some were dropped)"))
                    continue
                try:
                    message = client_decoder.decode(raw)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    await self._send(ws, Error(message=f"message not understood: {exc}"))
                    continue
                match message:
                    case Join():
                        if agent is not None:
                            await self._send(ws, Error(message="this connection already holds a seat"))
                            continue
                        agent = await self._join(ws, message)
                        if agent is None:  # refused: the reason goes out, then the connection closes
                            await outbox.flush(5)
                            await ws.close()
                            return
                    case _ if agent is None:
                        await self._send(ws, Error(message="send a join message with your code first"))
                    case Line():
                        await self._line(ws, agent, message.text)
                    case Leave():
                        await self._leave(ws, agent)
        except ConnectionClosed:
            pass
        finally:
            outbox.close()
            self._outboxes.pop(ws, None)
            if agent is not None and self.connections.get(agent) is ws:
                del self.connections[agent]
                self.say(f"{self.session.world.name_of(agent)}'s player left")

    async def _join(self, ws: ServerConnection, message: Join) -> str | None:
        """Seat the connection by its code, or refuse it (None)."""
        if message.protocol != PROTOCOL:
            await self._send(ws, Error(message=f"protocol {message.protocol} is not this host's ({PROTOCOL}); "
                                               "update storyworld", fatal=True))
            return None
        seat = next((s for s in self.seats.values() if secrets.compare_digest(s.code.encode(), message.code.encode())),
                    None)
        if seat is None:
            await self._send(ws, Error(message="no seat has that code", fatal=True))
            return None
        if seat.agent in self.connections:
            await self._send(ws, Error(message="that code is in use: its seat is taken", fatal=True))
            return None
        self.connections[seat.agent] = ws
        if seat.left:
            seat.left = False  # the person takes the character back from the agent
        welcome = await asyncio.to_thread(self._welcome, seat.agent, message.seen)
        await self._send(ws, welcome)
        if self.pending:
            await self._send(ws, self._progress())
        self.say(f"{welcome.character_name} is played by a person now")
        return seat.agent

    def _welcome(self, agent: str, seen: int | None) -> Welcome:
        with self.session.reading() as sim:
            return Welcome(protocol=PROTOCOL, character=agent, character_name=sim.world.name_of(agent),
                           world_title=sim.world.file.world.title, turn_timeout=self.turn_timeout,
                           view=views.view(sim, agent), entries=views.history(sim, agent, after_round=seen),
                           host_only=HOST_ONLY)

    async def _line(self, ws: ServerConnection, agent: str, text: str) -> None:
        """A line of the action bar: an action for the round, a recall, help, or a refusal saying why."""
        command = text.strip().split(maxsplit=1)[0].lower() if text.strip() else ""
        if command in HOST_ONLY:
            await self._send(ws, Notice(text=f"{command} is the host's alone: one person's undo would undo "
                                             "everyone's round"))
            return
        if command == "/leave":
            await self._leave(ws, agent)
            return
        if self.resolving:
            await self._send(ws, Error(message=f"round {self.session.round} is being played; "
                                               "send your line when it has resolved"))
            return
        parsed = await asyncio.to_thread(self._parse, agent, text)
        match parsed:
            case Play(action=action):
                if not self.submit(agent, action):
                    await self._send(ws, Error(message=f"you have acted in round {self.session.round} already"))
                    return
                await self._send(ws, Accepted(round=self.session.round, action=describe(action)))
                await self._broadcast(self._progress())
            case Recall(query=query):
                found = await asyncio.to_thread(self._recall, agent, query)
                await self._send(ws, Recalled(query=query, holdings=found))
            case Help():
                await self._send(ws, Notice(text=help_text() + "\n/leave: hand your character to an agent "
                                                               "(your code takes it back)"))
            case Problem(message=problem):
                await self._send(ws, Error(message=problem))

    def submit(self, agent: str, action: Action) -> bool:
        """Take a seat's action for the round (on the server's loop); False when it has acted already."""
        if agent in self.pending:
            return False
        self.pending[agent] = action
        if self.first_line_at is None:
            self.first_line_at = self.clock()
        assert self._wake is not None
        self._wake.set()
        return True

    def _parse(self, agent: str, text: str) -> Parsed:
        with self.session.reading() as sim:
            return parse(text, Surroundings.of(sim.world, sim.state, agent))

    def _recall(self, agent: str, query: str) -> tuple[Holding, ...]:
        with self.session.reading() as sim:
            return views.recall(sim, agent, query)

    async def _leave(self, ws: ServerConnection, agent: str) -> None:
        """Hand the seat to an agent until its code is used again."""
        if self.session.sim.mind is None:
            await self._send(ws, Error(message="no agent can take your seat: this host runs without a model"))
            return
        self.seats[agent].left = True
        self.pending.pop(agent, None)
        await self._send(ws, Notice(text="an agent plays your character now; join with the same code to take "
                                         "it back"))
        self.say(f"{self.session.world.name_of(agent)} is left to an agent")
        assert self._wake is not None
        self._wake.set()

    def _progress(self) -> Progress:
        return Progress(round=self.session.round, acted=len(self.pending), seated=len(self._active()),
                        seconds_left=self._seconds_left())

    # --- sending -----------------------------------------------------------------------------------
    async def _send(self, ws: ServerConnection, message: HostMessage) -> None:
        """Queue a message for a connection (never waits on the client); one that stops reading is let go."""
        outbox = self._outboxes.get(ws)
        if outbox is None or outbox.put(encode(message).decode("utf-8")):
            return
        for agent, held in list(self.connections.items()):
            if held is ws:
                del self.connections[agent]
                self.say(f"{self.session.world.name_of(agent)}'s player stopped reading; let go (the code rejoins)")
        closing = asyncio.create_task(ws.close())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    async def _send_to(self, agent: str, message: HostMessage) -> None:
        ws = self.connections.get(agent)
        if ws is not None:
            await self._send(ws, message)

    async def _broadcast(self, message: HostMessage) -> None:
        await asyncio.gather(*(self._send(ws, message) for ws in list(self.connections.values())))

    async def _broadcast_bye(self, reason: str) -> None:
        await self._broadcast(Bye(reason=reason))
        await asyncio.gather(*(outbox.flush(2) for outbox in list(self._outboxes.values())))
        await asyncio.gather(*(ws.close() for ws in list(self.connections.values())), return_exceptions=True)


class Hosting:
    """A WorldServer on its own thread and event loop (the TUI, the bench and the tests run one in-process)."""

    def __init__(self, server: WorldServer, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = server
        self.host = host
        self.port = port
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    @property
    def url(self) -> str:
        """Where clients connect."""
        return f"ws://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> Hosting:
        """Start serving; returns once listening (UserError when the port cannot be taken)."""
        self._thread = threading.Thread(target=self._run, name="storyworld-host", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self._failure is not None:
            raise UserError(f"cannot host on {self.host}:{self.port}: {self._failure or 'no answer'}")
        return self

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(port: int) -> None:
                self.port = port
                self._ready.set()

            await self.server.serve(self.host, self.port, self._stop, ready=ready)

        try:
            asyncio.run(main())
        except OSError as exc:
            self._failure = exc
            self._ready.set()

    def call(self, function: Callable[..., object], *args: object) -> None:
        """Run `function(*args)` on the server's loop (the server's state belongs to that thread)."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(function, *args)

    def wait_for(self, coroutine: Coroutine[object, object, _T], timeout: float | None = None) -> _T:
        """Run a coroutine on the server's loop (WorldServer.undo) and wait for its result."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Say goodbye to every client and stop (a round in play is finished and saved first); again: nothing."""
        if self._thread is None or not self._thread.is_alive():
            return
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> Hosting:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def reachable_address(bind: str) -> str:
    """The address others type: the bound one, or this machine's LAN address when bound to all."""
    if bind not in ("0.0.0.0", "::", ""):
        return bind
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only asks which interface would be used
        address: str = probe.getsockname()[0]  # (host, port) for AF_INET
        return address
    except OSError:
        return socket.gethostname()
    finally:
        probe.close()
