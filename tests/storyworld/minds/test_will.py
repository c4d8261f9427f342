"""Unit tests of the will's pure parts: reading a line into a claim, a question's shape, a goal as a question."""

from __future__ import annotations

import pytest

from storyworld.minds import aims, content, listening, questions, render
from storyworld.world import load_world
from tests.support.paths import MILL


@pytest.fixture(scope="module")
def mill():
    return load_world(MILL)


@pytest.mark.parametrize(("line", "claim", "actors"), [
    ("I saw Odo drag six grain sacks out of the tithe barn at night.",
     "Odo dragged six grain sacks out of the tithe barn at night.", ("odo",)),
    ("Reeve, I saw Odo washing the sacks at the mill.", "Odo was washing the sacks at the mill.", ("odo",)),
    ("Wat told me at the barn that he carted six light sacks to the mill.",
     "Wat Ashby carted six light sacks to the mill.", ("wat",)),
    ("My sacks were swapped for chaff by the miller.", "Bettany Crewe's sacks were swapped for chaff by the miller.",
     ("bettany",)),
    ("Fire burned the tithe barn at night.", "Fire burned the tithe barn at night.", ()),  # a noun, not a bidding
    ("Sack number six was full of chaff.", "Sack number six was full of chaff.", ()),
    ("Take care at the mill: the tithe sacks are full of chaff.", "The tithe sacks are full of chaff.", ()),  # told beside a bidding
    ("When I came to the barn I found my sacks slit open.",
     "When Bettany Crewe came to the barn she found her sacks slit open.", ("bettany",)),  # the name once
    ("I told Tamsin that I saw the sacks at the mill.",
     "Bettany Crewe told Tamsin that Bettany Crewe saw the sacks at the mill.", ("bettany", "tamsin")),
    # "our cart" is the one those here share: no first person is left to make the claim no statement
    ("Our cart went down the lane at ten.", "The cart went down the lane at ten.", ()),
    ("I found our cart in the lane at ten.", "Bettany Crewe found the cart in the lane at ten.", ("bettany",)),
    # a present verb agrees with the one it is now said of; a past stays
    ("The slit sacks are in the shed I keep by the mill.", "The slit sacks are in the shed Bettany Crewe keeps by the mill.",
     ("bettany",)),
    ("I have the slit sacks in the shed.", "Bettany Crewe has the slit sacks in the shed.", ("bettany",)),
    ("I found the slit sacks in the shed.", "Bettany Crewe found the slit sacks in the shed.", ("bettany",)),
    # a contraction is read out in full before the speaker is named ("Bettany Crewe'd been" is no English)
    ("I'd been at the barn at night, and the sacks were slit.",
     "Bettany Crewe had been at the barn at night, and the sacks were slit.", ("bettany",)),
    ("I'd carry the sacks to the mill for Odo.", "Bettany Crewe would carry the sacks to the mill for Odo.",
     ("bettany", "odo")),
    # an initial is no end of a sentence, and a colon that cuts off no bidding stays a colon
    ("The note said: six sacks paid to O. Quenby, two pound. Reeve, who took it?",
     "The note said: six sacks paid to O. Quenby, two pound.", ()),
    # a bare answer with no verb before what it tells is no part of the claim
    ("Not by anyone, Reeve: the sacks were full of chaff.", "The sacks were full of chaff.", ()),
])
def test_a_statement_is_read_into_a_third_person_claim(mill, line, claim, actors):
    reading = listening.read_claim(mill, "bettany", "reeve", line)
    assert reading is not None and reading.text == claim and reading.actors == actors


@pytest.mark.parametrize("line", [
    "Who took the tithe grain?", "Good morning, reeve.", "Thank you.", "I saw him.", "Did Odo swap the sacks",
    "Watch the miller's hands closely.", "When Odo comes back, count the sacks in the barn.",  # biddings
])
def test_questions_greetings_and_stock_lines_assert_nothing(mill, line):
    assert listening.read_claim(mill, "bettany", "reeve", line) is None


