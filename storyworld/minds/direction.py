"""The canon as direction: upcoming beats per agent become intentions (be there, meet them, do this)."""

from __future__ import annotations

import math
import re
from collections import deque

import msgspec

from storyworld.world.schema import Event
from storyworld.kernel.perception import in_play
from storyworld.kernel.state import CanonProgress, SimEvent, WorldState
from storyworld.minds import render
from storyworld.world import World

SLACK = 2  # story rounds a beat stays open after its canon round before the story moves on without it
LOOKAHEAD = 3  # story rounds ahead a beat starts to pull its agent (plus the walk there)
PACE = 2  # played rounds per story round: the canon packs a scene's many lines into a few rounds


def story_clock(state: WorldState) -> int:
    """The canon round the story has reached: it moves at half the pace of play, so scenes can breathe."""
    return state.start_round + (state.round - state.start_round) // PACE


class Intention(msgspec.Struct, frozen=True, kw_only=True):
    """What the canon asks of one agent next: where to be, whom to meet, what to do there."""

    beat_id: str
    round: int
    place: str
    kind: str  # the canon event's kind: say | act | move | observe | narration
    role: str  # actor | witness
    text: str  # the canon event, in the world's own words
    meet: tuple[str, ...] = ()  # the other people of the beat
    companions: tuple[str, ...] = ()  # co-actors who go there too (someone to bring along)


def beats_for(world: World, agent: str, start_round: int) -> list[Event]:
    """Canon events at or after the start that involve `agent`, as actor or witness, in story order."""
    return [e for e in world.events if e.round >= start_round and (agent in e.actors or agent in e.witness_ids())]


def shortest_path(world: World, origin: str, goal: str) -> list[str]:
    """Places from `origin` (excluded) to `goal` (included) along exits; [] when already there or no way."""
    if origin == goal:
        return []
    came_from: dict[str, str] = {origin: origin}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        for nxt in world.places[here].exits:
            if nxt in came_from or nxt not in world.places:
                continue
            came_from[nxt] = here
            if nxt == goal:
                path = [goal]
                while path[-1] != origin and came_from[path[-1]] != origin:
                    path.append(came_from[path[-1]])
                return list(reversed(path))
            queue.append(nxt)
    return []


def _settled(progress: CanonProgress) -> set[str]:
    return {*progress.met, *progress.dropped}


def intention_for(world: World, state: WorldState, progress: CanonProgress, agent: str) -> Intention | None:
    """The agent's next open beat that is due soon (its canon round close enough to walk there), or None."""
    settled = _settled(progress)
    here = state.positions.get(agent)
    clock = story_clock(state)
    for event in beats_for(world, agent, state.start_round):
        if event.id in settled or event.id in progress.met_by(agent):
            continue
        if event.round < clock - SLACK:
            continue  # the story has moved on (update() drops it at the round's end)
        if any(not in_play(world, state, a) for a in event.actors if a != agent):
            continue  # someone the beat needs is dead or gone
        walk = len(shortest_path(world, here, event.place)) if here else 0
        if event.round > clock + LOOKAHEAD + walk:
            return None  # nothing due soon: stay where you are
        role = "actor" if agent in event.actors else "witness"
        others = tuple(a for a in dict.fromkeys([*event.actors, *event.witness_ids()]) if a != agent)
        # whoever the beat needs there too and is with you now is brought along (the player too)
        companions = tuple(a for a in dict.fromkeys([*event.actors, *event.witness_ids()]) if a != agent)
        return Intention(
            beat_id=event.id, round=event.round, place=event.place, kind=event.kind, role=role, text=event.text,
            meet=tuple(a for a in others if in_play(world, state, a)),
            companions=tuple(a for a in companions if in_play(world, state, a)),
        )
    return None


def upcoming(world: World, state: WorldState, progress: CanonProgress, agent: str, limit: int = 5) -> list[Event]:
    """The agent's next open canon beats (for the Goals tab and the new-game dialog), due or not."""
    settled = _settled(progress) | progress.met_by(agent)
    found: list[Event] = []
    for event in beats_for(world, agent, state.start_round):
        if event.id in settled or event.round < story_clock(state) - SLACK:
            continue
        found.append(event)
        if len(found) >= limit:
            break
    return found


