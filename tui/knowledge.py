"""The side panel's knowledge: what the player's character knows and how, one card per record.

A line heard is one card (what was said, by whom, to whom, who else heard it, and what it told);
the player's own words and deeds are held as a witness holds them; a dispute between owners reads
as words. Cards for what changed this round come first and are marked `fresh`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from storyworld.kernel.perception import present_at

if TYPE_CHECKING:
    from storyworld.game.simulation import Simulation
    from storyworld.kernel.state import SimEvent

LIMIT = 10  # cards on the panel at once
QUOTE_CELLS = 200  # a statement quoted in a dispute is cut to this


@dataclass(frozen=True)
class KnowledgeCard:
    """One record as the player's character knows it."""

    id: int
    kind: str  # line (heard) | own (the player's words or deeds) | deed (seen) | fact (known) | word (of a passed beat)
    round: int
    text: str  # what is known, in words: 'Marcellus, to you: "..."', 'You said: "..."', or the statement
    how: str  # how the character knows it: "you heard it", "told by Marcellus", "from the story so far"
    when: str  # "r3, the great hall"
    confidence: float
    holders_label: str  # what the badges below mean: "heard it", "saw it", "know it"
    owners: tuple[tuple[str, str], ...]  # (agent id, name) of everyone holding the record, the player included
    learned: tuple[tuple[int, str], ...] = ()  # what a line told the character: (record id, statement)
    disputes: tuple[str, ...] = ()  # owners who hold the opposite, in words
    marks: tuple[str, ...] = ()  # the character's own holding: disputed, doubted, retracted, contaminated
    joined: tuple[str, ...] = ()  # names of those who came to hold it this round (besides the character)
    fresh: bool = False  # the character's knowledge of it changed this round
    reason: str = ""  # why it is shown when not fresh: "recall", "recall: <query>"


def _names(names: list[str], limit: int = 3) -> str:
    """'Gertrude', 'Claudius and Gertrude', 'Claudius, Gertrude and 5 others'."""
    if len(names) <= 1:
        return "".join(names)
    if len(names) <= limit:
        return ", ".join(names[:-1]) + " and " + names[-1]
    rest = len(names) - limit + 1
    return ", ".join(names[: limit - 1]) + f" and {rest} others"


def _quote(text: str) -> str:
    from tui.cells import fit

    return f"“{fit(text.strip().rstrip('.'), QUOTE_CELLS)}”"


def dispute_words(world: Any, store: Any, record: Any, player: str) -> tuple[str, ...]:
    """Each cross-owner dispute of a record as a sentence: who believes this, who says the opposite."""
    from memory.disputes import describe

    def side(owners: list[str]) -> tuple[str, bool]:
        names = ["you" if o == player else world.name_of(o) for o in owners]
        names.sort(key=lambda n: n != "you")
        plural = len(names) > 1 or names == ["you"]
        return _names(names), plural

    out = []
    for row in describe(store, record.id, name=world.name_of):
        mine = sorted(o for o in record.owners if o not in row["owners"])
        theirs = list(row["owners"])
        if not mine or not theirs:
            continue
        (who, many), (others, others_many) = side(mine), side(theirs)
        sentence = (f"{who} {'believe' if many else 'believes'} {_quote(record.text)}; "
                    f"{others} {'say' if others_many else 'says'} {_quote(row['text'])}")
        out.append(sentence[:1].upper() + sentence[1:])
    return tuple(out)


def _when(world: Any, record: Any, holding: Any) -> str:
    place = world.name_of(holding.place or record.place)
    return f"r{holding.since_round}" + (f", {place}" if place else "")


