"""`storyworld bench round WORLD`: seconds per round, concurrent against sequential, in one run.

Each configuration runs its own simulation from the same start with the same seed; their rounds
are interleaved (round 1 of each, then round 2 of each, ...) so that load from other work on a
shared machine falls on all of them alike. The configurations:

- `concurrent`: the model decisions go `--parallel N` at a time. Locally the model is served by N
  single-slot llama-servers that this bench starts, one per lane, an agent always in the same lane
  (storyworld.llm.llama_server.ServerPool); with `--server URL`, N requests go to that server
  (default: its slot count, else 4).
- `sequential`: one decision after another, as storyworld did before: locally the in-process
  llama-cpp-python model, with `--server` the same server one request at a time.
- `server_sequential` (local only): a second pool like the first, one request at a time, which
  isolates what running lanes together gains from what the backend change gains; its events are
  compared with `concurrent`'s (`same_events`): each lane's server sees the same requests in the
  same order either way, so they must match.

- `batched_server` (local only, unless --no-batched): one `llama-server --parallel N` with N requests
  in flight, what storyworld did before the pool; `speedup_vs_batched_server` is its seconds per
  round over `concurrent`'s.

`speedup` is sequential over concurrent seconds per round.

Each configuration also reports its floor (storyworld.benches.floor): the prompt tokens a perfect
prefix cache would still evaluate and the tokens generated, at the rates the model's own timers
measured in the same run; `floor_ratio` is seconds per round over the floor. Round by round it gives
the seconds and the model's own counts of prompt tokens evaluated and tokens generated
(`round_seconds`, `round_prompt_tokens_evaluated`, `round_tokens_generated`). The top-level figures
are the first configuration's; `sequential_*` the in-process one's.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from storyworld.benches import print_figures
from storyworld.benches.floor import CallLog, Tokenize, floor_figures
from storyworld.llm.base import LanguageModel
from storyworld.llm.options import add_model_options
from storyworld.locations import find_world
from storyworld.world import load_world

if TYPE_CHECKING:  # annotations only
    from storyworld.jsondata import Document
    from storyworld.game.simulation import Simulation
    from storyworld.llm.local import ChatTokenizer
    from storyworld.world import World


FLOOR_KEYS = ("prompt_tokens_evaluated_per_decision", "tokens_generated_per_decision", "prompt_tokens_per_s",
              "tokens_generated_per_s", "floor_seconds_per_round", "floor_ratio")


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench round`."""
    parser = benches.add_parser("round", help="seconds per round, concurrent against sequential decisions")
    parser.add_argument("world", help="world id or path")
    parser.add_argument("--start", help="start point id")
    parser.add_argument("--rounds", type=int, default=2, help="rounds to time (default 2)")
    parser.add_argument("--awake", default="near", choices=["all", "near"], help="scheduling (default near)")
    parser.add_argument("--as", dest="player", help="the player's agent, who waits (default: first playable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--no-sequential", action="store_true", help="time only the concurrent configuration")
    parser.add_argument("--no-batched", action="store_true",
                        help="locally, skip timing one llama-server with --parallel N slots and N requests in flight")
    add_model_options(parser)
    parser.set_defaults(func=bench_round)


