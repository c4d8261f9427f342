"""The paper's Table 4: what the consensus mechanism costs, read from a finished run's store and recall calls.

Pure functions: they take the store's records (with merge logs), its affiliation neighbours, the
recall results the run logged, and the world's names; nothing here runs a model.

- recall: calls, median semantic hits and expansion rows per call, amplification (rows returned over
  the k asked), and how often a row mentions what the query names, in each group.
- affiliated: median siblings (one-hop affiliated neighbours) of a record held by 1 owner vs 4+.
- keep-shorter: merges that dropped text, over all merges; median characters dropped; the share whose
  kept text loses a named agent or place the discarded text had; the share that loses the principal
  (the actor of the discarded statement's event).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import msgspec

from memory import guard
from memory.records import RecallHit, normalise_text
from storyworld.kernel import ids

if TYPE_CHECKING:  # annotations only
    from memory.devset import DevPair
    from memory.embedder import Embedder
    from memory.records import Record
    from storyworld.jsondata import Document
    from storyworld.kernel.state import SimEvent
    from storyworld.world import World


class RecallSample(msgspec.Struct, frozen=True, kw_only=True):
    """One logged recall call: the query, the k asked, and the texts returned by route."""

    query: str
    k: int
    semantic: tuple[str, ...] = ()
    affiliated: tuple[str, ...] = ()


def sample(query: str, k: int, hits: Iterable[RecallHit]) -> RecallSample:
    """A RecallSample from a store's RecallHit list."""
    semantic: list[str] = []
    affiliated: list[str] = []
    for hit in hits:
        (affiliated if hit.via == "affiliated" else semantic).append(hit.record.text)
    return RecallSample(query=query, k=k, semantic=tuple(semantic), affiliated=tuple(affiliated))


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def query_names(text: str) -> frozenset[str]:
    """Names and places a text mentions (lower case): what 'the query appears in a row' compares."""
    f = guard.features(text)
    return frozenset(f.entities | f.places)


def mentions_query(query: str, text: str) -> bool:
    """Whether a returned row mentions something the query names (the query itself is a whole situation)."""
    wanted = query_names(query)
    return bool(wanted & query_names(text)) or (bool(query.strip()) and query.strip().lower() in text.lower())


_WORD = re.compile(r"[a-z']{4,}")


def word_overlap(query: str, text: str) -> float:
    """Share of the query's words (4+ letters) that the row also uses: how close a row stays to what was asked."""
    wanted = set(_WORD.findall(query.lower()))
    return len(wanted & set(_WORD.findall(text.lower()))) / len(wanted) if wanted else 0.0


def recall_cost(samples: list[RecallSample], mentions: Callable[[str, str], bool] = mentions_query) -> dict[str, object]:
    """Recall amplification and the query's share in semantic hits vs expansion rows."""
    hits = [len(s.semantic) for s in samples]
    expanded = [len(s.affiliated) for s in samples]
    asked = [s for s in samples if s.k > 0]
    q_hits = sum(mentions(s.query, t) for s in samples for t in s.semantic)
    q_exp = sum(mentions(s.query, t) for s in samples for t in s.affiliated)
    return {
        "calls": len(samples),
        "k_median": _median([float(s.k) for s in samples]),
        "hits_median": _median([float(h) for h in hits]),
        "expansion_median": _median([float(e) for e in expanded]),
        "hits_total": sum(hits),
        "expansion_total": sum(expanded),
        # rows returned per row asked for, per call, averaged over calls that asked for any
        "amplification": statistics.fmean((len(s.semantic) + len(s.affiliated)) / s.k for s in asked) if asked else 0.0,
        "expanding_calls": sum(1 for e in expanded if e),
        "query_in_hits": q_hits / sum(hits) if sum(hits) else 0.0,
        "query_in_expansion": q_exp / sum(expanded) if sum(expanded) else 0.0,
        # a stricter reading than a shared name: the mean share of the query's words a row repeats
        "query_words_hits": statistics.fmean(word_overlap(s.query, t) for s in samples for t in s.semantic) if sum(hits) else 0.0,
        "query_words_expansion": (statistics.fmean(word_overlap(s.query, t) for s in samples for t in s.affiliated)
                                  if sum(expanded) else 0.0),
    }


def siblings(records: Iterable[Record], neighbours: Callable[[int], list[int]]) -> dict[str, object]:
    """Median affiliated neighbours of records held by exactly one owner vs four or more."""
    one, many = [], []
    for record in records:
        count = len(record.owners)
        if count == 1:
            one.append(float(len(neighbours(record.id))))
        elif count >= 4:
            many.append(float(len(neighbours(record.id))))
    return {"one_owner": _median(one), "four_plus": _median(many), "one_owner_records": len(one),
            "four_plus_records": len(many)}


def _has(name: str, text: str) -> bool:
    """Whether a name occurs in a text as whole words (case kept: 'Will' the name is not 'will')."""
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text) is not None


