"""Unit test of who stays to answer: asked a question as it chose to walk off, a character stays within the round."""

from __future__ import annotations

from types import SimpleNamespace

from storyworld.game.simulation import Simulation
from storyworld.kernel.actions import Move, Say
from storyworld.minds import Decision


def test_one_asked_beside_it_stays_unless_the_canon_sends_it():
    here = SimpleNamespace(state=SimpleNamespace(positions={"ada": "quay", "tobin": "quay", "maren": "quay",
                                                            "silas": "tavern"}))
    decisions = {
        "ada": Decision(action=Say(actor="ada", text="Tobin, where did the lamp go?", to="tobin"), purpose="seek"),
        "tobin": Decision(action=Move(actor="tobin", to="tavern"), purpose="seek"),  # its own errand: stays
        "maren": Decision(action=Move(actor="maren", to="tavern"), purpose="seek"),  # asked nothing: goes
        "silas": Decision(action=Say(actor="silas", text="Maren, who lit it?", to="maren"), purpose="seek"),  # elsewhere
    }
    assert Simulation.stay_to_answer(here, decisions) == ["tobin"]
    sent = dict(decisions, tobin=Decision(action=Move(actor="tobin", to="tavern"), purpose="beat", beat="t03"))
    assert Simulation.stay_to_answer(here, sent) == []  # the canon's beat calls it away
    told = dict(decisions, ada=Decision(action=Say(actor="ada", text="The lamp went out.", to="tobin"), purpose="tell"))
    assert Simulation.stay_to_answer(here, told) == []  # a remark waits its turn
    crossed = dict(decisions, tobin=Decision(action=Say(actor="tobin", text="Ada, who rang the bell?", to="ada"),
                                             purpose="seek"))
    assert Simulation.stay_to_answer(here, crossed) == ["tobin"]  # answers before it asks its own
