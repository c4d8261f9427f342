"""Characters with a will, on the bundled model and embedder (issue 30, items 1-6), in a world written for it.

The person playing Bettany tells the reeve what she saw; the reeve holds it as told by her, answers within the
round, says it on to Tamsin naming her; the reeve's goal to find out is asked in its own words; the miller,
asked by an outsider, keeps what he did; and the story never narrates Bettany saying what she did not.
"""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.game.script import ScriptedPlayer
from storyworld.kernel.state import Settings
from storyworld.minds import LLMMind
from storyworld.minds.interview import interview
from storyworld.world import load_world
from tests.support.paths import MILL, REPO, TOLLBRIDGE, TRAPEZE

CURRAGH = REPO / "docs" / "results" / "agency" / "heldout11" / "curragh.toml"

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow]

SEEN = "I saw Odo drag six grain sacks out of the tithe barn at night."


@pytest.fixture(scope="module")
def played():
    from storyworld.llm import load_model

    world = load_world(MILL)
    sim = session.new_simulation(world, "market-day", Settings(seed=3, awake="near", player="bettany"),
                                 LLMMind(load_model(seed=0)))
    player = ScriptedPlayer(world, "bettany", [f"@reeve {SEEN}", "/wait", "@reeve Who told you that?", "/wait"])
    for _ in range(4):
        sim.step(player_action=player.next_action(sim.state))
    return world, sim, player


def _said(sim, speaker, to=None, round_=None):
    return [e for e in sim.state.events if e.kind == "say" and e.actor == speaker
            and (to is None or e.to == to) and (round_ is None or e.round == round_)]


def test_what_the_person_says_becomes_the_listeners_own_told_by_them(played):
    world, sim, player = played
    assert player.problems == []
    told = [r for r in sim.store.held_by("reeve") if r.owners["reeve"].via == "told"
            and r.owners["reeve"].source == "bettany"]
    assert told, "the reeve holds nothing told by Bettany"
    record = told[0]
    # it landed on the record she holds of what she saw (one record, one more owner), or is her claim naming Odo
    assert "bettany" in record.owners or "odo" in record.actors, record
    assert "Odo" in record.text and "sack" in record.text.lower()
    assert 0.0 < record.owners["reeve"].confidence < 1.0  # hearsay, with the trust it earned
    # the question and the greeting are heard, never believed
    assert not any("who told you" in r.text.lower() for r in sim.store.held_by("reeve") if r.kind == "claim")


def test_the_one_spoken_to_answers_in_the_same_round(played):
    world, sim, player = played
    for round_ in (0, 2):
        reply = _said(sim, "reeve", "bettany", round_)
        assert reply, f"the reeve did not answer Bettany in round {round_}"


def test_who_told_you_names_the_source(played):
    world, sim, player = played
    answer = interview(world, sim.store, "reeve", "What did Bettany tell you?", round_=sim.state.round, asker="wat")
    assert answer.act == "answer" and "Bettany" in answer.text and "sack" in answer.text.lower(), answer.text
    source = interview(world, sim.store, "reeve", "Who told you?", round_=sim.state.round, asker="wat",
                       previous=answer)
    assert "Bettany Crewe told me" in source.text or "from Bettany Crewe" in source.text, source.text


def test_told_news_goes_on_to_one_who_lacks_it_naming_its_teller(played):
    world, sim, player = played
    record = next(r for r in sim.store.held_by("reeve") if r.owners["reeve"].source == "bettany")
    onward = [e for e in sim.state.events if e.kind == "say" and e.actor in ("reeve", "tamsin")
              and record.id in e.tells and e.to != "bettany"]
    assert onward, "nobody passed Bettany's news on"
    heard = [o for o, h in record.owners.items() if h.via == "told" and h.source not in (None, "bettany")]
    assert heard, record.owners  # someone holds it told by a character, not by the person playing


