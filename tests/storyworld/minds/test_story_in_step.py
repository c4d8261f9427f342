"""The story and the screen in step (issue 23): a beat is done only when it happened in play, a passed
beat sends word to a player who would know of it, a deed happens on screen, companions go along, the
one led is told so, and looking around sees who arrived in the same round."""

from __future__ import annotations

import random

import pytest

from storyworld.game.session import new_simulation
from storyworld.game.simulation import initial_state
from storyworld.kernel.actions import ActOn, Move, Observe, Say, Wait
from storyworld.kernel.resolve import resolve_round
from storyworld.kernel.state import Settings, SimEvent
from storyworld.locations import find_world
from storyworld.minds import Decision, direction, guide
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.paths import TINY


@pytest.fixture(scope="module")
def hamlet():
    return load_world(find_world("hamlet"))


@pytest.fixture(scope="module")
def kingdoms():
    return load_world(find_world("three_kingdoms"))


def _line(actor: str, text: str, place: str, witnesses: tuple[str, ...], k: int = 0) -> SimEvent:
    return SimEvent(id=f"r0006-{k:02d}", round=6, place=place, actor=actor, kind="say", text=text, claim=text,
                    witnesses=witnesses)


def _on_the_battlements(world):
    state = initial_state(world, None)
    for agent in ("horatio", "marcellus", "barnardo"):
        state.positions[agent] = "battlements"
    state.round = state.start_round + 2 * 3 + 1  # the story clock at Marcellus's Christmas speech (canon round 3)
    return state


def test_a_spoken_beat_is_done_when_it_is_said_or_performed_and_then_narrated(hamlet):
    """Marcellus's Christmas speech is done when he says it, or when he speaks for it there (his line says only
    what he holds): then the story narrates it, so what is ticked done is on the screen; a line not made for it
    does neither."""
    state = _on_the_battlements(hamlet)
    here = ("barnardo", "horatio", "marcellus")
    christmas = "e0048"
    other = _line("marcellus", "Horatio, we must keep a sharp watch tonight.", "battlements", here)
    performed: set[str] = set()
    direction.update(hamlet, state, state.canon, [other], worked={}, player="horatio", performed=performed)
    assert christmas not in state.canon.met and not performed
    shown = guide.suggestions(hamlet, state, "horatio", limit=8)
    assert not [s for s in shown if s.status == "done" and "Christmas" in s.text]  # Horatio was there; nothing said
    met = direction.update(hamlet, state, state.canon, [other], worked={"marcellus": christmas}, player="horatio",
                           performed=performed)
    assert christmas in met and performed == {christmas}
    told = direction.tellings(hamlet, state, state.canon, met, [], "horatio", set(), performed)
    assert [t.mode for t in told if t.beat.id == christmas] == ["seen"]  # narrated where it happened
    state = _on_the_battlements(hamlet)
    said = _line("marcellus", "Some say that at Christmas the cock sings all night long, and then no spirit "
                 "dares walk abroad.", "battlements", here, k=1)
    assert christmas in direction.update(hamlet, state, state.canon, [said], player="horatio")
    shown = guide.suggestions(hamlet, state, "horatio", limit=8)
    assert [s for s in shown if s.status == "done" and "Christmas" in s.text]


def test_a_spoken_beat_that_has_the_person_speak_is_never_narrated_to_them(hamlet):
    """e0263's only actor is the First Player, but its text has Hamlet tell him what to do: played as Hamlet, the
    story does not narrate words the person did not say; played as Horatio, it does."""
    state = _on_the_battlements(hamlet)
    beat = hamlet.events_by_id["e0263"]
    for agent in beat.witness_ids():
        state.positions[agent] = beat.place
    state.positions["horatio"] = beat.place
    said = {"e0263"}  # the First Player spoke for it
    assert not [t for t in direction.tellings(hamlet, state, state.canon, ["e0263"], [], "hamlet", set(), said)
                if t.beat.id == "e0263"]
    assert [t.mode for t in direction.tellings(hamlet, state, state.canon, ["e0263"], [], "horatio", set(), said)] == ["seen"]