@pytest.mark.parametrize(("question", "kind", "people"), [
    ("Who told you that?", "source", ()),
    ("How do you know?", "source", ()),
    ("What did Bettany tell you?", "said_by", ("bettany",)),
    ("What did I tell you?", "said_by", ("wat",)),
    ("What did the man from the county say?", "said_by", ()),  # someone described: nobody it can tell apart
    ("Who told Tamsin the sacks were short?", "open", ()),  # who told another: a who-question, no source one
    ("When was that?", "when", ()),
    ("Where is he now?", "where_now", ("odo",)),
    ("Where is Tamsin?", "where_now", ("tamsin",)),
    ("where is tamsin now?", "where_now", ("tamsin",)),  # typed in lower case
    ("Who first told you the grain was gone?", "source", ()),
    ("what did wat tell you?", "said_by", ("wat",)),
    ("Who took the tithe grain?", "open", ()),
    ("What should we do?", "intent", ()),
    ("Reeve, what will you do now?", "intent", ()),
    ("What do you mean to do about the grain?", "intent", ()),
    ("And what now?", "intent", ()),
    ("What did you do at the barn?", "open", ()),  # a deed done, not one meant
    ("What do you know of the grain?", "open", ()),
])
def test_a_question_is_read_for_its_shape(mill, question, kind, people):
    asked = questions.read_question(mill, question, "wat", "reeve", previous_actors=("odo",))
    assert (asked.kind, asked.people) == (kind, people)


@pytest.mark.parametrize(("question", "matter"), [
    ("What should we do about the eunuchs?", "about the eunuchs"),
    ("Liu Bei, what should we do first against the Yellow Turbans?", "first against the Yellow Turbans"),
    ("What now?", ""),
    ("What will you do?", ""),
])
def test_a_question_of_intent_says_its_matter(question, matter):
    assert questions.intent_matter(question) == matter


@pytest.mark.parametrize(("question", "matter"), [
    ("What did Pia tell you about the fire?", "about the fire"),
    ("What did the sponsor's man say Golden Sheaf would do?", "Golden Sheaf would do"),
    ("What did Pia tell you?", ""),
])
def test_a_question_of_what_one_told_says_its_matter(question, matter):
    assert questions.said_matter(question) == matter


@pytest.mark.parametrize(("question", "matter"), [
    ("Who told you that Ferdinand is in the pay of a London nursery?", "Ferdinand is in the pay of a London nursery"),
    ("Where did you hear that the fire was set?", "the fire was set"),
    ("How do you know the sacks were swapped?", "the sacks were swapped"),
    ("Who told you?", ""),
])
def test_a_question_of_where_one_heard_it_says_its_matter(question, matter):
    assert questions.source_matter(question) == matter


def test_where_is_she_is_nobody_when_the_last_answer_was_about_a_he(mill):
    assert questions.read_question(mill, "Where is she now?", "wat", "reeve", ("odo",)).kind == "open"


@pytest.mark.parametrize(("goal", "pronouns", "question"), [
    ("Find out who took the tithe grain", "she", "Do you know who took the tithe grain?"),
    ("Find out why the sacks he carted felt light", "he", "Do you know why the sacks I carted felt light?"),
    ("Learn what is hidden in her flour store", "she", "Do you know what is hidden in my flour store?"),
    ("Learn the truth", "he", ""),
    ("Find out who lost the second press and see them answer for it", "she", "Do you know who lost the second press?"),
    ("Find out who took the ledger and hid it", "he", "Do you know who took the ledger and hid it?"),
    # a bare verb that is a noun too ("make") bids when an object follows it
    ("Find out who stole her uncle's watch and make them give it back", "she", "Do you know who stole my uncle's watch?"),
])
def test_a_goal_to_find_out_is_asked_in_its_own_words(goal, pronouns, question):
    assert aims.question_of(goal, pronouns) == question


@pytest.mark.parametrize(("goal", "pronouns", "other_at", "said"), [
    ("Serve his elder brother Liu Bei to the death", "he", 25, "I mean to serve my elder brother Liu Bei to the death."),
    ("Tell Hamlet the truth about his murder", "he", 5, "I mean to tell Hamlet the truth about his murder."),  # his: Hamlet's?
    ("Protect her brother from the duke.", "she", None, "I mean to protect my brother from the duke."),
    ("Never break his word", "he", None, "I mean to never break my word."),
])
def test_a_goal_is_said_as_what_its_owner_means_to_do(goal, pronouns, other_at, said):
    assert aims.intent_of(goal, pronouns, other_at) == said