class Run:
    """One configuration: its simulation, its model, and what its rounds cost."""

    def __init__(self, name: str, lm: LanguageModel, sim: Simulation, parallel: int, sediment_s: float) -> None:
        self.name = name
        self.lm = lm
        self.log = _call_log(lm)
        self.tokenize: Tokenize | None = None  # the prompts' tokens, for the floor (None: not known)
        self.sim = sim
        self.parallel = parallel
        self.sediment_s = sediment_s
        self.round_s: list[float] = []
        self.decide_s: list[float] = []
        self.decisions: list[int] = []
        self.prompt_tokens: list[float] = []
        self.completion_tokens: list[float] = []
        self.recall_s: list[float] = []
        self.remember_s: list[float] = []
        self.events: list[bytes] = []
        self.model_spent: dict[str, float] = {}  # the model's counters' growth over this run's rounds
        self.round_spent: list[dict[str, float]] = []  # the same, round by round

    def step(self, player: str) -> None:
        """One timed round; the player waits."""
        from storyworld.kernel.actions import Wait

        before = self.lm.stats()
        if self.log is not None:
            self.log.run, self.log.round = self.name, len(self.round_s)
        started = time.perf_counter()
        outcome = self.sim.step(player_action=Wait(actor=player))
        self.round_s.append(time.perf_counter() - started)
        # counted per round, not per run: two configurations may share one model (one server)
        grown: dict[str, float] = {}
        for key, value in self.lm.stats().items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key in before:
                grown[key] = value - before[key]
                self.model_spent[key] = self.model_spent.get(key, 0) + grown[key]
        self.round_spent.append(grown)
        timing = self.sim.last_timing
        n = max(timing.decisions, 1)
        self.decisions.append(timing.decisions)
        self.decide_s.append(timing.decide_s)
        self.prompt_tokens.append(timing.prompt_tokens / n)
        self.completion_tokens.append(timing.completion_tokens / n)
        self.recall_s.append(timing.recall_s)
        self.remember_s.append(timing.remember_s)
        self.events.append(msgspec.json.encode(outcome.events))

    def report(self) -> Document:
        """Means per round, and where a round's time went."""
        rounds = max(len(self.round_s), 1)
        total_round = sum(self.round_s)
        total_decisions = sum(self.decisions)

        def spent(key: str) -> float:
            return round(self.model_spent.get(key, 0) / rounds, 3)

        # Where a round goes. prompt/generation: llama.cpp's own timers (a server's add up over its
        # slots, so with requests in flight together they can exceed the wall time); grammar: the
        # in-process grammar stage; model_wall: the decisions' wall time; python: the rest of the
        # round (perception, recall, the kernel, writing memories).
        breakdown = {
            "prompt_s": spent("prompt_s"),
            "generation_s": spent("generation_s"),
            "grammar_s": spent("grammar_s"),
            "decide_wall_s": round(sum(self.decide_s) / rounds, 3),
            "recall_s": round(sum(self.recall_s) / rounds, 3),
            "remember_s": round(sum(self.remember_s) / rounds, 3),
        }
        breakdown["python_s"] = round(total_round / rounds - breakdown["decide_wall_s"], 3)
        if "calls_s" in self.model_spent:
            calls_s = spent("calls_s")
            breakdown["sampling_other_s"] = round(
                calls_s - breakdown["prompt_s"] - breakdown["generation_s"] - breakdown["grammar_s"], 3)
            breakdown["mind_python_s"] = round(breakdown["decide_wall_s"] - calls_s, 3)
        calls = [c for c in self.log.calls if c.run == self.name] if self.log is not None else []
        floor = floor_figures(calls, self.tokenize, len(self.round_s), self.model_spent, total_round / rounds,
                              total_decisions, lanes_at_once=self.parallel > 1)
        return {
            "model": self.lm.name,
            "parallel": self.parallel,
            **floor,
            "sediment_s": round(self.sediment_s, 3),
            "seconds_per_round": _mean(self.round_s),
            "decisions_per_round": _mean(self.decisions),
            "decisions_per_s": round(total_decisions / total_round, 4) if total_round else 0.0,
            "seconds_per_decision": round(sum(self.decide_s) / total_decisions, 4) if total_decisions else 0.0,
            "prompt_tokens_per_decision": _mean(self.prompt_tokens),
            "completion_tokens_per_decision": _mean(self.completion_tokens),
            "prompt_tokens_evaluated_per_round": spent("prompt_tokens_evaluated"),
            "prompt_tokens_cached_per_round": spent("prompt_tokens_cached"),
            "tokens_generated_per_round": spent("tokens_generated"),
            "breakdown_per_round": breakdown,
            "fallbacks": self.sim.state.fallbacks,
            "round_seconds": [round(s, 3) for s in self.round_s],
            "round_prompt_tokens_evaluated": [int(r.get("prompt_tokens_evaluated", 0)) for r in self.round_spent],
            "round_tokens_generated": [int(r.get("tokens_generated", 0)) for r in self.round_spent],
        }


