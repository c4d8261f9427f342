"""Speech from memory: the point-of-view rendering, the choice of a speech act, the phrasing check (doubles only)."""

from __future__ import annotations

import re

import msgspec
import pytest

from storyworld.game import session
from storyworld.kernel import verbs as kernel_verbs
from storyworld.kernel.actions import ActOn, Say
from storyworld.kernel.perception import perceive
from storyworld.kernel.state import Settings, ShortTerm, ThreadLine
from storyworld.llm import Completion
from storyworld.minds import content, lines, render, words
from storyworld.minds.content import Known, Knowledge, Speech
from storyworld.minds.context import DecisionContext
from storyworld.world import World, load_world
from tests.support.doubles import HashEmbedder
from tests.support.paths import BUNDLED_WORLDS, REPO, TINY

HAMLET = BUNDLED_WORLDS / "hamlet.toml"


@pytest.fixture(scope="module")
def hamlet():
    return load_world(HAMLET)


@pytest.fixture(scope="module")
def tiny():
    return load_world(TINY)


@pytest.mark.parametrize(("text", "speaker", "listener", "said"), [
    ("Marcellus and Barnardo saw a figure like the dead king on the battlements.", "marcellus", "horatio",
     "Barnardo and I saw a figure like the dead king on the battlements."),
    ("Horatio saw the Ghost with Marcellus and Barnardo.", "marcellus", "horatio",
     "You saw the Ghost with Barnardo and me."),
    ("Horatio does not believe in the apparition.", "marcellus", "horatio", "You do not believe in the apparition."),
    ("Hamlet came home from Wittenberg for his father's funeral.", "hamlet", "horatio",
     "I came home from Wittenberg for my father's funeral."),
    ("Claudius murdered his brother King Hamlet.", "hamlet", "claudius", "You murdered your brother King Hamlet."),
    ("Rosencrantz and Guildenstern are Hamlet's childhood friends.", "hamlet", "horatio",
     "Rosencrantz and Guildenstern are my childhood friends."),
    ("The Ghost would not speak to Horatio.", "ghost", "horatio", "I would not speak to you."),
    ("Prince Hamlet was born on the day old King Hamlet defeated old Fortinbras.", "hamlet", "horatio",
     "I was born on the day old King Hamlet defeated old Fortinbras."),  # the father's name is not the son's
    ("Ophelia believes Hamlet has gone mad.", "ophelia", "hamlet", "I believe you have gone mad."),
    ("Polonius thinks Hamlet is mad for love.", "hamlet", "polonius", "You think I am mad for love."),
    ("Laertes came home from France for the coronation.", "hamlet", "horatio",
     "Laertes came home from France for the coronation."),  # nobody of the two: unchanged
    # a name before a word that can only be a finite verb is that verb's subject, after "said" too
    ("Marcellus said Horatio slipped on the stair.", "marcellus", "horatio", "I said you slipped on the stair."),
    ("Gertrude said Hamlet killed Polonius.", "polonius", "hamlet", "Gertrude said you killed me."),
    ("Gertrude said Polonius slipped on the stair.", "polonius", "hamlet", "Gertrude said I slipped on the stair."),
    # ... and after a verb of saying whatever follows the name ("me often forgets" was said)
    ("Gertrude said Polonius often forgets the hour.", "polonius", "hamlet", "Gertrude said I often forget the hour."),
    ("Gertrude said Polonius left the door open.", "polonius", "hamlet", "Gertrude said I left the door open."),
    ("Gertrude said to Polonius that the door was open.", "polonius", "hamlet", "Gertrude said to me that the door was open."),
    # a "he" after another man is named may be his: it stays (not "so I has brought me")
    ("Marcellus explains that Horatio thinks it is a fancy, so he has brought him to watch.", "horatio", "hamlet",
     "Marcellus explains that I think it is a fancy, so he has brought him to watch."),
    ("Hamlet saw Horatio slip on the stair.", "hamlet", "horatio", "I saw you slip on the stair."),
    ("Claudius gave Hamlet orders to sail.", "claudius", "hamlet", "I gave you orders to sail."),
    # a "he" made "I" or "you" takes its verb's person with it
    ("Horatio said he has seen the ghost twice.", "horatio", "hamlet", "I said I have seen the ghost twice."),
    ("Horatio said he was on the platform.", "hamlet", "horatio", "You said you were on the platform."),
    # the object of one's own verb is someone else ("I scratched me" was said of a horse)
    ("The colt went lame, and Claudius scratched him from the race.", "claudius", "hamlet",
     "The colt went lame, and I scratched him from the race."),
    ("Ophelia found the letter and gave her the ring.", "ophelia", "hamlet", "I found the letter and gave her the ring."),
    ("Ophelia said that he loved her.", "ophelia", "hamlet", "I said that he loved me."),
    # another's verb between is another's deed: "asked him" is the speaker asked (and "he knows" is "I know")
    ("Horatio said the watchman asked him where he slept and which songs he knows.", "horatio", "hamlet",
     "I said the watchman asked me where I slept and which songs I know."),
    # a named beast or thing the cast does not hold may be "he" once it is a clause's subject (said of a colt)
    ("Horatio said Bucephalus got cast in his box and wrenched his leg.", "horatio", "hamlet",
     "I said Bucephalus got cast in his box and wrenched his leg."),
])
def test_a_record_is_said_from_the_speakers_point_of_view(hamlet, text, speaker, listener, said):
    assert render.point_of_view(hamlet, text, speaker, listener) == said