def test_the_miller_keeps_his_deed_from_an_outsider(played):
    world, sim, player = played
    answer = interview(world, sim.store, "odo", "What happened to the six sacks of tithe grain?",
                       round_=sim.state.round, asker="reeve")
    assert answer.act in ("lie", "refuse", "unknown"), answer.text
    assert "swap" not in answer.text.lower() and "chaff" not in answer.text.lower(), answer.text
    candid = interview(world, sim.store, "odo", "What happened to the six sacks of tithe grain?",
                       round_=sim.state.round, candid=True)
    assert "swapped" in candid.text.lower()  # he holds it: he keeps it, he has not forgotten it


def test_asked_what_he_means_to_do_he_says_a_goal_that_hides_nothing(played):
    world, sim, player = played
    answer = interview(world, sim.store, "odo", "What do you mean to do now?", round_=sim.state.round, asker="reeve")
    assert answer.text == "Ysmay Hollin, I mean to pay my debt to the dealer.", answer.text  # not the keep goal
    asked = interview(world, sim.store, "reeve", "What should we do about the grain?", round_=sim.state.round, asker="wat")
    assert "I mean to find out who took the tithe grain" in asked.text, asked.text
    # what to do about a matter no goal of hers is on: not a goal beside it, what she holds of it or "I do not know"
    beside = interview(world, sim.store, "tamsin", "What should we do about the millrace?", round_=sim.state.round,
                       asker="wat")
    assert "I mean to" not in beside.text, beside.text


def test_nobody_narrates_the_person_saying_what_they_did_not(played):
    world, sim, player = played
    said = {e.claim for e in _said(sim, "bettany")}
    assert said <= {SEEN, "Who told you that?"}
    narrated = [e.text for e in sim.state.events if e.kind == "narration"]
    assert not any(text.startswith("Bettany") for text in narrated), narrated


def test_a_goal_to_find_out_is_pursued_in_its_own_words_and_few_wait(played):
    world, sim, player = played
    # the reeve's "Find out who took the tithe grain", Wat's "Find out why the sacks he carted felt light"
    asked = [e for e in sim.state.events if e.kind == "say" and e.actor in ("reeve", "wat") and e.act == "ask"
             and ("took the tithe grain" in (e.claim or "") or "sacks I carted" in (e.claim or ""))]
    assert asked, [e.claim for e in sim.state.events if e.kind == "say"]
    others = [e for e in sim.state.events if e.actor not in ("", "bettany") and e.kind in
              ("say", "act", "move", "wait", "observe", "read")]
    idle = [e for e in others if e.kind in ("wait", "observe")]
    assert len(idle) <= len(others) / 2, [(e.actor, e.kind) for e in others]



WHEELS = ("Three weeks ago, well past midnight, I lay awake over the gate and listened to something heavy on iron "
          "wheels grind its way across the bridge for a good quarter of an hour.")


def test_news_nobody_here_lacks_is_carried_to_where_one_who_lacks_it_is():
    from storyworld.llm import load_model

    # a held-out world of this issue: Yusuf tells the surveyor in the toll house, in front of the keeper; nobody
    # there lacks it, and Fergus, out on the bridge, does
    world = load_world(TOLLBRIDGE)
    sim = session.new_simulation(world, "survey-morning", Settings(seed=0, awake="near", player="yusuf"),
                                 LLMMind(load_model(seed=0)))
    player = ScriptedPlayer(world, "yusuf", [f"@priya {WHEELS}"] + ["/wait"] * 8)
    for _ in range(9):
        sim.step(player_action=player.next_action(sim.state))
    record = next(r for r in sim.store.held_by("priya") if r.owners["priya"].source == "yusuf"
                  and "wheels" in r.text)
    movers = {e.actor for e in sim.state.events if e.kind == "move" and e.actor in ("priya", "halvard")}
    onward = {o: h for o, h in record.owners.items() if o not in ("yusuf", "priya", "halvard")}
    assert any(h.via == "told" and h.source in movers for h in onward.values()), (movers, record.owners)
    # the keeper, who let the quarry wagons over the bridge at night, heard it too and passes none of it on
    assert not any(h.via == "told" and h.source == "halvard" for h in record.owners.values()), record.owners
    # the one who carried it, its piece said, goes back to the toll house, where the talk is
    carrier = next(h.source for h in onward.values() if h.via == "told" and h.source in movers)
    told_at = min(h.since_round for h in onward.values() if h.source == carrier)
    back = [e for e in sim.state.events if e.kind == "move" and e.actor == carrier and e.round > told_at]
    assert back and back[0].target == "toll-house", [(e.round, e.actor, e.target) for e in sim.state.events
                                                       if e.kind == "move"]


