"""The memory inspector: every record, filters, a detail pane with provenance, the ownership heatmap, relations."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Select, Static, TabbedContent, TabPane

from textual.widgets.data_table import RowDoesNotExist
from textual.worker import Worker, WorkerState, get_current_worker

from tui.messages import AnswerGiven, MemoryLoaded
from tui.cells import fit
from tui.views import MemoryView, RecordDetail, RecordRow, record_detail
from tui.widgets.heatmap import HeatmapView
from tui.widgets.relations import RelationsView
from tui.widgets.records import MARK_STYLE, Blocks, badges

if TYPE_CHECKING:
    from storyworld.game.session import Session

MAX_TEXT = 90


def detail_text(detail: RecordDetail, player: str = "") -> Blocks:
    """The detail pane: statement, owners one by one, merges, neighbours, based-on chain."""
    card = detail.card
    head = Text()
    head.append(f"#{card.id} {card.kind} · round {card.round}", style="bold")
    if card.place_name:
        head.append(f" · {card.place_name}", style="dim")
    if detail.event_id:
        head.append(f" · event {detail.event_id}", style="dim")
    head.append("\n" + card.text)
    text = Text()
    text.append(f"\nOwners ({len(card.owners)})\n", style="bold")
    for owner in card.owners:
        text.append(f"  {owner.name}: ", style="bold")
        text.append(owner.how, style="italic")
        text.append(f" · confidence {owner.confidence:.2f}", style="dim")
        if owner.marks:
            text.append(f" [{', '.join(owner.marks)}]", style=MARK_STYLE)
        text.append("\n")
    text.append(f"\nMerge log ({len(detail.merges)})\n", style="bold")
    if not detail.merges:
        text.append("  no merges: one deposit made this record\n", style="dim")
    for who, round_, rule, discarded, kept in detail.merges:
        text.append(f"  r{round_} {who} joined by {rule}", style="italic")
        if discarded and discarded != kept:
            text.append("; discarded: ", style="dim")
            text.append(discarded, style="strike")
        text.append("\n")
    text.append(f"\nAffiliated ({len(detail.neighbours)})\n", style="bold")
    if not detail.neighbours:
        text.append("  none\n", style="dim")
    for other, other_text in detail.neighbours:
        text.append(f"  #{other} ", style="dim")
        text.append(other_text + "\n")
    text.append(f"\nBased on ({len(detail.based_on)})\n", style="bold")
    if not detail.based_on:
        text.append("  nothing: a first-hand record\n", style="dim")
    for depth, other, other_text in detail.based_on:
        text.append("  " + "  " * (depth - 1) + f"└ #{other} ", style="dim")
        text.append(other_text + "\n")
    return Blocks(head, badges(card.owners, player), text)


def answer_text(world, answer) -> Text:
    """The Ask box's answer: who was asked what, the words, then each record it rests on with its provenance."""
    text = Text()
    text.append(f"{world.name_of(answer.agent)}, asked: ", style="bold")
    text.append(answer.question + "\n", style="italic")
    text.append(f"[{answer.act}] ", style="dim")
    text.append(answer.text + "\n")
    text.append(f"\nRests on ({len(answer.records)})\n", style="bold")
    if not answer.records:
        text.append("  nothing it holds: it says so rather than guess\n", style="dim")
    for known, line in zip(answer.records, answer.provenance):
        text.append(f"  #{known.record_id} ", style="dim")
        text.append(line, style="italic")
        text.append(f": {known.text}\n")
    return text


