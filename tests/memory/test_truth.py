"""Memory truth: opposites never merge, paraphrases do, claims keep their speaker, lies are retracted
wherever they merged, disputes show across owners, unmerge gives a statement back, canon survives a late start."""

from __future__ import annotations

import json

import pytest

from memory import ConsensusStore, frames, guard
from memory.trust import BASE_CONFIDENCE
from memory.disputes import summary
from tests.support.fixtures_memory import HashEmbedder
from tests.support.paths import TINY


@pytest.fixture
def store() -> ConsensusStore:
    return ConsensusStore.open(None, embedder=HashEmbedder())


@pytest.mark.parametrize("a,b", [
    ("Agnes found the lens in the study.", "Agnes found the lens missing from the study."),
    ("The lamp in the hall was lit when Hale arrived.", "The lamp in the hall went out when Hale arrived."),
    ("The servant was climbing up to the attic.", "The servant was coming down from the attic."),
    ("The ship left port as the storm began.", "The ship left port after the storm ended."),
    ("The prisoner is alive.", "The prisoner is dead."),
    ("The guests arrived before the dinner.", "The guests arrived after the dinner."),
    ("The doctor arrived at the manor.", "The doctor left the manor."),
    ("The gardener carried the ladder to the shed.", "The gardener carried the ladder from the shed."),
    ("Hale saw the letter.", "Hale did not see the letter."),
    ("The guard opened the door.", "The guard refused to open the door."),
    ("The army crossed the river.", "The army failed to cross the river."),
])
def test_guard_keeps_opposites_apart(a, b):
    for x, y in ((a, b), (b, a)):
        verdict = guard.check(x, y)
        assert not verdict.ok and verdict.reason in guard.POLAR_CONTRADICTIONS, (x, y, verdict)


@pytest.mark.parametrize("a,b", [
    ("The lens was not found.", "The lens was missing."),
    ("The candle did not stay lit.", "The candle went out."),
    ("Hale did not remember the name.", "Hale forgot the name."),
    ("The guard never saw the thief.", "The guard did not see the thief."),
])
def test_negation_paraphrases_are_not_opposites(a, b):
    assert guard.check(a, b).ok
    assert frames.similarity(a, b) >= 0.8


@pytest.mark.parametrize("a,b", [
    ("In the Senate house, Caesar was stabbed.", "Caesar was stabbed in the Senate house."),
    ("Brutus stabbed Caesar in the Senate house.", "Caesar was stabbed by Brutus in the Senate house."),
    ("The steward announced that dinner was served.", "The steward said that dinner was served."),
    ("Agnes stayed in the library.", "Agnes remained in the library."),
    ("The vase fell from the mantel.", "The vase dropped from the mantel."),
    ("The prisoner fled after the guard died.", "The prisoner fled after the guard's death."),
])
def test_frames_see_through_order_voice_and_synonyms(a, b):
    assert guard.check(a, b).ok, guard.check(a, b)
    assert frames.similarity(a, b) >= 0.8


@pytest.mark.parametrize("a,b", [
    ("The maid broke the mirror in the hall.", "The butler broke the mirror in the hall."),
    ("Hale drank the wine at supper.", "Hale drank the water at supper."),
    ("Hale killed the man in the alley.", "The man in the alley killed Hale."),
])
def test_guard_keeps_other_participants_apart(a, b):
    assert not guard.check(a, b).ok


def test_identical_one_word_lines_from_two_speakers_stay_two_records(store):
    (a,) = store.remember("maren", ["Yes."], kind="claim", via="told", source="tobin", event_id="r1-00/claim")
    (b,) = store.remember("ada", ["Yes."], kind="claim", via="told", source="cora", event_id="r2-00/claim")
    assert a != b
    (u1,) = store.remember("maren", ["Yes."], kind="utterance", event_id="r1-00")
    (u2,) = store.remember("maren", ["Yes."], kind="utterance", event_id="r2-00")
    assert u1 != u2
    # the same speaker saying the same thing to another listener is the same claim
    (c,) = store.remember("ada", ["Yes."], kind="claim", via="told", source="tobin", event_id="r3-00/claim")
    assert c == a and store.get(a).speaker == "tobin"


