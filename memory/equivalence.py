"""Which stored records a new statement may join at all, before any similarity is asked.

Texts that read alike are not always one fact: "Yes." said by two people is two utterances, and a
claim is the speaker's. Merging them would let one speaker's exposed lie retract another's word.
"""

from __future__ import annotations


from collections.abc import Callable

import numpy as np

from memory import frames, guard, retelling, verbs
from memory.records import Deposit, Record, normalise_text
from memory.settings import MemorySettings

SPOKEN = frozenset({"utterance", "claim"})


def deposit_speaker(deposit: Deposit) -> str:
    """Who said a deposited claim or utterance: the teller for told/read (and for the canon's speeches, whose
    witnesses hold them from their speaker), else the depositor."""
    if deposit.via in ("told", "read", "sediment") and deposit.source:
        return deposit.source
    return deposit.owner


def record_speaker(record: Record) -> str | None:
    """Who said a stored claim: its `speaker`, or (saves before it existed) its holders' source."""
    if record.speaker is not None:
        return record.speaker
    for owner, holding in record.owners.items():
        if holding.via in ("told", "read") and holding.source:
            return holding.source
    for owner, holding in record.owners.items():
        if holding.via == "inferred":
            return owner
    return None


def same_kind(deposit: Deposit, record: Record) -> bool:
    """Whether a deposited statement can be the same fact as a record: same kind, same speech act."""
    if deposit.kind != record.kind:
        return False
    if deposit.kind == "utterance":
        # one act of speaking: only its own event id joins it
        return deposit.event_id is not None and deposit.event_id == record.event_id
    if deposit.kind == "claim":
        speaker = record_speaker(record)
        return speaker is None or speaker == deposit_speaker(deposit)
    return True


def choose_text(current: str, incoming: str) -> str:
    """The text a merged record keeps: the shorter, unless it would drop a name, place, number or time the longer has."""
    if current == incoming or normalise_text(current) == normalise_text(incoming):
        return current
    shorter, longer = (incoming, current) if len(incoming) < len(current) else (current, incoming)
    if len(shorter) == len(longer):
        return current
    words = guard.features(shorter).words
    if any(name not in words for name in guard.named(longer)):
        return longer
    return shorter


def told_record(records: dict[int, Record], deposit: Deposit) -> int | None:
    """The record a deposit tells, when it names one its teller holds: talk lands on the record told."""
    if deposit.record is None or deposit.via != "told" or not deposit.source:
        return None
    record = records.get(deposit.record)
    if record is None or deposit.source not in record.owners or record.namespace != deposit.namespace:
        return None
    return deposit.record


def structural_rule(new_text: str, held_text: str, cosine: float, settings: MemorySettings,
                    embed: Callable[[list[str]], np.ndarray] | None = None) -> str | None:
    """Which structural rule merges a guarded neighbour whose cosine is below merge_high, or None.

    "frame": the normalised frames overlap by at least frame_min (cosine at least frame_cosine_min).
    "deed": the main verbs name one deed, nothing in one is swapped for something else in the other
    (one may only add detail), and the cosine is at least deed_cosine_min.
    "counterparts": the main verbs name one deed and every participant of each side has its counterpart in the
    other (guard.counterparts), at a cosine of at least counterpart_cosine_min. The guard has passed already.
    "canonical": both said in one wording (retelling.pair: converses turned, passives made active, frames read
    through, names aligned) embed at merge_high or more, the raw cosine at least canonical_cosine_min (with `embed`).
    """
    if cosine >= settings.frame_cosine_min and frames.similarity(new_text, held_text) >= settings.frame_min:
        return "frame"
    if cosine < min(settings.deed_cosine_min, settings.counterpart_cosine_min, settings.canonical_cosine_min):
        return None
    said_a, said_b = retelling.pair(new_text, held_text)  # "never left" is said as the other's "stayed"
    if cosine >= min(settings.deed_cosine_min, settings.counterpart_cosine_min):
        verb_a, verb_b = verbs.main_verb(said_a), verbs.main_verb(said_b)
        if verb_a is not None and verb_b is not None and verbs.one_deed(said_a, verb_a, said_b, verb_b):
            if cosine >= settings.deed_cosine_min and frames.added_only(new_text, held_text):
                return "deed"
            if cosine >= settings.counterpart_cosine_min and guard.counterparts(new_text, held_text):
                return "counterparts"
    if embed is not None and cosine >= settings.canonical_cosine_min:
        if (said_a, said_b) != (new_text, held_text):  # one wording that is the raw one has its cosine already
            vectors = np.asarray(embed([said_a, said_b]), dtype=np.float32)
            if float(vectors[0] @ vectors[1]) >= settings.merge_high:
                return "canonical"
    return None
