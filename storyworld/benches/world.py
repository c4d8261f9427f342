"""`storyworld bench world WORLD`: load + validate time, and sediment into the real consensus store."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from memory.store import StoreStats
from storyworld.benches import print_figures

if TYPE_CHECKING:  # annotations only
    from storyworld.game.sediment import SedimentReport
    from storyworld.llm.base import LanguageModel
    from storyworld.world import World
    from storyworld.world.schema import Start


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench world`."""
    parser = benches.add_parser(
        "world",
        help="load + validate seconds; sediment seconds and record counts with the real embedder",
        description=(
            "Load and validate a world, then sediment its canon before a start point into an in-memory "
            "ConsensusStore with the bundled embedder, and print the figures."
        ),
    )
    parser.add_argument("world", help="world id or path")
    parser.add_argument(
        "--start",
        help="start point id (default: the latest start, so the most canon is sedimented)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="load + validate runs to take the best of (default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--judge", action="store_true",
                        help="sediment with the model's equivalence judge (as the paper's pipeline does; counts its calls)")
    parser.add_argument("--model", metavar="PATH", help="GGUF for --judge (default: the bundled model)")
    parser.add_argument("--server", metavar="URL", help="an OpenAI-compatible server for --judge")
    parser.set_defaults(func=bench_world)


def bench_world(args: argparse.Namespace) -> int:
    """Time load + validate and sediment, and count what the store kept against one row per witness."""
    from storyworld.locations import find_world
    from storyworld.game.sediment import sediment
    from storyworld.world import load_world

    path = find_world(args.world)
    load_runs = []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        world = load_world(path)
        load_runs.append(time.perf_counter() - started)
    if args.start is not None:
        start = world.start(args.start)
    else:
        start = max(world.file.start, key=lambda s: s.round)

    from memory import ConsensusStore
    from memory.embedder import shared_embedder

    # Load the model before the clock starts: its one-off start-up is not the cost of sedimenting.
    started = time.perf_counter()
    embedder = shared_embedder()
    # A batch like a real one (not the world's own texts: the embedder caches what it has seen).
    embedder.encode([f"Warm-up sentence {i} about someone who said something somewhere, " * (1 + i % 3) for i in range(32)])
    embedder_load_s = time.perf_counter() - started

    lm = judge = None
    if args.judge:
        from storyworld.llm.equivalence_judge import make_judge
        from storyworld.llm import load_model

        lm = load_model(model_path=args.model, server_url=args.server)
        judge = make_judge(lm)
    store = ConsensusStore.open(None, embedder=embedder, judge=judge)
    cpu_started = time.process_time()
    report = sediment(world, store, start.id)
    # CPU seconds beside wall seconds: on a shared machine the gap is time spent waiting for a core.
    sediment_cpu_s = time.process_time() - cpu_started
    stats = store.stats()
    records = int(stats.get("records", report.records))
    result = {
        "world": world.id,
        "start": start.id,
        "start_round": start.round,
        "load_validate_s": round(min(load_runs), 4),
        "embedder_load_s": round(embedder_load_s, 3),
        "sediment_s": round(report.seconds, 3),
        "sediment_cpu_s": round(sediment_cpu_s, 3),
        "events": report.events,
        "unwitnessed_events": report.unwitnessed,
        "witness_sum": report.witness_sum,
        "statement_witness_sum": report.statement_witness_sum,
        "consensus_records": records,
        "rows_saved_fraction": round(1 - records / report.statement_witness_sum, 4) if report.statement_witness_sum else 0.0,
        "shared_fraction": _rounded(stats.get("shared_fraction")),
        "linked_fraction": _rounded(stats.get("linked_fraction")),
        "max_owners": stats.get("max_owners"),
        "events_per_s": round(report.events / report.seconds, 1) if report.seconds else None,
    }
    result["table7"] = table7(world, start, report, stats, lm)
    if lm is not None:
        lm.close()
    print_figures(result, args.json)
    return 0


def _rounded(value: object) -> object:
    """Fractions to four places; anything else as it is."""
    return round(value, 4) if isinstance(value, float) else value


def table7(world: World, start: Start, report: SedimentReport, stats: StoreStats,
           lm: LanguageModel | None) -> dict[str, object]:
    """The paper's Table 7 row: what sedimenting the canon cost, and what the cast is made of.

    Model calls are the equivalence judge's (the only model on the sedimentation path; 0 without
    --judge); the cast columns count the world file as authored (bundled worlds are written by hand
    or parsed without a model, so their cast cost no model calls).
    """
    model = lm.stats() if lm is not None else {}
    agents = world.file.agent
    canon = world.events_before(start.id)
    return {
        "world": world.id,
        "canon_events": len(canon),
        "witnessed_events": report.events,
        "records": int(stats.get("records", report.records)),
        "sediment_s": round(report.seconds, 3),
        "model_calls": int(stats.get("judge_calls", 0)),
        "prompt_tokens": int(model.get("prompt_tokens", 0)),
        "completion_tokens": int(model.get("completion_tokens", 0)),
        "model_s": float(model.get("seconds", 0.0)),
        "cast": {
            "agents": len(agents),
            "active": len(world.active_agents()),
            "archived": len(agents) - len(world.active_agents()),
            "playable": len(world.playable_agents()),
            "absent_at_start": len(start.absent),
            "places": len(world.file.place),
            "objects": len(world.file.object),
            "start_points": len(world.file.start),
        },
    }
