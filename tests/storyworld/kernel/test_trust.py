"""Lies and exposure through the kernel: a lie passed on is contaminated when its source is exposed."""

from __future__ import annotations

from storyworld.game import session
from storyworld.kernel.actions import ActOn, Move, Say, Told, Wait
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY

LIE = "The old keeper drank himself blind on the night of the wreck."


def test_lie_repeated_then_exposed_contaminates_downstream_and_deletes_nothing():
    repeated_by: list[int] = []

    def script(rnd, agent, ctx):
        if rnd == 0 and agent == "silas":
            return ActOn(actor="silas", target="tobin", verb="lie", text=LIE)
        if rnd == 1 and agent == "tobin":
            return Move(actor="tobin", to="tavern")
        if rnd == 2 and agent == "tobin":
            # tobin passes the lie on as what he holds: the line tells the lie's own record
            lie = next(r for r in ctx.recalled if r.text == LIE)
            repeated_by.append(lie.record_id)
            return Say(actor="tobin", text="Silas says the old keeper was drunk when the ship broke.", to="ada",
                       act="tell", tells=(Told(record=lie.record_id, text=LIE, kind="claim"),))
        if rnd == 3 and agent == "maren":
            return ActOn(actor="maren", target="silas", verb="expose", text="He ordered the lamp dark.")
        return Wait(actor=agent)

    world = load_world(TINY)
    mind = ScriptedMind(script)
    sim = session.new_simulation(world, "arrival", Settings(seed=2, recall_k=8), mind, embedder=HashEmbedder())
    sim.step()
    lie = next(r for r in sim.store.records() if r.kind == "claim" and r.text == LIE)
    assert lie.owners["tobin"].via == "told" and lie.owners["tobin"].source == "silas"
    sim.step()
    # tobin's recall before speaking includes the lie, so his repetition carries it
    context, _ = sim.context_for("tobin")
    assert lie.id in {r.record_id for r in context.recalled}
    sim.step()
    assert repeated_by == [lie.id]
    lie = sim.store.get(lie.id)
    assert lie.owners["ada"].via == "told" and lie.owners["ada"].source == "tobin"  # one record, now ada's too
    lie_before = {o: h.confidence for o, h in lie.owners.items()}
    count = len(sim.store.records())
    sim.step()
    lie = sim.store.get(lie.id)
    assert set(lie.owners) >= {"tobin", "ada"}
    assert all(h.status == "retracted" for h in lie.owners.values())  # ada's belief goes with the lie
    for owner, confidence in lie_before.items():
        assert abs(lie.owners[owner].confidence - confidence / 2) < 1e-6
    assert len(sim.store.records()) >= count  # nothing deleted
    assert not sim.state.lies