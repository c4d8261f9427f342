"""Table 4 figures (recall amplification, siblings, keep-shorter losses) on small hand-built stores."""

from __future__ import annotations

import pytest

from memory import ConsensusStore
from memory.records import Holding, MergeLogEntry, Record
from storyworld.benches import table4
from storyworld.benches.table4 import RecallSample
from tests.support.fixtures_memory import HashEmbedder


def _holding() -> Holding:
    return Holding(via="witnessed")


def _record(rid: int, text: str, owners: tuple[str, ...], log: list[MergeLogEntry] = (), event_id: str | None = None) -> Record:
    return Record(id=rid, text=text, owners={o: _holding() for o in owners}, merge_log=list(log), event_id=event_id)


def _entry(kept: str, discarded: str, incoming: str, event_id: str) -> MergeLogEntry:
    return MergeLogEntry(owner="x", round=1, rule="event_id", discarded_text=discarded, kept_text=kept,
                         previous_text=discarded if incoming == kept else kept, incoming_text=incoming, event_id=event_id)


def test_recall_cost_amplification_and_query_shares():
    samples = [
        RecallSample(query="Where is Hamlet?", k=2, semantic=("Hamlet walked.", "The ghost spoke."),
                     affiliated=("Ophelia wept.", "Hamlet left.", "A bell rang.", "Rain fell.")),
        RecallSample(query="the throne", k=2, semantic=("Claudius took the throne.",), affiliated=()),
    ]
    r = table4.recall_cost(samples)
    assert r["calls"] == 2
    assert r["hits_median"] == 1.5 and r["expansion_median"] == 2.0
    assert r["amplification"] == pytest.approx(((2 + 4) / 2 + 1 / 2) / 2)
    # hits: "Hamlet walked." names Hamlet; "Claudius took the throne." carries the query string itself
    assert r["query_in_hits"] == pytest.approx(2 / 3)
    assert r["query_in_expansion"] == pytest.approx(1 / 4)
    assert r["expanding_calls"] == 1


def test_recall_samples_from_a_real_store_count_expansion():
    store = ConsensusStore.open(None, embedder=HashEmbedder())
    a = store.remember("horatio", "The ghost walked on the battlements.", round=1, event_id="e1", place="battlements")
    b = store.remember("horatio", "Marcellus drew his sword in fear.", round=1, event_id="e1b", place="battlements")
    store.affiliate(a + b)
    hits = store.recall("horatio", "ghost battlements", k=1)
    s = table4.sample("ghost battlements", 1, hits)
    assert len(s.semantic) == 1 and s.affiliated == ("Marcellus drew his sword in fear.",)
    assert table4.recall_cost([s])["amplification"] == pytest.approx(2.0)


def test_siblings_one_owner_vs_four_plus():
    records = [_record(1, "a", ("h",)), _record(2, "b", ("h",)), _record(3, "c", ("h", "m", "b", "o")),
               _record(4, "d", ("h", "m")), _record(5, "e", ("h", "m", "b", "o", "g"))]
    edges = {1: [2], 2: [1, 3, 4], 3: [2, 5], 4: [2], 5: [3, 1, 2, 4]}
    s = table4.siblings(records, lambda rid: edges.get(rid, []))
    assert (s["one_owner"], s["four_plus"]) == (2.0, 3.0)
    assert (s["one_owner_records"], s["four_plus_records"]) == (2, 2)


def test_keep_shorter_counts_chars_names_and_principal():
    names = ["Hamlet", "Claudius", "Laertes", "Elsinore"]
    actors = {"e1": ("Claudius",), "e2": ("Laertes",)}
    records = [
        # dropped 'Claudius' and the actor of e1: a name and the principal lost
        _record(1, "The king was poisoned.", ("h", "m"), [
            _entry("The king was poisoned.", "Claudius poisoned the king.", "The king was poisoned.", "e1")], "e1"),
        # dropped words but no name: counted as dropped, nothing lost
        _record(2, "Laertes fenced.", ("h", "m"), [
            _entry("Laertes fenced.", "Laertes fenced with skill.", "Laertes fenced.", "e2")], "e2"),
        # kept the longer text (the guard kept a name): not a keep-shorter drop
        _record(3, "Hamlet went to Elsinore.", ("h", "m"), [
            _entry("Hamlet went to Elsinore.", "He went.", "He went.", "e3")]),
        # same text after normalisation: no drop
        _record(4, "hello", ("h", "m"), [_entry("hello", "Hello.", "Hello.", "e4")]),
    ]
    k = table4.keep_shorter(records, names, actors)
    assert (k["merges"], k["dropped"]) == (4, 2)
    assert k["chars_median"] == pytest.approx(((27 - 22) + (26 - 15)) / 2)
    assert (k["name_lost"], k["principal_lost"]) == (1, 1)
    assert k["name_lost_share"] == pytest.approx(0.5)
    assert k["name_lost_examples"][0]["lost"] == "Claudius"


def test_principal_follows_the_discarded_side_event():
    # the record's own text (event e2, actor Laertes) was discarded for the incoming statement of e1
    entry = MergeLogEntry(owner="x", round=1, rule="cosine", discarded_text="Laertes struck Hamlet.", kept_text="Hamlet was struck.",
                          previous_text="Laertes struck Hamlet.", incoming_text="Hamlet was struck.", event_id="e1/claim")
    rec = _record(1, "Hamlet was struck.", ("h", "m"), [entry], event_id="e2")
    k = table4.keep_shorter([rec], ["Hamlet", "Laertes"], {"e1": ("Hamlet",), "e2": ("Laertes",)})
    assert k["principal_lost"] == 1
    k = table4.keep_shorter([rec], ["Hamlet", "Laertes"], {"e1": ("Hamlet",), "e2": ("Hamlet",)})
    assert k["principal_lost"] == 0


def test_table4_render_has_every_column():
    figures = table4.table4([_record(1, "a", ("h",))], lambda rid: [], [RecallSample(query="q", k=5, semantic=("a",))], [])
    text = table4.render(figures)
    assert "1 / 4+ own." in text and "| 1 | 1 | 1+0 | 0.2 |" in text


def test_query_word_overlap_separates_close_and_far_rows():
    samples = [RecallSample(query="ghost battlements midnight", k=1, semantic=("The ghost walked the battlements.",),
                            affiliated=("Ophelia sang in the garden.",))]
    r = table4.recall_cost(samples)
    assert r["query_words_hits"] == pytest.approx(2 / 3) and r["query_words_expansion"] == 0.0


def test_names_match_case_kept_and_pair_names_skip_sentence_openers():
    assert table4.pair_names(["Under the tree, Mara hid the key.", "The key was hidden by Mara."]) == ["Mara"]
    rec = _record(1, "He will go.", ("h", "m"), [_entry("He will go.", "Will said he will go.", "He will go.", "e1")])
    assert table4.keep_shorter([rec], ["Will"])["name_lost"] == 1
    rec = _record(1, "Will goes.", ("h", "m"), [_entry("Will goes.", "Will said: will go.", "Will goes.", "e1")])
    assert table4.keep_shorter([rec], ["Will"])["name_lost"] == 0
