"""The round controller the play screen drives: load a game, submit a line, retry, undo. No widgets.

Its blocking methods (`load`, `play`, `rewind`, `save_*`) run in the screen's thread workers and report
by posting the past-tense messages of tui.messages; the rest runs on the UI thread and only keeps
the bookkeeping (what is pending, what an undo shows again). A test drives it with `post=list.append`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from saves.slots import AUTOSAVE_KEEP
from tui.game import Game, LoadGame, NewGame
from tui.messages import (
    AgentDeciding,
    DecisionsProgressed,
    GameLoaded,
    GameLoadFailed,
    LoadProgressed,
    ModelFailed,
    ModelRetrying,
    RoundCancelled,
    RoundFailed,
    RoundResolved,
    RoundUndone,
    SaveFailed,
    SaveWritten,
)

if TYPE_CHECKING:
    from textual.message import Message

    from storyworld.kernel.actions import Action
    from tui.runtime import Runtime
    from tui.views import Moment

log = logging.getLogger("tui.play")

Post = Callable[["Message"], object]


def one_line(exc: BaseException) -> str:
    """An exception as one line for the screen (the traceback goes to the log)."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def drawn(draw: int) -> str:
    """Which drawing of a round a replay is, as the transcript says it: the first play is draw 1, so the
    first retry (RoundOutcome.draw 1) is "again, draw 2"."""
    return f"again, draw {draw + 1}"


@dataclass(frozen=True)
class Question:
    """What a confirmation dialog asks before a round is discarded: its title, note and the yes button."""

    title: str
    note: str
    yes: str