def _mean(values: Sequence[float]) -> float:
    """The mean rounded to 4 places (0.0 when empty)."""
    return round(statistics.fmean(values), 4) if values else 0.0


def _load_model(args: argparse.Namespace, parallel: int | None) -> LanguageModel:
    """The model the options name, served with `parallel` slots when local and parallel > 1; its calls logged."""
    from storyworld.llm import open_backend, wrap

    return wrap(CallLog(open_backend(model_path=args.model, server_url=args.server, seed=args.seed,
                                     parallel=parallel)))


def _call_log(lm: LanguageModel) -> CallLog | None:
    """The CallLog in `lm`'s wrappers, if any."""
    from storyworld.llm.wrappers import find_wrapper

    return find_wrapper(lm, CallLog)


def _tokenizers(args: argparse.Namespace, runs: list[Run]) -> list[ChatTokenizer]:
    """Give each run the tokens of its prompts: the in-process model's own, else the GGUF's vocabulary.

    Returns what must be closed. A remote server's model is unknown here, so its runs get no floor.
    """
    from storyworld.llm import LlamaModel, gguf_path
    from storyworld.llm.local import ChatTokenizer

    if args.server:
        return []
    shared: list[ChatTokenizer] = []
    for run in runs:
        backend = run.lm.unwrap()
        if isinstance(backend, LlamaModel):
            run.tokenize = backend.prompt_tokens
            continue
        if not shared:
            shared.append(ChatTokenizer(gguf_path(args.model)))
        # a llama-server generates a reply's fixed beginning (only LlamaModel writes it into the prompt),
        # so it is counted once, in the call's generated tokens
        run.tokenize = functools.partial(shared[0].prompt_tokens, prefill=False)
    return shared


def _open(name: str, args: argparse.Namespace, world: World, player: str, lm: LanguageModel, decide_parallel: int | None) -> Run:
    """Start one configuration's simulation on `lm`, deciding `decide_parallel` at once (None: lm's)."""
    from storyworld.game import session
    from storyworld.llm.concurrency import parallelism
    from storyworld.minds import LLMMind
    from storyworld.kernel.state import Settings

    settings = Settings(seed=args.seed, awake=args.awake, player=player, model=lm.name)
    started = time.perf_counter()
    sim = session.new_simulation(world, args.start, settings, LLMMind(lm))
    sediment_s = time.perf_counter() - started
    sim.parallel = decide_parallel
    return Run(name, lm, sim, decide_parallel or parallelism(lm), sediment_s)


