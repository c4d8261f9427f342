"""Deterministic play parser: acts, scenes, cast, entrances and exits, speeches -> a draft WorldFile.

Two layouts are read: speeches as one paragraph (`HAMLET. To be...`, as in Project Gutenberg's
Hamlet) and speeches as lines under a speaker heading on its own line (`HAMLET` or `Ham.`).
Nothing here calls a model: the same text always gives the same world.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections import Counter, defaultdict
from typing import Literal

import msgspec

from storyworld.authoring.common import (
    CancelToken,
    ProgressCallback,
    check_cancel,
    event_ids,
    fold,
    report,
    slugify,
    trim_text,
    unique_id,
)
from storyworld.authoring.editions import (
    first_word,
    is_direction_line,
    is_stage_place,
    is_stage_words,
    normalize_edition,
)
from storyworld.errors import UserError
from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo, WorldObject

Layout = Literal["paragraph", "heading"]

VOICE_MAX_SPEECHES = 8  # an unlisted speaker with fewer speeches is a voice in the canon, not an agent
SPEECHES_PER_ROUND = 6  # a round of story time per this many speeches within a scene

ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6,
}
ORDINAL_WORDS = {1: "First", 2: "Second", 3: "Third", 4: "Fourth", 5: "Fifth", 6: "Sixth"}
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "some": 0, "certain": 0, "several": 0,
                "divers": 0, "many": 0}
# Kinds of people, not names: a persona listed as `BOY, Son to Macduff` is no principal, and its
# description's noun (`Son`) is what the speech headings may call it.
ROLE_NOUNS = {
    "boy", "girl", "man", "woman", "child", "son", "daughter", "doctor", "physician", "porter", "soldier",
    "servant", "messenger", "lord", "lady", "gentleman", "gentlewoman", "officer", "page", "clown", "fool",
    "nurse", "captain", "herald", "sailor", "citizen", "murderer", "witch", "ghost", "priest", "friar",
    "watchman", "keeper", "courtier", "attendant", "knight", "poet", "player", "guard", "senator", "apothecary",
    "musician", "boatswain", "master", "mariner", "shepherd", "gaoler", "jailer", "old man", "lieutenant",
    "sergeant", "steward", "host", "hostess", "widow", "abbess", "jeweller", "merchant", "painter", "tribune",
    "aedile", "lictor", "usher", "beadle", "constable", "drawer", "chamberlain", "carrier", "ostler", "watch",
    "emperor", "empress", "countess", "vintner", "sheriff", "traveller", "thief", "outlaw", "forester",
    "tailor", "haberdasher", "pedant", "schoolmaster", "spirit", "nymph", "reaper", "fairy", "fisherman",
    "gravedigger", "shipmaster",
}
# Titles that, at the head of a persona's description, give a speech-heading alias ("King" -> Claudius).
TITLE_WORDS = {
    "king", "queen", "prince", "princess", "duke", "duchess", "emperor", "empress", "earl",
    "count", "countess", "baron", "lord", "lady", "captain", "bishop", "cardinal", "abbess",
    "warden", "keeper", "mayor", "governor", "general", "father", "mother",
}
# Speech modifiers: inline directions that colour a speech instead of being stage business.
MODIFIER_RE = re.compile(
    r"^(aside|within|beneath|behind|sings?|singing|reads?|reading|to [a-z].*|cries under the stage|"
    r"above|aloud|apart|whispers?)$",
    re.I,
)
OFFSTAGE_MODIFIERS = {"within", "beneath", "cries under the stage", "above"}
# First words of a bare direction that name a sound or sight, not something the last speaker does.
NOISE_WORDS = {
    "trumpets", "trumpet", "flourish", "march", "noise", "cannon", "ordnance", "cock", "peal",
    "shot", "alarum", "alarums", "music", "thunder", "bell", "bells", "hautboys", "drums", "drum",
    "sennet", "storm", "lightning", "a", "an", "the", "danish", "dead", "they", "enter", "all",
}
CORPSE_WORDS = ("corpse of", "body of", "bodies of", "coffin of")

ACT_RE = re.compile(r"^ACT\s+(?P<num>[IVXLC]+|\d+|first|second|third|fourth|fifth)\s*\.?\s*$", re.I)
SCENE_RE = re.compile(r"^SCENE\s+(?P<num>[IVXLC]+|\d+)\s*[.:]?\s*(?P<rest>.*)$", re.I)
SETTING_RE = re.compile(r"^SCENE\s*(?:[.:,;]|--|—)+\s*(?P<rest>.+)$", re.I)
PERSONAE_RE = re.compile(r"^(dramatis person|persons represented|characters( in the play)?\s*$|the persons)", re.I)
DIRECTION_START_RE = re.compile(r"^(\[|_|\(|Enter\b|Re-?enter\b|Exit\b|Exeunt\b|Manet\b|Manent\b)", re.I)
CAPS_LABEL = r"(?:[1-6]\.?\s*)?[A-Z][A-Z’'\-]+(?:\s+(?:and\s+|&\s+)?[A-Z][A-Z’'\-]+)*"
CAPS_SPEECH_RE = re.compile(rf"^(?P<label>{CAPS_LABEL})(?P<dot>\.)?\s+(?P<rest>\S.*)$", re.S)
ABBREV_SPEECH_RE = re.compile(r"^(?P<label>(?:\d\.?\s*)?[A-Z][a-z]{1,12}(?:\s[A-Z][a-z]{1,12})?)\.\s+(?P<rest>\S.*)$", re.S)
HEADING_LINE_RE = re.compile(
    r"^(?P<label>(?:\d\.?\s*)?[A-Z][A-Za-z’'\-]*(?:\s+(?:and\s+|&\s+)?[A-Z][A-Za-z’'\-]*){0,3})(?P<dot>\.)?\s*$"
)
INLINE_RE = re.compile(r"\[_?\s*(.+?)\s*_?\]")
WORD_RE = re.compile(r"[A-Za-z][A-Za-z’'\-]*")


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """One unit of the play's body: an act or scene heading, a stage direction or a speech."""

    kind: Literal["act", "scene", "direction", "speech"]
    line: int
    text: str = ""
    label: str = ""
    number: int = 0


class Persona(msgspec.Struct, frozen=True, kw_only=True):
    """An entry of the dramatis personae."""

    name: str  # display form, e.g. "Claudius", "Clown"
    description: str = ""
    named: bool = True  # a proper name (CLAUDIUS), not a kind of person (A Gentleman)
    count: int = 1  # "Two Clowns" -> 2
    synonyms: list[str] = msgspec.field(default_factory=list)  # "Grave-diggers" for the clowns
    titles: list[str] = msgspec.field(default_factory=list)  # "King" for Claudius


class ScenePlan(msgspec.Struct, kw_only=True):
    """What the parser learnt about one scene (for tests and the review screen)."""

    act: int
    number: int
    heading: str
    place: str  # place key until the world is built, then the place id
    present: list[str] = msgspec.field(default_factory=list)  # agent keys, then ids, in order of arrival
    speeches: int = 0
    first_round: int = 0
    dead: list[str] = msgspec.field(default_factory=list)  # who had died before the scene began
    first_event: int = 0  # index into the world's events
    events: list[str] = msgspec.field(default_factory=list)  # ids of the scene's events


class PlayParse(msgspec.Struct, kw_only=True):
    """The parser's full result: the world plus the per-scene plan."""

    world: WorldFile
    scenes: list[ScenePlan]
    layout: str
    warnings: list[str] = msgspec.field(default_factory=list)
    personae: list[Persona] = msgspec.field(default_factory=list)

    def figures(self) -> dict[str, object]:
        """How the draft's cast, places and starts compare with the edition's own dramatis personae."""
        return cast_figures(self)

    def scene(self, act: int, number: int) -> ScenePlan:
        """The scene `act.number`; KeyError when the play has no such scene."""
        for scene in self.scenes:
            if scene.act == act and scene.number == number:
                return scene
        raise KeyError(f"no scene {act}.{number}")

    def scene_events(self, act: int, number: int) -> list[Event]:
        """The events of scene `act.number`, in order."""
        wanted = set(self.scene(act, number).events)
        return [event for event in self.world.event if event.id in wanted]


class _Draft(msgspec.Struct, kw_only=True):
    """An event before ids are assigned."""

    round: int
    place: str
    kind: str
    actors: list[str]
    witnesses: list[str]
    text: str
    flags: list[str] = msgspec.field(default_factory=list)


# ---------------------------------------------------------------------------------------- text


def roman_to_int(token: str) -> int:
    """`IV` -> 4, `12` -> 12, `First` -> 1."""
    if token.isdigit():
        return int(token)
    if token.lower() in ORDINALS:
        return ORDINALS[token.lower()]
    total, prev = 0, 0
    for ch in reversed(token.lower()):
        value = ROMAN.get(ch, 0)
        total = total - value if value < prev else total + value
        prev = max(prev, value)
    return total


