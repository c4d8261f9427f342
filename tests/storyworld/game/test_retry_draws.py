"""A retry draws the round again (issue 33): draw 0 is the round as first played, exactly; a later draw takes
the next of the near-tied choices (minds.draws), so a retry differs where another line fits as well, and the
same (seed, draw) always draws the same."""

from __future__ import annotations

import pytest

from tests.support.doubles import HashEmbedder
from storyworld.game.session import Session
from storyworld.game.simulation import redraw
from storyworld.kernel.actions import Say
from storyworld.kernel.state import Settings
from storyworld.llm import Completion, LanguageModel
from storyworld.locations import find_world
from storyworld.minds.content import Known
from storyworld.minds.draws import rotate, runs, tied
from storyworld.minds.mind import LLMMind
from storyworld.world import load_world


class Steady(LanguageModel):
    """A model that ignores its seed: always the first option, never a phrasing (the floor is spoken).

    Under it a new seed alone changes nothing a policy or a floor decides: what a retry varies is the draw's.
    """

    name = "steady"

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        if schema and "pick" in schema.get("properties", {}):
            return Completion(text='{"pick": 1}')
        return Completion(text='{"line": ""}')


def _known(record_id: int, score: float) -> Known:
    return Known(record_id=record_id, text=f"r{record_id}", kind="event", via="witnessed", score=score)


@pytest.mark.parametrize(("scores", "draw", "order"), [
    ((0.9, 0.88, 0.5), 0, (1, 2, 3)),  # draw 0: as it was
    ((0.9, 0.88, 0.5), 1, (2, 1, 3)),  # the near-tied pair swaps; the far one stays
    ((0.9, 0.88, 0.5), 2, (1, 2, 3)),  # a pair drawn twice comes round again
    ((0.6, 0.59, 0.58), 1, (2, 3, 1)),
    ((0.3, 0.27, 0.26), 1, (1, 3, 2)),  # never across TELL_MIN (0.28): what is said stays said
    ((0.5,), 3, (1,)),
])
def test_a_draw_rotates_only_runs_of_near_tied_holdings(scores, draw, order):
    items = tuple(_known(i + 1, s) for i, s in enumerate(scores))
    assert tuple(k.record_id for k in tied(items, draw)) == order


def test_rotate_and_runs():
    assert rotate(("a", "b", "c"), 1) == ("b", "c", "a") and rotate(("a", "b"), 0) == ("a", "b")
    assert runs([1.0, 0.97, 0.9], float) == [[1.0, 0.97], [0.9]]


def _lines(outcome):
    return [(e.actor, e.kind, e.text) for e in outcome.events if e.kind in ("say", "act", "narration")]


def test_a_retried_hamlet_round_differs_and_each_draw_replays_exactly(tmp_path):
    world = load_world(find_world("hamlet"))
    session = Session.new(world, None, Settings(seed=2, awake="near", player="horatio"), LLMMind(Steady()),
                          embedder=HashEmbedder(), slot=tmp_path / "slot")
    session.autosave()
    for text in ("Marcellus, what news?", None, "What did you see?"):  # to the battlements, the watch met
        session.play_round(Say(actor="horatio", text=text, to="marcellus") if text else None)
        session.autosave()
    seed = session.sim.settings.seed
    first = session.play_round(None)  # on the platform the Ghost and Marcellus each have more than one thing to say
    session.autosave()
    assert first.draw == 0 and session.sim.state.draw == 0
    session.rewind()  # what a retry was before draws: a new seed alone, and every line the same again
    redraw(session.sim, 1)
    assert _lines(session.play_round(None)) == _lines(first)
    session.autosave()
    retried = session.retry()
    session.autosave()
    assert retried.draw == 1 == session.sim.state.draw and session.sim.settings.seed != seed
    assert _lines(retried) != _lines(first)  # another drawing: at least one line differs

    session.rewind()  # the same drawing again draws the same
    redraw(session.sim, 1)
    assert _lines(session.play_round(None, draw=1)) == _lines(retried)
    session.autosave()
    session.rewind()  # and draw 0, under the round's own seed, is the round as first played
    assert session.sim.settings.seed == seed
    assert _lines(session.play_round(None)) == _lines(first)
