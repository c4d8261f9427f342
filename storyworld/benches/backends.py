"""`storyworld bench backends WORLD`: the four memory backends on one world, start and seed (paper Tables 1-3, 5, 8).

Every backend runs the same world from the same start with the same seed and model. The model's
decisions read what recall returns, so the runs diverge after the first round; that is expected,
and each table reads each run's own store and event log.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypedDict

import msgspec

from memory import BACKENDS
from memory.store import StoreStats
from storyworld.benches.backends_tables import render_markdown
from storyworld.benches.embedders import fresh_embedder
from storyworld.benches.metering import Metered, Op, action_counts, latency, ownership_matrix, structure
from storyworld.errors import UserError
from storyworld.kernel.state import AwakePolicy, CachePolicy
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import find_world
from storyworld.world import load_world

if TYPE_CHECKING:  # annotations only: the bench loads these when it runs
    from memory.baselines.generative import Rater, Reflector
    from memory.embedder import Embedder
    from memory.store import Judge
    from storyworld.game.simulation import Simulation
    from storyworld.jsondata import Document
    from storyworld.kernel.state import Settings
    from storyworld.llm.base import LanguageModel
    from storyworld.minds import Mind
    from storyworld.world import World

REPLAY_STRUCTURE = ("sediment", "sim", "total", "shared", "linked")
ABLATIONS = ("fifo", "relevance", "hybrid", "no-merge")  # Table 3 cells: (merge, cache) one factor at a time
ABLATION_CELLS: dict[str, tuple[bool, CachePolicy]] = {"fifo": (True, "fifo"), "relevance": (True, "relevance"), "hybrid": (True, "hybrid"),
                  "no-merge": (False, "fifo")}


HORIZON_KEYS = ("sim", "total", "shared", "shared_fraction", "linked", "linked_fraction", "three_plus", "max_owners")
STORE_STATS_KEPT = ("reflections", "insights", "grants", "merges_by_rule", "judge_calls", "remember_mean_ms",
                    "recall_mean_ms", "edges", "records")


def run_one(
    world: World,
    backend: str,
    *,
    rounds: int,
    start: str | None,
    seed: int,
    mind: Mind | None,
    embedder: Embedder | None,
    merge: bool = True,
    cache: CachePolicy = "fifo",
    judge: Judge | None = None,
    horizons: tuple[int, ...] = (),
    model_name: str = "",
    log: TextIO | None = None,
    save_dir: Path | None = None,
    quality: Callable[[Simulation], dict[str, object]] | None = None,
    later: list[Callable[[], None]] | None = None,
    store_options: GenerativeHooks | None = None,
    ops: list[Op] | None = None,
    awake: AwakePolicy = "all",
    player: str | None = None,
    max_awake: int = 4,
) -> dict[str, object]:
    """One backend's run: sediment, N rounds with the kernel, then every figure the tables need.

    Horizons past `rounds` continue the same run afterwards; with `later` given, that continuation
    is appended to it as a callable instead of running now (so other backends finish first).
    """
    from storyworld.game import session
    from storyworld.kernel.state import Settings

    settings = Settings(seed=seed, backend=backend, cache_policy=cache, merge=merge, awake=awake,
                        player=player, max_awake=max_awake, model=model_name)
    began = time.perf_counter()
    sim = _new_run(world, backend, start, settings, mind, embedder=embedder, judge=judge, store_options=store_options)
    sediment_s = time.perf_counter() - began
    run = _MeteredRun(sim, horizons, label=f"[{backend}{'' if merge else ' no-merge'} {cache}]", log=log)
    run.meter.ops = ops  # a list to fill with the write/read stream (for --replay), or None
    beyond = max((h for h in horizons if h > rounds), default=rounds)
    growth: list[dict[str, int | float]] = []
    decide_s = 0.0
    decisions = fallbacks = 0
    for index in range(rounds):
        shape = run.step(index, max(rounds, beyond))
        decide_s += sim.last_timing.decide_s
        decisions += sim.last_timing.decisions
        fallbacks += sim.last_timing.fallbacks
        growth.append({"round": index + 1, "sim": shape["sim"], "total": shape["total"], "shared": shape["shared"],
                       "linked": shape["linked"]})
    sim.store = run.meter.store
    store_stats = run.meter.store.stats()
    result: dict[str, object] = {"backend": backend, "merge": merge, "cache": cache,
                              **_store_figures(sim, run.meter, store_stats)}
    result.update(decisions=decisions, fallbacks=fallbacks, decide_s=decide_s, sediment_s=sediment_s,
                  seconds=time.perf_counter() - began, growth=growth, horizons=run.snapshots)
    result.update(_cast_figures(world, backend, sim, run.meter, store_stats))
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
            run.meter.ops = None  # the replay stream is the first --rounds only
            sim.store = run.meter
            for index in range(rounds, beyond):
                run.step(index, beyond)
            sim.store = run.meter.store
            result["horizons"] = run.snapshots
            result["horizon_seconds"] = time.perf_counter() - resumed

        if later is None:
            go_on()
        else:
            later.append(go_on)
    return result


def _new_run(world: World, backend: str, start: str | None, settings: Settings, mind: Mind | None, *,
             embedder: Embedder | None, judge: Judge | None, store_options: GenerativeHooks | None) -> Simulation:
    """A simulation at the start with the canon before it sedimented (a baseline built with `store_options`)."""
    from storyworld.game import session

    if store_options and backend != "consensus":
        from memory import baselines
        from storyworld.game.sediment import sediment
        from storyworld.game.simulation import Simulation, initial_state

        store = baselines.make(backend, embedder=embedder, **store_options)
        start_id = world.start(start).id
        sediment(world, store, start_id)
        return Simulation(world, initial_state(world, start_id), store, settings, mind)
    return session.new_simulation(world, start, settings, mind, embedder=embedder, judge=judge)


class _MeteredRun:
    """A simulation whose store is metered while it steps; sharing snapshots at the horizons, progress on `log`."""

    def __init__(self, sim: Simulation, horizons: tuple[int, ...], *, label: str, log: TextIO | None) -> None:
        self.sim = sim
        self.meter = Metered(sim.store, sim.state.round)
        sim.store = self.meter
        self.horizons = horizons
        self.label = label
        self.log = log
        self.first = sim.state.round
        self.snapshots: dict[str, dict[str, int | float]] = {}

    def step(self, index: int, last: int) -> dict[str, int | float]:
        """Round `index` (0-based since the start) of `last`; the store's structure after it."""
        self.meter.round = index
        t0 = time.perf_counter()
        self.sim.step()
        shape = structure(self.meter.store)
        if index + 1 in self.horizons:
            self.snapshots[str(index + 1)] = {k: shape[k] for k in HORIZON_KEYS}
        if self.log is not None:
            print(f"{self.label} round {index + 1}/{last} (world round {self.first + index}): "
                  f"{time.perf_counter() - t0:.1f}s, total {shape['total']}, sim {shape['sim']}, "
                  f"shared {shape['shared']}, linked {shape['linked']}", file=self.log, flush=True)
        return shape


