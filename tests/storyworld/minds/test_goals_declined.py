"""Goals tick a canon beat done only when it happened on screen: a beat the story declined to narrate
(its cast is not all there to see it as the canon tells it) is passed, never ticked (issue 33)."""

from __future__ import annotations

import pytest

from tests.support.doubles import HashEmbedder
from storyworld.game.session import new_simulation
from storyworld.kernel.actions import Say, Wait
from storyworld.kernel.state import Settings
from storyworld.locations import find_world
from storyworld.minds import Decision, direction, guide
from storyworld.world import load_world

GUARDS = "e0028"  # Zhang Fei and Guan Yu draw on Lu Zhi's guards, Liu Bei and Lu Zhi there to see it


@pytest.fixture(scope="module")
def kingdoms():
    return load_world(find_world("three_kingdoms"))


def _round_at_the_guards(kingdoms, lu_zhi_at: str):
    """One round at Guangzong with the brothers there and Guan Yu acting for the guards' beat."""

    class Mind:
        def decide(self, world, context):
            if context.agent == "guan-yu":
                return Decision(action=Say(actor="guan-yu", text="", to="zhang-fei"), beat=GUARDS)
            return Decision(action=Wait(actor=context.agent), beat="")

    sim = new_simulation(kingdoms, None, Settings(seed=1, awake="all", player="liu-bei"), Mind(),
                         embedder=HashEmbedder())
    for agent in ("liu-bei", "guan-yu", "zhang-fei"):
        sim.state.positions[agent] = "guangzong"
    sim.state.positions["lu-zhi"] = lu_zhi_at
    sim.state.canon.met.extend(f"e00{n}" for n in range(20, 28))
    sim.state.round = sim.state.start_round + 2 * 12  # the story clock at the guards' beat
    return sim, sim.step(Wait(actor="liu-bei"))


def _goals(kingdoms, sim):
    return {s.status for s in guide.suggestions(kingdoms, sim.state, "liu-bei", limit=8) if "guards" in s.text}


def test_a_beat_narrated_where_the_player_stands_is_ticked_done(kingdoms):
    sim, outcome = _round_at_the_guards(kingdoms, "guangzong")
    assert [e.beat for e in outcome.events if e.kind == "narration"] == [GUARDS]
    assert not outcome.declined
    assert direction.shared_by(sim.state.canon, GUARDS, "liu-bei")
    assert _goals(kingdoms, sim) == {"done"}


def test_a_beat_the_story_declined_to_narrate_is_passed_not_ticked(kingdoms):
    """Lu Zhi is away: the deed cannot be seen as the canon tells it, so nothing is narrated; the round says
    so in a typed field, and the Goals tab shows the beat passed."""
    sim, outcome = _round_at_the_guards(kingdoms, "zhuo-market")
    assert GUARDS in sim.state.canon.met  # the story moved on past it
    assert not [e for e in outcome.events if e.kind == "narration" and e.beat == GUARDS]
    assert outcome.declined == (GUARDS,)
    assert GUARDS in sim.state.canon.declined
    assert not direction.shared_by(sim.state.canon, GUARDS, "liu-bei")
    assert _goals(kingdoms, sim) == {"passed"}
    from tui.views import build_moment  # what the Goals tab shows: the play screen's view of the round

    shown = build_moment(sim, "liu-bei", events=outcome.events, results=outcome.results, since_round=outcome.round)
    assert {status for text, status in shown.suggestions if "guards" in text} == {"passed"}
