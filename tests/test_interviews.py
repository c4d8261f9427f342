"""Interviews and `bench knows`: a character answers from what it holds, with where it learned it (`storyworld ask`);
the bench scores answers against the owners, and fails when the answer path asserts what is not held (tiny world,
hashed embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from doubles import HashEmbedder
from memory.records import RecallHit
from storyworld.benches import knows
from storyworld.benches.knows import Pair
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.minds.interview import AsOf, interview
from storyworld.world import load_world

TINY = Path(__file__).parent / "data" / "worlds" / "tiny.toml"
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


PAIRS = lambda bell, boat: [  # noqa: E731 — the planted questions, both ways
    Pair("maren", bell, True, "witnessed"), Pair("tobin", bell, False),
    Pair("ada", boat, True, "told", "silas"), Pair("maren", boat, False),
]


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


def test_bench_knows_scores_a_planted_record_against_its_owners(planted):
    world, sim, bell, boat = planted
    result = knows.score(world, sim.store, pairs=PAIRS(bell, boat), round_=2)
    assert (result["questions"], result["positives"], result["negatives"]) == (4, 2, 2)
    assert result["answers"] == 8  # direct for all four, who for the two positives, about for the two negatives
    assert result["accuracy"] == result["knows_when_holds"] == result["not_when_not"] == 1.0
    assert result["false_knowledge"] == result["false_knowledge_all"] == 0.0
    assert result["provenance_accuracy"] == result["spoken_provenance"] == 1.0
    assert result["by_via"]["told"] == {"positives": 1, "knows_when_holds": 1.0, "provenance_accuracy": 1.0,
                                        "spoken_provenance": 1.0}
    assert not any(result["examples"].values())


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


def test_bench_knows_fails_when_the_answer_path_asserts_what_is_not_held(planted):
    world, sim, bell, boat = planted
    result = knows.score(world, AnyRecord(sim.store), pairs=PAIRS(bell, boat), round_=2)
    assert result["false_knowledge"] == 1.0 and result["not_when_not"] == 0.0 and result["accuracy"] == 0.5
    assert result["false_knowledge_all"] >= 0.25  # at least the two direct answers of the negatives
    wrong = result["examples"]["false_knowledge"]
    assert {row["agent"] for row in wrong} == {"tobin", "maren"} and "held by" in wrong[0]["holds"]


def test_sampled_questions_spread_over_vias_and_negatives_are_not_held_in_any_form(planted):
    world, sim, bell, boat = planted
    facts = knows.Facts(sim.store)
    askable, _ = knows.holdings(sim.store)
    pairs = knows.sample(world, facts, askable, 40, seed=1)
    positives = [p for p in pairs if p.positive]
    assert {p.via for p in positives} >= {"witnessed", "told", "sediment"}
    for pair in pairs:
        record = sim.store.get(pair.record_id)
        if pair.positive:
            assert record.owners[pair.agent].via == pair.via
        else:
            assert pair.agent not in record.owners
            assert not any(facts.same(r.id, pair.record_id) for r in sim.store.held_by(pair.agent))
    assert len({(p.agent, p.record_id) for p in pairs}) == len(pairs)
    assert knows.sample(world, facts, askable, 40, seed=1) == pairs  # seeded


@pytest.mark.parametrize(("text", "agent", "subject"), [
    ("The Ghost walked on the battlements.", "horatio", "the Ghost"),
    ("Marcellus and Barnardo saw a figure like the dead king.", "marcellus", "Barnardo"),
    ("A ship breaks on the rocks below the dark lighthouse.", "tobin", "the ship"),
])
def test_the_main_subject_of_a_record_is_what_an_about_question_names(text, agent, subject):
    world = load_world(Path(__file__).parents[1] / "worlds" / "hamlet.toml")
    assert knows.subject_of(world, text, agent) == subject


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


def test_bench_knows_command_prints_figures(save, capsys):
    from storyworld.cli import main

    folder, _, _ = save
    assert main(["bench", "knows", str(folder), "--questions", "12", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 12 and result["false_knowledge"] == 0.0
    assert main(["bench", "knows", str(folder), "--questions", "1"]) == 1
