"""Characters say what they know, on the bundled model and embedder: answers from memory, honest ignorance, truth figures."""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.game.script import ScriptedPlayer
from storyworld.kernel.state import Settings
from storyworld.locations import find_world
from storyworld.minds import LLMMind
from storyworld.report import playquality, truth
from storyworld.world import load_world

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow]

# What Marcellus and Barnardo hold about the apparition from the canon before the opening (e0013, e0014).
APPARITION = ("figure", "apparition", "ghost", "armour", "two nights", "frightened")


@pytest.fixture(scope="module")
def model():
    from storyworld.llm import load_model

    return load_model(seed=0)


@pytest.fixture(scope="module")
def asked_run(model):
    """Horatio, from the opening, asks Marcellus what he and Barnardo saw, then asks Francisco."""
    world = load_world(find_world("hamlet"))
    sim = session.new_simulation(world, "opening", Settings(seed=1, awake="near", player="horatio"), LLMMind(model))
    player = ScriptedPlayer(world, "horatio", [
        "@marcellus What did you and Barnardo see on the battlements?",
        "/wait",
        "/wait",
        "@francisco Have you seen the figure in armour that walks here at night?",
        "/wait",
    ])
    for _ in range(5):
        sim.step(player_action=player.next_action(sim.state))
    return world, sim, player


def _reply(sim, asker: str, asked: str, round_: int):
    """The first line the one asked said back: in the same round (after hearing it), or the rounds after."""
    asked_at = next(i for i, e in enumerate(sim.state.events) if e.kind == "say" and e.actor == asker
                    and e.to == asked and e.round == round_)
    return next((e for e in sim.state.events[asked_at + 1:] if e.kind == "say" and e.actor == asked and e.to == asker
                 and round_ <= e.round <= round_ + 2), None)


def test_marcellus_tells_horatio_what_he_holds_about_the_apparition(asked_run):
    world, sim, player = asked_run
    assert player.problems == []
    reply = _reply(sim, "horatio", "marcellus", 0)
    assert reply is not None, "Marcellus did not answer"
    assert reply.act == "answer" and reply.tells, (reply.act, reply.claim)
    told = [sim.store.get(r) for r in reply.tells]
    # what it carries is his own holding of the canon's apparition, and Horatio now holds that very record
    assert all("marcellus" in r.owners for r in told)
    assert any(any(word in r.text.lower() for word in APPARITION) for r in told), [r.text for r in told]
    assert all(r.owners["horatio"].via in ("told", "witnessed") for r in told)
    assert any(r.owners["horatio"].source == "marcellus" for r in told if r.owners["horatio"].via == "told")


def test_someone_who_holds_nothing_about_it_says_so(asked_run):
    world, sim, _ = asked_run
    if sim.state.positions["francisco"] != sim.state.positions["horatio"]:
        pytest.skip("Francisco had left before Horatio asked him")  # the canon sends him to bed
    question = next(e for e in sim.state.events if e.kind == "say" and e.actor == "horatio" and e.to == "francisco")
    reply = _reply(sim, "horatio", "francisco", question.round)
    assert reply is not None, "Francisco did not answer"
    held = {r.id for r in sim.store.held_by("francisco") if r.owners["francisco"].since_round < reply.round}
    told_apparition = [r for r in reply.tells if any(w in sim.store.get(r).text.lower() for w in APPARITION)]
    # he tells only what he holds; holding nothing of the figure, he does not invent it
    assert set(reply.tells) <= held
    assert reply.act in ("unknown", "refuse", "answer") and (reply.act != "answer" or told_apparition)


def test_the_truth_figures_hold_on_a_bundled_world(model):
    """A scripted player in Three Kingdoms: every line measured against what its speaker held."""
    world = load_world(find_world("three_kingdoms"))
    sim = session.new_simulation(world, None, Settings(seed=0, awake="near", player="liu-bei"), LLMMind(model))
    player = ScriptedPlayer(world, "liu-bei", [
        "@guan-yu Where do you come from, and what brought you to Zhuo?",
        "/wait",
        "@zhang-fei What do you know of the Yellow Turbans?",
        "/wait",
    ])
    for _ in range(4):
        sim.step(player_action=player.next_action(sim.state))
    figures = truth.score(world, sim.state.events, sim.store, player="liu-bei", start_round=sim.state.start_round,
                          cosine=playquality.embedding_similarity(sim.store.embedder))
    assert figures["lines"] >= 4
    assert figures["clean_rate"] >= 0.8, figures["unclean_examples"]
    assert figures["parrot_rate"] <= 0.05 and figures["invented_name_rate"] <= 0.02, figures["unclean_examples"]
    assert figures["future_leaks"] == 0, figures["leak_examples"]
    assert figures["hallucinated_beliefs"] == 0
    assert figures["talk_shared"] >= 1  # talk moved at least one record to someone who lacked it