def test_backstory_told_in_the_present_is_said_in_the_past(hamlet):
    said = render.point_of_view(hamlet, "Marcellus tells Horatio about the apparition.", "marcellus", "horatio",
                                past=True)
    assert said == "I told you about the apparition."


def _known(**fields) -> Known:
    defaults = dict(record_id=1, text="Elias seals the letter with red wax.", kind="event", via="sediment",
                    source=None, confidence=0.88, round=-5, score=0.6)
    return Known(**(defaults | fields))


@pytest.mark.parametrize(("known", "opening"), [
    (_known(), "Maren, I saw it myself: Elias sealed the letter with red wax."),
    (_known(via="told", source="ada"), "Maren, Ada told me that Elias sealed the letter with red wax."),
    (_known(via="told", source="maren"), "Maren, you told me yourself that Elias sealed the letter with red wax."),
    (_known(via="told", source="ada", overheard=True), "Maren, I heard Ada say that Elias sealed the letter with red wax."),
    # said by Maren to another, heard by the speaker: not "you told me yourself"
    (_known(via="told", source="maren", overheard=True), "Maren, I heard you say that Elias sealed the letter with red wax."),
    (_known(via="read", source="letter"), "Maren, I read in"),
    (_known(holders=("maren",)), "Maren, you know it as well as I do: Elias sealed"),
    (_known(text="Tobin finds a sealed letter in the coat of the drowned keeper."), "Maren, I found a sealed letter"),
])
def test_the_floor_says_where_the_speaker_learned_it(tiny, known, opening):
    line = render.floor(tiny, Speech(act="tell", to="maren", carries=(known,)), "tobin", now=3)
    assert line.startswith(opening), line
    assert not lines.problems(line, names=render.world_names(tiny), speaker="Tobin", addressee="Maren")


def test_plain_lines_are_not_said_twice_and_an_optional_one_can_stay_unsaid(tiny):
    ask = Speech(act="ask", to="maren")
    first = render.floor(tiny, ask, "tobin", now=1)
    second = render.floor(tiny, ask, "tobin", now=1, avoid=[first])
    assert first != second
    every = [render.floor(tiny, ask, "tobin", now=n) for n in range(len(render.TEMPLATES["en"]["ask"]))]
    assert render.floor(tiny, ask, "tobin", now=1, avoid=every, optional=True) == ""


def _knowledge(**fields) -> Knowledge:
    return Knowledge(**fields)


def test_what_is_on_the_question_answers_it_before_what_is_only_near_it_even_held_by_the_asker(tiny):
    asked = ThreadLine(round=1, speaker="maren", text="Who sealed the letter?", event_id="r0001-00", to="tobin")
    on = _known(record_id=1, score=0.7, holders=("maren",))  # "Elias seals the letter …": Maren holds it
    near = _known(record_id=2, text="Elias went down to the harbour at dusk.", score=0.85)  # she lacks it; no word of it
    speech = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                            _knowledge(heard=(near, on)), addressed=asked)
    assert speech.act == "answer" and [k.record_id for k in speech.carries] == [1], speech


def test_a_question_gets_the_best_holding_the_asker_lacks_else_an_honest_answer(tiny):
    asked = ThreadLine(round=1, speaker="maren", text="Who sealed the letter?", event_id="r0001-00", to="tobin")
    held_by_both = _known(record_id=1, score=0.9, holders=("maren",))
    lacking = _known(record_id=2, text="Elias sealed the letter with black wax at dusk.", score=0.8)
    speech = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                            _knowledge(heard=(held_by_both, lacking)), addressed=asked)
    assert speech.act == "answer" and [k.record_id for k in speech.carries] == [2]
    # a holding on the letter that is not its sealing does not answer who sealed it
    other = _known(record_id=3, text="Elias writes a letter about Silas's order.", score=0.8)
    speech = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                            _knowledge(heard=(held_by_both, other)), addressed=asked)
    assert 3 not in [k.record_id for k in speech.carries], speech
    nothing = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                             _knowledge(heard=(_known(score=0.1),)), addressed=asked)
    assert nothing.act == "unknown" and not nothing.carries  # nothing relevant: "I do not know", never a guess
    both = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                          _knowledge(heard=(held_by_both,)), addressed=asked)
    assert both.act == "answer" and both.carries == (held_by_both,)  # "you know it as well as I do: ..."
    told = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                          _knowledge(heard=(held_by_both,), told=(1,)), addressed=asked)
    assert told.act == "answer" and told.again and told.carries == (held_by_both,)  # "As I said, …": asked again
    further = _known(record_id=3, text="Elias hid the sealed letter under the lamp.", score=0.45)
    beyond = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                            _knowledge(heard=(held_by_both, further), told=(1,)), addressed=asked)
    assert beyond.act == "answer" and beyond.carries == (further,)  # what else it holds about it, before "all I know"
    aside = _known(record_id=4, text="Silas darkened the lamp at the harbour.", score=0.45)
    off = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                         _knowledge(heard=(held_by_both, aside), told=(1,)), addressed=asked)
    assert off.act == "answer" and off.again and off.carries == (held_by_both,)  # near in recall but not about it
    # what the asker told it is no news to the asker, though the asker's own record of it is kept apart (seen
    # playing curragh: asked about the shoeing it had told her, the farrier gave her own words back)
    hers = _known(record_id=5, text="Elias sealed the letter with black wax at dusk.", score=0.8, via="told",
                  source="maren")
    what = ThreadLine(round=1, speaker="maren", text="What became of the letter?", event_id="r0001-00", to="tobin")
    again = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"),
                           _knowledge(heard=(held_by_both, hers), told=(1,)), addressed=what)
    assert again.act == "answer" and again.again and again.carries == (held_by_both,), again
    # an interviewer (nobody of the world) lacks what was seen, which nobody told
    seen = _known(record_id=6, text="Elias sealed the letter with black wax at dusk.", score=0.9)
    heard_of = _known(record_id=7, text="Elias hid the letter under the lamp.", score=0.8, via="told", source="ada")
    put = ThreadLine(round=1, speaker="interviewer", text="What became of the letter?", event_id="i", to="tobin")
    asked_so = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to=None),
                              _knowledge(heard=(seen, heard_of)), addressed=put)
    assert asked_so.act == "answer" and asked_so.carries == (seen,) and not asked_so.again, asked_so