def knowledge_card(sim: Simulation, record: Any, player: str, *, events: dict[str, SimEvent],
                   since_round: int | None = None, reason: str = "") -> KnowledgeCard:
    """One record as the player's character knows it (the character must hold it)."""
    from memory.trust import BASE_CONFIDENCE

    world = sim.world
    holding = record.owners[player]
    event = events.get(record.event_id or "")
    owners = tuple((a, world.name_of(a)) for a in sorted(record.owners, key=lambda a: (a != player, a)))
    marks = tuple(m for m in (holding.status,) if m in ("disputed", "doubted", "retracted"))
    if "contaminated" in holding.flags:
        marks += ("contaminated",)
    confidence = float(holding.confidence)
    learned: tuple[tuple[int, str], ...] = ()
    kind, label = "fact", "know it"
    text = record.text
    if event is not None and event.kind == "say" and record.kind == "utterance":
        said = (event.claim or event.text).strip()
        if event.actor == player:
            to = f" to {world.name_of(event.to)}" if event.to else ""
            kind, label, how = "own", "heard it", "your own words"
            text = f"You said{to}: “{said}”"
        else:
            to = " to you" if event.to == player else (f" to {world.name_of(event.to)}" if event.to else "")
            kind, label = "line", "heard it"
            how = "you caught up on it" if holding.via == "read" else "you heard it"
            text = f"{world.name_of(event.actor)}{to}: “{said}”"
        # only what the line taught: a record the character held before it is no lesson (and has its own card)
        learned = tuple((rid, rec.text) for rid in event.tells
                        if (rec := _get(sim.store, rid)) is not None and player in rec.owners
                        and rec.owners[player].since_round >= event.round)
    elif event is not None and event.actor == player:
        kind, label, how = "own", "saw it", "you did it"
    elif holding.via == "witnessed":
        kind, label, how = "deed", "saw it", "you saw it"
    elif holding.via == "told":
        if holding.source:
            how = f"told by {world.name_of(holding.source)}"
        else:
            kind, how = "word", "word reached you"
    elif holding.via == "read":
        how = f"read in {world.name_of(holding.source) or 'a text'}"
    elif holding.via == "sediment":
        how = "you know it from before" if holding.source in (None, player) else (
            f"{world.name_of(holding.source)} said it, before")
    elif holding.via == "inferred":
        own_lie = record.kind == "claim" and event is None and _told_by(record, player)
        kind, how = ("own", "your own words (not the truth)") if own_lie else ("fact", "you worked it out")
    else:
        how = holding.via
    if kind == "own":
        # what you said or did you know as a witness does, whatever the store's holding is called
        witnessed = [float(h.confidence) for h in record.owners.values() if h.via == "witnessed"]
        confidence = max([confidence, *witnessed, BASE_CONFIDENCE["witnessed"]])
    joined: tuple[str, ...] = ()
    if since_round is not None:
        joined = tuple(world.name_of(a) for a, h in sorted(record.owners.items())
                       if a != player and h.since_round >= since_round)
    fresh = since_round is not None and (holding.since_round >= since_round or bool(joined))
    return KnowledgeCard(
        id=record.id, kind=kind, round=record.round, text=text, how=how, when=_when(world, record, holding),
        confidence=round(confidence, 2), holders_label=label, owners=owners, learned=learned,
        disputes=dispute_words(world, sim.store, record, player), marks=marks,
        joined=joined if holding.since_round < (since_round or 0) else (), fresh=fresh,
        reason="" if fresh else reason,
    )


def _get(store: Any, record_id: int) -> Any:
    try:
        return store.get(record_id)
    except KeyError:
        return None


def _told_by(record: Any, player: str) -> bool:
    """Whether a claim is one the player told as a lie (they hold it as their own words)."""
    return any(h.via == "told" and h.source == player for a, h in record.owners.items() if a != player)


def _mechanical(record: Any, events: dict[str, SimEvent]) -> bool:
    """Walking and looking around are on the screen already (Cast, Map, the transcript): not knowledge cards."""
    if record.kind == "observation":
        return True
    event = events.get(record.event_id or "")
    return event is not None and event.kind in ("move", "observe", "wait", "read")


