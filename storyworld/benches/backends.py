"""`storyworld bench backends WORLD`: the four memory backends on one world, start and seed (paper Tables 1-3, 5, 8).

Every backend runs the same world from the same start with the same seed and model. The model's
decisions read what recall returns, so the runs diverge after the first round; that is expected,
and each table reads each run's own store and event log.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from memory import BACKENDS
from storyworld.errors import UserError
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import find_world
from storyworld.world import load_world

if TYPE_CHECKING:
    from memory.store import MemoryStore

LABELS = {"consensus": "Consensus", "generative": "Gen. Agents", "gmemory": "G-Memory", "collaborative": "Collaborative"}
ACTION_NAMES = ("say", "read_thread", "observe", "move", "act_on", "wait")
BIN = 5  # rounds per latency bin
REPLAY_STRUCTURE = ("sediment", "sim", "total", "shared", "linked")
ABLATIONS = ("fifo", "relevance", "hybrid", "no-merge")  # Table 3 cells: (merge, cache) one factor at a time
ABLATION_CELLS = {"fifo": (True, "fifo"), "relevance": (True, "relevance"), "hybrid": (True, "hybrid"),
                  "no-merge": (False, "fifo")}


class Metered:
    """Wraps a store for the kernel: times remember/recall per call and audits every recall hit for leaks."""

    def __init__(self, store: Any, start_round: int) -> None:
        self.store = store
        self.start_round = start_round
        self.remember_calls: list[tuple[int, float, int]] = []  # (round since start, ms, deposits)
        self.recall_calls: list[tuple[int, float, int, int]] = []  # (round since start, ms, hits, affiliated)
        self.leaks = 0
        self.round = 0
        self.affiliate_ms = 0.0
        self.ops: list[tuple] | None = None  # the write/read stream, kept when a replay will need it
        self.samples: list[Any] = []  # every recall's query, k and returned texts by route (Table 4)

    # The rest of MemoryStore, unmetered.
    backend = property(lambda self: self.store.backend)
    current_round = property(lambda self: self.store.current_round)
    notices = property(lambda self: self.store.notices)

    def remember(self, owner: str, text: Any, round: int = 0, **provenance: Any) -> list[int]:
        """Unmetered remember (the kernel writes in batches)."""
        return self.store.remember(owner, text, round, **provenance)

    def get(self, record_id: int) -> Any:
        """The store's record."""
        return self.store.get(record_id)

    def records(self) -> list[Any]:
        """The store's records."""
        return self.store.records()

    def held_by(self, owner: str) -> list[Any]:
        """The store's records an owner holds."""
        return self.store.held_by(owner)

    def owners(self) -> list[str]:
        """The store's owners."""
        return self.store.owners()

    def can_read(self, record_id: int, owner: str) -> bool:
        """The store's access rule."""
        return self.store.can_read(record_id, owner)

    def stats(self) -> dict:
        """The store's metrics."""
        return self.store.stats()

    def dump(self) -> dict[str, bytes]:
        """The store's files."""
        return self.store.dump()

    def save(self, folder: Any = None) -> int:
        """Save the store."""
        return self.store.save(folder)

    def neighbours(self, record_id: int) -> list[int]:
        """The store's affiliation of one record."""
        return self.store.neighbours(record_id)

    def edges(self) -> list[tuple[int, int]]:
        """The store's affiliation edges."""
        return self.store.edges()

    def decay(self, round: int) -> int:
        """The store's decay."""
        return self.store.decay(round)

    def retract(self, record_id: int, by: str, round: int | None = None, owners: Any = None,
                event_id: str | None = None) -> list[int]:
        """The store's retraction."""
        return self.store.retract(record_id, by, round=round, owners=owners, event_id=event_id)

    def retract_event(self, event_id: str, by: str, round: int | None = None) -> list[int]:
        """The store's retraction of an event."""
        return self.store.retract_event(event_id, by, round=round)

    def disputes(self, owner: str) -> list[tuple[int, int]]:
        """The store's disputes of one owner."""
        return self.store.disputes(owner)

    def cross_disputes(self, record_id: int | None = None) -> list[tuple[int, int]]:
        """The store's disputes across owners."""
        return self.store.cross_disputes(record_id)

    def unmerge(self, record_id: int, owner: str) -> int | None:
        """The store's unmerge."""
        return self.store.unmerge(record_id, owner)

    def affiliate(self, ids: list[int]) -> None:
        """Timed affiliate (the consensus store's second write step in the kernel)."""
        if self.ops is not None:
            self.ops.append(("affiliate", self.round, list(ids)))
        started = time.perf_counter()
        self.store.affiliate(ids)
        self.affiliate_ms += (time.perf_counter() - started) * 1000.0

    def remember_many(self, deposits: list[Any]) -> list[list[int]]:
        """Timed remember_many."""
        if self.ops is not None:
            self.ops.append(("remember", self.round, list(deposits)))
        started = time.perf_counter()
        ids = self.store.remember_many(deposits)
        self.remember_calls.append((self.round, (time.perf_counter() - started) * 1000.0, len(deposits)))
        return ids

    def recall(self, owner: str, query: str, k: int | None = None, **kwargs: Any) -> list[Any]:
        """Timed recall; a hit the owner may not read counts as a leak."""
        if self.ops is not None:
            self.ops.append(("recall", self.round, owner, query, k))
        started = time.perf_counter()
        hits = self.store.recall(owner, query, k=k, **kwargs)
        ms = (time.perf_counter() - started) * 1000.0
        for hit in hits:
            if not can_read(self.store, hit.record.id, owner):
                self.leaks += 1
        self.recall_calls.append((self.round, ms, len(hits), sum(1 for h in hits if h.via == "affiliated")))
        from storyworld.benches.table4 import sample

        asked = k if k is not None else getattr(getattr(self.store, "settings", None), "k", 0)
        self.samples.append(sample(query, asked, hits))
        return hits


