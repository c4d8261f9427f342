"""Undo and retry on the play screen: the last round discarded from its autosave (memory included), or
played again under another seed; both confirmed first."""

from __future__ import annotations

import logging
from typing import Any

from textual import work
from textual.widgets import Input

from tui.messages import AgentDeciding, RoundFailed, RoundUndone, SaveFailed, SaveWritten
from tui.widgets.transcript import Transcript

log = logging.getLogger("tui.play")


class Rewinding:
    """The play screen's undo (ctrl+z) and retry (ctrl+r): mixed into PlayScreen, which holds the game."""

    game: Any
    busy: bool
    runtime: Any

    def action_undo(self) -> None:
        """Undo the last round (after a yes: the round is discarded)."""
        self._confirm_discard("undo")

    def action_retry(self) -> None:
        """Undo the last round and play it again under another seed (after a yes)."""
        self._confirm_discard("retry")

    def _confirm_discard(self, what: str) -> None:
        from tui.screens.dialogs import Confirm

        if self.game is None or self.busy:
            self.notify("Undo or retry when the round has resolved." if self.busy else "The game is still loading.")
            return
        last = self.game.session.round - 1
        if not self.game.session.can_rewind():  # a round played, and its autosave from before it kept
            self.notify("Nothing to undo yet: no round has been played." if last < self.game.session.sim.state.start_round
                        else f"Round {last} cannot be undone: the save from before it is not kept.")
            return
        title = f"Undo round {last}?" if what == "undo" else f"Play round {last} again?"
        note = (f"What happened in round {last} is discarded, memory included; the game goes back to how it was "
                "before it." if what == "undo" else
                f"What happened in round {last} is discarded and the round is played again: you do the same, "
                "the others decide afresh (another seed).")

        def answered(yes: bool | None) -> None:
            if yes:
                self._begin_busy(f"{'Undoing' if what == 'undo' else 'Replaying'} round {last}…")
                self.rewind_round(what)

        self.app.push_screen(Confirm(title, note, yes="Undo" if what == "undo" else "Retry"), answered)

    def _begin_busy(self, text: str) -> None:
        self.busy = True
        self._cancel.clear()
        self._round_started = self.runtime.timer()
        self.set_class(True, "-thinking")
        self._progress(text)

    @work(thread=True, exclusive=True, group="round", exit_on_error=False)
    def rewind_round(self, what: str) -> None:
        """Undo the last round (what="undo"), or undo and replay it (what="retry")."""
        from storyworld.errors import Cancelled, UserError
        from tui.screens.play import one_line

        game = self.game
        assert game is not None
        world = game.world

        def progress(agent: str, index: int, total: int) -> None:
            self.post_message(AgentDeciding(agent, world.agents[agent].name, index, total))

        started = self.runtime.timer()
        round_before = game.session.round
        try:
            if what == "undo":
                game.rewind()
                # the screen shows again what it showed before the round; only a game resumed since needs a view
                self.post_message(RoundUndone(None if self._shown_before else game.now()))
                return
            moment = game.retry(progress, self._cancel.is_set)
        except Cancelled:  # undone, and the replay stopped before it resolved: the game is as it was before
            self.post_message(RoundUndone(None if self._shown_before else game.now(),
                                          note="Round undone; its replay was cancelled. Your move."))
            return
        except Exception as exc:  # noqa: BLE001 — one line on screen, traceback in the log
            if not isinstance(exc, UserError):
                log.exception("undo failed")
            said = one_line(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {one_line(exc)}"
            if game.session.round < round_before:  # the undo happened and the replay failed: say so, show it undone
                self.post_message(RoundUndone(None if self._shown_before else game.now(),
                                              note=f"Round undone; its replay failed: {said}. Your move."))
            else:
                self.post_message(RoundFailed(said))
            return
        self.post_message(RoundUndone(moment, replayed=True, seconds=self.runtime.timer() - started))
        try:
            folder = game.autosave()
        except (OSError, ValueError) as exc:
            self.post_message(SaveFailed(one_line(exc)))
        else:
            self.post_message(SaveWritten(folder, "autosave"))

    def on_round_undone(self, message: RoundUndone) -> None:
        """Show the round undone (the screen as before it), or replayed (its new entries)."""
        self._round_over()
        transcript = self.query_one(Transcript)
        transcript.undo_round()
        before = self._shown_before.pop() if self._shown_before else message.moment
        moment = message.moment
        if not message.replayed:
            assert before is not None
            moment = before
            self._show(moment)
            self._progress(message.note or f"Round {moment.round} undone; the world is as it was before it. Your move.")
        else:
            assert moment is not None
            if before is not None:
                self._shown_before.append(before)
            transcript.begin_round()
            transcript.add_entries(moment.entries, round_label=f"— round {moment.round - 1} (again) —")
            if moment.hint:
                transcript.add_note(f"Hint: {moment.hint}", "hint")
            self._show(moment)
            self._progress(f"Round {moment.round - 1} played again in {message.seconds:.1f} s. Your move.")
            self.rounds_shown += 1
            self.call_after_refresh(self.round_shown.set)
        self.query_one("#action", Input).focus()
