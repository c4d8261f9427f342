"""Unit tests of the agenda's pure choice: whom a goal question goes to, and when news sends one looking for company."""

from __future__ import annotations

import msgspec
import pytest

from storyworld.kernel.actions import Move, Say
from storyworld.kernel.perception import Perception
from storyworld.kernel.state import ShortTerm, ThreadLine
from storyworld.minds import agenda, questions
from storyworld.minds.content import Knowledge, Known
from storyworld.minds.context import DecisionContext
from storyworld.world import load_world
from tests.support.paths import MILL

QUESTION = "Do you know who took the grain sacks from the barn?"


@pytest.fixture(scope="module")
def mill():
    return load_world(MILL)


def context(present: tuple[str, ...], knowledge: Knowledge, *, asked: tuple[tuple[str, str], ...] = (),
            voices: tuple[str, ...] = (), agent: str = "reeve", round_: int = 4,
            talk: tuple[ThreadLine, ...] = ()) -> DecisionContext:
    perception = Perception(agent=agent, round=round_, place="green", place_name="the green", place_description="",
                            present=present, exits=("mill", "barn"), objects_here=(), objects_held=(),
                            recent_talk=talk, voices=voices)
    return DecisionContext(agent=agent, perception=perception, shortterm=ShortTerm(), recalled=(), seed=0,
                           knowledge=knowledge, asked=asked)


def test_a_goal_question_goes_to_one_not_yet_asked_and_never_to_the_one_it_asks_after(mill):
    knowledge = Knowledge(questions=(QUESTION,), asked_about=(("odo",),))
    first = agenda.next_step(mill, context(("odo", "tamsin", "wat"), knowledge))
    assert first is not None and isinstance(first.action, Say) and first.action.to == "tamsin"
    # asked Tamsin already (in the model's words): Wat next, never Odo, whom the question is about
    after = agenda.next_step(mill, context(("odo", "tamsin", "wat"), knowledge,
                                           asked=(("tamsin", "Tamsin, do you know who took grain sacks from the barn?"),)))
    assert after is not None and isinstance(after.action, Say) and after.action.to == "wat"
    everyone = (("tamsin", QUESTION), ("wat", QUESTION))
    assert agenda.next_step(mill, context(("odo", "tamsin", "wat"), knowledge, asked=everyone)) is None


def test_news_that_nobody_here_lacks_sends_it_where_voices_are_heard(mill):
    news = Known(record_id=7, text="Odo dragged six grain sacks out of the tithe barn at night.", kind="claim",
                 via="told", source="bettany", since_round=3, actors=("odo",), holders=("tamsin",))
    knowledge = Knowledge(news=(news,))
    # Tamsin heard it too: nobody here lacks it, and someone is at the mill
    step = agenda.next_step(mill, context(("tamsin",), knowledge, voices=("mill",)))
    assert step is not None and isinstance(step.action, Move) and step.action.to == "mill"
    # one here lacks it: told here, not carried off
    told = agenda.next_step(mill, context(("tamsin", "wat"), knowledge, voices=("mill",)))
    assert told is not None and isinstance(told.action, Say) and told.action.to == "wat" and told.purpose == "tell"
    # no voices anywhere near: nothing moves
    assert agenda.next_step(mill, context(("tamsin",), knowledge)) is None


def test_alone_it_goes_where_voices_are_unless_it_has_a_post_to_guard(mill):
    step = agenda.next_step(mill, context((), Knowledge(), voices=("barn",)))
    assert step is not None and isinstance(step.action, Move) and step.action.to == "barn"
    assert agenda.next_step(mill, context((), Knowledge(stays=True), voices=("barn",))) is None
    assert agenda.next_step(mill, context((), Knowledge())) is None  # nobody anywhere near: it waits


def test_it_does_not_pace_between_rooms(mill):
    moved = context((), Knowledge(), voices=("barn",))
    moved = msgspec.structs.replace(moved, last_moved=3)  # went somewhere last round
    assert agenda.next_step(mill, moved) is None


@pytest.mark.parametrize(("question", "polar"), [
    ("Do you think it will come again tonight?", True), ("Marcellus, will it walk again?", True),
    ("What should we do first against the Yellow Turbans?", False), ("Where is Odo now?", False),
])
def test_a_yes_or_no_question_is_told_from_another(question, polar):
    assert questions.is_polar(question) is polar


