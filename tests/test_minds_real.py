"""The living-characters bar on a bundled world with the real model: valid acts, sense, answers, the canon moving."""

from __future__ import annotations

import pytest

from storyworld.report import eventlog, playquality

from storyworld.game import session
from storyworld.kernel.actions import Wait
from storyworld.locations import find_world
from storyworld.minds import LLMMind, lines
from storyworld.minds.words import world_names
from storyworld.game.script import ScriptedPlayer
from storyworld.kernel.state import Settings
from storyworld.world import load_world

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow]


@pytest.fixture(scope="module")
def hamlet_run():
    from storyworld.llm import load_model

    world = load_world(find_world("hamlet"))
    sim = session.new_simulation(world, "opening", Settings(seed=3, awake="near", player="horatio"),
                                 LLMMind(load_model(seed=0)))
    waited = []
    for _ in range(3):  # a newcomer just waits
        sim.step(player_action=Wait(actor="horatio"))
        waited.append(sim.state.positions["horatio"])
    player = ScriptedPlayer(world, "horatio", ["@marcellus What is this thing you have seen?", "/wait",
                                               "@barnardo Tell me plainly what you saw last night.", "/wait"])
    for _ in range(4):
        sim.step(player_action=player.next_action(sim.state))
    return world, sim, waited, player


def test_waiting_horatio_is_brought_to_the_battlements_and_spoken_to(hamlet_run):
    world, sim, waited, _ = hamlet_run
    assert "battlements" in waited  # Marcellus takes him up to the watch
    early = [e for e in sim.state.events if e.round <= 2 and e.kind == "say" and e.actor in ("marcellus", "barnardo")]
    assert any(e.to == "horatio" for e in early)  # spoken to, not merely overheard


def test_every_agent_action_is_valid_and_no_garbage_reaches_the_screen(hamlet_run):
    world, sim, _, player = hamlet_run
    assert sim.state.invalid == 0 and player.problems == []
    names = world_names(world)
    speech = [e for e in sim.state.events if e.kind == "say" and e.actor != "horatio"]
    assert speech
    for event in speech:  # model lines and fallback lines alike
        assert not lines.degenerate(event.claim, names=names), event.claim
        assert len(lines.words(event.claim)) >= lines.MIN_WORDS


def test_the_people_horatio_speaks_to_answer_him_on_the_subject(hamlet_run):
    world, sim, _, _ = hamlet_run
    events = eventlog.entries(sim.state.events)
    figures = playquality.score(events, player="horatio", names=world_names(world), decisions=1, fallbacks=0,
                                invalid=sim.state.invalid,
                                similarity=playquality.embedding_similarity(sim.store.embedder))
    asked = [e for e in events if e["actor"] == "horatio" and e["kind"] == "say" and e["to"]]
    assert len(asked) == 2
    for question in asked:
        answers = [e for e in events if e["kind"] == "say" and e["actor"] == question["to"]
                   and question["round"] <= e["round"] <= question["round"] + 1]
        assert answers, f"{question['to']} did not answer"
    assert figures["reply_rate"] >= 0.75 and figures["degenerate_speech_rate"] <= 0.10
    assert figures["pingpong_rate"] <= 0.15