def test_a_kept_deed_of_ones_own_is_refused_and_never_told(tiny):
    sim = session.new_simulation(tiny, "arrival", Settings(seed=0), None, embedder=HashEmbedder())
    sim.store.remember("silas", ["Silas darkened the lamp and wrecked the ship."], round=-3, via="witnessed",
                       actors=("silas",))
    sim.store.remember("silas", ["Somebody wrecked the ship on the rocks."], round=-3, via="witnessed")
    held = sim.store.held_by("silas")
    guilty = next(r for r in held if "darkened" in r.text)
    untyped = next(r for r in held if "Somebody" in r.text)
    # what a keep-it-hidden goal is about (the store's relevance of the deed to it) decides, never its words
    assert content.keep_to_self(tiny, "silas", held) == {}
    secrets = content.keep_to_self(tiny, "silas", held, {guilty.id: 0.5, untyped.id: 0.9})
    assert secrets == {guilty.id: ()}  # a record with no typed doer is nobody's deed to keep
    asked = ThreadLine(round=1, speaker="maren", text="Who wrecked the ship?", event_id="r0001-00", to="silas")
    known = _known(record_id=guilty.id, text=guilty.text, via="witnessed", score=0.9)
    speech = content.choose(tiny, "silas", "answer", Say(actor="silas", text="", to="maren"),
                            _knowledge(heard=(known,), secrets=secrets), addressed=asked)
    assert speech.act in ("refuse", "lie") and not speech.carries
    chat = content.choose(tiny, "silas", "beat", Say(actor="silas", text="", to="maren"),
                          _knowledge(beat=(known,), secrets=secrets), addressed=None)
    assert chat is None or not chat.carries


def test_a_deed_the_world_file_marks_secret_is_kept(tiny):
    world = World(msgspec.structs.replace(tiny.file, agent=[
        msgspec.structs.replace(a, secrets=["t01"]) if a.id == "silas" else a for a in tiny.file.agent]))
    sim = session.new_simulation(world, "arrival", Settings(seed=0), None, embedder=HashEmbedder())
    held = sim.store.held_by("silas")
    told = next(r for r in held if r.event_id == "t01")
    assert told.actors == ("silas",)  # typed where it was born: the canon event's actors
    assert content.keep_to_self(world, "silas", held) == {told.id: ()}


def test_chat_with_nothing_to_carry_is_left_unsaid_and_a_goal_asks_in_its_own_words(tiny):
    say = Say(actor="tobin", text="", to="maren")
    assert content.choose(tiny, "tobin", "chat", say, _knowledge(), addressed=None) is None
    # a beat with nothing to tell about it is no reason for a plain "what news?"
    assert content.choose(tiny, "tobin", "beat", say, _knowledge(), addressed=None) is None
    beat = _known(record_id=9, text="Elias seals the letter with red wax.", score=0.1)
    assert content.choose(tiny, "tobin", "beat", say, _knowledge(beat=(beat,)), addressed=None) is None
    asking = content.choose(tiny, "tobin", "chat", say, _knowledge(questions=("Do you know who took the letter?",)),
                            addressed=None)
    assert asking.act == "ask" and render.floor(tiny, asking, "tobin", now=1) == "Maren, do you know who took the letter?"
    lead = ActOn(actor="tobin", verb="lead", target="maren", place="tavern")
    assert content.choose(tiny, "tobin", "lead", lead, _knowledge(), addressed=None).act == "lead"


class _Model:
    """A unit-test double that always phrases a line the same way."""

    def __init__(self, line):
        self.line = line
        self.calls = 0

    def complete_json(self, messages, schema, **kwargs):
        self.calls += 1
        return {"line": self.line}, Completion(text="", prompt_tokens=50, completion_tokens=12)


def _speech_context(tiny, agent="tobin"):
    state = session.initial_state(tiny, "arrival")
    knowledge = Knowledge(vocabulary=frozenset(content.keys("Elias seals the letter with red wax.")))
    return DecisionContext(agent=agent, perception=perceive(tiny, state, agent), shortterm=ShortTerm(), recalled=(),
                           seed=1, knowledge=knowledge)


@pytest.mark.parametrize(("phrasing", "kept"), [
    ("Maren, I saw Elias seal the letter with red wax myself.", True),  # the same facts in other words
    ("Maren, I saw Captain Hask seal the letter with red wax.", False),  # a name nobody knows
    ("Maren, I saw Elias seal the letter with red wax, then burn the harbour down.", False),  # a fact added
    ("Maren, Maren, Maren, Maren, Maren.", False),  # garbage
    ("Maren, I saw it myself.", False),  # the content lost
    ("Maren, I saw the red wax seal Elias with the letter.", False),  # the same words, another sense
    ("Maren, I saw it myself: Elias, the letter with red wax.", False),  # the deed lost, the words kept
])
def test_a_phrasing_stands_only_when_it_still_says_the_floor_and_nothing_more(tiny, phrasing, kept):
    context = _speech_context(tiny)
    speech = Speech(act="tell", to="maren", carries=(_known(),))
    floor = render.floor(tiny, speech, "tobin", now=1)
    model = _Model(phrasing)
    text, rendered, why, costs = words.write(model, tiny, context, speech, floor)
    assert model.calls == 1 and costs["prompt_tokens"] == 50
    if kept:
        assert (text, rendered, why) == (phrasing, False, "")
    else:
        assert (text, rendered) == (floor, True) and why  # the floor is spoken, and why is said


