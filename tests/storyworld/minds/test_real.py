"""The living-characters bar on a bundled world with the real model: valid acts, sense, answers, the canon moving."""

from __future__ import annotations

import pytest

from storyworld.report import eventlog, playquality, truth

from storyworld.game import session
from storyworld.kernel.actions import Wait
from storyworld.locations import find_world
from storyworld.minds import LLMMind, lines
from storyworld.minds.render import world_names
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
    spent = {"decisions": 0, "fallbacks": 0, "completion_tokens": 0}  # over every round, as the run had them

    def step(action):
        sim.step(player_action=action)
        for key in spent:
            spent[key] += getattr(sim.last_timing, key)

    for _ in range(3):  # a newcomer just waits
        step(Wait(actor="horatio"))
        waited.append(sim.state.positions["horatio"])
    player = ScriptedPlayer(world, "horatio", ["@marcellus What is this thing you have seen?", "/wait",
                                               "@barnardo Tell me plainly what you saw last night.", "/wait"])
    for _ in range(4):
        step(player.next_action(sim.state))
    return world, sim, waited, player, spent


def test_waiting_horatio_is_brought_to_the_battlements_and_spoken_to(hamlet_run):
    world, sim, waited, _, _ = hamlet_run
    assert "battlements" in waited  # Marcellus takes him up to the watch
    early = [e for e in sim.state.events if e.round <= 2 and e.kind == "say" and e.actor in ("marcellus", "barnardo")]
    assert any(e.to == "horatio" for e in early)  # spoken to, not merely overheard


def test_every_agent_action_is_valid_and_no_garbage_reaches_the_screen(hamlet_run):
    world, sim, _, player, spent = hamlet_run
    assert sim.state.invalid == 0 and player.problems == []
    # the model decided (it generated tokens) and its decisions were actions: measured 21 decisions, 0 fallbacks;
    # play.md's bar is a fallback rate of at most 5%
    assert spent["completion_tokens"] > 0 and spent["decisions"] > 0
    assert spent["fallbacks"] <= 0.05 * spent["decisions"], spent
    names = world_names(world)
    speech = [e for e in sim.state.events if e.kind == "say" and e.actor != "horatio"]
    assert speech
    for event in speech:  # the model's phrasings and the plain renderings alike
        assert not lines.degenerate(event.claim, names=names), event.claim
        assert len(lines.words(event.claim)) >= lines.MIN_WORDS
    # and some lines are the model's own words (measured: 4 of 15), not only the renderer's
    assert any(not event.rendered for event in speech)


def _answers(hamlet_run):
    world, sim, _, _, spent = hamlet_run
    events = eventlog.entries(sim.state.events)
    asked = [e for e in events if e["actor"] == "horatio" and e["kind"] == "say" and e["to"]]
    assert len(asked) == 2
    pairs = []
    for question in asked:
        # what the one asked said back to Horatio, that round or the next
        answers = [e for e in events if e["kind"] == "say" and e["actor"] == question["to"] and e["to"] == "horatio"
                   and question["round"] <= e["round"] <= question["round"] + 1 and not e["fallback"]]
        assert answers, f"{question['to']} did not answer Horatio"
        pairs.append((question["speech"], answers[0]["speech"]))
    return world, sim, events, spent, pairs


def test_the_people_horatio_speaks_to_answer_him(hamlet_run):
    world, sim, events, spent, _ = _answers(hamlet_run)
    figures = playquality.score(events, player="horatio", names=world_names(world), decisions=spent["decisions"],
                                fallbacks=spent["fallbacks"], invalid=sim.state.invalid)
    assert figures["reply_rate"] >= 0.75 and figures["degenerate_speech_rate"] <= 0.10  # measured 0.92, 0.0
    assert figures["pingpong_rate"] <= 0.15 and figures["fallback_rate"] <= 0.05


def test_the_answers_are_informative(hamlet_run):
    """Each question gets a holding about it, or, from one who holds nothing more of it than the asker, an
    honest "I have told you all I know" / "you know as much of it as I do" (truth.score's informative answers)."""
    world, sim, _, _, _ = _answers(hamlet_run)
    figures = truth.score(world, sim.state.events, sim.store, player="horatio", start_round=sim.state.start_round,
                          cosine=playquality.embedding_similarity(sim.store.embedder))
    assert figures["questions_answered"] >= 2  # Horatio's two, and whatever the others asked each other
    assert figures["informative_answer_rate"] >= 0.75, [e.claim for e in sim.state.events if e.kind == "say"]
