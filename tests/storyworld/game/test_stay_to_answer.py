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


def test_the_way_back_is_to_a_larger_gathering_left_once_its_piece_is_said():
    from storyworld.kernel.state import SimEvent
    from storyworld.world import load_world
    from tests.support.paths import TINY

    def move(n: int, round_: int, who: str, from_place: str, to: str, **kw) -> SimEvent:
        return SimEvent(id=f"e{n}", round=round_, place=to, actor=who, kind="move", text="", target=to,
                        from_place=from_place, **kw)

    def said(n: int, round_: int, who: str, place: str) -> SimEvent:
        return SimEvent(id=f"e{n}", round=round_, place=place, actor=who, kind="say", text="A word.", to="ada")

    def sim(events: list[SimEvent], positions: dict[str, str]) -> SimpleNamespace:
        state = SimpleNamespace(events=events, positions=positions, absent=set(),
                                present=lambda place: tuple(sorted(a for a, p in positions.items() if p == place)))
        return SimpleNamespace(world=load_world(TINY), state=state)

    # tobin walked from the harbour (maren, silas, elias there) to the tavern (ada), and has said his piece
    crowd = {"tobin": "tavern", "ada": "tavern", "maren": "harbour", "silas": "harbour", "elias": "harbour"}
    went = [move(1, 1, "tobin", "harbour", "tavern")]
    assert Simulation.way_back(sim(went + [said(2, 2, "tobin", "tavern")], crowd), "tobin") == "harbour"
    assert Simulation.way_back(sim(went, crowd), "tobin") is None  # nothing said yet
    fewer = dict(crowd, maren="chapel", silas="chapel")  # only elias left there: no larger gathering
    assert Simulation.way_back(sim(went + [said(2, 2, "tobin", "tavern")], fewer), "tobin") is None
    # that walk was itself a way back: it does not go to and fro
    to_and_fro = [move(0, 0, "tobin", "tavern", "harbour")] + went + [said(2, 2, "tobin", "tavern")]
    assert Simulation.way_back(sim(to_and_fro, crowd), "tobin") is None
    led = [move(1, 1, "tobin", "harbour", "tavern", led_by="ada"), said(2, 2, "tobin", "tavern")]
    assert Simulation.way_back(sim(led, crowd), "tobin") is None  # led there: it goes back with its companion


def test_who_left_lately_is_a_character_gone_from_here_in_the_last_rounds_and_not_back():
    from storyworld.kernel.state import SimEvent

    def move(n: int, round_: int, who: str, from_place: str, to: str) -> SimEvent:
        return SimEvent(id=f"e{n}", round=round_, place=to, actor=who, kind="move", text="", target=to,
                        from_place=from_place)

    events = [move(1, 1, "tobin", "harbour", "tavern"), move(2, 2, "ada", "harbour", "tavern"),
              move(3, 3, "ada", "tavern", "harbour"), move(4, 3, "maren", "harbour", "tavern"),
              move(5, 0, "silas", "harbour", "chapel")]
    here = SimpleNamespace(state=SimpleNamespace(events=events, round=4, positions={
        "tobin": "tavern", "ada": "harbour", "maren": "tavern", "silas": "chapel"}),
        settings=SimpleNamespace(player="maren"))
    # ada came back; silas went too long ago; maren is the person playing, who goes where they like
    assert Simulation.left_lately(here, "harbour") == ("tobin",)


def test_one_seeking_company_waits_for_whoever_is_coming_its_way():
    here = SimpleNamespace(state=SimpleNamespace(positions={"ada": "quay", "tobin": "tavern", "maren": "quay",
                                                            "silas": "chapel"}))
    decisions = {
        "ada": Decision(action=Move(actor="ada", to="tavern"), purpose="seek"),  # tobin comes the other way: stays
        "tobin": Decision(action=Move(actor="tobin", to="quay"), purpose="seek"),
        "maren": Decision(action=Move(actor="maren", to="chapel"), purpose="seek"),  # nobody comes from there
    }
    assert Simulation.wait_for_comers(here, decisions) == ["ada"]  # of two errands toward each other, one stays
    sent = dict(decisions, ada=Decision(action=Move(actor="ada", to="tavern"), purpose="beat", beat="t03"))
    assert Simulation.wait_for_comers(here, sent) == ["tobin"]  # the canon's beat takes ada; tobin waits for her
    walker = {"maren": Decision(action=Move(actor="maren", to="chapel"), purpose="seek")}
    assert Simulation.wait_for_comers(here, walker, Move(actor="silas", to="quay")) == ["maren"]  # the person too
    assert Simulation.wait_for_comers(here, walker, Say(actor="silas", text="Hello.")) == []


def test_a_messenger_come_far_with_news_keeps_its_turn_on_arrival():
    from storyworld.game import session
    from storyworld.kernel.state import Settings
    from storyworld.world import load_world
    from tests.support.fixtures_memory import HashEmbedder
    from tests.support.paths import TINY

    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=2, awake="near", player="maren", max_awake=1),
                                 None, embedder=HashEmbedder())
    # the person at the lighthouse; Silas next door at the harbour; Ada walked to the chapel, far off, with news
    sim.state.positions.update(maren="lighthouse", ada="chapel")
    sim.state.round = 5
    sim.state.arrived["ada"] = 4
    assert sim.awake_agents() == ["silas"]  # a walker far off waits its turn
    sim.state.carrying["ada"] = 4
    assert sim.awake_agents() == ["ada"]  # a messenger says its piece where it came, before those next door
    sim.state.round = 6
    assert "ada" not in sim.awake_agents()  # once: then the turns go on as before


def test_a_line_said_back_in_surprise_holds_nobody_back():
    here = SimpleNamespace(state=SimpleNamespace(positions={"ada": "quay", "tobin": "quay"}))
    decisions = {
        "ada": Decision(action=Say(actor="ada", text="Tobin, the lamp went out? I never knew that.", to="tobin",
                                   act="react"), purpose="chat"),
        "tobin": Decision(action=Move(actor="tobin", to="tavern"), purpose="seek"),
    }
    assert Simulation.stay_to_answer(here, decisions) == []


def test_one_crossing_the_person_stays_and_the_one_it_would_have_crossed_goes():
    here = SimpleNamespace(state=SimpleNamespace(positions={"cole": "barn", "nell": "barn", "kit": "stables"}))
    decisions = {"cole": Decision(action=Move(actor="cole", to="stables"), purpose="carry"),
                 "kit": Decision(action=Move(actor="kit", to="barn"), purpose="seek")}
    # the person walks to the stables as Kit sets off for the barn: Kit stays to meet her, and Cole, whom Kit
    # would have crossed, goes on with his news (before, both stayed and the news went nowhere)
    assert Simulation.wait_for_comers(here, decisions, Move(actor="nell", to="stables")) == ["kit"]
    assert Simulation.wait_for_comers(here, decisions) == ["cole"]  # two errands crossing: the first by id stays