def test_a_phrasing_may_not_name_anyone_its_floor_does_not(tiny):
    """'Have you heard anything new from Tobin?' said by Tobin: the speaker in the third person, a new who."""
    context = _speech_context(tiny)
    speech = Speech(act="ask", to="maren")
    floor = render.floor(tiny, speech, "tobin", now=1)
    for phrasing in ("Maren, have you heard anything new from Tobin?", "Maren, have you heard anything of Silas?"):
        text, rendered, why, _ = words.write(_Model(phrasing), tiny, context, speech, floor)
        assert (text, rendered) == (floor, True) and "added a name" in why


def test_an_i_do_not_know_may_not_be_phrased_into_a_fact(tiny):
    context = _speech_context(tiny)
    speech = Speech(act="unknown", to="maren")
    floor = render.floor(tiny, speech, "tobin", now=1)
    text, rendered, _, _ = words.write(_Model("Maren, I do not know, but Silas drowned the keeper."), tiny, context,
                                       speech, floor)
    assert rendered and text == floor


def test_what_news_is_answered_with_news_and_where_someone_went_only_asked_where(tiny):
    say = Say(actor="tobin", text="", to="maren")
    news = content.choose(tiny, "tobin", "answer", say, _knowledge(moment=(_known(record_id=5, score=0.4),)),
                          addressed=ThreadLine(round=1, speaker="maren", text="What news?", event_id="r0001-00"))
    assert news.act == "answer" and news.carries[0].record_id == 5
    went = _known(record_id=6, text="Ada went from The harbour to The Gull tavern.", mechanical=True, score=0.9)
    idle = content.choose(tiny, "tobin", "answer", say, _knowledge(heard=(went,)),
                          addressed=ThreadLine(round=1, speaker="maren", text="Is Ada well?", event_id="r0001-00"))
    assert not idle.carries
    where = content.choose(tiny, "tobin", "answer", say, _knowledge(heard=(went,)),
                           addressed=ThreadLine(round=1, speaker="maren", text="Where is Ada?", event_id="r0001-00"))
    assert where.carries == (went,)


def test_a_first_name_alone_names_its_person_and_a_title_does_not(tiny):
    """'Kasimir forced the lock' is Kasimir Dole's deed; 'King' of 'King Hamlet' is also a plain word, no name."""
    world = World(msgspec.structs.replace(tiny.file, agent=[
        msgspec.structs.replace(a, name="Kasimir Dole", pronouns="he") if a.id == "silas" else a
        for a in tiny.file.agent]))
    assert render.first_names(world).get("Kasimir") == "silas"
    assert render.point_of_view(world, "Kasimir forced the lock and hid his tools.", "silas", "maren") == \
        "I forced the lock and hid my tools."
    hamlet = load_world(BUNDLED_WORLDS / "hamlet.toml")
    assert "King" not in render.first_names(hamlet)


def test_a_secret_is_shared_with_whom_a_goal_means_to_share_it_with(hamlet):
    goal = "Get Horatio to see the apparition with his own eyes"
    assert content._ally(hamlet, goal, "horatio")
    assert not content._ally(hamlet, "Find out what is troubling Hamlet", "hamlet")


def test_what_a_goal_means_to_tell_someone_is_kept_for_them(hamlet):
    sim = session.new_simulation(hamlet, "opening", Settings(seed=0, player="horatio"), None, embedder=HashEmbedder())
    held = sim.store.held_by("ghost")
    murder = next(r for r in held if "murdered" in r.text)
    assert content.keep_to_self(hamlet, "ghost", held)[murder.id] == ("hamlet",)  # "Tell Hamlet the truth…"


def test_a_statement_opening_with_a_name_keeps_its_capital_after_a_colon():
    """'He Jin was made Regent Marshal' is not 'he Jin was…': a name that starts like a pronoun is a name."""
    world = load_world(BUNDLED_WORLDS / "three_kingdoms.toml")
    assert render.clause("He Jin was made Regent Marshal.", world) == "He Jin was made Regent Marshal"
    assert render.clause("He was made Regent Marshal.", world) == "he was made Regent Marshal"
    assert render.clause("The figure walked.") == "the figure walked"
    # people the world's texts name who do not take part keep theirs too; common words do not
    assert render.clause("Liu Yan is calling for volunteers.", world) == "Liu Yan is calling for volunteers"
    assert render.clause("Ma Yuanyi was caught.", world) == "Ma Yuanyi was caught"
    assert render.clause("Somebody scratched the lock.", world) == "somebody scratched the lock"


def test_a_goal_said_to_the_one_it_names_as_an_owner_says_your(hamlet):
    said = render.floor(hamlet, content.Speech(act="answer", to="hamlet", intent="I mean to tell Hamlet's story truly."),
                        "horatio", now=3)
    assert said == "Hamlet, I mean to tell your story truly."


@pytest.mark.parametrize(("verb", "past"), [("admit", "admitted"), ("greet", "greeted"), ("strike", "struck"),
                                            ("cry", "cried"), ("offer", "offered"), ("zork", "zorked")])
