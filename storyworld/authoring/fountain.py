"""Fountain screenplays (fountain.io): read one into a draft world, write a run as one.

Our own reader of the plain-text spec, not a registry package: the ones on PyPI are either
unmaintained (`fountain` 0.1.3, 2016) or converters that pull in PDF and HTML renderers
(`screenplain`) for what is a few dozen lines of line classification. Reading: title page,
scene headings (`INT.`/`EXT.`/`EST.`/`INT./EXT.`/`I/E`, or forced with `.`), character cues
(upper case with extensions, or forced with `@`), parentheticals, dialogue, transitions, action;
boneyard `/* */`, notes `[[ ]]`, sections `#` and synopses `=` are dropped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Literal

import msgspec

from storyworld.authoring.common import CancelToken, ProgressCallback, check_cancel, event_ids, report, slugify, trim_text, unique_id
from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo

ElementKind = Literal["heading", "character", "dialogue", "parenthetical", "action", "transition"]
SCENE_RE = re.compile(r"^(?:INT\.?/EXT|INT/EXT|I/E|INT|EXT|EST)[.\s]", re.I)
SCENE_NUMBER_RE = re.compile(r"\s*#[\w.\-]+#\s*$")
TIME_SUFFIX_RE = re.compile(r"\s+[-–—]\s+(?:DAY|NIGHT|MORNING|EVENING|DUSK|DAWN|LATER|CONTINUOUS|MOMENTS LATER|SAME|"
                            r"AFTERNOON|NOON|MIDNIGHT|SUNSET|SUNRISE|ROUND\s+\d+(?:\s*[-–]\s*\d+)?)\b.*$", re.I)
EXTENSION_RE = re.compile(r"\s*\((?:[^)]*)\)\s*")
SPEECHES_PER_ROUND = 6


class Element(msgspec.Struct, frozen=True, kw_only=True):
    """One element of a screenplay, in order."""

    kind: ElementKind
    text: str
    line: int = 0


class Screenplay(msgspec.Struct, kw_only=True):
    """A parsed Fountain file: its title page and its elements."""

    title: dict[str, str]
    elements: list[Element]


EMPHASIS_RE = re.compile(r"(?<!\\)(\*{1,3}|_)(?=\S)(.+?)(?<=\S)(?<!\\)\1")


def _plain(text: str) -> str:
    """Text without Fountain emphasis marks (`*italics*`, `**bold**`, `_underline_`) or escapes."""
    previous = None
    while previous != text:
        previous, text = text, EMPHASIS_RE.sub(r"\2", text)
    return text.replace("\\*", "*").replace("\\_", "_")


def _strip_markup(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # boneyard
    return re.sub(r"\[\[.*?\]\]", "", text, flags=re.S)  # notes


def _is_character(line: str) -> bool:
    stripped = line.strip()
    if stripped.startswith("@"):
        return True
    name = EXTENSION_RE.sub("", stripped).rstrip("^").strip()
    return bool(re.search(r"[A-Z]", name)) and name == name.upper() and not stripped.endswith("TO:") and not name[:1].isdigit()


def parse_fountain(text: str) -> Screenplay:
    """The title page and the elements of a Fountain screenplay."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    lines = text.split("\n")
    title: dict[str, str] = {}
    index = 0
    if lines and re.match(r"^[A-Za-z][\w ]*:", lines[0]):
        key = ""
        while index < len(lines) and lines[index].strip():
            line = lines[index]
            match = re.match(r"^([A-Za-z][\w ]*):\s*(.*)$", line)
            if match and not line.startswith((" ", "\t")):
                key = match.group(1).strip().lower()
                title[key] = match.group(2).strip()
            elif key:
                title[key] = f"{title[key]} {line.strip()}".strip()
            index += 1
    body = _strip_markup("\n".join(lines[index:])).split("\n")
    elements: list[Element] = []
    in_dialogue = False
    for number, raw in enumerate(body, index + 1):
        line = raw.rstrip()
        stripped = line.strip()
        previous_blank = number - index - 2 < 0 or not body[number - index - 2].strip()
        following = body[number - index].strip() if number - index < len(body) else ""
        if not stripped:
            in_dialogue = False
            continue
        if stripped.startswith(("#", "=")) and not stripped.startswith("==="):
            continue  # sections and synopses
        if stripped.startswith("==="):
            continue  # page break
        if in_dialogue:
            kind: ElementKind = "parenthetical" if stripped.startswith("(") and stripped.endswith(")") else "dialogue"
            elements.append(Element(kind=kind, text=stripped, line=number))
            continue
        if stripped.startswith("!"):
            elements.append(Element(kind="action", text=stripped[1:].strip(), line=number))
            continue
        if previous_blank and (SCENE_RE.match(stripped) or (stripped.startswith(".") and not stripped.startswith(".."))):
            heading = stripped[1:] if stripped.startswith(".") else stripped
            elements.append(Element(kind="heading", text=SCENE_NUMBER_RE.sub("", heading).strip(), line=number))
            continue
        if stripped.startswith(">") and not stripped.endswith("<"):
            elements.append(Element(kind="transition", text=stripped[1:].strip(), line=number))
            continue
        if previous_blank and stripped.isupper() and stripped.endswith("TO:"):
            elements.append(Element(kind="transition", text=stripped, line=number))
            continue
        if previous_blank and following and _is_character(stripped):
            name = EXTENSION_RE.sub(" ", stripped.lstrip("@")).rstrip("^").strip()
            elements.append(Element(kind="character", text=" ".join(name.split()), line=number))
            in_dialogue = True
            continue
        text = stripped.strip("><").strip() if stripped.startswith(">") else stripped
        if elements and elements[-1].kind == "action" and not previous_blank:
            last = elements[-1]
            elements[-1] = Element(kind="action", text=f"{last.text} {text}", line=last.line)
        else:
            elements.append(Element(kind="action", text=text, line=number))
    return Screenplay(title=title, elements=elements)


def looks_like_fountain(text: str) -> bool:
    """Whether a text reads as a Fountain screenplay: scene headings and character cues with dialogue."""
    play = parse_fountain(text)
    headings = sum(1 for e in play.elements if e.kind == "heading")
    cues = sum(1 for e in play.elements if e.kind == "character")
    return headings >= 1 and cues >= 2


def place_name(heading: str) -> str:
    """`INT. HARBOUR OFFICE - NIGHT` -> `Harbour Office`."""
    text = re.sub(r"^(?:INT\.?/EXT\.?|INT/EXT\.?|I/E\.?|INT\.?|EXT\.?|EST\.?)\s*", "", heading.strip(), flags=re.I)
    text = TIME_SUFFIX_RE.sub("", text).strip(" .-–—")
    return _title(text) if text.isupper() else text


def character_name(cue: str) -> str:
    """`FIRST FISHER` -> `First Fisher`."""
    return _title(cue)


def _title(text: str) -> str:
    small = {"of", "the", "and", "in", "on", "at", "to", "a"}
    words = text.lower().split()
    return " ".join(w if i and w in small else w[:1].upper() + w[1:] for i, w in enumerate(words))


class _Beat(msgspec.Struct, kw_only=True):
    kind: str
    place: str
    actors: list[str]
    text: str
    scene: int