def test_a_question_on_what_he_keeps_is_withheld_from_those_he_keeps_it_from(played):
    world, sim, player = played
    from storyworld.minds import content

    knowledge = content.gather(world, sim.store, "odo", round_=sim.state.round, present=("reeve", "tamsin"),
                               addressed=None, beat_text="", moment_query="")
    assert knowledge.secrets, "the miller keeps nothing"
    on_it = content._withheld(sim.store, "odo", "Do you know who saw the tithe sacks swapped at the barn?",
                              knowledge.secrets, ("reeve", "tamsin"))
    assert set(on_it) == {"reeve", "tamsin"}, on_it
    beside = content._withheld(sim.store, "odo", "Do you know where the cattle dealer lodges in town?",
                               knowledge.secrets, ("reeve", "tamsin"))
    assert beside == (), beside


def test_a_yes_or_no_question_of_fact_is_answered_yes_or_no_from_what_is_held(played):
    world, sim, player = played
    # the reeve holds, told by Bettany, that Odo dragged six sacks out of the tithe barn at night
    yes = interview(world, sim.store, "reeve", "Did Odo drag the sacks out of the barn?", round_=sim.state.round,
                    asker="wat")
    assert yes.act == "answer" and yes.text.startswith("Wat Ashby, yes:"), yes.text
    more = interview(world, sim.store, "reeve", "Did Odo drag ten sacks out of the barn?", round_=sim.state.round,
                     asker="wat")
    assert more.text.startswith("Wat Ashby, no:") and "six" in more.text, more.text
    # what she holds nothing that settles gets no yes and no no
    open_ = interview(world, sim.store, "reeve", "Did Odo sell the grain at the fair?", round_=sim.state.round,
                      asker="wat")
    assert ", yes:" not in open_.text and ", no:" not in open_.text, open_.text


def test_a_proposal_is_agreed_to_in_the_ones_own_words_unless_it_would_give_away_what_is_kept(played):
    world, sim, player = played
    agreed = interview(world, sim.store, "reeve", "Should we ride to the fair at dawn?", round_=sim.state.round,
                       asker="wat")
    assert agreed.text == "Wat Ashby, yes: let us ride to the fair at dawn.", agreed.text
    will = interview(world, sim.store, "tamsin", "Will you help me carry the flour?", round_=sim.state.round,
                     asker="wat")
    assert will.text == "Wat Ashby, yes: I will help you carry the flour.", will.text
    bidden = interview(world, sim.store, "tamsin", "Please help me carry the flour.", round_=sim.state.round,
                       asker="wat")
    assert bidden.text == "Wat Ashby, yes: I will help you carry the flour.", bidden.text
    # the miller, who swapped the tithe grain for chaff, is asked to open what would show it
    kept = interview(world, sim.store, "odo", "Shall we open the tithe sacks and look at the grain?",
                     round_=sim.state.round, asker="reeve")
    assert kept.text.startswith("Ysmay Hollin, no") and "yes" not in kept.text.lower(), kept.text


def test_what_to_do_about_a_matter_no_goal_is_on_is_answered_only_from_the_whole_matter(played):
    world, sim, player = played
    answer = interview(world, sim.store, "tamsin", "What should we do with the empty sacks after the fair?",
                       round_=sim.state.round, asker="wat")
    assert answer.act == "unknown" or {"empty", "fair"} <= set(answer.text.lower().replace(".", " ").split()) \
        or {"sacks", "fair"} <= set(answer.text.lower().replace(".", " ").split()), answer.text


