"""Whether what the characters said was true to what they knew: the truth figures of `bench play` (DESIGN §4.2a).

Each line a character spoke is judged against the store at the end of the run, read as it stood
when the line was said (a holding counts from its `since_round`): grounded (its content words are
in what the speaker held or in the line it answered), invented names, parroting, canon leaked
before its time, repeats; and, over the store, what talk shared and what listeners came to believe
that nothing supports. Words are read with the scorer's own tokenizer and stopwords (`report.tokens`),
never the speech gate's, and each figure is printed with the template share of the lines it counts:
a figure that only templates reach says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from storyworld.kernel import ids
from storyworld.kernel.state import SimEvent
from storyworld.report.playquality import degenerate, overlap
from storyworld.report.tokens import STOPWORDS, Names, content_words, fold, is_question, says_unknown, stem, tokens
from storyworld.world import World

if TYPE_CHECKING:
    from memory.records import Record
    from memory.store import MemoryStore
    from storyworld.world.schema import Event

GROUNDED_SHARE = 0.7  # of a line's content words in the speaker's knowledge or the line it answers
LEAK_WORDS = 2  # content words a line shares with a canon event to come, that the speaker could not know
RELEVANT = 0.3  # MiniLM cosine at which a record is about a question
REPEAT = 0.7  # word overlap with the speaker's own earlier line that makes a repeat
PARROT = 0.5  # share of a line's word trigrams heard from others that makes a parrot
# The stock lines minds spoke before speech came from memory: none of them may come back.
STOCK_LINES = frozenset(" ".join(tokens(t)) for t in (
    "I hear you, and I will think on what you say.", "that is a hard thing to answer, but I will not forget it.",
    "I have heard you; give me a moment to weigh it.", "you are welcome here.", "well met, and welcome.",
    "there is something I must tell you, and it will not wait.", "listen to me a moment; this matters.",
    "we must speak plainly now."))
FIRST_HAND = frozenset({"witnessed", "sediment", "authored"})

Cosine = Callable[[list[tuple[str, str]]], list[float]]


class _Knowing:
    """What each agent held at each round, read back from the final store by holding age."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._held: dict[str, list[tuple[int, set[str], Record]]] = {}

    def held(self, agent: str) -> list[tuple[int, set[str], Record]]:
        if agent not in self._held:
            self._held[agent] = [(r.owners[agent].since_round, content_words(r.text), r)
                                 for r in self.store.records() if agent in r.owners]
        return self._held[agent]

    def words(self, agent: str, round_: int) -> set[str]:
        """Content words of every record the agent held by `round_`."""
        out: set[str] = set()
        for since, words, _ in self.held(agent):
            if since < round_:  # a line is decided against what was held when the round began
                out |= words
        return out

    def records(self, agent: str, round_: int) -> list[Record]:
        return [r for since, _, r in self.held(agent) if since < round_]


def trigrams(text: str) -> set[tuple[str, ...]]:
    """A line's word trigrams."""
    words = tokens(text)
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}


def parrots(text: str, heard: list[str]) -> bool:
    """Half or more of a line's trigrams were said by others in its speaker's hearing."""
    mine = trigrams(text)
    if not mine:
        return False
    theirs = set().union(*(trigrams(h) for h in heard)) if heard else set()
    return len(mine & theirs) >= PARROT * len(mine)


_PROPER = re.compile(r"(?<![.!?:;\"]\s)(?<!^)\b([A-Z][a-z'\u2019]+)")


def proper_words(text: str) -> list[str]:
    """Capitalised words that do not open a sentence, and are no stopword ("I", "The" after a comma)."""
    return [w for w in _PROPER.findall(text.strip()) if fold(w) not in STOPWORDS]


def _answered(events: list[SimEvent], index: int) -> SimEvent | None:
    """The line an agent's line answers: the latest one spoken to it, this round or the last."""
    line = events[index]
    for prior in reversed(events[:index]):
        if prior.round < line.round - 1:
            break
        if prior.kind == "say" and prior.to == line.actor and prior.actor != line.actor:
            return prior
    return None


