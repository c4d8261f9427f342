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
from typing import Any

from storyworld.report.keys import Groups, Key
from storyworld.report.tokens import Names, carries, says_unknown, tokens

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


@dataclass(frozen=True)
class Probe:
    """One question to one character: whether it holds the answer, and the word groups the answer carries."""

    agent: str
    question: str
    knows: bool
    answer: Groups
    kind: str  # key | who | where | when
    record_id: int | None = None


def facts_of(world: Any, store: Any, events: Sequence[Any] = ()) -> dict[int, Fact]:
    """Each shared record's typed fact: actors from its canon event (or its play event, or its speaker), its place
    and round."""
    played = {e.id: e for e in events}
    out: dict[int, Fact] = {}
    for record in store.records():
        if record.namespace != "shared":
            continue
        canon = world.events_by_id.get(record.event_id) if record.event_id else None
        event = played.get(record.event_id) if record.event_id else None
        if canon is not None:
            actors, place, round_ = tuple(canon.actors), canon.place, canon.round
        elif event is not None:
            actors = tuple(a for a in (event.actor, event.to) if a in world.agents)
            place, round_ = event.place, event.round
        else:
            actors = (record.speaker,) if record.speaker in world.agents else ()
            place, round_ = record.place, record.round
        out[record.id] = Fact(record.id, tuple(dict.fromkeys(actors)), place, round_, record.event_id)
    return out


def _when(round_: int) -> str:
    return f"in round {round_}"


def phrase(fact: Fact, kind: str, names: Names, agent: str) -> tuple[str, Groups] | None:
    """A question of one kind about a fact, asked of `agent`, and what its answer must carry; None when the fact
    lacks the fields (or a who question would be about the one asked)."""
    place = names.places.get(fact.place or "")
    if place and place.startswith("The "):
        place = "the " + place[4:]  # mid-sentence
    others = [names.people[a][0] for a in fact.actors if a in names.people and a != agent]
    whom = "you" if agent in fact.actors else (others[0] if others else "")
    if not place or not whom:
        return None
    if kind == "who":
        if agent in fact.actors:
            return None
        return f"Who was at {place} {_when(fact.round)}?", [[p for a in fact.actors for p in names.people[a]]]
    verb = "were" if whom == "you" else "was"
    if kind == "where":
        return f"Where {verb} {whom} {_when(fact.round)}?", [[place]]
    return f"When {verb} {whom} at {place}?", [[str(fact.round), f"round {fact.round}"]]


def held(store: Any, agent: str) -> list[Any]:
    """The shared records an agent holds as believed or doubted."""
    return [r for r in store.records() if agent in r.owners and r.namespace == "shared"
            and r.owners[agent].status in SAYABLE]


def generate(world: Any, store: Any, facts: dict[int, Fact], count: int, seed: int) -> list[Probe]:
    """Half questions about facts each character holds, half about facts it holds no record of (not of the same
    event, nor at the same place and round), who / where / when in turn; seeded."""
    rng = random.Random(seed)
    names = Names(world)
    agents = sorted(a for a in world.agents if world.agents[a].status == "active")
    knowns: list[Probe] = []
    unknowns: list[Probe] = []
    kinds = ("who", "where", "when")
    for agent in agents:
        mine = [facts[r.id] for r in held(store, agent) if r.id in facts]
        events = {f.event_id for f in mine if f.event_id}
        scenes = {(f.place, f.round) for f in mine}
        others = [f for f in facts.values() if f.record_id not in {m.record_id for m in mine}
                  and f.event_id not in events and (f.place, f.round) not in scenes and agent not in f.actors]
        for pool, out, knows in ((mine, knowns, True), (others, unknowns, False)):
            rng.shuffle(pool)
            for index, fact in enumerate(pool):
                made = phrase(fact, kinds[index % 3], names, agent)
                if made is not None:
                    out.append(Probe(agent, made[0], knows, made[1], kinds[index % 3], fact.record_id))
    rng.shuffle(knowns)
    rng.shuffle(unknowns)
    half = (count + 1) // 2
    return _unique(knowns)[:half] + _unique(unknowns)[:count - min(half, len(knowns))]


def _unique(probes: list[Probe]) -> list[Probe]:
    seen: set[tuple[str, str]] = set()
    out = []
    for probe in probes:
        if (probe.agent, probe.question) not in seen:
            seen.add((probe.agent, probe.question))
            out.append(probe)
    return out


def from_key(key: Key, names: Names) -> list[Probe]:
    """The key's [[question]] entries as probes."""
    return [Probe(names.resolve(q.agent) or q.agent, q.question, q.knows, q.answer, "key") for q in key.question]


def refuses(text: str) -> bool:
    """Whether an answer refuses to say."""
    folded = " ".join(tokens(text))
    return any(" ".join(tokens(p)) in folded for p in REFUSAL_PHRASES)


def score(probes: Sequence[Probe], ask: Callable[[str, str], str], *, examples: int = 3) -> dict[str, Any]:
    """Ask every probe; accuracy on knowns, "I do not know" on unknowns, false knowledge (see bench knows --help)."""
    tally: Counter = Counter()
    kinds: dict[str, Counter] = defaultdict(Counter)
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


def figures(tally: Counter, kinds: dict[str, Counter], shown: dict[str, list[str]]) -> dict[str, Any]:
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
