"""Undoing a merge: the owner leaves the record (or gets its old holding back), as if it never merged.

Everything a merge changed is in its merge-log entry (memory/records.py MergeLogEntry); this
module replays the record's log without that entry and splits the owner's statement off. It is
mixed into ConsensusStore (it works on the store's own tables), so it never imports the store.
"""

from __future__ import annotations

import msgspec

from memory import equivalence, trust
from memory.records import Holding, MergeLogEntry, Record, normalise_text


class Unmerging:
    """The consensus store's undo of a merge (a mixin: `self` is the ConsensusStore)."""

    def _undo_latest_merge(self, record_id: int, owner: str) -> int | None:
        """Undo the owner's latest merge into a record.

        The owner's previous holding comes back if it had one; otherwise the owner leaves the
        record and gets a new record with the statement it deposited (returned). The record's
        text, edges, derivations and corroborated confidences are restored from the merge log.
        """
        record = self._records[record_id]
        positions = [i for i, e in enumerate(record.merge_log) if e.owner == owner]
        if not positions:
            raise ValueError(f"unmerge: {owner!r} never merged into record {record_id}")
        entry = record.merge_log.pop(positions[-1])
        trust.uncorroborate(record, entry, self.settings)
        for b in entry.added_based_on:
            if not any(b in e.added_based_on for e in record.merge_log):
                if b in record.based_on:
                    record.based_on.remove(b)
        for other in entry.added_edges:
            self._unlink(record_id, other)
        # The text as if this merge had never happened.
        text = record.origin_text or record.text  # origin_text is None: the text never changed
        for e in record.merge_log:
            text = equivalence.choose_text(text, e.incoming_text or e.discarded_text)
        record.text = text
        if record.origin_text is not None and record.origin_text == text:
            record.origin_text = None
        current = record.owners.get(owner)
        new_id = None
        if entry.previous_holding is not None:
            record.owners[owner] = entry.previous_holding
        else:
            record.owners.pop(owner, None)
            self._unhold(owner, record_id)
            if current is not None and owner in entry.previous_confidences:
                # the confidence the statement had on its own, before corroboration raised it
                current = msgspec.structs.replace(current, confidence=entry.previous_confidences[owner])
            new_id = self._split_off(record, entry, current)
        self._repoint_siblings(record_id, entry, new_id)
        self._drop_text_key(record, entry, new_id)
        trust.restore_settled(self._records, self._disputes.setdefault(owner, {}), owner,
                              record_id if new_id is None else new_id, entry)
        self._counters["unmerges"] = self._counters.get("unmerges", 0) + 1
        return new_id


    def _split_off(self, record: Record, entry: MergeLogEntry, holding: Holding | None) -> int:
        """A new record holding what the owner deposited, linked where the owner's deposit linked."""
        text = entry.incoming_text or entry.discarded_text
        rid = self._next_id
        self._next_id += 1
        holding = holding or Holding(via="witnessed", since_round=entry.round)
        piece = Record(
            id=rid,
            text=text,
            kind=record.kind,
            round=entry.round,
            place=record.place,
            event_id=entry.event_id if entry.event_id != record.event_id else None,  # its own event, back
            event_atom=entry.event_atom,
            deposit_id=None,
            namespace=record.namespace,
            owners={entry.owner: holding},
            based_on=sorted(entry.added_based_on),
            speaker=record.speaker,
            actors=record.actors,
        )
        self._records[rid] = piece
        if piece.event_id is not None:
            key = (piece.namespace, piece.event_id, piece.kind, piece.event_atom)
            if self._by_event.get(key) == record.id:
                self._by_event[key] = rid  # later statements of that event join the split record
        self._ensure_index().add([rid], self._encode([text]))
        for other in entry.added_edges:
            if other in self._records:
                self._link(rid, other)
        self._hold(entry.owner, rid)
        return rid


    def _repoint_siblings(self, record_id: int, entry: MergeLogEntry, new_id: int | None) -> None:
        """The deposit's other merged atoms now link to the split record (or to nothing).

        Without this, undoing two merges of one deposit would remove its edge justification twice.
        """
        if not entry.deposit_id:
            return
        for other in entry.added_edges:
            sibling = self._records.get(other)
            if sibling is None:
                continue
            for i, e in enumerate(sibling.merge_log):
                if e.deposit_id == entry.deposit_id and e.owner == entry.owner and record_id in e.added_edges:
                    edges = tuple(new_id if x == record_id else x for x in e.added_edges if new_id is not None or x != record_id)
                    sibling.merge_log[i] = msgspec.structs.replace(e, added_edges=edges)


    def _drop_text_key(self, record: Record, entry: MergeLogEntry, new_id: int | None) -> None:
        """The undone statement's text now leads to the split record, unless the record still has it."""
        key = (record.namespace, normalise_text(entry.incoming_text or entry.discarded_text))
        if self._by_text.get(key) == record.id and not any(normalise_text(t) == key[1] for t in self._texts_of(record)):
            del self._by_text[key]
            if new_id is not None:
                self._by_text[key] = new_id
        self._map_record(record)
