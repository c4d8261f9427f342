"""Who interacted with whom in a run, and how that lines up with what they remember together.

The paper's Figures 6-7 read a run in three layers: the interaction graph (who spoke to or acted
on whom, with conversational communities), the memory-affiliation graph (records linked by
affiliation, clustered into plotlines), and pairwise relations between agents (interactions,
records held in common, affiliation links across their memories). This module computes them
from a run's events and store; the bench draws them (backends_plots) and the TUI lists them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from memory.store import MemoryStore
    from storyworld.kernel.state import SimEvent


class PairRelation(msgspec.Struct, frozen=True, kw_only=True):
    """One unordered pair of agents: how often they interacted and what memory they share."""

    a: str
    b: str
    spoke: int = 0  # utterances either addressed to the other or heard by them
    acted: int = 0  # actions either took on the other (give, show, ...)
    shared: int = 0  # records both own
    linked: int = 0  # affiliation edges between a record one owns and a record the other owns

    @property
    def interactions(self) -> int:
        """spoke + acted."""
        return self.spoke + self.acted


def interaction_counts(agents: Iterable[str], events: Iterable[SimEvent]) -> dict[tuple[str, str], Counter[str]]:
    """Directed (actor, other) -> {"spoke": n, "acted": n} from a run's events.

    A `say` addressed to someone counts for that listener; one addressed to nobody counts for
    everyone who heard it. An `act` counts when its target is an agent.
    """
    known = set(agents)
    counts: dict[tuple[str, str], Counter[str]] = {}
    for event in events:
        actor = event.actor
        if actor not in known:
            continue
        if event.kind == "say":
            if event.target in known and event.target != actor:
                others: Iterable[str] = (event.target,)
            else:
                others = (w for w in event.witnesses if w != actor and w in known)
            kind = "spoke"
        elif event.kind == "act" and event.target in known and event.target != actor:
            others, kind = (event.target,), "acted"
        else:
            continue
        for other in others:
            counts.setdefault((actor, other), Counter())[kind] += 1
    return counts


def pair_relations(agents: list[str], events: Iterable[SimEvent], store: MemoryStore | None = None) -> list[PairRelation]:
    """Every pair with any relation, ranked by interactions, then shared records, then names."""
    directed = interaction_counts(agents, events)
    spoke: Counter[tuple[str, str]] = Counter()
    acted: Counter[tuple[str, str]] = Counter()
    for (actor, other), kinds in directed.items():
        key = (min(actor, other), max(actor, other))
        spoke[key] += kinds["spoke"]
        acted[key] += kinds["acted"]
    shared, linked = memory_pairs(agents, store) if store is not None else (Counter(), Counter())
    keys = set(spoke) | set(acted) | set(shared) | set(linked)
    pairs = [PairRelation(a=a, b=b, spoke=spoke[(a, b)], acted=acted[(a, b)], shared=shared[(a, b)],
                          linked=linked[(a, b)]) for a, b in keys]
    pairs.sort(key=lambda p: (-p.interactions, -p.shared, -p.linked, p.a, p.b))
    return pairs


def memory_pairs(agents: list[str], store: MemoryStore) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """(records both own, affiliation edges across their memories) per unordered agent pair."""
    known = set(agents)
    owners: dict[int, tuple[str, ...]] = {}
    shared: Counter[tuple[str, str]] = Counter()
    for record in store.records():
        holders = tuple(sorted(o for o in record.owners if o in known))
        owners[record.id] = holders
        for i, a in enumerate(holders):
            for b in holders[i + 1:]:
                shared[(a, b)] += 1
    linked: Counter[tuple[str, str]] = Counter()
    for left, right in store.edges():
        seen: set[tuple[str, str]] = set()
        for a in owners.get(left, ()):
            for b in owners.get(right, ()):
                if a != b:
                    seen.add((min(a, b), max(a, b)))
        for key in seen:  # an edge links a pair once, however many of them own each end
            linked[key] += 1
    return shared, linked


def communities(agents: list[str], pairs: Iterable[PairRelation], seed: int = 0) -> list[list[str]]:
    """Conversational communities: Louvain on the interaction graph (isolated agents alone), largest first."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(agents)
    for pair in pairs:
        if pair.interactions:
            graph.add_edge(pair.a, pair.b, weight=pair.interactions)
    found = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    return sorted((sorted(c) for c in found), key=lambda c: (-len(c), c))


def affiliation_clusters(edges: Iterable[tuple[int, int]], seed: int = 0) -> list[list[int]]:
    """Clusters of affiliated records (Louvain on the affiliation graph), largest first."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_edges_from(edges)
    if graph.number_of_nodes() == 0:
        return []
    found = nx.community.louvain_communities(graph, seed=seed)
    return sorted((sorted(c) for c in found), key=lambda c: (-len(c), c))


def relations_summary(agents: list[str], events: Iterable[SimEvent], store: MemoryStore | None = None,
                      affiliation: bool = True) -> dict[str, object]:
    """JSON-ready: ranked pairs, communities, and (with `affiliation`) the affiliation graph for plots."""
    pairs = pair_relations(agents, list(events), store)
    result: dict[str, object] = {
        "pairs": [msgspec.to_builtins(p) for p in pairs],
        "communities": communities(agents, pairs),
    }
    if store is not None and affiliation:
        edge_list = [list(e) for e in store.edges()]
        ends = {i for e in edge_list for i in e}
        owners = {r.id: sorted(r.owners) for r in store.records() if r.id in ends}
        result["affiliation"] = {
            "edges": edge_list,
            "owners": {str(i): owners.get(i, []) for i in sorted(ends)},
            "texts": {str(i): r.text[:120] for r in store.records() if (i := r.id) in ends},
        }
    return result
