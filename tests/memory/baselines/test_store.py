"""Baseline stores: one row per witness, the consensus store's atomization and keys, no leaks, round trips."""

from __future__ import annotations

import random

import numpy as np
import pytest

from memory import ConsensusStore, Deposit, StoreFileError
from memory.baselines import STORES, BaselineSettings, CollaborativeStore, GenerativeStore, GMemoryStore, from_files, make
from memory.baselines.base import STATE_FILE, VECTORS_FILE
from tests.support.deposits import AGENTS, random_world, scene_deposits
from tests.support.doubles import HashEmbedder

BACKENDS = tuple(STORES)  # the three baselines


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


def test_one_row_per_witness_and_nothing_shared_or_linked(backend):
    store = make(backend, embedder=HashEmbedder())
    ids = store.remember_many(scene_deposits())
    assert [len(x) for x in ids] == [1] * 6
    flat = [i for x in ids for i in x]
    assert len(set(flat)) == 6, "every witness gets its own row"
    for rid in flat:
        assert len(store.get(rid).owners) == 1
        assert store.neighbours(rid) == []
    stats = store.stats()
    assert stats["shared"] == 0 and stats["linked"] == 0 and stats["edges"] == 0
    assert stats["max_owners"] == 1
    assert stats["sim"] == stats["records"] - stats["sediment"]


def test_atomization_matches_the_consensus_store(backend):
    text = "Hamlet met the ghost on the platform; the ghost named his murderer. Horatio saw it, and Marcellus swore silence."
    consensus = ConsensusStore.open(None, embedder=HashEmbedder())
    baseline = make(backend, embedder=HashEmbedder())
    for owner in ("hamlet", "horatio"):
        c_ids = consensus.remember(owner, text, round=1, place="platform")
        b_ids = baseline.remember(owner, text, round=1, place="platform")
        assert len(b_ids) == len(c_ids) > 1
        assert [baseline.get(i).text for i in b_ids] == [consensus.get(i).text for i in c_ids]
    assert len(baseline.records()) == 2 * len(consensus.records()), "one row per witness per statement"


def test_stats_carry_the_consensus_keys(backend):
    consensus = ConsensusStore.open(None, embedder=HashEmbedder())
    consensus.remember_many(scene_deposits())
    consensus.recall("hamlet", "poison", k=3)
    baseline = make(backend, embedder=HashEmbedder())
    baseline.remember_many(scene_deposits())
    baseline.recall("hamlet", "poison", k=3)
    missing = set(consensus.stats()) - set(baseline.stats())
    assert not missing, missing
    assert set(baseline.stats()["latency_bins"]["0-4"]) == set(consensus.stats()["latency_bins"]["0-4"])


def test_recall_returns_only_what_the_caller_may_read(backend):
    store = make(backend, embedder=HashEmbedder(), settings=BaselineSettings(insight_min_rows=3, reflection_threshold=20))
    rng = random.Random(7)
    random_world(store, rng)
    for agent in (*AGENTS, "stranger"):
        for query in ("poison crown", "ghost at night", "the queen's ship"):
            for hit in store.recall(agent, query, k=6):
                assert store.can_read(hit.record.id, agent)
                assert agent in hit.record.owners  # what the kernel reads for provenance
                own = store.get(hit.record.id)
                if backend != "collaborative":
                    assert agent in own.owners
    assert store.stats()["leaks"] == 0
    assert store.recall("stranger", "poison", k=5) == []


def test_dump_from_files_round_trip(backend):
    store = make(backend, embedder=HashEmbedder(), settings=BaselineSettings(insight_min_rows=3, reflection_threshold=20))
    random_world(store, random.Random(3))
    store.recall("hamlet", "poison", k=4)
    files = store.dump()
    assert set(files) == {STATE_FILE, VECTORS_FILE}
    assert all(isinstance(v, bytes) for v in files.values())
    assert b"pickle" not in files[VECTORS_FILE][:128]
    again = from_files(backend, files, embedder=HashEmbedder(),
                       settings=BaselineSettings(insight_min_rows=3, reflection_threshold=20))
    assert again.records() == store.records()
    assert again.dump() == files
    for agent in AGENTS:
        a = [(h.record.id, round(h.score, 6)) for h in store.recall(agent, "the ghost and the crown", k=5, round=20)]
        b = [(h.record.id, round(h.score, 6)) for h in again.recall(agent, "the ghost and the crown", k=5, round=20)]
        assert a == b
    # Writing on after a reload continues the id sequence.
    new = again.remember("hamlet", "Hamlet buys a new hat.", round=30)
    assert min(new) > max(r.id for r in store.records())