def test_a_line_chosen_for_another_purpose_asks_only_what_fits_its_listener(mill):
    knowledge = Knowledge(questions=(QUESTION, "Do you know where Wat hid the key?"), asked_about=(("odo",), ("wat",)))
    asked = context(("odo", "tamsin", "wat"), knowledge, asked=(("tamsin", QUESTION),))
    assert agenda.open_questions(asked, knowledge, "odo").questions == ("Do you know where Wat hid the key?",)
    assert agenda.open_questions(asked, knowledge, "wat").questions == (QUESTION,)
    assert agenda.open_questions(asked, knowledge, "tamsin").questions == ("Do you know where Wat hid the key?",)


def test_news_nobody_here_lacks_goes_toward_where_one_who_lacks_it_was_last_known(mill):
    news = Known(record_id=7, text="Odo dragged six grain sacks out of the tithe barn at night.", kind="claim",
                 via="told", source="bettany", since_round=1, actors=("odo",))
    # no voices anywhere near, news two rounds old: it still heads for the one who lacks it
    step = agenda.next_step(mill, context(("bettany",), Knowledge(news=(news,), lacking_at=(("barn", 7),))))
    assert step is not None and isinstance(step.action, Move) and step.action.to == "barn"
    # one here lacks it: told here first
    here = agenda.next_step(mill, context(("bettany", "wat"), Knowledge(news=(news,), lacking_at=(("barn", 7),))))
    assert here is not None and isinstance(here.action, Say) and here.action.to == "wat"
    # news of its own doing is not carried about (nobody spreads a charge against themself)
    own = msgspec.structs.replace(news, actors=("reeve",))
    assert agenda.next_step(mill, context(("bettany",), Knowledge(news=(own,), lacking_at=(("barn", 7),)))) is None


def test_where_those_who_lack_news_are_comes_from_typed_fields(mill):
    from memory.records import Holding, Record
    from storyworld.minds.content import _lacking_at

    reeve, others = "reeve", sorted(a for a in mill.agents if a != "reeve")
    doer, source, lacking = others[0], others[1], others[2:]
    told = Record(id=7, text="Someone dragged the sacks out at night.", kind="claim", actors=(doer,),
                  owners={reeve: Holding(via="told", source=source, since_round=3),
                          source: Holding(via="witnessed", since_round=2)})
    # the reeve saw the first of those who lack it go into the barn: that is where it was last known to be
    seen = Record(id=9, text="went into the barn", round=2, place="barn", actors=(lacking[0],),
                  owners={reeve: Holding(via="witnessed", since_round=2)})
    places = _lacking_at(mill, reeve, [told, seen], [7], present=())
    assert places[0] == ("barn", 7)  # the latest holding that places them, before anyone's home
    homes = {mill.agents[a].home for a in lacking[1:]}
    assert {p for p, _ in places[1:]} <= homes
    # the doer and the source are never sought out with it; one holding it already is not either
    assert _lacking_at(mill, reeve, [told], [7], present=tuple(lacking)) == ()


def test_news_for_someone_here_is_said_before_walking_off(mill):
    news = Known(record_id=7, text="Odo dragged six grain sacks out of the tithe barn at night.", kind="claim",
                 via="told", source="bettany", since_round=3, actors=("odo",), holders=("tamsin",))
    step = agenda.tell_news(mill, context(("tamsin", "wat"), Knowledge(news=(news,))))
    assert step is not None and step.action.to == "wat" and step.purpose == "tell"
    assert agenda.tell_news(mill, context(("tamsin",), Knowledge(news=(news,)))) is None  # nobody here lacks it


def test_a_goal_question_that_would_give_a_secret_away_is_not_put_to_those_it_is_kept_from(mill):
    # the question bears on what the reeve keeps from Tamsin (Knowledge.withheld): Wat is asked, Tamsin never
    knowledge = Knowledge(questions=(QUESTION,), asked_about=(("odo",),), withheld=(("tamsin",),))
    step = agenda.next_step(mill, context(("odo", "tamsin", "wat"), knowledge))
    assert step is not None and isinstance(step.action, Say) and step.action.to == "wat"
    assert agenda.next_step(mill, context(("odo", "tamsin"), knowledge)) is None
    assert agenda.open_questions(context(("tamsin",), knowledge), knowledge, "tamsin").questions == ()


