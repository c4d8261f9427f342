"""The director's word to the person playing: who is at the heart of a start, what is happening nearby,
the player's own next beats, and a hint when they drift."""

from __future__ import annotations

import math

import msgspec

from storyworld.minds import direction
from storyworld.minds.lines import clip
from storyworld.kernel.state import WorldState
from storyworld.world import World
from storyworld.world.schema import Event

WINDOW = 12  # story rounds after a start that count toward "at the heart of it"
NOTE_LIMIT = 110


class CastLine(msgspec.Struct, frozen=True, kw_only=True):
    """One character in the new-game dialog: how much the coming story involves them, and where they stand."""

    agent: str
    name: str
    score: float
    line: str


class Suggestion(msgspec.Struct, frozen=True, kw_only=True):
    """One of the player's canon beats as a suggestion: next, done (it happened in play, with the player
    there) or passed (it happened elsewhere, or the story moved on without it)."""

    text: str
    status: str  # next | done | passed


def whole(text: str) -> str:
    """A canon text for the Now line and hints, whole: the screen wraps it (a cut with "…" lost its end)."""
    return " ".join(text.split())


def involvement(world: World, start_id: str | None) -> dict[str, float]:
    """How much the first scenes after a start involve each agent: actors count double, sooner counts more."""
    start = world.start(start_id)
    scores: dict[str, float] = {}
    weight_all: dict[str, int] = {}
    for event in world.events_from(start.id):  # the whole story after the start, for weight in the tale
        for agent in {*event.actors, *event.witness_ids()}:
            weight_all[agent] = weight_all.get(agent, 0) + 1
    for event in world.events_from(start.id):
        if event.round > start.round + WINDOW:
            break
        weight = 1.0 / (1.0 + (event.round - start.round) / 3.0)
        for agent in event.actors:
            scores[agent] = scores.get(agent, 0.0) + 2.0 * weight
        for agent in event.witness_ids():
            if agent not in event.actors:
                scores[agent] = scores.get(agent, 0.0) + weight
    # who matters to the whole tale breaks near-ties in the first scene (Horatio before the sentry)
    return {a: s * math.sqrt(weight_all.get(a, 1)) for a, s in scores.items()}


def cast_lines(world: World, start_id: str | None) -> list[CastLine]:
    """Playable characters, the most involved in the coming story first, each with where/with whom/what next."""
    start = world.start(start_id)
    positions = world.positions(start.id)
    scores = involvement(world, start.id)
    upcoming = world.events_from(start.id)
    lines: list[CastLine] = []
    for agent in world.playable_agents():
        if agent.id not in positions:
            continue
        place = positions[agent.id]
        others = [world.agents[a].name for a, p in positions.items() if p == place and a != agent.id]
        where = world.places[place].name
        company = f", with {', '.join(others[:3])}{' and others' if len(others) > 3 else ''}" if others else ", alone"
        nxt = next((e for e in upcoming if agent.id in e.actors or agent.id in e.witness_ids()), None)
        if nxt is not None and nxt.round <= start.round + WINDOW:
            soon = f" Next: {whole(nxt.text)}"
        else:
            soon = " Nothing comes their way soon."
        lines.append(CastLine(agent=agent.id, name=agent.name, score=round(scores.get(agent.id, 0.0), 3),
                              line=f"{where}{company}.{soon}"))
    order = {a.id: i for i, a in enumerate(world.file.agent)}
    lines.sort(key=lambda c: (-c.score, order[c.agent]))
    return lines


def heart_of(world: World, start_id: str | None) -> str | None:
    """The playable character the start's first scenes turn on (the default to play)."""
    lines = cast_lines(world, start_id)
    return lines[0].agent if lines else None


def _due_events(world: World, state: WorldState) -> list[Event]:
    """Open canon beats due now (inside the story clock's window), in story order."""
    clock = direction.story_clock(state)
    settled = {*state.canon.met, *state.canon.dropped}
    return [e for e in world.events if e.round >= state.start_round and clock - direction.SLACK <= e.round
            <= clock + direction.LOOKAHEAD and e.id not in settled]


