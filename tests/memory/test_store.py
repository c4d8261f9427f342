"""Consensus store behaviour with a deterministic hashed embedder: write rules, recall, unmerge, bad input."""

from __future__ import annotations

import msgspec
import pytest

from memory import ConsensusStore, Deposit, MemorySettings
from tests.support.fixtures_memory import HashEmbedder


@pytest.fixture
def store() -> ConsensusStore:
    return ConsensusStore.open(None, embedder=HashEmbedder())


def snapshot(store: ConsensusStore) -> bytes:
    """Everything observable about the store's content, as bytes."""
    return msgspec.msgpack.encode(
        ([msgspec.to_builtins(r) for r in store.records()], store.edges(), sorted(store.table.by_text.items()))
    )


def test_contract_example(store):
    ids = store.remember(
        "horatio", "The old king's ghost walked on the battlements at midnight.",
        round=1, event_id="e17", via="witnessed", source=None, place="battlements",
    )
    holding = store.get(ids[0]).owners["horatio"]
    assert (holding.via, holding.source, holding.since_round) == ("witnessed", None, 1)
    assert 0 < holding.confidence <= 1
    hits = store.recall("horatio", "ghost on the battlements", k=5)
    assert hits and hits[0].record.id == ids[0] and hits[0].via == "semantic"
    assert isinstance(hits[0].score, float)
    assert [r.id for r in store.records()] == ids
    stats = store.stats()
    for key in ("records", "shared", "linked", "max_owners", "leaks", "merges_by_rule", "judge_calls"):
        assert key in stats
    assert stats["leaks"] == 0


def test_same_event_id_merges_without_embedding(store):
    store.remember("horatio", "The ghost appeared on the platform.", round=1, event_id="e1")
    calls = store.embedder.calls
    ids = store.remember("marcellus", "A spirit showed itself by the wall.", round=1, event_id="e1")
    assert store.embedder.calls == calls  # no embedding for a co-witness
    record = store.get(ids[0])
    assert set(record.owners) == {"horatio", "marcellus"}
    assert store.stats()["merges_by_rule"]["event_id"] == 1
    # the shorter text is kept, the other is logged
    assert record.merge_log[-1].rule == "event_id"
    assert {record.text, record.merge_log[-1].discarded_text} == {
        "The ghost appeared on the platform.", "A spirit showed itself by the wall."}


def test_same_text_merges(store):
    a = store.remember("horatio", "Hamlet swore an oath.")
    b = store.remember("marcellus", "hamlet  swore an OATH")
    assert a == b
    assert store.stats()["merges_by_rule"]["text"] == 1


def test_keep_shorter_unless_it_drops_a_name(store):
    (rid,) = store.remember("a", "The ghost of the king walked on the battlements.", event_id="e1")
    store.remember("b", "The ghost of the king walked.", event_id="e1")
    assert store.get(rid).text == "The ghost of the king walked on the battlements."  # would drop the place
    (rid2,) = store.remember("a", "Horatio saw the ghost very clearly and calmly at midnight.", event_id="e2")
    store.remember("b", "Horatio saw the ghost at midnight.", event_id="e2")
    assert store.get(rid2).text == "Horatio saw the ghost at midnight."


def test_role_swap_never_merges(store):
    (a,) = store.remember("x", "Hamlet killed Polonius.")
    (b,) = store.remember("y", "Polonius killed Hamlet.")
    assert a != b


def test_atoms_of_a_deposit_are_affiliated_and_union_on_merge(store):
    ids = store.remember("horatio", "The ghost appeared. Marcellus drew his sword. Bernardo fled the platform.")
    assert len(ids) == 3
    for rid in ids:
        assert set(store.neighbours(rid)) == set(ids) - {rid}
    other = store.remember("hamlet", ["Marcellus drew his sword.", "Hamlet wept in his chamber."])
    assert other[0] == ids[1]
    assert other[1] in store.neighbours(ids[1])
    assert store.stats()["linked"] == 4


def test_recall_expansion_only_to_held_records(store):
    store.remember("horatio", "The ghost appeared at midnight. Horatio trembled with fear.")
    store.remember("hamlet", "The ghost appeared at midnight.")
    hits = store.recall("hamlet", "ghost midnight", k=3)
    assert [h.record.text for h in hits] == ["The ghost appeared at midnight."]
    hits = store.recall("horatio", "ghost midnight", k=1)
    assert [h.via for h in hits] == ["semantic", "affiliated"]
    assert store.stats()["leaks"] == 0


def test_exact_and_usearch_recall_agree():
    store = ConsensusStore.open(None, embedder=HashEmbedder(dim=48), settings=MemorySettings(merge=False))
    words = "ghost king queen sword poison letter castle garden night crown skull play".split()
    deposits = [
        Deposit(owner="hamlet" if i % 3 else "horatio", text=f"The {words[i % 12]} and the {words[(i * 7) % 12]} number {i}.")
        for i in range(600)
    ]
    store.remember_many(deposits)
    for query in ("the ghost and the crown", "poison in the garden", "a letter at night"):
        for owner in ("hamlet", "horatio"):
            exact = store.recall(owner, query, k=5, _force="exact")
            approx = store.recall(owner, query, k=5, _force="index")
            assert [(h.record.id, h.via) for h in exact] == [(h.record.id, h.via) for h in approx]


def test_remember_many_encodes_once(store):
    calls = store.embedder.calls
    out = store.remember_many([
        Deposit(owner="a", text="The king drank the wine. The queen fell."),
        Deposit(owner="b", statements=["Laertes wounded Hamlet."], round=3),
        Deposit(owner="c", statements=["The king drank the wine."]),
    ])
    assert store.embedder.calls == calls + 1
    assert out[2][0] == out[0][0]
    assert len(store) == 3


