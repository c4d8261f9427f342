"""Sediment: canon before the start becomes records owned by their witnesses, one record per statement."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

import memory
from storyworld.game.sediment import SedimentReport, event_deposits, sediment
from storyworld.world import World, load_world
from tests.support.paths import TINY


class _ContractDeposit(msgspec.Struct, kw_only=True):
    """The memory contract's Deposit, for runs before memory.Deposit exists."""

    owner: str
    statements: list[str] | None = None
    text: str | None = None
    round: int = 1
    event_id: str | None = None
    via: str = "witnessed"
    source: str | None = None
    place: str | None = None
    kind: str = "event"


@pytest.fixture(autouse=True)
def deposit_class(monkeypatch: pytest.MonkeyPatch):
    """The real memory.Deposit when there is one, else the contract's shape."""
    if not hasattr(memory, "Deposit"):
        monkeypatch.setattr(memory, "Deposit", _ContractDeposit, raising=False)
    return memory.Deposit


class FakeStore:
    """A store that merges by (event id, statement position) the way the consensus contract promises."""

    def __init__(self) -> None:
        self.calls: list[list] = []
        self.records: dict[tuple[str, int], dict] = {}

    def remember_many(self, deposits: list) -> list[list[int]]:
        self.calls.append(list(deposits))
        out = []
        for deposit in deposits:
            statements = deposit.statements or [deposit.text]
            ids = []
            for position, text in enumerate(statements):
                key = (deposit.event_id, position)
                record = self.records.setdefault(key, {"id": len(self.records), "text": text, "owners": {}})
                record["owners"][deposit.owner] = (deposit.via, deposit.source, deposit.round)
                ids.append(record["id"])
            out.append(ids)
        return out


@pytest.fixture(scope="module")
def tiny() -> World:
    return load_world(TINY)


def test_co_witnessed_event_is_one_deposit_per_witness_with_the_event_id(tiny: World):
    deposits = event_deposits(tiny.events_by_id["t05"])
    assert [d.owner for d in deposits] == ["ada", "tobin", "silas"]
    assert {d.event_id for d in deposits} == {"t05"}
    assert {d.via for d in deposits} == {"sediment"}
    assert {d.round for d in deposits} == {-10}
    assert {d.place for d in deposits} == {"tavern"}
    assert {d.kind for d in deposits} == {"utterance"}
    # the speaker knows it first-hand; the listeners from the speaker
    assert [d.source for d in deposits] == [None, "ada", "ada"]
    assert all(d.text == tiny.events_by_id["t05"].text and not d.statements for d in deposits)


def test_statements_are_used_when_given(tiny: World):
    deposits = event_deposits(tiny.events_by_id["t03"])
    assert [d.owner for d in deposits] == ["silas", "tobin", "elias"]  # elias is archived and still owns it
    for d in deposits:
        assert list(d.statements) == [
            "A ship breaks on the rocks below the dark lighthouse.",
            "Elias drowns rowing out to the wreck.",
        ]
        assert d.source is None and d.kind == "event"


def test_sediment_default_start(tiny: World):
    store = FakeStore()
    report = sediment(tiny, store)
    assert isinstance(report, SedimentReport)
    assert (report.start_id, report.start_round) == ("arrival", 0)
    assert report.events == 7 and report.unwitnessed == 0
    assert report.witness_sum == report.deposits == 2 + 1 + 3 + 1 + 3 + 3 + 2
    assert report.statement_witness_sum == 2 * 1 + 1 * 2 + 3 * 2 + 1 + 3 + 3 + 2
    assert report.records == 1 + 2 + 2 + 1 + 1 + 1 + 1  # one record per statement, never one per witness
    wreck = [store.records[("t03", 0)], store.records[("t03", 1)]]
    for record in wreck:
        assert set(record["owners"]) == {"silas", "tobin", "elias"}
        assert {holding[0] for holding in record["owners"].values()} == {"sediment"}
    deposited = {d.event_id for call in store.calls for d in call}
    assert deposited == {"t01", "t02", "t03", "t04", "t05", "t06", "t07"}  # nothing at or after round 0


