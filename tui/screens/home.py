"""The home screen: worlds and saved games; new game, continue, author, inspect, quit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Label, Static

from tui.catalog import SaveRow, WorldEntry
from tui.game import LoadGame, NewGame
from tui.messages import CatalogListed, GameLoaded, GameLoadFailed
from tui.screens.new_game import NewGameScreen

if TYPE_CHECKING:
    from tui.runtime import Runtime

BANNER = "storyworld — live inside a story with other minds"


class HomeScreen(Screen):
    """Pick a world to start or a save to continue."""

    BINDINGS = [
        Binding("n", "new_game", "New game", tooltip="Choose a world, a character and a start point"),
        Binding("c", "continue_game", "Continue", tooltip="Play on from the highlighted (or newest) save"),
        Binding("a", "author", "Author", tooltip="Turn a play or a chronicle into a world"),
        Binding("i", "inspect", "Inspect", tooltip="Open the memory inspector on the highlighted save"),
        Binding("j", "join_game", "Join a game", tooltip="Play a seat of a game someone hosts (address and code)"),
        Binding("h", "host_world", "Host this world", tooltip="Serve the highlighted world to several people"),
        Binding("q", "app.quit", "Quit", tooltip="Leave storyworld", show=False),  # Ctrl+Q shows in the footer
    ]

    def __init__(self, runtime: Runtime, new_game_world: Any = None) -> None:
        super().__init__()
        self.runtime = runtime
        self.new_game_world = new_game_world
        """A world to open the new-game dialog on at once (`storyworld play WORLD` without --as)."""
        self.worlds: list[WorldEntry] = []
        self.saves: list[SaveRow] = []

    def compose(self) -> ComposeResult:
        yield Static(BANNER, id="banner")
        with Vertical(id="home-main"):
            yield Label("Worlds", classes="section")
            yield DataTable(id="worlds", cursor_type="row")
            yield Label("Saved games", classes="section")
            yield DataTable(id="saves", cursor_type="row")
        with Horizontal(id="home-buttons"):
            yield Button("New game", id="new", variant="primary")
            yield Button("Continue", id="continue")
            yield Button("Author", id="author")
            yield Button("Inspect", id="inspect")
            yield Button("Join a game", id="join")
            yield Button("Host this world", id="host")
            yield Button("Quit", id="quit", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        worlds = self.query_one("#worlds", DataTable)
        worlds.add_columns("world", "from", "cast", "starts", "start points")
        worlds.add_row("reading worlds…", "", "", "", "")
        saves = self.query_one("#saves", DataTable)
        saves.add_columns("save", "world", "character", "round", "saved")
        self.refresh_catalog()
        if self.new_game_world is not None:
            from tui.catalog import summarise

            world = self.new_game_world
            self.new_game_world = None
            entry = summarise(world, world.path or Path(f"{world.id}.toml"), "given")
            self.app.push_screen(NewGameScreen([entry], entry.id), self._started)

    def _started(self, request: NewGame | None) -> None:
        if request is not None:
            self.start(request)

    def on_screen_resume(self) -> None:
        # coming back from a game: its saves changed
        if self.worlds:
            self.refresh_catalog()

    @work(thread=True, exclusive=True, group="catalog", exit_on_error=False)
    def refresh_catalog(self) -> None:
        """Read worlds and saves off the UI thread (parsing worlds takes a moment)."""
        from tui.catalog import list_game_saves, list_worlds

        self.post_message(CatalogListed(list_worlds(self.runtime.world_folders),
                                        list_game_saves(self.runtime.saves())))

    @on(CatalogListed)
    def _catalog_listed(self, message: CatalogListed) -> None:
        self.worlds = list(message.worlds)
        self.saves = list(message.saves)
        worlds = self.query_one("#worlds", DataTable)
        worlds.clear()
        for entry in self.worlds:
            worlds.add_row(*entry.cells())
        if not self.worlds:
            worlds.add_row("no worlds found", "", "", "", "")
        saves = self.query_one("#saves", DataTable)
        saves.clear()
        for row in self.saves:
            saves.add_row(*row.cells())
        if not self.saves:
            saves.add_row("no saved games yet — press n for a new one", "", "", "", "")

    # --- actions -------------------------------------------------------------------------------
    def _highlighted_world(self) -> WorldEntry | None:
        index = self.query_one("#worlds", DataTable).cursor_row
        return self.worlds[index] if 0 <= index < len(self.worlds) else None

    def _highlighted_save(self) -> SaveRow | None:
        index = self.query_one("#saves", DataTable).cursor_row
        return self.saves[index] if 0 <= index < len(self.saves) else None

    @on(Button.Pressed, "#new")
    def action_new_game(self, world: Any = None) -> None:
        """World → character → start point, then play."""
        playable = [w for w in self.worlds if w.world is not None]
        if not playable:
            self.notify("No playable world yet (still reading, or none installed).")
            return
        chosen = self._highlighted_world()
        self.app.push_screen(NewGameScreen(playable, chosen.id if chosen else None), self._started)

    def start(self, request: NewGame | LoadGame) -> None:
        """Open the play screen on a request."""
        from tui.screens.play import PlayScreen

        self.app.push_screen(PlayScreen(request, self.runtime))

    @on(DataTable.RowSelected, "#saves")
    @on(Button.Pressed, "#continue")
    def action_continue_game(self) -> None:
        """Play on from the highlighted save; a damaged one shows why and offers its newest good autosave."""
        row = self._highlighted_save() or (self.saves[0] if self.saves else None)
        if row is None:
            self.notify("No saved games yet.")
            return
        if row.problem:
            self._damaged(row)
            return
        if row.hosted:  # several people's game: it goes on as a host, with its seats and codes
            from tui.screens.host import HostScreen

            self.app.push_screen(HostScreen(self.runtime, save=row.folder))
            return
        self.start(LoadGame(row.folder))

    def _damaged(self, row: SaveRow) -> None:
        from saves import latest_good_autosave

        from tui.screens.dialogs import DamagedSave

        fallback = latest_good_autosave(row.folder)

        def chosen(use: bool | None) -> None:
            if use and fallback is not None:
                self.start(LoadGame(fallback))

        self.app.push_screen(DamagedSave(f"{row.folder.name}: {row.problem}", fallback), chosen)

    @on(DataTable.RowSelected, "#worlds")
    def _world_selected(self) -> None:
        self.action_new_game()

    @on(Button.Pressed, "#author")
    def action_author(self) -> None:
        """Pick a source text and author a world from it."""
        from tui.screens.author import AuthorSourceScreen

        self.app.push_screen(AuthorSourceScreen(self.runtime))

    @on(Button.Pressed, "#inspect")
    def action_inspect(self) -> None:
        """Open the inspector on the highlighted save (no model needed)."""
        row = self._highlighted_save()
        if row is None:
            self.notify("Highlight a saved game to inspect its memory.")
            return
        if row.problem:
            self._damaged(row)
            return
        self.notify(f"Reading {row.folder.name}…", markup=False)
        self.open_for_inspection(row)

    @work(thread=True, exclusive=True, group="inspect", exit_on_error=False)
    def open_for_inspection(self, row: SaveRow) -> None:
        """Read a save's memory without loading any model."""
        from storyworld.errors import UserError

        from tui.game import Game

        try:
            game = Game.load(row.folder, self.runtime, with_mind=False)
        except (UserError, ValueError, OSError) as exc:
            self.post_message(GameLoadFailed(str(exc).splitlines()[0]))
            return
        self.post_message(GameLoaded(game, None))  # type: ignore[arg-type]

    @on(GameLoaded)
    def _inspectable(self, message: GameLoaded) -> None:
        from tui.screens.inspector import InspectorScreen

        game = message.game
        self.app.push_screen(InspectorScreen(game.session, title=f"Memory of {game.slot.name}"))

    @on(GameLoadFailed)
    def _not_inspectable(self, message: GameLoadFailed) -> None:
        self.notify(message.reason, severity="error", timeout=8, markup=False)

    @on(Button.Pressed, "#join")
    def action_join_game(self) -> None:
        """The join form: the host's address and a seat's code."""
        from tui.screens.join import JoinForm

        self.app.push_screen(JoinForm())

    @on(Button.Pressed, "#host")
    def action_host_world(self) -> None:
        """Host the highlighted world for several people (or a highlighted hosted save, with its seats)."""
        from tui.screens.host import HostScreen

        row = self._highlighted_save() if self.query_one("#saves", DataTable).has_focus else None
        if row is not None and row.hosted and not row.problem:
            self.app.push_screen(HostScreen(self.runtime, save=row.folder))
            return
        chosen = self._highlighted_world()
        if chosen is None or chosen.world is None:
            self.notify("Highlight a world to host.")
            return
        self.app.push_screen(HostScreen(self.runtime, world=chosen.world))

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.app.exit(0)