def author_fountain(
    text: str,
    *,
    world_id: str = "screenplay",
    title: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
) -> WorldFile:
    """A draft world from a Fountain screenplay: sluglines -> places, cues -> agents, dialogue -> say events."""
    play = parse_fountain(text)
    report(progress, 0, len(play.elements), "reading the screenplay")
    places: dict[str, str] = {}  # normalised name -> display
    agents: dict[str, str] = {}  # normalised cue -> display
    beats: list[_Beat] = []
    place = ""
    scene = 0
    speaker = ""
    lines: list[str] = []

    def flush() -> None:
        nonlocal lines
        said = " ".join(lines).strip()
        if speaker and said:
            beats.append(_Beat(kind="say", place=place or "somewhere", actors=[speaker], text=said, scene=scene))
        lines = []

    for index, element in enumerate(play.elements):
        if index % 500 == 0:
            check_cancel(cancel)
        if element.kind == "heading":
            flush()
            speaker = ""
            name = place_name(element.text) or "Somewhere"
            place = name.casefold()
            places.setdefault(place, name)
            scene += 1
        elif element.kind == "character":
            flush()
            speaker = element.text.casefold()
            agents.setdefault(speaker, character_name(element.text))
        elif element.kind == "dialogue":
            lines.append(_plain(element.text))
        elif element.kind == "parenthetical":
            continue
        elif element.kind == "action":
            flush()
            speaker = ""
            beats.append(_Beat(kind="narration", place=place or "somewhere", actors=[], text=_plain(element.text),
                               scene=scene))
    flush()
    if "somewhere" in {b.place for b in beats}:
        places.setdefault("somewhere", "Somewhere")
    report(progress, len(play.elements), len(play.elements), "building the world")

    taken: set[str] = set()
    place_ids = {key: unique_id(slugify(name, "place"), taken) for key, name in places.items() if any(b.place == key for b in beats)}
    if not place_ids:
        place_ids = {"somewhere": "somewhere"}
        places["somewhere"] = "Somewhere"
    agent_ids = {key: unique_id(slugify(name, "agent"), taken) for key, name in agents.items()}
    # Who is in a scene: everyone who speaks in it, and anyone the action names.
    present: dict[int, list[str]] = defaultdict(list)
    for beat in beats:
        for key in beat.actors:
            if key not in present[beat.scene]:
                present[beat.scene].append(key)
    for beat in beats:
        if beat.kind == "narration":
            named = [k for k, name in agents.items() if re.search(rf"\b{re.escape(name)}\b", beat.text, re.I)]
            beat.actors = named[:3]
            for key in named:
                if key not in present[beat.scene]:
                    present[beat.scene].append(key)
    events: list[Event] = []
    ids = event_ids(len(beats))
    round_number, said_in_scene, last_scene = 1, 0, None
    home: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for event_id, beat in zip(ids, beats):
        if last_scene is not None and beat.scene != last_scene:
            round_number += 1
            said_in_scene = 0
        elif said_in_scene and said_in_scene % SPEECHES_PER_ROUND == 0 and beat.kind == "say":
            round_number += 1
        last_scene = beat.scene
        if beat.kind == "say":
            said_in_scene += 1
        witnesses = [agent_ids[k] for k in present[beat.scene]]
        for who in witnesses:
            home[who][place_ids[beat.place]] += 1
        kind = "say" if beat.kind == "say" else ("act" if beat.actors else "narration")
        events.append(Event(id=event_id, round=round_number, place=place_ids[beat.place],
                            actors=[agent_ids[k] for k in beat.actors], witnesses=witnesses, kind=kind,  # type: ignore[arg-type]
                            text=trim_text(beat.text)))
    ordered_places = list(place_ids.values())
    exits: dict[str, list[str]] = defaultdict(list)
    for before, after in zip(events, events[1:]):
        if before.place != after.place:
            if after.place not in exits[before.place]:
                exits[before.place].append(after.place)
            if before.place not in exits[after.place]:
                exits[after.place].append(before.place)
    by_id = {place_ids[k]: places[k] for k in place_ids}
    world_places = [Place(id=pid, name=by_id[pid], exits=exits.get(pid, [])) for pid in ordered_places]
    speeches: dict[str, int] = defaultdict(int)
    for event in events:
        if event.kind == "say":
            speeches[event.actors[0]] += 1
    world_agents = []
    for key, agent_id in agent_ids.items():
        places_of = home.get(agent_id)
        world_agents.append(Agent(id=agent_id, name=agents[key], home=max(places_of, key=places_of.get) if places_of else ordered_places[0],
                                  playable=speeches.get(agent_id, 0) >= 1))
    start_round = events[0].round if events else 0
    info = WorldInfo(id=world_id, title=title or play.title.get("title", "") or world_id.replace("-", " ").title(),
                     source=play.title.get("author", "") or play.title.get("authors", ""), default_start="beginning",
                     description=f"Drafted from a Fountain screenplay: {len(places)} scene places.")
    start = Start(id="beginning", round=start_round, description="The opening of the screenplay.")
    return WorldFile(world=info, place=world_places, agent=world_agents, event=events, start=[start])