def test_sediment_later_start_takes_all_canon(tiny: World):
    report = sediment(tiny, FakeStore(), "confession")
    assert report.events == 12 and report.start_round == 6


def test_batches_and_progress(tiny: World):
    store = FakeStore()
    seen: list[tuple[int, int]] = []
    sediment(tiny, store, progress=lambda done, total: seen.append((done, total)), batch_events=3)
    assert len(store.calls) == 3  # 7 events in batches of 3
    assert seen == [(0, 7), (3, 7), (6, 7), (7, 7)]
    # all of one event's deposits travel in the same call, so the store can merge them at once
    for call in store.calls:
        events_in_call = {d.event_id for d in call}
        for other in store.calls:
            if other is not call:
                assert not events_in_call & {d.event_id for d in other}


def test_unwitnessed_events_are_counted_not_deposited(tmp_path: Path):
    text = TINY.read_text().replace('id = "t04"\nround = -20\nplace = "harbour"\nactors = ["tobin"]',
                                    'id = "t04"\nround = -20\nplace = "harbour"\nactors = ["tobin"]\nwitnesses = []')
    path = tmp_path / "w.toml"
    path.write_text(text)
    report = sediment(load_world(path), FakeStore())
    assert report.events == 6 and report.unwitnessed == 1


# ---------------------------------------------------------------- with the real consensus store


@pytest.fixture(scope="module")
def real_embedder():
    """The bundled sentence embedder, loaded once for this file."""
    from memory.embedder import shared_embedder

    return shared_embedder()


@pytest.mark.real_embedder
def test_real_store_one_record_per_statement_with_all_witnesses(tiny: World, real_embedder):
    from memory import ConsensusStore

    store = ConsensusStore.open(None, embedder=real_embedder)
    report = sediment(tiny, store)
    records = list(store.records())
    assert report.records == len(records)
    assert len(records) < report.statement_witness_sum  # never one row per witness
    by_event: dict[str, list] = {}
    for record in records:
        by_event.setdefault(record.event_id, []).append(record)
    assert set(by_event) == {"t01", "t02", "t03", "t04", "t05", "t06", "t07"}
    for event_id, event_records in by_event.items():
        event = tiny.events_by_id[event_id]
        if event.statements:
            assert len(event_records) == len(event.statements)
        for record in event_records:
            assert set(record.owners) == set(event.witness_ids())
            assert {h.via for h in record.owners.values()} == {"sediment"}
            assert {h.since_round for h in record.owners.values()} == {event.round}
    # the wreck: two statements, three owners each (the archived keeper too), affiliated with each other
    wreck = sorted(by_event["t03"], key=lambda r: r.id)
    assert all(set(r.owners) == {"silas", "tobin", "elias"} for r in wreck)
    assert wreck[1].id in store.neighbours(wreck[0].id)
    # a speech is held from its speaker by the listeners, first-hand by the speaker
    (news,) = by_event["t05"]
    assert news.owners["tobin"].source == "ada" and news.owners["ada"].source is None
    # an owner recalls what it witnessed, and never what it did not
    hits = store.recall("maren", "who was hired as the new keeper", k=5)
    assert all("maren" in hit.record.owners for hit in hits)
    assert store.held_by("elias")  # archived agents keep their memories


@pytest.mark.real_embedder
def test_bench_world_prints_the_figures(real_embedder, capsys: pytest.CaptureFixture[str]):
    import json

    from storyworld.cli import main

    assert main(["bench", "world", str(TINY), "--json", "--repeat", "1"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["start"] == "confession"  # the latest start: the whole canon
    assert figures["events"] == 12 and figures["witness_sum"] == 25
    assert 0 < figures["consensus_records"] < figures["statement_witness_sum"]
    assert figures["load_validate_s"] > 0 and figures["sediment_s"] > 0
    for key in ("shared_fraction", "linked_fraction"):  # witnesses share records; events' statements link
        assert 0 < figures[key] <= 1, (key, figures[key])
    assert main(["bench", "world", str(TINY), "--start", "arrival", "--json", "--repeat", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["events"] == 7
