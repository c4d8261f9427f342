"""The round barrier on the tiny world with a scripted mind: witnesses, claims, carriers, determinism, fuzzing."""

from __future__ import annotations

import logging
import random

import pytest

from storyworld.game import session
from storyworld.kernel.actions import ActOn, Move, Observe, Say, Told, Wait
from storyworld.llm import Completion, LanguageModel, wrap
from storyworld.minds import LLMMind
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY


@pytest.fixture(scope="module")
def world():
    return load_world(TINY)


def make_sim(world, script=None, seed=0, **settings):
    mind = ScriptedMind(script)
    sim = session.new_simulation(world, "arrival", Settings(seed=seed, **settings), mind, embedder=HashEmbedder())
    return sim, mind


def records_for(sim, event_id):
    return [r for r in sim.store.records() if r.event_id == event_id]


def test_say_is_one_record_owned_by_everyone_present_and_no_belief_unless_it_tells_one(world):
    def script(rnd, agent, ctx):
        if agent == "tobin":
            return Say(actor="tobin", text="The old keeper left the lamp dark on purpose.", to="maren")
        return Wait(actor=agent)

    sim, _ = make_sim(world, script)
    present = set(sim.state.present("harbour"))
    assert present == {"maren", "silas", "tobin"}
    before = len(sim.store.records())
    outcome = sim.step()
    say = next(e for e in outcome.events if e.kind == "say")
    assert set(say.witnesses) == present
    (utterance,) = records_for(sim, say.id)
    assert set(utterance.owners) == present
    assert all(h.via == "witnessed" for h in utterance.owners.values())
    # words that tell no record the speaker holds are heard, never believed: no claim record comes of them
    assert len(sim.store.records()) == before + 1
    assert not [r for r in sim.store.records() if r.kind == "claim"]
    assert "ada" not in utterance.owners  # in the tavern, out of earshot
    assert sim.store.stats()["leaks"] == 0


def test_a_line_that_tells_a_record_lands_on_that_record_told_by_the_speaker(world):
    sim, _ = make_sim(world)
    told = next(r for r in sim.store.held_by("tobin") if "silas" not in r.owners and "maren" not in r.owners)

    def script(rnd, agent, ctx):
        if agent == "tobin":
            return Say(actor="tobin", text="Maren, hear this.", to="maren", act="tell",
                       tells=(Told(record=told.id, text=told.text, kind=told.kind),))
        return Wait(actor=agent)

    sim.mind.script = script
    count = len(sim.store.records())
    outcome = sim.step()
    record = sim.store.get(told.id)
    for listener in ("maren", "silas"):  # the addressee and whoever else heard it
        holding = record.owners[listener]
        assert (holding.via, holding.source, holding.since_round) == ("told", "tobin", outcome.round)
        assert holding.confidence < record.owners["tobin"].confidence
    # it was said to Maren: Silas overheard it ("I heard Tobin say …", never "Tobin told me …")
    assert record.owners["silas"].flags == ("overheard",) and record.owners["maren"].flags == ()
    assert "ada" not in record.owners
    assert len(sim.store.records()) == count + 1  # the utterance; the told record was not copied
    say = next(e for e in outcome.events if e.kind == "say")
    assert say.tells == (told.id,) and say.act == "tell"
    utterance = next(r for r in records_for(sim, say.id))
    assert told.id in sim.store.neighbours(utterance.id)  # a listener's utterance and what it told belong together


def test_move_read_and_give_change_the_world_and_deposit_by_source(world):
    def script(rnd, agent, ctx):
        if rnd == 0 and agent == "tobin":
            return ActOn(actor="tobin", target="letter", verb="read")
        if rnd == 1 and agent == "tobin":
            return ActOn(actor="tobin", target="letter", verb="give", to="maren")
        if rnd == 2 and agent == "maren":
            return Move(actor="maren", to="tavern")
        return Wait(actor=agent)

    sim, _ = make_sim(world, script)
    sim.step()
    (content,) = records_for(sim, "read:letter")
    assert content.owners["tobin"].via == "read" and content.owners["tobin"].source == "letter"
    sim.step()
    assert sim.state.object_holders["letter"] == "maren"
    outcome = sim.step()
    assert sim.state.positions["maren"] == "tavern"
    move = next(e for e in outcome.events if e.kind == "move")
    assert "ada" in move.witnesses and "silas" in move.witnesses  # arrivals and those left behind


def test_same_seed_same_event_log(world):
    def script(rnd, agent, ctx):
        rng = random.Random(ctx.seed)
        choice = rng.choice(["say", "wait", "observe", "move"])
        if choice == "say":
            return Say(actor=agent, text=f"{agent} has news number {rng.randint(1, 9)}.")
        if choice == "move" and ctx.perception.exits:
            return Move(actor=agent, to=rng.choice(ctx.perception.exits))
        return Wait(actor=agent)

    logs = []
    for _ in range(2):
        sim, _ = make_sim(world, script, seed=7)
        for _ in range(4):
            sim.step()
        logs.append([(e.id, e.actor, e.kind, e.text, e.witnesses) for e in sim.state.events])
    assert logs[0] == logs[1]
    assert len(logs[0]) > 4