def knowledge(sim: Simulation, player: str, since_round: int | None, *, recall_k: int = 4,
              limit: int = LIMIT) -> tuple[KnowledgeCard, ...]:
    """What changed in the character's knowledge this round (first, marked), then what bears on the moment."""
    events = {e.id: e for e in sim.state.events}
    store = sim.store
    cards: list[KnowledgeCard] = []
    shown: set[int] = set()
    said: set[str] = set()  # a line said twice is one card (the newest), not the same words twice

    def add(record: Any, reason: str = "") -> None:
        if record.id in shown:
            return
        card = knowledge_card(sim, record, player, events=events, since_round=since_round, reason=reason)
        if card.text in said:
            return
        if any(rid in shown or text in said for rid, text in card.learned):
            # a statement on a card of its own already is not repeated under the line that carried it
            card = replace(card, learned=tuple((rid, text) for rid, text in card.learned
                                               if rid not in shown and text not in said))
        cards.append(card)
        said.add(card.text)
        shown.add(card.id)
        shown.update(rid for rid, _ in card.learned)  # what a line told is part of the line's card
        said.update(text for _, text in card.learned)

    if since_round is not None:
        fresh = [r for r in store.held_by(player) if not _mechanical(r, events)
                 and any(h.since_round >= since_round for h in r.owners.values())]
        # lines and deeds in the order they happened, then what was learned from them and the rest
        fresh.sort(key=lambda r: (_order(r, events), r.event_id or "", r.id))
        told_now = {rid for r in fresh if (e := events.get(r.event_id or "")) is not None for rid in e.tells}
        for record in fresh:
            if record.id not in told_now:
                add(record)
        for record in fresh:
            if len(cards) >= limit:
                break
            add(record)
    query = context_query(sim, player)
    if query and len(cards) < limit:
        for hit in store.recall(player, query, k=recall_k + 2):
            if len(cards) >= limit:
                break
            record = hit.record
            if record.id in shown or player not in record.owners or _mechanical(record, events):
                continue
            add(record, reason="recall")
    return tuple(cards[:limit])


def _order(record: Any, events: dict[str, SimEvent]) -> int:
    """Lines and deeds of the round first (in event order), then facts learned, then the rest."""
    event = events.get(record.event_id or "")
    if event is not None and record.kind in ("utterance", "event"):
        return 0
    return {"claim": 1, "event": 2}.get(record.kind, 3)


RECALL_SHOWN = 6  # cards a /recall shows at most
RECALL_FLOOR = 0.25  # below this a hit shares too little with the query to be "about" it (all-MiniLM cosine)
RECALL_RATIO = 0.6  # and it must come near the best hit: the tail of one-hop neighbours is not an answer


def ranked(hits: list[Any], shown: int = RECALL_SHOWN) -> tuple[list[Any], int]:
    """The hits about the query, best first, at most `shown`, and how many more passed the cut-off."""
    if not hits:
        return [], 0
    ordered = sorted(hits, key=lambda h: -h.score)
    cut = max(RECALL_FLOOR, ordered[0].score * RECALL_RATIO)
    kept = [h for h in ordered if h.score >= cut]
    return kept[:shown], max(0, len(kept) - shown)


def recalled(sim: Simulation, player: str, hits: list[Any]) -> tuple[KnowledgeCard, ...]:
    """The player's /recall answers as cards."""
    events = {e.id: e for e in sim.state.events}
    return tuple(knowledge_card(sim, h.record, player, events=events, reason="recalled")
                 for h in hits if player in h.record.owners)


def context_query(sim: Simulation, player: str) -> str:
    """The recall query for the player's moment: top goal, place, company, last thing said here."""
    world = sim.world
    state = sim.state
    place = state.positions[player]
    stm = state.shortterm.get(player)
    goal = stm.goals[-1] if stm and stm.goals else ""
    company = ", ".join(world.name_of(a) for a in present_at(world, state, place, besides=player))
    talk = state.threads.get(place, [])
    last = talk[-1].text if talk else ""
    return " ".join(p for p in (goal, world.places[place].name, company, last) if p)
