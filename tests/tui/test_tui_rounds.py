"""The round controller without a screen: load, submit, retry and undo, each reported by the message it posts."""

from __future__ import annotations

from storyworld.kernel.actions import Say
from tui.game import NewGame
from tui.messages import GameLoaded, RoundResolved, RoundUndone, SaveWritten
from tui.rounds import Question, RoundController


def loaded(runtime, world) -> tuple[RoundController, list]:
    posted: list = []
    rounds = RoundController(runtime, posted.append)
    rounds.load(NewGame(world, "maren"))
    message = next(m for m in posted if isinstance(m, GameLoaded))
    rounds.game, rounds.moment = message.game, message.moment  # what the screen's handler does
    return rounds, posted


def test_submit_retry_and_undo_are_driven_without_a_screen(runtime, tiny_world):
    rounds, posted = loaded(runtime, tiny_world)
    assert rounds.refusal() is None
    assert rounds.rewind_question("undo") == "Nothing to undo yet: no round has been played."
    line = Say(actor="maren", text="What do you carry?", to="tobin")
    rounds.begin(line, "@tobin What do you carry?")
    assert rounds.refusal() == "A round is already in progress (Esc cancels it)."
    rounds.play(line)
    resolved = [m for m in posted if isinstance(m, RoundResolved)]
    assert len(resolved) == 1 and isinstance(posted[-1], SaveWritten)
    rounds.end()
    first = rounds.moment
    rounds.shown(resolved[0].moment)
    assert rounds.shown_before == [first] and rounds.pending == ""

    question = rounds.rewind_question("retry")
    assert isinstance(question, Question) and question.yes == "Retry" and "new seed" in question.note
    seed = rounds.game.session.sim.settings.seed
    rounds.rewind("retry")
    replay = next(m for m in posted if isinstance(m, RoundUndone))
    assert replay.replayed and replay.seed == rounds.game.session.sim.settings.seed != seed
    assert replay.draw == 1  # the round's second drawing (its first play is draw 0)
    assert rounds.after_undo(replay) is replay.moment and rounds.shown_before == [first]

    posted.clear()
    rounds.rewind("undo")
    undone = next(m for m in posted if isinstance(m, RoundUndone))
    assert not undone.replayed and rounds.game.session.round == 0  # back before the round played
    assert rounds.after_undo(undone) is first and rounds.shown_before == []