class FuzzModel(LanguageModel):
    """A backend that answers with garbage: random bytes, truncated JSON, wrong enums, wrong types."""

    name = "fuzz"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        r = self.rng
        choices = [
            lambda: "".join(chr(r.randint(0, 0x2FF)) for _ in range(r.randint(0, 60))),
            lambda: '{"action": "say", "text": "half',
            lambda: '{"action": "fly", "to": "", "text": "", "place": "", "target": "", "verb": ""}',
            lambda: '{"action": "move", "to": "", "text": "", "place": "moon", "target": "", "verb": ""}',
            lambda: '{"action": "act_on", "to": "", "text": "x", "place": "", "target": "ghost", "verb": "read"}',
            lambda: '{"action": 7}',
            lambda: "[]",
            lambda: "null",
            lambda: '{"action": "say", "to": "", "text": "", "place": "", "target": "", "verb": ""}',
            lambda: bytes(r.randint(0, 255) for _ in range(20)).decode("latin-1"),
        ]
        # (a backend that raises is a model fault or our bug, never a fallback:
        # tests/storyworld/minds/test_faults_replies.py)
        return Completion(text=r.choice(choices)(), prompt_tokens=10, completion_tokens=5)


def test_a_thousand_fuzzed_model_outputs_only_cause_logged_fallbacks(world, caplog):
    mind = LLMMind(wrap(FuzzModel(3), attempts=1))
    sim = session.new_simulation(world, "arrival", Settings(seed=1), mind, embedder=HashEmbedder())
    decisions = 0
    last = sim.state.round - 1
    with caplog.at_level(logging.INFO, logger="storyworld.minds"):
        while decisions < 1000:
            outcome = sim.step()
            decisions += sim.last_timing.decisions
            assert outcome.round == last + 1 and sim.state.round == outcome.round + 1  # every round resolves, in order
            last = outcome.round
    # every fallback is logged with its agent, one line each, and no garbage became an action
    logged = [r for r in caplog.records if r.name == "storyworld.minds"
              and r.getMessage().startswith(("fallback choice for", "model reply unusable for"))]
    assert len(logged) == sim.state.fallbacks
    assert sim.state.invalid == 0
    # the garbage fell back; the choices the policy settles without the model did not
    assert 0 < sim.state.fallbacks < decisions
    assert sim.store.stats()["leaks"] == 0


def test_a_move_is_one_record_each_owner_witnessed_where_they_stood(world):
    def script(rnd, agent, ctx):
        if agent == "maren":
            return Move(actor="maren", to="tavern")
        return Wait(actor=agent)

    sim, _ = make_sim(world, script)
    outcome = sim.step()
    move = next(e for e in outcome.events if e.kind == "move")
    (record,) = records_for(sim, move.id)
    assert record.place == "tavern" and set(record.owners) == set(move.witnesses)
    assert record.owners["silas"].place == "harbour"  # saw her leave
    assert record.owners["ada"].place is None  # saw her arrive, where the record says


def test_an_observation_is_one_affiliated_statement_per_fact_seen(world):
    def script(rnd, agent, ctx):
        return Observe(actor=agent) if agent == "tobin" else Wait(actor=agent)

    sim, _ = make_sim(world, script)
    sim.step()
    facts = [r for r in sim.store.records() if r.kind == "observation" and not r.sediment]
    texts = {r.text for r in facts}
    assert {"Maren is in the harbour in round 0.", "Silas is in the harbour in round 0."} <= texts, texts
    assert all(set(r.owners) == {"tobin"} for r in facts)
    ids = {r.id for r in facts}
    for record in facts:  # one deposit: each fact linked to the others
        assert ids - {record.id} <= set(sim.store.neighbours(record.id))


def test_two_who_look_around_one_place_share_each_fact_they_both_saw(world):
    def script(rnd, agent, ctx):
        return Observe(actor=agent) if agent in ("tobin", "silas") else Wait(actor=agent)

    sim, _ = make_sim(world, script)
    sim.step()
    facts = [r for r in sim.store.records() if r.kind == "observation" and not r.sediment]
    assert facts and all({"tobin", "silas"} <= set(r.owners) for r in facts)
    for record in facts:  # each record is one fact: who or what it says was there is in its own text
        assert all(entry.incoming_text == record.text for entry in record.merge_log)


def test_relevance_eviction_keeps_what_the_goal_is_after_by_ids_not_words():
    """Short-term memory forgets by typed fields: an entry whose action touches an id the goal names stays."""
    from storyworld.kernel.actions import Move, Say, Wait
    from storyworld.kernel.shortterm import new_shortterm, relevance, remember_result
    from storyworld.kernel.state import CacheEntry

    stm = new_shortterm(["Find the letter"])
    # the words of the entries say nothing of the goal; their typed actions do (or do not) touch its ids
    spoke = CacheEntry(round=1, action="said something", result="", done=Say(actor="a", text="hm", to="maren"))
    walked = CacheEntry(round=2, action="went somewhere", result="", done=Move(actor="a", to="tavern"))
    waited = CacheEntry(round=3, action="waited", result="", done=Wait(actor="a"))
    focus = frozenset({"maren"})
    assert relevance(spoke, focus) == 1.0 and relevance(walked, focus) == 0.0
    for entry in (spoke, walked, waited):
        remember_result(stm, entry, policy="relevance", size=2, focus=focus)
    assert [e.round for e in stm.cache] == [1, 3]  # the walk, touching nothing it is after, went first