def test_a_witness_who_was_not_there_sees_the_beat_passed_not_done(hamlet):
    state = _on_the_battlements(hamlet)
    state.positions["horatio"] = "great-hall"
    said = _line("marcellus", "At Christmas the cock sings all night long, and no spirit dares walk abroad.",
                 "battlements", ("barnardo", "marcellus"))
    met = direction.update(hamlet, state, state.canon, [said], player="horatio")
    assert "e0048" in met and not direction.shared_by(state.canon, "e0048", "horatio")
    word = direction.tellings(hamlet, state, state.canon, met, [], "horatio")
    assert "e0048" in [t.beat.id for t in word if t.mode == "word"]  # a witness in the canon: word reaches him
    statuses = {s.text.split(" recalls")[0]: s.status for s in guide.suggestions(hamlet, state, "horatio", limit=8)}
    assert statuses.get("Marcellus") == "passed"


def _kingdoms_sim(kingdoms, script, player="liu-bei"):
    class Mind:
        def decide(self, world, context):
            action, beat = script(context)
            return Decision(action=action or Wait(actor=context.agent), beat=beat or "")

    settings = Settings(seed=1, awake="all", player=player)
    sim = new_simulation(kingdoms, None, settings, Mind(), embedder=HashEmbedder())
    for agent in ("liu-bei", "guan-yu", "zhang-fei"):
        sim.state.positions[agent] = "zhuo-market"
    return sim


def test_the_smiths_deed_happens_on_screen_only_when_the_brothers_gather_and_act(kingdoms):
    """The smith forging weapons is narrated where it happens (everyone there holds it), then ticked done."""
    smith = "e0024"
    sim = _kingdoms_sim(kingdoms, lambda c: (None, None))
    sim.state.canon.met.extend(["e0020", "e0021", "e0022", "e0023"])
    sim.state.round = sim.state.start_round + 2 * 5  # the story clock at the smith's beat
    sim.step(Wait(actor="liu-bei"))
    assert smith not in sim.state.canon.met  # gathered, but nobody did anything for it: it has not happened

    def forge(context):
        return (Say(actor=context.agent, text="", to="liu-bei"), smith) if context.agent == "guan-yu" else (None, None)

    sim = _kingdoms_sim(kingdoms, forge)
    sim.state.canon.met.extend(["e0020", "e0021", "e0022", "e0023"])
    sim.state.round = sim.state.start_round + 2 * 5
    outcome = sim.step(Wait(actor="liu-bei"))
    told = [e for e in outcome.events if e.kind == "narration" and e.beat == smith]
    assert len(told) == 1 and "liu-bei" in told[0].witnesses and "smith forged" in told[0].text
    assert direction.shared_by(sim.state.canon, smith, "liu-bei")
    held = [r for r in sim.store.held_by("liu-bei") if "Green Dragon" in r.text]
    assert held and {"liu-bei", "guan-yu", "zhang-fei"} <= set(held[0].owners)


def test_a_battle_the_player_missed_is_passed_and_word_of_it_reaches_him(kingdoms):
    daxing = "e0025"

    def fight(context):
        return (Say(actor=context.agent, text="", to="zhang-fei"), daxing) if context.agent == "guan-yu" else (None, None)

    sim = _kingdoms_sim(kingdoms, fight)
    sim.state.canon.met.extend(["e0020", "e0021", "e0022", "e0023", "e0024"])
    sim.state.positions["liu-bei"] = "peach-garden"
    sim.state.round = sim.state.start_round + 2 * 6
    outcome = sim.step(Wait(actor="liu-bei"))
    assert daxing in sim.state.canon.met and not direction.shared_by(sim.state.canon, daxing, "liu-bei")
    word = [e for e in outcome.events if e.kind == "narration" and e.word_from == "zhuo-market"]
    assert word and word[0].witnesses == ("liu-bei",) and word[0].text.startswith("Word comes from")
    assert any("Deng Mao" in r.text and r.owners["liu-bei"].via == "told" for r in sim.store.held_by("liu-bei"))
    shown = {s.status for s in guide.suggestions(kingdoms, sim.state, "liu-bei", limit=8) if "Daxing" in s.text}
    assert shown == {"passed"}