class InspectorScreen(Screen):
    """All records with filters; the highlighted record's provenance; the shared-ownership heatmap."""

    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("u", "unmerge", "Unmerge",
                tooltip="Split one owner's merged statement off the highlighted record (asks which owner, then confirms)"),
        Binding("o", "sort_owners", "Sort owners", tooltip="Sort by owner count (most shared first); again for id order"),
        Binding("slash", "focus_filter", "Filter", tooltip="Type to filter the records by text"),
        Binding("a", "ask", "Ask", show=False,
                tooltip="Ask a character (the highlighted record's owner, or the one picked) a question"),
        Binding("h", "show_tab('tab-heatmap')", "Heatmap", tooltip="Agents × agents: records both hold"),
        Binding("r", "show_tab('tab-records')", "Records", tooltip="The records table"),
        Binding("l", "show_tab('tab-relations')", "Relations",
                tooltip="Pairs of agents ranked by how much they interacted, with what they remember in common"),
    ]

    def __init__(self, game: Session, *, record_id: int | None = None, title: str = "") -> None:
        super().__init__()
        # the game's memory, read and unmerged under the game's own lock (a round holds it while it writes)
        self.world = game.world
        self.store = game.store
        self.events = game.events  # the run's events, read under `lock`, for Relations
        self.lock = game.lock
        self.now = lambda: game.round  # the round a question is asked in
        self.record_id = record_id
        self.player = game.player  # whose badges stand out
        self.title_text = title or f"Memory of {self.world.file.world.title}"
        self.view: MemoryView | None = None
        self.sort_by_owners = False

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="inspector-title", markup=False)
        with TabbedContent(id="inspector-tabs"):
            with TabPane("Records", id="tab-records"):
                with Horizontal(id="filters"):
                    yield Input(placeholder="filter by text (/)", id="filter-text", compact=True)
                    yield Select([], prompt="any owner", id="filter-owner", compact=True)
                    yield Select([], prompt="any kind", id="filter-kind", compact=True)
                yield DataTable(id="records", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="detail-pane"):
                    yield Static("Reading the memory…", id="detail", markup=False)
                with Horizontal(id="ask"):
                    yield Select([], prompt="ask whom", id="ask-agent", compact=True)
                    yield Input(placeholder="ask them a question, Enter (a)", id="ask-question", compact=True)
            with TabPane("Heatmap", id="tab-heatmap"):
                with ScrollableContainer(id="heatmap-pane"):
                    yield HeatmapView("Reading the memory…", id="heatmap")
            with TabPane("Relations", id="tab-relations"):
                with ScrollableContainer(id="relations-pane"):
                    yield RelationsView("Reading the memory…", id="relations")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#records", DataTable)
        table.add_column("id", key="id", width=6)
        table.add_column("kind", key="kind", width=11)
        table.add_column("r", key="round", width=5)
        table.add_column("own", key="owners", width=4)
        table.add_column("text", key="text")
        self.read_memory()

    @work(thread=True, exclusive=True, group="inspector", exit_on_error=False)
    def read_memory(self) -> None:
        """Build rows and heatmap from the store (under the game's lock, off the UI thread)."""
        from tui.views import memory_view

        with self.lock:
            view = memory_view(self.world, self.store, list(self.events))
        self.post_message(MemoryLoaded(view))

    @on(MemoryLoaded)
    def _memory_loaded(self, message: MemoryLoaded) -> None:
        view = self.view = message.view
        stats = view.stats
        shared = sum(1 for r in view.rows if len(r.owners) >= 2)
        most = max((len(r.owners) for r in view.rows), default=0)
        summary = f"{self.title_text} — {len(view.rows)} records · {shared} shared · max {most} owners"
        if "leaks" in stats:
            summary += f" · leaks {stats['leaks']}"
        self.query_one("#inspector-title", Static).update(summary)
        self.query_one("#filter-owner", Select).set_options([(name, ident) for ident, name in view.agents])
        self.query_one("#filter-kind", Select).set_options([(k, k) for k in view.kinds])
        asked = self.query_one("#ask-agent", Select)
        chosen = asked.value
        asked.set_options([(name, ident) for ident, name in view.agents])
        if chosen is not Select.NULL:  # a refresh (after an unmerge) keeps whom the box asks
            asked.value = chosen
        self.query_one(HeatmapView).show(view.heatmap)
        self.query_one(RelationsView).show(view.relations)
        self._fill()
        if self.record_id is not None:
            table = self.query_one("#records", DataTable)
            with contextlib.suppress(RowDoesNotExist):  # filtered out: the detail still shows
                table.move_cursor(row=table.get_row_index(str(self.record_id)))
            self._show_detail(self.record_id)
        self.query_one("#records", DataTable).focus()

    def visible_rows(self) -> list[RecordRow]:
        """The rows that pass the filters, in the chosen order."""
        if self.view is None:
            return []
        needle = self.query_one("#filter-text", Input).value.strip().lower()
        owner = self.query_one("#filter-owner", Select).value
        kind = self.query_one("#filter-kind", Select).value
        rows = [
            r for r in self.view.rows
            if (not needle or needle in r.text.lower())
            and (owner is Select.NULL or owner in r.owners)
            and (kind is Select.NULL or r.kind == kind)
        ]
        if self.sort_by_owners:
            rows.sort(key=lambda r: (-len(r.owners), r.id))
        return rows

    def _fill(self) -> None:
        table = self.query_one("#records", DataTable)
        table.clear()
        for row in self.visible_rows():
            text = fit(row.text, MAX_TEXT)
            flag = Text(" ⚑", style=MARK_STYLE) if {"disputed", "retracted", "contaminated"} & set(row.flags) else ""
            table.add_row(str(row.id), row.kind, str(row.round), str(len(row.owners)), Text(text) + flag,
                          key=str(row.id))

    @on(Input.Changed, "#filter-text")
    @on(Select.Changed, "#filter-owner")
    @on(Select.Changed, "#filter-kind")
    def _filters_changed(self) -> None:
        self._fill()

    @on(DataTable.RowHighlighted, "#records")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value is not None:
            self._show_detail(int(event.row_key.value))

    def _show_detail(self, record_id: int) -> None:
        pane = self.query_one("#detail", Static)
        if not self.lock.acquire(timeout=0.05):
            pane.update("The memory is being written by a round; the detail shows when it resolves.")
            return
        try:
            detail = record_detail(self.world, self.store, record_id)
        except KeyError:
            pane.update(f"Record #{record_id} is not in this memory.")
            return
        finally:
            self.lock.release()
        pane.update(detail_text(detail, self.player))

    def action_sort_owners(self) -> None:
        """Toggle ordering by owner count."""
        self.sort_by_owners = not self.sort_by_owners
        self._fill()

    def action_focus_filter(self) -> None:
        """Focus the text filter."""
        self.query_one(TabbedContent).active = "tab-records"
        self.query_one("#filter-text", Input).focus()

    def action_show_tab(self, tab: str) -> None:
        """Switch between records and heatmap (focus follows, or the tabs would switch back to the focus)."""
        self.query_one(TabbedContent).active = tab
        panes = {"tab-heatmap": "#heatmap-pane", "tab-relations": "#relations-pane"}
        self.query_one(panes.get(tab, "#records")).focus()

    def highlighted_record(self) -> int | None:
        """The record under the table's cursor, if any."""
        table = self.query_one("#records", DataTable)
        if not table.row_count:
            return None
        with contextlib.suppress(RowDoesNotExist):
            return int(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        return None

    def action_unmerge(self) -> None:
        """Undo one owner's latest merge into the highlighted record: pick the owner, confirm, split, refresh."""
        from tui.screens.dialogs import Confirm, PickOne

        record_id = self.highlighted_record()
        if record_id is None:
            return
        if not self.store.merges:
            self.notify("This memory backend does not merge, so there is nothing to undo.", severity="warning")
            return
        names = {a.id: a.name for a in self.world.file.agent}
        with self.lock:
            record = self.store.get(record_id)
            owners = list(dict.fromkeys(e.owner for e in reversed(record.merge_log)))
            text = record.text
        if not owners:
            self.notify(f"Record #{record_id} was never merged: one deposit made it.", severity="information")
            return

        def chosen(owner: str | None) -> None:
            if owner is None:
                return
            who = names.get(owner, owner)
            note = (f"{who}'s latest statement merged into #{record_id} (\"{fit(text, 60)}\") becomes its own record "
                    f"again, with its event id and the confidence it had before the merge.")
            self.app.push_screen(Confirm(f"Unmerge {who} from #{record_id}?", note, yes="Unmerge"),
                                 lambda yes: self._unmerge(record_id, owner) if yes else None)

        self.app.push_screen(PickOne(f"Unmerge which owner from #{record_id}?",
                                     [(names.get(o, o), o) for o in owners],
                                     note="Owners whose statement was merged into this record, latest first."), chosen)

    def _unmerge(self, record_id: int, owner: str) -> None:
        """Call the store's unmerge and show the result."""
        with self.lock:
            try:
                new_id = self.store.unmerge(record_id, owner)
            except ValueError as exc:
                self.notify(str(exc), severity="error")
                return
        who = next((a.name for a in self.world.file.agent if a.id == owner), owner)
        if new_id is None:
            self.notify(f"{who}'s merge into #{record_id} undone; {who} keeps the holding it had before.")
        else:
            self.notify(f"{who} split off #{record_id} into #{new_id}.")
        self.record_id = record_id
        self.read_memory()

    # ------------------------------------------------------------------ the Ask box

    def action_ask(self) -> None:
        """Into the Ask box: whom to ask is the owner filtered on, else the highlighted record's first owner."""
        self.query_one(TabbedContent).active = "tab-records"
        asked = self.query_one("#ask-agent", Select)
        if asked.value is Select.NULL:
            owner = self.query_one("#filter-owner", Select).value
            if owner is Select.NULL:
                record_id = self.highlighted_record()
                row = next((r for r in self.visible_rows() if r.id == record_id), None)
                owner = next(iter(row.owners), Select.NULL) if row is not None else Select.NULL
            if owner is not Select.NULL:
                asked.value = owner
        self.query_one("#ask-question", Input).focus()

    @on(Input.Submitted, "#ask-question")
    def _question_asked(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        agent = self.query_one("#ask-agent", Select).value
        pane = self.query_one("#detail", Static)
        if agent is Select.NULL:
            pane.update("Pick whom to ask first (the select beside the question).")
            return
        if not question:
            return
        pane.update(f"Asking {self.world.name_of(agent)}…")
        self.interview(agent, question)

    @work(thread=True, exclusive=True, group="ask", exit_on_error=False)
    def interview(self, agent: str, question: str) -> None:
        """Ask the character out of its own memory (under the game's lock, off the UI thread), candidly: the
        inspector is an author's look into memory, not a scene."""
        from storyworld.kernel import ids
        from storyworld.minds.interview import interview

        with self.lock:
            answer = interview(self.world, self.store, agent, question, round_=self.now(), candid=True,
                               mechanical=ids.mechanical_keys(self.events))
        if not get_current_worker().is_cancelled:  # a newer question was asked meanwhile
            self.post_message(AnswerGiven(answer))

    @on(AnswerGiven)
    def _answer_given(self, message: AnswerGiven) -> None:
        self.query_one("#detail", Static).update(answer_text(self.world, message.answer))
        self.query_one("#detail-pane").scroll_home(animate=False)

    @on(Worker.StateChanged)
    def _ask_failed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "ask" and event.state == WorkerState.ERROR:
            self.query_one("#detail", Static).update(f"The question could not be answered: {event.worker.error}")

    def action_back(self) -> None:
        """Leave the Ask box when in it; else close the inspector."""
        if self.focused is not None and self.focused.id in ("ask-question", "ask-agent"):
            self.query_one("#records", DataTable).focus()
            return
        self.app.pop_screen()
