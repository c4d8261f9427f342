"""Screenplay rendering (DESIGN §4.5): events -> staged events (deduplicated) -> scenes (place, stretch of rounds) -> markdown.

The printed figures call the staged events "beats", as the paper's Table 6 does; in the code a beat is
only the canon's (what the director steers towards).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from memory.records import normalise_text
from storyworld.kernel import verbs
from storyworld.kernel.wording import deed, inline
from storyworld.kernel.actions import CARRIER_VERBS
from storyworld.kernel.state import SimEvent
from storyworld.report.roundview import in_story_order
from storyworld.world import World

if TYPE_CHECKING:
    from storyworld.report.runs import Run

# Event kinds that are bookkeeping rather than drama: looking around, catching up on talk, waiting.
NOISE_KINDS = frozenset({"observe", "read", "wait"})
MAX_SCENE_ROUNDS = 20  # a scene never spans more rounds than this (the busy hall becomes two scenes)
SCENE_GAP_ROUNDS = 4  # a quiet stretch this long at a place ends its scene


class StagedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One dramatizable event: who did what where, as the screenplay shows it."""

    round: int
    place: str
    actor: str
    kind: str  # say | act | move | narration
    text: str  # the line (say) or the stage direction
    to: str | None = None  # addressee of a line
    event_id: str = ""


class ScreenplayScene(msgspec.Struct, frozen=True, kw_only=True):
    """Staged events at one place over one stretch of rounds."""

    number: int
    place: str
    first_round: int
    last_round: int
    events: tuple[StagedEvent, ...]
    cast: tuple[str, ...]


class Screenplay(msgspec.Struct, frozen=True, kw_only=True):
    """A rendered run and its shape (paper Table 6: rounds, scenes, beats (staged events), speakers, places, length)."""

    title: str
    first_round: int
    last_round: int
    scenes: tuple[ScreenplayScene, ...]
    markdown: str
    events: int
    staged: int
    speakers: int
    places: int

    def summary(self) -> dict[str, int | str]:
        """Table 6 figures for this screenplay."""
        return {
            "rounds": f"{self.first_round}-{self.last_round}",
            "events": self.events,
            "beats": self.staged,  # Table 6 calls them beats
            "scenes": len(self.scenes),
            "speakers": self.speakers,
            "places": self.places,
            "chars": len(self.markdown),
        }


def staged_events(world: World, events: Iterable[SimEvent], positions: dict[str, str] | None = None,
                  player: str | None = None) -> list[StagedEvent]:
    """The dramatizable events in story order (report.roundview, as the play screen shows them to `player`),
    deduplicated: noise kinds dropped, a repeated line or act by the same actor dropped.

    `positions` (agent -> place at the start) lets a move say where the actor came from.
    """
    where = dict(positions or {})
    seen: set[tuple[str, str, str]] = set()
    staged: list[StagedEvent] = []
    for event in in_story_order(events, player):
        origin = where.get(event.actor)
        if event.kind == "move":
            where[event.actor] = event.place
        if event.kind in NOISE_KINDS:
            continue
        if event.kind == "say":
            line = (event.claim or event.text).strip()
            key = ("say", event.actor, normalise_text(line))
            item = StagedEvent(round=event.round, place=event.place, actor=event.actor, kind="say", text=line,
                        to=event.target, event_id=event.id)
        elif event.kind == "move":
            actor = world.name_of(event.actor)
            came = f" from {_inline(world.name_of(origin))}" if origin and origin != event.place else ""
            text = f"{actor} enters{came}."
            key = ("move", event.actor, f"{event.round}:{event.place}")
            item = StagedEvent(round=event.round, place=event.place, actor=event.actor, kind="move", text=text, event_id=event.id)
        else:
            text = _stage_text(world, event)
            key = (event.kind, event.actor, normalise_text(text))
            item = StagedEvent(round=event.round, place=event.place, actor=event.actor, kind=event.kind, text=text,
                        event_id=event.id)
        if key in seen:
            continue
        seen.add(key)
        staged.append(item)
    return staged


_inline = inline  # a name as it reads inside a sentence: "The harbour" -> "the harbour"


def _stage_text(world: World, event: SimEvent) -> str:
    """An act or narration as a stage direction: present tense, without the place the heading names."""
    text = event.text.strip()
    for place in (f" in {inline(world.name_of(event.place))}", f" in {world.name_of(event.place)}"):
        if place in text:
            text = text.replace(place, "", 1)
            break
    if event.kind == "act" and event.verb and event.target and event.verb not in CARRIER_VERBS and event.verb.isalpha():
        # a deed on the stage is said now ("strikes"), from its fields, not from the narration's past tense
        text = (deed(world.name_of(event.actor), event.verb, world.name_of(event.target),
                     person=event.target in world.agents, tense="present") + verbs.detail(event.verb, event.detail))
    # Object names such as "A sealed letter" read lower-case inside a sentence.
    for thing in world.objects.values():
        if _inline(thing.name) != thing.name:
            text = text[:1] + text[1:].replace(thing.name, _inline(thing.name))
    text = text.rstrip()
    if text.endswith(":"):
        text = text[:-1] + "."
    if text and text[-1] not in ".!?\"'":
        text += "."
    return text


def scenes_of(staged: list[StagedEvent], *, max_rounds: int = MAX_SCENE_ROUNDS, gap: int = SCENE_GAP_ROUNDS) -> list[list[StagedEvent]]:
    """Group staged events by place into stretches of rounds: a scene ends after a quiet gap or at the round cap."""
    by_place: dict[str, list[list[StagedEvent]]] = {}
    for item in staged:
        groups = by_place.setdefault(item.place, [])
        current = groups[-1] if groups else None
        if (current is None or item.round - current[-1].round > gap
                or item.round - current[0].round >= max_rounds):
            groups.append([item])
        else:
            current.append(item)
    order = {b.event_id: i for i, b in enumerate(staged)}
    scenes = [group for groups in by_place.values() for group in groups]
    scenes.sort(key=lambda g: (g[0].round, order[g[0].event_id]))
    return scenes


