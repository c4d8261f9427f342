"""Read-only questions about a running simulation's memory: who knows what, and from whom."""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

if TYPE_CHECKING:
    from memory.disputes import Dispute
    from memory.records import Record
    from storyworld.report.runs import Run


class OwnerRow(TypedDict):
    """One owner's holding of a record, JSON-ready."""

    via: str
    source: str | None
    round: int
    place: str | None
    confidence: float
    status: str
    flags: list[str]


class KnowsRow(TypedDict):
    """One record matching a who-knows query, with every owner's provenance (and, once added, its disputes)."""

    id: int
    text: str
    kind: str
    round: int
    place: str | None
    score: float
    based_on: list[int]
    owners: dict[str, OwnerRow]
    disputes: NotRequired[list[Dispute]]


def who_knows(sim: Run, query: str, k: int = 8) -> list[KnowsRow]:
    """Records matching a query across every owner, best first, with each owner's provenance."""
    best: dict[int, tuple[float, Record]] = {}
    for agent in sorted(sim.world.agents):
        for hit in sim.store.recall(agent, query, k=k):
            if hit.via != "semantic":
                continue
            if hit.record.id not in best or best[hit.record.id][0] < hit.score:
                best[hit.record.id] = (hit.score, hit.record)
    ranked = sorted(best.values(), key=lambda pair: -pair[0])[:k]
    rows: list[KnowsRow] = []
    for score, record in ranked:
        rows.append({
            "id": record.id,
            "text": record.text,
            "kind": record.kind,
            "round": record.round,
            "place": record.place,
            "score": round(float(score), 4),
            "based_on": list(record.based_on),
            "owners": {
                owner: {
                    "via": h.via, "source": h.source, "round": h.since_round, "place": h.place or record.place,
                    "confidence": round(h.confidence, 3), "status": h.status, "flags": list(h.flags),
                }
                for owner, h in sorted(record.owners.items())
            },
        })
    return rows
