"""New game: choose a world, then a character, then a start point."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui.catalog import WorldEntry
from tui.game import NewGame
from tui.widgets.buttons import Buttons


class PickList(OptionList):
    """An option list where a click only highlights (Enter, or the Start button, starts the game)."""

    BINDINGS = [Binding("enter", "select", "Start", tooltip="Start with the highlighted choices")]

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()  # the option list's own click handler would select, and so start the game
        clicked = event.style.meta.get("option")
        if clicked is not None and not self._options[clicked].disabled:
            self.focus()
            self.highlighted = clicked


class NewGameScreen(ModalScreen[NewGame | None]):
    """Three lists side by side, the defaults highlighted: Enter starts; Tab, ← and → move between the lists."""

    BINDINGS = [
        Binding("enter", "start", "Start", tooltip="Start with the highlighted world, character and start point"),
        Binding("ctrl+s", "start", "Start", show=False),
        Binding("tab", "next_list", "Next list", tooltip="Choose in the next list (world, character, start)"),
        Binding("shift+tab", "next_list(-1)", "Previous list", show=False),
        Binding("right", "next_list", "Next list", show=False),
        Binding("left", "next_list(-1)", "Previous list", show=False),
        Binding("escape", "cancel", "Cancel", tooltip="Back without starting"),
    ]
    LISTS = ("#pick-world", "#pick-character", "#pick-start")

    def __init__(self, worlds: list[WorldEntry], world_id: str | None = None, player: str | None = None,
                 start_id: str | None = None) -> None:
        super().__init__()
        self.start_id = start_id
        self._start_shown: str | None = None
        self.worlds = [w for w in worlds if w.world is not None]
        self.world_id = world_id if any(w.id == world_id for w in self.worlds) else (
            self.worlds[0].id if self.worlds else None)
        self.player = player

    def compose(self) -> ComposeResult:
        with Vertical(id="new-game", classes="dialog -wide"):
            yield Label("New game", classes="dialog-title")
            with Horizontal(id="choices"):
                with Vertical(classes="choice"):
                    yield Label("1. World", classes="section")
                    yield PickList(*[Option(w.title, id=w.id) for w in self.worlds], id="pick-world")
                with Vertical(classes="choice"):
                    yield Label("2. Character", classes="section")
                    yield PickList(id="pick-character")
                with Vertical(classes="choice"):
                    yield Label("3. Start point", classes="section")
                    yield PickList(id="pick-start")
            yield Static("", id="choice-note", markup=False)
            with Buttons(classes="dialog-buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Cancel", id="cancel")
        yield Footer()  # this dialog's keys, not the screen's below

    def on_mount(self) -> None:
        worlds = self.query_one("#pick-world", OptionList)
        if self.world_id is not None:
            worlds.highlighted = worlds.get_option_index(self.world_id)
            self._fill_for(self.world_id)
        worlds.focus()

    def entry(self) -> WorldEntry | None:
        """The highlighted world."""
        return next((w for w in self.worlds if w.id == self.world_id), None)

    def _fill_for(self, world_id: str) -> None:
        self.world_id = world_id
        entry = self.entry()
        if entry is None:
            return
        starts = self.query_one("#pick-start", OptionList)
        starts.clear_options()
        starts.add_options([Option(f"{sid} (round {rnd})", id=sid) for sid, rnd, _ in entry.starts])
        default = self.start_id or (entry.world.file.world.default_start if entry.world is not None else "")
        ids = [s for s, _, _ in entry.starts]
        if ids:
            starts.highlighted = ids.index(default) if default in ids else 0
        self._fill_characters()

    def _fill_characters(self) -> None:
        """Characters for the highlighted start, the heart of its story first, each with its story line."""
        from rich.text import Text

        from storyworld.minds.guide import cast_lines

        entry = self.entry()
        if entry is None or entry.world is None:
            return
        characters = self.query_one("#pick-character", OptionList)
        keep = self._chosen("#pick-character") if characters.option_count else self.player
        start = self._chosen("#pick-start")
        self._start_shown = start
        lines = cast_lines(entry.world, start)
        characters.clear_options()
        options = []
        for cast in lines:
            prompt = Text(cast.name, style="bold")
            prompt.append("\n" + cast.line, style="dim")
            options.append(Option(prompt, id=cast.agent))
        characters.add_options(options)
        ids = [c.agent for c in lines]
        if ids:
            # the person's own choice stays; otherwise the character the start's story turns on
            characters.highlighted = ids.index(keep) if keep in ids else 0
        self._describe()

    def _describe(self) -> None:
        entry = self.entry()
        if entry is None:
            return
        world = entry.world
        note = []
        character = self._chosen("#pick-character")
        if character and world is not None and character in world.agents:
            note.append(f"{world.agents[character].name}: {world.agents[character].description}")
        start = self._chosen("#pick-start")
        for sid, _, description in entry.starts:
            if sid == start and description:
                note.append(description)
        self.query_one("#choice-note", Static).update("\n".join(note))

    def _chosen(self, selector: str) -> str | None:
        options = self.query_one(selector, OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    @on(OptionList.OptionHighlighted, "#pick-world")
    def _world_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and event.option.id != self.world_id:
            self._fill_for(event.option.id)

    @on(OptionList.OptionHighlighted, "#pick-character")
    def _character_highlighted(self) -> None:
        self._describe()

    @on(OptionList.OptionHighlighted, "#pick-start")
    def _start_highlighted(self) -> None:
        if self._chosen("#pick-start") != self._start_shown:
            self._fill_characters()  # who matters depends on where the story starts
        else:
            self._describe()

    def action_next_list(self, step: int = 1) -> None:
        """Move the focus to the next (or previous) list, wrapping around."""
        focused = self.focused
        ids = [self.query_one(s, OptionList) for s in self.LISTS]
        at = ids.index(focused) if focused in ids else (-1 if step > 0 else 0)
        ids[(at + step) % len(ids)].focus()

    @on(OptionList.OptionSelected)
    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        """Start with what is highlighted."""
        entry = self.entry()
        character = self._chosen("#pick-character")
        if entry is None or entry.world is None or character is None:
            self.notify("Choose a world and a character first.")
            return
        self.dismiss(NewGame(world=entry.world, player=character, start_id=self._chosen("#pick-start")))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without starting."""
        self.dismiss(None)