def test_the_past_of_a_verb(verb, past):
    assert kernel_verbs.past(verb) == past


def test_two_speakers_in_one_round_say_different_plain_lines_and_no_news_is_not_ignorance(tiny):
    """Deciding at once, neither hears the other: their plain lines still differ; 'what news?' gets 'no news'."""
    ask = Speech(act="ask", to="maren")
    speakers = [a for a in tiny.agents if a != "maren"]
    room = tuple(tiny.agents)
    before = {render.floor(tiny, ask, s, now=3, present=room) for s in speakers}
    assert len(before) == len(speakers)
    # nor a line one of them said there the round before, which they all heard
    said = {render.floor(tiny, ask, s, now=4, present=room, overheard=sorted(before)) for s in speakers}
    assert len(said) == len(speakers) and not said & before
    no_news = render.floor(tiny, Speech(act="unknown", to="maren", news=True), "tobin", now=1)
    unknown = render.floor(tiny, Speech(act="unknown", to="maren"), "tobin", now=1)
    assert no_news.split(", ", 1)[1] in {t for t in render.TEMPLATES["en"]["no_news"]}
    assert unknown.split(", ", 1)[1] in set(render.TEMPLATES["en"]["unknown"])


def test_a_pronoun_is_the_speakers_when_only_the_speaker_could_be_meant():
    """Ophelia says 'Hamlet … swore he loved me', not '…loved her'; where two of one sex are named, no guess."""
    world = load_world(BUNDLED_WORLDS / "hamlet.toml")
    text = "Hamlet gave Ophelia letters and gifts, and swore he loved her."
    assert render.point_of_view(world, text, "ophelia", "polonius") == \
        "Hamlet gave me letters and gifts, and swore he loved me."
    assert render.point_of_view(world, text, "polonius", "ophelia") == \
        "Hamlet gave you letters and gifts, and swore he loved you."
    assert render.point_of_view(world, "Gertrude told Ophelia that she loved her son.", "ophelia", "polonius") == \
        "Gertrude told me that she loved her son."
    assert render.point_of_view(world, "Claudius poisoned Hamlet and took his crown.", "hamlet", "horatio") == \
        "Claudius poisoned me and took his crown."


def test_every_plain_question_is_a_question_about_nothing_in_particular():
    """The renderer's own 'what news?' lines are answered with news (or 'no news'), never 'I know nothing of that'."""
    for line in render.TEMPLATES["en"]["ask"]:
        assert content.is_question(line) and not content.keys(line), line


def test_a_title_one_takes_stays_a_title_and_a_reflexive_is_the_speakers():
    world = load_world(BUNDLED_WORLDS / "three_kingdoms.toml")
    said = render.point_of_view(world, "Zhang Jue proclaimed himself Lord of Heaven General.", "zhang-jue", "li-ru",
                                past=True)
    assert said == "I proclaimed myself Lord of Heaven General."


def test_a_reflexive_after_you_in_a_later_clause_is_yours():
    # seen playing the ski lodge: "…; you checked it herself at midnight", said to Hanna of what she did
    world = load_world(REPO / "docs" / "results" / "agency" / "heldout7" / "ferry.toml")
    said = render.point_of_view(world, "The back door was bolted all night; Hanna Walch checked it herself at midnight.",
                                "rudi", "hanna", past=True)
    assert said == "The back door was bolted all night; you checked it yourself at midnight."


def test_the_renderers_plain_lines_assert_nothing_a_speaker_must_hold():
    """'All is quiet, as far as I know' is grounded whatever the speaker holds: its words are words of speaking."""
    for kind, options in render.TEMPLATES["en"].items():
        for line in options:
            assert not content.line_keys(re.sub(r"\{\w+\}", "", line)), (kind, line)


def test_an_unasked_telling_that_would_echo_what_was_just_said_here_tells_something_else(tiny):
    """Barnardo does not retell, in the same words, what Marcellus just said in his hearing: he tells another holding."""
    from storyworld.minds import LLMMind
    from storyworld.minds.choice import Plan

    first = _known(record_id=1, text="Elias seals the letter with red wax.", score=0.9)
    second = _known(record_id=2, text="Silas darkened the lamp at the harbour.", score=0.8)
    context = _speech_context(tiny)
    echoed = render.floor(tiny, Speech(act="tell", to="maren", carries=(first,)), "tobin", now=1)
    said_here = ThreadLine(round=0, speaker="silas", text=echoed.replace("Maren,", "Ada,"), event_id="r0000-00")
    context = msgspec.structs.replace(
        context, knowledge=_knowledge(moment=(first, second), vocabulary=context.knowledge.vocabulary),
        perception=msgspec.structs.replace(context.perception, recent_talk=(said_here,)))
    plan = Plan(action=Say(actor="tobin", text="", to="maren"), purpose="chat", chosen_by="model")
    action, rendered, _, _ = LLMMind(None).speak(tiny, context, plan)
    assert rendered and [t.record for t in action.tells] == [2], action.text
    alone = msgspec.structs.replace(context, perception=msgspec.structs.replace(context.perception, recent_talk=()))
    action, _, _, _ = LLMMind(None).speak(tiny, alone, plan)
    assert [t.record for t in action.tells] == [1]  # nothing said here yet: the best holding


