"""Authoring in the TUI: pick a source, draft a world in a worker, review cast, places and events, save TOML.

Every edit goes through storyworld.authoring.review (pure functions on the WorldFile), so what the screen
does is exactly what the headless tools would do; each edit can be undone.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Label, ProgressBar, Select, Static, TabbedContent, TabPane

from tui.cells import fit
from tui.messages import DraftFailed, DraftReady, LoadProgressed, SaveFailed, WorldSaved
from tui.widgets.buttons import Buttons

if TYPE_CHECKING:
    from tui.runtime import Runtime

KINDS = [("detect", "detect"), ("play", "play"), ("prose", "prose"), ("fountain", "fountain")]


def _short(text: str, width: int) -> str:
    """One line of at most `width` terminal cells (CJK characters take two)."""
    return fit(" ".join(text.split()), width)


class AuthorSourceScreen(ModalScreen[None]):
    """Name a source text and its kind, then draft it."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Back to home")]

    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        self.runtime = runtime

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Author a world from a source text", classes="dialog-title")
            yield Input(placeholder="path to a play or a chronicle (UTF-8 text)", id="source")
            yield Select(KINDS, value="detect", allow_blank=False, id="kind")
            yield Static("Plays are parsed without a model; prose is read by the model with a fallback.",
                         classes="dialog-note")
            with Buttons(classes="dialog-buttons"):
                yield Button("Draft", id="draft", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted, "#source")
    @on(Button.Pressed, "#draft")
    def _draft(self) -> None:
        source = Path(self.query_one("#source", Input).value.strip()).expanduser()
        if not source.is_file():
            self.notify(f"{source}: no such file", severity="error", markup=False)
            return
        kind = self.query_one("#kind", Select).value
        self.dismiss(None)
        self.app.push_screen(ReviewScreen(self.runtime, source=source, kind=None if kind == "detect" else str(kind)))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Back without drafting."""
        self.dismiss(None)


class ReviewScreen(Screen):
    """Draft (in a worker) and review a world: cast, places, events and the warnings list."""

    BINDINGS = [
        Binding("e", "edit", "Edit", tooltip="Rename the character or place, or edit the event's text"),
        Binding("m", "merge", "Merge", tooltip="Merge this character (or place) into another one"),
        Binding("d", "delete", "Delete", tooltip="Delete the highlighted character, place or event"),
        Binding("p", "playable", "Playable", tooltip="Mark the highlighted character playable (or not)"),
        Binding("u", "undo", "Undo", tooltip="Undo the last edit"),
        Binding("ctrl+s", "save", "Save TOML", tooltip="Check the world and write it as TOML"),
        Binding("escape", "leave", "Back", tooltip="Cancel drafting, or leave the review"),
    ]

    def __init__(self, runtime: Runtime, *, source: Path | None = None, kind: str | None = None,
                 draft: Any = None, out: Path | None = None) -> None:
        super().__init__()
        self.runtime = runtime
        self.source = source
        self.kind = kind
        self.draft = draft
        self.world: Any = draft.world if draft is not None else None
        """The WorldFile being reviewed (replaced, never mutated, by each edit)."""
        self.history: list[Any] = []
        """Earlier WorldFiles, for undo."""
        self.out = out
        self.saved_to: Path | None = None
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        yield Static("Drafting…", id="review-title", markup=False)
        with Vertical(id="author-progress"):
            yield Static("", id="author-stage", markup=False)
            yield ProgressBar(id="author-bar", show_eta=False)
        with TabbedContent(id="review-tabs"):
            with TabPane("Cast", id="tab-cast"):
                yield DataTable(id="cast-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Places", id="tab-places"):
                yield DataTable(id="place-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Events", id="tab-events"):
                yield DataTable(id="event-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Warnings", id="tab-warnings"):
                with VerticalScroll():
                    yield Static("", id="warnings")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cast-table", DataTable).add_columns("id", "name", "home", "playable", "status", "events",
                                                             "aliases")
        self.query_one("#place-table", DataTable).add_columns("id", "name", "exits", "events", "lives here")
        self.query_one("#event-table", DataTable).add_columns("id", "round", "place", "kind", "actors", "seen by",
                                                              "flags", "text")
        if self.world is not None:
            self._draft_shown()
        elif self.source is not None:
            self.query_one("#review-title", Static).update(f"Drafting {self.source.name}…  (Esc cancels)")
            self.run_pipeline(self.source, self.kind)

    # --- drafting ------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="author", exit_on_error=False)
    def run_pipeline(self, source: Path, kind: str | None) -> None:
        """Draft the world off the UI thread; progress and the draft come back as messages."""
        from storyworld.authoring.pipeline import author_source, detect_file_kind
        from storyworld.llm.base import model_of
        from storyworld.errors import UserError

        def progress(done: int, total: int, message: str) -> None:
            self.post_message(LoadProgressed(message, done, total))

        try:
            kind = kind or detect_file_kind(source)
            lm = None
            if kind == "prose":
                # the game's model when it has one; a scripted runtime gets the deterministic fallback
                lm = model_of(self.runtime.mind())
            draft = author_source(source, kind=kind, lm=lm, use_model=lm is not None, progress=progress,
                                  cancel=self._cancel, seed=self.runtime.seed)
        except UserError as exc:
            self.post_message(DraftFailed(str(exc).splitlines()[0]))
            return
        except Exception as exc:  # noqa: BLE001 — one line on screen; the app stays up
            self.post_message(DraftFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(DraftReady(draft))

    @on(LoadProgressed)
    def _progressed(self, message: LoadProgressed) -> None:
        self.query_one("#author-stage", Static).update(message.stage)
        self.query_one("#author-bar", ProgressBar).update(total=max(message.total, 1), progress=message.done)

    @on(DraftReady)
    def _draft_ready(self, message: DraftReady) -> None:
        self.draft = message.draft
        self.world = message.draft.world
        self._draft_shown()

    @on(DraftFailed)
    def _draft_failed(self, message: DraftFailed) -> None:
        self.query_one("#review-title", Static).update(f"No draft: {message.reason}")
        self.query_one("#author-stage", Static).update("Esc to go back.")
        self.notify(message.reason, severity="error", timeout=10, markup=False)

    def _draft_shown(self) -> None:
        self.query_one("#author-progress").display = False
        self._refresh_tables()
        self.query_one("#cast-table", DataTable).focus()

    # --- showing -------------------------------------------------------------------------------
    def _refresh_tables(self) -> None:
        from storyworld.authoring.review import list_warnings

        world = self.world
        events_by_agent: dict[str, int] = {}
        events_by_place: dict[str, int] = {}
        for event in world.event:
            events_by_place[event.place] = events_by_place.get(event.place, 0) + 1
            for who in {*event.actors, *event.witness_ids()}:
                events_by_agent[who] = events_by_agent.get(who, 0) + 1
        homes: dict[str, list[str]] = {}
        for agent in world.agent:
            homes.setdefault(agent.home, []).append(agent.id)

        def fill(table_id: str, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
            table = self.query_one(table_id, DataTable)
            row = table.cursor_row
            table.clear()
            for key, cells in rows:
                table.add_row(*cells, key=key)
            if rows:
                table.move_cursor(row=min(max(row, 0), len(rows) - 1))

        fill("#cast-table", [
            (a.id, (a.id, a.name, a.home, "yes" if a.playable else "", a.status, events_by_agent.get(a.id, 0),
                    _short(", ".join(a.aliases), 30)))
            for a in world.agent
        ])
        fill("#place-table", [
            (p.id, (p.id, _short(p.name, 36), _short(", ".join(p.exits), 30), events_by_place.get(p.id, 0),
                    _short(", ".join(homes.get(p.id, [])), 30)))
            for p in world.place
        ])
        fill("#event-table", [
            (e.id, (e.id, e.round, e.place, e.kind, _short(", ".join(e.actors), 24), len(e.witness_ids()),
                    Text(_short("; ".join(e.flags), 24), style="bold red") if e.flags else "", _short(e.text, 70)))
            for e in world.event
        ])
        issues = list_warnings(world)
        text = Text()
        for issue in issues:
            style = {"error": "bold red", "flag": "yellow"}.get(issue.severity, "")
            text.append(str(issue) + "\n", style=style)
        if not issues:
            text.append("No warnings: the world passes the check.", style="green")
        self.query_one("#warnings", Static).update(text)
        errors = sum(1 for i in issues if i.severity == "error")
        tabs = self.query_one(TabbedContent)
        tabs.get_tab("tab-warnings").label = f"Warnings ({len(issues)})"
        tabs.get_tab("tab-cast").label = f"Cast ({len(world.agent)})"
        tabs.get_tab("tab-places").label = f"Places ({len(world.place)})"
        tabs.get_tab("tab-events").label = f"Events ({len(world.event)})"
        kind = self.draft.kind if self.draft is not None else ""
        title = f"{world.world.title} [{world.world.id}]" + (f" — drafted from a {kind}" if kind else "")
        if errors:
            title += f" — {errors} error{'s' if errors != 1 else ''} to fix before saving"
        if self.saved_to is not None:
            title += f" — saved to {self.saved_to}"
        self.query_one("#review-title", Static).update(title)

    def _active(self) -> tuple[str, str | None]:
        """The active tab ('cast', 'places', 'events', 'warnings') and the id under its cursor."""
        tab = self.query_one(TabbedContent).active.removeprefix("tab-")
        table_id = {"cast": "#cast-table", "places": "#place-table", "events": "#event-table"}.get(tab)
        if table_id is None:
            return tab, None
        table = self.query_one(table_id, DataTable)
        if table.row_count == 0:
            return tab, None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return tab, key.value

    def _apply(self, change: Any, *args: Any, **kwargs: Any) -> bool:
        """Run one review operation; its ReviewError shows as one line and changes nothing."""
        from storyworld.errors import UserError

        if self.world is None:
            return False
        try:
            world = change(self.world, *args, **kwargs)
        except UserError as exc:
            self.notify(str(exc), severity="error", timeout=8, markup=False)
            return False
        self.history.append(self.world)
        self.world = world
        self.saved_to = None
        self._refresh_tables()
        return True

    # --- editing -------------------------------------------------------------------------------
    def action_edit(self) -> None:
        """Rename a character or place, or edit an event's text."""
        from storyworld.authoring import review

        from tui.screens.dialogs import AskName

        tab, ident = self._active()
        if ident is None:
            return
        if tab == "cast":
            agent = next(a for a in self.world.agent if a.id == ident)
            self.app.push_screen(AskName(f"Rename {agent.name}", "a new name", agent.name),
                                 lambda name: name and self._apply(review.rename_agent, ident, name))
        elif tab == "places":
            place = next(p for p in self.world.place if p.id == ident)
            self.app.push_screen(AskName(f"Rename {place.id}", "a new name", place.name),
                                 lambda name: name and self._apply(review.rename_place, ident, name))
        elif tab == "events":
            event = next(e for e in self.world.event if e.id == ident)
            self.app.push_screen(AskName(f"Edit event {event.id}", "what happens", event.text),
                                 lambda text: text and self._apply(review.edit_event, ident, text=text))

    def action_merge(self) -> None:
        """Merge the highlighted character (or place) into another."""
        from storyworld.authoring import review

        from tui.screens.dialogs import PickOne

        tab, ident = self._active()
        if ident is None or tab not in ("cast", "places"):
            self.notify("Merging works on the Cast and Places tabs.")
            return
        items = self.world.agent if tab == "cast" else self.world.place
        name = next(i.name for i in items if i.id == ident)
        options = [(f"{i.name} ({i.id})", i.id) for i in items if i.id != ident]
        merge = review.merge_agents if tab == "cast" else review.merge_places
        self.app.push_screen(
            PickOne(f"Merge {name} into…", options, f"{name} becomes part of the one you choose; references follow."),
            lambda keep: keep and self._apply(merge, keep, ident),
        )

    def action_delete(self) -> None:
        """Delete the highlighted character, place or event."""
        from storyworld.authoring import review

        from tui.screens.dialogs import PickOne

        tab, ident = self._active()
        if ident is None:
            return
        if tab == "cast":
            self._apply(review.delete_agent, ident)
        elif tab == "events":
            self._apply(review.delete_event, ident)
        elif tab == "places":
            if not [r for r in review.references_to(self.world, ident) if not r.startswith("place ")]:
                self._apply(review.delete_place, ident)
                return
            options = [(f"{p.name} ({p.id})", p.id) for p in self.world.place if p.id != ident]
            self.app.push_screen(
                PickOne(f"Delete {ident}: move what happens there to…", options),
                lambda target: target and self._apply(review.delete_place, ident, move_to=target),
            )

    def action_playable(self) -> None:
        """Toggle whether the highlighted character can be played."""
        from storyworld.authoring import review

        tab, ident = self._active()
        if tab != "cast" or ident is None:
            self.notify("Playable is set on the Cast tab.")
            return
        agent = next(a for a in self.world.agent if a.id == ident)
        self._apply(review.set_playable, ident, not agent.playable)

    def action_undo(self) -> None:
        """Go back one edit."""
        if not self.history:
            self.notify("Nothing to undo.")
            return
        self.world = self.history.pop()
        self._refresh_tables()

    # --- saving --------------------------------------------------------------------------------
    def action_save(self) -> None:
        """Ask where, then check and write the TOML in a worker."""
        from tui.screens.dialogs import AskName

        if self.world is None:
            return
        default = self.out or self.saved_to or self._default_path()
        self.app.push_screen(AskName("Save the world as TOML", "a file path", str(default)),
                             lambda path: path and self.save_world(Path(path).expanduser()))

    def _default_path(self) -> Path:
        from storyworld.locations import user_worlds_dir

        return user_worlds_dir() / f"{self.world.world.id}.toml"

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def save_world(self, path: Path) -> None:
        """Validate and write (save_draft refuses an invalid world and writes nothing)."""
        from storyworld.authoring.review import save_draft
        from storyworld.errors import UserError

        try:
            save_draft(self.world, path)
        except (UserError, OSError, ValueError) as exc:
            self.post_message(SaveFailed(str(exc).splitlines()[0]))
            return
        self.post_message(WorldSaved(path))

    @on(WorldSaved)
    def _world_saved(self, message: WorldSaved) -> None:
        self.saved_to = message.path
        self.notify(f"Saved {message.path}; it passes the check. Play it from home.", markup=False)
        self._refresh_tables()

    @on(SaveFailed)
    def _save_failed(self, message: SaveFailed) -> None:
        self.notify(f"Not saved: {message.reason}", severity="error", timeout=10, markup=False)

    def action_leave(self) -> None:
        """Cancel drafting, or leave the review (to home, or quit when this was the first screen)."""
        if self.world is None and self.source is not None and not self._cancel.is_set():
            self._cancel.set()
            self.query_one("#author-stage", Static).update("Cancelling…")
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        else:
            self.app.exit(0)
