"""The reading stage of the play pipeline: items in order -> scenes and events, in agent and place keys.

Scenes open places, directions move people on and off and act (clause by clause: a dumb show,
entrances, exits, deaths, props), speeches are said (asides heard by the speakers only, lines
from within marked so). Nothing here has an id yet: `play.world` gives them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import msgspec

from storyworld.authoring.assemble import EventDraft
from storyworld.authoring.common import (CancelToken, ProgressCallback, check_cancel, fold, is_stage_business, report,
                                         trim_text)
from storyworld.authoring.play.places import ANOTHER_PART_RE, place_key_in, scene_location
from storyworld.authoring.play.props import Prop, PropTracker
from storyworld.authoring.play.roster import SpeakerRoster
from storyworld.authoring.play.text import INLINE_RE, name_key, singular
from storyworld.authoring.play.tokens import Item
from storyworld.world.schema import CanonKind

MODIFIER_RE = re.compile(
    r"^(aside|within|beneath|behind|sings?|singing|reads?|reading|to [a-z].*|cries under the stage|"
    r"above|aloud|apart|whispers?)$",
    re.I,
)
OFFSTAGE_MODIFIERS = {"within", "beneath", "cries under the stage", "above"}
REPORTED_DEATH_RE = re.compile(r"(?P<name>\b[A-Z][\w’'\-]+(?: [A-Z][\w’'\-]+)?) is (?:dead|slain|drown[’']?d|drowned|no more)\b[^.!?]*[.!?]?")
DEATH_RE = re.compile(r"\b(dies|die|is slain|are slain|is killed|are killed|falls dead|expires)\b")
# First words of a bare direction that name a sound or sight, not something the last speaker does.
NOISE_WORDS = {
    "trumpets", "trumpet", "flourish", "march", "noise", "cannon", "ordnance", "cock", "peal",
    "shot", "alarum", "alarums", "music", "thunder", "bell", "bells", "hautboys", "drums", "drum",
    "sennet", "storm", "lightning", "a", "an", "the", "danish", "dead", "they", "enter", "all",
}


class ScenePlan(msgspec.Struct, frozen=True, kw_only=True):
    """One scene as the reader leaves it: its place and who was present, as keys (the world gives ids)."""

    act: int
    number: int
    heading: str
    place: str  # place key
    present: tuple[str, ...] = ()  # agent keys, in order of arrival
    speeches: int = 0
    first_round: int = 0
    dead: tuple[str, ...] = ()  # agent keys of who had died before the scene began
    first_event: int = 0  # index of the scene's first event in the reading's events


@dataclass
class _OpenScene:
    """The scene being read: the same fields as a ScenePlan, still growing."""

    act: int
    number: int
    heading: str
    place: str
    first_round: int
    dead: list[str]
    first_event: int
    present: list[str] = field(default_factory=list)
    speeches: int = 0

    def plan(self) -> ScenePlan:
        return ScenePlan(act=self.act, number=self.number, heading=self.heading, place=self.place,
                         present=tuple(self.present), speeches=self.speeches, first_round=self.first_round,
                         dead=tuple(self.dead), first_event=self.first_event)


class PlayReading(msgspec.Struct, frozen=True, kw_only=True):
    """What reading the play's items gives: scenes and events in keys, place names, props, warnings."""

    scenes: list[ScenePlan]
    events: list[EventDraft]
    place_texts: dict[str, list[str]]  # place key -> the headings' names for it
    props: list[Prop]
    warnings: list[str]


def read_play(items: list[Item], cast: SpeakerRoster, setting: str, speeches_per_round: int, *,
              progress: ProgressCallback | None = None, cancel: CancelToken = None) -> PlayReading:
    """Read the items in order (scenes, directions, speeches) into scenes and events, in keys."""
    reader = _PlayReader(cast, setting, speeches_per_round)
    total = len(items)
    for index, item in enumerate(items):
        if index % 200 == 0:
            check_cancel(cancel)
            report(progress, index, total, "parsing the play")
        reader.read(item)
    return PlayReading(scenes=[scene.plan() for scene in reader.scenes], events=reader.events,
                       place_texts=dict(reader.place_texts), props=reader.props.seen(), warnings=reader.warnings)


def _unbracket(text: str) -> str:
    """Strip the brackets and italics marks around a stage direction."""
    text = text.strip()
    text = re.sub(r"^\[\s*_?|_?\s*\]$", "", text)
    text = re.sub(r"^\(|\)$", "", text)
    return text.strip().strip("_").strip()


class _Stage:
    """Who is on stage in the current scene, and who has died."""

    def __init__(self) -> None:
        self.present: list[str] = []
        self.dead: set[str] = set()
        self.reported: set[str] = set()  # said to be dead; a report can be false (Hero in Much Ado)

    def gone(self) -> set[str]:
        """Who is out of the play: dead on stage, or reported dead and not seen since."""
        return self.dead | self.reported

    def enter(self, keys: list[str]) -> list[str]:
        self.reported -= set(keys)  # whoever walks on was not dead after all
        entered = [k for k in keys if k not in self.present and k not in self.dead]
        self.present.extend(entered)
        return entered

    def leave(self, keys: list[str]) -> list[str]:
        left = [k for k in keys if k in self.present]
        self.present = [k for k in self.present if k not in left]
        return left


class _PlayReader:
    """Reads a play's items in order: scenes open places, directions move people and act, speeches are said."""

    def __init__(self, cast: SpeakerRoster, setting: str, speeches_per_round: int) -> None:
        self.cast = cast
        self.setting = setting
        self.speeches_per_round = speeches_per_round
        self.warnings: list[str] = []
        self.scenes: list[_OpenScene] = []
        self.events: list[EventDraft] = []
        self.stage = _Stage()
        self.act = 0
        self.round_base = 0
        self.speeches_in_scene = 0
        self.last_speakers: list[str] = []
        self.recent_speakers: list[str] = []
        self.show_mode = False
        self.place_texts: dict[str, list[str]] = defaultdict(list)
        self.props = PropTracker()
        self.place_cities: dict[str, str] = {}  # place key -> the town its heading named, to tell two towns' streets apart
        self.current_city = ""

    def read(self, item: Item) -> None:
        """Take one item of the play."""
        if item.kind == "act":
            self.act = item.number
        elif item.kind == "scene":
            self.open_scene(item)
        elif not self.scenes:
            return
        elif item.kind == "direction":
            self.direction(_unbracket(item.text))
        else:
            self.speech(item)

    # --- bookkeeping --------------------------------------------------------------------------
    def current_round(self) -> int:
        return self.round_base + self.speeches_in_scene // max(1, self.speeches_per_round)

    def note_present(self) -> None:
        if self.scenes:
            for key in self.stage.present:
                if key not in self.scenes[-1].present:
                    self.scenes[-1].present.append(key)

    def add(self, kind: CanonKind, actors: list[str], witnesses: list[str], body: str, flags: list[str] | None = None,
            *, staging: bool | None = None) -> None:
        """One event; a direction's is `staging` when it only stages the scene (None: by its first word)."""
        if not self.scenes:
            return
        if staging is None:
            staging = kind != "say" and is_stage_business(body)
        self.events.append(EventDraft(
            round=self.current_round(), place=self.scenes[-1].place, kind=kind, actors=tuple(dict.fromkeys(actors)),
            witnesses=tuple(dict.fromkeys(witnesses)), text=trim_text(body), flags=tuple(flags or ()), staging=staging,
        ))

    # --- scenes -------------------------------------------------------------------------------
    def open_scene(self, item: Item) -> None:
        """A scene heading: the place it is set in (a town's street, the same place, another part), a fresh stage."""
        if self.events:
            self.round_base = self.events[-1].round + 1
        elif not self.scenes:
            self.round_base = 1
        city, location = scene_location(item.text)
        if city == "=":
            city = self.current_city
        self.current_city = city
        if not location and not item.text.strip() and self.setting:
            location = scene_location(self.setting)[1] or self.setting.rstrip(".")
        if (not location or re.fullmatch(r"(the\s+)?same(\s+place)?", location.strip(), re.I)) and self.scenes:
            key = self.scenes[-1].place
        else:
            key = place_key_in(location, city, self.place_cities, [s.place for s in self.scenes]) or "stage"
            if key.startswith("yet another ") and not location.lower().startswith("yet "):
                location = "Yet " + location[:1].lower() + location[1:]
            if city and city != "=" and key.startswith(name_key(city) + " "):
                location = f"{location}, {city}"  # the other town's street: "A Street, Mantua"
            if not (ANOTHER_PART_RE.match(location.strip()) and self.place_texts.get(key)):
                self.place_texts[key].append(location or "The stage")
        self.stage = _carry_dead(self.stage)
        self.scenes.append(_OpenScene(act=self.act or 1, number=item.number, heading=item.text, place=key,
                                      first_round=self.round_base, dead=sorted(self.stage.gone()),
                                      first_event=len(self.events)))
        self.speeches_in_scene = 0
        self.last_speakers = []
        self.recent_speakers = []
        self.show_mode = False

    # --- directions ---------------------------------------------------------------------------
    def direction(self, clause_text: str) -> None:
        """A stage direction, clause by clause: a dumb show, entrances, exits, deaths, other deeds."""
        for clause in _clauses(clause_text):
            self.clause(clause)

    def clause(self, clause: str) -> None:
        cast, stage = self.cast, self.stage
        low = clause.lower()
        if "dumb show" in low or "dumb-show" in low:
            self.show_mode = True
            self.add("narration", [], list(stage.present), clause)
            return
        if self.show_mode:
            if re.match(r"^(exeunt|exit)\b", low):
                self.show_mode = False
            self.add("narration", [], list(stage.present), clause)
            return
        if re.match(r"^(re-?enter|enter)\b", low):
            rest = re.sub(r"^(re-?enter|enter)\s*", "", clause, flags=re.I)
            entered = stage.enter(cast.mentions(rest))
            self.note_present()
            self.props.direction(clause, entered or cast.mentions(rest), [], self.last_speakers,
                                 self.scenes[-1].place if self.scenes else "", len(self.events))
            if entered:
                self.add("move", entered, list(stage.present), clause, staging=True)
            return
        exit_match = re.match(r"^(exit|exeunt|exeun|manet|manent)\b\s*,?\s*(?P<rest>.*)$", clause, re.I)
        if exit_match or re.search(r"\bwho go(es)? out\b|\bgoes out\b", low):
            rest = exit_match.group("rest") if exit_match else clause
            word = exit_match.group(1).lower() if exit_match else "exit"
            if word.startswith("mane"):
                stay = cast.mentions(rest)
                leaving = [k for k in stage.present if k not in stay]
            else:
                leaving = _leavers(word, rest, stage.present, self.last_speakers, cast)
            witnesses = list(stage.present)
            left = stage.leave(leaving)
            if left:
                self.add("move", left, witnesses, clause, staging=True if exit_match else None)
            return
        named = cast.mentions(clause)
        actors = _actors_of(clause, named, self.last_speakers, cast)
        self.props.direction(clause, actors, named, [*self.last_speakers, *reversed(self.recent_speakers), *stage.present],
                             self.scenes[-1].place if self.scenes else "", len(self.events))
        if DEATH_RE.search(low):
            dying = (named if re.search(r"\b(is|are)\s+(slain|killed)\b", low) and named else actors) or list(self.last_speakers)
            self.add("act", dying, list(stage.present), clause)
            stage.leave(dying)
            stage.dead.update(dying)
            return
        self.add("act" if actors else "narration", actors, list(stage.present), clause)

    # --- speeches -----------------------------------------------------------------------------
    def speakers(self, item: Item) -> tuple[list[str], list[str]] | None:
        """Who speaks a speech (its heading resolved against the stage, or the last speakers) and its flags."""
        if not item.label:
            return (list(self.last_speakers), []) if self.last_speakers else None
        keys, special = self.cast.resolve_label(item.label)
        flags: list[str] = []
        present = self.stage.present
        if special == "all":
            keys = [*keys, *[k for k in present if k not in keys]]
        elif special == "both":
            candidates = [k for k in present if k not in self.last_speakers]
            if len(candidates) > 2:
                ranked = [k for k in reversed(self.recent_speakers) if k in candidates]
                candidates = list(dict.fromkeys(ranked))[:2] or candidates[:2]
                flags.append("speaker 'Both' guessed")
            keys = [*keys, *candidates[:2]]
        elif special:
            keys = [*keys, *[k for k in self.cast.members(special) if k in present]]
        if not keys:
            self.warnings.append(f"line {item.line}: speech heading {item.label!r} names no one on stage")
            return None
        return keys, flags

    def speech(self, item: Item) -> None:
        """A speech (or a continuation of the last one when it has no label): said lines, asides, directions within."""
        found = self.speakers(item)
        if found is None:
            return
        speakers, flags = found
        stage = self.stage
        segments = _speech_segments(item.text)
        offstage = bool(segments) and segments[0][0] == "modifier" and segments[0][1].lower() in OFFSTAGE_MODIFIERS
        if not offstage:
            absent = [k for k in speakers if k not in stage.present and k not in stage.dead]
            if absent and item.label:
                stage.enter(absent)
                self.note_present()
                names = ", ".join(self.cast.display[k] for k in absent)
                flags = [*flags, f"{names} speaks without an entrance; assumed on stage"]
        self.last_speakers = speakers
        self.recent_speakers.extend(speakers)
        said = _Said(speakers, flags, offstage)
        reading_aloud = False
        for kind, content in segments:
            if kind == "text":
                if reading_aloud:
                    # "[_Reads._] 'Horatio, when thou shalt...'": what the letter says is what it carries.
                    self.props.read_aloud(speakers[0], content, self.scenes[-1].place, len(self.events),
                                          len(self.scenes))
                    reading_aloud = False
                said.buffer.append(content)
                continue
            if kind == "modifier":
                low = content.lower()
                if low in {"reads", "read", "reading", "reads the letter", "reads the paper"}:
                    reading_aloud = True
                if low == "aside":
                    self.flush_say(said)
                    said.aside = True
                elif low.startswith("to "):
                    if said.aside:
                        self.flush_say(said)
                        said.aside = False
                continue
            self.flush_say(said)
            self.direction(content)
        self.flush_say(said)

    def flush_say(self, said: _Said) -> None:
        """What was said so far in a speech becomes one say event (an aside heard by the speakers only)."""
        stage = self.stage
        text = " ".join(said.buffer).strip()
        said.buffer = []
        if not re.search(r"[A-Za-z]", text):
            return
        if said.aside:
            witnesses = list(said.speakers)
            text = f"(aside) {text}"
        else:
            witnesses = [*stage.present, *[k for k in said.speakers if k not in stage.present]]
            if said.offstage:
                text = f"(within) {text}"
        self.add("say", said.speakers, [w for w in witnesses if w not in stage.dead or w in said.speakers], text,
                 said.flags, staging=said.aside or said.offstage)
        self.props.speech(text, said.speakers[0], self.scenes[-1].place, len(self.events))
        if not said.aside:
            # "Fulvia is dead.": a death off stage, told; who is on stage is plainly not dead.
            for match in REPORTED_DEATH_RE.finditer(text):
                if match.group(0).rstrip().endswith("?"):
                    continue
                told = [k for k in self.cast.mentions(match.group("name"))
                        if k not in stage.present and k not in said.speakers]
                stage.reported.update(told)
        said.flags = []
        self.speeches_in_scene += 1
        self.scenes[-1].speeches += 1


@dataclass
class _Said:
    """One speech on its way into say events: who speaks, its flags, the words gathered since the last flush."""

    speakers: list[str]
    flags: list[str]
    offstage: bool
    aside: bool = False
    buffer: list[str] = field(default_factory=list)


def _carry_dead(stage: _Stage) -> _Stage:
    fresh = _Stage()
    fresh.dead = set(stage.dead)
    fresh.reported = set(stage.reported)
    return fresh


def _clauses(text: str) -> list[str]:
    """Split a direction into sentences: `Danish march. A flourish. Enter King...`."""
    text = re.sub(r"\s+", " ", text.replace("_", " ")).strip()
    parts = re.split(r"(?<=[.!])\s+(?=[A-Z])", text)
    return [p.strip().rstrip(".").strip() for p in parts if p.strip().rstrip(".").strip()]


def _actors_of(clause: str, named: list[str], last_speakers: list[str], cast: SpeakerRoster) -> list[str]:
    """Who does a piece of stage business: the named subject, else the last speaker for `Draws`."""
    words = clause.split()
    if not words:
        return []
    if re.search(r"\b(they|both|each other)\b", clause, re.I):
        return named
    first = fold(words[0]).strip(",;:")
    if first in {"the", "a", "an"} or cast.mentions(words[0]):
        # The subject: names before the first lower-case word ("The King puts Laertes's hand...").
        head = []
        for word in words:
            if word[:1].islower() and word.lower() not in {"the", "a", "an"}:
                break
            head.append(word)
        return cast.mentions(" ".join(head)) or (named if first not in {"the", "a", "an"} else [])
    if first not in NOISE_WORDS and (first.endswith("s") or first.endswith("ing")):
        return list(last_speakers)  # "Draws", "Stabs the King": the one who just spoke
    return named