def test_save_and_open_folder(backend, tmp_path):
    cls = {"generative": GenerativeStore, "gmemory": GMemoryStore, "collaborative": CollaborativeStore}[backend]
    store = cls.open(tmp_path / "mem", embedder=HashEmbedder())
    store.remember_many(scene_deposits())
    written = store.save()
    assert written > 0
    again = cls.open(tmp_path / "mem", embedder=HashEmbedder())
    assert again.records() == store.records()
    assert again.stats()["bytes"] == written


def test_damaged_and_foreign_files_are_refused_by_name(backend):
    store = make(backend, embedder=HashEmbedder())
    store.remember_many(scene_deposits())
    files = store.dump()
    with pytest.raises(StoreFileError, match="memory.msgpack"):
        from_files(backend, {**files, STATE_FILE: b"\x00garbage"}, embedder=HashEmbedder())
    other = next(b for b in BACKENDS if b != backend)
    with pytest.raises(StoreFileError, match=f"holds a '{backend}' store"):
        from_files(other, files, embedder=HashEmbedder())
    with pytest.raises(StoreFileError, match="memory.npy"):
        from_files(backend, {**files, VECTORS_FILE: b"not numpy"}, embedder=HashEmbedder())
    # A missing vector file is rebuilt from the texts, with a notice.
    rebuilt = from_files(backend, {STATE_FILE: files[STATE_FILE]}, embedder=HashEmbedder())
    assert rebuilt.notices and "re-embedding" in rebuilt.notices[0]
    assert rebuilt.dump()[VECTORS_FILE] == files[VECTORS_FILE]


def test_bad_input_changes_nothing(backend):
    store = make(backend, embedder=HashEmbedder())
    store.remember_many(scene_deposits())
    before = store.dump()
    bad = [Deposit(owner="hamlet", statements=["fine."], round=2), Deposit(owner="bad owner!", statements=["x"], round=2)]
    with pytest.raises(ValueError, match=r"deposits\[1\]\.owner"):
        store.remember_many(bad)
    with pytest.raises(ValueError, match="based_on"):
        store.remember("hamlet", "Something.", based_on=[9999])
    with pytest.raises(ValueError, match="empty"):
        store.recall("hamlet", "   ")
    assert store.dump() == before


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown baseline"):
        make("nonesuch", embedder=HashEmbedder())


def test_vectors_are_normalised_rows_of_the_embedder():
    store = make("collaborative", embedder=HashEmbedder())
    ids = store.remember("hamlet", "The ghost walks at midnight.", round=1)
    row = store._matrix[store._row[ids[0]]]
    assert np.allclose(row, HashEmbedder().encode(["The ghost walks at midnight."])[0])


@pytest.fixture(scope="session")
def minilm():
    """The bundled sentence embedder, loaded once (skips when its package is absent)."""
    from memory.embedder import EmbedderError, shared_embedder

    embedder = shared_embedder()
    try:
        embedder.encode(["warm up"])
    except EmbedderError as exc:
        pytest.skip(str(exc))
    return embedder


@pytest.mark.real_embedder
@pytest.mark.parametrize("backend", BACKENDS)
def test_real_embedder_recalls_by_meaning(backend, minilm):
    store = make(backend, embedder=minilm, settings=BaselineSettings(reflection_threshold=1e9, insight_min_rows=99))
    store.remember_many([
        Deposit(owner="horatio", statements=[text], round=5, kind="event")
        for text in ("The ghost of the old king walked on the battlements.", "Laertes sails for France.",
                     "The gravedigger sings while he digs.")
    ])
    (top, *_) = store.recall("horatio", "Who saw the dead king's spirit?", k=3, round=5)
    assert "ghost" in top.record.text
    files = store.dump()
    again = from_files(backend, files, embedder=minilm)
    assert again.recall("horatio", "Who saw the dead king's spirit?", k=1, round=5)[0].record.id == top.record.id


def test_empty_store_round_trips_without_notice(backend):
    store = make(backend, embedder=HashEmbedder())
    again = from_files(backend, store.dump(), embedder=HashEmbedder())
    assert again.records() == [] and again.notices == []


def test_a_damaged_vector_file_is_refused_naming_it(backend):
    store = make(backend, embedder=HashEmbedder())
    store.remember_many(scene_deposits())
    files = store.dump()
    with pytest.raises(ValueError, match=VECTORS_FILE):
        from_files(backend, {**files, VECTORS_FILE: files[VECTORS_FILE][:-3]}, embedder=HashEmbedder())