# Words that carry no content of a beat: function words, and the verbs a beat's text reports speech with.
_NOT_CONTENT = frozenset("""
    a an the this that these those his her its their our my your some any every each he she it they we i you
    him them us me himself herself itself themselves someone something one of by in on at with for about as to
    from into onto upon over under near through and but or nor so yet then than also too very just only still
    again be is are was were been being have has had do does did will would shall should could might must can
    may who whom whose which what where why how when while if because since until though there here not no all
    whether nothing never ever
    say says said tell tells told ask asks asked reply replies answer answers recall recalls admit admits
    """.split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


def _content(text: str, names: frozenset[str] = frozenset()) -> set[str]:
    """The content words of a text, folded (lexicon.concept: inflections and synonyms alike)."""
    from memory import lexicon

    out = set()
    for word in _WORD.findall(text):
        low = word.lower()
        if low in _NOT_CONTENT or low in names or len(low) < 3:
            continue
        out.add(lexicon.concept(low))
    return out


def carries(beat: Event, line: str) -> bool:
    """Whether a spoken line says what a say beat says: enough of its content words, the people's names aside.

    A line written for a beat but about something else (a greeting, "we must go") does not make the
    beat happen: the player would see a beat ticked done that was never said.
    """
    names = frozenset(w.lower() for a in (*beat.actors, *beat.witness_ids()) for w in re.split(r"[-\s]", a))
    said = _content(line, names)
    for part in (beat.text, *beat.statements):
        wanted = _content(part, names)
        if wanted and len(wanted & said) >= max(1, math.ceil(len(wanted) / 4)):
            return True
    return False


class _Round:
    """What one round's events did, as the beat rules read it: who spoke, acted, looked, came where."""

    def __init__(self, events: list[SimEvent], *, worked: dict[str, str], told: dict[str, str],
                 player: str | None) -> None:
        self.worked, self.told, self.player = worked, told, player
        self.spoke_at: dict[str, set[str]] = {}
        self.lines: dict[tuple[str, str], list[SimEvent]] = {}
        self.spoke_to: dict[tuple[str, str], set[str]] = {}  # (speaker, place) -> whom they spoke to there
        self.deeds: set[tuple[str, str]] = set()  # (actor, place) of every deed done
        self.looked: set[tuple[str, str]] = set()  # (agent, place) of every look around
        self.arrived = {(e.actor, e.place) for e in events if e.kind == "move"}  # who came where this round
        self.spent: set[str] = set()  # who already met a beat this round (one beat each)
        self.waiting: set[tuple[str, str]] = set()  # (actor, place) with an earlier beat there still to happen
        for event in events:
            if event.kind == "observe":
                self.looked.add((event.actor, event.place))
            if event.kind in ("say", "act"):
                self.spoke_at.setdefault(event.actor, set()).add(event.place)
            if event.kind == "act":
                self.deeds.add((event.actor, event.place))
            elif event.kind == "say" and event.to:
                self.spoke_to.setdefault((event.actor, event.place), set()).add(event.to)
            if event.kind == "say":
                self.lines.setdefault((event.actor, event.place), []).append(event)

    def spoken(self, beat: Event, actors: list[str], there: list[str], at_place: bool, due: bool,
               performed: set[str] | None) -> tuple[str, ...] | None:
        """A spoken beat: said there by its speaker (whatever the line was meant for), or spoken for when due."""
        for a in actors:
            if a in self.spent:
                continue
            people = {*beat.actors, *beat.witness_ids()} - {a}
            line = next((e for e in self.lines.get((a, beat.place), ())
                         if carries(beat, " ".join(p for p in (e.claim or e.text, self.told.get(e.id, "")) if p))
                         # the person's line meets their beat only when said to its people: words shared with
                         # a line to someone else said nothing of the kind (Goals must not tick it)
                         and (a != self.player or e.to in people or (not people and e.to is None))),
                        None)
            if line is not None:
                self.spent.add(a)
                return tuple(sorted({*line.witnesses, a}))
        speaker = next((a for a in actors if a not in self.spent and self.worked.get(a) == beat.id
                        and self.lines.get((a, beat.place))), None)
        if at_place and due and speaker is not None:
            self.spent.add(speaker)
            if performed is not None:
                performed.add(beat.id)
            return tuple(there)
        return None

    def done(self, beat: Event, actors: list[str], there: list[str], at_place: bool,
             own: set[str] | None) -> tuple[str, ...] | None:
        """A deed: its actors gathered there, one acting for it (the player: a deed there, or words to its people)."""
        people = {*beat.actors, *beat.witness_ids()}
        alone = actors == [self.player]
        doer = next((a for a in actors if beat.place in self.spoke_at.get(a, ()) and a not in self.spent
                     and (self.worked.get(a) == beat.id
                          or (a == self.player and a not in self.worked
                              and ((a, beat.place) in self.deeds
                                   # mere words to the beat's people never skip the player's earlier beat
                                   # there (the bowing is not done while the oath is still to be sworn)
                                   or (not alone and (a, beat.place) not in self.waiting
                                       and self.spoke_to.get((a, beat.place), set()) & people))))),
                    None)
        if not at_place or doer is None:
            return None
        self.spent.add(doer)
        if alone and own is not None:
            own.add(beat.id)  # the player's own deed is on the screen already
        return tuple(there)

    def seen(self, beat: Event, actors: list[str], there: list[str], at_place: bool, due: bool,
             own: set[str] | None) -> tuple[str, ...] | None:
        """A narration or sight: when due and someone is there (the player's own sight, by looking)."""
        if self.player in actors:  # what the player sees is for the player to look at
            if (self.player, beat.place) in self.looked and at_place and due:
                if own is not None:
                    own.add(beat.id)
                return tuple(there)
            return None
        return tuple(there) if at_place and due and there else None

    def came(self, beat: Event, actors: list[str], there: list[str], at_place: bool) -> tuple[str, ...] | None:
        """A beat of coming somewhere: by coming there this round (one arrival meets one beat of coming)."""
        comer = next((a for a in actors if (a, beat.place) in self.arrived), None) if at_place else None
        if comer is None:
            return None
        self.arrived.discard((comer, beat.place))
        return tuple(there)


def update(world: World, state: WorldState, progress: CanonProgress, events: list[SimEvent], *,
           worked: dict[str, str] | None = None, player: str | None = None,
           told: dict[str, str] | None = None, own: set[str] | None = None,
           performed: set[str] | None = None) -> list[str]:
    """After a round: mark beats met by what happened, drop beats the story has passed; returns met ids.

    A beat is met only when it happened in play: a spoken beat by a line of its speaker, there, that
    carries what the beat says (`told`: event id -> the text of what the line told, besides its words);
    a deed by its actors gathered there, one of them acting for it (`worked`: agent -> beat id its
    action was made for; the player's part is a deed there or words to one of the beat's people), which
    the kernel then narrates; a narration or sight when it is due and someone is there to see it; a beat
    of coming somewhere, by coming there this round (one arrival is not every later beat of being there). A beat the player does alone, or sees, happens only by
    the player's own deed or look (its id goes into `own`: it is on the screen already, not narrated).
    A spoken beat is also met when, due, its speakers all there, one of them spoke a line made for it
    (`worked`): the line says only what its speaker holds, so the beat's id goes into `performed` and the
    kernel narrates what the beat says (the story goes on without the speaker stating what it cannot know).
    Who was there when a beat was met is kept in `progress.present`.
    """
    settled = _settled(progress)
    seen = _Round(events, worked=worked or {}, told=told or {}, player=player)
    newly: list[str] = []
    clock = story_clock(state)  # update runs after the kernel has advanced the round
    for event in world.events:
        if event.round < state.start_round or event.id in settled:
            continue
        if event.round > clock + LOOKAHEAD:
            break
        actors = [a for a in event.actors if in_play(world, state, a)]
        if not actors and event.actors:
            progress.dropped.append(event.id)
            continue
        at_place = all(state.positions.get(a) == event.place for a in actors)
        there = sorted(a for a, p in state.positions.items() if p == event.place and in_play(world, state, a))
        due = event.round <= clock
        if event.kind == "say":
            witnesses = seen.spoken(event, actors, there, at_place, due, performed)
        elif event.kind == "act":
            witnesses = seen.done(event, actors, there, at_place, own)
        elif event.kind in ("narration", "observe"):
            witnesses = seen.seen(event, actors, there, at_place, due, own)
        else:
            witnesses = seen.came(event, actors, there, at_place)
        if witnesses is not None:
            progress.met.append(event.id)
            progress.present[event.id] = list(witnesses)
            newly.append(event.id)
            continue
        _not_yet(state, progress, event, clock)
        if event.round >= clock - SLACK:
            seen.waiting.update((a, event.place) for a in actors)
    return newly


def _not_yet(state: WorldState, progress: CanonProgress, event: Event, clock: int) -> None:
    """A beat that did not happen this round: who stood by and saw it not happen; dropped once the story is past it."""
    for witness in event.witness_ids():
        seen = progress.witnessed.setdefault(event.id, [])
        if witness not in event.actors and witness not in seen and state.positions.get(witness) == event.place:
            seen.append(witness)
    if not progress.witnessed.get(event.id):
        progress.witnessed.pop(event.id, None)
    if event.round < clock - SLACK:
        progress.dropped.append(event.id)


class Telling(msgspec.Struct, frozen=True, kw_only=True):
    """A beat the screen should show: `seen` where it happened (a deed, a sight), or `word` of it to someone."""

    beat: Event
    mode: str  # seen | word
    hearers: tuple[str, ...] = ()  # for word: who hears of it


def tellings(world: World, state: WorldState, progress: CanonProgress, met: list[str], dropped: list[str],
             player: str | None, own: set[str] | frozenset[str] = frozenset(),
             performed: set[str] | frozenset[str] = frozenset()) -> list[Telling]:
    """What the round's settled beats show: deeds and sights met are narrated where they happened (not the
    player's own, in `own`: those are on the screen already); a beat
    that passed the player by (met elsewhere, or left behind) reaches the player as word, when the player
    is among those the canon says would know of it (a witness, not a doer)."""
    out: list[Telling] = []
    for beat_id in met:
        beat = world.events_by_id[beat_id]
        if player is not None and beat_id not in own and (beat.actors == [player] or _speaks(world, beat, player)):
            continue  # the person's words and deeds are theirs: the story never narrates them saying or doing it
        if (beat.kind in ("act", "narration", "observe") or beat_id in performed) and beat_id not in own:
            out.append(Telling(beat=beat, mode="seen"))
    if player is None or not in_play(world, state, player):
        return out
    for beat_id in [*met, *dropped]:
        beat = world.events_by_id[beat_id]
        if player in beat.actors or player not in beat.witness_ids() or _speaks(world, beat, player):
            continue
        here = state.positions.get(player)
        if any(state.positions.get(actor) == here for actor in beat.actors) or render.speaks_of(world, beat.text, player):
            continue  # its doers stand here, or it has the person there: word that it happened there would contradict
        if player in progress.present.get(beat_id, ()) or state.positions.get(player) == beat.place:
            continue
        if player in progress.witnessed.get(beat_id, ()):
            continue  # they were there while it was due and saw it not happen: no word says it did
        out.append(Telling(beat=beat, mode="word", hearers=(player,)))
    return out


def _speaks(world: World, beat: Event, player: str) -> bool:
    """Whether a spoken beat has the person speak: among its actors, or a subject in its text ("…; Hamlet tells him
    to cure it completely" in a beat whose only actor is the First Player)."""
    return beat.kind == "say" and (player in beat.actors or render.is_subject_in(world, beat.text, player))


def shared_by(progress: CanonProgress, beat_id: str, agent: str) -> bool:
    """Whether `agent` was there when a beat happened in play and on the screen (the beats a player's Goals
    may tick done; one the story declined to narrate is not)."""
    return (beat_id in progress.met and agent in progress.present.get(beat_id, ())
            and beat_id not in progress.declined)


def companions(world: World, state: WorldState, progress: CanonProgress, mover: str, destination: str) -> tuple[str, ...]:
    """Who goes along when `mover` walks toward its due beat: the beat's other people, with the mover now,
    whose own next beat is at the same place (or who have none due).

    Only for a step toward the beat's place (the place itself, or the first step of the way there).
    """
    intention = intention_for(world, state, progress, mover)
    here = state.positions.get(mover)
    if intention is None or here is None or here == intention.place:
        return ()
    way = shortest_path(world, here, intention.place)
    if not way or way[0] != destination:
        return ()
    found = []
    for other in intention.companions:
        if state.positions.get(other) != here or not in_play(world, state, other):
            continue
        own = intention_for(world, state, progress, other)
        if own is None or own.place == intention.place:
            found.append(other)
    return tuple(found)


def canon_progress(world: World, state: WorldState, progress: CanonProgress) -> dict[str, float | int]:
    """How much of the canon due during the run was reached: met / (met + dropped), with the counts."""
    met = len(progress.met)
    dropped = len(progress.dropped)
    due = met + dropped
    return {"canon_met": met, "canon_dropped": dropped, "canon_progress": round(met / due, 4) if due else 0.0}
