"""`storyworld bench knows SAVE [--key KEY]`: interview questions written unlike the records (who / where / when from
typed fields, or an answer key's), asked through the answer path of `storyworld ask`, scored on the words of the
answers: accuracy on what a character holds, "I do not know" on what it does not, false knowledge."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from storyworld.errors import UserError
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import existing_save

if TYPE_CHECKING:
    from storyworld.game.simulation import Simulation
    from storyworld.jsondata import Document
    from storyworld.llm.base import LanguageModel
    from memory.store import MemoryStore
    from storyworld.report.interviews import Probe
    from storyworld.world import World

DEFINITIONS = """Questions (never the text of a record):
  with --key     the key's [[question]] entries: agent, question, knows (true/false), answer (word groups)
  without        generated from the store's records by their typed fields, the record's sentence never copied:
                   who    "Who was at <place> in round <N>?"    answer: a name of anyone who did something there then
                   where  "Where was <actor> in round <N>?"     answer: a place where the actor did something then
                   when   "When was <actor> at <place>?"        answer: such a round (its number, or "N rounds ago")
                 half that a record the character holds answers (a known), half where no record it holds puts an
                 answer with what is asked about, in any round, and not about itself (an unknown); kinds and
                 characters taken in turn
Every question goes through the interview path of `storyworld ask` (candid: nothing is kept secret), asked by an
interviewer at the save's round. Answers are read with the bench's own tokenizer; the question's own words do not
count towards an answer.
figures:
  accuracy_on_knowns      knowns whose answer has a word of every answer group
  unknown_said_on_knowns  knowns answered "I do not know" (or the like)
  i_do_not_know_rate      unknowns answered "I do not know" (or the like)
  refused_on_unknowns     unknowns refused ("I will not say") without saying it does not know
  false_knowledge         unknowns whose answer has a word of every answer group (over unknowns that have groups)
  asserted_on_unknowns    unknowns answered with neither "I do not know" nor a refusal
  by_kind                 the same per kind of question (key, who, where, when)"""


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench knows`."""
    parser = benches.add_parser(
        "knows", help="interview figures of a save: accuracy on knowns, 'I do not know' on unknowns, false knowledge",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DEFINITIONS,
        description="Ask the characters of SAVE who / where / when questions (or an answer key's) through the "
                    "interview path and score the answers' words (the save is only read).")
    parser.add_argument("save", metavar="SAVE", help="a save folder")
    parser.add_argument("--key", metavar="KEY.toml", help="an answer key with [[question]] entries")
    parser.add_argument("--questions", type=int, default=60, metavar="N",
                        help="without --key: questions to make, half knowns and half unknowns (default 60)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--examples", type=int, default=3, metavar="K", help="examples of each error (default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    add_model_options(parser)
    parser.set_defaults(func=bench_knows)


def asker(world: World, store: MemoryStore, round_: int, lm: LanguageModel | None = None,
          mechanical: frozenset[str] = frozenset()) -> tuple[Callable[[str, str], str], str]:
    """ask(agent, question) -> the answer's words, over the interview path; and whether that path calls a model."""
    from storyworld.minds.interview import interview

    def ask(agent: str, question: str) -> str:
        return interview(world, store, agent, question, round_=round_, candid=True, lm=lm, mechanical=mechanical).text

    return ask, ("yes" if lm is not None else "no: no model was given; the answers are the rendering's words")


def probes_for(args: argparse.Namespace, sim: Simulation) -> tuple[list[Probe], str]:
    """The questions: the key's, or made from the store; and where they came from."""
    from storyworld.report import interviews
    from storyworld.report.keys import load_key
    from storyworld.report.tokens import Names

    names = Names(sim.world)
    if args.key:
        key = load_key(args.key)
        if key.world != sim.world.id:
            raise UserError(f"{args.key}: world: the key is for {key.world!r}, not {sim.world.id!r}")
        if not key.question:
            raise UserError(f"{args.key}: question: the key has no [[question]] entries")
        for index, question in enumerate(key.question):
            if names.resolve(question.agent) is None:
                raise UserError(f"{args.key}: question[{index}].agent: no character {question.agent!r}")
        return interviews.from_key(key, names), f"key {args.key}"
    facts = interviews.facts_of(sim.world, sim.store, sim.state.events)
    probes = interviews.generate(sim.world, sim.store, facts, args.questions, args.seed, now=sim.state.round)
    return probes, "generated from the store"


def bench_knows(args: argparse.Namespace) -> int:
    """Load the save, ask, print the figures."""
    import json

    from storyworld.game import session
    from storyworld.kernel import ids
    from storyworld.report import interviews

    if args.questions < 2:
        raise UserError("--questions must be 2 or more")
    if args.examples < 0:
        raise UserError("--examples must be 0 or more")
    folder = existing_save(args.save)
    sim = session.load_simulation(folder, mind=None)
    probes, origin = probes_for(args, sim)
    lm = load_lm(args, seed=args.seed)  # the interview path phrases its answers with it
    try:
        ask, model = asker(sim.world, sim.store, sim.state.round, lm, ids.mechanical_keys(sim.state.events))
        result: Document = {"save": str(folder), "world": sim.world.id, "round": sim.state.round,
                            "seed": args.seed, "questions_from": origin, "model_asked": model}
        result |= interviews.score(probes, ask, examples=args.examples)
    finally:
        if lm is not None:
            lm.close()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    for key, value in result.items():
        if key not in ("by_kind", "examples"):
            print(f"{key}: {value}")
    print("by_kind:")
    for kind, row in result["by_kind"].items():
        print(f"  {kind}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    for label, rows in result["examples"].items():
        print(f"examples of {label}: {len(rows) or 'none'}")
        for row in rows:
            print(f"  {row}")
    return 0
