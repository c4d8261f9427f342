"""Records, holdings and recall hits: the data the memory stores keep."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

import msgspec

Kind = Literal["event", "utterance", "claim", "observation", "inference", "plan", "reflection", "insight"]
Via = Literal["witnessed", "told", "read", "inferred", "sediment", "authored"]
Status = Literal["believed", "doubted", "disputed", "retracted"]
HitVia = Literal["semantic", "affiliated"]

_NORMALISE_DROP = re.compile(r"[^\w\s']+")

KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]
VIAS: tuple[str, ...] = Via.__args__  # type: ignore[attr-defined]


class Base(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Policy every persisted struct shares: strict decode, keyword construction."""


class Frozen(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """The same policy for immutable structs (a root of its own: type checkers refuse a frozen child of a mutable base)."""


class Deposit(Frozen, frozen=True):
    """One remember request: an owner's text (atomized) or ready statements, with provenance."""

    owner: str
    text: str | None = None
    statements: tuple[str, ...] | None = None  # ready atoms (a list is taken too: nothing decodes a Deposit)
    round: int = 0
    event_id: str | None = None
    source: str | None = None
    via: Via = "witnessed"
    place: str | None = None
    kind: Kind = "event"
    namespace: str = "shared"
    based_on: tuple[int, ...] = ()  # record ids this was derived from (a list works too)
    confidence: float | None = None
    expires_at: int | None = None  # a time-bound fact: recall leaves it out after this round
    group: str | None = None  # what this deposit belongs with (an event and its claim): the caller affiliates by it
    # the record this deposit tells, when the teller names it: talk lands on the record told (its `source`
    # must hold it); a store that keeps no shared records stores the statements as usual
    record: int | None = None
    # who did what the statements say (agent ids, the doer first): typed where the fact is born (an event's
    # actors, a claim's reading), so "is this about me" is never read back from the words
    actors: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # marks for the owner's holding ("overheard": a line said to another, heard by)


class Holding(Frozen, frozen=True):
    """How and from whom one owner holds a record."""

    via: Via
    source: str | None = None
    since_round: int = 0
    confidence: float = 1.0
    status: Status = "believed"
    archived: bool = False
    flags: tuple[str, ...] = ()
    place: str | None = None  # where this owner learned it, when not the record's place (a move's two ends)


class MergeLogEntry(Frozen, frozen=True):
    """One merge into a record: who joined, what text was discarded and why; enough to undo it."""

    owner: str
    round: int
    rule: str  # event_id | text | cosine | judge
    discarded_text: str
    kept_text: str
    previous_text: str
    previous_holding: Holding | None = None
    added_edges: tuple[int, ...] = ()
    score: float | None = None
    incoming_text: str = ""  # the statement the owner deposited (rebuilds text on unmerge)
    added_based_on: tuple[int, ...] = ()  # derivations this merge added to the record
    raised: tuple[str, ...] = ()  # owners whose confidence this corroboration raised
    deposit_id: str = ""  # the deposit the merged statement came from
    event_id: str | None = None  # the event id the merged statement was deposited under (retraction follows it)
    previous_confidences: dict[str, float] = msgspec.field(default_factory=dict)  # owners' confidence before this merge
    settled: tuple[tuple[int, Holding], ...] = ()  # (record, owner's holding before) disputes this merge settled
    event_atom: int = 0  # the merged statement's position in its event (its event-id key)


class Validation(Frozen, frozen=True):
    """One check of a record against the world: who checked, what they found, on what evidence, when."""

    validator: str
    result: Literal["confirmed", "refuted"]
    evidence: str = ""  # e.g. "witnessed", "record:42", "deposit:d17"
    round: int = 0


class Record(Base):
    """One atomic statement held by a set of owners."""

    id: int
    text: str
    kind: Kind = "event"
    round: int = 0
    place: str | None = None
    event_id: str | None = None
    deposit_id: str | None = None
    namespace: str = "shared"
    owners: dict[str, Holding] = msgspec.field(default_factory=dict)
    based_on: list[int] = msgspec.field(default_factory=list)
    validations: int = 0
    merge_log: list[MergeLogEntry] = msgspec.field(default_factory=list)
    access_count: int = 0
    last_access_round: int = 0
    sediment: bool = False
    event_atom: int = 0  # position of this statement among its event's atoms (the event-id rule's key)
    origin_text: str | None = None  # the inserted text when merges changed it (what the vector embeds)
    speaker: str | None = None  # who said it (claims and utterances): a claim is only ever the same as its speaker's
    expires_at: int | None = None  # the round after which a time-bound fact no longer holds (None: never)
    validation_log: list["Validation"] = msgspec.field(default_factory=list)  # who confirmed or refuted it, when, how
    actors: tuple[str, ...] = ()  # who did what it says (agent ids, the doer first), from its first deposit


class RecallHit(msgspec.Struct, frozen=True, kw_only=True):
    """One recalled record with how it was reached and its score."""

    record: Record
    via: HitVia
    score: float


def normalise_text(text: str) -> str:
    """Case-, width- and punctuation-insensitive form of a statement (the same-text rule, de-duplication)."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    return " ".join(_NORMALISE_DROP.sub(" ", text).split())
