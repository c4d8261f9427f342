"""`storyworld ask SAVE AGENT "question"`: a character of a save answers out of its own memory, with provenance."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from storyworld.commands.terminal import checked_count, checked_text
from storyworld.errors import UserError
from storyworld.locations import existing_save

if TYPE_CHECKING:  # annotations only
    from storyworld.minds.interview import Answer
    from storyworld.world import World


MAX_QUESTION = 2000  # characters: a question longer than this is no question (and would only slow recall)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `ask`."""
    parser = subparsers.add_parser(
        "ask", help="interview a character of a save: it answers from its own memory, with where it learned it",
        description=(
            "Ask AGENT a question outside a round, as Generative Agents' interviews do: the answer is the one the "
            "character would give in play (the same answer path: gather what it holds, choose the speech act, "
            "say it in its own point of view), followed by each record it rests on and how it came to hold it. "
            "The save is only read."
        ),
    )
    parser.add_argument("save", metavar="SAVE", help="a save folder")
    parser.add_argument("agent", metavar="AGENT", help="who answers: an agent id, name or alias")
    parser.add_argument("question", metavar="QUESTION", nargs="+",
                        help="what to ask; several are one conversation, each a follow-up of the last "
                             '("What did Pia tell you?" "Who told you?" "When was that?")')
    parser.add_argument("--as", dest="asker", metavar="ASKER",
                        help="who asks (an agent of the world); default an interviewer from outside it")
    parser.add_argument("--candid", action="store_true",
                        help="it keeps nothing to itself (an author's look into its memory, not a scene)")
    parser.add_argument("--round", type=int, metavar="N", dest="round_",
                        help="ask it as of round N: what it came to hold later is not yet its (default: the save's round)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=ask_command)


def resolve_agent(world: World, wanted: str, what: str = "character") -> str:
    """An agent id from an id, a name or an alias (case-insensitive); UserError naming the cast."""
    key = " ".join(wanted.split()).lower()
    for agent in world.file.agent:
        if key in {agent.id.lower(), agent.name.lower(), *(a.lower() for a in agent.aliases)}:
            return agent.id
    cast = ", ".join(a.id for a in world.file.agent)
    raise UserError(f"no {what} {wanted!r} in {world.id}; characters: {cast}")


def answer_json(world: World, answer: Answer, *, asker: str | None, round_: int) -> dict[str, object]:
    """The answer as one JSON-able object: the act, its words, and each record it rests on with its provenance."""
    return {
        "agent": answer.agent, "name": world.name_of(answer.agent), "asker": asker, "round": round_,
        "question": answer.question, "act": answer.act, "text": answer.text,
        "records": [{"id": k.record_id, "text": k.text, "kind": k.kind, "via": k.via, "source": k.source,
                     "since_round": k.since_round, "confidence": round(k.confidence, 4), "status": k.status,
                     "provenance": line}
                    for k, line in zip(answer.records, answer.provenance)],
    }


def answer_lines(world: World, answer: Answer) -> list[str]:
    """The answer line, then one line per record it rests on: `  #12 told by Barnardo r2: <the record>`."""
    out = [f"{world.name_of(answer.agent)} [{answer.act}]: {answer.text}"]
    for known, line in zip(answer.records, answer.provenance):
        out.append(f"  #{known.record_id} {line}: {known.text}")
    if not answer.records:
        out.append("  (rests on no record)")
    return out


def ask_command(args: argparse.Namespace) -> int:
    """Load the save, interview the agent, print the answer."""
    from storyworld.game import session
    from storyworld.kernel import ids
    from storyworld.minds.interview import AsOf, interview

    questions = [checked_text(q, "a question", MAX_QUESTION) for q in args.question]
    folder = existing_save(args.save)
    sim = session.load_simulation(folder, mind=None)
    world = sim.world
    agent = resolve_agent(world, args.agent)
    asker = resolve_agent(world, args.asker, "asker") if args.asker else None
    if asker == agent:
        raise UserError(f"--as: {agent} cannot interview itself")
    now = sim.state.round
    round_ = now if args.round_ is None else args.round_
    if round_ > now:
        raise UserError(f"--round {round_}: {folder} is at round {now}")
    checked_count(round_, "--round", -1_000_000, now)
    store = sim.store if round_ == now else AsOf(sim.store, round_)
    answer = None
    for question in questions:  # one conversation: each question is asked after the answer before it
        answer = interview(world, store, agent, question, round_=round_, asker=asker, candid=args.candid,
                           mechanical=ids.mechanical_keys(sim.state.events),
                           previous=answer)
        if args.json:
            print(json.dumps(answer_json(world, answer, asker=asker, round_=round_), ensure_ascii=False))
        else:
            if len(questions) > 1:
                print(f"> {question}")
            print("\n".join(answer_lines(world, answer)))
    return 0