def test_unmerge_restores_and_splits(store):
    (rid,) = store.remember("horatio", "The ghost walked on the battlements.", event_id="e1")
    before = msgspec.to_builtins(store.get(rid))
    (same,) = store.remember("hamlet", "The ghost walked.", event_id="e1")
    assert same == rid and set(store.get(rid).owners) == {"horatio", "hamlet"}
    new_id = store.unmerge(rid, "hamlet")
    assert set(store.get(rid).owners) == {"horatio"}
    assert store.get(rid).text == "The ghost walked on the battlements."
    assert store.get(new_id).text == "The ghost walked." and set(store.get(new_id).owners) == {"hamlet"}
    with pytest.raises(ValueError, match="never merged"):
        store.unmerge(rid, "horatio")
    assert msgspec.to_builtins(store.get(rid)) == before  # the record is as it was before hamlet merged


def test_unmerge_restores_previous_holding(store):
    (rid,) = store.remember("hamlet", "The ghost walked.", via="told", source="horatio")
    store.remember("hamlet", "The ghost walked.", via="witnessed")
    assert store.get(rid).owners["hamlet"].via == "witnessed"
    assert store.unmerge(rid, "hamlet") is None
    assert store.get(rid).owners["hamlet"].via == "told"


def test_private_namespace_never_merges_across_agents(store):
    (a,) = store.remember("hamlet", "I will feign madness.", namespace="private:hamlet", kind="plan")
    (b,) = store.remember("horatio", "I will feign madness.", namespace="private:horatio", kind="plan")
    (c,) = store.remember("ophelia", "I will feign madness.")
    assert len({a, b, c}) == 3
    assert all(h.record.id != a for h in store.recall("horatio", "feign madness"))
    with pytest.raises(ValueError, match="namespace"):
        store.remember("horatio", "I spy.", namespace="private:hamlet")


def test_judge_in_band():
    calls = []

    def judge(a: str, b: str) -> bool:
        calls.append((a, b))
        return True

    # frame_min, deed_cosine_min and counterpart_cosine_min above 1: the structural rules (which would merge this pair) stay out of the judge's way
    settings = MemorySettings(merge_high=0.999, merge_low=0.3, frame_min=1.01, deed_cosine_min=1.01,
                              counterpart_cosine_min=1.01)
    store = ConsensusStore.open(None, embedder=HashEmbedder(), settings=settings, judge=judge)
    (a,) = store.remember("x", "Ophelia gathered flowers by the brook.")
    (b,) = store.remember("y", "Ophelia gathered many flowers by the brook.")
    assert calls and a == b
    assert store.stats()["merges_by_rule"]["judge"] == 1

    def broken(a: str, b: str) -> bool:
        raise RuntimeError("model down")

    store = ConsensusStore.open(None, embedder=HashEmbedder(), settings=settings, judge=broken)
    (a,) = store.remember("x", "Ophelia gathered flowers by the brook.")
    (b,) = store.remember("y", "Ophelia gathered many flowers by the brook.")
    assert a != b and store.stats()["judge_errors"] == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(owner="hamlet", text=""), "empty"),
        (dict(owner="hamlet", text="   \n"), "empty"),
        (dict(owner="hamlet", text="x" * 1_000_001), "exceeds"),
        (dict(owner="hamlet", text="bad \ud800 surrogate"), "surrogate"),
        (dict(owner="hamlet", text=b"bytes".decode() and b"raw bytes"), "expected text"),
        (dict(owner="", text="Fine."), "agent id"),
        (dict(owner="ham let", text="Fine."), "agent id"),
        (dict(owner="-x", text="Fine."), "agent id"),
        (dict(owner=None, text="Fine."), "agent id"),
        (dict(owner="hamlet", text="Fine.", round="3"), "round"),
        (dict(owner="hamlet", text="Fine.", via="dreamt"), "via"),
        (dict(owner="hamlet", text="Fine.", kind="gossip"), "kind"),
        (dict(owner="hamlet", text="Fine.", based_on=(99,)), "based_on"),
        (dict(owner="hamlet", text="Fine.", confidence=1.5), "confidence"),
        (dict(owner="hamlet", text="Fine.", source="\ud83d"), "surrogate"),
    ],
)
def test_bad_input_is_refused_and_store_unchanged(store, kwargs, message):
    store.remember("horatio", "The ghost walked.")
    before = snapshot(store)
    owner = kwargs.pop("owner")
    text = kwargs.pop("text")
    with pytest.raises(ValueError, match=message):
        store.remember(owner, text, **kwargs)
    # a bad deposit in a batch refuses the whole batch
    with pytest.raises(ValueError):
        store.remember_many([Deposit(owner="ok", text="A good one."), Deposit(owner=owner, text=text, **kwargs)])
    assert snapshot(store) == before


def test_bad_recall_input(store):
    with pytest.raises(ValueError, match="empty"):
        store.recall("hamlet", "")
    with pytest.raises(ValueError, match="agent id"):
        store.recall("", "ghost")


def test_no_merge_ablation():
    store = ConsensusStore.open(None, embedder=HashEmbedder(), settings=MemorySettings(merge=False))
    a = store.remember("x", "The ghost walked.", event_id="e1")
    b = store.remember("y", "The ghost walked.", event_id="e1")
    assert a != b and store.stats()["shared"] == 0


def test_stats_bins_and_latency(store):
    for r in range(12):
        store.remember(f"a{r % 3}", f"Event number {r} happened in the hall.", round=r)
        store.recall(f"a{r % 3}", "hall", round=r)
    stats = store.stats()
    assert set(stats["latency_bins"]) == {"0-4", "5-9", "10-14"}
    assert stats["remember_p50_ms"] > 0 and stats["recall_p95_ms"] >= stats["recall_p50_ms"]
