"""Whether what the characters said was true to what they knew: the truth figures of `bench play` (DESIGN §4.2a).

Each line a character spoke is judged against the store at the end of the run, read as it stood
when the line was said (a holding counts from its `since_round`): grounded (its content words are
in what the speaker held or in the line it answered), invented names, parroting, canon leaked
before its time, repeats; and, over the store, what talk shared and what listeners came to believe
that nothing supports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from memory.records import normalise_text
from storyworld.kernel import ids
from storyworld.kernel.state import SimEvent
from storyworld.minds import content, lines, render
from storyworld.world import World

GROUNDED_SHARE = 0.7  # of a line's content words in the speaker's knowledge or the line it answers
LEAK_WORDS = 2  # content words a line shares with a canon event to come, that the speaker could not know
RELEVANT = 0.3  # MiniLM cosine at which a record is about a question
# The stock lines minds spoke before speech came from memory: none of them may come back.
STOCK_LINES = frozenset(normalise_text(t) for t in (
    "I hear you, and I will think on what you say.", "that is a hard thing to answer, but I will not forget it.",
    "I have heard you; give me a moment to weigh it.", "you are welcome here.", "well met, and welcome.",
    "there is something I must tell you, and it will not wait.", "listen to me a moment; this matters.",
    "we must speak plainly now."))
FIRST_HAND = frozenset({"witnessed", "sediment", "authored"})

Cosine = Callable[[list[tuple[str, str]]], list[float]]


class _Knowing:
    """What each agent held at each round, read back from the final store by holding age."""

    def __init__(self, store: Any, world: World) -> None:
        self.store = store
        self.world = world
        self._held: dict[str, list[tuple[int, set[str], Any]]] = {}

    def held(self, agent: str) -> list[tuple[int, set[str], Any]]:
        if agent not in self._held:
            self._held[agent] = [(r.owners[agent].since_round, content.keys(r.text), r) for r in self.store.held_by(agent)]
        return self._held[agent]

    def keys(self, agent: str, round_: int) -> set[str]:
        """Content-word keys of every record the agent held by `round_`."""
        out: set[str] = set()
        for since, words, _ in self.held(agent):
            if since < round_:  # a line is decided against what was held when the round began
                out |= words
        return out

    def records(self, agent: str, round_: int) -> list[Any]:
        return [r for since, _, r in self.held(agent) if since < round_]


def _answered(events: list[SimEvent], index: int) -> SimEvent | None:
    """The line an agent's line answers: the latest one spoken to it, this round or the last."""
    line = events[index]
    for prior in reversed(events[:index]):
        if prior.round < line.round - 1:
            break
        if prior.kind == "say" and prior.to == line.actor and prior.actor != line.actor:
            return prior
    return None


def score(world: World, events: list[SimEvent], store: Any, *, player: str | None, start_round: int,
          cosine: Cosine | None = None) -> dict[str, object]:
    """The truth figures of one run (see `storyworld bench play --help`)."""
    knowing = _Knowing(store, world)
    people = render.person_names(world)
    world_words = {w.lower() for n in people for w in re.findall(r"[\w']+", n)}
    thing_names = [p.name for p in world.places.values()] + [o.name for o in world.objects.values()]
    world_words |= {w.lower() for name in thing_names for w in re.findall(r"[\w']+", name)}
    future = [e for e in world.events if e.round >= start_round]
    # a character knows the places and things of its world by name
    geography = content.keys(" ".join([*(p.name for p in world.places.values()), *(o.name for o in world.objects.values())]))
    said_before: dict[str, list[str]] = {}
    counts = dict(lines=0, clean=0, grounded=0, invented=0, parrot=0, leaks=0, repeats=0, rendered=0, stock=0)
    examples: dict[str, list[str]] = {"unclean": [], "leaks": [], "invented": []}
    for index, event in enumerate(events):
        if event.kind != "say" or event.actor == player or not event.claim:
            continue
        text = event.claim
        counts["lines"] += 1
        counts["rendered"] += int(event.rendered)
        answered = _answered(events, index)
        heard = answered.claim or "" if answered is not None else ""
        here = {w for a in (*event.witnesses, event.to or "") if a in world.agents
                for w in content.keys(world.agents[a].name)}
        known = knowing.keys(event.actor, event.round) | content.keys(heard) | here | geography
        said = content.line_keys(text)
        grounded = not said or len(said & known) >= GROUNDED_SHARE * len(said)
        invented = [w for w in lines.proper_words(text) if w.lower() not in world_words and not content.keys(w) <= known]
        # what others said within the speaker's hearing, this round (before it) or the last
        others = [e.claim or "" for e in events[max(0, index - 400):index]
                  if e.kind == "say" and e.actor != event.actor and e.round >= event.round - 1
                  and event.actor in e.witnesses]
        parrot = lines.parrots(text, others)
        met = {e.id for e in events[:index]}
        leak = any(len((said & content.keys(f.text)) - known) >= LEAK_WORDS and f.round >= event.round - 0
                   for f in future if f.id not in met)
        earlier = said_before.setdefault(event.actor, [])
        repeat = any(lines.similarity(text, old) >= 0.7 for old in earlier)
        earlier.append(text)
        stock = normalise_text(re.sub(r"^[^,]+,\s*", "", text)) in STOCK_LINES
        degenerate = lines.degenerate(text, names=people)
        clean = grounded and not invented and not parrot and not leak and not repeat and not stock \
            and not degenerate and not event.fallback
        counts["clean"] += clean
        counts["grounded"] += grounded
        counts["invented"] += bool(invented)
        counts["parrot"] += parrot
        counts["leaks"] += leak
        counts["repeats"] += repeat
        counts["stock"] += stock
        if not clean and len(examples["unclean"]) < 6:
            why = [w for w, bad in (("ungrounded", not grounded), ("invented", invented), ("parrot", parrot),
                                    ("leak", leak), ("repeat", repeat), ("stock", stock), ("degenerate", degenerate))
                   if bad]
            examples["unclean"].append(f"r{event.round} {event.actor}: {text} [{', '.join(why)}]")
        if leak and len(examples["leaks"]) < 4:
            examples["leaks"].append(f"r{event.round} {event.actor}: {text}")
        if invented and len(examples["invented"]) < 4:
            examples["invented"].append(f"r{event.round} {event.actor}: {text} ({', '.join(invented)})")
    n = counts["lines"]
    rate = lambda k, d=n: round(k / d, 4) if d else 0.0  # noqa: E731
    informative, questions = _informative(world, events, knowing, cosine)
    out: dict[str, object] = {
        "lines": n,
        "clean_rate": rate(counts["clean"]),
        "grounded_rate": rate(counts["grounded"]),
        "invented_name_rate": rate(counts["invented"]),
        "parrot_rate": rate(counts["parrot"]),
        "future_leaks": counts["leaks"],
        "stock_lines": counts["stock"],
        "questions_answered": questions,
        "informative_answer_rate": rate(informative, questions),
        "floor_rate": rate(counts["rendered"]),
    }
    out |= talk_figures(store, events, start_round=start_round, carriers=frozenset(world.objects))
    out["unclean_examples"] = examples["unclean"]
    out["leak_examples"] = examples["leaks"]
    out["invented_examples"] = examples["invented"]
    return out


