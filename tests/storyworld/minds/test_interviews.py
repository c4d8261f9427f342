"""Interviews and `bench knows`: a character answers from what it holds, with where it learned it (`storyworld ask`);
the bench scores answers against the owners, and fails when the answer path asserts what is not held (tiny world,
hashed embedder)."""

from __future__ import annotations

import json

import msgspec
import pytest

from memory.records import RecallHit
from storyworld.benches import knows
from storyworld.report import interviews
from storyworld.report.interviews import Probe
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.minds.interview import AsOf, interview
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.paths import TINY

BELL = "The harbour bell cracked in the frost."
BOAT = "The supply boat is three days late."


@pytest.fixture
def planted():
    """The tiny world's store with a record Maren witnessed and Tobin lacks, one Ada was told and Maren lacks."""
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=0), None, embedder=HashEmbedder())
    (bell,) = sim.store.remember("maren", [BELL], round=1, event_id="k1", place="lighthouse")
    (boat,) = sim.store.remember("ada", [BOAT], round=2, via="told", source="silas", place="tavern")
    sim.state.round = 2  # as if two rounds were played
    return world, sim, bell, boat


def test_an_interview_answers_from_the_agents_own_memory_with_provenance(planted):
    world, sim, bell, boat = planted
    told = interview(world, sim.store, "ada", "Do you know that the supply boat is late?", round_=2)
    assert told.act == "answer" and [k.record_id for k in told.records] == [boat]
    assert told.text == "Silas told me that the supply boat is three days late."
    assert told.provenance == ("told by Silas r2",)
    lacking = interview(world, sim.store, "maren", "Do you know that the supply boat is late?", round_=2)
    assert boat not in [k.record_id for k in lacking.records]  # she was never told
    follow = interview(world, sim.store, "ada", "Who told you that?", round_=2, before=told.text)
    assert [k.record_id for k in follow.records] == [boat] and follow.provenance == ("told by Silas r2",)
    assert follow.text == "Silas told me, just now."  # the follow-up answers who, from the holding's source
    # a conversation: the follow-up points back to what the last answer rested on, whatever its words
    again = interview(world, sim.store, "ada", "Who told you?", round_=2, previous=told)
    assert again.text == "Silas told me, just now." and [k.record_id for k in again.records] == [boat]
    when = interview(world, sim.store, "ada", "When was that?", round_=4, previous=again)
    assert when.text.startswith("That was 2 rounds ago") or when.text.startswith("It happened 2 rounds ago")
    unknown = interview(world, sim.store, "maren", "Who told you?", round_=2)
    assert unknown.act == "unknown"  # nothing said before: no source to name, and no guess


def test_as_of_a_round_what_was_learned_later_is_not_held(planted):
    world, sim, bell, boat = planted
    earlier = AsOf(sim.store, 1)
    assert boat not in [r.id for r in earlier.held_by("ada")] and bell in [r.id for r in earlier.held_by("maren")]
    answer = interview(world, earlier, "ada", "Do you know that the supply boat is late?", round_=1)
    assert boat not in [k.record_id for k in answer.records]


class AnyRecord:
    """The answer path broken on purpose: recall searches everyone's records, as if the owner held them all."""

    def __init__(self, store) -> None:
        self.store = store

    def __getattr__(self, name):
        return getattr(self.store, name)

    def recall(self, owner, query, k=None, **options):
        best: dict[int, RecallHit] = {}
        for other in self.store.owners():
            for hit in self.store.recall(other, query, k=k):
                if hit.record.id not in best or hit.score > best[hit.record.id].score:
                    holding = next(iter(hit.record.owners.values()))
                    record = msgspec.structs.replace(hit.record, owners={**hit.record.owners, owner: holding})
                    best[hit.record.id] = RecallHit(record=record, via=hit.via, score=hit.score)
        return sorted(best.values(), key=lambda h: -h.score)


def test_generated_questions_ask_for_a_typed_field_and_never_copy_the_record(planted):
    world, sim, bell, boat = planted
    facts = interviews.facts_of(world, sim.store, sim.state.events)
    probes = interviews.generate(world, sim.store, facts, 30, seed=1, now=2)
    assert {p.kind for p in probes} == {"who", "where", "when"} and {p.knows for p in probes} == {True, False}
    texts = [r.text.lower() for r in sim.store.records()]
    for probe in probes:
        for text in texts:
            words = text.split()
            assert not any(" ".join(words[i:i + 4]) in probe.question.lower() for i in range(len(words) - 3))
        # known: a record the agent holds answers the cue; unknown: none does, and it is not about the agent
        held = {cue for r in interviews.held(sim.store, probe.agent) if r.id in facts
                for cue in interviews.cues(facts[r.id])}
        assert ((probe.kind, *probe.cue) in held) is probe.knows
        if not probe.knows:
            assert probe.agent not in probe.cue
            seen = {(a, facts[r.id].place) for r in interviews.held(sim.store, probe.agent) if r.id in facts
                    for a in facts[r.id].actors}
            if probe.kind == "where":  # nothing it holds puts the one asked about at an answer place
                assert not any((probe.cue[0], p) in seen for p in interviews.answers(facts)[("where", *probe.cue)])
    assert interviews.generate(world, sim.store, facts, 30, seed=1, now=2) == probes  # seeded


PROBES = [Probe("ada", "Where was Silas in round -9?", True, [["tavern"]], "where"),
          Probe("maren", "Who was at the lighthouse in round -30?", False, [["Silas"]], "who")]


