"""Talk lands on the record told: a deposit naming a record its teller holds joins that record (hashed embedder)."""

from __future__ import annotations

import pytest

from memory import ConsensusStore, Deposit, baselines
from memory import trust
from tests.support.fixtures_memory import HashEmbedder

TEXT = "The harbour lamp was dark on the night of the wreck."


@pytest.fixture
def store() -> ConsensusStore:
    return ConsensusStore.open(None, embedder=HashEmbedder())


def told(owner: str, record: int, source: str, text: str = TEXT, round_: int = 3) -> Deposit:
    return Deposit(owner=owner, statements=(text,), record=record, via="told", source=source, round=round_,
                   kind="event")


def test_a_told_record_gains_the_listener_as_an_owner_with_hearsay_confidence(store):
    (rid,) = store.remember("tobin", TEXT, round=1, via="witnessed", event_id="e1")
    count = len(store.records())
    (landed,) = store.remember_many([told("maren", rid, "tobin")])[0]
    assert landed == rid and len(store.records()) == count  # no copy of the statement was made
    record = store.get(rid)
    holding = record.owners["maren"]
    assert (holding.via, holding.source, holding.since_round, holding.status) == ("told", "tobin", 3, "believed")
    expected = trust.told_confidence(record.owners["tobin"], store.reliability("maren", "tobin"))
    assert holding.confidence == pytest.approx(expected)
    assert holding.confidence < record.owners["tobin"].confidence
    assert store.stats()["merges_by_rule"]["told"] == 1
    assert store.stats()["leaks"] == 0


def test_hearsay_of_hearsay_is_held_less_surely_and_seeing_it_upgrades(store):
    (rid,) = store.remember("tobin", TEXT, round=1, via="witnessed", event_id="e1")
    store.remember_many([told("maren", rid, "tobin")])
    store.remember_many([told("ada", rid, "maren", round_=4)])
    record = store.get(rid)
    assert record.owners["ada"].confidence < record.owners["maren"].confidence
    store.remember("ada", TEXT, round=5, via="witnessed", event_id="e1")  # ada sees it herself later
    assert store.get(rid).owners["ada"].via == "witnessed"


def test_a_teller_who_does_not_hold_the_record_lands_nothing_on_it(store):
    (rid,) = store.remember("tobin", TEXT, round=1, via="witnessed", event_id="e1")
    ids = store.remember_many([told("maren", rid, "silas", text="Silas saw a ghost on the quay.")])[0]
    assert ids != [rid] and "maren" not in store.get(rid).owners  # placed as any statement is, not on rid


def test_a_told_holding_can_be_undone(store):
    (rid,) = store.remember("tobin", TEXT, round=1, via="witnessed", event_id="e1")
    store.remember_many([told("maren", rid, "tobin")])
    split = store.unmerge(rid, "maren")
    assert "maren" not in store.get(rid).owners
    assert split is not None and store.get(split).owners["maren"].via == "told"


@pytest.mark.parametrize("backend", ["generative", "gmemory", "collaborative"])
def test_a_store_without_shared_records_keeps_the_told_statement_as_its_own_row(backend):
    store = baselines.make(backend, embedder=HashEmbedder())
    (rid,) = store.remember("tobin", TEXT, round=1, via="witnessed", event_id="e1")
    ids = store.remember_many([told("maren", rid, "tobin")])[0]
    assert ids and all("maren" in store.get(i).owners for i in ids)
    assert store.can_read(ids[0], "maren")