def _store_figures(sim: Simulation, meter: Metered, store_stats: StoreStats) -> dict[str, object]:
    """Structure, latency, leaks and actions of a finished run."""
    figures = {**structure(meter.store), **latency(meter)}
    figures["leaks"] = max(int(store_stats.get("leaks", 0)), meter.leaks)
    figures["audited_leaks"] = meter.leaks
    figures["actions"] = action_counts(sim.state.actions)
    figures["events"] = len(sim.state.events)
    return figures


def _cast_figures(world: World, backend: str, sim: Simulation, meter: Metered,
                  store_stats: StoreStats) -> dict[str, object]:
    """Who owns what, the pictures of the run, the store's own figures, and (consensus) Table 4."""
    from storyworld.report.relations import relations_summary

    agents = sorted(a.id for a in world.file.agent)
    figures: dict[str, object] = {
        "agents": agents,
        "ownership": ownership_matrix(meter.store, agents),
        "owned_per_agent": {a: len(meter.store.held_by(a)) for a in agents},
        # the pictures of a run (interaction graph, affiliation clusters, pairwise relations)
        "relations": relations_summary(agents, sim.state.events, meter.store, affiliation=backend == "consensus"),
    }
    figures["store_stats"] = {k: v for k, v in store_stats.items() if k in STORE_STATS_KEPT}
    if backend == "consensus":
        from storyworld.benches import table4

        figures["table4"] = table4.table4(meter.store.records(), meter.store.neighbours, meter.samples,
                                          table4.world_names(world), table4.event_actors(world, sim.state.events))
    return figures


def replay(world: World, start: str | None, ops: list[Op], backends: list[str], embedder_kind: str) -> dict[str, object]:
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
        store = session.make_store(backend, embedder=fresh_embedder(embedder_kind))
        sediment(world, store, world.start(start).id)
        meters[backend] = Metered(store, 0)
    rounds: list[list[Op]] = []
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
    out: dict[str, object] = {}
    for backend, meter in meters.items():
        figures = latency(meter)
        out[backend] = {
            **{k: figures[k] for k in ("remember_ms_mean", "write_ms_mean", "affiliate_ms", "recall_ms_mean",
                                       "recall_ms_p50", "deposits", "recall_calls", "latency_bins")},
            "leaks": max(meter.leaks, int(meter.store.stats().get("leaks", 0))),
            **{k: v for k, v in structure(meter.store).items() if k in REPLAY_STRUCTURE},
        }
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