def keep_shorter(
    records: Iterable[Record],
    names: Iterable[str],
    actors: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, object]:
    """What keep-shorter merges discarded, from the merge logs.

    `names`: the world's agent and place names (display names); `actors`: event id -> the names of its
    actors (the principal). A merge "dropped text" when its kept text is shorter than its discarded text
    and the two differ beyond normalisation.
    """
    names = sorted({n for n in names if n.strip()}, key=len, reverse=True)
    actors = actors or {}
    merges = dropped = name_lost = principal_lost = 0
    chars: list[float] = []
    examples: list[dict[str, str]] = []
    for record in records:
        for entry in record.merge_log:
            merges += 1
            kept, discarded = entry.kept_text, entry.discarded_text
            if not discarded or len(kept) >= len(discarded) or normalise_text(kept) == normalise_text(discarded):
                continue
            dropped += 1
            chars.append(float(len(discarded) - len(kept)))
            lost = [n for n in names if _has(n, discarded) and not _has(n, kept)]
            if lost:
                name_lost += 1
                if len(examples) < 5:
                    examples.append({"kept": kept, "discarded": discarded, "lost": ", ".join(lost)})
            # the discarded side's event: the merged statement's, or the record's own when the record's text lost
            event_id = entry.event_id if discarded == entry.incoming_text else record.event_id
            principal = actors.get(event_id, ()) if event_id else ()
            if any(_has(p, discarded) and not _has(p, kept) for p in principal):
                principal_lost += 1
    return {
        "merges": merges,
        "dropped": dropped,
        "chars_median": _median(chars),
        "chars_total": int(sum(chars)),
        "name_lost": name_lost,
        "name_lost_share": name_lost / dropped if dropped else 0.0,
        "principal_lost": principal_lost,
        "principal_lost_share": principal_lost / dropped if dropped else 0.0,
        "name_lost_examples": examples,
    }


def table4(
    records: list[Record],
    neighbours: Callable[[int], list[int]],
    samples: list[RecallSample],
    names: Iterable[str],
    actors: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, object]:
    """Every Table 4 figure for one store and its logged recalls."""
    return {
        "rows": len(records),
        "recall": recall_cost(samples),
        "affiliated": siblings(records, neighbours),
        "keep_shorter": keep_shorter(records, names, actors),
    }


def world_names(world: World) -> list[str]:
    """The world's agent and place display names."""
    return [a.name for a in world.file.agent] + [p.name for p in world.file.place]


def event_actors(world: World, sim_events: Iterable[SimEvent]) -> dict[str, tuple[str, ...]]:
    """Store event id -> actor display names, for the canon's events and every key the run's events deposited under."""
    display = {a.id: a.name for a in world.file.agent}
    out: dict[str, tuple[str, ...]] = {}
    for event in world.file.event:
        out[event.id] = tuple(display.get(a, a) for a in event.actors)
    for played in sim_events:
        for key in ids.keys_of(played):  # the event's own records, its claim, the carrier it read, the scene
            out[key] = (display.get(played.actor, played.actor),)
    return out


def render(figures: Document) -> str:
    """Table 4 as one markdown row set (one world, one backend)."""
    r, a, m = figures["recall"], figures["affiliated"], figures["keep_shorter"]
    header = ["rows", "calls", "hits+exp.", "amp.", "q in hits", "q in exp.", "q words hits / exp.", "1 / 4+ own.", "seen",
              "chars", "name", "principal"]
    row = [figures["rows"], r["calls"], f"{r['hits_median']:g}+{r['expansion_median']:g}", f"{r['amplification']:.1f}",
           f"{r['query_in_hits'] * 100:.0f}%", f"{r['query_in_expansion'] * 100:.0f}%",
           f"{r.get('query_words_hits', 0.0) * 100:.0f}% / {r.get('query_words_expansion', 0.0) * 100:.0f}%",
           f"{a['one_owner']:g} / {a['four_plus']:g}", f"{m['dropped']}/{m['merges']}", f"{m['chars_median']:g}",
           f"{m['name_lost_share'] * 100:.0f}%", f"{m['principal_lost_share'] * 100:.0f}%"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
             "| " + " | ".join(str(c) for c in row) + " |"]
    return "\n".join(lines)


_CAPITALISED = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+")


def pair_names(texts: Iterable[str]) -> list[str]:
    """Capitalised words inside a sentence (not opening it): names, found independently of the guard's reading."""
    return sorted({m.group(0) for t in texts for m in _CAPITALISED.finditer(t)})


def keep_shorter_on_pairs(pairs: Iterable[DevPair], embedder: Embedder) -> dict[str, object]:
    """Each labelled pair deposited by two owners into a fresh store; keep-shorter figures over the merges made."""
    from memory import ConsensusStore

    pairs = list(pairs)
    records = []
    merged_same = merged_other = 0
    for pair in pairs:
        store = ConsensusStore.open(None, embedder=embedder)
        store.remember("a", pair.a, round=1, via="witnessed")
        store.remember("b", pair.b, round=1, via="witnessed")
        joined = [r for r in store.records() if r.merge_log]
        if joined:
            merged_same += pair.same
            merged_other += not pair.same
        records.extend(joined)
    figures = keep_shorter(records, pair_names([t for pair in pairs for t in (pair.a, pair.b)]))
    figures.update(pairs=len(pairs), merged_same=merged_same, merged_different=merged_other)
    return figures


def main(argv: list[str] | None = None) -> int:
    """`python -m storyworld.benches.table4 --devset [SPLIT]`: keep-shorter losses on the labelled merge pairs."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m storyworld.benches.table4")
    parser.add_argument("--devset", default="dev", help="dev | legacy | a .jsonl path (default dev)")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    args = parser.parse_args(argv)
    from memory import devset
    from storyworld.benches.embedders import fresh_embedder

    pairs = devset.load_pairs(devset.SPLITS.get(args.devset, args.devset))
    print(json.dumps(keep_shorter_on_pairs(pairs, fresh_embedder(args.embedder)), indent=1))
    return 0


__all__ = ["RecallSample", "event_actors", "keep_shorter", "recall_cost", "render", "sample", "siblings", "table4",
           "world_names"]


if __name__ == "__main__":
    raise SystemExit(main())
