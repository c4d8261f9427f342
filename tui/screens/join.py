"""Playing a seat of a hosted game: the join form, and the play screen of one character served by a host.

Everything shown comes from the host's messages (storyworld.host.protocol), which carry only what
this seat's character perceived and holds. The connection runs in an async worker on the app's
loop; it posts HostSpoke messages and the handlers change the widgets.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, RichLog, Static

from storyworld.errors import UserError
from storyworld.host.protocol import (
    Accepted, Bye, Entry, Error, Notice, Progress, Recalled, Resolved, Rewound, View, Welcome,
)


class HostSpoke(Message):
    """A message arrived from the host (or the connection ended: `gone` says why)."""

    def __init__(self, message: object = None, gone: str = "") -> None:
        super().__init__()
        self.message = message
        self.gone = gone


class JoinForm(Screen):
    """Where to join and with which code."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", show=True)]

    def __init__(self, url: str = "", code: str = "") -> None:
        super().__init__()
        self.url = url
        self.code = code

    def compose(self) -> ComposeResult:
        with Vertical(id="join-form"):
            yield Label("Join a game", classes="section")
            yield Label("The host's address (from `storyworld host`), and your seat's code.")
            yield Input(self.url, placeholder="ws://192.168.1.20:8765", id="join-url")
            yield Input(self.code, placeholder="k7m2-x9qa-3hfd", id="join-code")
            yield Button("Join", id="join-go", variant="primary")
            yield Static("", id="join-problem")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#join-code" if self.url else "#join-url", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#join-go")
    def _go(self) -> None:
        url = self.query_one("#join-url", Input).value.strip()
        code = self.query_one("#join-code", Input).value.strip()
        if not url.startswith(("ws://", "wss://")):
            self.query_one("#join-problem", Static).update("The address starts with ws:// (as the host printed it).")
            return
        if not code:
            self.query_one("#join-code", Input).focus()
            return
        self.app.push_screen(JoinScreen(url, code))