def test_merged_lie_is_retracted_wherever_it_went(store):
    (truth,) = store.remember("maren", ["The boat sank at the reef."], kind="claim", via="told", source="tobin",
                              event_id="r1-00/claim")
    (lie,) = store.remember("ada", ["The boat sank at the reef."], kind="claim", via="told", source="tobin",
                            event_id="r5-00/claim")
    assert lie == truth  # merged by text: the record's own event id is r1's
    (derived,) = store.remember("ada", "Ada will not sail past the reef.", kind="inference", via="inferred",
                                based_on=[lie])
    affected = store.retract_event("r5-00/claim", by="cora", round=6)
    record = store.get(truth)
    assert record.owners["ada"].status == "retracted"
    assert record.owners["maren"].status == "believed"  # she heard it at another time
    assert derived in affected and "contaminated" in store.get(derived).owners["ada"].flags
    assert store.retractions()[-1].event_id == "r5-00/claim"
    assert store.reliability("ada", "tobin") < store.reliability("maren", "tobin")


def test_simulation_retract_follows_a_merged_lie(tmp_path):
    from types import SimpleNamespace

    from storyworld.game import session
    from storyworld.kernel.state import Settings
    from storyworld.world import load_world
    from tests.support.doubles import ScriptedMind

    world = load_world(TINY)
    sim = session.new_simulation(world, None, Settings(seed=3), ScriptedMind(), embedder=HashEmbedder())
    (rid,) = sim.store.remember("maren", ["The lamp is broken."], kind="claim", via="told", source="tobin",
                                event_id="r1-00/claim")
    sim.store.remember("tobin", ["The lamp is broken."], kind="claim", via="inferred", event_id="r9-00/claim")
    sim.retract(SimpleNamespace(retractions=(("r9-00/claim", "maren"),), round=9))
    record = sim.store.get(rid)
    assert record.owners["tobin"].status == "retracted" and record.owners["maren"].status == "believed"


def test_cross_owner_dispute(store):
    (lit,) = store.remember("hale", "The lamp in the lighthouse was lit.", round=1)
    (out,) = store.remember("agnes", "The lamp in the lighthouse was not lit.", round=1)
    assert lit != out
    assert store.cross_disputes() == [(min(lit, out), max(lit, out))]
    assert store.stats()["cross_owner_disputes"] == 1
    # each owner still believes her own: neither knows what the other holds
    assert store.get(lit).owners["hale"].status == "believed"


def test_dispute_summary_names_each_side():
    text = summary([("Agnes", "Agnes found the lens.", "The lens is missing."),
                    ("Hale", "The lens is missing.", "Agnes found the lens.")])
    assert text == "Agnes: lens found · Hale: lens missing"


def test_unmerge_restores_event_id_and_confidence(store):
    (rid,) = store.remember("hale", "The lamp was lit in the lighthouse.", event_id="e1")
    (same,) = store.remember("maren", "In the lighthouse the lamp was lit.", event_id="e2")
    assert same == rid
    assert store.get(rid).owners["maren"].confidence > BASE_CONFIDENCE["witnessed"]  # corroborated
    split = store.unmerge(rid, "maren")
    assert split is not None
    assert store.get(split).event_id == "e2"
    assert store.get(split).owners["maren"].confidence == pytest.approx(BASE_CONFIDENCE["witnessed"])
    assert store.get(rid).owners["hale"].confidence == pytest.approx(BASE_CONFIDENCE["witnessed"])
    # a later statement of e2 joins the split record by its event id again
    (again,) = store.remember("ada", "Something about the lamp.", event_id="e2")
    assert again == split


def test_unmerge_restores_a_dispute_the_merge_settled(store):
    (a,) = store.remember("hale", "The lamp in the lighthouse was lit.", via="told", source="maren")
    (b,) = store.remember("hale", "The lamp in the lighthouse was not lit.", via="told", source="tobin")
    assert store.disputes("hale") == [(a, b)]
    (seen,) = store.remember("hale", "The lamp in the lighthouse was lit.", via="witnessed")
    assert seen == a and store.disputes("hale") == []
    assert store.get(b).owners["hale"].status == "doubted"
    store.unmerge(a, "hale")
    assert store.disputes("hale") == [(a, b)]
    assert store.get(a).owners["hale"].status == "disputed" and store.get(b).owners["hale"].status == "disputed"


def test_late_start_keeps_canon(store):
    store.remember("hale", "The lighthouse was built by the old keeper.", round=-400, via="sediment")
    store.remember("hale", "The old keeper drowned in the storm.", round=-380, via="sediment", kind="event")
    for rnd in (301, 302):
        assert store.decay(rnd) == 0
    holdings = [h for r in store.records() for h in r.owners.values()]
    assert all(not h.archived and h.confidence > 0.85 for h in holdings)