def test_i_do_not_know_says_what_is_not_known(played):
    world, sim, player = played
    answer = interview(world, sim.store, "tamsin", "Do you know where the bishop's silver spoon went?",
                       round_=sim.state.round, asker="wat")
    assert answer.act == "unknown" and "I do not know where the bishop's silver spoon went" in answer.text \
        or "I cannot tell you where the bishop's silver spoon went" in answer.text, answer.text


def test_how_many_is_answered_only_with_a_number_and_who_told_you_names_the_matter_asked(played):
    world, sim, player = played
    many = interview(world, sim.store, "reeve", "How many sacks did Odo drag out?", round_=sim.state.round, asker="wat")
    assert "six" in many.text.lower(), many.text  # Bettany told her: six grain sacks
    none = interview(world, sim.store, "reeve", "How much flour went to the fair?", round_=sim.state.round, asker="wat")
    assert none.act == "unknown", none.text  # nothing she holds says how much
    source = interview(world, sim.store, "reeve", "Who told you somebody dragged sacks out of the barn?",
                       round_=sim.state.round, asker="wat")
    assert "Bettany" in source.text and "sack" in source.text.lower(), source.text


def test_a_question_inside_an_asking_is_answered_as_itself(played):
    world, sim, player = played
    # "Do you know who …?" asks who: the doer from what she holds, not a yes or a no
    who = interview(world, sim.store, "reeve", "Do you know who dragged the sacks out of the tithe barn?",
                    round_=sim.state.round, asker="wat")
    assert who.act == "answer" and "Odo" in who.text and ", yes" not in who.text and ", no" not in who.text, who.text


def test_the_keeper_asked_after_his_deed_gives_his_own_story_of_it_not_the_deed():
    from storyworld.llm import load_model

    world = load_world(TOLLBRIDGE)
    sim = session.new_simulation(world, "survey-morning", Settings(seed=0, awake="near", player="yusuf"),
                                 LLMMind(load_model(seed=0)))
    asked = interview(world, sim.store, "halvard", "Something heavy has been crossing this bridge after dark. Did "
                      "you let anyone through the gate at night?", round_=0, asker="priya")
    # his own story of the matter, said before (the toll-keeper's smear of the ferry-keeper), never the wagons
    assert asked.act == "answer" and asked.text.startswith("Priya Venkataraman, I said"), asked.text
    assert "quarry" not in asked.text.lower() and "wagon" not in asked.text.lower(), asked.text
    # on what he has told no story of, he denies
    gate = interview(world, sim.store, "halvard", "Did you unlock the gate at night?", round_=0, asker="priya")
    assert gate.act == "lie" and "quarry" not in gate.text.lower(), gate.text



def test_a_bidding_to_tell_someone_is_agreed_to_and_done():
    """'Tell the Captain what I found': the farrier says they will, walks to the yard and tells him, naming Nora
    (curragh, written fresh for issue 30: heldout11)."""
    from storyworld.llm import load_model

    world = load_world(CURRAGH)
    sim = session.new_simulation(world, "stewards-morning", Settings(seed=3, awake="near", player="nora"),
                                 LLMMind(load_model(seed=0)))
    player = ScriptedPlayer(world, "nora", [
        "/move forge",
        "@sam On Saturday I cleaned out the colt's feet myself, and under his shoes there was black road tar and "
        "chips of sharp stone.",
        "@sam Tell the Captain what I found under the colt's shoes.", "/wait", "/wait", "/wait"])
    for _ in range(6):
        sim.step(player_action=player.next_action(sim.state))
    assert player.problems == []
    agreed = _said(sim, "sam", "nora", 2)
    assert agreed and "yes: I will tell the Captain what you found" in agreed[0].claim, agreed
    record = next(r for r in sim.store.held_by("sam") if r.owners["sam"].source == "nora")
    told = [e for e in _said(sim, "sam", "blake") if record.id in e.tells]
    assert told and "Nora Quinlan told me" in told[0].claim, [e.claim for e in _said(sim, "sam")]
    assert sim.store.get(record.id).owners["blake"].source == "sam"