def _paragraphs(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Blank-line separated paragraphs: (1-based first line, raw lines)."""
    out: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not current:
                start = number
            current.append(line.rstrip())
        elif current:
            out.append((start, current))
            current = []
    if current:
        out.append((start, current))
    return out


def _join(raw: list[str]) -> str:
    return re.sub(r"\s+", " ", " ".join(line.strip() for line in raw)).strip()


def _unbracket(text: str) -> str:
    """Strip the brackets and italics marks around a stage direction."""
    text = text.strip()
    text = re.sub(r"^\[\s*_?|_?\s*\]$", "", text)
    text = re.sub(r"^\(|\)$", "", text)
    return text.strip().strip("_").strip()


def detect_layout(text: str) -> Layout:
    """`paragraph` (SPEAKER. text) or `heading` (speaker on a line of its own, then the lines)."""
    lines = normalize_edition(text).splitlines()
    paragraph = heading = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or ACT_RE.match(stripped) or SCENE_RE.match(stripped):
            continue
        previous_blank = i == 0 or not lines[i - 1].strip()
        if previous_blank and CAPS_SPEECH_RE.match(stripped) and CAPS_SPEECH_RE.match(stripped).group("dot"):
            paragraph += 1
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        match = HEADING_LINE_RE.match(stripped)
        if match and following and not HEADING_LINE_RE.match(following):
            label = match.group("label")
            if label.isupper() or match.group("dot"):
                heading += 1
    return "paragraph" if paragraph >= heading else "heading"


def looks_like_play(text: str) -> bool:
    """Whether a text has the scene headings and speech headings of a play."""
    text = normalize_edition(text)
    scenes = sum(1 for line in text.splitlines() if SCENE_RE.match(line.strip()))
    if scenes == 0:
        return False
    layout = detect_layout(text)
    items = tokenize(text, layout)[2]
    speeches = sum(1 for item in items if item.kind == "speech")
    return speeches >= 5 * scenes or speeches >= 20


def _front_matter(lines: list[str]) -> tuple[int, list[str], str]:
    """(index of the first body line, personae lines, play-wide setting) from the text's head.

    A table of contents ("ACT I Scene I. ... Scene II. ...") is skipped: the body starts at the
    first heading on a line of its own after the dramatis personae, when there is one.
    """
    personae_at = next((i for i, line in enumerate(lines[:400]) if PERSONAE_RE.match(line.strip())), None)
    personae: list[str] = []
    setting = ""
    in_personae = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        is_contents = len(re.findall(r"\bscene\b", stripped, re.I)) > 1 or _heads_a_contents_list(lines, index)
        if (ACT_RE.match(stripped) or SCENE_RE.match(stripped)) and not is_contents:
            if personae_at is None or index > personae_at:
                return index, personae, setting
        setting_match = SETTING_RE.match(stripped)
        if setting_match:
            setting = setting_match.group("rest").strip()
            in_personae = False
            continue
        if in_personae and re.match(r"^the\s+scene\s+(?:lies|is)\b", stripped, re.I):
            setting = stripped  # "The SCENE lies first near Oliver's house; ...": the setting, not a persona
            in_personae = False
            continue
        if re.fullmatch(r"SCENE\s*[:.]", stripped, re.I):
            # "SCENE:" alone: the setting is on the next line, and the personae are over
            setting = next((l.strip() for l in lines[index + 1:index + 4] if l.strip()), "")
            in_personae = False
            continue
        if PERSONAE_RE.match(stripped):
            in_personae = True
            continue
        if in_personae:
            personae.append(line.rstrip())
    return len(lines), personae, setting


def _heads_a_contents_list(lines: list[str], index: int) -> bool:
    """Whether the heading at `index` is an entry of a contents list: only headings follow it closely."""
    following = [line.strip() for line in lines[index + 1 : index + 14] if line.strip()][:6]
    if not following:
        return True
    return all(ACT_RE.match(line) or SCENE_RE.match(line) for line in following[:3])


def tokenize(text: str, layout: Layout | None = None) -> tuple[list[str], str, list[Item]]:
    """(personae lines, setting, body items) of a play in either layout."""
    text = normalize_edition(text)
    lines = text.split("\n")
    layout = layout or detect_layout(text)
    body_start, personae, setting = _front_matter(lines)
    body = lines[body_start:]
    known = _persona_words(personae)
    if layout == "paragraph":
        items = _tokenize_paragraphs(body, body_start, known)
    else:
        items = _tokenize_headings(body, body_start, known)
    return personae, setting, items


def _persona_words(personae: list[str]) -> set[str]:
    """Capitalised words of the dramatis personae, folded: what abbreviated headings may shorten."""
    words = set()
    for line in personae:
        for word in WORD_RE.findall(line):
            if word[:1].isupper() and len(word) >= 3:
                words.add(_norm(word))
                words.add(_norm(_singular(word)))
    return words


def _abbreviates_persona(label: str, known: set[str]) -> bool:
    """Whether a mixed-case heading (`Ham.`, `1 Clown`, `First Gravedigger`) shortens a persona word."""
    words = [w for w in _norm(label).split() if w not in ORDINALS]
    if not words:
        return False
    if words[0] in {"all", "both", "omnes"}:
        return True  # "All.", "Both.": everyone, or the two, on stage
    return any(k.startswith(words[-1]) or k.startswith(words[0]) for k in known if len(words[0]) >= 2)


def _heading_item(stripped: str, line: int) -> Item | None:
    act = ACT_RE.match(stripped)
    if act:
        return Item(kind="act", line=line, number=roman_to_int(act.group("num")))
    scene = SCENE_RE.match(stripped)
    if scene:
        return Item(kind="scene", line=line, number=roman_to_int(scene.group("num")), text=scene.group("rest").strip())
    return None


def _tokenize_paragraphs(body: list[str], offset: int, known: set[str]) -> list[Item]:
    paragraphs = _paragraphs(body)
    # Labels written without the dot ("BARNARDO It would...") count only when seen with one elsewhere.
    dotted: Counter[str] = Counter()
    abbreviations: Counter[str] = Counter()
    for _, raw in paragraphs:
        joined = _join(raw)
        match = CAPS_SPEECH_RE.match(joined)
        if match and match.group("dot"):
            dotted[match.group("label")] += 1
        abbrev = ABBREV_SPEECH_RE.match(joined)
        if abbrev:
            abbreviations[abbrev.group("label")] += 1
    items: list[Item] = []
    for start, raw in paragraphs:
        line = start + offset
        joined = _join(raw)
        heading = _heading_item(joined, line)
        if heading is not None:
            items.append(heading)
            continue
        first = raw[0]
        if first.startswith("   "):
            items.append(Item(kind="speech", line=line, text=joined, label=""))  # continuation
            continue
        if joined.startswith("["):
            close = joined.find("]")
            if close != -1 and joined[close + 1 :].strip():
                items.append(Item(kind="speech", line=line, text=joined, label=""))
                continue
        if first.startswith(" ") or DIRECTION_START_RE.match(joined) or is_direction_line(joined):
            items.append(Item(kind="direction", line=line, text=joined))
            continue
        match = CAPS_SPEECH_RE.match(joined)
        if match and is_stage_words(match.group("label")):
            match = None
        if match and (match.group("dot") or dotted[match.group("label")] >= 1) and match.group("label") not in {"ACT", "SCENE"}:
            items.append(Item(kind="speech", line=line, label=match.group("label"), text=match.group("rest")))
            continue
        abbrev = ABBREV_SPEECH_RE.match(joined)
        if abbrev and is_stage_words(abbrev.group("label")):
            abbrev = None
        if abbrev and (abbreviations[abbrev.group("label")] >= 3 or _abbreviates_persona(abbrev.group("label"), known)):
            items.append(Item(kind="speech", line=line, label=abbrev.group("label"), text=abbrev.group("rest")))
            continue
        items.append(Item(kind="speech", line=line, text=joined, label=""))
    return items


def _tokenize_headings(body: list[str], offset: int, known: set[str]) -> list[Item]:
    # A label heads a speech when it is in capitals, or when it recurs as a line of its own.
    standalone: Counter[str] = Counter()
    for line in body:
        match = HEADING_LINE_RE.match(line.strip())
        if match:
            standalone[match.group("label")] += 1
    items: list[Item] = []
    label = ""
    speech_lines: list[str] = []
    speech_line = 0

    def flush() -> None:
        nonlocal speech_lines
        if label and speech_lines:
            items.append(Item(kind="speech", line=speech_line, label=label, text=" ".join(speech_lines)))
        speech_lines = []

    # Where speech lines sit: Gutenberg editions set speech at column 0 and directions one space in.
    speech_indents: Counter[int] = Counter()
    for before, after in zip(body, body[1:]):
        match = HEADING_LINE_RE.match(before.strip())
        if match and match.group("label").isupper() and after.strip():
            speech_indents[len(after) - len(after.lstrip())] += 1
    speech_indent = speech_indents.most_common(1)[0][0] if speech_indents else 0
    direction_open = ""  # the closing mark an open direction waits for, or "indent:N" for an unbracketed one

    def add_direction(text: str) -> None:
        nonlocal direction_open
        flush()
        items.append(Item(kind="direction", line=line, text=text))
        closers = {"[": "]", "(": ")"}
        opener = text[:1]
        if opener in closers and closers[opener] not in text:
            direction_open = closers[opener]
        elif opener not in closers:
            # An unbracketed direction goes on to the next line only when this one has not ended.
            direction_open = "" if text.rstrip().endswith((".", "!", "?")) else f"indent:{indent}"
        else:
            direction_open = ""

    previous_blank = True
    after_label = False  # the line right under a speech heading is that speech, whatever it looks like
    for index, raw in enumerate(body):
        line = index + 1 + offset
        stripped = raw.strip()
        if not stripped:
            previous_blank = True
            after_label = False
            if direction_open.startswith("indent:"):
                direction_open = ""
            continue
        was_blank, previous_blank = previous_blank, False
        if after_label:
            after_label = False
            # Italics open sung or read speech (`_For us, and for our tragedy_`); brackets and `Enter` do not.
            business = bool(DIRECTION_START_RE.match(stripped)) and not stripped.startswith("_")
            if not business:
                speech_lines.append(stripped)
                continue
        indent = len(raw) - len(raw.lstrip())
        heading = _heading_item(stripped, line)
        if heading is not None:
            flush()
            label = ""
            direction_open = ""
            items.append(heading)
            continue
        if direction_open and items and items[-1].kind == "direction":
            continues = direction_open in {"]", ")"} or (
                direction_open == f"indent:{indent}" and not HEADING_LINE_RE.match(stripped)
            )
            if continues:
                last = items[-1]
                items[-1] = msgspec.structs.replace(last, text=f"{last.text} {stripped}")
                if direction_open in stripped or (direction_open.startswith("indent:") and stripped.endswith(".")):
                    direction_open = ""
                continue
            direction_open = ""
        if DIRECTION_START_RE.match(stripped) and not (stripped.startswith("[") and not stripped.endswith(("]", "]."))):
            add_direction(stripped)
            continue
        if is_direction_line(stripped) or (
            speech_indent == 0 and 1 <= indent <= 3 and was_blank and first_word(stripped) not in {"", "o"}
            and not HEADING_LINE_RE.match(stripped)
        ):
            add_direction(stripped)
            continue
        match = HEADING_LINE_RE.match(stripped)
        if match and not is_stage_words(match.group("label")):
            candidate = match.group("label")
            caps = candidate.replace(" and ", " ").replace(" & ", " ")
            # A mixed-case heading (`Tes.`) stands after a blank line; `Farewell.` under a speaker is speech.
            if (caps.isupper() and len(candidate) >= 2) or (
                was_blank and match.group("dot") and (standalone[candidate] >= 2 or _abbreviates_persona(candidate, known))
            ):
                flush()
                label = candidate
                speech_line = line
                after_label = True
                continue
        if label:
            speech_lines.append(stripped)
    flush()
    return items


# ---------------------------------------------------------------------------------------- cast


def _titlecase(text: str) -> str:
    """`HAMLET` -> `Hamlet`, `FIRST CLOWN` -> `First Clown`, `ROSENCRANTZ and X` kept word by word."""
    words = []
    for word in text.split():
        if word.lower() in {"and", "of", "the", "a", "an"} and words:
            words.append(word.lower())
        else:
            words.append("-".join(part[:1].upper() + part[1:].lower() for part in word.split("-")))
    return " ".join(words)


def _singular(word: str) -> str:
    """A naive singular for role nouns: `Clowns` -> `Clown`, `Ladies` -> `Lady`."""
    lower = word.lower()
    if lower.endswith("men") and len(lower) > 4:  # Gentlemen, Women, Watchmen
        return word[:-2] + ("A" if word.isupper() else "a") + word[-1:]
    if lower.endswith("ies") and len(lower) > 4:
        return word[:-3] + ("Y" if word.isupper() else "y")
    if lower.endswith(("ses", "shes", "ches", "xes")):
        return word[:-2]
    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3:
        return word[:-1]
    return word


def _norm(text: str) -> str:
    """Folded, punctuation-free form of a name or label for lookups."""
    folded = fold(text).replace("-", "")
    folded = re.sub(r"'s\b", "", folded)
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", folded).split())


def parse_personae(lines: list[str]) -> list[Persona]:
    """Entries of a dramatis personae block, wrapped prose or one per line."""
    lines = [re.sub(r"\s+[-–—:]\s+", ", ", line) for line in lines if line.strip()]
    if not lines:
        return []
    long_lines = sum(1 for line in lines if len(line.strip()) >= 60)
    if long_lines * 2 >= len(lines):
        pieces = re.split(r"(?<=\.)\s+(?=[A-Z])", _join(lines))
    else:
        # An entry per line, but one that wraps ("... An Old" / "Man.") continues on the next, and
        # a line of several ("An English Doctor. A Scotch Doctor.") is several.
        pieces = [p for line in _personae_lines(lines) for p in re.split(r"(?<=[a-z]{2}\.)\s+(?=[A-Z])", line)]
    # "HECATE, and three Witches", "The Ghost of Banquo and several other Apparitions": two entries.
    pieces = [p for piece in pieces for p in re.split(
        r"(?:,\s*|\s+)and\s+(?=(?:two|three|four|five|six|several|some|divers|other|certain)\s)", piece.strip())]
    entries: list[str] = []
    personae: list[Persona] = []
    for piece in pieces:
        piece = re.sub(r",?\s*(&c|etc)\.?\s*$", "", piece.strip())  # "Citizens, Guards, Attendants, &c."
        from_piece: list[Persona] = []
        for entry in _split_caps_entries(piece):
            for persona in _persona_from_entry(entry):
                # `MARCUS ANTONIUS, ” ” ”`: ditto marks repeat the description above.
                ditto = re.search(r"[”“\"〃]\s*[”“\"〃]", persona.description) is not None
                if personae and persona.description and (ditto or not re.search(r"[A-Za-z]", persona.description)):
                    persona = msgspec.structs.replace(persona, description=personae[-1].description)
                from_piece.append(persona)
        # "LUCILIUS, TITINIUS, young CATO, and VOLUMNIUS, Friends to Brutus": the list shares the last description.
        shared = from_piece[-1].description if from_piece else ""
        for persona in from_piece:
            if shared and persona.named and persona.description.lower() in {"", "and", "young", "&", "old"}:
                persona = msgspec.structs.replace(persona, description=shared)
            personae.append(persona)
    # A title shared by two personae ("Prince" of Denmark and of Norway) is no alias.
    title_counts = Counter(title.lower() for persona in personae for title in persona.titles)
    names = {_norm(persona.name) for persona in personae}
    cleaned = []
    for persona in personae:
        titles = [t for t in persona.titles if title_counts[t.lower()] == 1 and _norm(t) not in names]
        cleaned.append(msgspec.structs.replace(persona, titles=titles))
    return cleaned


CONTINUED_RE = re.compile(r"(?:[,;&]|\b(?:a|an|the|old|young|and|of|to|with|on))$", re.I)


def _personae_lines(lines: list[str]) -> list[str]:
    """The personae's lines with wrapped entries joined (a line ending mid-phrase, or one opening lowercase)."""
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if out and out[-1] != "":
                out.append("")
            continue
        lone_word = re.fullmatch(r"[A-Z][a-z]+\.", stripped) is not None and out and out[-1] and out[-1][-1:] not in ".!?"
        if out and out[-1] and (CONTINUED_RE.search(out[-1]) or stripped[:1].islower() or stripped.startswith("&")
                                or lone_word):
            out[-1] = f"{out[-1]} {stripped}"
        else:
            out.append(stripped)
    return [line for line in out if line]


def _is_caps_word(word: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", word)
    return len(letters) >= 2 and letters.isupper()


def _split_caps_entries(piece: str) -> list[str]:
    """Split `FRANCISCO, a Soldier OSRIC, Courtier.` before each run of capitalised words."""
    words = piece.split()
    out: list[list[str]] = [[]]
    for i, word in enumerate(words):
        starts_run = _is_caps_word(word) and (i == 0 or not _is_caps_word(words[i - 1]))
        # "The GHOST of..." keeps its article with the name; "M. AEMILIUS LEPIDUS" its initial.
        article_before = i > 0 and len(out[-1]) == 1 and (
            words[i - 1] in {"The", "A", "An"} or re.fullmatch(r"[A-Z]\.", words[i - 1]) is not None)
        # "Lords attending on the KING": a name inside a phrase is no new entry
        inside = i > 0 and words[i - 1] in {"the", "on", "of", "to", "by", "with", "at", "for", "from", "unto", "A"}
        if starts_run and out[-1] and not article_before and not inside:
            out.append([])
        out[-1].append(word)
    return [" ".join(group) for group in out if group]


def _persona_from_entry(entry: str) -> list[Persona]:
    entry = re.sub(r"^(?:and|&)\s+", "", entry.strip().rstrip(".").strip(), flags=re.I)
    entry = re.sub(r",(?=[A-Za-z])", ", ", entry)  # "FRANCISCO,Lord"
    if not entry:
        return []
    words = entry.split()
    if len(words) >= 2 and words[0].lower() in {"a", "an", "another", *NUMBER_WORDS} and _is_caps_word(words[1]):
        # "A ROMAN HERALD", "TWO VOLSCIAN GUARDS": kinds of people in capitals, read as such
        entry = " ".join(w.title() if _is_caps_word(w) else w for w in words)
        words = entry.split()
    crowd = _crowd_list(entry)
    if crowd:
        return crowd
    caps_start = next((i for i, w in enumerate(words) if _is_caps_word(w)), None)
    if caps_start is not None and caps_start <= 1:
        end = caps_start
        while end < len(words) and (_is_caps_word(words[end]) or (
                words[end] in {"A", "AN"} and end + 1 < len(words) and _is_caps_word(words[end + 1]))):
            end += 1  # "MASTER OF A SHIP": a capital article inside a name in capitals
        name = _titlecase(" ".join(words[caps_start:end]).rstrip(",").strip("’'"))
        rest = " ".join(words[end:]).lstrip(",").strip()
        if caps_start == 0 and " ".join(words[caps_start:end]).endswith(","):
            description = rest
        elif caps_start == 1 or (rest and not rest.startswith(("of ", "to "))):
            description = " ".join([*words[:caps_start], name, rest]).strip() if caps_start else rest
        else:
            description = f"{name} {rest}".strip()
        description = description[:1].upper() + description[1:]
        names = [n.strip() for n in name.split(",") if n.strip()]
        if len(names) > 1:
            # "CICERO, PUBLIUS, POPILIUS LENA, Senators": three senators, one description.
            shared = rest or description
            return [Persona(name=n, description=shared[:1].upper() + shared[1:], named=True) for n in names]
        head_noun = _norm(name).split()[0] if _norm(name) else ""
        if (_norm(name) in ROLE_NOUNS or _norm(_singular(name)) in ROLE_NOUNS
                or (head_noun in ROLE_NOUNS and re.match(r"^\S+\s+of\s+(?:a|an|the)\b", name, re.I))):
            # "BOY, Son to Macduff", "MARINERS", "MASTER OF A SHIP": kinds of people in capitals
            # its speeches may be headed by what the description calls it ("Son")
            kind = re.match(r"^(?:his|her|a|an|the)?\s*(?P<noun>[A-Za-z]+)\s+(?:to|of)\b", rest, re.I)
            synonyms = [kind.group("noun")] if kind and _norm(kind.group("noun")) in ROLE_NOUNS else []
            if _norm(name) not in ROLE_NOUNS and _norm(_singular(name)) in ROLE_NOUNS:
                return [Persona(name=_singular(name), description=description, named=False, count=0)]
            return [Persona(name=name, description=description, named=False, synonyms=synonyms)]
        return [Persona(name=name, description=description, named=True, titles=_titles_of(description, name))]
    # Mixed-case entries: "Marta Voss, keeper of the lantern" or kinds of people ("Two Clowns, Grave-diggers").
    head, _, description = entry.partition(",")
    head_words = head.split()
    if not head_words:
        return []
    parts = [p.strip() for p in re.split(r",|\band\b", entry) if p.strip()]
    if len(parts) >= 3 and all(re.fullmatch(r"[A-Z][a-z]+(?:s|men)", p) for p in parts):
        return [Persona(name=_singular(p), named=False, count=0) for p in parts]
    count = 1
    first = head_words[0].lower()
    if first in {"a", "an", "the", "another"}:  # "Another Poet" is a kind of person too
        head_words = head_words[1:]
    elif first in NUMBER_WORDS:
        count = NUMBER_WORDS[first]
        head_words = head_words[1:]
        if head_words and head_words[0].lower() == "other":  # "several other Apparitions"
            head_words = head_words[1:]
    if not head_words:
        return []
    # Latin and Greek names end in -us, -is, -as, -os (Titus, Cassius): plural only with a number word.
    plural = head_words[-1].endswith("s") and len(head_words[-1]) > 3 and (
        count != 1 or not head_words[-1].lower().endswith(("us", "is", "as", "os", "ss"))
    )
    if plural:
        head_words = [*head_words[:-1], _singular(head_words[-1])]
        count = count or 0
    name = " ".join(head_words)
    description = description.strip()
    # "Duke of Cornwall" is a name ("of" joins it); "Fool", "Old Man" are kinds of people.
    named = not plural and count == 1 and len(head_words) >= 1 and first not in {"a", "an", "the", "another"} and all(
        w[:1].isupper() or w in {"of", "de", "la", "le", "du", "von", "van", "da", "di"} for w in head_words
    ) and head_words[0][:1].isupper() and head_words[-1][:1].isupper() and _norm(" ".join(head_words)) not in ROLE_NOUNS | TITLE_WORDS
    synonyms: list[str] = []
    if (count >= 2 or plural) and description and re.fullmatch(r"[A-Za-z\-]+", description):
        synonyms = [_singular(description)]
    return [Persona(name=name, description=description, named=named, count=count if not plural else max(count, 0),
                    synonyms=synonyms, titles=_titles_of(description) if named else [])]


def _crowd_list(entry: str) -> list[Persona]:
    """`Roman and Volscian Senators, Patricians, Aediles, ..., Servants to Aufidius`: one kind per plural."""
    parts = [re.split(r"\s*-{2,}|—", p)[0].strip() for p in re.split(r"[,;]|\band\b", entry) if p.strip()]
    parts = [p for p in parts if p]
    if len(parts) < 3:
        return []
    kinds: list[str] = []
    for part in parts:
        plural = next((w for w in part.split() if re.fullmatch(r"[A-Z][a-z]+(?:s|men)", w)
                       and not w.lower().endswith(("us", "is", "ss"))), None)
        single = re.sub(r"^(?:a|an|the)\s+", "", part, flags=re.I)
        if plural is not None:
            kinds.append(_singular(plural))
        elif _norm(single) in ROLE_NOUNS:  # "Poet, Painter, Jeweller, and Merchant"
            kinds.append(single[:1].upper() + single[1:])
    if len(kinds) * 2 < len(parts):
        return []
    return [Persona(name=kind, named=False, count=0) for kind in dict.fromkeys(kinds)]


def _titles_of(description: str, name: str = "") -> list[str]:
    """`King of Denmark, Hamlet's uncle` -> [`King`]; `Lord Chamberlain` -> [`Lord Chamberlain`].

    Also a title the name opens with (`KING OF FRANCE` is headed `King`) and a role a later part
    of the description gives (`Wife to Aegeon, an Abbess at Ephesus` is headed `Abbess`).
    """
    extra: list[str] = []
    named_title = re.match(r"^(?P<title>[A-Za-z]+)\s+of\s", name, re.I)
    if named_title and named_title.group("title").lower() in TITLE_WORDS:
        extra.append(named_title.group("title").title())
    for part in description.split(",")[1:]:
        role = re.match(r"^\s*(?:a|an|the)\s+(?P<noun>[A-Z][a-z]+)\b", part)
        if role and role.group("noun").lower() in ROLE_NOUNS | TITLE_WORDS:
            extra.append(role.group("noun"))
    return list(dict.fromkeys([*_description_title(description), *extra]))


def _description_title(description: str) -> list[str]:
    """The title a description opens with: `King of Denmark` -> [`King`]."""
    first = description.split(",")[0].strip()
    match = re.match(r"^(?:the\s+)?(?P<title>[A-Za-z]+)(?P<tail>.*)$", first, re.I)
    if not match or match.group("title").lower() not in TITLE_WORDS:
        return []
    title = match.group("title")
    tail = match.group("tail").strip()
    if not tail or tail.lower().startswith("of "):
        return [title[:1].upper() + title[1:].lower()]
    if re.fullmatch(r"(?:[A-Z][a-z]+\s?){1,2}", tail):
        return [f"{title[:1].upper()}{title[1:].lower()} {tail}"]
    return []


class SpeakerRoster:
    """Resolves speech headings and names in directions to agent keys (folded display names)."""

    def __init__(self, personae: list[Persona], *, listed: bool = True) -> None:
        self.personae = personae
        self.listed = listed  # the personae are the edition's own list, not guessed from entrances
        self.display: dict[str, str] = {}  # key -> display name
        self.aliases: dict[str, set[str]] = defaultdict(set)  # key -> alias display forms
        self.description: dict[str, str] = {}
        self.named: dict[str, bool] = {}
        self.speeches: Counter[str] = Counter()
        self.groups: set[str] = set()  # keys that stand for a crowd ("Danes")
        self.together: dict[str, list[str]] = {}  # a heading naming two speakers without "and"
        self.lookup: dict[str, str] = {}  # folded phrase -> key
        self.synonym_of: dict[str, str] = {}  # folded role noun -> canonical folded noun
        self.persona_by_key: dict[str, Persona] = {}
        for persona in personae:
            key = _norm(persona.name)
            self.persona_by_key[key] = persona
            for synonym in persona.synonyms:
                self.synonym_of[_norm(synonym)] = key
        self._phrases: tuple[tuple[int, int, int], dict[str, tuple[str, str]]] | None = None
        self.title_lookup: dict[str, str] = {}
        for persona in personae:
            for title in persona.titles:
                self.title_lookup[_norm(title)] = _norm(persona.name)

    # -- building -------------------------------------------------------------------------

    def _ensure(self, key: str, display: str) -> str:
        if key not in self.display:
            persona = self.persona_by_key.get(key)
            self.display[key] = persona.name if persona else display
            self.description[key] = persona.description if persona else ""
            self.named[key] = bool(persona and persona.named)
            if persona:
                for title in persona.titles:
                    self.aliases[key].add(title)
            self.lookup.setdefault(key, key)
        return key

    def learn_labels(self, labels: Counter[str]) -> None:
        """Register every speech heading (longest first, so `HAMLET` is known before `HAM`)."""
        parts: Counter[str] = Counter()
        for label, count in labels.items():
            for part in _split_label(label):
                parts[part] += count
        # "TITINIUS MESSALA" once or twice, each of them often alone: both speak the line.
        alone = Counter({_norm(part): count for part, count in parts.items()})
        for part, count in list(parts.items()):
            words = _norm(part).split()
            if (len(words) >= 2 and count <= 3 and _norm(part) not in self.persona_by_key
                    and self._ordinal_key(_norm(part)) is None and all(alone[w] >= 2 for w in words)):
                self.together[_norm(part)] = words
                del parts[part]
        # Singular names first, longest first; plurals ("LORDS") last, so they can be seen as groups.
        def order(part: str) -> tuple[bool, int, str]:
            return (_norm(_singular(part)) != _norm(part), -len(part), part)

        for part in sorted(parts, key=order):
            key = self._resolve_label_part(part, create=True)
            if key:
                self.speeches[key] += parts[part]

    def _ordinal_key(self, norm: str) -> tuple[int, str] | None:
        match = re.match(r"^(first|second|third|fourth|fifth|sixth|[1-6](?:st|nd|rd|th)?)\s+(.+)$", norm)
        if not match:
            match_after = re.match(r"^(.+?)\s+([1-6])$", norm)
            if not match_after:
                return None
            return int(match_after.group(2)), match_after.group(1)
        return ORDINALS[match.group(1)], match.group(2)

    def _canonical_noun(self, noun: str) -> str:
        noun = _norm(_singular(noun))
        if noun in self.synonym_of:
            return self.synonym_of[noun]
        for persona_key, persona in self.persona_by_key.items():
            if not persona.named and (persona_key.startswith(noun) or any(_norm(s).startswith(noun) for s in persona.synonyms)):
                return persona_key
        return noun

    def _resolve_label_part(self, part: str, create: bool) -> str | None:
        norm = _norm(part)
        if not norm:
            return None
        if norm in {"all", "both", "omnes", "all three"} or norm.split()[0] in {"both", "all"}:
            return None  # "Both Murderers": whoever of them is on stage, resolved per speech
        if norm in self.lookup:
            return self.lookup[norm]
        if norm in self.persona_by_key:
            key = self._ensure(norm, self.persona_by_key[norm].name)
            return key
        if norm in self.synonym_of and self.persona_by_key[self.synonym_of[norm]].count == 1:
            # "Son." heads the speeches of the one `BOY, Son to Macduff`
            key = self._ensure(self.synonym_of[norm], self.persona_by_key[self.synonym_of[norm]].name)
            self.lookup[norm] = key
            self.aliases[key].add(_titlecase(part.rstrip(".")))
            return key
        if norm in self.title_lookup:
            key = self.title_lookup[norm]
            self._ensure(key, self.persona_by_key[key].name)
            self.lookup[norm] = key
            return key
        ordinal = self._ordinal_key(norm)
        if ordinal:
            index, noun = ordinal
            canonical = self._canonical_noun(noun)
            if len(canonical.split()) > 2:
                canonical = _norm(_singular(noun))  # "Servants to Cornwall" lists them; "First Servant" speaks
            key = f"{ORDINAL_WORDS.get(index, str(index)).lower()} {canonical}"
            if key not in self.display and not create:
                return None
            self._ensure(key, f"{ORDINAL_WORDS.get(index, str(index))} {_titlecase(canonical)}")
            variant = _titlecase(part.replace(".", "").strip())
            if _norm(variant) != key:
                self.aliases[key].add(variant)
            for persona in self.persona_by_key.values():
                if _norm(persona.name) == canonical:
                    for synonym in persona.synonyms:
                        self.aliases[key].add(f"{ORDINAL_WORDS.get(index, str(index))} {_titlecase(synonym.replace('-', ''))}")
            self.lookup[norm] = key
            return key
        # An abbreviation: a unique known name (or name word) that the label begins.
        if " " not in norm and len(norm) >= 2:
            candidates = {
                key for phrase, key in {**self.lookup, **{k: k for k in self.persona_by_key if self.persona_by_key[k].named}}.items()
                if phrase.startswith(norm) and phrase != norm
            }
            if len(candidates) > 1:
                # `Cor.` begins Cordelia and `Corn.`, Cornwall's heading: it is Cordelia.
                claimed = {key for phrase, key in self.lookup.items() if phrase != key and phrase != norm}
                candidates = candidates - claimed or candidates
            if not candidates:
                # `Gent.`, `Phys.`: a kind of person the personae list, shortened
                candidates = {k for k in self.persona_by_key if k.startswith(norm) and len(k.split()) == 1}
            if not candidates and len(norm) >= 3:
                candidates = self._abbreviated_persona(norm)
            if len(candidates) == 1:
                key = candidates.pop()
                if key in self.persona_by_key:
                    self._ensure(key, self.persona_by_key[key].name)
                self.lookup[norm] = key
                if len(norm) >= 2:
                    self.aliases[key].add(_titlecase(part.rstrip(".")))
                return key
        # A word of a fuller persona name: BRUTUS is Marcus Brutus, ANTONY is Marcus Antonius.
        if " " not in norm and len(norm) >= 4:
            key = self._persona_by_word(norm)
            if key is not None:
                self._ensure(key, self.persona_by_key[key].name)
                self.lookup[norm] = key
                self.aliases[key].add(_titlecase(part.rstrip(".")))
                return key
        if not create:
            return None
        singular = _norm(_singular(part))
        role_words = {w for k in self.display for w in k.split()} | {k for k, p in self.persona_by_key.items() if not p.named}
        if singular != norm and singular in role_words:
            return None  # a plural of a role ("LORDS"): the group, resolved against the stage
        key = self._ensure(norm, _titlecase(part.rstrip(".")))
        if norm.endswith("s") and not self.persona_by_key.get(norm):
            self.groups.add(key)
        return key

    def _abbreviated_persona(self, norm: str) -> set[str]:
        """Named personae a heading like `Alb.`, `Corn.` or `Glou.` shortens: a word of the name it begins.

        A letter may differ after the third (`Glou.` for Gloster); a persona another heading already
        shortens is not a candidate when others are (`Corn.` is Cornwall, so `Cor.` is Cordelia).
        """
        def shortens(word: str, slack: int, whole: bool) -> bool:
            if len(word) < len(norm) or (len(word) == len(norm) and not whole) or word in TITLE_WORDS:
                return False
            return word[:3] == norm[:3] and sum(a != b for a, b in zip(word, norm)) <= slack

        def words_of(key: str, persona: Persona) -> list[tuple[str, bool]]:
            # the name's words, and the domain a title gives, whole or shortened: "Thomas Beaufort,
            # Duke of Exeter" is `EXETER`, "Thomas Percy, Earl of Worcester" is `Wor.`
            domains = re.findall(r"\b(?:%s)\s+of\s+([A-Z][a-z]+)" % "|".join(TITLE_WORDS), persona.description, re.I)
            return [*((w, False) for w in key.split()), *((_norm(d), True) for d in domains)]

        found: set[str] = set()
        for slack in (0, 1 if len(norm) >= 4 else 0):  # an exact beginning first, then one letter off
            found = {key for key, persona in self.persona_by_key.items()
                     if persona.named and any(shortens(word, slack, whole) for word, whole in words_of(key, persona))}
            if found:
                break
        if len(found) > 1:
            claimed = {key for phrase, key in self.lookup.items() if phrase != key}
            found = found - claimed or found
        return found

    def _persona_by_word(self, norm: str) -> str | None:
        """The named persona a one-word heading names: by its last word, any word, then a shared stem.

        CAESAR, when both Julius and Octavius Caesar are listed, is the one listed first (the title
        role); a stem (`anton` of ANTONY and Antonius) must be five letters and name one persona.
        """
        named = [(key, key.split()) for key, persona in self.persona_by_key.items() if persona.named and " " in key]
        for test in (lambda words: words[-1] == norm, lambda words: norm in words):
            hits = [key for key, words in named if test(words)]
            if hits:
                return hits[0]
        stems = [key for key, words in named if any(len(w) >= 5 and w[:5] == norm[:5] for w in words)]
        return stems[0] if len(stems) == 1 and len(norm) >= 5 else None

    def voices(self) -> set[str]:
        """Keys the dramatis personae does not list and who say little: voices, not agents (none without a list)."""
        if not self.personae or not self.listed:
            return set()
        listed = listed_words(self.personae)
        return {key for key in self.display
                if not is_listed([self.display[key], *self.aliases.get(key, set())], listed)
                and self.speeches.get(key, 0) < VOICE_MAX_SPEECHES}

    # -- resolving --------------------------------------------------------------------------

    def resolve_label(self, label: str) -> tuple[list[str], str | None]:
        """(agent keys, special) for a speech heading; special is `all`/`both`/a group noun."""
        keys: list[str] = []
        special = None
        parts = [w for part in _split_label(label) for w in self.together.get(_norm(part), [part])]
        for part in parts:
            norm = _norm(part)
            if norm in {"all", "omnes", "all three"}:
                special = "all"
                continue
            if norm == "both":
                special = "both"
                continue
            crowd = re.match(r"^(both|all)\s+(?P<noun>.+)$", norm)
            if crowd:
                special = _norm(_singular(crowd.group("noun")))  # "Both Murderers": the murderers on stage
                continue
            key = self._resolve_label_part(part, create=False)
            if key:
                keys.append(key)
            else:
                special = _norm(_singular(part))  # a plural role: its members on stage
        return keys, special

    def members(self, noun: str) -> list[str]:
        """Agent keys whose name contains a role noun (`player` -> First Player, Player King)."""
        noun = self.synonym_of.get(noun, noun)
        return [key for key in self.display if noun in key.split() and key not in self.groups]

    def phrases(self) -> dict[str, tuple[str, str]]:
        """Folded phrase -> (kind, target) for scanning directions: kind `agent`, `group` or `persona`."""
        version = (len(self.display), len(self.lookup), sum(len(a) for a in self.aliases.values()))
        if self._phrases is not None and self._phrases[0] == version:
            return self._phrases[1]
        table = self._build_phrases()
        self._phrases = (version, table)
        return table

    def _build_phrases(self) -> dict[str, tuple[str, str]]:
        table: dict[str, tuple[str, str]] = {}
        nouns = {word for key in self.display for word in key.split()}
        for noun in nouns:
            members = self.members(noun)
            if members and len(noun) > 2:
                table[noun + "s"] = ("group", noun)
                if noun.endswith("y"):
                    table[noun[:-1] + "ies"] = ("group", noun)
        for canonical, key in [(s, k) for s, k in self.synonym_of.items()]:
            table[canonical + "s"] = ("group", key)
        for phrase, key in self.lookup.items():
            if len(phrase) > 2 or phrase == key:
                table[phrase] = ("agent", key)
        for key in self.display:
            table[key] = ("agent", key)
            for alias in self.aliases[key]:
                table.setdefault(_norm(alias), ("agent", key))
        for persona_key, persona in self.persona_by_key.items():
            if persona.named:
                table.setdefault(persona_key, ("persona", persona_key))
        return table

    def mentions(self, text: str, *, on_stage: list[str] | None = None) -> list[str]:
        """Agent keys named in a stage direction, in order (groups expand to their members)."""
        table = self.phrases()
        tokens = [(m.group(0), m.start()) for m in WORD_RE.finditer(text)]
        words = [re.sub(r"['’]s?$", "", fold(tok)) for tok, _ in tokens]
        found: list[str] = []
        i = 0
        while i < len(tokens):
            matched = False
            for size in (3, 2, 1):
                if i + size > len(tokens):
                    continue
                phrase = " ".join(words[i : i + size]).replace("-", "")
                entry = table.get(phrase)
                if entry is None:
                    continue
                kind, target = entry
                original = tokens[i][0]
                before = words[i - 1] if i else ""
                before2 = " ".join(words[max(0, i - 2) : i])
                if kind != "group" and not original[:1].isupper():
                    continue
                if before in {"a", "an"} and kind == "agent" and phrase != target:
                    # "a King" is not the King: perhaps the Player King, else nobody we know.
                    others = [k for k in self.display if k != target and k.split()[-1] == phrase]
                    if len(others) == 1 and others[0] not in found:
                        found.append(others[0])
                    i += size
                    matched = True
                    break
                if before2 in CORPSE_WORDS:
                    i += size
                    matched = True
                    break
                if kind == "group":
                    for member in self.members(target):
                        if member not in found:
                            found.append(member)
                elif kind == "persona":
                    key = self._ensure(target, self.persona_by_key[target].name)
                    if key not in found:
                        found.append(key)
                elif target not in found:
                    found.append(target)
                i += size
                matched = True
                break
            if not matched:
                i += 1
        return found


def _split_label(label: str) -> list[str]:
    return [p.strip() for p in re.split(r"\s+(?:and|&)\s+", label.strip().rstrip(".")) if p.strip()]


# ---------------------------------------------------------------------------------------- places


def _place_text(heading: str, setting: str) -> str:
    """The most specific part of a scene heading: `Elsinore. A room in the Castle.` -> `A room in the Castle`."""
    parts = [p.strip().rstrip(".").strip() for p in re.split(r"(?<=\.)\s+", heading) if p.strip().rstrip(".")]
    if not parts:
        return ""
    return parts[-1]


ANOTHER_PART_RE = re.compile(r"^(?:yet\s+)?(?:another|other|a\s+different)\s+part\s+of\s+(?:the\s+)?(?P<rest>.+)$", re.I)


ANOTHER_RE = re.compile(r"^(?:yet\s+)?another\s+(?P<rest>.+)$", re.I)


def _is_town(part: str) -> bool:
    """`Rome`, `Elsinore`, `Forres`: a bare proper name that heads a scene heading before the place itself."""
    words = part.split()
    return 1 <= len(words) <= 3 and all(w[:1].isupper() for w in words) and words[0].lower() not in {"a", "an", "the", "another", "before", "within", "without", "near"}


def _scene_location(heading: str) -> tuple[str, str]:
    """(town, place) of a scene heading: `Rome. A street.` -> (Rome, A street); `The same. A hall.` -> (=, A hall)."""
    heading = heading.strip().strip("[]()_* ")
    parts = [p.strip().rstrip(".").strip() for p in re.split(r"(?<=\.)\s+", heading) if p.strip().rstrip(".").strip()]
    town = ""
    rest: list[str] = []
    for index, part in enumerate(parts):
        if re.fullmatch(r"(the\s+)?same(\s+place)?", part, re.I):
            town = "="
            continue
        if not rest and index + 1 < len(parts) and _is_town(part):
            town = part
            continue
        rest.append(part)
    if not rest:
        return town, ("The same" if town == "=" else "")
    if len(rest) > 1 and rest[0].lower().startswith(("in the middle", "enter")):
        rest = rest[1:]
    location = _place_only(rest[0])
    if len(rest) > 1 and re.match(r"^(before|within|without|near|outside|behind|under)\b", rest[1], re.I):
        # "The Grecian camp. Before the tent of ACHILLES": somewhere within the wider place, named
        # so that it does not read as a fuller name of the camp itself
        location = f"{_place_only(rest[1])}, {location[:1].lower()}{location[1:]}"
    return town, location


def _place_only(part: str) -> str:
    """A heading's place without the business after it: `A churchyard; in it a Monument` -> `A churchyard`."""
    part = re.sub(r"^(?:enter|re-?enter)\b[^,;:]*[,;:]\s*", "", part, flags=re.I)  # "Enter Gower, before the temple"
    part = re.split(r"\s*[;:]\s*|,\s+(?=(?:with|overlooking|where|in which|on which|and)\b)|\s+-{1,2}\s*", part)[0]
    return part.strip().rstrip(",.").strip()


def _place_key_in(location: str, town: str, place_texts: dict[str, list[str]], towns: dict[str, str],
                  earlier: list[str]) -> str:
    """The place key for a heading: `Another part of the field` joins the field seen last; two towns' streets differ."""
    another = ANOTHER_PART_RE.match(location.strip())
    if another:
        wanted = set(_place_key(another.group("rest")).split())
        for key in reversed(earlier):
            if wanted and wanted <= set(key.split()):
                return key
        return _place_key(another.group("rest"))
    other = ANOTHER_RE.match(location.strip())
    if other:
        # "Another room in the Castle" is not the room of the scene before: a room of its own, and
        # when it follows itself ("Another room" twice), yet another.
        base = _place_key(other.group("rest"))
        variants = [f"another {base}", f"yet another {base}"]
        return next(v for v in variants if not earlier or earlier[-1] != v)
    key = _place_key(location)
    if not key:
        return key
    if town and town != "=":
        seen = towns.setdefault(key, town)
        if seen != town:
            # the town first: "cyprus street" must not read as a fuller name of "street"
            key = f"{_norm(town)} {key}"
            towns.setdefault(key, town)
    return key


STOP_PLACE_WORDS = {"a", "an", "the", "another", "other", "same", "yet"}


def _place_key(location: str) -> str:
    words = [w for w in _norm(location).split() if w not in STOP_PLACE_WORDS]
    return " ".join(words)


def _place_display(location: str) -> str:
    text = re.sub(r"^(a|an|the)\s+", "", location.strip(), flags=re.I)
    # "BRUTUS's orchard": a name in capitals, as some editions print it, reads as a name
    text = re.sub(r"\b[A-Z]{2,}\b", lambda m: m.group(0).title(), text)
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------- parse


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


def parse_play(
    text: str,
    *,
    world_id: str = "play",
    title: str | None = None,
    layout: Layout | None = None,
    speeches_per_round: int = SPEECHES_PER_ROUND,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
) -> PlayParse:
    """Parse a play into a draft world (places, cast, say/act/move events, starts) and its scene plan."""
    layout = layout or detect_layout(text)
    personae_lines, setting, items = tokenize(text, layout)
    items = _scenes_in_acts(items)
    if not any(item.kind == "scene" for item in items) or not any(item.kind == "speech" and item.label for item in items):
        raise UserError("no scenes or speeches found: is this a play? (try --kind prose)")
    personae = parse_personae(personae_lines)
    labels = Counter(item.label for item in items if item.kind == "speech" and item.label)
    cast = SpeakerRoster(personae or _entrance_personae(items, labels), listed=bool(personae))
    cast.learn_labels(labels)
    reader = _PlayReader(cast, setting, speeches_per_round)
    total = len(items)
    for index, item in enumerate(items):
        if index % 200 == 0:
            check_cancel(cancel)
            report(progress, index, total, "parsing the play")
        reader.read(item)
    report(progress, total, total, "building the world")
    world = _build_world(
        world_id=world_id,
        title=title or _play_title(text),
        source=_play_author(text),
        cast=cast,
        scenes=reader.scenes,
        drafts=reader.drafts,
        place_texts=reader.place_texts,
        props=reader.props,
    )
    return PlayParse(world=world, scenes=reader.scenes, layout=layout, warnings=reader.warnings, personae=personae)


def _scenes_in_acts(items: list[Item]) -> list[Item]:
    """Plays divided into acts only: each act is one scene."""
    if any(item.kind == "scene" for item in items):
        return items
    numbered: list[Item] = []
    for item in items:
        numbered.append(item)
        if item.kind == "act":
            numbered.append(Item(kind="scene", line=item.line, number=1, text=""))
    return numbered


class _PlayReader:
    """Reads a play's items in order: scenes open places, directions move people and act, speeches are said."""

    def __init__(self, cast: SpeakerRoster, setting: str, speeches_per_round: int) -> None:
        self.cast = cast
        self.setting = setting
        self.speeches_per_round = speeches_per_round
        self.warnings: list[str] = []
        self.scenes: list[ScenePlan] = []
        self.drafts: list[_Draft] = []
        self.stage = _Stage()
        self.act = 0
        self.round_base = 0
        self.speeches_in_scene = 0
        self.last_speakers: list[str] = []
        self.recent_speakers: list[str] = []
        self.show_mode = False
        self.place_texts: dict[str, list[str]] = defaultdict(list)
        self.props = _Props()
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

    def add(self, kind: str, actors: list[str], witnesses: list[str], body: str, flags: list[str] | None = None) -> None:
        if not self.scenes:
            return
        ordered = list(dict.fromkeys([*witnesses]))
        self.drafts.append(
            _Draft(round=self.current_round(), place=self.scenes[-1].place, kind=kind,
                   actors=list(dict.fromkeys(actors)), witnesses=ordered, text=trim_text(body), flags=list(flags or []))
        )

    # --- scenes -------------------------------------------------------------------------------
    def open_scene(self, item: Item) -> None:
        """A scene heading: the place it is set in (a town's street, the same place, another part), a fresh stage."""
        if self.drafts:
            self.round_base = self.drafts[-1].round + 1
        elif not self.scenes:
            self.round_base = 1
        city, location = _scene_location(item.text)
        if city == "=":
            city = self.current_city
        self.current_city = city
        if not location and not item.text.strip() and self.setting:
            location = _scene_location(self.setting)[1] or self.setting.rstrip(".")
        if (not location or re.fullmatch(r"(the\s+)?same(\s+place)?", location.strip(), re.I)) and self.scenes:
            key = self.scenes[-1].place
        else:
            key = _place_key_in(location, city, self.place_texts, self.place_cities,
                                [s.place for s in self.scenes]) or "stage"
            if key.startswith("yet another ") and not location.lower().startswith("yet "):
                location = "Yet " + location[:1].lower() + location[1:]
            if city and city != "=" and key.startswith(_norm(city) + " "):
                location = f"{location}, {city}"  # the other town's street: "A Street, Mantua"
            if not (ANOTHER_PART_RE.match(location.strip()) and self.place_texts.get(key)):
                self.place_texts[key].append(location or "The stage")
        self.stage = _carry_dead(self.stage)
        self.scenes.append(ScenePlan(act=self.act or 1, number=item.number, heading=item.text, place=key,
                                     first_round=self.round_base, dead=sorted(self.stage.gone()),
                                     first_event=len(self.drafts)))
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
                                 self.scenes[-1].place if self.scenes else "", len(self.drafts))
            if entered:
                self.add("move", entered, list(stage.present), clause)
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
                self.add("move", left, witnesses, clause)
            return
        named = cast.mentions(clause)
        actors = _actors_of(clause, named, self.last_speakers, cast)
        self.props.direction(clause, actors, named, [*self.last_speakers, *reversed(self.recent_speakers), *stage.present],
                             self.scenes[-1].place if self.scenes else "", len(self.drafts))
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
                    self.props.read_aloud(speakers[0], content, self.scenes[-1].place, len(self.drafts),
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
                 said.flags)
        self.props.speech(text, said.speakers[0], self.scenes[-1].place, len(self.drafts))
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


REPORTED_DEATH_RE = re.compile(r"(?P<name>\b[A-Z][\w’'\-]+(?: [A-Z][\w’'\-]+)?) is (?:dead|slain|drown[’']?d|drowned|no more)\b[^.!?]*[.!?]?")
DEATH_RE = re.compile(r"\b(dies|die|is slain|are slain|is killed|are killed|falls dead|expires)\b")
PROP_NOUNS = (
    "letter", "letters", "dagger", "sword", "rapier", "foil", "poison", "cup", "chalice", "vial", "potion", "ring",
    "handkerchief", "paper", "papers", "scroll", "purse", "crown", "book", "skull", "key", "jewel", "casket", "seal",
    "warrant", "commission", "torch", "taper", "bond", "pearl", "picture", "locket", "token", "will", "document",
    "note", "map", "gun", "pistol", "knife",
)
PROP_RE = re.compile(r"\b(?P<det>a|an|the|his|her|their|my|thy|your|this|that|these|those|its)\s+(?:[a-z]+\s+)?(?P<noun>" + "|".join(PROP_NOUNS) + r")\b", re.I)
GIVE_RE = re.compile(r"\b(gives?|hands?|delivers?|passes?|throws?)\b", re.I)
READ_RE = re.compile(r"\b(reads?|reading|opens?)\b", re.I)
TAKE_RE = re.compile(r"\b(takes?|draws?|snatches|seizes?|drinks?|picks? up|holds?|with|pours?|brings?|shows?)\b", re.I)
SPEECH_PROP_RE = re.compile(r"\b(?:here is|here's|here’s|take|read|behold)\s+(?:my|this|the|thy)\s+(?P<noun>" + "|".join(PROP_NOUNS) + r")\b", re.I)


class _Prop(msgspec.Struct, kw_only=True):
    """A prop seen in the play: who first held it, who holds it now, what reading it tells."""

    noun: str
    first_holder: str = ""
    holder: str = ""
    place: str = ""
    first_event: int = 0
    handled: list[str] = msgspec.field(default_factory=list)  # how it changed hands, for its description
    read_by: list[str] = msgspec.field(default_factory=list)
    text: str = ""  # what it says, when someone reads it out
    read_scene: int = -1


class _Props:
    """Objects that change hands or are read, from stage directions (`Gives him a letter`, `Reads`)."""

    def __init__(self) -> None:
        self.props: list[_Prop] = []

    def _current(self, noun: str, det: str, holder: str) -> _Prop | None:
        singular = noun.rstrip("s") if noun.endswith("s") and noun not in {"papers", "letters"} else noun
        if det.lower() in {"a", "an"}:
            # "Enter Maro, with a letter": the letter he was given earlier, if he holds one.
            return next((p for p in reversed(self.props) if p.noun == singular and holder and p.holder == holder), None)
        for prop in reversed(self.props):
            if prop.noun == singular and (not holder or prop.holder in {holder, ""} or det.lower() in {"the", "this", "that"}):
                return prop
        return None

    def direction(self, clause: str, actors: list[str], named: list[str], last_speakers: list[str], place: str,
                  event_index: int) -> None:
        """Note the props a stage direction shows, and who ends up holding them."""
        matches = list(PROP_RE.finditer(clause))
        doer = actors[0] if actors else (last_speakers[0] if last_speakers else "")
        reading = READ_RE.search(clause)
        if not matches and reading and doer:
            # A bare "Reads.": the letter (or paper) the reader holds or was last given.
            prop = next((p for p in reversed(self.props) if p.holder == doer and p.noun in {"letter", "paper", "letters", "scroll"}), None)
            if prop is not None and doer not in prop.read_by:
                prop.read_by.append(doer)
            return
        for match in matches:
            noun, det = match.group("noun").lower(), match.group("det")
            singular = noun[:-1] if noun.endswith("s") and noun not in {"papers", "letters"} else noun
            prop = self._current(noun, det, doer)
            if prop is None:
                prop = _Prop(noun=singular, place=place, first_event=event_index)
                self.props.append(prop)
            receiver = ""
            if GIVE_RE.search(clause[: match.start()] or clause):
                others = [k for k in named if k != doer] or [k for k in last_speakers if k != doer]  # the one spoken to
                receiver = others[0] if others else ""
            if not prop.first_holder:
                prop.first_holder = doer or receiver
            if receiver:
                prop.holder = receiver
                prop.handled.append(f"{clause}")
            elif doer and (TAKE_RE.search(clause) or reading):
                prop.holder = doer
                prop.handled.append(clause)
            if reading and doer and doer not in prop.read_by:
                prop.read_by.append(doer)

    def read_aloud(self, reader: str, text: str, place: str, event_index: int, scene: int) -> None:
        """A speaker reads out a letter: the one they hold (else a new one), carrying the words read."""
        # A letter read out in an earlier scene is not the one read now (Claudius's paper of 2.2 is not
        # Hamlet's letter of 4.7); one read in bits within a scene is one letter (Polonius in 2.2).
        prop = next((p for p in reversed(self.props)
                     if p.holder == reader and p.noun in {"letter", "paper", "scroll"}
                     and (not p.text or p.read_scene == scene)), None)
        if prop is None:
            prop = _Prop(noun="letter", first_holder=reader, holder=reader, place=place, first_event=event_index,
                         handled=["Reads a letter aloud"])
            self.props.append(prop)
        if reader not in prop.read_by:
            prop.read_by.append(reader)
        prop.text = trim_text(f"{prop.text} {text}".strip(), 300)
        prop.read_scene = scene

    def speech(self, text: str, speaker: str, place: str, event_index: int) -> None:
        """`Here is my dagger`, `Read this letter`: a prop the speaker holds, when none of its kind is known yet."""
        for match in SPEECH_PROP_RE.finditer(text):
            noun = match.group("noun").lower()
            if any(p.noun == noun and p.holder == speaker for p in self.props):
                continue
            self.props.append(_Prop(noun=noun, first_holder=speaker, holder=speaker, place=place,
                                    first_event=event_index, handled=[trim_text(match.group(0), 80)]))

    def objects(self, agent_ids: dict[str, str], place_ids: dict[str, str]) -> list[WorldObject]:
        """World objects: each held by whoever first held it, else lying where it was first seen."""
        out: list[WorldObject] = []
        taken: set[str] = set()
        for prop in self.props:
            holder = agent_ids.get(prop.first_holder)
            place = None if holder else place_ids.get(prop.place, next(iter(place_ids.values()), None))
            if holder is None and place is None:
                continue
            readers = ", ".join(agent_ids.get(r, r) for r in prop.read_by)
            description = "; ".join(prop.handled[:3]) or "Seen on stage."
            out.append(WorldObject(
                id=unique_id(slugify(prop.noun, "object"), taken), name=prop.noun[:1].upper() + prop.noun[1:],
                description=trim_text(description, 240), holder=holder, place=place,
                carries=prop.text or (f"Read by {readers} in the play." if readers else ""),
            ))
        return out


def _entrance_personae(items: list[Item], labels: Counter[str]) -> list[Persona]:
    """Without a dramatis personae: names in `Enter ...` directions that abbreviated headings shorten.

    The First Folio heads speeches `Tull.` and brings on `Tullus`: the full name is the one the
    entrance gives, so the heading, the entrance and the display name agree.
    """
    heads = {_norm(label).split()[-1] for label in labels if _norm(label)}
    found: dict[str, str] = {}
    seen: Counter[str] = Counter()
    for item in items:
        if item.kind != "direction" or not re.search(r"\b(Enter|Re-?enter)\b", item.text):
            continue
        for word in WORD_RE.findall(item.text.split("Enter", 1)[-1]):
            norm = _norm(word)
            if not word[:1].isupper() or len(norm) < 3 or is_stage_words(word) or norm in {"and", "with", "the"}:
                continue
            if norm.endswith("s") and not norm.endswith(("us", "is", "as", "os", "ss")):
                continue  # "Citizens": a crowd, not a person
            if any(norm.startswith(head) and len(head) >= 3 for head in heads):
                found.setdefault(norm, _titlecase(word))
                seen[norm] += 1
    # The Folio spells a name several ways (Macduff, Macduffe; Malcolme, Malcolm): one person, under
    # the spelling the entrances use most.
    kept: list[str] = []
    for norm in sorted(found, key=lambda n: (-seen[n], n)):
        if not any(_spelling_variant(norm, other) for other in kept):
            kept.append(norm)
    return [Persona(name=found[norm], named=True) for norm in found if norm in kept]


def _spelling_variant(a: str, b: str) -> bool:
    """Two spellings of one name: five letters alike at the start and one letter added, dropped or changed."""
    if min(len(a), len(b)) < 5 or a[:4] != b[:4] or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) <= 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


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
            nouns = [w for w in _norm(left_part).split() if cast.members(_norm(_singular(w)))]
            for noun in nouns:
                key = f"{ordinal.group(1).lower()} {_norm(_singular(noun))}"
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