def test_what_one_told_of_a_matter_is_only_what_they_told_of_it():
    from storyworld.minds.content import Known, Knowledge, _follow_up, keys

    fire = Known(record_id=1, text="Vell knocked the lantern into the hay.", kind="claim", via="told", source="pia",
                 since_round=2)
    roof = Known(record_id=2, text="The mill roof leaks over the stones.", kind="claim", via="told", source="pia",
                 since_round=3)
    knowledge = Knowledge(asked=questions.Asked(kind="said_by", people=("pia",)), pointed=(roof, fire))
    everything = _follow_up("reeve", knowledge, keys("What did Pia tell you?"))
    assert [k.record_id for k in everything.carries] == [1, 2]
    lantern = _follow_up("reeve", knowledge, keys("What did Pia tell you about the lantern?"), keys("the lantern"))
    assert [k.record_id for k in lantern.carries] == [1]
    boat = _follow_up("reeve", knowledge, keys("What did Pia tell you about the boat?"), keys("the boat"))
    assert boat.act == "unknown" and not boat.carries


def test_who_told_you_is_on_the_holding_that_says_most_of_what_was_named_not_the_last_answer():
    from storyworld.minds.content import Known, Knowledge, _follow_up, keys

    denial = Known(record_id=1, text="Anton Wimmer said he measured every prop to the roof himself.", kind="claim",
                   via="told", source="anton", score=0.7)
    smear = Known(record_id=2, text="The timberman cut the props short and never wedged them.", kind="claim",
                  via="told", source="florian", score=0.6)
    knowledge = Knowledge(asked=questions.Asked(kind="source"), heard=(denial, smear), previous=(denial,))
    said = _follow_up("resi", knowledge, keys("Who told you Anton left the props short?"),
                      keys("Anton left the props short") - keys("Anton"))
    assert [k.record_id for k in said.carries] == [2]
    # asked only "Who told you?", the last answer is what it rests on
    plain = _follow_up("resi", knowledge, keys("Who told you?"), set())
    assert [k.record_id for k in plain.carries] == [1]


def test_nobody_is_told_their_own_news_back_unasked():
    from storyworld.minds.content import Known, Knowledge, _tellable

    news = Known(record_id=1, text="On fair night Amelia was last to bolt the hall.", kind="claim", via="told",
                 source="henrique", tellers=("amelia", "henrique"))
    knowledge = Knowledge(news=(news,))
    assert not _tellable(news, "amelia", knowledge)  # she said it first
    assert not _tellable(news, "henrique", knowledge)  # he told it here
    assert _tellable(news, "vasco", knowledge)
    assert _tellable(news, "amelia", knowledge, asked=True)  # asked, it may say it back


@pytest.mark.parametrize(("question", "asker", "answerer", "statement"), [
    ("Did you swap the sacks?", "wat", "odo", "Odo Quenby swapped the sacks."),
    ("Reeve, have you counted my sacks?", "bettany", "reeve", "Ysmay Hollin has counted Bettany Crewe's sacks."),
    ("Are you ready?", "wat", "odo", "Odo Quenby is ready."),
    ("Does Odo drink at the fair?", "wat", "reeve", "Odo drinks at the fair."),
    ("Was the barn locked at night?", "wat", "reeve", "The barn was locked at night."),
    ("Should we tell the reeve?", "wat", "odo", None),  # a proposal, no question of fact
    ("Who took the grain?", "wat", "odo", None),
    ("Did I tell you?", None, "odo", None),  # an "I" with nobody of the world to name
])
def test_a_yes_or_no_question_of_fact_reads_as_the_statement_it_asks_after(mill, question, asker, answerer, statement):
    assert questions.as_statement(mill, question, asker, answerer) == statement


