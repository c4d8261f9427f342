"""Every memory store keeps the MemoryStore contract: same validation, same save round trip, same metrics keys."""

from __future__ import annotations

import pytest

from memory import BACKENDS, ConsensusStore, Deposit
from memory.baselines import make
from memory.baselines import from_files as baseline_from_files
from memory.store import MemoryStore, StoreShell
from tests.support.fixtures_memory import HashEmbedder


def new_store(backend: str, folder=None):
    """A fresh store of one backend on the hashing embedder."""
    if backend == "consensus":
        return ConsensusStore.open(folder, embedder=HashEmbedder())
    store = make(backend, embedder=HashEmbedder())
    store.folder = folder
    return store


def reopen(backend: str, files: dict[str, bytes]):
    """A store rebuilt from another's dump()."""
    if backend == "consensus":
        return ConsensusStore.from_files(files, embedder=HashEmbedder())
    return baseline_from_files(backend, files, embedder=HashEmbedder())


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


def test_every_store_is_a_memory_store(backend):
    store = new_store(backend)
    assert isinstance(store, MemoryStore)
    assert isinstance(store, StoreShell)
    assert store.backend == backend


BAD = [
    (dict(owner="bad owner!"), "owner"),
    (dict(round=True), "round"),
    (dict(round=1.5), "round"),
    (dict(via="dreamt"), "via"),
    (dict(kind="song"), "kind"),
    (dict(namespace="private:ophelia"), "namespace"),
    (dict(event_id="e" * 513), "event_id"),
    (dict(source="s" * 513), "source"),
    (dict(place="p" * 513), "place"),
    (dict(confidence=1.5), "confidence"),
    (dict(confidence=True), "confidence"),
    (dict(expires_at="soon"), "expires_at"),
    (dict(based_on=(999,)), "based_on"),
    (dict(statements=["bad \ud800 text"]), "Unicode"),
    (dict(statements=["nul \x00 text"]), "NUL"),
    (dict(statements=[]), "empty"),
    (dict(statements=["   "]), "empty"),
    (dict(text="x", statements=None), None),  # valid: text alone
]


@pytest.mark.parametrize(("change", "needle"), BAD)
def test_every_store_runs_the_same_checks(backend, change, needle):
    store = new_store(backend)
    fields = dict(owner="hamlet", statements=["The ghost walks."], round=1)
    fields.update(change)
    if "text" in change:
        fields.pop("statements", None)
    deposit = Deposit(**fields)
    if needle is None:
        assert len(store.remember_many([deposit])[0]) == 1
        return
    with pytest.raises(ValueError, match=needle):
        store.remember_many([deposit])
    assert store.records() == []  # a rejected batch changes nothing


def test_text_limit_is_the_same_everywhere(backend):
    store = new_store(backend)
    limit = store.settings.max_text_chars
    with pytest.raises(ValueError, match="exceeds the limit"):
        store.remember("hamlet", "a" * (limit + 1))
    with pytest.raises(ValueError, match="characters exceed the limit"):
        store.remember("hamlet", ["a" * (limit // 2 + 1), "b" * (limit // 2 + 1)])


def test_remember_recall_get_records(backend):
    store = new_store(backend)
    ids = store.remember("horatio", ["The ghost walks on the battlements.", "Marcellus saw it too."], round=2)
    assert len(ids) == 2
    assert store.get(ids[0]).text == "The ghost walks on the battlements."
    assert [r.id for r in store.records()] == sorted(store.get(i).id for i in set(ids))
    hits = store.recall("horatio", "ghost battlements", k=1, expand=False)
    assert [h.record.id for h in hits] == [ids[0]]
    assert store.recall("ophelia", "ghost battlements", k=3) == []  # nothing she may read
    assert store.can_read(ids[0], "horatio") and not store.can_read(ids[0], "ophelia")
    with pytest.raises(ValueError, match="k: must be"):
        store.recall("horatio", "ghost", k=-1)


def test_save_and_reopen_round_trip(backend, tmp_path):
    store = new_store(backend, tmp_path / "mem")
    store.remember("horatio", ["The ghost walks on the battlements."], round=2)
    store.remember("hamlet", ["My father's spirit in arms."], round=3, via="told", source="horatio")
    assert store.save() > 0
    again = reopen(backend, store.dump())
    assert [(r.id, r.text, sorted(r.owners)) for r in again.records()] == [
        (r.id, r.text, sorted(r.owners)) for r in store.records()
    ]
    assert [h.record.id for h in again.recall("hamlet", "spirit", k=1, expand=False)] == [
        h.record.id for h in store.recall("hamlet", "spirit", k=1, expand=False)
    ]


def test_trust_hooks_exist_and_answer(backend):
    store = new_store(backend)
    a, b = store.remember("hamlet", ["The king drinks.", "The queen weeps."], round=1, event_id="e1")
    assert store.decay(2) >= 0 and store.current_round >= 2
    store.affiliate([a, b])
    assert isinstance(store.edges(), list) and isinstance(store.neighbours(a), list)
    assert isinstance(store.disputes("hamlet"), list) and isinstance(store.cross_disputes(), list)
    affected = store.retract_event("e1", by="horatio", round=2)
    if backend == "consensus":
        assert set(affected) == {a, b}
        assert store.get(a).owners["hamlet"].status == "retracted"
        assert store.edges() == [(a, b)]
    else:  # no trust, no links: honest no-ops that change nothing
        assert affected == [] and store.edges() == []
        assert store.get(a).owners["hamlet"].status == "believed"
        with pytest.raises(ValueError, match="never merges"):
            store.unmerge(a, "hamlet")


def test_stats_keys_are_the_same_for_every_store():
    keys = {}
    for backend in BACKENDS:
        store = new_store(backend)
        store.remember("hamlet", ["The king drinks."], round=1)
        store.recall("hamlet", "king", k=1)
        stats = store.stats()
        assert stats["records"] == 1 and stats["deposits"] == 1 and stats["recall_calls"] == 1
        assert stats["remember_calls"] == 1 and stats["recall_p95_ms"] >= stats["recall_p50_ms"] > 0
        keys[backend] = set(stats) - {"backend", "grants", "granted_rows", "mean_importance", "reflections",
                                      "insights", "insight_rows", "entities"}
    base = keys["consensus"]
    for backend, found in keys.items():
        assert base <= found, (backend, base - found)