def test_the_score_rewards_the_right_words_and_honest_ignorance_and_can_come_out_zero():
    honest = {"ada": "He was in the Gull tavern.", "maren": "I do not know; I came after."}
    best = interviews.score(PROBES, lambda agent, question: honest[agent])
    assert best["accuracy_on_knowns"] == best["i_do_not_know_rate"] == 1.0
    assert best["false_knowledge"] == best["asserted_on_unknowns"] == 0.0
    wrong = {"ada": "I do not know.", "maren": "Silas was there, at the lamp."}
    worst = interviews.score(PROBES, lambda agent, question: wrong[agent])
    assert worst["accuracy_on_knowns"] == worst["i_do_not_know_rate"] == 0.0
    assert worst["unknown_said_on_knowns"] == worst["false_knowledge"] == worst["asserted_on_unknowns"] == 1.0
    # echoing the question is not knowing the answer
    echo = interviews.score([Probe("ada", "Was Silas in the tavern?", True, [["tavern"]], "key")],
                            lambda agent, question: question)
    assert echo["accuracy_on_knowns"] == 0.0


def test_bench_knows_on_the_interview_path_catches_an_answer_path_that_reads_everyones_records(planted):
    world, sim, bell, boat = planted
    facts = interviews.facts_of(world, sim.store, sim.state.events)
    probes = interviews.generate(world, sim.store, facts, 40, seed=0, now=2)
    honest, _ = knows.asker(world, sim.store, 2)
    broken, _ = knows.asker(world, AnyRecord(sim.store), 2)
    right = interviews.score(probes, honest)
    leaky = interviews.score(probes, broken)
    assert right["i_do_not_know_rate"] > leaky["i_do_not_know_rate"]
    assert right["asserted_on_unknowns"] < leaky["asserted_on_unknowns"]


@pytest.fixture
def save(planted, tmp_path, monkeypatch):
    """The planted store saved; the CLI's embedder is the hashed one."""
    world, sim, bell, boat = planted
    monkeypatch.setattr("memory.embedder.shared_embedder", lambda *a, **k: HashEmbedder())
    folder = tmp_path / "save"
    session.save_simulation(sim, folder)
    return folder, bell, boat


def test_ask_prints_the_answer_and_each_record_with_its_provenance(save, capsys):
    from storyworld.cli import main

    folder, bell, boat = save
    assert main(["ask", str(folder), "Ada", "Do you know that the supply boat is late?"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["Ada [answer]: Silas told me that the supply boat is three days late.",
                   f"  #{boat} told by Silas r2: {BOAT}"]
    assert main(["ask", str(folder), "maren", "Do you know that the harbour bell cracked?", "--as", "tobin", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["agent"] == "maren" and answer["asker"] == "tobin" and answer["act"] == "answer"
    assert [r["id"] for r in answer["records"]] == [bell] and answer["records"][0]["via"] == "witnessed"
    assert answer["text"].startswith("Tobin, ")  # said to the one who asks


def test_ask_is_read_only_and_reports_bad_input_in_one_line(save, capsys):
    from storyworld.cli import main

    folder, _, boat = save
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["ask", str(folder), "nobody", "Who are you?"]) == 1
    assert capsys.readouterr().err.strip() == ("storyworld: no character 'nobody' in tiny; "
                                               "characters: maren, tobin, ada, silas, elias")
    assert main(["ask", str(folder), "ada", "Who are you?", "--round", "9"]) == 1
    assert "is at round" in capsys.readouterr().err
    assert main(["ask", str(folder), "ada", "Is the supply boat late?", "--round", "1", "--candid", "--json"]) == 0
    assert boat not in [r["id"] for r in json.loads(capsys.readouterr().out)["records"]]  # told her in round 2
    with pytest.raises(SystemExit) as usage:
        main(["ask", str(folder), "ada"])
    assert usage.value.code == 2
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_bench_knows_command_prints_figures_from_the_store_or_a_key(save, capsys, tmp_path):
    from storyworld.cli import main

    folder, _, _ = save
    assert main(["bench", "knows", str(folder), "--questions", "12", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert 0 < result["questions"] <= 12 and result["false_knowledge"] == 0.0
    assert result["questions_from"] == "generated from the store" and result["model_asked"] == "yes"
    key = tmp_path / "key.toml"
    key.write_text('world = "tiny"\n[[question]]\nagent = "Ada"\nquestion = "Is the supply boat late?"\n'
                   'knows = true\nanswer = [["three days", "late"]]\n'
                   '[[question]]\nagent = "tobin"\nquestion = "Is the supply boat late?"\nknows = false\n')
    assert main(["bench", "knows", str(folder), "--key", str(key)]) == 0
    out = capsys.readouterr().out
    assert "knowns: 1" in out and "unknowns: 1" in out and "accuracy_on_knowns: 1.0" in out
    key.write_text('world = "hamlet"\n[[question]]\nagent = "ada"\nquestion = "?"\nknows = false\n')
    assert main(["bench", "knows", str(folder), "--key", str(key)]) == 1
    assert "the key is for 'hamlet'" in capsys.readouterr().err
    assert main(["bench", "knows", str(folder), "--questions", "1"]) == 1


def test_asked_when_a_deed_of_the_backstory_happened_it_says_the_time_its_record_gives():
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=0), None, embedder=HashEmbedder())
    sim.store.remember("maren", ["Late on the Tuesday night the harbour bell cracked in the frost."], round=-3,
                       event_id="k9", place="lighthouse")
    told = interview(world, sim.store, "maren", "What do you know about the harbour bell?", round_=2)
    assert told.act == "answer", told
    when = interview(world, sim.store, "maren", "When was that?", round_=2, previous=told)
    assert "late on the Tuesday night, before all this" in when.text, when.text
