"""`storyworld bench play WORLD --as AGENT --script FILE`: how well a scripted run plays, in figures."""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from storyworld.benches import print_figures
from storyworld.errors import UserError
from storyworld.kernel.state import AwakePolicy
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import existing_save, find_world
from storyworld.world import load_world

if TYPE_CHECKING:
    from storyworld.game.simulation import Simulation
    from storyworld.kernel.state import WorldState
    from storyworld.llm.base import LanguageModel
    from storyworld.world import World

DEFINITIONS = """figures (agents only; the player's own lines and moves are not scored):
  fallback_rate           decisions that ended in a logged fallback (a rejected line replaced, a failed choice)
  degenerate_speech_rate  lines under 3 words, a list of names, an echo of prompt text or field names, a stutter
  repeat_rate             lines whose words overlap the same speaker's earlier line by 70% or more
  invalid_actions         actions the kernel refused (no way there, nothing to take, nobody to give to)
  pingpong_rate           moves undone within 2 rounds (straight back where one came from)
  reply_rate              lines spoken to a present agent that the agent answered (spoke) that round or the next
                          (lines of the last round, which no round follows, are not counted)
  reply_relevance         mean MiniLM cosine between such a line and its answer
  canon_progress          canon beats after the start met, over those met or left behind during the run
truth (each agent line judged against what its speaker held when it was said; words are read with the scorer's own
tokenizer and stopwords, never the speech gate's):
  clean_rate              lines grounded, with no invented name, no parroting, no canon leaked, no repeat of the
                          speaker's own, no stock line, not degenerate and not a fallback (a rendered line counts
                          when it passes these too)
  grounded_rate           lines whose content words are at least 70% in the speaker's records or the line answered
                          (a question asserts nothing and counts as grounded; its names and leaks are still judged)
  invented_name_rate      lines naming someone or something (a capitalised word) nowhere in the world or its knowledge
  parrot_rate             lines with half or more of their word trigrams said by someone else in the speaker's
                          hearing, this round or the last
  future_leaks            lines sharing 2+ content words the speaker could not know with a canon event still to come
  informative_answer_rate questions answered with a record about them, or an honest "I do not know" / refusal from
                          someone who held nothing about them (over questions answered by a speech act); a question
                          about nothing in particular ("What news?") answered with any record is informative
  floor_rate              lines spoken as the deterministic rendering because the model's phrasing failed its check
  talk_shared             records that gained an owner through talk (told by someone who holds them)
  hallucinated_beliefs    holdings believed by a listener (told, read) whose record nothing supports: no first-hand
                          holder, no canon, no carrier read, not a known lie"""


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench play`."""
    parser = benches.add_parser("play", help="play-quality figures of a scripted run",
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DEFINITIONS,
                                description="Run WORLD with a scripted player and score how the other characters play.")
    parser.add_argument("world", help="world id or path")
    parser.add_argument("--as", dest="player", help="the scripted player's agent (with --from-save: the save's own)")
    parser.add_argument("--script", metavar="FILE", help="one player input per line (see `run --script`); needed unless --from-save")
    parser.add_argument("--rounds", type=int, default=8, help="rounds to run (default 8)")
    parser.add_argument("--start", help="start point id")
    parser.add_argument("--awake", default="near", choices=["all", "near"], help="scheduling (default near)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="DIR", help="also save the run here (for `storyworld log`)")
    parser.add_argument("--from-save", metavar="DIR",
                        help="score a run saved earlier (by --save or `run --script`) instead of running one")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    add_model_options(parser)
    parser.set_defaults(func=bench_play)


@dataclass
class Played:
    """A scripted run: the simulation after it, and how long and how well each round went."""

    sim: Simulation
    round_s: list[float] = field(default_factory=list)
    decisions: int = 0
    fallbacks: int = 0
    problems: list[str] = field(default_factory=list)


def play_script(world: World, player_id: str, script: list[str], lm: LanguageModel, *, rounds: int, seed: int,
                awake: AwakePolicy, start: str | None) -> Played:
    """Play `script` as `player_id` for `rounds` rounds, every other character minded by `lm`."""
    from storyworld.game import session
    from storyworld.game.script import ScriptedPlayer
    from storyworld.kernel.state import Settings
    from storyworld.minds import LLMMind

    settings = Settings(seed=seed, awake=awake, player=player_id, model=lm.name)
    played = Played(sim=session.new_simulation(world, start, settings, LLMMind(lm)))
    player = ScriptedPlayer(world, player_id, script)
    for _ in range(rounds):
        started = time.perf_counter()
        played.sim.step(player_action=player.next_action(played.sim.state))
        played.round_s.append(time.perf_counter() - started)
        played.decisions += played.sim.last_timing.decisions
        played.fallbacks += played.sim.last_timing.fallbacks
    played.problems = player.problems
    return played


def bench_play(args: argparse.Namespace) -> int:
    """Run the script, then score the event log."""
    from pathlib import Path

    from storyworld.report import eventlog, playquality, truth

    from storyworld.game import session
    from storyworld.game.script import read_script

    if args.rounds < 1:
        raise UserError("--rounds must be 1 or more")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.from_save:
        return _score_save(args)
    if not args.script or not args.player:
        raise UserError("--as AGENT and --script FILE are needed to run a game (or --from-save DIR to score one)")
    world = load_world(find_world(args.world))
    player_id = world.resolve_player(args.player)
    script = read_script(args.script)
    lm = load_lm(args, seed=args.seed)
    played = play_script(world, player_id, script, lm, rounds=args.rounds, seed=args.seed, awake=args.awake,
                         start=args.start)
    sim, round_s, decisions, fallbacks = played.sim, played.round_s, played.decisions, played.fallbacks
    if args.save:
        session.save_simulation(sim, Path(args.save))
    events = eventlog.entries(sim.state.events)
    result = {"world": world.id, "player": player_id, "script": str(args.script), "rounds": args.rounds,
              "seed": args.seed, "model": lm.name}
    result |= playquality.score(events, player=player_id, names=world_names(world), decisions=decisions,
                                fallbacks=fallbacks, invalid=sim.state.invalid,
                                similarity=playquality.embedding_similarity(sim.store.embedder))
    result |= canon_progress(sim.state)
    result |= truth.score(world, sim.state.events, sim.store, player=player_id, start_round=sim.state.start_round,
                          cosine=playquality.embedding_similarity(sim.store.embedder))
    result["seconds_per_round"] = round(statistics.fmean(round_s), 3)
    result["script_problems"] = played.problems
    print_figures(result, args.json)
    return 0


def world_names(world: World) -> tuple[str, ...]:
    """Every name in the world file: people (names and aliases), places, objects."""
    from storyworld.report.tokens import Names

    names = Names(world)
    return (*(f for forms in names.people.values() for f in forms), *names.places.values(), *names.objects.values())


def canon_progress(state: WorldState) -> dict[str, float | int]:
    """How much of the canon due during the run was reached, read from the saved progress: met / (met + dropped)."""
    met, dropped = len(state.canon.met), len(state.canon.dropped)
    return {"canon_met": met, "canon_dropped": dropped,
            "canon_progress": round(met / (met + dropped), 4) if met + dropped else 0.0}


def _score_save(args: argparse.Namespace) -> int:
    """The figures of a saved run (no timing: it was not run here)."""
    from memory.embedder import shared_embedder
    from storyworld.report import eventlog, playquality, truth
    from storyworld.game import session

    sim = session.load_simulation(existing_save(args.from_save), mind=None)
    player = sim.world.resolve_player(args.player) if args.player else sim.settings.player
    decisions = sum(1 for a in sim.state.actions if a.actor != player)
    result: dict[str, object] = {"world": sim.world.id, "player": player, "save": str(args.from_save),
              "rounds": sim.state.round - sim.state.start_round}
    result |= playquality.score(eventlog.entries(sim.state.events), player=player, names=world_names(sim.world),
                                decisions=decisions, fallbacks=sim.state.fallbacks, invalid=sim.state.invalid,
                                similarity=playquality.embedding_similarity(shared_embedder()))
    result |= canon_progress(sim.state)
    result |= truth.score(sim.world, sim.state.events, sim.store, player=player, start_round=sim.state.start_round,
                          cosine=playquality.embedding_similarity(sim.store.embedder))
    print_figures(result, args.json)
    return 0