def bench_round(args: argparse.Namespace) -> int:
    """Time rounds of each configuration, interleaved; report concurrent against sequential."""
    from storyworld.llm.concurrency import DEFAULT_PARALLEL

    world = load_world(find_world(args.world))
    player = args.player or world.playable_agents()[0].id
    load_before = _load()
    runs: list[Run] = []
    try:
        if args.server:
            lm = _load_model(args, args.parallel)
            runs.append(_open("concurrent", args, world, player, lm, None))
            if not args.no_sequential:
                runs.append(_open("sequential", args, world, player, lm, 1))
        else:
            # locally one lane per core by default: on 2 cores, 2 lanes beat 4 (docs/results/scale.md)
            slots = args.parallel or max(2, min(DEFAULT_PARALLEL, os.cpu_count() or 2))
            served = _load_model(args, slots) if slots > 1 else None
            if served is not None:
                runs.append(_open("concurrent", args, world, player, served, None))
            if not args.no_sequential or served is None:
                runs.append(_open("sequential", args, world, player, _load_model(args, None), 1))
            if served is not None and not args.no_sequential:
                # the same kind of server pool, fresh (its own caches), one request at a time: the
                # events must match the concurrent run's
                runs.append(_open("server_sequential", args, world, player, _load_model(args, slots), 1))
            if served is not None and not args.no_batched:
                # what storyworld did before: one llama-server with N slots, N requests in flight
                from storyworld.llm import gguf_path, wrap
                from storyworld.llm.llama_server import ManagedServerModel

                batched = wrap(CallLog(ManagedServerModel(gguf_path(args.model), parallel=slots)))
                runs.append(_open("batched_server", args, world, player, batched, None))
        for _ in range(args.rounds):
            for run in runs:
                run.step(player)
        tokenizers = _tokenizers(args, runs)
        try:
            reports = {run.name: run.report() for run in runs}
        finally:
            for tokenizer in tokenizers:
                tokenizer.close()
        result = _summary(args, world, player, runs, reports, load_before)
    finally:
        closed: set[int] = set()
        for run in runs:
            if id(run.lm) not in closed:
                closed.add(id(run.lm))
                run.lm.close()
    print_figures(result, args.json, skip=("runs",))
    if not args.json:
        for name, figures in result["runs"].items():
            print(f"[{name}] {json.dumps(figures)}")
    return 0


def _summary(args: argparse.Namespace, world: World, player: str, runs: list[Run], reports: dict[str, Document],
             load_before: list[float]) -> Document:
    """The top-level figures: the first configuration's, the sequential one's, their ratio."""
    main = reports[runs[0].name]
    result: Document = {
        "world": world.file.world.id,
        "model": main["model"],
        "awake_policy": args.awake,
        "player": player,
        "rounds": args.rounds,
        "seed": args.seed,
        "parallel": main["parallel"],
        "cpu_count": os.cpu_count(),
        "load_1m_before": load_before,
        "load_1m_after": _load(),
        "awake_per_round": main["decisions_per_round"],
        "seconds_per_round": main["seconds_per_round"],
        "decisions_per_s": main["decisions_per_s"],
        "seconds_per_decision": main["seconds_per_decision"],
        "prompt_tokens_per_decision": main["prompt_tokens_per_decision"],
        "completion_tokens_per_decision": main["completion_tokens_per_decision"],
        "prompt_tokens_evaluated_per_round": main["prompt_tokens_evaluated_per_round"],
        "tokens_generated_per_round": main["tokens_generated_per_round"],
        **{key: main[key] for key in FLOOR_KEYS if key in main},
        "sediment_s": main["sediment_s"],
        "fallbacks": main["fallbacks"],
    }
    sequential = reports.get("sequential")
    if sequential is not None and runs[0].name != "sequential":
        result["sequential_seconds_per_round"] = sequential["seconds_per_round"]
        result.update({f"sequential_{key}": sequential[key] for key in FLOOR_KEYS if key in sequential})
        result["sequential_decisions_per_s"] = sequential["decisions_per_s"]
        result["speedup"] = round(sequential["seconds_per_round"] / main["seconds_per_round"], 3)
    server_seq = reports.get("server_sequential")
    if server_seq is not None:
        result["server_sequential_seconds_per_round"] = server_seq["seconds_per_round"]
        result["lanes_speedup"] = round(server_seq["seconds_per_round"] / main["seconds_per_round"], 3)
    batched = reports.get("batched_server")
    if batched is not None:
        result["batched_server_seconds_per_round"] = batched["seconds_per_round"]
        result["speedup_vs_batched_server"] = round(batched["seconds_per_round"] / main["seconds_per_round"], 3)
    by_name = {run.name: run for run in runs}
    twin = by_name.get("server_sequential") or (by_name.get("sequential") if args.server else None)
    if twin is not None and "concurrent" in by_name:
        result["same_events"] = twin.events == by_name["concurrent"].events
    result["runs"] = reports
    return result


def _load() -> list[float]:
    """The 1-, 5- and 15-minute load averages (the machine may be shared)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []
