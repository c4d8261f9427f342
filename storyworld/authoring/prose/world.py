"""The world stage of the prose pipeline: extractions placed in story order, then assembled into a world.

A chunk that names no place keeps the chapter's last place (prose keeps its scene until it names
another); the first one of a chapter without a place is flagged. Agents are the persons who take
part, the most mentioned a dozen playable; a start opens each chapter. The assembly itself (event
ids, exits, homes, positions) is `assemble`'s.
"""

from __future__ import annotations

from collections import Counter

import msgspec

from storyworld.authoring.assemble import AgentDraft, EventDraft, PlaceDraft, StartDraft, assemble_world
from storyworld.authoring.common import trim_text
from storyworld.authoring.prose.parts import Chapter, Chunk, Extraction, ProseMentions
from storyworld.authoring.prose.script import HAN_RE
from storyworld.world.schema import WorldFile, WorldInfo

UNKNOWN_PLACE = "unplaced"
PLAYABLE_PERSONS = 12  # the most mentioned persons who take part are playable


class Placed(msgspec.Struct, frozen=True, kw_only=True):
    """An extraction with the place it happens at (its own, the chapter's last, or unknown) and its flags."""

    chunk: Chunk
    extraction: Extraction
    place: str


def place_extractions(extractions: list[tuple[Chunk, Extraction]]) -> list[Placed]:
    """Each extraction placed: the chapter's last place carries over; no place at all, or one actor, is flagged."""
    previous_place: str | None = None
    previous_chapter = None
    placed: list[Placed] = []
    for chunk, extraction in extractions:
        if chunk.chapter != previous_chapter:
            previous_place, previous_chapter = None, chunk.chapter
        place = extraction.place
        flags = list(extraction.flags)
        if place is None:
            if previous_place is not None:
                place = previous_place  # prose keeps its scene until it names another: not doubtful
            else:
                place = UNKNOWN_PLACE
                flags.append("no place found")
        if len(extraction.actors) == 1:
            flags.append("single actor")
        previous_place = place
        placed.append(Placed(chunk=chunk, extraction=msgspec.structs.replace(extraction, flags=flags), place=place))
    return placed


def build_world(placed: list[Placed], cast: ProseMentions, chapters: list[Chapter], *, world_id: str, title: str,
                source: str) -> WorldFile:
    """The drafted world: one event per placed extraction, a round each, a start per chapter."""
    events = [EventDraft(round=round_number, place=p.place, kind=p.extraction.kind,  # type: ignore[arg-type]
                         actors=tuple(p.extraction.actors), witnesses=tuple(p.extraction.witnesses),
                         text=p.extraction.text, statements=tuple(p.extraction.statements), flags=tuple(p.extraction.flags))
              for round_number, p in enumerate(placed, 1)]
    info = WorldInfo(id=world_id, title=title, source=source, default_start="beginning",
                     description=f"Drafted from prose by the storyworld prose pipeline: {len(chapters)} chapters.")
    return assemble_world(info, places=_places(placed, cast), agents=_agents(placed, cast), events=events,
                          starts=_starts(placed, chapters))


def _places(placed: list[Placed], cast: ProseMentions) -> list[PlaceDraft]:
    """The places events happen at, in the order first used (the unknown place when there are none)."""
    places = []
    for place_id in list(dict.fromkeys(p.place for p in placed)) or [UNKNOWN_PLACE]:
        if place_id == UNKNOWN_PLACE:
            places.append(PlaceDraft(key=UNKNOWN_PLACE, id=UNKNOWN_PLACE, name="Somewhere not yet placed",
                                     description="Events whose place the text did not give; review them."))
        else:
            native = cast.places[place_id] if HAN_RE.search(cast.places[place_id]) else ""
            places.append(PlaceDraft(key=place_id, id=place_id,
                                     name=cast.place_english.get(place_id) or cast.places[place_id],
                                     description=f"Named {cast.place_mentions[place_id]} times in the source.",
                                     native_name=native))
    return places


def _agents(placed: list[Placed], cast: ProseMentions) -> list[AgentDraft]:
    """Everyone who takes part in an event, most mentioned first."""
    appearing: Counter[str] = Counter(person_id for p in placed for person_id in p.extraction.witnesses)
    ranked = sorted(appearing, key=lambda person_id: (-cast.persons[person_id].mentions, person_id))
    agents = []
    for rank, person_id in enumerate(ranked):
        person = cast.persons[person_id]
        agents.append(AgentDraft(key=person_id, id=person_id, name=person.name,
                                 description=trim_text(person.first_sentence, 240), aliases=tuple(person.aliases),
                                 native_name=person.name if HAN_RE.search(person.name) else "",
                                 principal=rank < PLAYABLE_PERSONS))
    return agents


def _starts(placed: list[Placed], chapters: list[Chapter]) -> list[StartDraft]:
    """The beginning, and the first event of each later chapter (everyone where the story last saw them)."""
    chapter_first_round: dict[int, int] = {}
    for round_number, p in enumerate(placed, 1):
        chapter_first_round.setdefault(p.chunk.chapter, round_number)
    starts = [StartDraft(id="beginning", round=1, description="The beginning of the story.")]
    for chapter in chapters[1:]:
        first = chapter_first_round.get(chapter.number)
        if first is None or first <= 1:
            continue
        starts.append(StartDraft(id=f"chapter-{chapter.number}", round=first,
                                 description=trim_text(f"Chapter {chapter.number}: {chapter.title}", 200),
                                 seen_through=first - 1))
    return starts
