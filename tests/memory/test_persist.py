"""Persistence of the consensus store: round trips, damaged files, index rebuild, SIGKILL during saves."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import msgspec
import pytest

from memory import ConsensusStore, Deposit, MemorySettings, StoreFileError
from tests.support.fixtures_memory import HashEmbedder
from tests.support.paths import REPO


def content(store: ConsensusStore):
    """Records (with holdings and logs), edges, disputes, retractions: what a round trip must keep."""
    return (
        msgspec.to_builtins(store.records()),
        store.edges(),
        {o: store.disputes(o) for o in store.owners()},
        msgspec.to_builtins(store.retractions()),
    )


def filled(folder=None) -> ConsensusStore:
    store = ConsensusStore.open(folder, embedder=HashEmbedder())
    store.remember("horatio", "The ghost appeared on the platform. Marcellus drew his sword.", round=1, event_id="e1")
    store.remember("marcellus", "The ghost appeared on the platform.", round=1, event_id="e1")
    store.remember("hamlet", "The ghost appeared on the platform.", round=2, via="told", source="horatio")
    store.remember("hamlet", "I will put an antic disposition on.", namespace="private:hamlet", kind="plan")
    (lie,) = store.remember("gertrude", "The king died of a serpent's sting.", via="told", source="claudius", kind="claim")
    store.remember("hamlet", "My mother says a serpent stung my father.", via="told", source="gertrude", based_on=[lie])
    store.set_reliability("hamlet", "claudius", 0.2)
    store.retract(lie, by="ghost")
    store.decay(9)
    return store


def test_save_open_round_trip(tmp_path):
    store = filled(tmp_path / "mem")
    store.save()
    again = ConsensusStore.open(tmp_path / "mem", embedder=HashEmbedder())
    assert content(again) == content(store)
    assert again.reliability("hamlet", "claudius") == 0.2
    assert again.generation == 1
    manifest = json.loads((tmp_path / "mem" / "manifest.json").read_text())
    assert manifest["format"] == 1 and set(manifest["files"]) == {"memory.msgpack", "memory.vectors", "memory.usearch"}
    # recall answers are the same after reopening
    assert [h.record.id for h in again.recall("hamlet", "ghost platform")] == [
        h.record.id for h in store.recall("hamlet", "ghost platform")
    ]
    # co-witnesses still merge by event id after reopening
    (rid,) = again.remember("bernardo", "Something else entirely.", round=1, event_id="e1")
    assert set(again.get(rid).owners) >= {"horatio", "marcellus", "bernardo"}


def test_dump_from_files_round_trip():
    store = filled()
    files = store.dump()
    assert set(files) == {"memory.msgpack", "memory.vectors", "memory.usearch"}
    again = ConsensusStore.from_files(files, embedder=HashEmbedder())
    assert content(again) == content(store)


def test_damaged_files_are_refused_by_name(tmp_path):
    store = filled(tmp_path / "mem")
    store.save()
    manifest = json.loads((tmp_path / "mem" / "manifest.json").read_text())
    state = tmp_path / "mem" / manifest["files"]["memory.msgpack"]["path"]
    data = bytearray(state.read_bytes())
    data[len(data) // 2] ^= 0xFF
    state.write_bytes(bytes(data))
    with pytest.raises(StoreFileError, match=state.name):
        ConsensusStore.open(tmp_path / "mem", embedder=HashEmbedder())
    (tmp_path / "mem" / "manifest.json").write_text("{not json")
    with pytest.raises(StoreFileError, match="manifest.json"):
        ConsensusStore.open(tmp_path / "mem", embedder=HashEmbedder())
    with pytest.raises(StoreFileError, match="memory.msgpack"):
        ConsensusStore.from_files({"memory.msgpack": b"\x93garbage"}, embedder=HashEmbedder())


def test_missing_or_inconsistent_index_is_rebuilt(tmp_path, caplog):
    store = filled(tmp_path / "mem")
    store.save()
    folder = tmp_path / "mem"
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / manifest["files"]["memory.usearch"]["path"]).unlink()
    again = ConsensusStore.open(folder, embedder=HashEmbedder())
    assert again.stats()["index_rebuilds"] == 1 and "missing" in again.notices[0]
    assert content(again) == content(store)
    # without the saved vectors too, the records are re-embedded
    (folder / manifest["files"]["memory.vectors"]["path"]).unlink()
    calls = []
    embedder = HashEmbedder()
    embedder_encode = embedder.encode
    embedder.encode = lambda texts: calls.append(len(texts)) or embedder_encode(texts)
    again = ConsensusStore.open(folder, embedder=embedder)
    assert calls == [len(store)] and "re-embedding" in again.notices[0]
    assert content(again) == content(store)
    # an index from another store (keys do not match) is rebuilt, not trusted
    other = ConsensusStore.open(None, embedder=HashEmbedder())
    other.remember("x", "Only one record here.")
    files = store.dump()
    files["memory.usearch"] = other.dump()["memory.usearch"]
    again = ConsensusStore.from_files(files, embedder=HashEmbedder())
    assert again.stats()["index_rebuilds"] == 1
    assert [h.record.id for h in again.recall("hamlet", "ghost")] == [h.record.id for h in store.recall("hamlet", "ghost")]


def test_interrupted_save_leaves_last_one(tmp_path):
    store = filled(tmp_path / "mem")
    store.save()
    before = content(store)
    # a crash after writing the next generation's data but before the manifest: stray files
    (tmp_path / "mem" / "memory.2.msgpack").write_bytes(b"half written")
    again = ConsensusStore.open(tmp_path / "mem", embedder=HashEmbedder())
    assert content(again) == before
    again.remember("yorick", "Alas.")
    again.save()
    assert not (tmp_path / "mem" / "memory.1.msgpack").exists()
    assert ConsensusStore.open(tmp_path / "mem", embedder=HashEmbedder()).generation == 2


@pytest.mark.slow
def test_sigkill_during_saves_never_loses_the_last_completed_save(tmp_path):
    """Kill a child that saves in a loop at random moments; each time the folder opens at the last save."""
    folder = tmp_path / "mem"
    rng = random.Random(20240611)
    code = f"from tests.support import fixtures_memory; fixtures_memory.save_loop({str(folder)!r})"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    kills = 0
    last_generation = 0
    while kills < 20:
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        # Wait for the first completed save of this child, then kill at a random moment after it.
        first = child.stdout.readline()
        assert first, child.stderr.read().decode()
        time.sleep(rng.uniform(0.0, 0.25))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        lines = [first.decode()] + out.decode().splitlines()
        completed = [tuple(map(int, line.split())) for line in lines if line.strip()]
        printed_generation = completed[-1][0]
        store = ConsensusStore.open(folder, embedder=HashEmbedder(), settings=MemorySettings(merge=False))
        # The save after the last printed line may have committed just before the kill.
        assert store.generation in (printed_generation, printed_generation + 1)
        assert len(store) == store.generation + 199  # seed 200 records in generation 1, one more per save
        assert store.generation >= last_generation
        last_generation = store.generation
        kills += 1
    assert last_generation > 20


def test_save_needs_a_folder():
    store = ConsensusStore.open(None, embedder=HashEmbedder())
    with pytest.raises(ValueError, match="no folder"):
        store.save()


def test_open_refuses_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(StoreFileError, match="not a folder"):
        ConsensusStore.open(path, embedder=HashEmbedder())


def test_bulk_batch_round_trip(tmp_path):
    store = ConsensusStore.open(tmp_path / "m", embedder=HashEmbedder())
    store.remember_many([Deposit(owner=f"a{i % 5}", text=f"Statement {i} about the hall and the {i % 7} cups.") for i in range(300)])
    store.save()
    assert content(ConsensusStore.open(tmp_path / "m", embedder=HashEmbedder())) == content(store)
