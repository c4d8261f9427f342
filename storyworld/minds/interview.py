"""Interviews: ask a character a question and it answers out of its own memory, with where it learned it.

The same answer path a character takes in play (content.gather, content.choose with purpose
"answer", render.floor), run against a store outside a round — for `storyworld ask`, the
inspector's Ask box and `bench knows`, as Generative Agents' interviews are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from storyworld.kernel.actions import Say
from storyworld.kernel.perception import Perception
from storyworld.kernel.state import ShortTerm, ThreadLine
from storyworld.llm.base import LanguageModel, tagged
from storyworld.minds import content, render, words
from storyworld.minds.context import DecisionContext
from storyworld.world import World

if TYPE_CHECKING:
    from memory.records import RecallHit, Record

INTERVIEWER = "interviewer"  # who asks, when it is nobody in the world


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """A character's answer: the speech act, its words, the holdings it rests on and how each was learned."""

    agent: str
    question: str
    act: str
    text: str
    records: tuple[content.Known, ...] = ()
    provenance: tuple[str, ...] = ()  # one line per record: "witnessed r12, The great hall", "told by Horatio r14"
    rested_on: tuple[int, ...] = ()  # what the conversation is about after this answer (a follow-up points back to it)
    rendered: bool = True  # the deterministic floor; False when the model's phrasing passed the check


def how(world: World, known: content.Known) -> str:
    """How the agent came to hold a record, in a few words."""
    source = world.name_of(known.source) if known.source else ""
    match known.via:
        case "told":
            return f"told by {source} r{known.since_round}" if source else f"told r{known.since_round}"
        case "read":
            return f"read in {source} r{known.since_round}" if source else f"read r{known.since_round}"
        case "sediment":
            return f"remembered from round {known.round}" + (f", heard from {source}" if source else "")
        case "inferred":
            return f"inferred r{known.since_round}"
    return f"{known.via} r{known.since_round}"


def answerable(world: World, record: Record, owner: str) -> bool:
    """Whether the answer path may carry this holding at all (believed or doubted, shared, a spoken kind, not a
    line said in play): what `bench knows` may ask a character about."""
    return content._usable(world, record, owner)


class AsOf:
    """A store read as it stood at a round: a holding the owner came by later is not yet held."""

    def __init__(self, store: content.Memory, round_: int) -> None:
        self.store = store
        self.round = round_
        self.embedder = store.embedder

    def _held(self, record: Record, owner: str) -> bool:
        holding = record.owners.get(owner)
        return holding is not None and holding.since_round <= self.round

    def recall(self, owner: str, query: str, k: int | None = None, **options: bool) -> list[RecallHit]:
        """The store's recall, without what the owner learned after the round (asked wider, so k still fill)."""
        wanted = k if k is not None else content.RECALL_K
        hits = self.store.recall(owner, query, k=wanted * 4, **options)
        return [h for h in hits if self._held(h.record, owner)][:wanted]

    def held_by(self, owner: str) -> list[Record]:
        """The records the owner held by the round."""
        return [r for r in self.store.held_by(owner) if self._held(r, owner)]


def interview(world: World, store: content.Memory, agent: str, question: str, *, round_: int,
              asker: str | None = None, candid: bool = False, before: str = "", previous: Answer | None = None,
              lm: LanguageModel | None = None, seed: int = 0, mechanical: frozenset[str] = frozenset()) -> Answer:
    """What `agent` answers to `question` from what it holds by `round_` (asked by `asker`, else an interviewer).

    `candid`: it keeps nothing to itself (an author's interview of memory, not a scene); else it answers in
    character, refusing what it keeps secret. `before`: the line the two exchanged last, which a follow-up's
    "it" or "that" points back to ("Who told you that?"); `previous`: the answer before this one in the same
    conversation (its words are `before`, and what it rested on is what "Who told you?" and "When?" ask after).
    `lm`: the model phrases the answer as in play, kept only if the check passes it (else the floor is said).
    `mechanical`: the store keys of the run's moves and looks (`ids.mechanical_keys`), an answer only to "where".
    """
    if previous is not None:
        before = before or previous.text
        earlier = tuple(k.record_id for k in previous.records) or previous.rested_on
    else:
        earlier = ()
    speaker = asker if asker in world.agents else INTERVIEWER
    addressed = ThreadLine(round=round_, speaker=speaker, text=question, event_id="interview", to=agent)
    knowledge = content.gather(world, store, agent, round_=round_, present=(), addressed=addressed, beat_text="",
                               moment_query="", before=before, previous=earlier, mechanical=mechanical)
    if candid:
        knowledge = msgspec.structs.replace(knowledge, secrets={})
    speech = content.choose(world, agent, "answer", Say(actor=agent, text="", to=asker), knowledge,
                            addressed=addressed)
    if speech is None:  # a remark it has nothing to say back to
        speech = content.Speech(act="unknown", to=asker)
    text = render.floor(world, speech, agent, now=round_)
    rendered = True
    if lm is not None and text:
        text, rendered = _phrased(world, lm, agent, addressed, knowledge, speech, text, seed)
    rested = tuple(k.record_id for k in speech.carries) or earlier  # a follow-up keeps the conversation's subject
    return Answer(agent=agent, question=question, act=speech.act, text=text, records=speech.carries,
                  provenance=tuple(how(world, k) for k in speech.carries), rested_on=rested, rendered=rendered)


def _phrased(world: World, lm: LanguageModel, agent: str, addressed: ThreadLine, knowledge: content.Knowledge,
             speech: content.Speech, floor: str, seed: int) -> tuple[str, bool]:
    """The model's phrasing of the floor under the same check as a line in play (no place, no one else present)."""
    present = (addressed.speaker,) if addressed.speaker in world.agents else ()
    perception = Perception(agent=agent, round=addressed.round, place="", place_name="", place_description="",
                            present=present, exits=(), objects_here=(), objects_held=(), recent_talk=(addressed,))
    context = DecisionContext(agent=agent, perception=perception, shortterm=ShortTerm(), recalled=(), seed=seed,
                              addressed_by=addressed, knowledge=knowledge, replying=True)
    with tagged("line", agent):
        text, rendered, _, _ = words.write(lm, world, context, speech, floor)
    return text, rendered