def test_those_who_hold_the_same_news_tell_different_listeners_and_the_turn_rotates(mill):
    news = Known(record_id=7, text="The millrace gate was found broken at dawn.", kind="claim", via="told",
                 source="odo", since_round=3, holders=("reeve", "tamsin"))
    lacking = ["bettany", "wat"]  # the reeve and Tamsin both hold it; Bettany and Wat lack it
    reeve_context = context(("tamsin", *lacking), Knowledge(news=(news,)))
    tamsin_context = msgspec.structs.replace(context(("reeve", *lacking), Knowledge(news=(news,))), agent="tamsin")
    told = [agenda.tell_news(mill, c) for c in (reeve_context, tamsin_context)]
    assert all(t is not None for t in told) and {t.action.to for t in told} == set(lacking)  # one each
    later = [agenda.tell_news(mill, msgspec.structs.replace(c, perception=msgspec.structs.replace(
        c.perception, round=c.perception.round + 1))) for c in (reeve_context, tamsin_context)]
    assert [t.action.to for t in later] == [t.action.to for t in reversed(told)]  # the turn moved on


def test_a_messenger_with_its_piece_said_goes_back_to_the_gathering_it_left(mill):
    back = msgspec.structs.replace(context(("wat",), Knowledge(), voices=("mill",)), came_from="mill", last_moved=3)
    step = agenda.next_step(mill, back)
    assert step is not None and isinstance(step.action, Move) and step.action.to == "mill"
    # asked something: it stays to answer (a remark does not hold it); a post to guard here: it stays; nobody left
    # there: it stays
    asked = (ThreadLine(round=4, speaker="wat", text="Reeve, what of the sacks?", event_id="u1", to="reeve",
                        act="ask"),)
    assert agenda.next_step(mill, msgspec.structs.replace(back, perception=msgspec.structs.replace(
        back.perception, recent_talk=asked))) is None
    told = (msgspec.structs.replace(asked[0], text="Reeve, the sacks are gone.", act="tell"),)
    going = agenda.next_step(mill, msgspec.structs.replace(back, perception=msgspec.structs.replace(
        back.perception, recent_talk=told)))
    assert going is not None and isinstance(going.action, Move)
    assert agenda.next_step(mill, msgspec.structs.replace(back, knowledge=Knowledge(stays=True))) is None
    assert agenda.next_step(mill, msgspec.structs.replace(back, perception=msgspec.structs.replace(
        back.perception, voices=()))) is None


def test_who_owes_an_answer_is_one_spoken_to_who_has_not_replied_and_was_not_being_replied_to(mill):
    asked = ThreadLine(round=3, speaker="wat", text="Reeve, who took the sacks?", event_id="u1", to="reeve", act="ask")
    assert agenda._busy(context(("wat",), Knowledge(), talk=(asked,))) == {"reeve"}
    answered = ThreadLine(round=3, speaker="reeve", text="Wat, I do not know.", event_id="u2", to="wat", act="answer")
    assert agenda._busy(context(("wat",), Knowledge(), talk=(asked, answered))) == set()
    # Wat's reply to the reeve's own question closes that exchange: the reeve owes nothing
    assert agenda._busy(context(("wat",), Knowledge(), talk=(
        msgspec.structs.replace(asked, speaker="reeve", to="wat"),
        msgspec.structs.replace(answered, speaker="wat", to="reeve")))) == set()


def test_one_messenger_at_a_time_of_those_deciding_and_none_while_another_is_away(mill):
    news = Known(record_id=7, text="Odo dragged six grain sacks out of the tithe barn at night.", kind="claim",
                 via="told", source="bettany", since_round=3, actors=("odo",))

    def step(agent: str, other: str, **fields):
        held = Knowledge(news=(msgspec.structs.replace(news, holders=(other,)),), lacking_at=(("barn", 7),))
        return agenda.next_step(mill, msgspec.structs.replace(context((other, "bettany"), held, agent=agent), **fields))

    both = {a: step(a, o, deciding=("reeve", "tamsin")) for a, o in (("reeve", "tamsin"), ("tamsin", "reeve"))}
    going = [a for a, s in both.items() if s is not None]
    assert len(going) == 1 and isinstance(both[going[0]].action, Move)  # a room does not empty at once
    stays = next(a for a in both if a not in going)
    # the one whose turn it was sits the round out: the other goes instead
    alone = step(stays, going[0], deciding=(stays,))
    assert alone is not None and isinstance(alone.action, Move) and alone.action.to == "barn"
    # another went from here lately and is not back: nobody else goes
    assert step(stays, going[0], deciding=(stays,), left_lately=("wat",)) is None