def test_my_father_is_asked_as_the_person_the_personas_say_he_is():
    """Wren's 'my father' is Abel Marr ('Wren's father' in his persona) when Maud turns it to her memory."""
    world = load_world(REPO / "docs" / "results" / "speech" / "harbour.toml")
    assert content.as_asked(world, "Did my father leave anything with you?", "wren", "maud") == \
        "Did Abel Marr leave anything with Maud Tregear?"
    assert content.kin(world, "wren", "father") == "abel" and content.kin(world, "wren", "mother") is None
    assert content.as_asked(world, "What did my brother say?", "wren", "maud") == "What did Wren Marr's brother say?"


def test_a_phrasing_that_says_a_place_twice_over_is_refused():
    """'…to the Crow's Gate on foot by the pass road by the Crow's Gate': a stutter, whatever the place's name."""
    world = load_world(REPO / "docs" / "results" / "speech" / "mountain_pass.toml")
    ysolde = next(a for a, agent in world.agents.items() if "Ysolde" in agent.name)
    sabine = next(a for a, agent in world.agents.items() if "Sabine" in agent.name)
    state = session.initial_state(world, next(iter(world.starts)))
    context = DecisionContext(agent=ysolde, perception=perceive(world, state, ysolde), shortterm=ShortTerm(),
                              recalled=(), seed=1,
                              knowledge=Knowledge(vocabulary=frozenset(content.keys(
                                  "Sister Ysolde came down to the Crow's Gate on foot by the pass road."))))
    known = _known(text="Sister Ysolde came down to the Crow's Gate on foot by the pass road.", via="witnessed")
    speech = Speech(act="answer", to=sabine, carries=(known,))
    floor = render.floor(world, speech, ysolde, now=3)
    stutter = "Sabine Dace, I came down to the Crow's Gate on foot by the pass road by the Crow's Gate."
    assert "degenerate" in words.check(world, context, speech, floor, stutter)


def test_a_question_about_someone_names_them_as_the_asker_knows_them():
    """Greta knows 'Doctor Lisle', not the persona's full 'Anselm Lisle': she asks after him by that name."""
    world = load_world(REPO / "docs" / "results" / "speech" / "mountain_pass.toml")
    lisle = next(a for a, agent in world.agents.items() if agent.name == "Anselm Lisle")
    known = _known(text="Doctor Lisle joined Orvan Dace's caravan at Brask.", score=0.6)
    speaker = next(a for a in world.agents if a != lisle)
    found = content.topics(world, speaker, None, _knowledge(moment=(known,)))
    assert "Doctor Lisle" in found and "Anselm Lisle" not in found
    assert lisle not in found


def test_two_plain_lines_to_one_listener_are_never_parrots_of_each_other(tiny):
    """Said at once to one listener ('Liu Bei, what news?' / 'Liu Bei, what is the word here?'), no two plain
    questions or greetings share half their trigrams: the vocative alone does not make a parrot."""
    for kind in ("ask", "greet", "no_news", "unknown", "told_all"):
        said = [render._with_vocative(tiny, "maren", line, "en") for line in render.TEMPLATES["en"][kind]]
        for i, line in enumerate(said):
            assert not lines.parrots(line, said[:i] + said[i + 1:]), (kind, line)


@pytest.mark.parametrize(("loose", "opening"), [
    ("unsure", "Maren, I cannot say for sure, but I saw it myself: Elias sealed"),
    ("unknown", "Maren, I do not know that; what I can tell you is this. I saw it myself: Elias sealed"),
    ("only", "Maren, what I can tell you is this. I saw it myself: Elias sealed"),
    ("", "Maren, I saw it myself: Elias sealed"),
])
def test_an_answer_near_the_question_only_in_meaning_says_so(tiny, loose, opening):
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(_known(),), loose=loose), "tobin", now=3)
    assert line.startswith(opening), line


@pytest.mark.parametrize(("question", "loose"), [
    ("Will the boat come tomorrow?", "unsure"), ("Where did you find the purse?", "unknown"),
    ("Tell me plainly what you saw.", "only"),
])
def test_how_loose_an_answer_is_comes_from_the_question_shape(tiny, question, loose):
    addressed = ThreadLine(round=2, speaker="maren", text=question, event_id="x", to="tobin")
    assert content._loose(tiny, _known(), content.keys(question), addressed) == loose
    on_it = _known(text="Maren saw the boat and the purse tomorrow what plainly.")
    assert content._loose(tiny, on_it, content.keys(question), addressed) == ""


def test_a_whole_name_after_a_capitalised_word_is_still_the_person():
    from storyworld.world import load_world
    from tests.support.paths import MILL

    mill = load_world(MILL)
    said = render.point_of_view(mill, "On Saturday Bettany Crewe saw Odo Quenby drag the sacks.", "reeve", "bettany")
    assert said == "On Saturday you saw Odo Quenby drag the sacks."


def test_where_is_one_asked_after_places_that_one_not_another_the_record_names(tiny):
    # "Where is Ada now?" answered from a record of Silas and Ada: the line places Ada (kessaran: asked where
    # Karma was, the porter answered where Isolde was)
    known = _known(text="Silas and Ada argue on the quay.", actors=("silas", "ada"), place="harbour", round=2)
    asked = render.floor(tiny, Speech(act="answer", to="maren", carries=(known,), focus="where", about="ada"),
                         "tobin", now=3)
    assert "Ada" in asked and "Silas" not in asked, asked
    plain = render.floor(tiny, Speech(act="answer", to="maren", carries=(known,), focus="where"), "tobin", now=3)
    assert "Silas" in plain, plain


def test_a_name_opening_the_line_after_the_vocative_keeps_its_capital_before_a_comma(hamlet):
    said = render._with_vocative(hamlet, "hamlet", "Barnardo, seeing me pale and trembling, asks what it was.", "en")
    assert said == "Hamlet, Barnardo, seeing me pale and trembling, asks what it was.", said
    assert render._with_vocative(hamlet, "hamlet", "The ghost walks.", "en") == "Hamlet, the ghost walks."


