"""The world stage of the play pipeline: the reading (scenes and events in keys) becomes a world with ids.

Places are the scene headings' places (a short key that abbreviates one fuller key is that place),
agents everyone who speaks or is brought on (with a dramatis personae, a few lines by someone it
does not list are a voice quoted in the canon, nobody to play), starts the opening and each act.
The assembly itself (ids of events, exits, homes, who is playable, positions) is `assemble`'s.
"""

from __future__ import annotations

import msgspec

from storyworld.authoring.assemble import (
    AgentDraft,
    EventDraft,
    PlaceDraft,
    StartDraft,
    appearance_order,
    assemble_world,
    assign_ids,
)
from storyworld.authoring.common import trim_text
from storyworld.authoring.play.figures import CastFigures, cast_figures
from storyworld.authoring.play.personae import Persona
from storyworld.authoring.play.places import merge_place_keys, place_display, where_set
from storyworld.authoring.play.props import world_objects
from storyworld.authoring.play.reader import PlayReading, ScenePlan
from storyworld.authoring.play.roster import SpeakerRoster
from storyworld.authoring.play.text import name_key, titlecase
from storyworld.world.schema import Event, WorldFile, WorldInfo

BUSIEST_PLAYABLE = 3  # without a dramatis personae nobody is known to be a principal: the busiest speakers are
PRINCIPAL_SPEECHES = 5  # an unnamed speaker with this many speeches is playable all the same


class Scene(msgspec.Struct, frozen=True, kw_only=True):
    """One scene of the drafted world: its place and people as ids, and the ids of its events."""

    act: int
    number: int
    heading: str
    place: str  # place id
    present: list[str] = msgspec.field(default_factory=list)  # agent ids, in order of arrival
    speeches: int = 0
    first_round: int = 0
    dead: list[str] = msgspec.field(default_factory=list)  # agent ids of who had died before the scene began
    first_event: int = 0  # index into the world's events
    events: list[str] = msgspec.field(default_factory=list)  # ids of the scene's events


class PlayParse(msgspec.Struct, kw_only=True):
    """The parser's full result: the world plus its scenes (for tests, the bench and the review screen)."""

    world: WorldFile
    scenes: list[Scene]
    layout: str
    warnings: list[str] = msgspec.field(default_factory=list)
    personae: list[Persona] = msgspec.field(default_factory=list)

    def figures(self) -> CastFigures:
        """How the draft's cast, places and starts compare with the edition's own dramatis personae."""
        return cast_figures(self.world, self.personae, [scene.act for scene in self.scenes])

    def scene(self, act: int, number: int) -> Scene:
        """The scene `act.number`; KeyError when the play has no such scene."""
        for scene in self.scenes:
            if scene.act == act and scene.number == number:
                return scene
        raise KeyError(f"no scene {act}.{number}")

    def scene_events(self, act: int, number: int) -> list[Event]:
        """The events of scene `act.number`, in order."""
        wanted = set(self.scene(act, number).events)
        return [event for event in self.world.event if event.id in wanted]


def build_world(reading: PlayReading, cast: SpeakerRoster, *, world_id: str, title: str,
                source: str) -> tuple[WorldFile, list[Scene]]:
    """The drafted world and its scenes, with ids."""
    scenes = reading.scenes
    keys = list(dict.fromkeys(scene.place for scene in scenes)) or ["stage"]
    place_ids = _place_ids(keys)
    drafted_key, places = _places(keys, place_ids, scenes, reading.place_texts)
    voices = cast.voices()
    events = [_voiced(msgspec.structs.replace(event, place=drafted_key[event.place]), voices, cast)
              for event in reading.events]
    appearing = appearance_order(events)
    agent_ids = assign_ids(((key, cast.display[key]) for key in appearing), "agent", set())
    agents = [_agent(key, agent_ids[key], cast) for key in appearing]
    starts = _starts(scenes, events)
    info = WorldInfo(id=world_id, title=title, source=source, default_start=starts[0].id if starts else "",
                     description=f"Drafted from the play by the storyworld play parser: {len(scenes)} scenes.")
    world = assemble_world(
        info, places=places, agents=agents, events=events, starts=starts,
        place_order=[drafted_key[scene.place] for scene in scenes],
        objects=world_objects(reading.props, agent_ids, place_ids), busiest_when_no_principal=BUSIEST_PLAYABLE,
    )
    return world, _scenes_with_ids(scenes, world, place_ids, agent_ids)


