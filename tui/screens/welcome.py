"""The first-launch welcome: how to speak, move and act, and how to read the side panel, in the world's own names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from rich.markdown import Markdown
from textual.widgets import Button, Static

from storyworld.locations import home

if TYPE_CHECKING:
    from collections.abc import Callable

    from storyworld.game.playerinput import Surroundings
    from storyworld.world import World

MARKER = "welcomed"


def welcome_text(world: World, player: str, scene: Surroundings | None) -> str:
    """The welcome, its examples built from who is with the player, where they can go and what is at hand."""
    me = world.name_of(player)
    present = scene.present if scene is not None else ()
    exits = scene.exits if scene is not None else ()
    objects = scene.objects if scene is not None else ()
    if present:
        who = present[0]
        speak = (f"`@name` at the start speaks to someone: `@{who} What news?` speaks to {world.name_of(who)} "
                 f"(type `@{who[:3]}` and Tab completes the name).")
    else:
        speak = "`@name` at the start speaks to someone who is with you (Tab completes the name)."
    move = f"`/move {exits[0]}` walks to {world.name_of(exits[0])}" if exits else "`/move place` walks on"
    if objects:
        readable = [o for o in objects if world.objects[o].carries]
        thing = (readable or objects)[0]
        act = f"`/act {thing} read`" if readable else f"`/act {thing} take`"
    elif present:
        act = f"`/act {present[0]} greet`"
    else:
        act = "`/act target verb`"
    teller = world.name_of(present[0]) if present else "someone"
    return f"""\
## Welcome to storyworld

You are **{me}** in *{world.file.world.title}*. Everyone else is played by a model and remembers what they saw and heard.

- **Speak**: type a line and press Enter. {speak}
- **Move**: {move} (Tab completes places, names and objects).
- **Act**: {act}. `/wait` lets a round pass.
- **Who knows** (side panel): what {me} knows and how: *you saw it*, *told by {teller}*, *read in a letter*,
  and who else knows it. **F3** switches the side panel's tabs (Who knows, Cast, Map, Goals).
- **Goals**: what the story has in store for you next. The line under the status bar says what is happening now.
- **F2** opens the memory inspector; **F1** lists every command; **Ctrl+Z** undoes the last round.

Start typing to begin, or press Enter."""


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


class WelcomeScreen(ModalScreen[str]):
    """A short welcome shown once per STORYWORLD_HOME; typing closes it and the keys go on to the action bar.

    Every printable key pressed while it shows goes on to `forward` at once (the first also closes it), so a
    key that lands while it is closing, even after its close callback ran, is never lost nor reordered.
    """

    BINDINGS = [Binding("escape", "close", "Close"), Binding("enter", "close", "Close", show=False)]

    def __init__(self, text: str, forward: Callable[[str], None]) -> None:
        super().__init__()
        self.text = text
        self.forward = forward
        self._dismissing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome"):
            # one renderable, not a tree of widgets: the welcome can close at the first key, even mid-mount
            yield Static(Markdown(self.text), id="welcome-text")
            yield Button("Begin", id="begin", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#begin", Button).focus()

    def on_button_pressed(self) -> None:
        self.action_close()

    def on_key(self, event: events.Key) -> None:
        """A printable key is the start of the player's first line: hand it on, and close."""
        starts = event.key not in ("enter", "space") or self._dismissing
        if event.is_printable and event.character and starts:
            event.stop()
            event.prevent_default()
            self.forward(event.character)
            self.action_close()

    def action_close(self) -> None:
        """Dismiss the welcome (once)."""
        if not self._dismissing:
            self._dismissing = True
            self.dismiss("")