class RoundController:
    """One game on the play screen: its rounds, their undo and retry, and what is pending meanwhile."""

    def __init__(self, runtime: Runtime, post: Post) -> None:
        self.runtime = runtime
        self.post = post
        self.game: Game | None = None
        self.moment: Moment | None = None
        """The view on screen (None until a game is loaded)."""
        self.busy = False
        """True from submitting an action until its round resolved, failed or was cancelled."""
        self.pending = ""
        """The line whose round is running (given back to the action bar if the round does not happen)."""
        self.pending_action: Action | None = None
        self.cancel = threading.Event()
        self.started = 0.0
        self.shown_before: list[Moment] = []
        """The views shown before each of the last rounds (an undo shows them again, exactly)."""
        self.last: tuple[Action, str] | None = None
        """The last action the player played and its line (what `again` does once more)."""

    # --- the UI thread's bookkeeping -------------------------------------------------------------
    def refusal(self) -> str | None:
        """Why a line cannot be played now (None: it can)."""
        if self.game is None or self.moment is None or self.moment.scene is None:
            return "The model is still loading; your line stays in the bar until the game is ready."
        if self.busy:
            return "A round is already in progress (Esc cancels it)."
        return None

    def begin(self, action: Action | None, text: str) -> None:
        """A round (or an undo) is under way for `action`, typed as `text`."""
        self.pending, self.pending_action = text, action
        if text and action is not None:
            self.last = (action, text)
        self.busy = True
        self.cancel.clear()
        self.started = self.runtime.timer()

    def end(self) -> None:
        """The round is over, however it ended."""
        self.busy = False

    def give_back(self) -> str:
        """The line of a round that did not happen (for the action bar); nothing is pending then."""
        text, self.pending = self.pending, ""
        return text

    def shown(self, moment: Moment) -> None:
        """A resolved round's view is on screen; the one before it is kept for an undo."""
        if self.moment is not None:
            self.shown_before.append(self.moment)
            del self.shown_before[:-AUTOSAVE_KEEP]
        self.pending = ""
        self.moment = moment

    def after_undo(self, message: RoundUndone) -> Moment:
        """The view to show after an undo (the one shown before the round) or a replay (the new one)."""
        before = self.shown_before.pop() if self.shown_before else message.moment
        if not message.replayed:
            assert before is not None
            self.moment = before
            return before
        assert message.moment is not None
        if before is not None:
            self.shown_before.append(before)
        self.moment = message.moment
        return message.moment

    def rewind_question(self, what: str) -> Question | str:
        """The confirmation an undo or retry asks, or one line saying why it cannot be done now."""
        if self.game is None or self.busy:
            return "Undo or retry when the round has resolved." if self.busy else "The game is still loading."
        session = self.game.session
        last = session.round - 1
        if not session.can_rewind():  # a round played, and its autosave from before it kept
            return ("Nothing to undo yet: no round has been played." if last < session.sim.state.start_round
                    else f"Round {last} cannot be undone: the save from before it is not kept.")
        if what == "undo":
            return Question(f"Undo round {last}?", f"What happened in round {last} is discarded, memory included; "
                            "the game goes back to how it was before it.", "Undo")
        return Question(f"Play round {last} again?", f"What happened in round {last} is discarded and the round is "
                        "played again: you do the same, the others decide afresh under a new seed.", "Retry")

    # --- blocking work (thread workers) ----------------------------------------------------------
    def load(self, request: NewGame | LoadGame) -> None:
        """Load model, embedder and memory (or a save); posts GameLoaded or GameLoadFailed, then autosaves."""
        from storyworld.errors import UserError
        from storyworld.llm import on_retry
        from storyworld.llm.base import model_of

        def report(stage: str, done: int, total: int) -> None:
            self.post(LoadProgressed(stage, done, total))

        try:
            if isinstance(request, NewGame):
                game = Game.new(request.world, request.player, request.start_id, self.runtime, report)
            else:
                game = Game.load(request.folder, self.runtime, report)
            try:
                game.session.claim()  # one writer per save: another process playing it refuses this one
            except UserError as exc:
                self.post(GameLoadFailed(one_line(exc)))  # no autosave to offer: it is the same save
                return
            on_retry(model_of(game.session.sim.mind), lambda note: self.post(ModelRetrying(note)))
            moment = game.opening()
        except UserError as exc:
            self.post(GameLoadFailed(one_line(exc).split("; newest good autosave")[0], _fallback(request)))
            return
        except Exception as exc:  # noqa: BLE001 — shown as one line, traceback logged; the app must not die
            log.exception("loading failed")
            self.post(GameLoadFailed(f"{type(exc).__name__}: {one_line(exc)}"))
            return
        self.post(GameLoaded(game, moment))
        self._autosave(game, quiet=True)

    def play(self, action: Action | None) -> None:
        """Play the round of `action`; posts RoundResolved, RoundCancelled, ModelFailed or RoundFailed."""
        from storyworld.errors import Cancelled
        from storyworld.game.simulation import ModelFailed as ModelDown
        from storyworld.game.simulation import RoundRefused

        game = self.game
        assert game is not None
        started = self.runtime.timer()
        round_ = game.session.round
        try:
            moment = game.play_round(action, self._progress(game), self.cancel.is_set,
                                     watch=lambda shown: self.post(DecisionsProgressed(shown)))
        except Cancelled as exc:
            self.post(RoundCancelled(one_line(exc)))
            return
        except ModelDown as exc:  # after the model's retries: nothing of the round was applied
            self.post(ModelFailed(one_line(exc)))
            return
        except RoundRefused as exc:  # refused whole: the world and memory are as they were
            self.post(RoundFailed(one_line(exc)))
            return
        except Exception as exc:  # noqa: BLE001 — one line on screen, traceback in the log
            log.exception("round failed")
            self.post(RoundFailed(f"{type(exc).__name__}: {one_line(exc)}", unchanged=False))
            return
        self.post(RoundResolved(moment, self.runtime.timer() - started, game.fell_back(round_)))
        self._autosave(game)

    def rewind(self, what: str) -> None:
        """Undo the last round (what="undo"), or undo and replay it under a new seed (what="retry")."""
        from storyworld.errors import Cancelled, UserError

        game = self.game
        assert game is not None
        started = self.runtime.timer()
        round_before = game.session.round
        now = lambda: None if self.shown_before else game.now()  # noqa: E731 — only a resumed game needs a view
        try:
            if what == "undo":
                game.rewind()
                self.post(RoundUndone(now()))
                return
            moment = game.retry(self._progress(game), self.cancel.is_set)
        except Cancelled:  # undone, and the replay stopped before it resolved: the game is as it was before
            self.post(RoundUndone(now(), note="Round undone; its replay was cancelled. Your move."))
            return
        except Exception as exc:  # noqa: BLE001 — one line on screen, traceback in the log
            if not isinstance(exc, UserError):
                log.exception("undo failed")
            said = one_line(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {one_line(exc)}"
            if game.session.round < round_before:  # the undo happened and the replay failed: say so, show it undone
                self.post(RoundUndone(now(), note=f"Round undone; its replay failed: {said}. Your move."))
            else:
                self.post(RoundFailed(said))
            return
        self.post(RoundUndone(moment, replayed=True, seconds=self.runtime.timer() - started,
                              seed=game.session.sim.settings.seed, draw=game.session.sim.state.draw))
        self._autosave(game)

    def save(self, what: str, name: str = "") -> bool:
        """Save ("saved"), save as a new slot ("save as") or branch ("branch"); posts SaveWritten or SaveFailed."""
        assert self.game is not None
        try:
            if what == "save as":
                folder, said = self.game.save_as(name), "saved"
            elif what == "branch":
                folder, said = self.game.branch(name), "branched"
            else:
                folder, said = self.game.save(), "saved"
        except (OSError, ValueError) as exc:  # SaveError is a ValueError
            self.post(SaveFailed(one_line(exc)))
            return False
        self.post(SaveWritten(folder, said))
        return True

    def recall(self, query: str) -> tuple[tuple, int]:
        """The player's own recall, the cards and how many more passed the cut-off (embedding: off the UI thread)."""
        assert self.game is not None
        return self.game.recall(query)

    def _progress(self, game: Game) -> Callable[[str, int, int], None]:
        world = game.world

        def progress(agent: str, index: int, total: int) -> None:
            self.post(AgentDeciding(agent, world.agents[agent].name, index, total))

        return progress

    def _autosave(self, game: Game, *, quiet: bool = False) -> None:
        try:
            folder = game.autosave()
        except (OSError, ValueError) as exc:  # SaveError is a ValueError
            self.post(SaveFailed(one_line(exc)))
        else:
            if not quiet:
                self.post(SaveWritten(folder, "autosave"))

    def close(self) -> None:
        """Stop a running round before its next agent and let the save go."""
        self.cancel.set()
        if self.game is not None:
            self.game.close()

    def restart(self) -> None:
        """Drop the current game (another is loading in its place)."""
        if self.game is not None:
            self.game.close()
        self.game = None
        self.moment = None
        self.shown_before.clear()


def _fallback(request: NewGame | LoadGame):
    """The newest good autosave of a save that would not load (None for a new game)."""
    if not isinstance(request, LoadGame):
        return None
    from saves import latest_good_autosave

    return latest_good_autosave(request.folder)