@dataclass(frozen=True)
class _Line:
    """One character line's verdicts."""

    event: SimEvent
    ungrounded: bool
    invented: list[str]
    parrot: bool
    leak: bool
    repeat: bool
    stock: bool
    degenerate: bool
    fallback: bool

    def why(self) -> list[str]:
        verdicts = {"ungrounded": self.ungrounded, "invented": self.invented, "parrot": self.parrot, "leak": self.leak,
                    "repeat": self.repeat, "stock": self.stock, "degenerate": self.degenerate,
                    "fallback": self.fallback}
        return [k for k, bad in verdicts.items() if bad]


def _judge(world: World, events: list[SimEvent], index: int, knowing: _Knowing, names: Names,
           said_before: dict[str, list[str]], future: list[Event]) -> _Line:
    """Every verdict on one line."""
    event = events[index]
    text = event.claim or ""
    answered = _answered(events, index)
    here = {w for a in (*event.witnesses, event.to or "") for w in names.words_of(a)}
    known = knowing.words(event.actor, event.round) | content_words(answered.claim or "" if answered else "") \
        | here | names.geography
    said = content_words(text)
    # a question asserts nothing: only statements are held to what the speaker knew
    grounded = not said or is_question(text) or len(said & known) >= GROUNDED_SHARE * len(said)
    invented = [w for w in proper_words(text) if stem(fold(w)) not in names.all_words and stem(fold(w)) not in known]
    heard = [e.claim or "" for e in events[max(0, index - 400):index]
             if e.kind == "say" and e.actor != event.actor and e.round >= event.round - 1 and event.actor in e.witnesses]
    met = {e.beat for e in events[:index] if e.beat} | {e.id for e in events[:index]}
    leak = any(len((said & content_words(f.text)) - known) >= LEAK_WORDS for f in future
               if f.id not in met and f.round >= event.round)
    earlier = said_before.setdefault(event.actor, [])
    repeat = any(overlap(text, old) >= REPEAT for old in earlier)
    earlier.append(text)
    stock = " ".join(tokens(re.sub(r"^[^,]+,\s*", "", text))) in STOCK_LINES
    return _Line(event, ungrounded=not grounded, invented=invented, parrot=parrots(text, heard), leak=leak,
                 repeat=repeat, stock=stock, degenerate=degenerate(text, names), fallback=event.fallback)


def score(world: World, events: list[SimEvent], store: MemoryStore, *, player: str | None, start_round: int,
          cosine: Cosine | None = None) -> dict[str, object]:
    """The truth figures of one run (see `storyworld bench play --help`)."""
    knowing = _Knowing(store)
    names = Names(world)
    future = [e for e in world.events if e.round >= start_round]
    said_before: dict[str, list[str]] = {}
    judged = [_judge(world, events, i, knowing, names, said_before, future) for i, e in enumerate(events)
              if e.kind == "say" and e.actor != player and e.claim]
    picked = {
        "clean": [j for j in judged if not j.why()],
        "grounded": [j for j in judged if not j.ungrounded],
        "invented": [j for j in judged if j.invented],
        "parrot": [j for j in judged if j.parrot],
        "leaks": [j for j in judged if j.leak],
        "repeats": [j for j in judged if j.repeat],
        "stock": [j for j in judged if j.stock],
    }
    n = len(judged)
    def rate(k: int, d: int = n) -> float:
        return round(k / d, 4) if d else 0.0
    informative, questions, answers = _informative(world, events, knowing, names, cosine)
    out: dict[str, object] = {
        "lines": n, "template_share": _share(judged),
        "clean_rate": rate(len(picked["clean"])), "clean_template_share": _share(picked["clean"]),
        "grounded_rate": rate(len(picked["grounded"])), "grounded_template_share": _share(picked["grounded"]),
        "invented_name_rate": rate(len(picked["invented"])), "invented_template_share": _share(picked["invented"]),
        "parrot_rate": rate(len(picked["parrot"])), "parrot_template_share": _share(picked["parrot"]),
        "future_leaks": len(picked["leaks"]), "leaks_template_share": _share(picked["leaks"]),
        "stock_lines": len(picked["stock"]),
        "questions_answered": questions,
        "informative_answer_rate": rate(len(informative), questions),
        "informative_template_share": _share(informative),
        "answers_template_share": _share(answers),
        "floor_rate": rate(sum(1 for j in judged if j.event.rendered)),
    }
    out |= talk_figures(store, events, start_round=start_round, carriers=frozenset(world.objects))
    out["unclean_examples"] = [f"r{j.event.round} {j.event.actor}: {j.event.claim} [{', '.join(j.why())}]"
                               for j in judged if j.why()][:6]
    out["leak_examples"] = [f"r{j.event.round} {j.event.actor}: {j.event.claim}" for j in picked["leaks"][:4]]
    out["invented_examples"] = [f"r{j.event.round} {j.event.actor}: {j.event.claim} "
                                f"({', '.join(j.invented)})" for j in picked["invented"][:4]]
    return out


