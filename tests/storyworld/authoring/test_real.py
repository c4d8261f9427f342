"""Authored worlds played by the real bundled model: a Fountain round trip, and the Chinese chapters."""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.authoring.fountain import author_fountain
from storyworld.authoring.pipeline import author_source
from storyworld.minds import LLMMind
from storyworld.report.screenplay import render_fountain, staged_events
from storyworld.kernel.state import Settings
from storyworld.world import world_from_file
from tests.support.paths import DATA

FERRY = DATA / "screenplays" / "night_ferry.fountain"

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder]


@pytest.fixture(scope="module")
def real_lm():
    from storyworld.llm import load_model

    return load_model(seed=0)


def test_fountain_round_trip_with_the_real_model(real_lm):
    world = world_from_file(author_fountain(FERRY.read_text(encoding="utf-8"), world_id="ferry"))
    sim = session.new_simulation(world, None, Settings(seed=4, awake="all"), LLMMind(real_lm))
    for _ in range(2):
        sim.step()
    staged = staged_events(world, sim.state.events)
    again = author_fountain(render_fountain(world, sim.state.events), world_id="ferry-again")
    speakers = {world.agents[b.actor].name for b in staged if b.kind == "say"}
    assert {a.name for a in again.agent} == speakers
    assert {p.name.casefold() for p in again.place} == {world.places[b.place].name.casefold() for b in staged}
    assert sum(1 for e in again.event if e.kind == "say") == sum(1 for b in staged if b.kind == "say")


@pytest.mark.slow
def test_the_chinese_chapters_play_a_round(real_lm, shared_dir):
    draft = author_source(shared_dir / "texts" / "sanguo_yanyi_zh_ch01-10.txt", kind="prose", max_chunks=0)
    world = world_from_file(draft.world)
    assert world.warnings == []
    sim = session.new_simulation(world, None, Settings(seed=1, awake="near", player="liu-bei"), LLMMind(real_lm))
    before = sim.state.round
    outcome = sim.step()
    assert sim.state.round == before + 1 and outcome.events
    assert sim.store.stats()["leaks"] == 0
    # the first round's choices are the policy's (measured: 3 decisions, no model call); play on until the
    # model has decided, so what passes is the model's output on this world, not the policy's alone
    decisions, fallbacks, tokens = sim.last_timing.decisions, sim.last_timing.fallbacks, 0
    for _ in range(4):
        if tokens:
            break
        sim.step()
        decisions += sim.last_timing.decisions
        fallbacks += sim.last_timing.fallbacks
        tokens += sim.last_timing.completion_tokens
    assert tokens > 0, "the model never decided"
    assert fallbacks <= decisions // 3, (fallbacks, decisions)  # measured: 6 decisions in 2 rounds, 0 fallbacks