def test_the_places_a_text_names_by_the_worlds_names():
    from tests.support.paths import TOLLBRIDGE

    world = load_world(TOLLBRIDGE)
    assert render.places_in(world, "Heavy wheels ground across the bridge at night.") == {"bridge"}
    assert render.places_in(world, "He waited at the ferry steps and then went to the toll house.") == {
        "ferry-steps", "toll-house"}
    assert render.places_in(world, "Fresh ruts at the quarry road end.") == {"quarry-road"}
    assert render.places_in(world, "He climbed the steps.") == {"ferry-steps"}  # the one place whose name ends so
    assert render.places_in(world, "He crossed the field to the mill.") == set()  # no place of this world


def test_asked_who_told_it_of_its_own_words_it_says_it_said_them(tiny):
    own = _known(text="Tobin said the lamp had gone out.", via="witnessed", said_by="tobin", round=1)
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(own,), focus="source"), "tobin", now=3)
    assert line == "Maren, those are my own words; I said so 2 rounds ago.", line
    seen = _known(text="Ada lit the lamp.", via="witnessed", said_by=None, round=1)
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(seen,), focus="source"), "tobin", now=3)
    assert "with my own eyes" in line, line
    placed = _known(text="Ada lit the lamp.", via="witnessed", said_by=None, round=1, place="harbour")
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(placed,), focus="source"), "tobin", now=3)
    assert line == f"Maren, I saw it with my own eyes, at {render.inline(tiny.places['harbour'].name)}, 2 rounds ago; " \
                   "nobody had to tell me.", line


def test_a_record_opening_with_he_is_said_with_its_typed_doer(hamlet):
    # a statement split from "Marcellus explains that …, so he has brought him to watch: …", held by Horatio
    known = Known(record_id=46, text="He has brought him to watch: if it comes, Horatio can see it and speak to it.",
                  kind="utterance", via="witnessed", source=None, confidence=1.0, round=1, score=0.6,
                  actors=("marcellus",))
    said = render.say_known(hamlet, "horatio", "hamlet", known, now=5)
    assert said.startswith("Marcellus has brought him to watch"), said
    assert "I can see it" in said and "I has" not in said, said


def test_a_name_the_world_does_not_cast_keeps_its_capital_after_the_vocative():
    from tests.support.paths import BUNDLED_WORLDS

    kingdoms = load_world(BUNDLED_WORLDS / "three_kingdoms.toml")
    said = render._with_vocative(kingdoms, "emperor-xian", "Ma Yuanyi was executed in Luoyang.", "en")
    assert said == "Emperor Xian, Ma Yuanyi was executed in Luoyang.", said
    assert render._with_vocative(kingdoms, "emperor-xian", "The rebels wore yellow.", "en").startswith(
        "Emperor Xian, the rebels")


def test_what_one_teller_told_says_their_own_words_once_and_what_they_told_with_that(tiny):
    own = _known(record_id=2, text="Ada told Tobin the lamp was lit at dusk.", kind="utterance", via="sediment",
                 source="ada", actors=("ada", "tobin"), round=1)
    other = _known(record_id=3, text="Elias sealed the letter with red wax.", via="told", source="ada", round=2)
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(own, other)), "tobin", now=3)
    assert line == "Maren, Ada told me the lamp was lit at dusk; and that Elias sealed the letter with red wax.", line
    both = render.floor(tiny, Speech(act="answer", to="maren", carries=(other, own)), "tobin", now=3)
    assert both.startswith("Maren, Ada told me that Elias sealed the letter with red wax; and she told me"), both
    assert "told me that she told me" not in both


@pytest.mark.parametrize(("line", "wrong"), [
    ("Maren, I heard Ada said that Elias sealed the letter.", True),
    ("Maren, I heard Ada say that Elias sealed the letter.", False),
    ("Maren, I saw Silas cut the rope.", False),  # "cut" is its own bare form
    ("Maren, Ada said that Elias sealed the letter.", False),
])
def test_a_past_form_where_the_bare_verb_belongs_is_bad_grammar(tiny, line, wrong):
    assert words._past_after_perception(tiny, line) is wrong


def test_asked_who_told_it_what_the_asker_said_to_another_it_heard_them_say_it(tiny):
    heard = _known(text="Ada lit the lamp.", via="told", source="maren", overheard=True, since_round=1)
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(heard,), focus="source"), "tobin", now=3)
    assert line == "Maren, I heard you say it, 2 rounds ago.", line
    told = _known(text="Ada lit the lamp.", via="told", source="maren", since_round=1)
    line = render.floor(tiny, Speech(act="answer", to="maren", carries=(told,), focus="source"), "tobin", now=3)
    assert line == "Maren, you told me yourself, 2 rounds ago.", line


def test_who_told_you_a_matter_is_on_that_matter_not_on_the_last_answer(tiny):
    from storyworld.minds import questions

    asked = ThreadLine(round=2, speaker="maren", text="Who told you the letter was sealed with red wax?",
                       event_id="r0002-00", to="tobin")
    on_it = _known(record_id=1, via="told", source="ada", score=0.7)  # "Elias seals the letter with red wax."
    # the last answer names the letter too, but not its sealing nor the wax
    last = _known(record_id=2, text="Elias took the letter down to the harbour at dusk.", via="told", source="silas",
                  score=0.3)
    knowledge = _knowledge(heard=(on_it, last), previous=(last,),
                           asked=questions.read_question(tiny, asked.text, "maren", "tobin"))
    speech = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"), knowledge,
                            addressed=asked)
    assert [k.record_id for k in speech.carries] == [1], speech
    # "Who told you?" with no matter named is on the last answer
    bare = msgspec.structs.replace(asked, text="Who told you that?")
    knowledge = msgspec.structs.replace(knowledge, asked=questions.read_question(tiny, bare.text, "maren", "tobin"))
    speech = content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"), knowledge, addressed=bare)
    assert [k.record_id for k in speech.carries] == [2], speech