class GenerativeHooks(TypedDict):
    """Generative Agents' model calls, as the baseline store takes them."""

    rate: Rater
    reflect: Reflector


def generative_hooks(lm: LanguageModel, seed: int = 0) -> GenerativeHooks:
    """Generative Agents' model calls: importance 1-10 of a memory, and one reflection over evidence."""

    def rate(text: str) -> int | None:
        messages = [{"role": "user", "content": (
            "On a scale of 1 (mundane, e.g. looking around) to 10 (poignant, e.g. a death or a betrayal), "
            f'rate how important this memory is: "{text[:400]}". Reply {{"importance": N}}.')}]
        obj, _ = lm.complete_json(messages, IMPORTANCE_SCHEMA, max_tokens=12, temperature=0.0, seed=seed)
        value = None if obj is None else obj.get("importance")
        return value if isinstance(value, int) else None  # the schema makes it an integer

    def reflect(texts: list[str]) -> str | None:
        listing = "\n".join(f"- {t[:200]}" for t in texts)
        messages = [{"role": "user", "content": (
            f"Memories:\n{listing}\nWhat one high-level insight can you infer from them? "
            'Reply {"insight": "..."}.')}]
        obj, _ = lm.complete_json(messages, REFLECTION_SCHEMA, max_tokens=80, temperature=0.0, seed=seed)
        return None if obj is None else str(obj["insight"])

    return {"rate": rate, "reflect": reflect}


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    backends, ablations, horizons = _plan(args)
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
    log = None if args.quiet else sys.stderr
    save_dir = Path(args.save_runs) if args.save_runs else None
    player = world.resolve_player(args.player) if args.player else None
    if args.awake == "near" and player is None:
        raise UserError("--awake near needs --as AGENT: the (absent) player the scheduling centres on")
    common = dict(rounds=args.rounds, start=args.start, seed=args.seed, mind=mind, model_name=lm.name, log=log,
                  save_dir=save_dir, quality=_quality_scorer(args, lm), awake=args.awake, player=player,
                  max_awake=args.max_awake)
    result = _header(world, args, lm)
    began = time.perf_counter()

    def checkpoint() -> None:
        """Write what is done so far, so a killed run of hours keeps its finished backends."""
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            partial = dict(result, seconds=time.perf_counter() - began, partial=True, planned=list(backends))
            Path(args.out).write_text(json.dumps(partial, indent=1, default=str) + "\n", encoding="utf-8")

    if args.replay and "consensus" not in backends:
        raise UserError("--replay needs the consensus backend (its run is the stream replayed)")
    later: list[Callable[[], None]] = []
    stream: list[Op] | None = [] if args.replay else None
    for backend in backends:
        merge = not (backend == "consensus" and args.no_merge)
        if backend == "generative" and args.ga_model:
            common["store_options"] = generative_hooks(lm, seed=args.seed)
        else:
            common.pop("store_options", None)
        result["backends"][backend] = run_one(
            world, backend, merge=merge, cache=args.cache, judge=judge if backend == "consensus" else None,
            horizons=horizons if backend == "consensus" else within, embedder=fresh_embedder(args.embedder),
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
                                 embedder=fresh_embedder(args.embedder), **common))
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


def _plan(args: argparse.Namespace) -> tuple[list[str], list[str], tuple[int, ...]]:
    """The backends, ablation cells and horizons the options ask for; UserError for what cannot run."""
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
    return backends, ablations, horizons


def _quality_scorer(args: argparse.Namespace, lm: LanguageModel) -> Callable[[Simulation], dict[str, object]] | None:
    """With --quality, the model-judged scoring of a finished run (a failure is reported, never fatal)."""
    if not args.quality:
        return None
    from storyworld.report.quality import score_run

    def quality(sim: Simulation) -> dict[str, object]:
        try:
            return score_run(sim, lm, scorings=args.scorings, seed=args.seed)
        except Exception as exc:  # noqa: BLE001 — hours of simulation must not be lost to the judge
            print(f"quality scoring failed: {exc!r}", file=sys.stderr)
            return {"label": "model-judged", "error": repr(exc)}

    return quality


def _header(world: World, args: argparse.Namespace, lm: LanguageModel) -> Document:
    """What the comparison ran on; its backends are filled in as they finish."""
    return {
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


def merge_results(paths: list[str]) -> Document:
    """Earlier --out files as one result: the first file's header, every file's backends and ablation cells.

    Table 3's fifo row is the consensus run (same seed and settings) when no file ran it as a cell.
    """
    merged: Document | None = None
    cells: list[Document] = []
    parts: list[Document] = []
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


def _emit(result: Document, args: argparse.Namespace) -> int:
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
