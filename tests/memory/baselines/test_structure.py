"""What each baseline adds on top of its rows: reflections, insight nodes, access grants."""

from __future__ import annotations

import pytest

from memory import Deposit
from memory.baselines import BaselineSettings, CollaborativeStore, GenerativeStore, GMemoryStore, rule_importance
from tests.support.deposits import random_world, scene_deposits
from tests.support.doubles import HashEmbedder


def test_rule_importance_reads_kind_and_length():
    assert 1 <= rule_importance("x", "observation", "witnessed") <= 10
    assert rule_importance("Hamlet looked around.", "observation", "witnessed") < rule_importance(
        "Hamlet looked around.", "claim", "told")
    short = rule_importance("The king drinks.", "event", "witnessed")
    long = rule_importance("The king drinks " + "deep into the night while the court watches " * 4, "event", "witnessed")
    assert long > short
    assert rule_importance("y" * 10_000, "reflection", "told") == 10


def test_generative_reflections_point_back_to_their_evidence():
    store = GenerativeStore(embedder=HashEmbedder(), settings=BaselineSettings(reflection_threshold=25))
    for rnd in range(6):
        store.remember_many(scene_deposits(rnd))
    reflections = [r for r in store.records() if r.kind == "reflection"]
    assert reflections, "summed importance passed the threshold"
    for reflection in reflections:
        (owner,) = reflection.owners
        assert reflection.owners[owner].via == "inferred"
        assert reflection.based_on, "a reflection names its evidence"
        for rid in reflection.based_on:
            evidence = store.get(rid)
            assert owner in evidence.owners, "evidence is the reflecting agent's own rows"
            assert evidence.id < reflection.id
        assert 1 <= store.importance(reflection.id) <= 10
    assert store.stats()["reflections"] == len(reflections)
    assert store.stats()["shared"] == 0


def test_generative_model_hooks_are_used_and_failures_fall_back():
    rated: list[str] = []

    def rate(text: str) -> int:
        rated.append(text)
        return 9

    def reflect(texts: list[str]) -> str:
        raise RuntimeError("model down")

    store = GenerativeStore(embedder=HashEmbedder(), settings=BaselineSettings(reflection_threshold=30),
                            rate=rate, reflect=reflect)
    store.remember_many(scene_deposits(1))
    store.remember_many(scene_deposits(2))
    assert rated and all(store.importance(r.id) == 9 for r in store.records() if r.kind != "reflection")
    reflections = [r for r in store.records() if r.kind == "reflection"]
    assert reflections and "centre of what I have seen" in reflections[0].text  # the rule stood in


def test_generative_score_prefers_recent_and_important_rows():
    store = GenerativeStore(embedder=HashEmbedder(), settings=BaselineSettings(reflection_threshold=1e9))
    old = store.remember("hamlet", "The ghost walks on the platform.", round=0, kind="observation")[0]
    new = store.remember("hamlet", "The ghost walks on the platform tonight.", round=60, kind="claim", via="told",
                         source="horatio")[0]
    hits = store.recall("hamlet", "ghost platform", k=2, round=60)
    assert [h.record.id for h in hits] == [new, old]
    assert hits[0].score > hits[1].score
    # Recall counts as access: the old row is fresh again afterwards.
    assert store.get(old).last_access_round == 60


def test_gmemory_insights_point_back_to_rows_sharing_an_entity():
    store = GMemoryStore(embedder=HashEmbedder(), settings=BaselineSettings(insight_min_rows=3))
    for rnd in range(4):
        store.remember("horatio", f"Hamlet paces the hall in round {rnd}.", round=rnd, place="hall")
        store.remember("horatio", f"Ophelia weeps by the brook in round {rnd}.", round=rnd, place="brook")
    insights = [r for r in store.records() if r.kind == "insight"]
    assert {i.text.split()[0] for i in insights} == {"Hamlet", "Ophelia"}
    for insight in insights:
        assert insight.owners.keys() == {"horatio"}
        name = insight.text.split()[0]
        assert len(insight.based_on) == 3
        assert all(name in store.get(r).text and store.get(r).kind == "event" for r in insight.based_on)
    # Place words do not make insights ("hall", "brook").
    assert not any(i.text.startswith(("Hall", "Brook")) for i in insights)
    hits = store.recall("horatio", "What is Hamlet doing?", k=4)
    kinds = [h.record.kind for h in hits]
    assert "insight" in kinds and "event" in kinds and kinds.count("insight") <= 2
    assert store.stats()["insights"] == len(insights)


def test_gmemory_is_per_agent():
    store = GMemoryStore(embedder=HashEmbedder(), settings=BaselineSettings(insight_min_rows=2))
    store.remember("horatio", "Hamlet paces.", round=1)
    store.remember("ophelia", "Hamlet sighs.", round=1)
    assert not [r for r in store.records() if r.kind == "insight"], "two agents' rows never pool"


def test_collaborative_grants_a_reader_instead_of_merging():
    store = CollaborativeStore(embedder=HashEmbedder())
    ids = store.remember_many(scene_deposits())
    speaker_row = ids[-1][0]
    assert store.get(speaker_row).owners.keys() == {"hamlet"}
    assert store.readers(speaker_row) == ["horatio", "ophelia"]
    assert store.can_read(speaker_row, "horatio") and not store.can_read(speaker_row, "claudius")
    stats = store.stats()
    assert stats["shared"] == 0 and stats["grants"] == 2 and stats["max_owners"] == 1
    # The listener's own row wins over the granted copy of the same words: no duplicate lines.
    hits = store.recall("horatio", "The king poisoned my father.", k=5)
    texts = [h.record.text for h in hits]
    assert len(texts) == len(set(texts))
    assert all("horatio" in store.get(h.record.id).owners for h in hits)


def test_collaborative_share_shows_a_granted_row_as_told():
    store = CollaborativeStore(embedder=HashEmbedder())
    (rid,) = store.remember("claudius", "I keep the poison in a locked chest.", round=3)
    assert store.recall("gertrude", "poison chest", k=3) == []
    assert store.share(rid, "gertrude") is True
    assert store.share(rid, "gertrude") is False
    (hit,) = store.recall("gertrude", "poison chest", k=3)
    assert hit.record.id == rid
    assert hit.record.owners["gertrude"].via == "told" and hit.record.owners["gertrude"].source == "claudius"
    assert store.get(rid).owners.keys() == {"claudius"}, "the stored row keeps its one owner"
    with pytest.raises(ValueError, match="not a record id"):
        store.share(424242, "gertrude")


def test_collaborative_grants_survive_a_round_trip():
    store = CollaborativeStore(embedder=HashEmbedder())
    random_world(store, __import__("random").Random(5))
    again = CollaborativeStore.from_files(store.dump(), embedder=HashEmbedder())
    for record in store.records():
        assert again.readers(record.id) == store.readers(record.id)


def test_told_deposit_without_a_speaker_row_grants_nothing():
    store = CollaborativeStore(embedder=HashEmbedder())
    store.remember_many([Deposit(owner="horatio", statements=["A rumour."], round=1, event_id="e/claim",
                                 via="told", source="nobody")])
    assert store.stats()["grants"] == 0