@pytest.mark.parametrize(("body", "said"), [
    ("that Horatio told Marcellus the news.", "that he told Marcellus the news."),
    ("Marcellus told Horatio the news.", "Marcellus told him the news."),
    # before a verb in the past a name is its subject, whatever precedes it ("pour" also reads as a verb)
    ("a week before the pour Horatio counted the copper.", "a week before the pour he counted the copper."),
])
def test_the_teller_named_in_what_they_told_is_said_by_pronoun(hamlet, body, said):
    assert render._pronoun_for(hamlet, body, "horatio") == said


def test_a_long_line_is_said_back_by_what_it_was_about_and_her_niece_is_yours(tiny):
    long = ("That night Maren left her niece minding the lamp and went down the quay steps with a basket of bread for "
            "the widow, and as she passed the chandlery Silas was crouched by the harbour wall with a lantern.")
    told = Speech(act="answer", to="maren", carries=(_known(via="told", source="ada"),), heard=True, echo=long)
    line = render.floor(tiny, told, "tobin", now=3)
    assert line.startswith("Maren, what you tell me of Silas — that is news to me; and Ada told me"), line
    reacted = render.floor(tiny, Speech(act="react", to="maren", echo=long), "tobin", now=1)
    assert reacted == "Maren, what you tell me of Silas — that is news to me, truly.", reacted  # it runs on
    assert render.point_of_view(tiny, "Maren left her niece on the quay.", "tobin", "maren") == \
        "You left your niece on the quay."
    assert render.point_of_view(tiny, "Maren left her on the quay.", "tobin", "maren") == "You left her on the quay."
    # a name after an opener at the start of the sentence is its clause's subject
    assert render.point_of_view(tiny, "When Maren had gone home, Ada lit the lamp.", "maren", "tobin") == \
        "When I had gone home, Ada lit the lamp."


def test_news_taken_in_is_said_back_before_the_hearers_own_word_on_it(tiny):
    told = Speech(act="answer", to="maren", carries=(_known(via="told", source="ada"),), heard=True,
                  echo="Maren saw a lantern on the quay at midnight.")
    line = render.floor(tiny, told, "tobin", now=3)
    assert line.startswith("Maren, you saw a lantern on the quay at midnight — that is news to me; and Ada told me"), line


def test_a_backstory_round_is_said_as_before_all_this_not_in_rounds(tiny):
    assert render.ago(tiny, -11, 1) == "before all this"
    assert render.ago(tiny, 0, 3) == "3 rounds ago" and render.ago(tiny, 2, 3) == "a round ago"


def _asked(tiny, question: str, *held: Known):
    """Tobin's reply to Maren's question, holding `held`."""
    line = ThreadLine(round=1, speaker="maren", text=question, event_id="r0001-00", to="tobin")
    return content.choose(tiny, "tobin", "answer", Say(actor="tobin", text="", to="maren"), _knowledge(heard=held),
                          addressed=line)


def test_a_word_of_time_alone_does_not_make_a_holding_an_answer(tiny):
    lamp = "What have you heard about a lamp in the boathouse on Friday night?"
    night_only = _known(record_id=4, text="Elias walked to the harbour on the night of the storm.", score=0.45)
    speech = _asked(tiny, lamp, night_only)
    assert speech.act == "unknown" and not speech.carries, speech
    on_it = _known(record_id=5, text="Elias left a lamp burning in the boathouse.", score=0.45)
    speech = _asked(tiny, lamp, night_only, on_it)
    assert [k.record_id for k in speech.carries] == [5], speech
    # nor does a word of seeing: "Did you see Elias in the boathouse?" is not answered by something else he saw
    saw_else = _known(record_id=6, text="Maren saw Elias seal a letter with red wax.", score=0.45)
    speech = _asked(tiny, "Did you see Elias in the boathouse on Friday night?", saw_else)
    assert speech.act == "unknown" and not speech.carries, speech


def test_one_the_world_calls_they_says_their_own_they_and_their_as_i_and_my():
    from storyworld.world import load_world

    from tests.support.paths import DATA

    world = load_world(DATA / "worlds" / "tollbridge.toml")  # Kalani Reyes: pronouns "they"
    said = render.point_of_view(world, "Kalani Reyes said the toll had their brother turned off the bridge gang, and they "
                                       "were glad of it.", "kalani", "yusuf")
    assert said == "I said the toll had my brother turned off the bridge gang, and I was glad of it.", said
    told = render.point_of_view(world, "Halvard Skeie said Kalani Reyes had sworn revenge over their brother and was seen "
                                       "on the bridge.", "yusuf", "kalani")
    assert told == "Halvard Skeie said you had sworn revenge over your brother and were seen on the bridge.", told


def test_a_copula_is_no_deed_a_who_question_asks_after():
    # "Who stood by the gate?" asks for the doer of a standing; "Elias was at the harbour" tells no such deed
    assert not content._does("Elias was at the harbour at dusk.", "stood")
    assert content._does("Elias stood by the gate at dusk.", "stood")