def _informative(world: World, events: list[SimEvent], knowing: _Knowing, cosine: Cosine | None) -> tuple[int, int]:
    """(informative answers, questions answered): a question answered with a holding about it, or an honest
    "I do not know" / refusal by someone who held nothing about it."""
    answered = informative = 0
    for index, event in enumerate(events):
        if event.kind != "say" or not event.to or not event.claim or not content.is_question(event.claim):
            continue
        # the reply is decided after the question was heard: a line of the same round crossed it
        reply = next((e for e in events[index + 1:] if e.kind == "say" and e.actor == event.to
                      and e.to == event.actor and event.round < e.round <= event.round + 2), None)
        if reply is None or reply.act is None or reply.act == "free":
            continue
        answered += 1
        # the question as the one asked holds it ("my father" asked by Wren is Wren's father), without the two names
        asked = content.asked_keys(world, event.claim, event.actor, event.to)
        if not asked and reply.tells:
            informative += 1  # "What news?" answered with news: any holding told is about it
        elif reply.tells:
            told = [store_text(knowing, r) for r in reply.tells]
            if any(asked & content.keys(t) for t in told) or (cosine is not None and told and
                                                                max(cosine([(event.claim, t) for t in told])) >= RELEVANT):
                informative += 1
        elif reply.act in ("unknown", "refuse"):
            # what it holds as fact: the memory of a line spoken ("Ada tells Maren: …") is not, what it told is
            held = [r for r in knowing.records(reply.actor, reply.round) if r.kind != "utterance"]
            about = {r.id: r for r in held if len(asked & content.keys(r.text)) >= 2}
            if cosine is not None and held:
                near = cosine([(event.claim, r.text) for r in held])
                about |= {r.id: r for r, c in zip(held, near) if c >= RELEVANT + 0.1}
            # honest: it held nothing about it, or the asker already held all it did ("I have told you all I know")
            asker_has = {r.id for r in knowing.records(event.actor, reply.round + 1)}
            if reply.act == "refuse" or not about or set(about) <= asker_has:
                informative += 1
    return informative, answered


def store_text(knowing: _Knowing, record_id: int) -> str:
    """A record's text, or "" when it is gone."""
    try:
        return knowing.store.get(record_id).text
    except KeyError:
        return ""


def talk_figures(store: Any, events: list[SimEvent], *, start_round: int,
                 carriers: frozenset[str] = frozenset()) -> dict[str, int]:
    """What talk did to the store: records that gained an owner through talk, and beliefs nothing supports.

    A belief is supported when someone holds its record first-hand (saw it, or it is canon), it was read
    from a carrier, or it is a lie the run knows of (its claim can be exposed). Anything else a listener
    believes was made up by talk.
    """
    lies = {ids.claim_of(e.id).text for e in events if e.kind == "say" and e.act == "lie"}
    shared = unsupported = 0
    for record in store.records():
        told = [(o, h) for o, h in record.owners.items() if h.via == "told" and h.since_round >= start_round
                and h.source in record.owners and h.source != o]
        if told:
            shared += 1
        supported = record.sediment or any(h.via in FIRST_HAND for h in record.owners.values()) or any(
            h.via == "read" and h.source in carriers for h in record.owners.values()) or record.event_id in lies
        if supported:
            continue
        unsupported += sum(1 for h in record.owners.values()
                           if h.via in ("told", "read") and h.status == "believed")
    return {"talk_shared": shared, "hallucinated_beliefs": unsupported}
