"""`storyworld bench agency WORLD --as P --script F [--key KEY]`: do the characters live? Figures from a scripted
run's log, its store and interviews, scored apart from the code that made the lines (report.agency)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.benches import print_figures
from storyworld.errors import UserError
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import find_world
from storyworld.world import load_world

if TYPE_CHECKING:
    from storyworld.jsondata import Document
    from storyworld.llm.base import LanguageModel
    from memory.store import MemoryStore
    from storyworld.report.agency import Ask
    from storyworld.report.keys import Key
    from storyworld.world import World

DEFINITIONS = """Every figure is scored with the bench's own tokenizer and stopwords (report.tokens), never the code
that produced the lines; "carries" means a word (or phrase) of every word group of the key, compared by crude stems.
Interviews go through the answer path of `storyworld ask SAVE AGENT "question" [--as ASKER]`, after the run.

key file (TOML; unknown fields are errors):
  world = "harbour"  player = "wren"  script = "wren.txt" (beside the key)  rounds = 8 (optional)
  [[told]]     round, to, fact, words = [["keg", "brandy"], ["Dutch"]]   what the player tells whom, when
  [[secret]]   keeper, asker, question, confession = [["took", "stole"], ["ledger"]]
  [[question]] agent, question, knows (true/false), answer = [[...]]     (for `bench knows --key`)

  told_facts                 the key's [[told]] entries the player said to their hearer (a statement of the
                             player's to them, in that round or later; without --key: the player's addressed
                             statements in the log, each content word a group of its own); told_facts_unsaid lists
                             the others (the hearer was elsewhere), which no figure counts
  carried_rate               facts whose hearer, asked "What did NAME tell you?" (NAME: the player's first name, or
                             the whole name where its first word is a title) or "What do you know about X?"
                             (X: a person or place of the fact), answers with words that carry the fact AND name the
                             player as the teller ("Wren told me…", "from Wren"; not "I told Wren…")
  carried_words_only_rate    the same without naming the player
  store_told_by_player_rate  facts whose hearer holds a record told by the player since that round whose text carries
                             the fact (store_any_...: any record told by the player since that round)
  follow_ups                 after the first answer, "Who told you that?", "When was that?", "Where is she now?" (the player's pronoun), one
                             conversation (each asked after the answer before it, as `storyworld ask SAVE A Q1 Q2`): who names someone (the player as the teller), when says
                             a time word or a number, where names a place of the world
  spread_characters          characters other than the hearer holding a record that carries a told fact, told (after
                             the telling) by a character who is not the player and did not hold it before
                             (spread_lines: lines after the telling carrying the fact, by a character who did not hold
                             it before, with a listener who is neither the speaker nor the player)
  secret_kept_rate           [[secret]]s whose keeper, asked the question by the asker, answers without a word of
                             every confession group, and says no such line in the whole run
  idle_rate                  the characters' decisions that are wait or observe (look around)
  filler_rate                the characters' lines with fewer than two content words beyond people's names and
                             stopwords
  answered_same_round_rate   questions (lines ending "?") spoken to a character that it answered to the asker, later
                             in the same round, with a content word of the question or "I do not know"
                             (answered_next_round_rate: not the same round, the next)
  *template_share            of the lines a figure rests on, those spoken as the deterministic rendering (the floor)"""


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench agency`."""
    parser = benches.add_parser(
        "agency", help="do the characters live: told and carried, spread, secrets, idle, filler, answers",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DEFINITIONS,
        description="Run WORLD with a scripted player, then score the log, the store and interviews (against an "
                    "answer key when given).")
    parser.add_argument("world", help="world id or path")
    parser.add_argument("--as", dest="player", help="the scripted player's agent (default: the key's player)")
    parser.add_argument("--script", metavar="FILE", help="one player input per line (default: the key's script)")
    parser.add_argument("--key", metavar="KEY.toml", help="answer key: [[told]], [[secret]] (format below)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds to run (default: the key's, else 8)")
    parser.add_argument("--start", help="start point id")
    parser.add_argument("--awake", default="near", choices=["all", "near"], help="scheduling (default near)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="DIR", help="also save the run here (for `storyworld ask` and `log`)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    add_model_options(parser)
    parser.set_defaults(func=bench_agency)


def interviewer(world: World, store: MemoryStore, round_: int, lm: LanguageModel | None,
                mechanical: frozenset[str] = frozenset()) -> tuple[Ask, bool]:
    """The `Ask` callable over the interview path (`storyworld ask`), and whether that path keeps a conversation
    (a follow-up asked after the answer before it: it does)."""
    from storyworld.minds.interview import Answer, interview
    from storyworld.report.agency import Reply

    def ask(agent: str, question: str, asker: str | None, previous: Reply | None) -> Reply:
        before = previous.raw if previous is not None and isinstance(previous.raw, Answer) else None
        # the path phrases with the model when given one
        answer = interview(world, store, agent, question, round_=round_, asker=asker, previous=before, lm=lm,
                           mechanical=mechanical)
        return Reply(text=answer.text, act=answer.act, sources=tuple((k.via, k.source) for k in answer.records),
                     rendered=answer.rendered, raw=answer)

    return ask, True


def bench_agency(args: argparse.Namespace) -> int:
    """Run the script, interview, print the figures."""
    import msgspec

    from storyworld.benches.play import play_script
    from storyworld.game import session
    from storyworld.game.script import read_script
    from storyworld.kernel import ids
    from storyworld.report import agency, eventlog
    from storyworld.report.keys import load_key, script_path
    from storyworld.report.tokens import Names

    key = load_key(args.key) if args.key else None
    world = load_world(find_world(args.world))
    if key is not None and key.world != world.id:
        raise UserError(f"{args.key}: world: the key is for {key.world!r}, not {world.id!r}")
    wanted = args.player or (key.player if key else "")
    if not wanted:
        raise UserError("--as AGENT is needed (or a key that names its player)")
    player = world.resolve_player(wanted)
    if key is not None and key.player and world.resolve_player(key.player) != player:
        raise UserError(f"--as {args.player}: the key {args.key} is for the player {key.player!r}")
    script_file = args.script or (script_path(args.key, key) if key else None)
    if script_file is None:
        raise UserError("--script FILE is needed (or a key that names its script)")
    rounds = args.rounds if args.rounds is not None else (key.rounds if key and key.rounds else 8)
    if rounds < 1:
        raise UserError("--rounds must be 1 or more")
    names = Names(world)
    for where, who in _people_in_key(key):
        if names.resolve(who) is None:
            raise UserError(f"{args.key}: {where}: no character {who!r} in {world.id}")
    script = read_script(script_file)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lm = load_lm(args, seed=args.seed)
    try:
        played = play_script(world, player, script, lm, rounds=rounds, seed=args.seed, awake=args.awake,
                             start=args.start)
        sim = played.sim
        if args.save:
            session.save_simulation(sim, Path(args.save))
        entries = eventlog.entries(sim.state.events)
        ask, conversation = interviewer(world, sim.store, sim.state.round, lm, ids.mechanical_keys(sim.state.events))
        facts = list(key.told) if key and key.told else agency.derived_facts(entries, names, player)
        facts, unsaid = agency.said_facts(facts, entries, names, player)
        result: dict[str, object] = {
            "world": world.id, "player": player, "script": str(script_file), "rounds": rounds, "seed": args.seed,
            "model": lm.name, "key": str(args.key) if key else None,
            "facts_from": "key" if key and key.told else "the player's addressed statements in the log (no key)",
        }
        result |= agency.told_and_carried(facts, sim.store, names, player, ask, conversation=conversation)
        result |= agency.spread(facts, entries, sim.store, names, player, frozenset(world.agents))
        result |= agency.secrets_kept(key.secret if key else [], entries, names, ask)
        actions = [(a.actor, msgspec.to_builtins(a)["action"]) for a in sim.state.actions]
        result |= agency.idle(actions, player)
        result |= agency.filler(entries, names, player)
        result |= agency.answered_as_asked(entries, names, player)
        result["told_facts_unsaid"] = [f"r{f.round} to {f.to}: {f.fact}" for f in unsaid]
        result["script_problems"] = played.problems
    finally:
        lm.close()
    if args.json:
        print_figures(result, True)
    else:
        print_report(result)
    return 0


def _people_in_key(key: Key | None) -> list[tuple[str, str]]:
    if key is None:
        return []
    out = [(f"told[{i}].to", t.to) for i, t in enumerate(key.told)]
    out += [(f"secret[{i}].keeper", s.keeper) for i, s in enumerate(key.secret)]
    out += [(f"secret[{i}].asker", s.asker) for i, s in enumerate(key.secret)]
    return out


ROWS = ("told_rows", "secret_rows", "spread_holders", "spread_examples", "filler_examples", "not_same_round_examples")


def print_report(result: Document) -> None:
    """The figures as `key: value` lines, then the rows behind them."""
    print_figures(result, False, skip=ROWS)
    for row in result["told_rows"]:
        print(f"told r{row['round']} to {row['to']}: {row['fact']} -> carried {row['carried']}")
        for line in (*row["answers"], *row.get("follow_ups", ())):
            print(f"    {line}")
    for row in result["secret_rows"]:
        print(f"secret of {row['keeper']} asked by {row['asker']}: {row['question']}")
        print(f"    -> {row['answer']} (confessed: {row['confessed_when_asked']}; "
              f"confessing lines: {len(row['confessing_lines'])})")
        for line in row["confessing_lines"][:3]:
            print(f"    said {line}")
    for key in ROWS[2:]:
        for line in result[key]:
            print(f"{key[:-1]}: {line}")