def happening(world: World, state: WorldState, player: str) -> str:
    """What is going on where the player is, from the director: the beat due here; else someone on the way
    here, or where the story is now (naming that place, so the line never reads as if it were here)."""
    here = state.positions.get(player)
    if here is None:
        return ""
    clock = direction.story_clock(state)
    due = _due_events(world, state)
    # a beat of coming here whose people are here already has nothing left to happen: not "now"
    local = [e for e in due if e.place == here and e.round <= clock + 1
             and not (e.kind == "move" and e.actors and all(state.positions.get(a) == here for a in e.actors))]
    if local:
        # the beat due now, not the oldest one nobody has played yet (it drops out of the window soon)
        latest = max(e.round for e in local)
        return whole(next(e for e in local if e.round == latest).text)
    coming = [a for a in state.positions if a != player and a not in state.absent
              and (i := direction.intention_for(world, state, state.canon, a)) is not None and i.place == here
              and state.positions[a] != here]
    if coming:
        return f"{world.agents[coming[0]].name} is on the way here."
    own = direction.upcoming(world, state, state.canon, player, limit=1)
    if own and own[0].place != here:
        path = direction.shortest_path(world, here, own[0].place)
        way = f" (/move {path[0]})" if path else ""
        return f"Quiet here; you are wanted at {world.places[own[0].place].name}{way}: {whole(own[0].text)}"
    if own and own[0].round <= clock + direction.LOOKAHEAD:
        # the player's next beat is here but not due yet: say so, or the line goes blank between two beats
        return f"Next here: {whole(own[0].text)}"
    elsewhere = sorted(
        (e for e in due if e.place != here and e.round <= clock + 1),
        key=lambda e: (len(direction.shortest_path(world, here, e.place)) or 99, e.round))
    if elsewhere:
        event = elsewhere[0]
        path = direction.shortest_path(world, here, event.place)
        way = f" (/move {path[0]})" if path else ""
        return f"Quiet here. At {world.places[event.place].name}{way}: {whole(event.text)}"
    return ""


def suggestions(world: World, state: WorldState, player: str, limit: int = 4) -> list[Suggestion]:
    """The player's own canon beats: what comes next (where to go), and the last ones done or passed.

    Done only when the beat happened in play with the player there and on the screen; a beat met without
    the player, met but declined by the story's narration (CanonProgress.declined), or left behind, is passed.
    """
    here = state.positions.get(player)
    out: list[Suggestion] = []
    progress = state.canon
    settled = {*progress.met, *progress.dropped}
    mine = [e for e in world.events if e.round >= state.start_round and (player in e.actors or player in e.witness_ids())]
    done = [e for e in mine if direction.shared_by(progress, e.id, player)]
    passed = [e for e in mine if e.id in settled and not direction.shared_by(progress, e.id, player)]
    for event in done[-2:]:
        out.append(Suggestion(text=clip(event.text, NOTE_LIMIT), status="done"))
    for event in passed[-1:]:
        out.append(Suggestion(text=clip(event.text, NOTE_LIMIT), status="passed"))
    for event in direction.upcoming(world, state, progress, player, limit=limit):
        if event.place != here:
            text = f"Go to {world.places[event.place].name}: {clip(event.text, 90)}"
        else:
            text = clip(event.text, NOTE_LIMIT)
        out.append(Suggestion(text=text, status="next"))
    return out


def hint(world: World, state: WorldState, player: str) -> str:
    """One line pointing at the nearest thread of the story: the player's own next beat, else the nearest scene."""
    here = state.positions.get(player)
    if here is None:
        return ""
    own = direction.upcoming(world, state, state.canon, player, limit=1)
    if own:
        event = own[0]
        if event.place == here:
            return f"The story is here: {clip(event.text, NOTE_LIMIT)}"
        path = direction.shortest_path(world, here, event.place)
        way = f" (/move {path[0]})" if path else ""
        return f"You are wanted at {world.places[event.place].name}{way}: {clip(event.text, 90)}"
    due = _due_events(world, state)
    if not due:
        return ""
    nearest = min(due, key=lambda e: (len(direction.shortest_path(world, here, e.place)) if e.place != here else 0,
                                      e.round))
    path = direction.shortest_path(world, here, nearest.place)
    way = f" (/move {path[0]})" if path else ""
    return f"The story is at {world.places[nearest.place].name}{way}: {clip(nearest.text, 90)}"
