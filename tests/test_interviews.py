"""Interviews: a character answers from what it holds, with where it learned it; `storyworld ask` (tiny world,
hashed embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doubles import HashEmbedder
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


def test_as_of_a_round_what_was_learned_later_is_not_held(planted):
    world, sim, bell, boat = planted
    earlier = AsOf(sim.store, 1)
    assert boat not in [r.id for r in earlier.held_by("ada")] and bell in [r.id for r in earlier.held_by("maren")]
    answer = interview(world, earlier, "ada", "Do you know that the supply boat is late?", round_=1)
    assert boat not in [k.record_id for k in answer.records]


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