def _place_ids(keys: list[str]) -> dict[str, str]:
    """Scene place key -> place id: a short key that abbreviates one fuller key takes the fuller one's id."""
    canonical = merge_place_keys(keys)
    place_ids: dict[str, str] = {}
    taken: set[str] = set()
    for key in keys:
        if canonical[key] not in place_ids:
            place_ids.update(assign_ids([(canonical[key], canonical[key])], "place", taken))
        place_ids[key] = place_ids[canonical[key]]
    return place_ids


def _places(keys: list[str], place_ids: dict[str, str], scenes: list[ScenePlan],
            place_texts: dict[str, list[str]]) -> tuple[dict[str, str], list[PlaceDraft]]:
    """(scene place key -> the key its place is drafted under, the places), each named by its longest heading."""
    scenes_at: dict[str, list[str]] = {}
    for scene in scenes:
        scenes_at.setdefault(place_ids[scene.place], []).append(f"{scene.act}.{scene.number}")
    drafted: dict[str, str] = {}  # place id -> the first key that has it
    for key in keys:
        drafted.setdefault(place_ids[key], key)
    places = []
    for place_id, key in drafted.items():
        names = [t for k in keys if place_ids[k] == place_id for t in place_texts.get(k, [])]
        display = place_display(max(names, key=len)) if names else titlecase(key)
        places.append(PlaceDraft(key=key, id=place_id, name=display, description=where_set(scenes_at.get(place_id, []))))
    return {key: drafted[place_ids[key]] for key in keys}, places


def _agent(key: str, agent_id: str, cast: SpeakerRoster) -> AgentDraft:
    """Everyone who speaks or is brought on stage; a named persona (or a busy speaker) is a principal."""
    speeches = cast.speeches.get(key, 0)
    crowd = key in cast.groups
    aliases = sorted(a for a in cast.aliases.get(key, set()) if name_key(a) != name_key(cast.display[key]))
    return AgentDraft(key=key, id=agent_id, name=cast.display[key], description=cast.description.get(key, ""),
                      aliases=tuple(aliases), speeches=speeches, crowd=crowd,
                      principal=not crowd and (cast.named.get(key, False) or speeches >= PRINCIPAL_SPEECHES))


def _voiced(event: EventDraft, voices: set[str], cast: SpeakerRoster) -> EventDraft:
    """An event with its voices taken out: a voice's speech becomes narration that quotes it."""
    if not voices or not (voices & {*event.actors, *event.witnesses}):
        return event
    actors = tuple(k for k in event.actors if k not in voices)
    witnesses = tuple(k for k in event.witnesses if k not in voices)
    kind, text = event.kind, event.text
    if not actors and event.actors:
        if kind == "say":
            names = " and ".join(cast.display[k] for k in event.actors)
            text = trim_text(f"{names}: “{event.text}”")
        kind = "narration"
    return msgspec.structs.replace(event, actors=actors, witnesses=witnesses, kind=kind, text=text)


def _starts(scenes: list[ScenePlan], events: list[EventDraft]) -> list[StartDraft]:
    """A start at the beginning, and one at the first event of each later act (the dead absent)."""
    if not events:
        return [StartDraft(id="beginning", round=0, description="Before the play begins.")]
    starts = [StartDraft(id="beginning", round=events[0].round, description="The opening of the play.", seen_through=1)]
    seen_acts = {scenes[0].act} if scenes else set()
    for scene in scenes[1:]:
        if scene.act in seen_acts:
            continue
        seen_acts.add(scene.act)
        first = next((i for i, e in enumerate(events) if e.round >= scene.first_round), None)
        if first is None:
            continue
        starts.append(StartDraft(id=f"act-{scene.act}", round=events[first].round,
                                 description=f"The beginning of act {scene.act}.", seen_through=first + 1,
                                 absent=scene.dead))
    return starts


def _scenes_with_ids(scenes: list[ScenePlan], world: WorldFile, place_ids: dict[str, str],
                     agent_ids: dict[str, str]) -> list[Scene]:
    """The scene plans in the world's ids, each with the ids of its events."""
    out = []
    for index, scene in enumerate(scenes):
        end = scenes[index + 1].first_event if index + 1 < len(scenes) else len(world.event)
        out.append(Scene(
            act=scene.act, number=scene.number, heading=scene.heading, place=place_ids[scene.place],
            present=[agent_ids[k] for k in scene.present if k in agent_ids], speeches=scene.speeches,
            first_round=scene.first_round, dead=[agent_ids[k] for k in scene.dead if k in agent_ids],
            first_event=scene.first_event, events=[event.id for event in world.event[scene.first_event:end]],
        ))
    return out