def test_the_sworn_brothers_go_along_when_liu_bei_walks_to_his_beat(kingdoms):
    sim = _kingdoms_sim(kingdoms, lambda c: (Say(actor=c.agent, text="Brother!", to="liu-bei"), None))
    for agent in ("liu-bei", "guan-yu", "zhang-fei"):
        sim.state.positions[agent] = "peach-garden"
    sim.state.canon.met.extend(["e0020", "e0021", "e0022"])  # the oath is sworn; the market is next
    sim.state.round = sim.state.start_round + 2 * 4
    outcome = sim.step(Move(actor="liu-bei", to="zhuo-market"))
    assert {sim.state.positions[a] for a in ("liu-bei", "guan-yu", "zhang-fei")} == {"zhuo-market"}
    along = [e for e in outcome.events if e.kind == "move" and e.led_by == "liu-bei"]
    assert {e.actor for e in along} == {"guan-yu", "zhang-fei"}


def test_the_one_led_goes_with_the_leader_and_looking_around_sees_who_arrived(hamlet):
    state = initial_state(hamlet, None)
    actions = {
        "marcellus": ActOn(actor="marcellus", verb="lead", target="horatio", place="battlements"),
        "horatio": Say(actor="horatio", text="Is this the place?", to="marcellus"),
        "barnardo": Observe(actor="barnardo"),
    }
    outcome = resolve_round(hamlet, state, actions, random.Random(3))
    moved = next(e for e in outcome.events if e.kind == "move" and e.actor == "horatio")
    assert moved.led_by == "marcellus" and "went with Marcellus" in moved.text
    seen = next(e for e in outcome.events if e.kind == "observe")
    assert "Horatio" in seen.text and "Marcellus" in seen.text  # they arrived this round: Barnardo sees them
    assert "Horatio" in outcome.results["barnardo"]


def test_what_the_player_does_or_sees_alone_happens_only_by_the_players_own_doing(hamlet):
    """'Horatio admits that it terrifies him' (a sight of Horatio's) is never narrated for him, nor ticked by
    his standing there; Francisco going off to bed is not done while he stays on the platform."""
    state = initial_state(hamlet, None)
    for agent in ("horatio", "marcellus", "barnardo", "francisco"):
        state.positions[agent] = "battlements"
    state.round = state.start_round + 2 * 1 + 1
    sight = next(e.id for e in hamlet.events if e.kind == "observe" and e.actors == ["horatio"] and e.round >= 0)
    bed = "e0022"  # Francisco hands over the watch and goes off to bed (a move beat on the platform)
    met = direction.update(hamlet, state, state.canon, [], player="horatio")
    assert sight not in met and bed not in met
    look = SimEvent(id="r0003-00", round=3, place="battlements", actor="horatio", kind="observe", text="...",
                    witnesses=("horatio",))
    own: set[str] = set()
    met = direction.update(hamlet, state, state.canon, [look], player="horatio", own=own)
    assert sight in met and sight in own
    assert sight not in [t.beat.id for t in direction.tellings(hamlet, state, state.canon, met, [], "horatio", own)]


def test_one_arrival_meets_one_beat_of_coming_not_every_later_one(hamlet):
    """The Ghost entering meets 'The Ghost enters'; 'The Ghost vanishes' (a later beat there) is not met by it."""
    state = initial_state(hamlet, None)
    for agent in ("horatio", "marcellus", "barnardo"):
        state.positions[agent] = "battlements"
    state.positions["ghost"] = "battlements"
    state.round = state.start_round + 2 * 1 + 1
    came = SimEvent(id="r0003-00", round=3, place="battlements", actor="ghost", kind="move", text="...",
                    witnesses=("barnardo", "ghost", "horatio", "marcellus"), from_place="far-rampart")
    ghost_beats = [e.id for e in hamlet.events if e.kind == "move" and e.actors == ["ghost"] and 0 <= e.round <= 4]
    met = direction.update(hamlet, state, state.canon, [came], player="horatio")
    assert [b for b in ghost_beats if b in met] == ghost_beats[:1]
    state.round += 1
    assert not [b for b in ghost_beats if b in direction.update(hamlet, state, state.canon, [], player="horatio")]