def can_read(store: MemoryStore, record_id: int, owner: str) -> bool:
    """Whether the store's own record (not the hit's copy) lets this owner read it."""
    return bool(store.can_read(record_id, owner))


def structure(store: Any) -> dict[str, Any]:
    """Entries, sharing and linking of a store, over sim entries (the paper's Tables 2 and 8) and overall."""
    records = store.records()
    sim = [r for r in records if not r.sediment]
    linked_ids = {r.id for r in records if store.neighbours(r.id)}
    owners = [len(r.owners) for r in sim]
    shared = sum(1 for c in owners if c >= 2)
    linked = sum(1 for r in sim if r.id in linked_ids)
    total = len(records)
    return {
        "sediment": total - len(sim),
        "sim": len(sim),
        "total": total,
        "shared": shared,
        "shared_fraction": shared / len(sim) if sim else 0.0,
        "linked": linked,
        "linked_fraction": linked / len(sim) if sim else 0.0,
        "three_plus": sum(1 for c in owners if c >= 3),
        "max_owners": max(owners, default=0),
        "shared_all": sum(1 for r in records if len(r.owners) >= 2),
        "linked_all": len(linked_ids),
        "holdings": sum(len(r.owners) for r in records),
    }


def ownership_matrix(store: Any, agents: list[str]) -> list[list[int]]:
    """Cell (i, j): records owned by both agent i and agent j (diagonal: records agent i owns)."""
    index = {a: i for i, a in enumerate(agents)}
    matrix = [[0] * len(agents) for _ in agents]
    for record in store.records():
        held = sorted(index[o] for o in record.owners if o in index)
        for x in held:
            for y in held:
                matrix[x][y] += 1
    return matrix


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def latency(meter: Metered) -> dict[str, Any]:
    """Remember ms per deposit and recall ms per call, overall and per 5-round bin (rounds since start)."""
    bins: dict[int, dict[str, list[float]]] = {}
    for rnd, ms, n in meter.remember_calls:
        b = bins.setdefault(rnd // BIN, {"remember_ms": [], "deposits": [], "recall_ms": []})
        b["remember_ms"].append(ms)
        b["deposits"].append(n)
    for rnd, ms, _, _ in meter.recall_calls:
        bins.setdefault(rnd // BIN, {"remember_ms": [], "deposits": [], "recall_ms": []})["recall_ms"].append(ms)
    rows = []
    for b in sorted(bins):
        v = bins[b]
        deposits = sum(v["deposits"])
        rows.append({
            "rounds": f"{b * BIN + 1}-{b * BIN + BIN}",
            "remember_ms_per_deposit": sum(v["remember_ms"]) / deposits if deposits else 0.0,
            "remember_ms_per_round": _mean(v["remember_ms"]),
            "recall_ms_mean": _mean(v["recall_ms"]),
            "recall_calls": len(v["recall_ms"]),
        })
    deposits = sum(n for _, _, n in meter.remember_calls)
    remember_total = sum(ms for _, ms, _ in meter.remember_calls)
    recall = sorted(ms for _, ms, _, _ in meter.recall_calls)
    expanding = [a for _, _, _, a in meter.recall_calls if a]
    return {
        "remember_ms_mean": remember_total / deposits if deposits else 0.0,
        "affiliate_ms": meter.affiliate_ms,
        # the consensus store writes in two steps (remember, then affiliate); baselines only remember
        "write_ms_mean": (remember_total + meter.affiliate_ms) / deposits if deposits else 0.0,
        "remember_ms_per_round": _mean([ms for _, ms, _ in meter.remember_calls]),
        "recall_ms_mean": _mean(recall),
        "recall_ms_p50": recall[len(recall) // 2] if recall else 0.0,
        "deposits": deposits,
        "recall_calls": len(recall),
        "expanded_calls": len(expanding),
        "linked_per_call": _mean([float(a) for a in expanding]),
        "latency_bins": rows,
    }


def action_counts(actions: list[Any]) -> dict[str, int]:
    """Resolved actions by name (Table 5), from the event log's action list."""
    counts = Counter(msgspec.to_builtins(a)["action"] for a in actions)
    return {name: counts.get(name, 0) for name in ACTION_NAMES}


def run_one(
    world: Any,
    backend: str,
    *,
    rounds: int,
    start: str | None,
    seed: int,
    mind: Any,
    embedder: Any,
    merge: bool = True,
    cache: str = "fifo",
    judge: Any = None,
    horizons: tuple[int, ...] = (),
    model_name: str = "",
    log: Any = None,
    save_dir: Path | None = None,
    quality: Any = None,
    later: list | None = None,
    store_options: dict[str, Any] | None = None,
    ops: list | None = None,
    awake: str = "all",
    player: str | None = None,
    max_awake: int = 4,
) -> dict[str, Any]:
    """One backend's run: sediment, N rounds with the kernel, then every figure the tables need.

    Horizons past `rounds` continue the same run afterwards; with `later` given, that continuation
    is appended to it as a callable instead of running now (so other backends finish first).
    """
    from storyworld.game import session
    from storyworld.kernel.state import Settings

    settings = Settings(seed=seed, backend=backend, cache_policy=cache, merge=merge, awake=awake,
                        player=player, max_awake=max_awake, model=model_name)
    began = time.perf_counter()
    if store_options and backend != "consensus":
        from memory import baselines
        from storyworld.game.sediment import sediment
        from storyworld.game.simulation import Simulation, initial_state

        store = baselines.make(backend, embedder=embedder, **store_options)
        start_id = world.start(start).id
        sediment(world, store, start_id)
        sim = Simulation(world, initial_state(world, start_id), store, settings, mind)
    else:
        sim = session.new_simulation(world, start, settings, mind, embedder=embedder, judge=judge)
    sediment_s = time.perf_counter() - began
    meter = Metered(sim.store, sim.state.round)
    meter.ops = ops  # a list to fill with the write/read stream (for --replay), or None
    sim.store = meter
    growth: list[dict[str, int]] = []
    snapshots: dict[str, dict[str, Any]] = {}
    first = sim.state.round
    decide_s = 0.0
    decisions = fallbacks = 0
    label = f"[{backend}{'' if merge else ' no-merge'} {cache}]"
    horizon_keys = ("sim", "total", "shared", "shared_fraction", "linked", "linked_fraction", "three_plus", "max_owners")

    def step(index: int, last: int) -> dict[str, Any]:
        meter.round = index
        t0 = time.perf_counter()
        sim.step()
        shape = structure(meter.store)
        if index + 1 in horizons:
            snapshots[str(index + 1)] = {k: shape[k] for k in horizon_keys}
        if log is not None:
            print(f"{label} round {index + 1}/{last} (world round {first + index}): {time.perf_counter() - t0:.1f}s, "
                  f"total {shape['total']}, sim {shape['sim']}, shared {shape['shared']}, linked {shape['linked']}",
                  file=log, flush=True)
        return shape

    beyond = max((h for h in horizons if h > rounds), default=rounds)
    for index in range(rounds):
        shape = step(index, max(rounds, beyond))
        decide_s += sim.last_timing.decide_s
        decisions += sim.last_timing.decisions
        fallbacks += sim.last_timing.fallbacks
        growth.append({"round": index + 1, "sim": shape["sim"], "total": shape["total"], "shared": shape["shared"],
                       "linked": shape["linked"]})
    sim.store = meter.store
    result: dict[str, Any] = {"backend": backend, "merge": merge, "cache": cache}
    result.update(structure(meter.store))
    result.update(latency(meter))
    store_stats = meter.store.stats()
    result["leaks"] = max(int(store_stats.get("leaks", 0)), meter.leaks)
    result["audited_leaks"] = meter.leaks
    result["actions"] = action_counts(sim.state.actions)
    result["events"] = len(sim.state.events)
    result["decisions"] = decisions
    result["fallbacks"] = fallbacks
    result["decide_s"] = decide_s
    result["sediment_s"] = sediment_s
    result["seconds"] = time.perf_counter() - began
    result["growth"] = growth
    result["horizons"] = snapshots
    agents = sorted(a.id for a in world.file.agent)
    result["agents"] = agents
    result["ownership"] = ownership_matrix(meter.store, agents)
    result["owned_per_agent"] = {a: len(meter.store.held_by(a)) for a in agents}
    from storyworld.report.relations import relations_summary

    # the pictures of a run (interaction graph, affiliation clusters, pairwise relations)
    result["relations"] = relations_summary(agents, sim.state.events, meter.store, affiliation=backend == "consensus")
    keep = ("reflections", "insights", "grants", "merges_by_rule", "judge_calls", "remember_mean_ms", "recall_mean_ms",
            "edges", "records")
    result["store_stats"] = {k: store_stats[k] for k in keep if k in store_stats}
    if backend == "consensus":
        from storyworld.benches import table4

        result["table4"] = table4.table4(meter.store.records(), meter.store.neighbours, meter.samples,
                                         table4.world_names(world), table4.event_actors(world, sim.state.events))
    if save_dir is not None:
        folder = save_dir / (backend if merge and cache == "fifo" else f"{backend}-{'merge' if merge else 'nomerge'}-{cache}")
        session.save_simulation(sim, folder)
        result["save"] = str(folder)
    if quality is not None:
        result["quality"] = quality(sim)
    if beyond > rounds:
        def go_on() -> None:
            """Horizons past --rounds: the same run goes on; only the sharing snapshots read these rounds."""
            resumed = time.perf_counter()
            meter.ops = None  # the replay stream is the first --rounds only
            sim.store = meter
            for index in range(rounds, beyond):
                step(index, beyond)
            sim.store = meter.store
            result["horizons"] = snapshots
            result["horizon_seconds"] = time.perf_counter() - resumed

        if later is None:
            go_on()
        else:
            later.append(go_on)
    return result


def replay(world: Any, start: str | None, ops: list[tuple], backends: list[str], embedder_kind: str) -> dict[str, Any]:
    """Feed one recorded write/read stream into a fresh store per backend, interleaved round by round.

    Every store gets the same sediment, the same deposits and the same recall queries, in one
    process and one time window, so remember and recall costs compare on an identical workload
    (the runs themselves diverge). Derivation pointers (based_on) are dropped for the baselines:
    they name the recording store's ids. Affiliation calls replay only into consensus stores,
    whose ids come out the same for the same stream.
    """
    from storyworld.game import session
    from storyworld.game.sediment import sediment

    meters: dict[str, Metered] = {}
    for backend in backends:
        store = session.make_store(backend, embedder=_fresh_embedder(embedder_kind))
        sediment(world, store, world.start(start).id)
        meters[backend] = Metered(store, 0)
    rounds: list[list[tuple]] = []
    for op in ops:
        if not rounds or rounds[-1][0][1] != op[1]:
            rounds.append([])
        rounds[-1].append(op)
    for group in rounds:
        for backend, meter in meters.items():
            meter.round = group[0][1]
            for op in group:
                if op[0] == "remember":
                    deposits = op[2] if backend == "consensus" else [
                        msgspec.structs.replace(d, based_on=()) for d in op[2]]
                    meter.remember_many(deposits)
                elif op[0] == "affiliate":
                    meter.affiliate(op[2])
                else:
                    meter.recall(op[2], op[3], k=op[4])
    out: dict[str, Any] = {}
    for backend, meter in meters.items():
        figures = latency(meter)
        out[backend] = {
            **{k: figures[k] for k in ("remember_ms_mean", "write_ms_mean", "affiliate_ms", "recall_ms_mean",
                                       "recall_ms_p50", "deposits", "recall_calls", "latency_bins")},
            "leaks": max(meter.leaks, int(meter.store.stats().get("leaks", 0))),
            **{k: v for k, v in structure(meter.store).items() if k in REPLAY_STRUCTURE},
        }
    return out


def _fresh_embedder(kind: str) -> Any:
    """A new embedder per run, so no run inherits another's encode cache; warmed so loading is not timed."""
    if kind == "hash":
        return WordHashEmbedder()
    from memory.embedder import SentenceEmbedder, shared_embedder

    base = shared_embedder()
    base.encode(["warm up"])  # loads the model once per process
    fresh = SentenceEmbedder(base.folder)
    fresh._model, fresh._dim = base._model, base._dim  # same loaded weights, empty cache
    return fresh


class WordHashEmbedder:
    """Hashed bag of words, L2-normalised: a torch-free stand-in for smoke runs (never the default)."""

    dim = 256

    def encode(self, texts: list[str]) -> Any:
        """Embed texts -> float32 (n, 256), rows L2-normalised."""
        import hashlib
        import re

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9']+", text.lower()):
                bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, bucket % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out


IMPORTANCE_SCHEMA = {
    "type": "object",
    "properties": {"importance": {"type": "integer", "enum": list(range(1, 11))}},
    "required": ["importance"],
    "additionalProperties": False,
}
REFLECTION_SCHEMA = {
    "type": "object",
    "properties": {"insight": {"type": "string", "minLength": 8, "maxLength": 200}},
    "required": ["insight"],
    "additionalProperties": False,
}


def generative_hooks(lm: Any, seed: int = 0) -> dict[str, Any]:
    """Generative Agents' model calls: importance 1-10 of a memory, and one reflection over evidence."""

    def rate(text: str) -> int | None:
        messages = [{"role": "user", "content": (
            "On a scale of 1 (mundane, e.g. looking around) to 10 (poignant, e.g. a death or a betrayal), "
            f'rate how important this memory is: "{text[:400]}". Reply {{"importance": N}}.')}]
        obj, _ = lm.complete_json(messages, IMPORTANCE_SCHEMA, max_tokens=12, temperature=0.0, seed=seed)
        return None if obj is None else int(obj["importance"])

    def reflect(texts: list[str]) -> str | None:
        listing = "\n".join(f"- {t[:200]}" for t in texts)
        messages = [{"role": "user", "content": (
            f"Memories:\n{listing}\nWhat one high-level insight can you infer from them? "
            'Reply {"insight": "..."}.')}]
        obj, _ = lm.complete_json(messages, REFLECTION_SCHEMA, max_tokens=80, temperature=0.0, seed=seed)
        return None if obj is None else str(obj["insight"])

    return {"rate": rate, "reflect": reflect}


def register(benches: argparse._SubParsersAction) -> None:
    """Add `bench backends`."""
    parser = benches.add_parser(
        "backends",
        help="the four memory backends on one world: entries, sharing, linking, actions, latency",
        description=(
            "Run every backend on the same world, start and seed with the same model, and print the paper's "
            "Table 1 (sediment, sim, total entries), Table 2 (shared, linked), Table 8 (3+, max owners, "
            "expanded calls, linked per call), Table 5 (actions), remember/recall latency per 5-round bin and "
            "leaks. The model reads what recall returns, so runs diverge: each table reads each run's own store."
        ),
    )
    parser.add_argument("world", help="world id or path")
    parser.add_argument("--awake", default="all", choices=["all", "near"],
                        help="all: every agent decides every round (the paper's protocol); near: only those "
                             "around --as decide (at most --max-awake), which fits a 2-core machine")
    parser.add_argument("--as", dest="player", metavar="AGENT", help="the absent player near scheduling centres on")
    parser.add_argument("--max-awake", type=int, default=4, help="near: most agents deciding per round (default 4)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds per backend (default 20)")
    parser.add_argument("--backends", default=",".join(BACKENDS),
                        help="comma-separated (default: all four); 'none' with --ablations runs only the ablation cells")
    parser.add_argument("--start", help="start point id (default: the world's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default="fifo", choices=["fifo", "relevance", "hybrid"], help="short-term cache eviction")
    parser.add_argument("--no-merge", action="store_true", help="run the consensus store with merging off")
    parser.add_argument("--ablations", nargs="?", const=",".join(ABLATIONS), default="", metavar="CELLS",
                        help="Table 3: consensus one factor at a time; cells from "
                             f"{','.join(ABLATIONS)} (default: all; fifo is the consensus run when there is one)")
    parser.add_argument("--horizons", default="",
                        help="comma-separated rounds at which to measure sharing, e.g. 10,20,40; horizons past "
                             "--rounds continue the consensus run after its tables are taken")
    parser.add_argument("--judge", action="store_true", help="consensus: ask the model to judge merges in the cosine band")
    parser.add_argument("--ga-model", action="store_true",
                        help="Generative Agents: the model rates importance and writes reflections (default: rules)")
    parser.add_argument("--replay", action="store_true",
                        help="also replay the consensus run's deposits and queries into a fresh store of every "
                             "backend, interleaved, to compare remember/recall cost on one identical workload")
    parser.add_argument("--quality", action="store_true",
                        help="model-judged quality (grounding, trajectory, narrative, goal), three scorings each")
    parser.add_argument("--scorings", type=int, default=3, help="quality scorings per run (default 3)")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hash"],
                        help="minilm (the bundled model) or hash (a fast bag-of-words stand-in for smoke runs)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", metavar="FILE", help="also write the JSON result to FILE")
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables as markdown to FILE")
    parser.add_argument("--plots", metavar="DIR", help="write PNG plots (growth, latency, ownership heatmap) into DIR")
    parser.add_argument("--save-runs", metavar="DIR", help="save each run's simulation into DIR/<backend>")
    parser.add_argument("--from-json", metavar="FILE[,FILE]",
                        help="do not run: redraw tables/plots from earlier --out files (backends and ablations merged)")
    parser.add_argument("--quiet", action="store_true", help="no per-round progress lines on stderr")
    add_model_options(parser)
    parser.set_defaults(func=bench_backends)


def _parse_list(text: str, what: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if allowed is not None:
        bad = [t for t in items if t not in allowed]
        if bad:
            raise UserError(f"--{what}: unknown {', '.join(bad)}; choose from {', '.join(allowed)}")
    return items


def bench_backends(args: argparse.Namespace) -> int:
    """Run the comparison and print (or write) the tables."""
    if args.from_json:
        return _emit(merge_results(args.from_json.split(",")), args)
    backends = [] if args.backends.strip() == "none" else _parse_list(args.backends, "backends", BACKENDS)
    ablations = _parse_list(args.ablations or "", "ablations", ABLATIONS)
    if not backends and not ablations:
        raise UserError("--backends: name at least one backend (or give --ablations)")
    if args.rounds < 1:
        raise UserError("--rounds must be 1 or more")
    try:
        horizons = tuple(sorted({int(h) for h in _parse_list(args.horizons, "horizons")}))
    except ValueError:
        raise UserError(f"--horizons: expected comma-separated round counts, got {args.horizons!r}") from None
    if horizons and horizons[0] < 1:
        raise UserError("--horizons: each must be 1 or more")
    if horizons and horizons[-1] > args.rounds and "consensus" not in backends:
        raise UserError(f"--horizons: past --rounds {args.rounds} needs the consensus backend (its run continues)")
    within = tuple(h for h in horizons if h <= args.rounds)
    world = load_world(find_world(args.world))
    if args.start is not None:
        try:
            world.start(args.start)
        except (KeyError, ValueError) as exc:
            raise UserError(f"--start: {exc}") from None
    from storyworld.minds import LLMMind

    lm = load_lm(args, seed=args.seed)
    mind = LLMMind(lm)
    judge = None
    if args.judge:
        from storyworld.llm.equivalence_judge import make_judge

        judge = make_judge(lm, seed=args.seed)
    quality = None
    if args.quality:
        from storyworld.report.quality import score_run

        def quality(sim: Any) -> dict[str, Any]:
            try:
                return score_run(sim, lm, scorings=args.scorings, seed=args.seed)
            except Exception as exc:  # noqa: BLE001 — hours of simulation must not be lost to the judge
                print(f"quality scoring failed: {exc!r}", file=sys.stderr)
                return {"label": "model-judged", "error": repr(exc)}

    log = None if args.quiet else sys.stderr
    save_dir = Path(args.save_runs) if args.save_runs else None
    player = world.resolve_player(args.player) if args.player else None
    if args.awake == "near" and player is None:
        raise UserError("--awake near needs --as AGENT: the (absent) player the scheduling centres on")
    common = dict(rounds=args.rounds, start=args.start, seed=args.seed, mind=mind, model_name=lm.name, log=log,
                  save_dir=save_dir, quality=quality, awake=args.awake, player=player, max_awake=args.max_awake)
    result: dict[str, Any] = {
        "world": world.file.world.id,
        "world_digest": world.digest,
        "agents_active": len(world.active_agents()),
        "start": world.start(args.start).id,
        "rounds": args.rounds,
        "seed": args.seed,
        "model": lm.name,
        "embedder": args.embedder,
        "judge": bool(args.judge),
        "ga_model": bool(args.ga_model),
        "cache": args.cache,
        "backends": {},
    }
    began = time.perf_counter()

    def checkpoint() -> None:
        """Write what is done so far, so a killed run of hours keeps its finished backends."""
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            partial = dict(result, seconds=time.perf_counter() - began, partial=True, planned=list(backends))
            Path(args.out).write_text(json.dumps(partial, indent=1, default=str) + "\n", encoding="utf-8")

    if args.replay and "consensus" not in backends:
        raise UserError("--replay needs the consensus backend (its run is the stream replayed)")
    later: list = []
    stream: list | None = [] if args.replay else None
    for backend in backends:
        merge = not (backend == "consensus" and args.no_merge)
        if backend == "generative" and args.ga_model:
            common["store_options"] = generative_hooks(lm, seed=args.seed)
        else:
            common.pop("store_options", None)
        result["backends"][backend] = run_one(
            world, backend, merge=merge, cache=args.cache, judge=judge if backend == "consensus" else None,
            horizons=horizons if backend == "consensus" else within, embedder=_fresh_embedder(args.embedder),
            later=later, ops=stream if backend == "consensus" and merge else None, **common,
        )
        checkpoint()
    if ablations:
        cells = []
        for merge, cache in (ABLATION_CELLS[name] for name in ablations):
            main = result["backends"].get("consensus")
            if main is not None and main["merge"] == merge and main["cache"] == cache:
                cells.append(main)
                continue
            cells.append(run_one(world, "consensus", merge=merge, cache=cache, judge=judge, horizons=within,
                                 embedder=_fresh_embedder(args.embedder), **common))
            result["ablations"] = cells
            checkpoint()
        result["ablations"] = cells
    if stream:
        result["replay"] = {"source": "consensus", "backends": replay(world, args.start, stream, list(BACKENDS), args.embedder)}
        checkpoint()
    for go_on in later:
        go_on()
        checkpoint()
    result["seconds"] = time.perf_counter() - began
    result["lm"] = lm.stats()
    return _emit(result, args)


def merge_results(paths: list[str]) -> dict[str, Any]:
    """Earlier --out files as one result: the first file's header, every file's backends and ablation cells.

    Table 3's fifo row is the consensus run (same seed and settings) when no file ran it as a cell.
    """
    merged: dict[str, Any] | None = None
    cells: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for path in paths:
        try:
            part = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(f"{path}: cannot read ({exc})") from None
        if not isinstance(part, dict) or "backends" not in part:
            raise UserError(f"{path}: not a bench backends result (no 'backends')")
        if merged is None:
            merged = {k: v for k, v in part.items() if k not in ("backends", "ablations")}
            merged["backends"] = {}
        elif (part.get("world"), part.get("rounds"), part.get("seed")) != (merged.get("world"), merged.get("rounds"), merged.get("seed")):
            raise UserError(f"{path}: another world, rounds or seed than {paths[0]}")
        merged["backends"].update(part["backends"])
        cells.extend(part.get("ablations") or [])
        parts.append(part)
    assert merged is not None
    # A checkpoint of a run cut short is partial; the merge is whole once every file's backends are
    # in and none was cut short inside its own list (a checkpoint names the backends it meant to run).
    merged.pop("partial", None)
    merged.pop("planned", None)
    if any(part.get("partial") and not set(part.get("planned") or BACKENDS) <= set(merged["backends"]) for part in parts):
        merged["partial"] = True
    if cells:
        main = merged["backends"].get("consensus")
        if main is not None and main.get("merge", True) and not any(c["merge"] and c["cache"] == main["cache"] for c in cells):
            cells.insert(0, main)
        order = {cell: i for i, cell in enumerate(ABLATION_CELLS.values())}
        cells.sort(key=lambda c: order.get((c["merge"], c["cache"]), 99))
        merged["ablations"] = cells
    if len(paths) > 1:
        merged["seconds"] = None
        merged["sources"] = paths
    return merged


def _emit(result: dict[str, Any], args: argparse.Namespace) -> int:
    """Print, write and plot a result."""
    text = json.dumps(result, default=str)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
    markdown = render_markdown(result)
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(markdown, encoding="utf-8")
    if args.plots:
        from storyworld.benches.backends_plots import write_plots

        write_plots(result, Path(args.plots))
    print(text if args.json else markdown)
    return 0


def _pct(part: float, fraction: float) -> str:
    return f"{int(part)} ({fraction * 100:.0f}%)"


def _frac(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _below_closest(runs: dict[str, Any], key: str) -> tuple[str, float]:
    """The baseline with the fewest `key` entries, and how far below it consensus is (0.25 = 25% fewer)."""
    others = {b: r[key] for b, r in runs.items() if b != "consensus"}
    closest = min(others, key=others.get)
    return closest, (1 - runs["consensus"][key] / others[closest] if others[closest] else 0.0)


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(result: dict[str, Any]) -> str:
    """The paper's tables for one comparison, as markdown."""
    runs = result.get("backends", {})
    out = [f"# Backends on {result.get('world')} from {result.get('start')}: {result.get('rounds')} rounds, "
           f"seed {result.get('seed')}, model {result.get('model')}", ""]
    if runs:
        out += ["## Table 1: store size (entries)", "",
                _table(["Backend", "Sediment", "Sim", "Total"],
                       [[LABELS.get(b, b), r["sediment"], r["sim"], r["total"]] for b, r in runs.items()])]
        if "consensus" in runs and len(runs) > 1:
            closest, gap = _below_closest(runs, "total")
            sim_closest, sim_gap = _below_closest(runs, "sim")
            out += ["", f"Consensus total entries: {gap * 100:.1f}% below the closest baseline "
                        f"({LABELS.get(closest, closest)}); sim entries: {sim_gap * 100:.1f}% below "
                        f"({LABELS.get(sim_closest, sim_closest)})."]
        out += ["", "## Table 2: sharing and linking (over sim entries)", "",
                _table(["Backend", "Sim entries", "Shared (multi-owner)", "Linked (affiliated)"],
                       [[LABELS.get(b, b), r["sim"], _pct(r["shared"], r["shared_fraction"]),
                         _pct(r["linked"], r["linked_fraction"])] for b, r in runs.items()])]
        out += ["", "## Table 8: consensus structure", "",
                _table(["Backend", "Sim entries", "Shared", "3+", "Max", "Linked", "Expanded", "Linked/call"],
                       [[LABELS.get(b, b), r["sim"], _pct(r["shared"], r["shared_fraction"]), r["three_plus"],
                         r["max_owners"], f"{r['linked_fraction'] * 100:.0f}%",
                         f"{r['expanded_calls']}/{r['recall_calls']}", f"{r['linked_per_call']:.1f}"]
                        for b, r in runs.items()])]
        out += ["", "## Table 5: actions per backend (from the event log)", "",
                _table(["Action", *[LABELS.get(b, b) for b in runs]],
                       [[a, *[r["actions"].get(a, 0) for r in runs.values()]] for a in ACTION_NAMES]
                       + [["fallbacks", *[r["fallbacks"] for r in runs.values()]]])]
        out += ["", "## Memory-operation latency (ms; remember per deposit, recall per call)", "",
                _table(["Backend", "remember", "remember/round", "recall", "recall p50", "leaks"],
                       [[LABELS.get(b, b), f"{r['remember_ms_mean']:.2f}", f"{r['remember_ms_per_round']:.1f}",
                         f"{r['recall_ms_mean']:.2f}", f"{r['recall_ms_p50']:.2f}", r["leaks"]]
                        for b, r in runs.items()])]
        if "consensus" in runs:
            baseline = runs.get("collaborative") or next((r for b, r in runs.items() if b != "consensus"), None)
            if baseline is not None and baseline["remember_ms_mean"]:
                ratio = runs["consensus"]["remember_ms_mean"] / baseline["remember_ms_mean"]
                out += ["", f"Consensus remember cost per deposit: {ratio:.2f}x {LABELS.get(baseline['backend'])}'s "
                            f"(one row per witness) in this run."]
        bins = sorted({row["rounds"] for r in runs.values() for row in r["latency_bins"]},
                      key=lambda s: int(s.split("-")[0]))
        if bins:
            def cell(r: dict[str, Any], rounds: str, key: str) -> str:
                row = next((x for x in r["latency_bins"] if x["rounds"] == rounds), None)
                return f"{row[key]:.2f}" if row else "-"

            out += ["", "Per 5-round bin (rounds since the start): remember ms per deposit / recall ms per call", "",
                    _table(["Rounds", *[LABELS.get(b, b) for b in runs]],
                           [[rounds, *[f"{cell(r, rounds, 'remember_ms_per_deposit')} / {cell(r, rounds, 'recall_ms_mean')}"
                                       for r in runs.values()]] for rounds in bins])]
        replayed = result.get("replay", {}).get("backends", {})
        if replayed:
            base = replayed.get("collaborative", {}).get("write_ms_mean") or 0.0
            out += ["", "## Same stream: the consensus run's deposits and queries replayed into every backend", "",
                    "Every store receives the identical sediment, deposits and recall queries, interleaved round by "
                    "round in one process, so entry counts and costs compare on one workload.", "",
                    _table(["Backend", "Sediment", "Sim", "Total", "Shared", "Linked", "Leaks"],
                           [[LABELS.get(b, b), r["sediment"], r["sim"], r["total"], _pct(r["shared"], _frac(r["shared"], r["sim"])),
                             _pct(r["linked"], _frac(r["linked"], r["sim"])), r["leaks"]] for b, r in replayed.items()])]
            if "consensus" in replayed and len(replayed) > 1:
                closest, gap = _below_closest(replayed, "total")
                out += ["", f"Consensus total entries on the same stream: {gap * 100:.1f}% below the closest baseline "
                            f"({LABELS.get(closest, closest)})."]
            out += ["", _table(["Backend", "remember ms/deposit", "write ms/deposit (with affiliate)",
                                "recall ms", "recall p50", "vs Collaborative (write)"],
                               [[LABELS.get(b, b), f"{r['remember_ms_mean']:.2f}", f"{r['write_ms_mean']:.2f}",
                                 f"{r['recall_ms_mean']:.2f}", f"{r['recall_ms_p50']:.2f}",
                                 f"{r['write_ms_mean'] / base:.2f}x" if base else "-"] for b, r in replayed.items()])]
        with_t4 = {b: r for b, r in runs.items() if r.get("table4")}
        if with_t4:
            from storyworld.benches import table4

            out += ["", "## Table 4: what the mechanism costs (recall; affiliated siblings; keep-shorter merges)", ""]
            for b, r in with_t4.items():
                out += [f"{LABELS.get(b, b)}:", "", table4.render(r["table4"]), ""]
            out += ["amp.: rows returned per row asked (k); q in hits / q in exp.: rows naming a name or place the query names; "
                    "q words: mean share of the query's words (4+ letters) a row repeats; "
                    "1 / 4+ own.: median affiliated siblings of a record at 1 owner vs 4+; seen: merges that dropped "
                    "text / all merges; chars: median characters dropped; name / principal: share of those merges "
                    "whose kept text loses a named agent or place / the discarded statement's actor."]
        horizon_rows = [[LABELS.get(b, b), h, s["sim"], _pct(s["shared"], s["shared_fraction"]),
                         _pct(s["linked"], s["linked_fraction"])]
                        for b, r in runs.items() for h, s in sorted(r.get("horizons", {}).items(), key=lambda t: int(t[0]))]
        if horizon_rows:
            out += ["", "## Sharing by horizon (same run, measured after N rounds)", "",
                    _table(["Backend", "Rounds", "Sim entries", "Shared", "Linked"], horizon_rows)]
    if result.get("ablations"):
        header = ["Merge", "Cache", "Store", "Sim", "Shared", "Linked"]
        rows = []
        quality_keys = ("grounding", "trajectory", "narrative", "goal")
        has_quality = all("grounding" in c.get("quality", {}) for c in result["ablations"])
        if has_quality:
            header += ["Grnd", "Traj", "Narr", "Goal"]
        for c in result["ablations"]:
            row = ["on" if c["merge"] else "off", c["cache"], c["total"], c["sim"],
                   f"{c['shared_fraction'] * 100:.0f}%", f"{c['linked_fraction'] * 100:.0f}%"]
            if has_quality:
                row += [f"{c['quality'][k]['mean']:.2f}" for k in quality_keys]
            rows.append(row)
        out += ["", "## Table 3: one factor at a time (consensus)", "", _table(header, rows)]
    with_quality = {b: r for b, r in runs.items() if "grounding" in r.get("quality", {})}
    if with_quality:
        quality_keys = ("grounding", "trajectory", "narrative", "goal")
        out += ["", "## Continuation quality (MODEL-JUDGED: mean ± std over "
                    f"{next(iter(with_quality.values()))['quality'].get('scorings', '?')} scorings by {result.get('model')})", "",
                _table(["Backend", "Grounding", "Trajectory", "Narrative (1-5)", "Goal"],
                       [[LABELS.get(b, b), *[f"{r['quality'][k]['mean']:.2f} ± {r['quality'][k]['std']:.2f}"
                                             for k in quality_keys]] for b, r in with_quality.items()]),
                "", "These scores are a small model's judgements, not human ratings; read them as noisy."]
    if result.get("seconds") is not None:
        out += ["", f"Wall time: {result['seconds'] / 60:.1f} min."]
    return "\n".join(out) + "\n"


__all__ = ["Metered", "WordHashEmbedder", "action_counts", "latency", "ownership_matrix", "render_markdown", "run_one", "structure"]
