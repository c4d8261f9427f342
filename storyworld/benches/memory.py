"""`storyworld bench memory`: consensus-store latencies, persistence time and size, merge quality."""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the bench loads these when it runs
    from storyworld.jsondata import Document
    from memory.consensus import ConsensusStore
    from memory.embedder import Embedder
    from memory.settings import MemorySettings

AGENTS = (
    "hamlet horatio ophelia claudius gertrude polonius laertes marcellus bernardo francisco rosencrantz "
    "guildenstern osric yorick fortinbras reynaldo voltimand cornelius anna tomas petra jonas elena marco"
).split()
PLACES = (
    "the battlements", "the great hall", "the chapel", "the garden", "the queen's closet", "the lobby",
    "the churchyard", "the harbour", "the gate", "the stables", "the kitchen", "the library", "the armoury",
    "the orchard", "the guard room", "the market", "the bridge", "the mill", "the tavern", "the cellar",
)
VERBS = (
    "spoke with", "argued with", "warned", "followed", "embraced", "mocked", "thanked", "questioned", "avoided",
    "greeted", "accused", "comforted", "challenged", "ignored", "praised", "scolded", "visited", "watched",
    "betrayed", "forgave", "threatened", "advised", "teased", "begged", "dismissed", "summoned", "waited for",
    "searched for", "wrote to", "bowed to",
)
OBJECT_VERBS = (
    "found", "hid", "lost", "stole", "carried", "burned", "read", "sealed", "buried", "sharpened", "polished",
    "broke", "mended", "sold", "bought", "opened", "dropped", "guarded", "examined", "returned",
)
OBJECTS = (
    "a letter", "the crown", "a dagger", "the poisoned cup", "a skull", "a ring", "a locket", "the map", "a key",
    "a sword", "a book of prayers", "a bundle of flowers", "a purse of coins", "the seal of Denmark", "a lantern",
    "a cloak", "a candle", "the king's signet", "a scroll", "a goblet",
)
TIMES = ("at dawn", "at midnight", "at noon", "in the evening", "before supper", "after the feast", "during the storm", "")
FEELINGS = ("angrily", "quietly", "nervously", "gladly", "in secret", "in tears", "with a laugh", "")


class StatementMaker:
    """Seeded generator of varied, realistic story statements (never the same text twice)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seen: set[str] = set()

    def _one(self) -> str:
        r = self.rng
        a, b = r.sample(AGENTS, 2)
        name_a, name_b = a.capitalize(), b.capitalize()
        place, time_, manner = r.choice(PLACES), r.choice(TIMES), r.choice(FEELINGS)
        match r.randrange(6):
            case 0:
                core = f"{name_a} {r.choice(VERBS)} {name_b} in {place}"
            case 1:
                core = f"{name_a} {r.choice(OBJECT_VERBS)} {r.choice(OBJECTS)} in {place}"
            case 2:
                core = f"{name_a} gave {name_b} {r.choice(OBJECTS)} in {place}"
            case 3:
                core = f"{name_a} told {name_b} that {r.choice(AGENTS).capitalize()} {r.choice(VERBS)} {r.choice(AGENTS).capitalize()}"
            case 4:
                core = f"{r.randint(2, 40)} soldiers marched past {place} while {name_a} {r.choice(VERBS)} {name_b}"
            case _:
                core = f"{name_a} did not {r.choice(('see', 'trust', 'answer', 'follow', 'forgive'))} {name_b} in {place}"
        parts = [core, manner, time_]
        return " ".join(p for p in parts if p) + "."

    def __call__(self) -> str:
        """A statement not produced before."""
        while True:
            text = self._one()
            if text not in self.seen:
                self.seen.add(text)
                return text


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench memory`."""
    parser = benches.add_parser(
        "memory",
        help="consensus store: remember/recall latency, save/open time, bytes, merge precision",
        description=(
            "Fill an in-memory consensus store with N seeded synthetic statements (batched, real embedder), "
            "then time single remembers (new and co-witness merges), recalls and query embeddings, "
            "save and reopen it, and score merges on the labelled dev set."
        ),
    )
    parser.add_argument("--records", type=int, default=20000, help="records to fill the store with (default 20000)")
    parser.add_argument("--samples", type=int, default=200, help="timed calls per figure (default 200)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    parser.add_argument("--folder", help="where to save (default: a temporary folder, removed afterwards)")
    parser.add_argument("--no-devset", action="store_true", help="skip the merge dev set")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=bench_memory)


def _ms(samples: list[float], q: float) -> float:
    data = sorted(samples)
    return round(data[min(len(data) - 1, int(round(q * (len(data) - 1))))] * 1000.0, 3)


