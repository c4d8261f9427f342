"""The first-launch welcome: how to speak, move and act, and how to read the side panel."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown

from storyworld.locations import home

MARKER = "welcomed"
TEXT = """\
## Welcome to storyworld

You play one character; everyone else is played by a model and remembers what they saw and heard.

- **Speak**: type a line and press Enter. `@name` at the start speaks to someone (`@horatio Who's there?`).
- **Move**: `/move place` (Tab completes places, names and objects).
- **Act**: `/act target verb` — `/act letter read`, `/act letter give horatio`. `/wait` lets a round pass.
- **Who knows** (side panel): each record shows its owners as coloured badges; *witnessed*, *told by Horatio*,
  *read in a letter* say how and from whom each owner learned it.
- **Goals**: what the story has in store for you next. A line under the status bar says what is happening nearby.
- **F2** opens the memory inspector; **F1** lists every command.

Press Enter or Esc to begin."""


def welcomed() -> bool:
    """Whether this STORYWORLD_HOME has seen the welcome."""
    return (home() / MARKER).exists()


def mark_welcomed() -> None:
    """Remember that the welcome was shown (best effort: a read-only home just shows it again)."""
    try:
        home().mkdir(parents=True, exist_ok=True)
        (home() / MARKER).write_text("shown\n", encoding="utf-8")
    except OSError:
        pass


class WelcomeScreen(ModalScreen[None]):
    """A short, dismissable welcome shown once per STORYWORLD_HOME."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("enter", "close", "Close", show=False)]

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome"):
            yield Markdown(TEXT)
            yield Button("Begin", id="begin", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#begin", Button).focus()

    def on_button_pressed(self) -> None:
        self.action_close()

    def action_close(self) -> None:
        """Dismiss the welcome."""
        self.dismiss(None)
