"""Immutable views of a running game, built in worker threads and handed to widgets in messages."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storyworld.game.playerinput import Surroundings
from storyworld.kernel.perception import present_at
from storyworld.kernel.wording import inline
from storyworld.minds import guide
from tui.knowledge import KnowledgeCard, knowledge

if TYPE_CHECKING:
    from storyworld.game.simulation import Simulation
    from storyworld.kernel.state import SimEvent

# Eight colours that read on dark and light themes; an agent's colour is stable across runs and saves.
BADGE_COLOURS: tuple[str, ...] = (
    "#e06c75", "#61afef", "#98c379", "#e5c07b", "#c678dd", "#56b6c2", "#d19a66", "#be5046",
)


def badge_colour(agent_id: str) -> str:
    """A stable colour for an agent (blake2b of its id, never Python's hash())."""
    digest = hashlib.blake2b(agent_id.encode("utf-8"), digest_size=2).digest()
    return BADGE_COLOURS[int.from_bytes(digest, "big") % len(BADGE_COLOURS)]


@dataclass(frozen=True)
class OwnerLine:
    """One owner's holding of a record: how, from whom, when, how sure."""

    agent: str
    name: str
    via: str
    source: str | None
    source_name: str
    since_round: int
    place_name: str
    confidence: float
    status: str
    flags: tuple[str, ...]

    @property
    def how(self) -> str:
        """How the owner came to hold it: 'witnessed r12, the hall', 'told by Horatio r14'."""
        where = f", {self.place_name}" if self.place_name else ""
        match self.via:
            case "witnessed":
                return f"witnessed r{self.since_round}{where}"
            case "told":
                return f"told by {self.source_name or 'someone'} r{self.since_round}"
            case "read":
                return f"read in {self.source_name or 'a text'} r{self.since_round}"
            case "inferred":
                return f"own words r{self.since_round}" if self.source in (None, self.agent) else (
                    f"inferred from {self.source_name} r{self.since_round}")
            case "sediment":
                return f"from the story r{self.since_round}{where}"
            case "authored":
                return "set by the author"
        return f"{self.via} r{self.since_round}"

    @property
    def marks(self) -> tuple[str, ...]:
        """Dispute, doubt and contamination marks, in the order a reader should notice them."""
        found: list[str] = []
        if self.status in ("disputed", "retracted", "doubted"):
            found.append(self.status)
        if "contaminated" in self.flags:
            found.append("contaminated")
        found.extend(_flag_label(f) for f in self.flags if f != "contaminated")
        return tuple(found)


def _flag_label(flag: str) -> str:
    """A store flag for reading: 'contradicts:10' -> 'contradicts #10'."""
    name, sep, ref = flag.partition(":")
    return f"{name} #{ref}" if sep and ref.isdigit() else flag


@dataclass(frozen=True)
class RecordCard:
    """A record as the side panel and the inspector show it."""

    id: int
    text: str
    kind: str
    round: int
    place_name: str
    owners: tuple[OwnerLine, ...]
    reason: str = ""  # why it is shown now: "this round", "recall"
    score: float | None = None
    disputes: tuple[str, ...] = ()  # other owners hold the opposite: "Agnes: lens found · Hale: lens missing"


def owner_lines(world: Any, record: Any) -> tuple[OwnerLine, ...]:
    """The owners of a record, sorted by id, as display lines."""
    lines = []
    for agent, holding in sorted(record.owners.items()):
        lines.append(OwnerLine(
            agent=agent, name=world.name_of(agent), via=holding.via, source=holding.source,
            source_name=world.name_of(holding.source), since_round=holding.since_round,
            place_name=world.name_of(holding.place or record.place),
            confidence=float(holding.confidence), status=holding.status, flags=tuple(holding.flags),
        ))
    return tuple(lines)


def record_card(world: Any, record: Any, reason: str = "", score: float | None = None, store: Any = None) -> RecordCard:
    """One record as a card (with its cross-owner disputes when the store is given; every store answers)."""
    disputes: tuple[str, ...] = ()
    if store is not None:
        from memory.disputes import describe

        disputes = tuple(d["summary"] for d in describe(store, record.id, name=world.name_of))
    return RecordCard(
        id=record.id, text=record.text, kind=record.kind, round=record.round,
        place_name=world.name_of(record.place), owners=owner_lines(world, record), reason=reason, score=score,
        disputes=disputes,
    )


@dataclass(frozen=True)
class TranscriptEntry:
    """One entry of the play transcript, screenplay style (a heading, a spoken line, a direction, a result)."""

    kind: str  # heading | line | direction | result
    text: str
    speaker: str = ""
    to: str = ""
    own: bool = False
    round: int = 0


@dataclass(frozen=True)
class CastEntry:
    """A character in the Cast tab."""

    id: str
    name: str
    here: bool
    status: str  # active | archived
    mood: str
    is_player: bool = False


@dataclass(frozen=True)
class MapView:
    """Where the player is, where they can go, and every place."""

    here: str
    here_name: str
    here_description: str
    exits: tuple[tuple[str, str], ...]  # (id, name)
    places: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Moment:
    """Everything the play screen shows after a round (or at the start)."""

    round: int
    world_title: str
    player: str
    player_name: str
    place: str
    place_name: str
    model: str
    entries: tuple[TranscriptEntry, ...]
    who_knows: tuple[KnowledgeCard, ...]  # what the character knows: this round's changes first
    cast: tuple[CastEntry, ...]
    map: MapView
    goals: tuple[str, ...]
    present: tuple[str, ...] = ()
    results: dict[str, str] = field(default_factory=dict)
    happening: str = ""  # the director's note on what is going on near the player
    suggestions: tuple[tuple[str, str], ...] = ()  # the player's canon beats: (text, next | done | passed)
    hint: str = ""  # where the story is, shown when the player has drifted for a few rounds
    scene: Surroundings | None = None  # what the action bar may name now (parsing and completion read it, not the state)


WORD_LINES = 2  # word of passed beats shown in the transcript per round (the rest: one line, and the panel)


def transcript_entries(sim: Simulation, events: tuple[SimEvent, ...] | list[SimEvent], player: str,
                       results: dict[str, str] | None = None) -> list[TranscriptEntry]:
    """The events the player perceived, as transcript entries (a scene heading when the player moves).

    With `results` (a round just played): when the player walked, who is there once everyone has
    walked closes the round ("With you: ..."), in place of the move's result.
    """
    world = sim.world
    entries: list[TranscriptEntry] = []
    walked = False
    for event in events:
        own = event.actor == player
        if (player not in event.witnesses and not own) or event.kind == "wait":
            continue  # a wait is bookkeeping; the player's own shows as its result ("time passed")
        actor = world.name_of(event.actor)
        if event.kind == "say":
            entries.append(TranscriptEntry(kind="line", speaker=actor, text=event.claim or event.text,
                                           to=world.name_of(event.target), own=own, round=event.round))
        elif event.kind == "move" and own:
            walked = True
            place = world.places[event.place]
            if event.led_by:
                entries.append(TranscriptEntry(kind="direction", own=True, round=event.round,
                                               text=f"You go with {world.name_of(event.led_by)} to {inline(place.name)}."))
            entries.append(TranscriptEntry(kind="heading", text=place.name, round=event.round))
            if place.description:
                entries.append(TranscriptEntry(kind="direction", text=place.description, round=event.round))
        elif event.kind == "move" and event.led_by == player:
            entries.append(TranscriptEntry(kind="direction", round=event.round,
                                           text=f"{actor} comes with you to {inline(world.name_of(event.place))}."))
        elif event.kind == "narration" and event.word_from:
            heard = sum(1 for b in entries if b.kind == "word")
            if heard < WORD_LINES:
                entries.append(TranscriptEntry(kind="word", text=event.text, round=event.round))
            else:  # the rest in one line; each is a card of the Who knows panel
                more = sum(1 for e in events if e.kind == "narration" and e.word_from and player in e.witnesses)
                if heard == WORD_LINES:
                    entries.append(TranscriptEntry(kind="word", round=event.round,
                                                   text=f"More word comes ({more - WORD_LINES} more: Who knows)."))
        else:
            entries.append(TranscriptEntry(kind="direction", text=event.text, own=own, round=event.round))
    if results is None:
        return entries
    round_ = events[0].round if events else sim.state.round
    if walked:
        entries.append(_company(sim, player, round_))
        return entries
    mine = results.get(player, "")
    looked = any(e.kind == "observe" and e.actor == player for e in events)  # the scene seen is shown already
    if mine and not looked and not any(b.own and b.kind in ("line", "direction") for b in entries):
        entries.append(TranscriptEntry(kind="result", text=mine, own=True, round=round_))
    return entries


def _company(sim: Any, player: str, round_: int) -> TranscriptEntry:
    """Who is with the player now ("With you: ..." or "You are alone.")."""
    world, state = sim.world, sim.state
    present = [world.name_of(a) for a in present_at(world, state, state.positions[player], besides=player)]
    return TranscriptEntry(kind="direction", round=round_,
                           text=("With you: " + ", ".join(present) + ".") if present else "You are alone.")


def opening_entries(sim: Any, player: str) -> list[TranscriptEntry]:
    """The scene heading, start description and place description a new game opens with."""
    world = sim.world
    state = sim.state
    place = world.places[state.positions[player]]
    entries = [TranscriptEntry(kind="heading", text=place.name, round=state.round)]
    start = world.start(state.start_id)
    if start.description:
        entries.append(TranscriptEntry(kind="direction", text=start.description, round=state.round))
    if place.description:
        entries.append(TranscriptEntry(kind="direction", text=place.description, round=state.round))
    entries.append(_company(sim, player, state.round))
    return entries


def cast_view(sim: Any, player: str) -> tuple[CastEntry, ...]:
    """Who is here first (the player on top), then everyone else, each with status and mood."""
    world = sim.world
    state = sim.state
    here = state.positions[player]
    entries = []
    for agent in world.file.agent:
        stm = state.shortterm.get(agent.id)
        mood = (stm.status.get("mood", "") if stm else "") or ""
        entries.append(CastEntry(
            id=agent.id, name=agent.name, here=state.positions.get(agent.id) == here, status=agent.status,
            mood=mood, is_player=agent.id == player,
        ))
    entries.sort(key=lambda e: (not e.is_player, not e.here, e.status != "active", e.name))
    return tuple(entries)


def map_view(sim: Any, player: str) -> MapView:
    """The Map tab's content."""
    world = sim.world
    here = sim.state.positions[player]
    place = world.places[here]
    return MapView(
        here=here, here_name=place.name, here_description=place.description,
        exits=tuple((e, world.places[e].name) for e in place.exits),
        places=tuple((p.id, p.name) for p in world.file.place),
    )


def build_moment(sim: Simulation, player: str, *, events: tuple[SimEvent, ...] = (), results: dict[str, str] | None = None,
                 since_round: int | None = None, opening: bool = False, model: str = "") -> Moment:
    """The play screen's view after a round (events/results) or at the start (opening)."""
    return _moment(sim, player, opening=opening, model=model or sim.settings.model,
                   entries=opening_entries(sim, player) if opening else transcript_entries(sim, events, player, results),
                   cards=knowledge(sim, player, since_round), results=results)


@dataclass(frozen=True)
class _Still:
    """A world and its state before any memory exists (what the first frame of a new game can show)."""

    world: Any
    state: Any


def preview_moment(world: Any, player: str, start_id: str | None, model: str = "") -> Moment:
    """The opening of a new game from the world alone (no model, no embedder, no memory): the first frame."""
    from storyworld.game.simulation import initial_state

    still = _Still(world, initial_state(world, start_id))
    return _moment(still, player, opening=True, model=model, entries=opening_entries(still, player), cards=())


def _moment(sim: Any, player: str, *, opening: bool, model: str, entries: list[TranscriptEntry],
            cards: tuple[KnowledgeCard, ...], results: dict[str, str] | None = None) -> Moment:
    world = sim.world
    state = sim.state
    stm = state.shortterm.get(player)
    place = state.positions[player]
    return Moment(
        round=state.round,
        world_title=world.file.world.title,
        player=player,
        player_name=world.name_of(player),
        place=place,
        place_name=world.places[place].name,
        model=model,
        entries=tuple(entries),
        who_knows=cards,
        cast=cast_view(sim, player),
        map=map_view(sim, player),
        goals=tuple(reversed(stm.goals)) if stm else (),
        present=present_at(world, state, place, besides=player),
        results=dict(results or {}),
        happening=guide.happening(world, state, player),
        suggestions=tuple((s.text, s.status) for s in guide.suggestions(world, state, player)),
        hint=guide.hint(world, state, player) if not opening and _due_hint(idle_rounds(state, player)) else "",
        scene=Surroundings.of(world, state, player),
    )


IDLE_ROUNDS = 2  # rounds of only waiting or looking around before the director offers a hint


def _due_hint(idle: int) -> bool:
    return idle >= IDLE_ROUNDS and idle % IDLE_ROUNDS == 0


def idle_rounds(state: Any, player: str) -> int:
    """How many of the player's latest actions in a row did nothing for the story (wait, look, catch up)."""
    from storyworld.kernel.actions import Observe, ReadThread, Wait

    count = 0
    for action in reversed(state.actions):
        if action.actor != player:
            continue
        if not isinstance(action, (Wait, Observe, ReadThread)):
            break
        count += 1
    return count


# --- the memory inspector ------------------------------------------------------------------------

@dataclass(frozen=True)
class RecordRow:
    """One row of the inspector's table."""

    id: int
    kind: str
    round: int
    owners: tuple[str, ...]
    text: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heatmap:
    """Shared ownership: counts[i][j] = records held by both agents i and j (diagonal: held by i)."""

    agents: tuple[str, ...]
    names: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    @property
    def off_diagonal_max(self) -> int:
        """The largest count between two different agents (the top of the colour scale)."""
        n = len(self.agents)
        return max((self.counts[i][j] for i in range(n) for j in range(n) if i != j), default=0)


@dataclass(frozen=True)
class Relations:
    """Pairs of agents ranked by how much they interacted, with what memory they share, and communities."""

    pairs: tuple[Any, ...]  # storyworld.report.relations.PairRelation, ranked
    names: dict[str, str]  # agent id -> name
    communities: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class MemoryView:
    """Everything the inspector lists, built once in a worker."""

    rows: tuple[RecordRow, ...]
    agents: tuple[tuple[str, str], ...]  # (id, name)
    kinds: tuple[str, ...]
    heatmap: Heatmap
    stats: dict[str, Any]
    relations: Relations | None = None


def relations_view(world: Any, store: Any, events: Any) -> Relations:
    """The Relations tab: ranked pairs (spoke, acted, shared, linked) and conversational communities."""
    from storyworld.report.relations import communities, pair_relations

    agents = [a.id for a in world.file.agent]
    pairs = pair_relations(agents, events, store)
    return Relations(pairs=tuple(pairs), names={a.id: a.name for a in world.file.agent},
                     communities=tuple(tuple(c) for c in communities(agents, pairs) if len(c) > 1))


def memory_view(world: Any, store: Any, events: Any = None) -> MemoryView:
    """All records as rows, filter lists, the shared-ownership heatmap and (given events) the relations."""
    rows = []
    pair_counts: Counter[tuple[str, str]] = Counter()
    for record in store.records():
        owners = tuple(sorted(record.owners))
        flags = sorted({f for h in record.owners.values() for f in (*h.flags, h.status) if f != "believed"})
        rows.append(RecordRow(id=record.id, kind=record.kind, round=record.round, owners=owners, text=record.text,
                              flags=tuple(flags)))
        for i, a in enumerate(owners):
            pair_counts[(a, a)] += 1
            for b in owners[i + 1:]:
                pair_counts[(a, b)] += 1
                pair_counts[(b, a)] += 1
    rows.sort(key=lambda r: r.id)
    agents = tuple(a.id for a in world.file.agent)
    counts = tuple(tuple(pair_counts.get((a, b), 0) for b in agents) for a in agents)
    try:
        stats = dict(store.stats())
    except (AttributeError, TypeError, ValueError):
        stats = {}
    return MemoryView(
        rows=tuple(rows),
        agents=tuple((a.id, a.name) for a in world.file.agent),
        kinds=tuple(sorted({r.kind for r in rows})),
        heatmap=Heatmap(agents=agents, names=tuple(a.name for a in world.file.agent), counts=counts),
        stats=stats,
        relations=None if events is None else relations_view(world, store, events),
    )


@dataclass(frozen=True)
class RecordDetail:
    """The inspector's detail pane for one record."""

    card: RecordCard
    merges: tuple[tuple[str, int, str, str, str], ...]  # (owner name, round, rule, discarded, kept)
    neighbours: tuple[tuple[int, str], ...]
    based_on: tuple[tuple[int, int, str], ...]  # (depth, id, text) along the derivation chain
    event_id: str | None


def record_detail(world: Any, store: Any, record_id: int, *, max_depth: int = 4) -> RecordDetail:
    """Owners with provenance, merge log, affiliation neighbours and the based-on chain of one record."""
    record = store.get(record_id)
    merges = tuple(
        (world.name_of(m.owner), m.round, m.rule, m.discarded_text, m.kept_text) for m in record.merge_log
    )
    neighbours = []
    for other in list(store.neighbours(record_id))[:12]:
        try:
            neighbours.append((other, store.get(other).text))
        except KeyError:
            continue
    chain: list[tuple[int, int, str]] = []
    seen = {record_id}
    frontier = [(1, r) for r in record.based_on]
    while frontier and len(chain) < 20:
        depth, rid = frontier.pop(0)
        if rid in seen or depth > max_depth:
            continue
        seen.add(rid)
        try:
            parent = store.get(rid)
        except KeyError:
            chain.append((depth, rid, "(missing)"))
            continue
        chain.append((depth, rid, parent.text))
        frontier.extend((depth + 1, r) for r in parent.based_on)
    return RecordDetail(card=record_card(world, record, store=store), merges=merges, neighbours=tuple(neighbours),
                        based_on=tuple(chain), event_id=record.event_id)
