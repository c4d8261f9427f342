"""Both bundled worlds check strictly and play one round with the real model and embedder.

Nothing here reads ../shared or needs tmux, so a fresh CI machine runs it (`make test`).
"""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.locations import find_world
from storyworld.minds import LLMMind
from storyworld.kernel.state import Settings
from storyworld.world import check_world

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder]

# The bundled 135M model's decisions in this one round, measured: hamlet 3 of 3 valid, three_kingdoms 3 of 3
# (and 582 of 660 over 20 all-awake hamlet rounds, before speech came from memory). At most one of three
# may fall back; a broken prompt or parser makes every one a fallback.
VALID_ACTION_FLOOR = 0.66


@pytest.fixture(scope="module")
def real_lm():
    from storyworld.llm import load_model

    return load_model(seed=0)


@pytest.mark.parametrize("world_id", ["hamlet", "three_kingdoms"])
def test_bundled_world_checks_strictly_and_plays_one_round(world_id, real_lm):
    report = check_world(find_world(world_id))
    assert report.errors == [] and report.warnings == [], (report.errors, report.warnings)
    world = report.world
    player = world.file.agent[0].id
    settings = Settings(seed=3, awake="near", player=player, model=real_lm.name)
    earliest = min(world.file.start, key=lambda start: start.round)  # the least canon to sediment: fastest
    sim = session.new_simulation(world, earliest.id, settings, LLMMind(real_lm))
    sediment = len(sim.store.records())
    assert sediment > 0, "the canon before the start left nothing in memory"
    outcome = sim.step()
    assert outcome.round == sim.state.round - 1 and outcome.events
    timing = sim.last_timing
    assert timing.decisions >= 1, "nobody near the player decided"
    assert timing.completion_tokens > 0, "the model generated nothing: no decision was the model's"
    valid = (timing.decisions - timing.fallbacks) / timing.decisions
    assert valid >= VALID_ACTION_FLOOR, f"{timing.fallbacks} of {timing.decisions} decisions fell back"
    assert len(sim.store.records()) > sediment and sim.store.stats()["leaks"] == 0
