"""Hosting from the TUI: pick the seats, serve the world, hand out the codes, and keep the host's own controls.

The world server (storyworld.host) runs in this process on its own thread; this screen shows its
codes and its log, plays a seat itself through the join screen, and is the only place a round can be
undone or retried. Leaving the screen stops the host (the game is saved every round).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, RichLog, SelectionList, Static

from storyworld.errors import UserError

if TYPE_CHECKING:
    from tui.runtime import Runtime

DEFAULT_PORT = 8765


class HostLogged(Message):
    """A line from the world server (someone joined, a round was played), or the hosting started or failed."""

    def __init__(self, line: str, *, hosting: Any = None, failed: bool = False) -> None:
        super().__init__()
        self.line = line
        self.hosting = hosting
        self.failed = failed


class HostScreen(Screen):
    """Host a world (new: pick its seats) or a hosted save (its seats are kept)."""

    BINDINGS = [
        Binding("escape", "stop", "Stop hosting", tooltip="Stop the host (the game is saved every round)"),
        Binding("ctrl+z", "undo", "Undo round", tooltip="Undo the last round for everyone (the host's alone)"),
        Binding("ctrl+r", "retry", "Retry round", tooltip="Play the last round again, the same lines, another seed"),
    ]

    def __init__(self, runtime: Runtime, *, world: Any = None, save: Path | None = None) -> None:
        super().__init__()
        self.runtime = runtime
        self.world = world
        self.save = save
        self.hosting: Any = None

    def compose(self) -> ComposeResult:
        title = self.world.file.world.title if self.world is not None else f"the hosted game in {self.save.name}"
        yield Static(f"Host {title}", id="host-title")
        with Vertical(id="host-setup"):
            if self.world is not None:
                yield Label("Seats: the characters people will play (the rest are agents)")
                cast = [(a.name, a.id, index < 2) for index, a in enumerate(self.world.playable_agents())]
                yield SelectionList[str](*cast, id="host-seats")
            with Horizontal(id="host-options"):
                yield Label("Port")
                yield Input(str(DEFAULT_PORT), id="host-port", restrict=r"[0-9]*", max_length=5)
                yield Checkbox("Open to my network (others on it can join)", id="host-open")
            yield Button("Start hosting", id="host-start", variant="primary")
        yield Static("", id="host-codes")
        yield RichLog(id="host-log", wrap=True, markup=False)
        with Horizontal(id="host-buttons"):
            yield Button("Play a seat here", id="host-play", disabled=True)
            yield Button("Undo round", id="host-undo", disabled=True)
            yield Button("Retry round", id="host-retry", disabled=True)
            yield Button("Stop hosting", id="host-stop", variant="error")
        yield Footer()

    @on(Button.Pressed, "#host-start")
    def _start(self) -> None:
        seats: list[str] = []
        if self.world is not None:
            seats = list(self.query_one("#host-seats", SelectionList).selected)
            if not seats:
                self.notify("Choose at least one seat.")
                return
        port_text = self.query_one("#host-port", Input).value or "0"
        bind = "0.0.0.0" if self.query_one("#host-open", Checkbox).value else "127.0.0.1"
        self.query_one("#host-start", Button).disabled = True
        self.query_one("#host-log", RichLog).write("Loading the embedder and the model, then remembering the story…")
        self.begin(seats, bind, int(port_text))

    @work(thread=True, exclusive=True, group="host", exit_on_error=False)
    def begin(self, seats: list[str], bind: str, port: int) -> None:
        """Load the game (new or saved) and start serving it; posts HostLogged."""
        from storyworld.host.seats import HostedSession, new_seats, seats_of_save
        from storyworld.host.server import Hosting, WorldServer
        from storyworld.kernel.state import Settings

        try:
            embedder = self.runtime.embedder()
            mind = self.runtime.mind()
            if self.world is not None:
                from storyworld.game.session import unique_folder

                slot = unique_folder(self.runtime.saves(), f"{self.world.file.world.id}-hosted")
                session = HostedSession.new(self.world, None, Settings(seed=self.runtime.seed), mind,
                                            embedder=embedder, slot=slot, saves_root=self.runtime.saves())
                session.seats = new_seats(seats)
                session.claim()
                session.autosave()
            else:
                from storyworld.game.session import world_of_save

                session = HostedSession.load(self.save, mind, embedder=embedder, world=world_of_save(self.save),
                                             saves_root=self.runtime.saves())
                session.seats = seats_of_save(self.save)
                session.claim()
            server = WorldServer(session, say=lambda line: self.post_message(HostLogged(line)))
            hosting = Hosting(server, host=bind, port=port).start()
        except (UserError, OSError, ValueError) as exc:
            self.post_message(HostLogged(str(exc).splitlines()[0], failed=True))
            return
        self.post_message(HostLogged("", hosting=hosting))

    @on(HostLogged)
    def _logged(self, message: HostLogged) -> None:
        log = self.query_one("#host-log", RichLog)
        if message.failed:
            log.write(Text(message.line, style="bold red"))
            self.query_one("#host-start", Button).disabled = False
            return
        if message.hosting is not None:
            self.hosting = message.hosting
            self.query_one("#host-setup").display = False
            for button in ("#host-play", "#host-undo", "#host-retry"):
                self.query_one(button, Button).disabled = False
            self.query_one("#host-play", Button).focus()
            self._show_codes()
            return
        log.write(message.line)

    def _show_codes(self) -> None:
        from storyworld.host.server import reachable_address

        hosting = self.hosting
        session = hosting.server.session
        url = f"ws://{reachable_address(hosting.host)}:{hosting.port}"
        reach = "this computer only" if hosting.host == "127.0.0.1" else f"open to the network on {hosting.host}"
        text = Text()
        text.append(f"Hosting at {url} ({reach}); saved in {session.slot}\n", style="bold")
        for seat in session.seats:
            text.append(f"  {session.world.name_of(seat.agent)}: ", style="bold")
            text.append(f"storyworld join {url} {seat.code}\n")
        self.query_one("#host-codes", Static).update(text)

    @on(Button.Pressed, "#host-play")
    def _play(self) -> None:
        """Play the first seat nobody holds, through the join screen (the host stays up behind it)."""
        from tui.screens.join import JoinScreen

        server = self.hosting.server
        free = [seat for seat in server.session.seats if seat.agent not in server.connections]
        if not free:
            self.notify("Every seat is taken.")
            return
        self.app.push_screen(JoinScreen(f"ws://127.0.0.1:{self.hosting.port}", free[0].code))

    @on(Button.Pressed, "#host-undo")
    def action_undo(self) -> None:
        """Undo the last round for everyone."""
        if self.hosting is not None:
            self.undo(False)

    @on(Button.Pressed, "#host-retry")
    def action_retry(self) -> None:
        """Play the last round again with the same lines under another seed."""
        if self.hosting is not None:
            self.undo(True)

    @work(thread=True, group="host-undo", exit_on_error=False)
    def undo(self, retry: bool) -> None:
        """The host's undo, on the server's loop; its answer goes to the log."""
        server = self.hosting.server
        self.post_message(HostLogged(self.hosting.wait_for(server.undo(retry=retry), 600)))

    @on(Button.Pressed, "#host-stop")
    def action_stop(self) -> None:
        """Stop hosting and go back."""
        self.app.pop_screen()

    def on_unmount(self) -> None:
        if self.hosting is not None:
            hosting, self.hosting = self.hosting, None
            hosting.stop()
            hosting.server.session.close()