def _play_title(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped:
            return _titlecase(stripped) if stripped.isupper() else stripped
    return "Untitled play"


def _play_author(text: str) -> str:
    for line in text.splitlines()[:40]:
        match = re.match(r"^\s*by\s+(.+?)\s*$", line, re.I)
        if match:
            return match.group(1)
    return ""


def _merge_place_keys(keys: list[str]) -> dict[str, str]:
    """Map short keys onto the one fuller key they abbreviate (`platform` -> `platform before castle`)."""
    mapping = {key: key for key in keys}
    for key in keys:
        longer = [other for other in keys if other != key and other.startswith(key + " ")]
        if len(longer) == 1:
            mapping[key] = longer[0]
    return mapping


def _build_world(
    *,
    world_id: str,
    title: str,
    source: str,
    cast: SpeakerRoster,
    scenes: list[ScenePlan],
    drafts: list[_Draft],
    place_texts: dict[str, list[str]],
    props: _Props | None = None,
) -> WorldFile:
    # Places: merge abbreviated headings, one id per normalised name.
    keys = list(dict.fromkeys(scene.place for scene in scenes)) or ["stage"]
    mapping = _merge_place_keys(keys)
    place_ids: dict[str, str] = {}
    taken: set[str] = set()
    for key in keys:
        canonical = mapping[key]
        if canonical not in place_ids:
            place_ids[canonical] = unique_id(slugify(canonical, "place"), taken)
        place_ids[key] = place_ids[canonical]
    for scene in scenes:
        scene.place = place_ids[scene.place]
    for draft in drafts:
        draft.place = place_ids.get(draft.place, draft.place)
    exits: dict[str, list[str]] = defaultdict(list)
    for before, after in zip(scenes, scenes[1:]):
        if before.place != after.place:
            if after.place not in exits[before.place]:
                exits[before.place].append(after.place)
            if before.place not in exits[after.place]:
                exits[after.place].append(before.place)
    scenes_at: dict[str, list[str]] = defaultdict(list)
    for scene in scenes:
        scenes_at[scene.place].append(f"{scene.act}.{scene.number}")
    places: list[Place] = []
    for key in keys:
        place_id = place_ids[key]
        if any(p.id == place_id for p in places):
            continue
        names = [t for k in keys if place_ids[k] == place_id for t in place_texts.get(k, [])]
        display = _place_display(max(names, key=len)) if names else _titlecase(key)
        places.append(
            Place(id=place_id, name=display, description=_where_set(scenes_at[place_id]), exits=exits.get(place_id, []))
        )

    # Agents: everyone who speaks or is brought on stage; ids from display names. With a dramatis
    # personae, a few lines by someone it does not list (the play-within's Prologue, a crowd's cry)
    # are voices: heard by those present, kept in the canon, but nobody to play.
    voices = cast.voices()
    drafts = [_voiced(draft, voices, cast) for draft in drafts]
    appearing: list[str] = []
    for draft in drafts:
        for key in [*draft.actors, *draft.witnesses]:
            if key not in appearing:
                appearing.append(key)
    agent_ids: dict[str, str] = {}
    taken = set()
    for key in appearing:
        agent_ids[key] = unique_id(slugify(cast.display[key], "agent"), taken)
    place_counts: dict[str, Counter[str]] = defaultdict(Counter)
    for draft in drafts:
        for key in draft.witnesses:
            place_counts[key][draft.place] += 1
    default_place = places[0].id
    agents: list[Agent] = []
    for key in appearing:
        counts = place_counts.get(key)
        home = counts.most_common(1)[0][0] if counts else default_place
        speeches = cast.speeches.get(key, 0)
        description = cast.description.get(key, "")
        playable = key not in cast.groups and (cast.named.get(key, False) or speeches >= 5)
        aliases = sorted(a for a in cast.aliases.get(key, set()) if _norm(a) != _norm(cast.display[key]))
        agents.append(
            Agent(id=agent_ids[key], name=cast.display[key], description=description, home=home,
                  playable=playable, aliases=aliases)
        )

    if agents and not any(agent.playable for agent in agents):
        # Without a dramatis personae nobody is known to be a principal: the busiest speakers are.
        busiest = sorted((k for k in appearing if k not in cast.groups), key=lambda k: -cast.speeches.get(k, 0))[:3]
        chosen = {agent_ids[k] for k in busiest}
        agents = [msgspec.structs.replace(a, playable=a.id in chosen) for a in agents]

    ids = event_ids(len(drafts))
    events = [
        Event(
            id=event_id,
            round=draft.round,
            place=draft.place,
            actors=[agent_ids[k] for k in draft.actors],
            witnesses=[agent_ids[k] for k in draft.witnesses],
            kind=draft.kind,  # type: ignore[arg-type]
            text=draft.text,
            flags=draft.flags,
        )
        for event_id, draft in zip(ids, drafts)
    ]
    for index, scene in enumerate(scenes):
        end = scenes[index + 1].first_event if index + 1 < len(scenes) else len(events)
        scene.events = [event.id for event in events[scene.first_event : end]]
        scene.present = [agent_ids[k] for k in scene.present if k in agent_ids]
        scene.dead = [agent_ids[k] for k in scene.dead if k in agent_ids]

    starts = _starts(scenes, events)
    objects = props.objects(agent_ids, place_ids) if props is not None else []
    info = WorldInfo(id=world_id, title=title, source=source, default_start=starts[0].id if starts else "",
                     description=f"Drafted from the play by the storyworld play parser: {len(scenes)} scenes.")
    return WorldFile(world=info, place=places, agent=agents, object=objects, event=events, start=starts)


def _voiced(draft: _Draft, voices: set[str], cast: SpeakerRoster) -> _Draft:
    """A draft with its voices taken out: a voice's speech becomes narration that quotes it."""
    if not voices or not (voices & {*draft.actors, *draft.witnesses}):
        return draft
    actors = [k for k in draft.actors if k not in voices]
    witnesses = [k for k in draft.witnesses if k not in voices]
    kind, text = draft.kind, draft.text
    if not actors and draft.actors:
        if kind == "say":
            names = " and ".join(cast.display[k] for k in draft.actors)
            text = trim_text(f"{names}: “{draft.text}”")
        kind = "narration"
    return msgspec.structs.replace(draft, actors=actors, witnesses=witnesses, kind=kind, text=text)


def _where_set(labels: list[str]) -> str:
    """`Where scene 1.2 is set.` / `Where scenes 1.1, 1.4 are set.`"""
    if len(labels) == 1:
        return f"Where scene {labels[0]} is set."
    return f"Where scenes {', '.join(labels)} are set."


def _starts(scenes: list[ScenePlan], events: list[Event]) -> list[Start]:
    """A start at the beginning, and one at the first event of each later act."""
    if not events:
        return [Start(id="beginning", round=0, description="Before the play begins.")]
    starts = [Start(id="beginning", round=events[0].round, description="The opening of the play.",
                    positions=_positions_at(events, 0, set()))]
    seen_acts = {scenes[0].act} if scenes else set()
    for scene in scenes[1:]:
        if scene.act in seen_acts:
            continue
        seen_acts.add(scene.act)
        first = next((i for i, e in enumerate(events) if e.round >= scene.first_round), None)
        if first is None:
            continue
        starts.append(Start(id=f"act-{scene.act}", round=events[first].round,
                            description=f"The beginning of act {scene.act}.",
                            positions=_positions_at(events, first, set(scene.dead)),
                            absent=sorted(set(scene.dead)) if scene.dead else []))
    return starts


def _positions_at(events: list[Event], index: int, dead: set[str]) -> dict[str, str]:
    """Where each living agent was last seen up to event `index` (its own witnesses included)."""
    positions: dict[str, str] = {}
    for event in events[: index + 1]:
        for agent_id in event.witness_ids():
            positions[agent_id] = event.place
    return {agent_id: place for agent_id, place in sorted(positions.items()) if agent_id not in dead}


def _words_of(text: str) -> set[str]:
    return {_norm(_singular(w)) for w in WORD_RE.findall(text) if len(w) >= 3} - {"the", "and", "her", "his"}


def listed_words(personae: list[Persona]) -> set[str]:
    """Folded words by which the dramatis personae lists someone: names, role nouns, synonyms."""
    words: set[str] = set()
    for persona in personae:
        # "REYNALDO, Servant to Polonius": the role noun of a description names a kind of person too.
        role = persona.description.split(",")[0].split(" to ")[0].split(" of ")[0]
        words |= _words_of(persona.name) | _words_of(role) | {_norm(_singular(s)) for s in persona.synonyms}
    return words


def is_listed(names: list[str], listed: set[str]) -> bool:
    """Whether any word of these names is one the dramatis personae lists someone by."""
    return bool(_words_of(" ".join(names)) & listed)


def cast_figures(parse: PlayParse) -> dict[str, object]:
    """Agents in the dramatis personae (precision), named personae found (recall), places, starts, acts.

    An agent is in the personae when a word of its name names an entry (`First Citizen` is one of
    the `Citizens`); a principal is a persona with a proper name. Without a personae list the two
    ratios are None.
    """
    world = parse.world
    persona_words = listed_words(parse.personae)
    agent_words = {agent.id: _words_of(" ".join([agent.name, *agent.aliases])) for agent in world.agent}
    outside = sorted(a.id for a in world.agent if not is_listed([a.name, *a.aliases], persona_words)) if parse.personae else []
    principals = [p for p in parse.personae if p.named]
    found = [p for p in principals if any(_words_of(p.name) <= words or _norm(p.name) in {_norm(n) for n in words}
                                          for words in agent_words.values())]
    missing = sorted(p.name for p in principals if p not in found)
    stage_agents = sorted(a.id for a in world.agent if is_stage_words(a.name))
    stage_places = sorted(p.id for p in world.place if is_stage_place(p.name))
    return {
        "agents": len(world.agent),
        "precision": round(1 - len(outside) / len(world.agent), 3) if parse.personae and world.agent else None,
        "outside_personae": outside,
        "principals": len(principals),
        "principal_recall": round(len(found) / len(principals), 3) if principals else None,
        "missing_principals": missing,
        "places": len(world.place),
        "scenes": len(parse.scenes),
        "acts": len({scene.act for scene in parse.scenes}),
        "starts": len(world.start),
        "stage_words_as_agents": stage_agents,
        "stage_words_as_places": stage_places,
        "objects": len(world.object),
    }