@pytest.mark.parametrize(("statement", "held", "verdict"), [
    ("Odo dragged the sacks out of the barn.", "Bettany Crewe saw Odo Quenby drag six grain sacks out of the barn at night.", "yes"),
    ("Odo dragged ten sacks out of the barn.", "Odo dragged six grain sacks out of the barn at night.", "no"),
    ("Odo locked the barn.", "Odo never locked the barn.", "no"),
    ("Odo sold the grain at the fair.", "Odo dragged six grain sacks out of the barn at night.", ""),
    ("Odo dragged the sacks out of the barn at dawn.", "Odo dragged the sacks out of the barn.", ""),  # asks more than held
])
def test_a_holding_settles_a_yes_or_no_question_only_when_it_says_it_or_its_contrary(mill, statement, held, verdict):
    from storyworld.minds.content import Known, _verdict

    assert _verdict(mill, statement, Known(record_id=1, text=held, kind="event", via="witnessed")) == verdict
    doubted = Known(record_id=1, text=held, kind="event", via="told", status="doubted")
    assert _verdict(mill, statement, doubted) == ""  # what it doubts settles nothing


@pytest.mark.parametrize(("question", "asker", "answerer", "agreed"), [
    ("Should we tell the miller?", "wat", "reeve", "let us tell the miller"),
    ("Reeve, shall we ride to the fair at dawn?", "wat", "reeve", "let us ride to the fair at dawn"),
    ("Will you help me carry the flour?", "wat", "tamsin", "Tamsin Brook will help Wat Ashby carry the flour"),
    ("Are you ready to count my sacks?", "bettany", "reeve", "Ysmay Hollin is ready to count Bettany Crewe's sacks"),
    ("Shall I fetch the reeve?", "wat", "odo", "Wat Ashby should fetch the reeve"),
    ("Can you tell me where Odo is?", "wat", "reeve", None),  # asks for what is known
    ("Would you know who took the grain?", "wat", "reeve", None),
    ("Will you tell us what you saw?", "wat", "reeve", None),
    ("Did you count the sacks?", "wat", "reeve", None),  # a question of fact
    # a bidding asks for a deed as "Will you …?" does
    ("Tell the miller what I found in my sacks.", "wat", "reeve", "Ysmay Hollin will tell the miller what Wat Ashby found in Wat Ashby's sacks"),
    ("Tamsin, please help me carry the flour.", "wat", "tamsin", "Tamsin Brook will help Wat Ashby carry the flour"),
    ("Fire broke out in the barn.", "wat", "reeve", None),  # a subject and its verb
    ("Found it in the hay.", "wat", "reeve", None),  # a verb not in its plain form
])
def test_a_proposal_reads_as_what_the_one_asked_would_agree_to(mill, question, asker, answerer, agreed):
    assert questions.proposal(mill, question, asker, answerer) == agreed
    assert (questions.read_question(mill, question, asker, answerer).kind == "proposal") is (agreed is not None)


@pytest.mark.parametrize(("question", "asker", "answerer", "clause"), [
    ("Do you know who took the tithe grain?", "wat", "reeve", "who took the tithe grain"),
    ("Reeve, can you tell me where my sacks went?", "bettany", "reeve", "where your sacks went"),
    ("Do you know if the miller swapped them?", "wat", "reeve", "whether the miller swapped them"),
    ("Where is Odo now?", "wat", "reeve", "where Odo Quenby is now"),
    ("Who told you?", "wat", "reeve", ""),  # a follow-up: "I do not know" alone
    ("What news?", "wat", "reeve", ""),
    ("Who opened the barn door?", "wat", "reeve", "who opened the barn door"),  # on the doer, as it stands
    ("Reeve, who swapped your sacks?", "wat", "reeve", "who swapped my sacks"),
    ("Who was at the mill?", "wat", "reeve", ""),  # not on a deed: no clause to say back
])
def test_what_is_not_known_is_said_back_as_it_was_asked(mill, question, asker, answerer, clause):
    asked = questions.read_question(mill, question, asker, answerer)
    assert questions.unknown_clause(mill, question, asker, answerer, asked) == clause


def test_what_a_line_tells_beside_its_question_is_read_and_the_question_is_not(mill):
    reading = listening.read_claim(mill, "bettany", "reeve", "Odo dragged six sacks out of the barn. Will you count them?")
    assert reading is not None and reading.text == "Odo dragged six sacks out of the barn."
    assert listening.read_claim(mill, "bettany", "reeve", "Will you count them? And who took the grain?") is None


def test_what_to_do_about_a_matter_is_said_back_when_it_is_not_known(mill):
    asked = questions.read_question(mill, "What should we do about the chaff in the barn?", "wat", "reeve")
    assert questions.unknown_clause(mill, "What should we do about the chaff in the barn?", "wat", "reeve", asked) \
        == "what to do about the chaff in the barn"


def test_a_pronoun_that_could_be_another_is_the_name_again(mill):
    # speaker and listener alike ("she"): "your pantry" is the listener's by name, never "her pantry"
    she = [a for a, p in mill.agents.items() if p.pronouns == "she"]
    he = [a for a, p in mill.agents.items() if p.pronouns == "he"]
    line = "I came past the back of your place and the little window of your pantry was standing open."
    reading = listening.read_claim(mill, she[0], she[1], line)
    listener = mill.name_of(she[1])
    assert reading is not None and reading.text == (f"{mill.name_of(she[0])} came past the back of {listener}'s place "
                                                    f"and the little window of {listener}'s pantry was standing open.")
    # unlike ("he" to "she"), the pronoun is plain
    reading = listening.read_claim(mill, he[0], she[0], line)
    assert reading is not None and reading.text.endswith("window of her pantry was standing open.")


@pytest.mark.parametrize(("line", "question"), [
    ("I found the schedule in the basket. Will you keep it locked?", "Will you keep it locked?"),
    ("Reeve, will you count the sacks?", "Reeve, will you count the sacks?"),
    ("Who told you? I must know.", "Who told you? I must know."),  # ends on no question: the line as it stands
])
def test_a_line_that_tells_then_asks_is_answered_on_its_question(line, question):
    assert questions.question_of(line) == question


@pytest.mark.parametrize(("question", "verb"), [
    ("Who opened the pantry window?", "opened"), ("Reeve, who swapped the sacks?", "swapped"),
    ("Who was in the lane?", None), ("Who did you see?", None), ("Who told you that?", None), ("What is it?", None),
])
def test_a_who_question_asks_the_doer_of_its_verb(question, verb):
    assert content.asked_deed(question) == verb
    # every who-question but who told it asks for a person
    assert content.asks_who(question) is (question not in ("Who told you that?", "What is it?"))


def test_a_quotation_left_open_is_closed_and_an_apostrophe_is_no_quotation():
    from storyworld.minds.words import close_quote

    assert close_quote("Resi, Florian said, 'The old workings soaked the roof.") == \
        "Resi, Florian said, 'The old workings soaked the roof.'"
    assert close_quote("Resi, he said, \"The Kaiser's roof fell.") == "Resi, he said, \"The Kaiser's roof fell.\""
    for whole in ("Resi, Florian said, 'The roof fell.' So it goes.", "Resi, the Kaiser's roof fell."):
        assert close_quote(whole) == whole


@pytest.mark.parametrize(("text", "verb", "does"), [
    ("Cyril Mott delivered two stone of salt to the bakery cellar.", "brought", True),  # a hypernym apart
    ("Odo hid the sacks in the mill.", "concealed", True),
    ("Agnes said the salt is kept in the cellar.", "opened", False),  # the nearest record is no answer
    ("Wat locked the barn.", "unlocked", False),  # nor its opposite
])
def test_a_holding_answers_a_who_question_only_with_its_deed(text, verb, does):
    assert content._does(text, verb) is does


def test_a_comma_between_a_named_subject_and_its_verb_of_saying_is_dropped(mill):
    from storyworld.minds import words

    assert words.tidy(mill, "wat", "Bettany Crewe, Odo Quenby, says that the sacks are chaff.") == \
        "Bettany Crewe, Odo Quenby says that the sacks are chaff."
    # the opening address and a parenthesis stay as they are
    assert words.tidy(mill, "wat", "Odo Quenby, said the miller, was at the barn.") == \
        "Odo Quenby, said the miller, was at the barn."


