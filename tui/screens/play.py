"""The play screen: transcript, action bar, side panel; rounds run in a worker and can be cancelled."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, ProgressBar, Static, TabbedContent, TabPane, TextArea

from tui import slash
from tui.game import Game, LoadGame, NewGame
from tui.messages import (
    AgentDeciding,
    DecisionsProgressed,
    GameLoaded,
    GameLoadFailed,
    LoadProgressed,
    ModelFailed,
    ModelRetrying,
    RecallAnswered,
    RecordChosen,
    RoundCancelled,
    RoundFailed,
    RoundResolved,
    RoundUndone,
    SaveFailed,
    SaveWritten,
)
from tui.rounds import Question, RoundController, drawn, one_line
from tui.views import Moment, TranscriptEntry
from tui.widgets.action_bar import ActionBar
from tui.widgets.panels import CastPanel, GoalsPanel, MapPanel, StatusLine
from tui.widgets.records import RecordItem, WhoKnows
from tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from tui.runtime import Runtime

log = logging.getLogger("tui.play")


class PlayScreen(Screen):
    """Play one character: type an action, the other agents decide, the round resolves."""

    BINDINGS = [
        Binding("escape", "cancel_round", "Cancel", tooltip="Cancel the round in progress; the world stays as it was"),
        Binding("f1", "help", "Help", tooltip="Slash commands and keys"),
        Binding("f2", "inspector", "Memory", tooltip="Open the memory inspector on the record under the cursor"),
        Binding("f3", "next_tab", "Tabs", tooltip="Show the next side-panel tab: Who knows, Cast, Map, Goals"),
        Binding("ctrl+z", "undo", "Undo", tooltip="Undo the last round (memory included), from its autosave"),
        Binding("ctrl+r", "retry", "Retry", tooltip="Undo the last round and play it again under another seed"),
        Binding("f5", "save_as", "Save", tooltip="Save into a new slot and keep playing there"),
        Binding("f6", "load", "Load", tooltip="Load a saved game", show=False),
        Binding("f7", "branch", "Branch", tooltip="Copy this game into a new slot and play on in the copy", show=False),
        Binding("f8", "toggle_panel", "Panel", tooltip="Show or hide the side panel"),
    ]
    TABS = ("tab-who", "tab-cast", "tab-map", "tab-goals")
    LOADING_PLACEHOLDER = "the model is still loading — type your first line; Enter plays it once the game is ready"
    PLACEHOLDER = "say something, or /help  (Tab completes names, places, objects)"

    def __init__(self, request: NewGame | LoadGame, runtime: Runtime) -> None:
        super().__init__()
        self.request = request
        self.runtime = runtime
        self.rounds = RoundController(runtime, self.post_message)
        """The game's rounds, undo and retry: this screen drives it and shows what it posts."""
        self._deciding = ""
        self._roster = False  # the round's progress per character has come: it says who is deciding
        self._ticker: Any = None
        self.rounds_shown = 0
        """Rounds whose result reached the screen (benchmarks and tests wait on it)."""
        self.round_shown = threading.Event()
        """Set each time a resolved round has been drawn."""

    @property
    def game(self) -> Game | None:
        """The game being played (None while it loads)."""
        return self.rounds.game

    @property
    def moment(self) -> Moment | None:
        """The view on screen."""
        return self.rounds.moment

    @property
    def busy(self) -> bool:
        """True while a round (or an undo) is under way."""
        return self.rounds.busy

    def compose(self) -> ComposeResult:
        yield StatusLine("storyworld", id="status", markup=False)
        yield Static("", id="happening", markup=False)
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            with TabbedContent(id="side"):
                with TabPane("Who knows", id="tab-who"):
                    yield WhoKnows(id="who-knows")
                with TabPane("Cast", id="tab-cast"):
                    yield VerticalScroll(CastPanel(id="cast"))
                with TabPane("Map", id="tab-map"):
                    yield VerticalScroll(MapPanel(id="map"))
                with TabPane("Goals", id="tab-goals"):
                    yield VerticalScroll(GoalsPanel(id="goals"))
        with Horizontal(id="progress-row"):
            yield Static("", id="progress", markup=False)
            yield ProgressBar(id="progress-bar", show_eta=False, show_percentage=True)
        yield ActionBar(id="action", placeholder=self.LOADING_PLACEHOLDER, suggester=slash.SlashSuggester())
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#action", Input).focus()  # typing ahead while the model loads is fine
        self._progress("Loading…", loading=True)
        if isinstance(self.request, NewGame):
            self._preview(self.request)
            world = self.request.world
            self.query_one(StatusLine).update(
                f" {world.file.world.title} │ {world.agents[self.request.player].name} │ loading…")
        self.query_one(Transcript).add_note(self._loading_note())
        self.load_game(self.request)

    def _preview(self, request: NewGame) -> None:
        """The opening as the world alone gives it (no model, no memory): the first frame, while the rest loads."""
        from tui.views import preview_moment

        moment = preview_moment(request.world, request.player, request.start_id, model=self.runtime.model_name)
        transcript = self.query_one(Transcript)
        transcript.add_entries(moment.entries)
        self._show(moment)
        self.rounds.moment = None  # nothing to play against until the game is loaded
        # once this screen has been drawn (a screen pushed from inside on_mount would be stuck open)
        self.call_after_refresh(self._welcome_once, request.world, request.player, moment.scene)

    def on_screen_resume(self) -> None:
        """Back from a dialog, the help or the inspector: the keys go to the action bar again."""
        self._refocus()

    def on_unmount(self) -> None:
        # quitting mid-round: stop before the next agent instead of letting the worker thread finish the round
        self.rounds.close()  # the save is free for another process

    def _loading_note(self) -> str:
        if isinstance(self.request, NewGame):
            world = self.request.world
            who = world.agents[self.request.player].name
            return f"{world.file.world.title} — you are {who}. The others are waking up…"
        return f"Opening {self.request.folder.name}…"

    # --- loading -------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_game(self, request: NewGame | LoadGame) -> None:
        """Load model, embedder and memory (or a save) off the UI thread."""
        self.rounds.load(request)

    @on(LoadProgressed)
    def _load_progressed(self, message: LoadProgressed) -> None:
        bar = self.query_one("#progress-bar", ProgressBar)
        bar.update(total=max(message.total, 1), progress=message.done)
        self.query_one("#progress", Static).update(f"{message.stage}…")

    @on(GameLoaded)
    def _game_loaded(self, message: GameLoaded) -> None:
        self.rounds.game = message.game
        self.rounds.moment = message.moment
        transcript = self.query_one(Transcript)
        transcript.reset()
        transcript.add_entries(message.moment.entries)
        self._show(message.moment)
        bar = self.query_one("#action", Input)
        bar.placeholder = self.PLACEHOLDER
        waiting = " Your line is waiting in the bar: Enter plays it." if bar.value.strip() else ""
        self._progress(f"Your move. Round {message.moment.round}. Type a line to speak, or /help.{waiting}")
        if not self.app.screen_stack or self.app.screen is self:
            bar.focus()
        self._welcome_once(message.game.world, message.game.player, message.moment.scene)

    def on_key(self, event: events.Key) -> None:
        """A printable key typed while no field takes text (the player was reading the transcript or a panel, or a
        dialog has just closed) starts a line in the action bar, as in a chat: no keystroke is lost."""
        focused = self.app.focused
        if not event.is_printable or not event.character or isinstance(focused, (Input, TextArea)):
            return
        bar = self.query_one("#action", ActionBar)
        event.stop()
        event.prevent_default()
        bar.focus()
        bar.insert_text_at_cursor(event.character)

    def _welcome_once(self, world: Any, player: str, scene: Any) -> None:
        """The first game in a STORYWORLD_HOME opens with a short welcome; typing closes it and goes on here."""
        from tui.screens.welcome import WelcomeScreen, mark_welcomed, welcome_text, welcomed

        if welcomed():
            return
        mark_welcomed()

        bar = self.query_one("#action", ActionBar)
        # keys typed over the welcome land in the bar as they come: buffering them until it closed lost any that
        # arrived between its close callback and its removal
        welcome = WelcomeScreen(welcome_text(world, player, scene), forward=bar.insert_text_at_cursor)
        self.app.push_screen(welcome, lambda _: bar.focus())

    def restart(self, request: NewGame | LoadGame) -> None:
        """Drop the current game and load another in this screen (it may be the app's only screen)."""
        self.request = request
        self.rounds.restart()
        self.rounds_shown = 0
        transcript = self.query_one(Transcript)
        transcript.reset()
        transcript.add_note(self._loading_note())
        self.query_one("#action", Input).placeholder = self.LOADING_PLACEHOLDER
        self._progress("Loading…", loading=True)
        self.load_game(request)

    @on(GameLoadFailed)
    def _game_load_failed(self, message: GameLoadFailed) -> None:
        from tui.screens.dialogs import DamagedSave

        self._progress(f"Could not start: {message.reason}")
        self.query_one(Transcript).add_note(f"Could not start: {message.reason}", "problem")

        def chosen(use_fallback: bool | None) -> None:
            if use_fallback and message.fallback is not None:
                self.restart(LoadGame(message.fallback))
            else:
                self._leave()

        self.app.push_screen(DamagedSave(message.reason, message.fallback), chosen)

    def _leave(self) -> None:
        """Back to the screen below, or quit when this was the first screen."""
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        else:
            self.app.exit(1)

    # --- showing -------------------------------------------------------------------------------
    def _show(self, moment: Moment) -> None:
        """Update everything but the transcript from a moment."""
        self.rounds.moment = moment
        self.query_one(StatusLine).show(moment, self.game.slot.name if self.game else "")
        self.query_one(WhoKnows).show(moment.who_knows, moment.player)
        self.query_one(CastPanel).show(moment.cast)
        self.query_one(MapPanel).show(moment.map)
        self.query_one(GoalsPanel).show(moment.goals, moment.suggestions)
        happening = self.query_one("#happening", Static)
        happening.update(f"Now: {moment.happening}" if moment.happening else "")
        happening.display = bool(moment.happening)
        suggester = self.query_one("#action", Input).suggester
        if isinstance(suggester, slash.SlashSuggester):
            suggester.scene = moment.scene

    def _progress(self, text: str, *, loading: bool = False, counting: bool = False) -> None:
        """The progress line; the bar beside it while loading, or while it counts a round's decisions."""
        self.query_one("#progress", Static).update(text)
        self.query_one("#progress-bar", ProgressBar).display = loading or counting
        self.set_class(loading, "-loading")

    # --- acting --------------------------------------------------------------------------------
    @on(Input.Submitted, "#action")
    def _submitted(self, event: Input.Submitted) -> None:
        # never waits on the game's lock: a running round holds it; the scene comes with the last moment
        if self.game is None or self.moment is None or self.moment.scene is None:
            self.notify("The model is still loading; your line stays in the bar until the game is ready.")
            return
        text = event.value
        parsed = slash.parse(text, self.moment.scene)
        transcript = self.query_one(Transcript)
        match parsed:
            case slash.Problem(message=problem):
                transcript.add_note(problem, "problem")
                return
            case slash.Help():
                event.input.value = ""
                self.action_help()
                return
            case slash.Inventory():
                event.input.value = ""
                world, held = self.game.world, self.moment.scene.held
                transcript.add_note("You carry " + (", ".join(world.name_of(o) for o in held) or "nothing") + ".")
                return
            case slash.Again():
                event.input.value = ""
                if self.rounds.last is None:
                    transcript.add_note("Nothing to do again yet: play a line first.", "problem")
                    return
                parsed = slash.Play(self.rounds.last[0])
                text = self.rounds.last[1]
        match parsed:
            case slash.Recall(query=query):
                event.input.value = ""
                if self.busy:
                    self.notify("Wait for the round to resolve, or press Esc to cancel it.")
                    event.input.value = text
                    return
                self._progress(f"Recalling “{query}”…")
                self.recall(query)
                return
            case slash.Play(action=action):
                if self.busy:
                    self.notify("A round is already in progress (Esc cancels it).")
                    return
                event.input.value = ""
                self.query_one(ActionBar).remember(text)
                self._start_round(action, text)

    def _start_round(self, action: Any, text: str) -> None:
        """Run the round of `action` (typed as `text`) in the worker, with the screen showing it is under way."""
        self.rounds.begin(action, text)
        self.set_class(True, "-thinking")
        self._progress(f"Round {self.moment.round if self.moment else ''}: the others are deciding… (Esc cancels)")
        self.query_one(Transcript).add_pending(self._pending_entry(action))
        self._deciding = "the others"
        self._roster = False
        self._ticker = self.set_interval(1.0, self._tick)
        self.run_round(action)

    def _pending_entry(self, action: Any) -> TranscriptEntry:
        """The player's submitted action as a transcript entry, shown until the round resolves."""
        from storyworld.kernel.actions import ActOn, Move, Say, describe
        from storyworld.kernel.wording import deed, inline

        assert self.game is not None
        world = self.game.world
        me = world.agents[self.game.player].name
        match action:
            case Say():
                to = world.agents[action.to].name if action.to in world.agents else ""
                return TranscriptEntry(kind="line", speaker=me, text=action.text, to=to, own=True)
            case Move():
                text = f"{me} goes to {inline(world.name_of(action.to))}."
            case ActOn() if action.verb not in ("lead", "lie"):
                text = deed(me, action.verb, world.name_of(action.target), person=action.target in world.agents,
                            tense="present") + "."
            case _:
                text = f"{me} {describe(action)}"
        return TranscriptEntry(kind="direction", text=text, own=True)

    def _tick(self) -> None:
        """Keep the progress line's clock moving while agents think."""
        if self.busy:
            seconds = self.runtime.timer() - self.rounds.started
            note = " — cancelling after this one" if self.rounds.cancel.is_set() else " · Esc cancels"
            self._progress(f"{self._deciding} · {seconds:.0f} s{note}", counting=self._roster)

    def _round_over(self) -> None:
        """Common end of a round, however it ended."""
        self.rounds.end()
        self._roster = False
        self.set_class(False, "-thinking")
        self.query_one(Transcript).clear_pending()
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    @work(thread=True, exclusive=True, group="round", exit_on_error=False)
    def run_round(self, action: Any) -> None:
        """Step the simulation with the player's action (the controller posts what came of it)."""
        self.rounds.play(action)

    @on(AgentDeciding)
    def _agent_deciding(self, message: AgentDeciding) -> None:
        if not self.busy or self._roster:
            return
        self._deciding = f"{message.name} is deciding ({message.index + 1}/{message.total})"
        self._tick()

    @on(DecisionsProgressed)
    def _decisions_progressed(self, message: DecisionsProgressed) -> None:
        """Each character of the round, marked as it starts and lands; the bar counts those decided."""
        if not self.busy or self.game is None:
            return
        shown = message.progress
        agents = self.game.world.agents
        self._roster = True
        # the line holds the roster, the clock and the Esc hint beside the bar
        width = max(24, self.query_one("#progress", Static).size.width - 34)
        roster = shown.line(lambda agent: agents[agent].name, width) or "nobody else"
        self._deciding = f"Round {self.moment.round if self.moment else ''}, deciding: {roster}"
        self.query_one("#progress-bar", ProgressBar).update(total=max(len(shown.deciders), 1),
                                                            progress=len(shown.decided))
        self._tick()

    @on(RoundResolved)
    def _round_resolved(self, message: RoundResolved) -> None:
        self._round_over()
        moment = message.moment
        self.rounds.shown(moment)
        self.query_one(Transcript).begin_round()
        self.query_one(Transcript).add_entries(moment.entries, round_label=f"— round {moment.round - 1} —")
        if moment.hint:
            self.query_one(Transcript).add_hint(moment.hint)
        self._show(moment)
        fell_back = ""
        if message.fell_back:  # said, not hidden: whose turn the model's reply could not make
            fell_back = (f" {', '.join(message.fell_back)} fell back to looking on (the model's reply was unusable).")
            self.query_one(Transcript).add_note(f"Fallback this round: {', '.join(message.fell_back)}", "problem")
        # said once the round's lines are drawn, never before them
        self.call_after_refresh(self._progress, f"Round {moment.round - 1} resolved in {message.seconds:.1f} s."
                                f"{fell_back} Your move.")
        self.query_one("#action", Input).focus()
        self.rounds_shown += 1
        self.call_after_refresh(self.round_shown.set)

    @on(RoundCancelled)
    def _round_cancelled(self, message: RoundCancelled) -> None:
        self._round_over()
        self._give_back_line()  # so the player can change it
        self._progress("Round cancelled; the world is as it was.")

    @on(RoundFailed)
    def _round_failed(self, message: RoundFailed) -> None:
        self._round_over()
        self.query_one(Transcript).add_note(f"The round failed: {message.reason}", "problem")
        if message.unchanged:
            self._give_back_line()
            self._progress("The round failed; the world and memory are as they were before it. Try another action.")
        else:
            self.rounds.give_back()
            self._progress("The round failed partway: the game on screen may be inconsistent; "
                           "the last autosave holds the round before it (F6 loads it).")

    def _give_back_line(self) -> None:
        """Put the line of a round that did not happen back into the action bar."""
        action = self.query_one("#action", Input)
        line = self.rounds.give_back()
        if not action.value:
            action.value = line

    @on(ModelRetrying)
    def _model_retrying(self, message: ModelRetrying) -> None:
        if self.busy:
            self._deciding = f"The model is not answering: {message.note}"
            self._tick()

    @on(ModelFailed)
    def _model_failed(self, message: ModelFailed) -> None:
        from tui.screens.dialogs import ModelDown

        self._round_over()
        self.query_one(Transcript).add_note(f"The model failed: {message.reason}", "problem")
        self._progress("The model failed; the round was not played. r retries, q saves and quits.")
        action, text = self.rounds.pending_action, self.rounds.pending

        def chosen(choice: str | None) -> None:
            if choice == "retry" and action is not None:
                self._start_round(action, text)
            elif choice == "quit":
                self.save_and_quit()
            else:
                self._give_back_line()
                self.query_one("#action", Input).focus()

        self.app.push_screen(ModelDown(message.reason), chosen)

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def save_and_quit(self) -> None:
        """Save the game into its slot, then quit (a failed save is said and the app stays)."""
        if self.rounds.save("saved"):
            self.app.call_from_thread(self.app.exit)

    @on(SaveWritten)
    def _save_written(self, message: SaveWritten) -> None:
        if message.what != "autosave":
            self.notify(f"{message.what}: {message.folder.name}", markup=False)
        if self.moment is not None:
            self.query_one(StatusLine).show(self.moment, self.game.slot.name if self.game else "")

    @on(SaveFailed)
    def _save_failed(self, message: SaveFailed) -> None:
        self.notify(f"Save failed: {message.reason}", severity="error", timeout=8, markup=False)

    # --- recall ----------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="recall", exit_on_error=False)
    def recall(self, query: str) -> None:
        """The player's own /recall (embedding: off the UI thread)."""
        try:
            cards, more = self.rounds.recall(query)
        except Exception as exc:  # noqa: BLE001 — one line on screen
            log.exception("recall failed")
            self.post_message(RoundFailed(f"recall: {one_line(exc)}"))
            return
        self.post_message(RecallAnswered(query, cards, more))

    @on(RecallAnswered)
    def _recall_answered(self, message: RecallAnswered) -> None:
        found = len(message.cards)
        if not found:  # the panel keeps the moment's cards: nothing you hold is about it
            self._progress(f"You recall nothing about “{message.query}”: try other words.")
            return
        self.query_one(WhoKnows).show(message.cards, self.game.player if self.game else "")
        self.query_one(TabbedContent).active = "tab-who"
        self._refocus()
        more = f"; {message.more} more, less close: add words to narrow it" if message.more else ""
        self._progress(f"You recall {found} thing{'s' if found != 1 else ''} about “{message.query}”, closest first "
                       f"(Who knows tab){more}.")

    # --- actions -------------------------------------------------------------------------------
    def action_cancel_round(self) -> None:
        """Ask the running round to stop before it resolves."""
        if self.busy:
            self.rounds.cancel.set()
            self._progress("Cancelling: the round stops after the agent deciding now…")
        else:
            self.query_one("#action", Input).focus()

    def action_help(self) -> None:
        """Show the commands and keys."""
        from tui.screens.dialogs import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_inspector(self, record_id: int | None = None) -> None:
        """Open the memory inspector (on a record, when one is chosen)."""
        from tui.screens.inspector import InspectorScreen

        if self.game is None:
            return
        if self.busy:
            self.notify("The memory is being written; open the inspector when the round has resolved.")
            return
        if record_id is None:
            item = self.query_one(WhoKnows).highlighted_child
            record_id = item.card.id if isinstance(item, RecordItem) else None
        self.app.push_screen(InspectorScreen(self.game.session, record_id=record_id))

    @on(RecordChosen)
    def _record_chosen(self, message: RecordChosen) -> None:
        self.action_inspector(message.record_id)

    def action_next_tab(self) -> None:
        """Show the next tab of the side panel (showing the panel if it was hidden)."""
        side = self.query_one("#side", TabbedContent)
        side.display = True
        at = self.TABS.index(side.active) if side.active in self.TABS else -1
        side.active = self.TABS[(at + 1) % len(self.TABS)]
        self._refocus()

    def action_toggle_panel(self) -> None:
        """Give the transcript the whole width, or bring the panel back."""
        side = self.query_one("#side")
        side.display = not side.display
        self._refocus()

    def _refocus(self) -> None:
        """The keys go back to the action bar (after a panel changed, or a modal closed)."""
        if self.app.screen is self:
            self.call_after_refresh(self.query_one("#action", Input).focus)

    def action_save_as(self) -> None:
        """Ask for a name and save into a new slot."""
        from tui.screens.dialogs import AskName

        if self.game is None or self.busy:
            self.notify("Save when the round has resolved.")
            return

        def named(name: str | None) -> None:
            if name:
                self.save_game("save as", name)

        self.app.push_screen(AskName("Save as", "a name for this save", self.game.slot.name), named)

    def action_branch(self) -> None:
        """Ask for a name and branch into a new slot."""
        from tui.screens.dialogs import AskName

        if self.game is None or self.busy:
            self.notify("Branch when the round has resolved.")
            return

        def named(name: str | None) -> None:
            if name:
                self.save_game("branch", name)

        self.app.push_screen(AskName("Branch", "a name for the new branch", f"{self.game.slot.name}-b"), named)

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def save_game(self, what: str, name: str) -> None:
        """Write a named save or a branch."""
        self.rounds.save(what, name)

    def action_load(self) -> None:
        """Pick a save and load it in place of this game."""
        from tui.screens.dialogs import PickSave

        if self.busy:
            self.notify("Load when the round has resolved (or press Esc to cancel it).")
            return

        def picked(folder: Any) -> None:
            if folder is not None:
                self.restart(LoadGame(folder))

        self.app.push_screen(PickSave(self.runtime.saves()), picked)

    # --- undo and retry ------------------------------------------------------------------------
    def action_undo(self) -> None:
        """Undo the last round (after a yes: the round is discarded)."""
        self._confirm_discard("undo")

    def action_retry(self) -> None:
        """Undo the last round and play it again under a new seed (after a yes)."""
        self._confirm_discard("retry")

    def _confirm_discard(self, what: str) -> None:
        from tui.screens.dialogs import Confirm

        question = self.rounds.rewind_question(what)
        if not isinstance(question, Question):
            self.notify(question)
            return
        last = self.game.session.round - 1 if self.game else 0

        def answered(yes: bool | None) -> None:
            if yes:
                self.rounds.begin(self.rounds.pending_action, "")
                self.set_class(True, "-thinking")
                self._progress(f"{'Undoing' if what == 'undo' else 'Replaying'} round {last}…")
                self.rewind_round(what)

        self.app.push_screen(Confirm(question.title, question.note, yes=question.yes), answered)

    @work(thread=True, exclusive=True, group="round", exit_on_error=False)
    def rewind_round(self, what: str) -> None:
        """Undo the last round (what="undo"), or undo and replay it (what="retry")."""
        self.rounds.rewind(what)

    @on(RoundUndone)
    def _round_undone(self, message: RoundUndone) -> None:
        """Show the round undone (the screen as before it), or replayed (its new entries)."""
        self._round_over()
        transcript = self.query_one(Transcript)
        transcript.undo_round()
        moment = self.rounds.after_undo(message)
        self._show(moment)
        if not message.replayed:
            self._progress(message.note or f"Round {moment.round} undone; the world is as it was before it. Your move.")
        else:
            transcript.begin_round()
            label = f"— round {moment.round - 1} ({drawn(message.draw)}, new seed {message.seed}) —"
            transcript.add_entries(moment.entries, round_label=label)
            if moment.hint:
                transcript.add_hint(moment.hint)
            self._progress(f"Round {moment.round - 1} played {drawn(message.draw)} (new seed {message.seed}) "
                           f"in {message.seconds:.1f} s. Your move.")
            self.rounds_shown += 1
            self.call_after_refresh(self.round_shown.set)
        self.query_one("#action", Input).focus()