def test_asked_to_come_somewhere_it_agrees_and_comes():
    """'Will you come and look at the colt's feet with me in the forge?': the inspector says he will, and goes."""
    from storyworld.llm import load_model

    world = load_world(CURRAGH)
    sim = session.new_simulation(world, "stewards-morning", Settings(seed=3, awake="near", player="nora"),
                                 LLMMind(load_model(seed=0)))
    player = ScriptedPlayer(world, "nora", ["@hugh Will you come and look at the colt's feet with me in the forge?",
                                            "/move forge", "/wait"])
    for _ in range(3):
        sim.step(player_action=player.next_action(sim.state))
    agreed = _said(sim, "hugh", "nora", 0)
    assert agreed and "yes: I will come and look at the colt's feet with you in the forge" in agreed[0].claim, agreed
    assert sim.state.positions["hugh"] == "forge", [(e.round, e.kind, e.target) for e in sim.state.events
                                                    if e.actor == "hugh"]


def test_asked_after_someone_by_their_post_the_answer_is_on_them(played):
    """"What have you heard of the miller?" asks after a man, not a word: the miller is Odo Quenby, as the
    holdings name him (no record says "miller")."""
    world, sim, player = played
    from storyworld.kernel import ids

    asked = interview(world, sim.store, "reeve", "What have you heard of the miller?",
                      round_=sim.state.round, asker="wat", mechanical=ids.mechanical_keys(sim.state.events))
    assert asked.act == "answer" and "Odo" in asked.text and "sacks" in asked.text, asked.text


def test_what_would_give_away_the_keepers_deed_is_not_passed_on_by_him():
    """The rigger, who hung old rope and says the new rope was cut, overhears that the rope that broke was old and
    uncut: he keeps it to himself (trapeze, written fresh for issue 30: heldout14)."""
    from storyworld.llm import load_model
    from storyworld.minds import content

    world = load_world(TRAPEZE)
    sim = session.new_simulation(world, "inspector-morning", Settings(seed=0, awake="near", player="nell"),
                                 LLMMind(load_model(seed=0)))
    player = ScriptedPlayer(world, "nell", [
        "/move wagon-yard", "@rosa The rope that broke under you was old rope under chalk, not the new Manila, "
        "and nobody cut it.", "@dan I saw you carry a coil down to the keels on Monday night."])
    for _ in range(3):
        sim.step(player_action=player.next_action(sim.state))
    heard = [r for r in sim.store.held_by("dan") if r.owners["dan"].source == "nell"]
    assert heard, "the rigger did not hear it"
    knowledge = content.gather(world, sim.store, "dan", round_=sim.state.round, present=("rosa", "nell"),
                               addressed=None, beat_text="", moment_query="")
    # nor what she says of him ("Dan Skerritt carried a coil down to the keels"): he tells it to nobody
    assert len(heard) >= 2 and all(knowledge.secrets.get(r.id) == () for r in heard), \
        (knowledge.secrets, [r.text for r in heard])
    # told it to his face, he does not say it back as news ("I carried a coil … — that is news to me")
    replies = [e for e in sim.state.events if e.kind == "say" and e.actor == "dan" and e.round == 2]
    assert not any("news to me" in (e.claim or "") or "I carried" in (e.claim or "") for e in replies), \
        [e.claim for e in replies]
    # the flyer, who heard it too and hides nothing, keeps none of it
    rosa = content.gather(world, sim.store, "rosa", round_=sim.state.round, present=("dan", "nell"),
                          addressed=None, beat_text="", moment_query="")
    assert not any(r.id in rosa.secrets for r in heard), rosa.secrets


def test_a_goal_with_a_clause_of_its_own_is_read_by_its_head():
    """"Make sure nobody learns that …" hides something, however long the deed after "that" (it read as no kind)."""
    from memory.embedder import shared_embedder
    from storyworld.minds import aims

    goal = ("Make sure nobody learns that Dan sold the new trapeze rope to a keelman at the canal staithe and rigged "
            "the flying trapeze with old rope from last season")
    assert aims.classify([goal, "Find out whether the trapeze rope was cut, and by whom"], shared_embedder())[0][0] == "keep"
