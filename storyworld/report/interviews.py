"""The questions and scores of `bench knows`: who / where / when questions from records' typed fields (or an answer
key's), asked of characters that hold the fact and of characters that do not, scored on the answer's words.

A question never copies a record's sentence: it names two typed fields of the fact (its actors, its place,
its round) and asks for the third. The scorer reads answers with its own tokenizer (`report.tokens`).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from storyworld.report.keys import Groups, Key
from storyworld.report.tokens import Names, carries, says_unknown, tokens

if TYPE_CHECKING:
    from memory.records import Record
    from memory.store import MemoryStore
    from storyworld.kernel.state import SimEvent
    from storyworld.world import World

# How an answer refuses (the scorer's own list): not knowledge, not ignorance.
REFUSAL_PHRASES = ("will not say", "won't say", "will not speak", "won't speak", "not a thing i will",
                   "not tell you", "rather not", "keep that to myself", "not for you to know", "not yours to know")
SAYABLE = ("believed", "doubted")


@dataclass(frozen=True)
class Fact:
    """What a record is about, from typed fields: who did it, where, in which round."""

    record_id: int
    actors: tuple[str, ...]
    place: str | None
    round: int
    event_id: str | None
    from_place: str | None = None  # a move's other end: its actors were there too


Field = str | int | None  # a typed field of a fact: an actor or a place (ids), or a round
Cue = tuple[str, Field, Field]  # (kind, the two typed fields a question names)


@dataclass(frozen=True)
class Probe:
    """One question to one character: whether it holds the answer, and the word groups the answer carries."""

    agent: str
    question: str
    knows: bool
    answer: Groups
    kind: str  # key | who | where | when
    cue: tuple[Field, ...] = ()  # the typed fields the question names (generated questions)


def facts_of(world: World, store: MemoryStore, events: Sequence[SimEvent] = ()) -> dict[int, Fact]:
    """Each shared record's typed fact: its actors (the record's own, else its canon event's, its play event's or
    its speaker), its place and round."""
    played = {e.id: e for e in events}
    out: dict[int, Fact] = {}
    for record in store.records():
        if record.namespace != "shared":
            continue
        canon = world.events_by_id.get(record.event_id) if record.event_id else None
        event = played.get(record.event_id) if record.event_id else None
        if record.actors:  # typed where the fact was born
            actors = record.actors
            place = canon.place if canon is not None else (event.place if event is not None else record.place)
            round_ = canon.round if canon is not None else (event.round if event is not None else record.round)
        elif canon is not None:
            actors, place, round_ = tuple(canon.actors), canon.place, canon.round
        elif event is not None:
            actors = tuple(a for a in (event.actor, event.to) if a in world.agents)
            place, round_ = event.place, event.round
        else:
            actors = (record.speaker,) if record.speaker in world.agents else ()
            place, round_ = record.place, record.round
        out[record.id] = Fact(record.id, tuple(dict.fromkeys(actors)), place, round_, record.event_id,
                              event.from_place if event is not None else None)
    return out




def cues(fact: Fact) -> list[Cue]:
    """The questions a fact answers: who was at (place, round), where was (actor, round), when was (actor, place)."""
    if not fact.place:
        return []
    out: list[Cue] = [("who", fact.place, fact.round)] if fact.actors else []
    for actor in fact.actors:
        out += [("where", actor, fact.round), ("when", actor, fact.place)]
    return out


def answers(facts: dict[int, Fact]) -> dict[Cue, set[Field]]:
    """Every cue's right answers over all facts: the actors, places or rounds that fit it."""
    out: dict[Cue, set[Field]] = defaultdict(set)
    for fact in facts.values():
        for cue in cues(fact):
            kind = cue[0]
            out[cue] |= set(fact.actors) if kind == "who" else {fact.place} if kind == "where" else {fact.round}
    return out


def phrase(cue: Cue, right: set[Field], names: Names, agent: str, now: int) -> tuple[str, Groups] | None:
    """The question a cue makes, asked of `agent` at round `now`, and what its answer must carry (a name of one
    of the actors, the place, or the round: its number, or how many rounds ago it was)."""
    kind, first, second = cue
    ids = sorted(x for x in right if isinstance(x, str))  # who: the actors; where: the places
    rounds = sorted(x for x in right if isinstance(x, int))  # when: the rounds
    if kind == "who":
        return f"Who was at {_place(names, str(first))} in round {second}?", [
            [form for actor in ids for form in names.people.get(actor, ())]]
    whom = "you" if first == agent else (names.people.get(str(first), ("",))[0])
    if not whom:
        return None
    verb = "were" if whom == "you" else "was"
    if kind == "where":
        return f"Where {verb} {whom} in round {second}?", [[names.places[p] for p in ids if p in names.places]]
    numbers = sorted({str(abs(r)) for r in rounds} | {f"{now - r} rounds ago" for r in rounds if now > r})
    return f"When {verb} {whom} at {_place(names, str(second))}?", [numbers]


def _place(names: Names, place: str) -> str:
    name = names.places.get(place, place)
    return "the " + name[4:] if name.startswith("The ") else name  # mid-sentence


def held(store: MemoryStore, agent: str) -> list[Record]:
    """The shared records an agent holds as believed or doubted."""
    return [r for r in store.records() if agent in r.owners and r.namespace == "shared"
            and r.owners[agent].status in SAYABLE]