class JoinScreen(Screen):
    """One character's view of a hosted game: its transcript, its place and holdings, and the action bar."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Close the connection (the seat stays yours: rejoin with the code)"),
        Binding("f5", "rejoin", "Rejoin", tooltip="Connect again and catch up on what you missed"),
        Binding("ctrl+l", "leave_seat", "Leave seat",
                tooltip="Hand your character to an agent (the code takes it back)"),
    ]

    def __init__(self, url: str, code: str) -> None:
        super().__init__()
        self.url = url
        self.code = code
        self.player = None  # storyworld.host.client.Player, once the worker has made it
        self.name_of_character = ""

    def compose(self) -> ComposeResult:
        yield Static(f"Joining {self.url}…", id="join-status")
        with Horizontal(id="join-main"):
            yield RichLog(id="join-transcript", wrap=True, markup=False, highlight=False)
            yield Static("", id="join-side")
        yield Input(placeholder="Say something, or /move, /act, /recall, /help, /leave", id="join-line")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#join-line", Input).focus()
        self.connect()

    @work(exclusive=True, group="host", exit_on_error=False)
    async def connect(self) -> None:
        """Join (again: asking for what came after the last round shown), then pass every host message on."""
        from storyworld.host.client import HostGone, Player

        if self.player is None:
            self.player = Player(self.url, self.code)
        else:
            await self.player.close()
        try:
            self.post_message(HostSpoke(await self.player.join()))
            while True:
                self.post_message(HostSpoke(await self.player.receive()))
        except HostGone as exc:
            self.post_message(HostSpoke(gone=str(exc)))
        except UserError as exc:
            self.post_message(HostSpoke(gone=str(exc)))

    @on(Input.Submitted, "#join-line")
    def _send(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.player is None:
            return
        event.input.value = ""
        self.send(text)

    @work(group="send", exit_on_error=False)
    async def send(self, text: str) -> None:
        """Send a line (the host answers with Accepted, an Error or a Notice)."""
        from storyworld.host.client import HostGone

        try:
            await self.player.send_line(text)
        except HostGone as exc:
            self.post_message(HostSpoke(gone=str(exc)))

    def action_rejoin(self) -> None:
        """Connect again with the same code; the host sends what this screen missed."""
        self.query_one("#join-line", Input).disabled = False
        self.query_one("#join-status", Static).update(f"Rejoining {self.url}…")
        self.connect()

    async def action_back(self) -> None:
        """Close the connection and go back (the seat waits for its code)."""
        if self.player is not None:
            await self.player.close()
        self.dismiss()

    def action_leave_seat(self) -> None:
        """Hand the character to an agent (the code takes it back)."""
        self.send("/leave")

    # --- what the host said -----------------------------------------------------------------------
    @on(HostSpoke)
    def _spoke(self, event: HostSpoke) -> None:
        if not self.is_attached:
            return
        status = self.query_one("#join-status", Static)
        log = self.query_one("#join-transcript", RichLog)
        if event.gone:
            status.update(Text(f"The host is gone: {event.gone}", style="bold red"))
            self.query_one("#join-line", Input).disabled = True
            return
        match event.message:
            case Welcome() as welcome:
                self.name_of_character = welcome.character_name
                status.update(f"{welcome.world_title} — you are {welcome.character_name} — "
                              f"round {welcome.view.round}")
                log.write(Text(f"You play {welcome.character_name}. {welcome.view.place_description}", style="italic"))
                self._entries(welcome.entries)
                self._side(welcome.view)
            case Accepted() as accepted:
                status.update(f"Round {accepted.round}: you will {accepted.action}. Waiting for the others…")
                log.write(Text(f"(round {accepted.round}: you will {accepted.action})", style="dim"))
            case Progress() as progress:
                left = f"; it resolves in {progress.seconds_left:.0f}s" if progress.seconds_left is not None else ""
                status.update(f"Round {progress.round}: {progress.acted} of {progress.seated} have acted{left}")
            case Resolved() as resolved:
                if resolved.waited:
                    log.write(Text(f"You did not act in time: {self.name_of_character} waited this round.",
                                   style="yellow"))
                self._entries(resolved.entries)
                self._side(resolved.view)
                status.update(f"{self.name_of_character} — round {resolved.view.round}: your move")
            case Rewound() as rewound:
                again = "; it is played again with the same lines" if rewound.retried else ""
                log.write(Text(f"The host undid round {rewound.round}: what happened in it did not happen{again}.",
                               style="bold yellow"))
                self._side(rewound.view)
                status.update(f"{self.name_of_character} — round {rewound.round}")
            case Recalled() as recalled:
                log.write(Text(f"You recall ({recalled.query}):", style="bold"))
                for holding in recalled.holdings or ():
                    log.write(f"  · {holding.text} ({holding.how})")
            case Notice(text=text):
                log.write(Text(text, style="cyan"))
            case Error(message=message):
                log.write(Text(message, style="red"))
            case Bye(reason=reason):
                status.update(Text(f"The host is gone: {reason}", style="bold red"))
                self.query_one("#join-line", Input).disabled = True

    def _entries(self, entries: tuple[Entry, ...]) -> None:
        log = self.query_one("#join-transcript", RichLog)
        for entry in entries:
            match entry.kind:
                case "heading":
                    log.write(Text(entry.text.upper(), style="bold"))
                case "line":
                    to = f" (to {entry.to})" if entry.to else ""
                    log.write(Text.assemble((f"{entry.speaker}{to}: ", "bold"), entry.text))
                case _:
                    log.write(Text(entry.text, style="italic" if entry.kind != "result" else "green"))

    def _side(self, view: View) -> None:
        text = Text()
        text.append(f"{view.place_name}\n", style="bold")
        text.append(f"Here: {', '.join(view.present) or 'nobody'}\n")
        text.append(f"Exits: {', '.join(view.exits)}\n")
        if view.carrying:
            text.append(f"Carrying: {', '.join(view.carrying)}\n")
        text.append("\nGoals\n", style="bold")
        for goal in view.goals:
            text.append(f"· {goal}\n")
        text.append("\nWhat you know\n", style="bold")
        for holding in view.holdings[:15]:
            text.append(f"· {holding.text} ", style="")
            text.append(f"({holding.how})\n", style="dim")
        self.query_one("#join-side", Static).update(text)


class JoinApp(App[int]):
    """The join client alone (`storyworld join`, and each browser page of `storyworld serve`)."""

    CSS_PATH = "../app.tcss"
    TITLE = "storyworld — join"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(self, url: str = "", code: str = "") -> None:
        super().__init__()
        self.url = url
        self.code = code

    def get_default_screen(self) -> Screen:
        return JoinForm(self.url, self.code)

    def on_mount(self) -> None:
        if self.url and self.code:
            self.push_screen(JoinScreen(self.url, self.code))
