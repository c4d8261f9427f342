"""`storyworld bench round WORLD`: seconds per round and per decision with the configured model."""

from __future__ import annotations

import argparse
import json
import statistics
import time

from storyworld.commands.common import add_model_options, load_lm, load_world_arg


def register(benches: argparse._SubParsersAction) -> None:
    """Add `bench round`."""
    parser = benches.add_parser("round", help="seconds per round and per decision with the model")
    parser.add_argument("world", help="world id or path")
    parser.add_argument("--start", help="start point id")
    parser.add_argument("--rounds", type=int, default=2, help="rounds to time (default 2)")
    parser.add_argument("--awake", default="near", choices=["all", "near"], help="scheduling (default near)")
    parser.add_argument("--as", dest="player", help="the player's agent for near scheduling (default: first playable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    add_model_options(parser)
    parser.set_defaults(func=bench_round)


def bench_round(args: argparse.Namespace) -> int:
    """Time rounds; the player waits, everyone awake decides with the model."""
    from storyworld import session
    from storyworld.actions import Wait
    from storyworld.minds import LLMMind
    from storyworld.state import Settings

    world = load_world_arg(args.world)
    player = args.player or next(a.id for a in world.file.agent if a.playable and a.status == "active")
    lm = load_lm(args, seed=args.seed)
    settings = Settings(seed=args.seed, awake=args.awake, player=player, model=lm.name)
    started = time.perf_counter()
    sim = session.new_simulation(world, args.start, settings, LLMMind(lm))
    sediment_s = time.perf_counter() - started
    round_s, per_decision, prompt, completion, remember_ms, recall_ms, awake = [], [], [], [], [], [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        sim.step(player_action=Wait(actor=player))
        round_s.append(time.perf_counter() - t0)
        timing = sim.last_timing
        n = max(timing.decisions, 1)
        awake.append(timing.decisions)
        per_decision.append(timing.decide_s / n)
        prompt.append(timing.prompt_tokens / n)
        completion.append(timing.completion_tokens / n)
        remember_ms.append(timing.remember_s * 1000)
        recall_ms.append(timing.recall_s * 1000 / n)
    mean = lambda xs: round(statistics.fmean(xs), 4) if xs else 0.0  # noqa: E731
    result = {
        "world": world.file.world.id,
        "model": lm.name,
        "awake_policy": args.awake,
        "player": player,
        "rounds": args.rounds,
        "sediment_s": round(sediment_s, 3),
        "awake_per_round": mean(awake),
        "seconds_per_round": mean(round_s),
        "seconds_per_decision": mean(per_decision),
        "prompt_tokens_per_decision": mean(prompt),
        "completion_tokens_per_decision": mean(completion),
        "remember_ms_per_round": mean(remember_ms),
        "recall_ms_per_decision": mean(recall_ms),
        "fallbacks": sim.state.fallbacks,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0