def generate(world: World, store: MemoryStore, facts: dict[int, Fact], count: int, seed: int, now: int = 0) -> list[Probe]:
    """Half questions a character can answer from what it holds, half questions nothing it holds answers: no record
    of it puts an answer with what is asked about, in any round (and it is not about itself); who / where / when,
    seeded."""
    rng = random.Random(seed)
    names = Names(world)
    right = answers(facts)
    every = sorted(right, key=repr)
    knowns: list[Probe] = []
    unknowns: list[Probe] = []
    for agent in sorted(a for a in world.agents if world.agents[a].status == "active"):
        mine_facts = [facts[r.id] for r in held(store, agent) if r.id in facts]
        mine = {cue for fact in mine_facts for cue in cues(fact)}
        # who it knows was where, in any round: a fair unknown leaves it nothing to link the cue to its answer
        seen = {(actor, where) for fact in mine_facts for actor in fact.actors for where in (fact.place, fact.from_place)}
        for cue in every:
            knows = cue in mine
            if (cue[0] == "who" and agent in right[cue]) or (not knows and agent in cue[1:]):
                continue  # "who was there?" answered "I was" names nobody; an unknown about oneself is unfair
            if not knows and not _fair(cue, right[cue], seen):
                continue
            made = phrase(cue, right[cue], names, agent, now)
            if made is not None and all(made[1]):
                (knowns if knows else unknowns).append(Probe(agent, made[0], knows, made[1], cue[0], cue[1:]))
    rng.shuffle(knowns)
    rng.shuffle(unknowns)
    picked = _spread(knowns, (count + 1) // 2)
    return picked + _spread(unknowns, count - len(picked))


def _fair(cue: Cue, right: set[Field], seen: set[tuple[str, str | None]]) -> bool:
    """An unknown is fair when nothing held puts one of its answers with what it asks about, in any round."""
    kind, first, second = cue
    if kind == "who":
        return not any((actor, first) in seen for actor in right)
    if kind == "where":
        return not any((first, place) in seen for place in right)
    return (first, second) not in seen


def _spread(probes: list[Probe], count: int) -> list[Probe]:
    """Up to `count` probes, the kinds and the agents taken in turn."""
    groups: dict[tuple[str, str], list[Probe]] = defaultdict(list)
    for probe in probes:
        groups[(probe.kind, probe.agent)].append(probe)
    out: list[Probe] = []
    while len(out) < count and any(groups.values()):
        for key in sorted(groups):
            if groups[key] and len(out) < count:
                out.append(groups[key].pop())
    return out


def from_key(key: Key, names: Names) -> list[Probe]:
    """The key's [[question]] entries as probes."""
    return [Probe(names.resolve(q.agent) or q.agent, q.question, q.knows, q.answer, "key") for q in key.question]


def refuses(text: str) -> bool:
    """Whether an answer refuses to say."""
    folded = " ".join(tokens(text))
    return any(" ".join(tokens(p)) in folded for p in REFUSAL_PHRASES)


def score(probes: Sequence[Probe], ask: Callable[[str, str], str], *, examples: int = 3) -> dict[str, object]:
    """Ask every probe; accuracy on knowns, "I do not know" on unknowns, false knowledge (see bench knows --help)."""
    tally: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    shown: dict[str, list[str]] = defaultdict(list)
    for probe in probes:
        text = ask(probe.agent, probe.question)
        row = kinds[probe.kind]
        unknown, refused = says_unknown(text), refuses(text)
        carried = bool(probe.answer) and carries(_beyond(text, probe.question), probe.answer)
        if probe.knows:
            tally["knowns"] += 1
            row["knowns"] += 1
            tally["right"] += carried
            row["right"] += carried
            tally["unknown_on_knowns"] += unknown
            wrong = not carried
        else:
            tally["unknowns"] += 1
            row["unknowns"] += 1
            tally["idk"] += unknown
            row["idk"] += unknown
            tally["refused"] += refused and not unknown
            tally["with_groups"] += bool(probe.answer)
            row["with_groups"] += bool(probe.answer)
            tally["false"] += carried
            row["false"] += carried
            tally["asserted"] += not unknown and not refused
            wrong = carried or (not unknown and not refused)
        if wrong:
            label = "missed" if probe.knows else "false_or_asserted"
            if len(shown[label]) < examples:
                shown[label].append(f"{probe.agent} ({probe.kind}): {probe.question} -> {text}")
    return figures(tally, kinds, shown)


def _beyond(text: str, question: str) -> str:
    """The answer's words without those of the question (echoing the question is not knowing the answer)."""
    asked = set(tokens(question))
    return " ".join(w for w in tokens(text) if w not in asked)


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def figures(tally: Counter[str], kinds: dict[str, Counter[str]], shown: dict[str, list[str]]) -> dict[str, object]:
    """The report from the counts."""
    return {
        "questions": tally["knowns"] + tally["unknowns"], "knowns": tally["knowns"], "unknowns": tally["unknowns"],
        "accuracy_on_knowns": _rate(tally["right"], tally["knowns"]),
        "unknown_said_on_knowns": _rate(tally["unknown_on_knowns"], tally["knowns"]),
        "i_do_not_know_rate": _rate(tally["idk"], tally["unknowns"]),
        "refused_on_unknowns": _rate(tally["refused"], tally["unknowns"]),
        "false_knowledge": _rate(tally["false"], tally["with_groups"]),
        "asserted_on_unknowns": _rate(tally["asserted"], tally["unknowns"]),
        "by_kind": {kind: {"knowns": row["knowns"], "accuracy": _rate(row["right"], row["knowns"]),
                           "unknowns": row["unknowns"], "i_do_not_know": _rate(row["idk"], row["unknowns"]),
                           "false_knowledge": _rate(row["false"], row["with_groups"])}
                    for kind, row in sorted(kinds.items())},
        "examples": {label: shown.get(label, []) for label in ("missed", "false_or_asserted")},
    }