def test_where_someone_is_now_is_the_last_sighting_a_move_seen_again_included(mill):
    from memory.records import Holding, MergeLogEntry, Record

    seen = Holding(via="witnessed")
    went = Record(id=21, text="Odo Quenby went from the mill to the barn.", round=1, place="barn", actors=("odo",),
                  owners={"reeve": seen},
                  merge_log=[MergeLogEntry(owner="reeve", round=6, rule="text", discarded_text="", kept_text="",
                                           previous_text="")])  # the same walk, seen again in round 6
    spoke = Record(id=42, text="Tamsin tells Odo Quenby at the mill: the sacks are short.", kind="utterance",
                   round=6, place="mill", actors=("odo",), owners={"reeve": seen})
    asked = questions.Asked(kind="where_now", people=("odo",))
    found = content._pointed(mill, "reeve", asked, [spoke, went], (), frozenset())
    assert [k.record_id for k in found] == [21]  # in round 6 he was spoken to, then walked off to the barn


@pytest.mark.parametrize(("text", "said_by", "names"), [
    ("Odo Quenby said the water soaked the sacks.", "odo", False),  # only its teller
    ("Odo Quenby said he carried the sacks to the mill alone.", "odo", True),  # the teller, by his own account
    ("Tamsin saw Odo Quenby at the barn.", None, True),
    ("The sacks were swapped for chaff.", None, False),
])
def test_a_who_question_wants_a_holding_that_names_someone_beside_its_teller(mill, text, said_by, names):
    known = content.Known(record_id=1, text=text, kind="claim", via="told", source="tamsin", said_by=said_by)
    assert content._names_someone(mill, known) is names


def test_one_who_said_it_named_again_in_what_they_said_is_their_pronoun(mill):
    from storyworld.minds import words

    assert words.tidy(mill, "wat", "Tamsin Brook, Odo Quenby said Odo Quenby carried the sacks.") == \
        "Tamsin Brook, Odo Quenby said he carried the sacks."
    assert words.tidy(mill, "wat", "Tamsin Brook, Odo Quenby said Wat Ashby carried the sacks.") == \
        "Tamsin Brook, Odo Quenby said Wat Ashby carried the sacks."  # another: named


@pytest.mark.parametrize(("question", "whom"), [
    ("Who told Tamsin the sacks were short?", ("tamsin",)), ("Reeve, who told Wat Ashby about the barn?", ("wat",)),
    ("Who told you the sacks were short?", None), ("Who told me that?", None), ("Who said that?", None),
])
def test_who_told_someone_else_is_asked_after_the_one_told(mill, question, whom):
    assert questions.told_whom(mill, question) == whom
    assert content.asks_who(question) is (whom is not None)


def test_said_back_to_whose_it_was_the_pronoun_after_their_thing_is_theirs(mill):
    # echoing Bettany's news to her: "her field … she saw" is "your field … you saw"
    said = render.point_of_view(mill, "Coming back from Bettany Crewe's field at dusk she saw the cart.", "odo", "bettany")
    assert said == "Coming back from your field at dusk you saw the cart.", said
    # another woman named: "she" could be her, and stays
    said = render.point_of_view(mill, "Bettany Crewe's cart passed Tamsin Brook and she waved.", "odo", "bettany")
    assert "she waved" in said, said


def test_a_title_said_alone_is_an_address(mill):
    import copy

    import msgspec

    world = copy.copy(mill)
    world.agents = {**mill.agents, "reeve": msgspec.structs.replace(mill.agents["reeve"], aliases=("Mistress Hollin",))}
    assert listening._drop_vocative(world, "reeve", "Mistress, the sacks were slit.") == "the sacks were slit."
    assert listening._drop_vocative(world, "reeve", "Yesterday, the sacks were slit.") == "Yesterday, the sacks were slit."


def test_what_a_teller_said_of_her_own_is_hers(mill):
    body = render._pronoun_for(mill, "coming back from Bettany Crewe's field Bettany Crewe saw the cart", "bettany")
    assert body == "coming back from her field she saw the cart", body