def _cast(world: World, events_by_id: dict[str, SimEvent], staged: list[StagedEvent]) -> tuple[str, ...]:
    present: dict[str, None] = {}
    for item in staged:
        present[item.actor] = None
        event = events_by_id.get(item.event_id)
        if event is not None and item.kind != "move":
            for witness in event.witnesses:
                present[witness] = None
    return tuple(sorted(present, key=lambda a: world.name_of(a)))


def render(world: World, events: list[SimEvent], *, positions: dict[str, str] | None = None,
           max_rounds: int = MAX_SCENE_ROUNDS, title: str | None = None, note: str = "",
           player: str | None = None) -> Screenplay:
    """Render a run's events as a markdown screenplay (in the story order `player`'s screen showed)."""
    staged = staged_events(world, events, positions, player)
    grouped = scenes_of(staged, max_rounds=max_rounds)
    events_by_id = {e.id: e for e in events}
    title = title or world.file.world.title
    rounds = [e.round for e in events]
    first, last = (min(rounds), max(rounds)) if rounds else (0, 0)
    lines = [f"# {title}", ""]
    speakers = sorted({b.actor for b in staged if b.kind == "say"})
    places = sorted({b.place for b in staged})
    lines.append(f"*Rounds {first}\u2013{last}: {len(staged)} beats in {len(grouped)} scenes, "
                 f"{len(speakers)} speakers, {len(places)} places.{(' ' + note) if note else ''}*")
    scenes: list[ScreenplayScene] = []
    for number, group in enumerate(grouped, start=1):
        cast = _cast(world, events_by_id, group)
        scene = ScreenplayScene(number=number, place=group[0].place, first_round=group[0].round, last_round=group[-1].round,
                      events=tuple(group), cast=cast)
        scenes.append(scene)
        span = f"round {scene.first_round}" if scene.first_round == scene.last_round else (
            f"rounds {scene.first_round}\u2013{scene.last_round}")
        lines += ["", f"## Scene {number}. {world.name_of(scene.place)} \u2014 {span}", ""]
        if cast:
            lines += [f"*Present: {', '.join(world.name_of(a) for a in cast)}.*", ""]
        for item in group:
            if item.kind == "say":
                to = f" *(to {world.name_of(item.to)})*" if item.to else ""
                lines += [f"**{world.name_of(item.actor).upper()}**{to}: {item.text}", ""]
            else:
                lines += [f"*{item.text}*", ""]
        while lines and lines[-1] == "":
            lines.pop()
    markdown = "\n".join(lines) + "\n"
    return Screenplay(
        title=title, first_round=first, last_round=last, scenes=tuple(scenes), markdown=markdown,
        events=len(events), staged=len(staged), speakers=len(speakers), places=len(places),
    )


def _cue(name: str) -> str:
    """A Fountain character cue: upper case, forced with `@` when the name has no upper case (CJK)."""
    upper = name.upper()
    # A cue must start with a letter and be all capitals; anything else (劉備, "1 Clown") is forced.
    plain = upper != name.lower() and re.match(r"[^\W\d_]", upper) and not re.search(r"[a-z]", upper)
    return upper if plain else f"@{name}"


def render_fountain(world: World, events: list[SimEvent], *, positions: dict[str, str] | None = None,
                    max_rounds: int = MAX_SCENE_ROUNDS, title: str | None = None, note: str = "",
                    player: str | None = None) -> str:
    """A run's events as a Fountain screenplay (fountain.io) that screenwriting apps open."""
    staged = staged_events(world, events, positions, player)
    grouped = scenes_of(staged, max_rounds=max_rounds)
    title = title or world.file.world.title
    lines = [f"Title: {title}", "Credit: Played out in storyworld", f"Source: {world.file.world.source or world.file.world.id}"]
    if note:
        lines.append(f"Notes: {note}")
    lines.append("")
    for group in grouped:
        first, last = group[0].round, group[-1].round
        span = f"ROUND {first}" if first == last else f"ROUND {first}-{last}"
        place = " ".join(world.name_of(group[0].place).split()).upper()
        lines += ["", f"INT. {place} - {span}", ""]
        for item in group:
            if item.kind == "say":
                lines.append(_cue(world.name_of(item.actor)))
                if item.to:
                    lines.append(f"(to {world.name_of(item.to)})")
                lines += [" ".join(item.text.split()) or "...", ""]
            else:
                text = " ".join(item.text.split())
                # An action line that would read as a scene heading or cue is forced to stay action.
                forced = "!" if re.match(r"^(INT|EXT|EST|I/E)[./\s]", text, re.I) or text.isupper() else ""
                lines += [f"{forced}{text}", ""]
        while lines and lines[-1] == "":
            lines.pop()
    return "\n".join(lines) + "\n"


def render_simulation(sim: Run) -> Screenplay:
    """The screenplay of a simulation's run so far (from its start positions)."""
    note = f"From the start \u201c{sim.state.start_id}\u201d, memory backend {sim.settings.backend}."
    return render(sim.world, sim.state.events, positions=sim.world.start_positions(sim.state.start_id), note=note,
                  player=sim.settings.player)


__all__ = ["StagedEvent", "ScreenplayScene", "Screenplay", "staged_events", "render", "render_fountain", "render_simulation", "scenes_of"]