def _share(lines: list[_Line] | list[SimEvent]) -> float | None:
    """Of these lines, the share spoken as the deterministic rendering (the floor)."""
    events = [x.event if isinstance(x, _Line) else x for x in lines]
    return round(sum(1 for e in events if e.rendered) / len(events), 4) if events else None


def _unaddressed(line: str, addressee: frozenset[str]) -> str:
    """A line without the addressee's name it opens with ("Ophelia, do you know …" -> "do you know …")."""
    head, comma, rest = line.partition(",")
    words = [stem(w) for w in tokens(head) if w not in STOPWORDS]
    if comma and words and all(w in addressee for w in words):
        return rest.strip()
    return line


def _informative(world: World, events: list[SimEvent], knowing: _Knowing, names: Names,
                 cosine: Cosine | None) -> tuple[list[SimEvent], int, list[SimEvent]]:
    """(informative answers, questions answered, the answers): a question answered with a holding about it, or an
    honest "I do not know" / refusal by someone who held nothing about it."""
    informative: list[SimEvent] = []
    answers: list[SimEvent] = []
    for index, event in enumerate(events):
        if event.kind != "say" or not event.to or not event.claim or not is_question(event.claim):
            continue
        # the reply: the one asked, to the asker, after the question (later this round, or within two rounds)
        reply = next((e for e in events[index + 1:] if e.kind == "say" and e.actor == event.to
                      and e.to == event.actor and event.round <= e.round <= event.round + 2), None)
        if reply is None or reply.act is None or reply.act == "free":
            continue
        answers.append(reply)
        # what the question asks, without the names of the two who speak (nor, for nearness, its vocative:
        # "Ophelia, how does Laertes live?" is not about Ophelia)
        asked = content_words(event.claim, names.words_of(event.actor) | names.words_of(event.to))
        bare = _unaddressed(event.claim, names.words_of(event.to))
        told = [_text(knowing, r) for r in reply.tells]
        if reply.tells and not asked:
            informative.append(reply)  # "What news?" answered with news: any holding told is about it
        elif reply.tells:
            near = cosine([(bare, t) for t in told]) if cosine is not None and told else [0.0]
            if any(asked & content_words(t) for t in told) or max(near) >= RELEVANT:
                informative.append(reply)
        elif reply.act in ("unknown", "refuse") or says_unknown(reply.claim or ""):
            # what it holds as fact: the memory of a line spoken ("Ada tells Maren: …") is not, what it told is
            held = [r for r in knowing.records(reply.actor, reply.round) if r.kind != "utterance"]
            about = {r.id for r in held if len(asked & content_words(r.text)) >= 2}
            if cosine is not None and held:
                close = cosine([(bare, r.text) for r in held])
                about |= {r.id for r, c in zip(held, close) if c >= RELEVANT + 0.1}
            # honest: it held nothing about it, or the asker already held all it did ("I have told you all I know")
            asker_has = {r.id for r in knowing.records(event.actor, reply.round + 1)}
            if reply.act == "refuse" or not about or about <= asker_has:
                informative.append(reply)
    return informative, len(answers), answers


def _text(knowing: _Knowing, record_id: int) -> str:
    """A record's text, or "" when it is gone."""
    try:
        return knowing.store.get(record_id).text
    except KeyError:
        return ""


def talk_figures(store: MemoryStore, events: list[SimEvent], *, start_round: int,
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