def test_news_goes_first_to_whom_it_concerns_and_the_news_that_concerns_someone_most_goes_first(mill):
    mill_news = Known(record_id=7, text="The millrace gate was found broken at dawn.", kind="claim", via="told",
                      source="odo", since_round=3, holders=("reeve",))
    barn_news = Known(record_id=8, text="Odo dragged six grain sacks out of the tithe barn.", kind="claim", via="told",
                      source="bettany", since_round=3, actors=("odo",), holders=("reeve",))
    plain = Knowledge(news=(mill_news, barn_news))
    assert agenda.tell_news(mill, context(("tamsin", "wat"), plain)).action.to == "tamsin"  # nobody cares more
    # Wat's goals are on the barn: he is told, and told the barn news, though the reeve heard the mill news first
    cares = msgspec.structs.replace(plain, cares=(("wat", ((8, 0.62), (7, 0.2))), ("tamsin", ((7, 0.31),))))
    step = agenda.tell_news(mill, context(("tamsin", "wat"), cares))
    assert step is not None and step.action.to == "wat"
    from storyworld.minds.content import care_of
    assert care_of(cares, "wat", barn_news) == 0.62 and care_of(cares, "odo", barn_news) == 0.0
    from storyworld.minds.content import choose
    said = choose(mill, "reeve", "tell", Say(actor="reeve", text="", to="wat"), cares, addressed=None)
    assert said is not None and [k.record_id for k in said.carries] == [8]  # what bears on his goals
    said = choose(mill, "reeve", "tell", Say(actor="reeve", text="", to="tamsin"), cares, addressed=None)
    assert said is not None and [k.record_id for k in said.carries] == [7]


def test_a_line_said_back_closes_its_exchange_and_with_a_question_only_when_it_answers_one():
    from storyworld.minds.content import answered, replies

    def line(round_, speaker, to, text, act=None):
        return ThreadLine(round=round_, speaker=speaker, to=to, text=text, event_id=f"e{round_}{speaker}", act=act)

    asked = [line(3, "reeve", "wat", "Who took the sacks?", act="ask"), line(3, "wat", "reeve", "Odo took them.")]
    remark = [line(2, "reeve", "wat", "The sacks are gone."), line(3, "wat", "reeve", "Odo took them.")]
    assert answered(asked, 0) and not answered(asked, 1)
    assert replies(asked, 1) and replies(asked, 1, to_a_question=True)
    assert replies(remark, 1) and not replies(remark, 1, to_a_question=True)  # news back to a remark is owed a word
    late = [line(1, "reeve", "wat", "Who took the sacks?", act="ask"), line(3, "wat", "reeve", "Odo took them.")]
    assert not replies(late, 1)  # two rounds on, it is a line of its own


def test_what_it_was_bidden_to_tell_goes_to_that_one_here_or_it_goes_to_them(mill):
    """"Tell Wat what I saw" (agreed when it was put): told to Wat when he is here, else it walks to where he was."""
    seen = Known(record_id=9, text="Odo dragged six grain sacks out of the tithe barn at night.", kind="claim",
                 via="told", source="bettany", since_round=1, actors=("odo",), holders=("tamsin", "bettany"))
    knowledge = Knowledge(bidden=(("wat", "barn", seen),))
    here = agenda.next_step(mill, context(("tamsin", "wat"), knowledge, agent="tamsin"))
    assert here is not None and isinstance(here.action, Say) and here.action.to == "wat" and here.record == 9
    away = agenda.next_step(mill, context(("tamsin",), knowledge, agent="tamsin"))
    assert away is not None and isinstance(away.action, Move) and away.action.to == "barn"


def test_where_it_was_bidden_to_go_it_goes(mill):
    """"Come with me to the mill" (agreed when it was put): it heads there, unless it owes someone an answer."""
    step = agenda.next_step(mill, context(("tamsin",), Knowledge(going="mill"), agent="tamsin"))
    assert step is not None and isinstance(step.action, Move) and step.action.to == "mill"
    assert agenda.next_step(mill, context(("tamsin",), Knowledge(going="green"), agent="tamsin")) is None  # there


def test_what_a_line_asks_its_hearer_to_do():
    assert questions.requested("Will you come and look at his feet with me?") == "come and look at his feet with me"
    assert questions.requested("Tell the inspector what I found.") == "tell the inspector what I found"
    assert questions.requested("Should we tell the miller?") is None  # a proposal for both: no errand of its own
    assert questions.requested("Fire broke out in the barn.") is None
