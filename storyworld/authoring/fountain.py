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

from storyworld.authoring.assemble import AgentDraft, EventDraft, PlaceDraft, StartDraft, assemble_world, assign_ids
from storyworld.authoring.common import CancelToken, ProgressCallback, check_cancel, is_stage_business, report, trim_text
from storyworld.world.schema import CanonKind, WorldFile, WorldInfo

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


class FountainScript(msgspec.Struct, kw_only=True):
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


def parse_fountain(text: str) -> FountainScript:
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
    return FountainScript(title=title, elements=elements)


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


class _Beat(msgspec.Struct, frozen=True, kw_only=True):
    """A line of dialogue or a piece of action, in the screenplay's keys (casefolded cues and places)."""

    kind: str
    place: str
    actors: tuple[str, ...]
    text: str
    scene: int
    named: tuple[str, ...] = ()  # action: every character it names (the first three act)


class _Reading(msgspec.Struct, frozen=True, kw_only=True):
    """What the elements give: places and characters (key -> display name) and the beats in order."""

    places: dict[str, str]
    agents: dict[str, str]
    beats: list[_Beat]


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
    reading = _read(play, cancel)
    report(progress, len(play.elements), len(play.elements), "building the world")
    return _world(play, reading, world_id=world_id, title=title)


def _read(play: FountainScript, cancel: CancelToken) -> _Reading:
    """Beats in order: each cue's dialogue one say beat, each action a narration beat, scene by scene."""
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
            beats.append(_Beat(kind="say", place=place or "somewhere", actors=(speaker,), text=said, scene=scene))
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
        elif element.kind == "action":
            flush()
            speaker = ""
            beats.append(_Beat(kind="narration", place=place or "somewhere", actors=(), text=_plain(element.text),
                               scene=scene))
    flush()
    if "somewhere" in {b.place for b in beats}:
        places.setdefault("somewhere", "Somewhere")
    return _Reading(places=places, agents=agents, beats=[_named(beat, agents) for beat in beats])


def _named(beat: _Beat, agents: dict[str, str]) -> _Beat:
    """A piece of action with the characters it names: the first three act in it."""
    if beat.kind != "narration":
        return beat
    named = tuple(k for k, name in agents.items() if re.search(rf"\b{re.escape(name)}\b", beat.text, re.I))
    return msgspec.structs.replace(beat, actors=named[:3], named=named)


def _world(play: FountainScript, reading: _Reading, *, world_id: str, title: str | None) -> WorldFile:
    """The world: a place per slugline that has beats, an agent per cue, everyone in a scene witnessing it."""
    places, agents, beats = dict(reading.places), reading.agents, reading.beats
    taken: set[str] = set()
    place_ids = assign_ids(((key, name) for key, name in places.items() if any(b.place == key for b in beats)),
                           "place", taken)
    if not place_ids:
        place_ids = {"somewhere": "somewhere"}
        places["somewhere"] = "Somewhere"
    agent_ids = assign_ids(agents.items(), "agent", taken)
    events = _events(beats)
    speeches: dict[str, int] = defaultdict(int)
    for event in events:
        if event.kind == "say":
            speeches[event.actors[0]] += 1
    info = WorldInfo(id=world_id, title=title or play.title.get("title", "") or world_id.replace("-", " ").title(),
                     source=play.title.get("author", "") or play.title.get("authors", ""), default_start="beginning",
                     description=f"Drafted from a Fountain screenplay: {len(places)} scene places.")
    start = StartDraft(id="beginning", round=events[0].round if events else 0,
                       description="The opening of the screenplay.")
    return assemble_world(
        info, places=[PlaceDraft(key=key, id=place_id, name=places[key]) for key, place_id in place_ids.items()],
        agents=[AgentDraft(key=key, id=agent_id, name=agents[key], speeches=speeches.get(key, 0),
                           principal=speeches.get(key, 0) >= 1) for key, agent_id in agent_ids.items()],
        events=events, starts=[start],
    )


def _events(beats: list[_Beat]) -> list[EventDraft]:
    """Events in keys: everyone who speaks in a scene or its action names witnesses all of it.

    A round per scene, and one more after every SPEECHES_PER_ROUND lines within a scene.
    """
    present: dict[int, list[str]] = defaultdict(list)  # who speaks in each scene, then whom its action names
    for beat in [*(b for b in beats if b.kind == "say"), *(b for b in beats if b.kind == "narration")]:
        for key in beat.actors if beat.kind == "say" else beat.named:
            if key not in present[beat.scene]:
                present[beat.scene].append(key)
    events: list[EventDraft] = []
    round_number, said_in_scene, last_scene = 1, 0, None
    for beat in beats:
        if last_scene is not None and beat.scene != last_scene:
            round_number += 1
            said_in_scene = 0
        elif said_in_scene and said_in_scene % SPEECHES_PER_ROUND == 0 and beat.kind == "say":
            round_number += 1
        last_scene = beat.scene
        if beat.kind == "say":
            said_in_scene += 1
        kind: CanonKind = "say" if beat.kind == "say" else ("act" if beat.actors else "narration")
        events.append(EventDraft(round=round_number, place=beat.place, kind=kind, actors=beat.actors,
                                 witnesses=tuple(present[beat.scene]), text=trim_text(beat.text),
                                 staging=kind != "say" and is_stage_business(beat.text)))
    return events