def bench_memory(args: argparse.Namespace) -> int:
    """Run the benchmark and print the figures."""
    from memory import ConsensusStore, MemorySettings
    from memory.embedder import shared_embedder
    from storyworld.errors import UserError

    if args.records < 10 or args.samples < 5:
        raise UserError("bench memory: --records must be >= 10 and --samples >= 5")
    rng = random.Random(args.seed)
    make = StatementMaker(args.seed)
    started = time.perf_counter()
    embedder = shared_embedder()
    embedder.encode(["warm up the model"])
    embedder_load_s = time.perf_counter() - started
    settings = MemorySettings()
    store = ConsensusStore.open(None, embedder=embedder, settings=settings)
    events, fill_s, fill_cpu_s = _fill(store, args.records, make, rng)
    calls = _timed_calls(store, embedder, args.samples, make, rng, events)
    stats = store.stats()
    persisted = _save_and_open(store, args.folder, embedder, settings)
    result = {
        "records": stats["records"],
        "owners": stats["owners"],
        "holdings": stats["holdings"],
        "shared_fraction": round(stats["shared_fraction"], 4),
        "linked_fraction": round(stats["linked_fraction"], 4),
        "largest_owner_rows": len(store.held_by("hamlet")),
        "embedder_load_s": round(embedder_load_s, 3),
        "fill_s": round(fill_s, 2),
        "fill_cpu_s": round(fill_cpu_s, 2),
        "fill_records_per_s": round(stats["records"] / fill_s, 1) if fill_s else None,
        **_call_figures(calls),
        **persisted,
        "leaks": stats["leaks"],
        "merges_by_rule": stats["merges_by_rule"],
        "merge_high": settings.merge_high,
        "merge_low": settings.merge_low,
        "samples": args.samples,
        "seed": args.seed,
    }
    if not args.no_devset:
        result.update(_devset_figures(embedder, settings))
    result["load_average_1m"] = _load_average()
    result["targets"] = {
        "witness_merge_p50_le_2ms": result["remember_witness_merge_p50_ms"] <= 2.0,
        "recall_p50_le_1.5x_embed": result["recall_p50_ms"] <= 1.5 * result["embed_query_p50_ms"],
        "save_plus_open_le_2s": result["save_s"] + result["open_s"] <= 2.0,
    }
    _print(result, args.json)
    return 0