def test_no_word_comes_of_a_beat_whose_doers_stand_here_or_that_has_the_player_there(hamlet):
    """Horatio and Marcellus in the outer court: word that Marcellus explained on the platform that he had brought
    Horatio to watch would contradict the screen twice; word of Francisco's handover there does not."""
    state = _on_the_battlements(hamlet)
    state.positions["horatio"] = state.positions["marcellus"] = "outer-court"
    state.positions["francisco"] = "battlements"
    word = [t.beat.id for t in direction.tellings(hamlet, state, state.canon, [], ["e0024", "e0022"], "horatio")]
    assert word == ["e0022"]
    state.positions["francisco"] = "outer-court"  # its doer stands here: it did not happen up there
    assert not direction.tellings(hamlet, state, state.canon, [], ["e0022"], "horatio")


def test_no_word_comes_of_a_beat_the_player_stood_by_and_saw_not_happen(hamlet):
    state = _on_the_battlements(hamlet)
    direction.update(hamlet, state, state.canon, [], player="horatio")  # Horatio is there; nobody says it
    assert "horatio" in state.canon.witnessed.get("e0048", [])
    state.positions["horatio"] = "great-hall"
    state.round += 2 * (direction.SLACK + 2)  # the story moves on past it
    before = len(state.canon.dropped)
    direction.update(hamlet, state, state.canon, [], player="horatio")
    dropped = state.canon.dropped[before:]
    assert "e0048" in dropped
    word = direction.tellings(hamlet, state, state.canon, [], dropped, "horatio")
    assert "e0048" not in [t.beat.id for t in word]


def test_now_says_the_players_next_beat_here_between_two_beats(kingdoms):
    """After the oath, the bowing (the next beat, here, not yet due) fills the Now line; it never goes blank."""
    state = initial_state(kingdoms, None)
    oath = next(e for e in kingdoms.events if e.round >= 0 and e.place == "peach-garden")
    state.canon.met.append(oath.id)
    state.round = state.start_round + 1
    following = direction.upcoming(kingdoms, state, state.canon, "liu-bei", limit=1)[0]
    assert following.place == "peach-garden" and following.round > direction.story_clock(state) + 1
    assert guide.happening(kingdoms, state, "liu-bei") == f"Next here: {guide.clip(following.text, 150)}"


def test_words_to_the_brothers_do_not_skip_the_oath_to_the_bowing(kingdoms):
    """'What news?' to Guan Yu before the oath is sworn is not the bowing that follows the oath."""
    state = initial_state(kingdoms, None)
    oath, bowing = (e for e in kingdoms.events if e.round >= 0 and e.place == "peach-garden"
                    and "liu-bei" in e.actors)
    assert oath.kind == "say" and bowing.kind == "act" and oath.round < bowing.round
    here = ("guan-yu", "liu-bei", "zhang-fei")
    line = SimEvent(id="r0000-00", round=0, place="peach-garden", actor="liu-bei", kind="say", text="What news?",
                    claim="What news?", to="guan-yu", witnesses=here)
    met = direction.update(kingdoms, state, state.canon, [line], player="liu-bei")
    assert oath.id not in met and bowing.id not in met
    state.canon.met.append(oath.id)  # once sworn, words to the brothers are Liu Bei's part of the bowing
    state.round += 1
    line = SimEvent(id="r0001-00", round=1, place="peach-garden", actor="liu-bei", kind="say", text="Brothers.",
                    claim="Brothers.", to="guan-yu", witnesses=here)
    assert bowing.id in direction.update(kingdoms, state, state.canon, [line], player="liu-bei")


def test_the_persons_line_to_someone_else_does_not_meet_their_spoken_beat():
    """Goals tick a spoken beat of the person's only for a line said to the beat's people."""
    from storyworld.kernel.state import CanonProgress, SimEvent
    from storyworld.minds import direction

    tiny = load_world(TINY)
    state = initial_state(tiny, "arrival")
    state.round = state.start_round + 2 * 4  # the story clock at t11 (Maren asks the tavern about the lamp)
    state.positions["maren"] = "tavern"
    words = "Who ordered the lamp dark on the night of the wreck?"

    def said(to):
        return SimEvent(id="r0008-00", round=state.round, place="tavern", actor="maren", kind="say", text=words,
                        claim=words, to=to, witnesses=("maren", "ada", "silas", "tobin"))

    for to, met in (("tobin", False), ("ada", True)):
        progress = CanonProgress(met=["t08", "t09", "t10"])
        direction.update(tiny, state, progress, [said(to)], player="maren")
        assert ("t11" in progress.met) is met, to
