"""Small modal screens: help, ask for a name, pick a save, the damaged-save notice, and the model-failed one."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static

from tui import slash
from tui.messages import CatalogListed
from tui.widgets.buttons import Buttons

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "play the line (one round passes)"),
    ("Tab or →", "complete the word: a command, a place, an object, or @name (with or without /say)"),
    ("↑ / ↓", "earlier / later lines you played"),
    ("Esc", "cancel the round in progress"),
    ("F2", "memory inspector (Enter on a Who-knows card opens it on that record)"),
    ("F3", "next side-panel tab: Who knows, Cast, Map, Goals"),
    ("Ctrl+Z", "undo the last round (memory included); asks first"),
    ("Ctrl+R", "retry: undo the last round and play it again, others deciding afresh; asks first"),
    ("F5 F6 F7", "save as / load / branch"),
    ("F8", "hide or show the side panel"),
    ("Ctrl+Q", "quit (the game is autosaved after every round)"),
)


def help_text() -> Text:
    """Commands and keys as two aligned columns (narrow enough for 80 columns)."""
    text = Text()
    text.append("Commands\n", style="bold")
    for _, usage, what in slash.COMMANDS:
        text.append(f"  {usage}\n", style="bold")
        text.append(f"      {what}\n")
    text.append("  Plain text without a slash is said aloud.\n\n", style="italic")
    text.append("Interactive fiction's words (typed bare)\n", style="bold")
    for usage, what in slash.ALIASES:
        text.append(f"  {usage}\n", style="bold")
        text.append(f"      {what}\n")
    text.append("\n")
    text.append("Keys\n", style="bold")
    for key, what in KEYS:
        text.append(f"  {key:<10}", style="bold")
        text.append(f"{what}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """The slash commands and the keys."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", tooltip="Back to the game")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            with VerticalScroll():
                yield Static(help_text(), id="help-text")
            with Buttons(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class AskName(ModalScreen[str | None]):
    """Ask for a save or branch name."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without saving")]

    def __init__(self, title: str, prompt: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Input(value=self.value, placeholder=self.prompt, id="name")
            with Buttons(classes="dialog-buttons"):
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted, "#name")
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        self.dismiss(name or None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without a name."""
        self.dismiss(None)


class DamagedSave(ModalScreen[bool]):
    """A save could not be loaded: the one-line reason, and the newest good autosave when there is one."""

    BINDINGS = [Binding("escape", "back", "Back", tooltip="Do not load anything")]

    def __init__(self, reason: str, fallback: Path | None) -> None:
        super().__init__()
        self.reason = reason
        self.fallback = fallback

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -error"):
            yield Label("This game cannot be loaded", classes="dialog-title")
            yield Static(self.reason, id="reason", markup=False)
            if self.fallback is not None:
                yield Static(f"The newest good autosave is {self.fallback.parent.name}/{self.fallback.name}.",
                             id="fallback", markup=False)
            with Buttons(classes="dialog-buttons"):
                if self.fallback is not None:
                    yield Button("Load that autosave", id="use", variant="primary")
                yield Button("Back", id="back")

    @on(Button.Pressed, "#use")
    def _use(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#back")
    def action_back(self) -> None:
        """Close without loading."""
        self.dismiss(False)


class ModelDown(ModalScreen[str | None]):
    """The model failed and the round was not played: retry it, save and quit, or go back to the game."""

    BINDINGS = [
        Binding("r", "retry", "Retry", tooltip="Play the round again with the same line"),
        Binding("q", "quit_game", "Save and quit", tooltip="Save the game (as it was before the round) and quit"),
        Binding("escape", "back", "Back", tooltip="Back to the game; your line is in the action bar"),
    ]

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -error"):
            yield Label("The model failed", classes="dialog-title")
            yield Static(self.reason, id="reason", markup=False)
            yield Static("The round was not played: the world and everyone's memory are as they were before it.",
                         id="state", markup=False)
            yield Static("Press r to retry the round, q to save and quit, Esc to go back.", id="keys", markup=False)
            with Buttons(classes="dialog-buttons"):
                yield Button("Retry (r)", id="retry", variant="primary")
                yield Button("Save and quit (q)", id="quit")
                yield Button("Back", id="back")

    @on(Button.Pressed, "#retry")
    def action_retry(self) -> None:
        """Play the round again."""
        self.dismiss("retry")

    @on(Button.Pressed, "#quit")
    def action_quit_game(self) -> None:
        """Save and quit."""
        self.dismiss("quit")

    @on(Button.Pressed, "#back")
    def action_back(self) -> None:
        """Back to the game."""
        self.dismiss(None)


class PickSave(ModalScreen[Path | None]):
    """Choose a save to load (damaged ones are listed with their reason)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without loading")]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.folders: list[Path] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -wide"):
            yield Label("Load a game", classes="dialog-title")
            yield DataTable(id="picker", cursor_type="row")
            with Buttons(classes="dialog-buttons"):
                yield Button("Load", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("save", "world", "character", "round", "saved")
        self.list_saves()

    @work(thread=True, exclusive=True, group="catalog", exit_on_error=False)
    def list_saves(self) -> None:
        """Read the saves folder off the UI thread."""
        from tui.catalog import list_game_saves

        self.post_message(CatalogListed([], list_game_saves(self.root)))

    @on(CatalogListed)
    def _fill(self, message: CatalogListed) -> None:
        rows = [row for row in message.saves if not row.hosted]  # several people's game resumes as a host, from home
        table = self.query_one(DataTable)
        for row in rows:
            self.folders.append(row.folder)
            table.add_row(*row.cells())
        if not rows:
            table.add_row("no saves yet", "", "", "", "")
        table.focus()

    @on(DataTable.RowSelected)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        index = self.query_one(DataTable).cursor_row
        self.dismiss(self.folders[index] if 0 <= index < len(self.folders) else None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without loading."""
        self.dismiss(None)


class PickOne(ModalScreen[str | None]):
    """Choose one of several ids (e.g. the character to merge into)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without choosing")]

    def __init__(self, title: str, options: list[tuple[str, str]], note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.options = options  # (label, id)
        self.note = note

    def compose(self) -> ComposeResult:
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option

        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            if self.note:
                yield Static(self.note, classes="dialog-note", markup=False)
            yield OptionList(*[Option(label, id=ident) for label, ident in self.options], id="pick")
            with Buttons(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#pick").focus()

    def on_option_list_option_selected(self, event) -> None:
        """An option was chosen with Enter or a click."""
        self.dismiss(event.option.id)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """Ask yes or no before an action that changes the game (e.g. undoing a merge); the action is focused."""

    BINDINGS = [Binding("escape,n", "cancel", "Cancel", tooltip="Close without doing it"),
                Binding("y", "confirm", "Yes", tooltip="Do it")]

    def __init__(self, title: str, note: str, yes: str = "Yes") -> None:
        super().__init__()
        self.title_text = title
        self.note = note
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Static(self.note, classes="dialog-note", markup=False)
            with Buttons(classes="dialog-buttons"):
                yield Button(self.yes, id="yes", variant="warning")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        # the key that opened it asked for this: Enter does it, Esc (or ← then Enter) does not
        self.query_one("#yes").focus()

    @on(Button.Pressed, "#yes")
    def action_confirm(self) -> None:
        """Go ahead."""
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without doing it."""
        self.dismiss(False)
