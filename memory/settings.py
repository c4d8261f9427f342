"""MemorySettings: the consensus store's thresholds, recall and trust parameters."""

from __future__ import annotations

import msgspec

from memory.records import Frozen


class MemorySettings(Frozen, frozen=True):
    """Every tunable of the consensus store (merge thresholds chosen on the dev pair sets: `bench judge --sweep`)."""

    merge: bool = True  # False: every atom becomes its own record (the no-merge ablation)
    merge_high: float = 0.9  # cosine at or above which a guarded neighbour merges (0.88 let verb-guarded near misses through on dev)
    merge_low: float = 0.72  # below this never merge; between low and high ask the judge (if any)
    frame_min: float = 0.85  # normalised-frame overlap at or above which a guarded neighbour merges (memory/frames.py)
    frame_cosine_min: float = 0.5  # ... provided its cosine is at least this (frames alone ignore what the lexicon lacks)
    deed_cosine_min: float = 0.8  # same main deed, nothing swapped, one side adds detail: merges at this cosine (memory/equivalence.py)
    # same main deed and every participant of each side found in the other (the word, a synonym, or a person named
    # on one side and spoken of by their post on the other): merges at this cosine (memory/guard.counterparts)
    counterpart_cosine_min: float = 0.5
    # both said in one wording (memory/retelling.pair) and embedded again: merges at merge_high on that cosine, for
    # a pair whose raw cosine is at least this (memory/equivalence.structural_rule); below 0.5 for a name said by a
    # post on one side and a report on the other, which pull the raw cosine down (0.48 for one such pair)
    canonical_cosine_min: float = 0.4
    judge_enabled: bool = True  # use the judge callable (when one is given) in the band
    judge_max_calls: int = 2  # judge calls per atom at most
    write_neighbours: int = 8  # usearch neighbours examined per new atom
    k: int = 5  # default recall size
    candidate_factor: int = 4  # cosine candidates per recalled hit, re-ranked by trust
    exact_max_rows: int = 4096  # owner-scoped recall takes exact dot products up to this many rows
    oversample: int = 8  # usearch over-fetch factor when the owner holds more rows
    expand_max: int = 10  # affiliated hits added at most per recall
    dispute_min: float = 0.8  # cosine above which a guard contradiction is a dispute
    cross_dispute_min: float = 0.7  # cosine above which opposite records of different owners are in dispute
    # Write policy: the least confidence a fresh statement of each kind needs to be kept (facts stricter).
    write_floors: dict[str, float] = msgspec.field(
        default_factory=lambda: {"claim": 0.2, "inference": 0.3, "insight": 0.3, "reflection": 0.2}
    )
    min_recall_confidence: float = 0.0  # recall leaves out holdings the owner is less sure of than this
    default_reliability: float = 0.8  # how far a listener trusts an unknown speaker
    liar_reliability_factor: float = 0.5  # a speaker exposed as a liar keeps this share of each listener's trust
    corroboration_gain: float = 0.25  # share of the gap to the cap an independent witness closes
    confidence_cap: float = 0.98
    observation_decay: float = 0.03  # per idle round, events and observations
    fact_decay: float = 0.008  # per idle round, claims, inferences, insights
    decay_grace_rounds: int = 3  # rounds a holding stays fresh after learning or recall
    archive_floor: float = 0.1  # below this confidence a holding is archived
    max_text_chars: int = 100_000
    max_atoms: int = 512  # atoms per deposit

    def structural_floor(self) -> float:
        """The least cosine at which some structural rule may still merge a guarded neighbour."""
        return min(self.frame_cosine_min, self.deed_cosine_min, self.counterpart_cosine_min, self.canonical_cosine_min)
