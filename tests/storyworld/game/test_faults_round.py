"""A round is applied to the world state and to memory together, or to neither."""

from __future__ import annotations

import msgspec
import pytest

from storyworld.game import session
from storyworld.game.simulation import RoundRefused
from storyworld.kernel.actions import Say
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY


def talkative(rnd, agent, ctx):
    return Say(actor=agent, text=f"In round {rnd} {agent} saw the lamp lit.")


def game():
    world = load_world(TINY)
    return session.new_simulation(world, "arrival", Settings(seed=3, awake="all", player="maren"),
                                  ScriptedMind(talkative), embedder=HashEmbedder())


def snapshot(sim):
    return (msgspec.msgpack.encode(sim.state), sim.rng.getstate(),
            sorted((r.id, r.text, tuple(sorted(r.owners))) for r in sim.store.records()))


def test_a_store_that_refuses_the_rounds_deposits_leaves_state_and_memory_as_they_were(monkeypatch):
    sim = game()
    sim.step()
    before = snapshot(sim)

    def refuse(deposits):
        raise ValueError("deposits[0].text: the disk under the store is gone")

    monkeypatch.setattr(sim.store, "remember_many", refuse)
    with pytest.raises(RoundRefused, match="round 1 not played: deposits"):
        sim.step(Say(actor="maren", text="Who lit the lamp?"))
    monkeypatch.undo()
    assert snapshot(sim) == before
    # and the round plays as if the failed one never happened
    sim.step(Say(actor="maren", text="Who lit the lamp?"))
    again = game()
    again.step()
    again.step(Say(actor="maren", text="Who lit the lamp?"))
    assert snapshot(sim) == snapshot(again)


def test_a_line_longer_than_memory_takes_is_refused_whole():
    sim = game()
    before = snapshot(sim)
    with pytest.raises(RoundRefused, match="exceeds the limit"):
        sim.step(Say(actor="maren", text="Listen. " * 15_000))  # 120,000 characters pasted into the action bar
    assert snapshot(sim) == before
    assert not any("Listen." in e.text for e in sim.state.events)
