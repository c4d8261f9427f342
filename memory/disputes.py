"""Disputes across owners: two agents who hold opposite records about one thing.

A contradiction inside one owner's holdings changes that owner's trust (consensus.py). Between
owners it changes nobody's belief (neither knows what the other holds) but it is the heart of
"who knows what": the inspector shows "Agnes: lens found · Hale: lens missing".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypedDict

import numpy as np

from memory import frames, guard, lexicon
from memory.index import VectorIndex
from memory.records import Record
from memory.store import MemoryStore

NEIGHBOURS = 8
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def contradicts(text_a: str, text_b: str) -> bool:
    """Whether two statements assert opposite things about the same thing (polarity, not another slot)."""
    verdict = guard.check(text_a, text_b)
    if verdict.ok or verdict.reason not in guard.POLAR_CONTRADICTIONS:
        return False
    fa, fb = frames.frame(frames.core(text_a)), frames.frame(frames.core(text_b))
    if not fa.concepts or not fb.concepts:
        return False
    # the same participants and predicate apart from polarity: most concepts shared
    shared = len(fa.concepts & fb.concepts) / len(fa.concepts | fb.concepts)
    return shared >= 0.5


def candidates(records: dict[int, Record], index: VectorIndex, record_id: int, vector: np.ndarray,
               min_cosine: float) -> list[int]:
    """Records of other owners near a newly inserted one that contradict it."""
    record = records[record_id]
    if record.kind == "utterance":
        return []
    keys, sims = index.search(vector, NEIGHBOURS)
    found = []
    for key, sim in zip(keys.tolist(), sims.tolist()):
        other = records.get(int(key))
        if other is None or other.id == record_id or other.kind == "utterance" or sim < min_cosine:
            continue
        if other.namespace != record.namespace:
            continue
        if not (set(other.owners) - set(record.owners)) or not (set(record.owners) - set(other.owners)):
            continue
        if contradicts(record.text, other.text):
            found.append(other.id)
    return found


def gist(text: str, other: str) -> str:
    """A few words saying what one side asserts against the other ("lens found" vs "lens missing")."""
    words = _WORD.findall(text)
    other_concepts = {lexicon.concept(w) for w in _WORD.findall(other)}
    fa, fb = frames.frame(text), frames.frame(other)
    other_axes = {axis for axis, _, _ in fb.polar}
    polar = {w for axis, _, w in fa.polar if axis in other_axes}
    topic = next(
        (w.lower() for w in words if w.lower() not in frames._FUNCTION and lexicon.key(w) not in lexicon.POLAR
         and lexicon.concept(w) in other_concepts and not w[0].isupper()),
        None,
    ) or next((w for w in words if lexicon.concept(w) in other_concepts and w.lower() not in frames._FUNCTION), "")
    marks = [w.lower() for w in words if lexicon.key(w) in polar or w.lower() in polar or w.lower() in frames.NEGATIONS
             or w.lower().endswith("n't") or lexicon.key(w) in lexicon.NEGATOR_KEYS]
    out = " ".join([topic, *marks]).strip()
    return out or text


def summary(names: list[tuple[str, str, str]]) -> str:
    """"Agnes: lens found · Hale: lens missing" from (owner name, own text, opposing text) triples."""
    return " · ".join(f"{name}: {gist(text, other)}" for name, text, other in names)


class Dispute(TypedDict):
    """One cross-owner dispute of a record, as the inspector and `storyworld inspect` show it."""

    record: int
    text: str
    owners: list[str]
    summary: str


def _owners_label(owners: list[str], name: Callable[[str], str], limit: int = 3) -> str:
    shown = ", ".join(name(o) for o in owners[:limit])
    return shown + (f" +{len(owners) - limit}" if len(owners) > limit else "")


def describe(store: MemoryStore, record_id: int, name: Callable[[str], str] = str) -> list[Dispute]:
    """The cross-owner disputes of one record, each with the other record and a one-line summary.

    Owners holding both records are left out of both sides: they are no party to the disagreement.
    """
    record = store.get(record_id)
    rows: list[Dispute] = []
    for a, b in store.cross_disputes(record_id):
        other = store.get(b if a == record_id else a)
        both = set(record.owners) & set(other.owners)
        mine = sorted(o for o in record.owners if o not in both)
        theirs = sorted(o for o in other.owners if o not in both)
        rows.append({
            "record": other.id,
            "text": other.text,
            "owners": theirs,
            "summary": summary([(_owners_label(mine, name), record.text, other.text),
                                (_owners_label(theirs, name), other.text, record.text)]),
        })
    return rows
