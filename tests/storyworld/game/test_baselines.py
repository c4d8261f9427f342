"""The baselines behind the kernel: same world, same script, saved and resumed through a game save."""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.kernel.actions import Say
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY


def script(round_: int, agent: str, context):
    """Everyone in the harbour talks; the rest look around."""
    if context.perception.present and round_ % 2 == 0:
        return Say(actor=agent, text=f"{agent.capitalize()} has news about the lamp in round {round_}.")
    return None


@pytest.fixture(scope="module")
def tiny():
    return load_world(TINY)


@pytest.mark.parametrize("backend", ["consensus", "generative", "gmemory", "collaborative"])
def test_backend_runs_saves_and_resumes(tiny, backend, tmp_path):
    embedder = HashEmbedder()
    sim = session.new_simulation(tiny, None, Settings(backend=backend, seed=3), ScriptedMind(script), embedder=embedder)
    for _ in range(4):
        sim.step()
    stats = sim.store.stats()
    assert stats["leaks"] == 0
    if backend == "consensus":
        assert stats["shared"] > 0 and stats["linked"] > 0
    else:
        assert stats["shared"] == 0 and stats["linked"] == 0
        assert stats["backend"] == backend
    session.save_simulation(sim, tmp_path / "save")
    resumed = session.load_simulation(tmp_path / "save", ScriptedMind(script), embedder=HashEmbedder(), world=tiny)
    assert resumed.store.records() == sim.store.records()
    resumed.step()
    assert resumed.state.round == sim.state.round + 1


def test_baselines_keep_more_rows_than_consensus_on_the_same_script(tiny):
    totals = {}
    for backend in ("consensus", "generative", "gmemory", "collaborative"):
        sim = session.new_simulation(tiny, None, Settings(backend=backend, seed=3), ScriptedMind(script),
                                     embedder=HashEmbedder())
        for _ in range(4):
            sim.step()
        totals[backend] = sim.store.stats()["records"]
    assert totals["consensus"] < min(v for k, v in totals.items() if k != "consensus")
    # Without by-products the collaborative store is exactly one row per witness per statement.
    assert totals["collaborative"] <= totals["generative"] and totals["collaborative"] <= totals["gmemory"]