def _fill(store: ConsensusStore, records: int, make: StatementMaker, rng: random.Random) -> tuple[int, float, float]:
    """Bulk fill to `records`; returns the events deposited and the wall and CPU seconds it took.

    A round's worth of deposits per batch; some events have several witnesses and some deposits
    have two statements (affiliated). A protagonist witnesses a third of everything.
    """
    from memory import Deposit

    fill_started = time.perf_counter()
    fill_cpu_started = time.process_time()
    event = 0
    batch_size = 500
    while len(store) < records:
        batch = []
        for _ in range(min(batch_size, records - len(store))):
            event += 1
            statements = [make()] if rng.random() < 0.8 else [make(), make()]
            witnesses = rng.sample(AGENTS[1:], rng.choice((1, 1, 1, 2, 3)))
            if rng.random() < 0.33:
                witnesses.append("hamlet")
            for owner in witnesses:
                batch.append(Deposit(owner=owner, statements=tuple(statements), round=event // 200, event_id=f"e{event}"))
        store.remember_many(batch)
    return event, time.perf_counter() - fill_started, time.process_time() - fill_cpu_started


def _timed_calls(store: ConsensusStore, embedder: Embedder, samples: int, make: StatementMaker, rng: random.Random,
                 events_with_ids: int) -> dict[str, list[float]]:
    """Seconds of single calls, interleaved so drifting machine load hits every figure alike."""
    calls: dict[str, list[float]] = {"embed": [], "recall": [], "recall_big": [], "new": [], "merge": []}
    small_owners = [a for a in AGENTS if a != "hamlet"]
    event = events_with_ids
    for i in range(samples):
        query = make()
        t = time.perf_counter()
        embedder.encode([query])
        calls["embed"].append(time.perf_counter() - t)

        query = make()
        owner = rng.choice(small_owners)
        t = time.perf_counter()
        store.recall(owner, query, k=5)
        calls["recall"].append(time.perf_counter() - t)

        query = make()
        t = time.perf_counter()
        store.recall("hamlet", query, k=5)
        calls["recall_big"].append(time.perf_counter() - t)

        event += 1
        text = make()
        t = time.perf_counter()
        store.remember(rng.choice(AGENTS), text, round=event // 200, event_id=f"e{event}")
        calls["new"].append(time.perf_counter() - t)

        target = rng.randint(1, events_with_ids)
        t = time.perf_counter()
        store.remember(f"witness{i}", "A second witness saw the same thing.", round=target // 200, event_id=f"e{target}")
        calls["merge"].append(time.perf_counter() - t)
    return calls


def _call_figures(calls: dict[str, list[float]]) -> dict[str, object]:
    """p50 and p95 milliseconds of each kind of call, and recall against embedding the query alone."""
    return {
        "remember_new_p50_ms": _ms(calls["new"], 0.5),
        "remember_new_p95_ms": _ms(calls["new"], 0.95),
        "remember_witness_merge_p50_ms": _ms(calls["merge"], 0.5),
        "remember_witness_merge_p95_ms": _ms(calls["merge"], 0.95),
        "recall_p50_ms": _ms(calls["recall"], 0.5),
        "recall_p95_ms": _ms(calls["recall"], 0.95),
        "recall_largest_owner_p50_ms": _ms(calls["recall_big"], 0.5),
        "recall_largest_owner_p95_ms": _ms(calls["recall_big"], 0.95),
        "embed_query_p50_ms": _ms(calls["embed"], 0.5),
        "embed_query_p95_ms": _ms(calls["embed"], 0.95),
        "recall_over_embed_p50": round(statistics.median(calls["recall"]) / statistics.median(calls["embed"]), 3),
    }


def _save_and_open(store: ConsensusStore, folder_arg: str | None, embedder: Embedder,
                   settings: MemorySettings) -> dict[str, object]:
    """Save and reopen the store three times (median reported: one fsync can stall on a busy disk).

    CPU seconds beside wall seconds: on a shared machine the gap is time spent waiting for a core.
    """
    from memory import ConsensusStore
    from storyworld.errors import UserError

    folder = Path(folder_arg) if folder_arg else Path(tempfile.mkdtemp(prefix="sw-bench-memory-"))
    try:
        if folder_arg and folder.exists() and any(folder.iterdir()):
            raise UserError(f"bench memory: {folder} is not empty")
        cycles = []
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            size = store.save(folder)
            save = (time.perf_counter() - t, time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            reopened = ConsensusStore.open(folder, embedder=embedder, settings=settings)
            cycles.append(save + (time.perf_counter() - t, time.process_time() - c))
        save_s, save_cpu_s, open_s, open_cpu_s = (statistics.median(c[i] for c in cycles) for i in range(4))
        if len(reopened) != len(store):
            raise UserError(f"bench memory: reopened store has {len(reopened)} records, saved {len(store)}")
    finally:
        if not folder_arg:
            shutil.rmtree(folder, ignore_errors=True)
    return {
        "save_s": round(save_s, 3),
        "open_s": round(open_s, 3),
        "save_cpu_s": round(save_cpu_s, 3),
        "save_open_runs_s": [round(c[0] + c[2], 3) for c in cycles],
        "open_cpu_s": round(open_cpu_s, 3),
        "bytes": size,
    }


def _devset_figures(embedder: Embedder, settings: MemorySettings) -> dict[str, object]:
    """Merge precision and recall on each labelled split of statement pairs that is installed."""
    from memory.devset import SPLITS, DevSetError, evaluate, load_pairs

    result: dict[str, object] = {}
    for split, path in SPLITS.items():
        try:
            pairs = load_pairs(path)
        except DevSetError:
            continue
        quality = evaluate(pairs, embedder=embedder, settings=settings)
        prefix = "devset" if split == "legacy" else f"equivalence_{split}"
        result.update({f"{prefix}_pairs": quality["pairs"], f"{prefix}_precision": round(quality["precision"], 4),
                       f"{prefix}_recall": round(quality["recall"], 4)})
        if split != "legacy":
            result[f"{prefix}_by_category"] = {
                name: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
                       if k in ("pairs", "merged", "precision", "recall", "kept_apart")}
                for name, row in quality["by_category"].items()
            }
    return result


def _load_average() -> float | None:
    """The machine's 1-minute load average, where /proc tells it."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _print(result: Document, as_json: bool) -> None:
    """One JSON object, or `key: value` lines with each category table indented."""
    if as_json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        if key.endswith("_by_category"):
            print(f"{key}:")
            for name, row in value.items():
                cells = " ".join(f"{k} {'-' if v is None else v}" for k, v in row.items())
                print(f"    {name:<11} {cells}")
            continue
        print(f"{key}: {value}")