def _save_with_a_dispute(tmp_path, monkeypatch):
    from storyworld.game import session
    from storyworld.kernel.state import Settings
    from storyworld.world import load_world
    from tests.support.doubles import ScriptedMind

    monkeypatch.setattr("memory.embedder.shared_embedder", lambda *a, **k: HashEmbedder())
    world = load_world(TINY)
    sim = session.new_simulation(world, None, Settings(seed=3), ScriptedMind(), embedder=HashEmbedder())
    (lit,) = sim.store.remember("maren", "The lamp in the lighthouse was lit.", event_id="x1")
    (dark,) = sim.store.remember("tobin", "The lamp in the lighthouse was not lit.", event_id="x2")
    save = tmp_path / "save"
    session.save_simulation(sim, save)
    return save, lit, dark


def test_cross_owner_dispute_shows_in_who_knows_json(tmp_path, monkeypatch, capsys):
    from storyworld.cli import main

    save, lit, dark = _save_with_a_dispute(tmp_path, monkeypatch)
    assert main(["who-knows", str(save), "lamp in the lighthouse lit", "--json"]) == 0
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows[lit]["disputes"][0]["record"] == dark
    assert rows[lit]["disputes"][0]["summary"] == "Maren: lamp lit · Tobin: lamp not lit"
    assert main(["stats", str(save), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cross_owner_disputes"] == 1


def test_unmerge_command(tmp_path, monkeypatch, capsys):
    from storyworld.game import session
    from storyworld.cli import main
    from storyworld.kernel.state import Settings
    from storyworld.world import load_world
    from tests.support.doubles import ScriptedMind

    monkeypatch.setattr("memory.embedder.shared_embedder", lambda *a, **k: HashEmbedder())
    world = load_world(TINY)
    sim = session.new_simulation(world, None, Settings(seed=3), ScriptedMind(), embedder=HashEmbedder())
    (rid,) = sim.store.remember("maren", "The lamp was lit in the lighthouse.", event_id="e1")
    (same,) = sim.store.remember("tobin", "In the lighthouse the lamp was lit.", event_id="e2")
    assert same == rid
    save = tmp_path / "save"
    session.save_simulation(sim, save)
    assert main(["unmerge", str(save), str(rid), "tobin", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["split"] is not None and out["event_id"] == "e2"
    assert out["confidence"] == pytest.approx(BASE_CONFIDENCE["witnessed"])
    reopened = session.load_simulation(save, None, embedder=HashEmbedder(), world=world)
    assert reopened.store.get(out["split"]).owners == {"tobin": reopened.store.get(out["split"]).owners["tobin"]}
    assert main(["unmerge", str(save), str(rid), "nobody"]) == 1


def test_min_confidence_filter_and_expiry_on_recall():
    from memory import MemorySettings

    store = ConsensusStore.open(None, embedder=HashEmbedder(), settings=MemorySettings(min_recall_confidence=0.5))
    (sure,) = store.remember("hale", "The ferry leaves the harbour at noon.", round=1, expires_at=4)
    (unsure,) = store.remember("hale", "The ferry leaves the harbour at dusk.", round=1, confidence=0.3)
    ids = {h.record.id for h in store.recall("hale", "ferry harbour", round=2)}
    assert sure in ids and unsure not in ids
    assert sure not in {h.record.id for h in store.recall("hale", "ferry harbour", round=5)}


def test_validation_records_and_revalidation_lift_contamination(store):
    (lie,) = store.remember("hale", "The keeper hid the key.", via="told", source="tobin", kind="claim")
    (derived,) = store.remember("hale", "The lamp room is locked.", via="inferred", kind="inference", based_on=[lie])
    (seen,) = store.remember("maren", "The lamp room is locked.", via="witnessed", kind="inference")
    assert seen == derived
    store.retract(lie, by="maren")
    assert "contaminated" in store.get(derived).owners["hale"].flags
    store.remember("ada", "The lamp room is locked.", via="witnessed", kind="inference", round=3)
    record = store.get(derived)
    assert "contaminated" not in record.owners["hale"].flags and "revalidated" in record.owners["hale"].flags
    assert record.validation_log[-1].validator == "ada" and record.validation_log[-1].result == "confirmed"
    assert record.validation_log[-1].round == 3


def test_write_floor_doubts_a_weak_claim(store):
    store.set_reliability("hale", "tobin", 0.1)
    (rid,) = store.remember("hale", "The keeper is a smuggler.", via="told", source="tobin", kind="claim")
    holding = store.get(rid).owners["hale"]
    assert holding.status == "doubted" and "below-write-floor" in holding.flags