def _leavers(word: str, rest: str, present: list[str], last_speakers: list[str], cast: SpeakerRoster) -> list[str]:
    """Who leaves on `Exit ...` / `Exeunt ...`: named, all but named, or the last speaker(s)."""
    match = re.search(r"\bbut\b", rest, re.I)
    if match:
        left_part, right_part = rest[: match.start()], rest[match.end() :]
        staying = cast.mentions(right_part)
        ordinal = re.search(r"\b(first|second|third|fourth)\b", right_part, re.I)
        if ordinal and not staying:
            nouns = [w for w in name_key(left_part).split() if cast.members(name_key(singular(w)))]
            for noun in nouns:
                key = f"{ordinal.group(1).lower()} {name_key(singular(noun))}"
                if key in cast.display:
                    staying.append(key)
        named = cast.mentions(left_part)
        pool = named if named else present
        return [k for k in pool if k not in staying]
    named = cast.mentions(rest)
    # "Exit Hamlet dragging out Polonius": whoever is named goes.
    if named:
        return named
    if re.search(r"\b[A-Z][a-z]+", rest):
        return []  # "Exeunt Attendants": only people who are not agents leave
    if word == "exit":
        return [k for k in last_speakers if k in present][:1] or list(last_speakers[:1])
    return list(present)


def _speech_segments(body: str) -> list[tuple[str, str]]:
    """Split a speech into ("text", words), ("modifier", aside/within/to X) and ("direction", text)."""
    out: list[tuple[str, str]] = []
    position = 0
    for match in INLINE_RE.finditer(body):
        before = body[position : match.start()]
        if before.strip():
            out.append(("text", _clean_speech(before)))
        inner = match.group(1).strip().strip("_").strip().rstrip(".").strip()
        kind = "modifier" if MODIFIER_RE.match(inner) else "direction"
        out.append((kind, inner))
        position = match.end()
    tail = body[position:]
    if tail.strip():
        out.append(("text", _clean_speech(tail)))
    return out


def _clean_speech(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("_", "")).strip()