def test_a_post_stands_for_the_one_who_holds_it_where_only_they_hold_it(mill):
    import copy

    import msgspec

    assert render.post_forms(mill) == {"miller": "odo", "village reeve": "reeve", "alewife": "tamsin"}
    # asked after by post, the question reads as the holdings name them
    assert content.as_asked(mill, "Did the miller count the sacks?", "bettany", "wat") == "Did Odo Quenby count the sacks?"
    assert content.by_name(mill, "What did the reeve say?") == "What did Ysmay Hollin say?"  # an alias, named in full
    world = copy.copy(mill)
    world.digest = f"{mill.digest}-posts"
    world.agents = {**mill.agents,
                    "wat": msgspec.structs.replace(mill.agents["wat"], description="The tithe carter, who hauls grain.")}
    assert render.post_forms(world)["carter"] == "wat"  # the tail of the post his description opens with
    world = copy.copy(world)
    world.digest = f"{mill.digest}-widow"
    world.agents = {**world.agents, "tamsin": msgspec.structs.replace(
        mill.agents["tamsin"], description="A carter's widow who keeps the alehouse.")}
    posts = render.post_forms(world)
    # "the carter" could be said of the widow's late man as well: only the whole post is Wat's
    assert posts.get("tithe carter") == "wat" and "carter" not in posts, posts


def test_asked_which_man_told_it_the_teller_is_the_answer_and_not_the_one_named(mill):
    known = content.Known(record_id=1, text="Odo Quenby said Wat Ashby carted the sacks.", kind="claim", via="told",
                          source="tamsin", said_by="odo")
    assert content._names_someone(mill, known, {"wat"}, teller=True)  # Odo, who said it
    # asked who put it about that Wat carted them ("Who was it put it into your head that …"): Odo's word is on Wat
    assert content._names_someone(mill, known, {"wat"})
    seen = content.Known(record_id=2, text="Wat Ashby carted the sacks.", kind="event", via="witnessed", source=None)
    assert not content._names_someone(mill, seen, {"wat"})  # Wat again is no answer to a question that names him


def test_one_named_after_a_verb_in_the_past_is_its_object(mill):
    body = render._pronoun_for(mill, "Odo left Bettany Crewe the sacks, and Bettany Crewe counted them", "bettany")
    assert body == "Odo left her the sacks, and she counted them", body


@pytest.mark.parametrize(("text", "said"), [
    ("Odo Quenby said Wat Ashby carted the sacks and was seen at the barn.",
     "Odo Quenby said you carted the sacks and were seen at the barn."),
    # another subject between: its verb is its own
    ("Wat Ashby said that the sacks were light and was sure of it.", "You said that the sacks were light and was sure of it."),
    # after a preposition, an object whatever verb follows
    ("The sack that fell on Wat Ashby was full of chaff.", "The sack that fell on you was full of chaff."),
])
def test_the_one_spoken_to_is_you_in_the_person_the_clause_gives(mill, text, said):
    assert render.point_of_view(mill, text, "reeve", "wat") == said


def test_her_is_mine_before_a_thing_and_me_where_the_phrase_ends(mill):
    assert aims.question_of("Learn who brought her down", "she", False) == "Do you know who brought me down?"
    assert aims.question_of("Find out who stole her father's ring", "she", False) == "Do you know who stole my father's ring?"


def test_i_saw_you_do_it_said_to_you_is_your_deed(mill):
    reading = listening.read_claim(mill, "bettany", "odo", "Where did the grain go? I saw you drag the sacks out at night.")
    assert reading is not None and reading.text == "Odo Quenby dragged the sacks out at night.", reading


def test_a_keeper_meets_a_charge_with_the_story_it_means_to_have_believed(mill):
    pay = content.Known(record_id=4, text="Odo Quenby said carters pay well for tithe sacks.", kind="utterance",
                        via="witnessed", source=None, said_by="odo", score=0.9)
    story = content.Known(record_id=8, text="Odo Quenby said the tithe sacks were full when they left the barn.",
                          kind="utterance", via="witnessed", source=None, said_by="odo", score=0.5)
    knowledge = content.Knowledge(covers=(8, 4))
    # nearer the line is the word on carters; the story he means to have believed comes first
    assert content._own_story(mill, "odo", knowledge, [pay, story], {"tithe", "sack"}) is story
    assert content._own_story(mill, "odo", content.Knowledge(), [pay, story], {"tithe", "sack"}) is pay
    assert content._own_story(mill, "odo", knowledge, [pay, story], {"wheel"}) is None  # nothing on the matter
