"""Play tokens: the layout, the front matter (dramatis personae, setting) and the body as items.

Stage one of the play pipeline after `editions.normalize_edition`: the text becomes `Tokens`, an
ordered list of act and scene headings, stage directions and speeches (each with its heading's
label), read in either layout: speeches as one paragraph (`HAMLET. To be...`, as in Project
Gutenberg's Hamlet) or as lines under a speaker heading on its own line (`HAMLET` or `Ham.`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

import msgspec

from storyworld.authoring.play.editions import first_word, is_direction_line, is_stage_words, normalize_edition
from storyworld.authoring.play.text import (
    ABBREV_SPEECH_RE,
    ACT_RE,
    CAPS_SPEECH_RE,
    DIRECTION_START_RE,
    HEADING_LINE_RE,
    ORDINALS,
    PERSONAE_RE,
    SCENE_RE,
    SETTING_RE,
    WORD_RE,
    join_lines,
    name_key,
    roman_to_int,
    singular,
    titlecase,
)

Layout = Literal["paragraph", "heading"]
ENTRANCE_RE = re.compile(r"\b(?:Enter|Re-?enter)\b(?P<rest>.*)")


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """One unit of the play's body: an act or scene heading, a stage direction or a speech."""

    kind: Literal["act", "scene", "direction", "speech"]
    line: int
    text: str = ""
    label: str = ""
    number: int = 0


class Tokens(msgspec.Struct, frozen=True, kw_only=True):
    """A play as the tokenizer reads it: its layout, personae lines, play-wide setting and body items."""

    layout: Layout
    personae_lines: list[str]
    setting: str
    items: list[Item]


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


def detect_layout(text: str) -> Layout:
    """`paragraph` (SPEAKER. text) or `heading` (speaker on a line of its own, then the lines)."""
    lines = normalize_edition(text).splitlines()
    paragraph = heading = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or ACT_RE.match(stripped) or SCENE_RE.match(stripped):
            continue
        previous_blank = i == 0 or not lines[i - 1].strip()
        caps = CAPS_SPEECH_RE.match(stripped)
        if previous_blank and caps and caps.group("dot"):
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
    items = tokenize(text, layout).items
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


def tokenize(text: str, layout: Layout | None = None) -> Tokens:
    """The personae lines, setting and body items of a play in either layout (detected when not given)."""
    text = normalize_edition(text)
    lines = text.split("\n")
    layout = layout or detect_layout(text)
    body_start, personae, setting = _front_matter(lines)
    body = lines[body_start:]
    # Without a dramatis personae, the entrances name who may head a speech.
    known = _persona_words(personae) if personae else _entrance_words(body)
    if layout == "paragraph":
        items = _tokenize_paragraphs(body, body_start, known)
    else:
        items = _HeadingLines(body, body_start, known).read()
    return Tokens(layout=layout, personae_lines=personae, setting=setting, items=items)


def _persona_words(personae: list[str]) -> set[str]:
    """Capitalised words of the dramatis personae, folded: what abbreviated headings may shorten."""
    return _capitalised_words(personae)


def _entrance_words(body: list[str]) -> set[str]:
    """Capitalised words the entrances bring on (`Enter Piet.`, `Enter the Reeve`), folded.

    In a play without a dramatis personae, a speaker who speaks once or twice is still named where
    he enters: his mixed-case heading (`Piet.`, `Reeve. Corin, come with me.`) heads his speech.
    """
    entrances = [match.group("rest") for line in body if (match := ENTRANCE_RE.search(line))]
    return {word for word in _capitalised_words(entrances) if not is_stage_words(word)}


def _capitalised_words(lines: list[str]) -> set[str]:
    """The folded capitalised words of three letters or more in the lines, each also in the singular."""
    words = set()
    for line in lines:
        for word in WORD_RE.findall(line):
            if word[:1].isupper() and len(word) >= 3:
                words.add(name_key(word))
                words.add(name_key(singular(word)))
    return words


def _abbreviates_persona(label: str, known: set[str]) -> bool:
    """Whether a mixed-case heading (`Ham.`, `1 Clown`, `First Gravedigger`) shortens a persona word."""
    words = [w for w in name_key(label).split() if w not in ORDINALS]
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
        joined = join_lines(raw)
        match = CAPS_SPEECH_RE.match(joined)
        if match and match.group("dot"):
            dotted[match.group("label")] += 1
        abbrev = ABBREV_SPEECH_RE.match(joined)
        if abbrev:
            abbreviations[abbrev.group("label")] += 1
    items: list[Item] = []
    for start, raw in paragraphs:
        line = start + offset
        joined = join_lines(raw)
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


def _speech_indent(body: list[str]) -> int:
    """Where speech lines sit: Gutenberg editions set speech at column 0 and directions one space in."""
    speech_indents: Counter[int] = Counter()
    for before, after in zip(body, body[1:]):
        match = HEADING_LINE_RE.match(before.strip())
        if match and match.group("label").isupper() and after.strip():
            speech_indents[len(after) - len(after.lstrip())] += 1
    return speech_indents.most_common(1)[0][0] if speech_indents else 0


class _HeadingLines:
    """The heading layout read line by line: a speaker's name on a line of its own, then the speech."""

    def __init__(self, body: list[str], offset: int, known: set[str]) -> None:
        self.body = body
        self.offset = offset
        self.known = known
        # A label heads a speech when it is in capitals, or when it recurs as a line of its own.
        self.standalone: Counter[str] = Counter()
        for line in body:
            match = HEADING_LINE_RE.match(line.strip())
            if match:
                self.standalone[match.group("label")] += 1
        self.speech_indent = _speech_indent(body)
        self.items: list[Item] = []
        self.label = ""
        self.speech_lines: list[str] = []
        self.speech_line = 0
        self.direction_open = ""  # the closing mark an open direction waits for, or "indent:N" for an unbracketed one
        self.previous_blank = True
        self.after_label = False  # the line right under a speech heading is that speech, whatever it looks like

    def read(self) -> list[Item]:
        """The items of the whole body."""
        for index, raw in enumerate(self.body):
            self.take(index + 1 + self.offset, raw)
        self.flush()
        return self.items

    def take(self, line: int, raw: str) -> None:
        """One line of the body: blank, speech under a heading, a heading, a direction, or speech."""
        stripped = raw.strip()
        if not stripped:
            self.previous_blank = True
            self.after_label = False
            if self.direction_open.startswith("indent:"):
                self.direction_open = ""
            return
        was_blank, self.previous_blank = self.previous_blank, False
        if self.after_label:
            self.after_label = False
            # Italics open sung or read speech (`_For us, and for our tragedy_`); brackets and `Enter` do not.
            business = bool(DIRECTION_START_RE.match(stripped)) and not stripped.startswith("_")
            if not business:
                self.speech_lines.append(stripped)
                return
        indent = len(raw) - len(raw.lstrip())
        heading = _heading_item(stripped, line)
        if heading is not None:
            self.flush()
            self.label = ""
            self.direction_open = ""
            self.items.append(heading)
            return
        if self.direction_open and self.items and self.items[-1].kind == "direction":
            if self.continue_direction(stripped, indent):
                return
            self.direction_open = ""
        if self.is_direction(stripped, indent, was_blank):
            self.add_direction(stripped, line, indent)
            return
        label = self.heading_label(stripped, was_blank)
        if label:
            self.flush()
            self.label = label
            self.speech_line = line
            self.after_label = True
            return
        if self.label:
            self.speech_lines.append(stripped)

    def flush(self) -> None:
        """The speech gathered so far becomes an item."""
        if self.label and self.speech_lines:
            self.items.append(Item(kind="speech", line=self.speech_line, label=self.label,
                                   text=" ".join(self.speech_lines)))
        self.speech_lines = []

    def continue_direction(self, stripped: str, indent: int) -> bool:
        """Whether the line goes on with the open direction (and then it is added to it)."""
        opened = self.direction_open
        continues = opened in {"]", ")"} or (opened == f"indent:{indent}" and not HEADING_LINE_RE.match(stripped))
        if not continues:
            return False
        last = self.items[-1]
        self.items[-1] = msgspec.structs.replace(last, text=f"{last.text} {stripped}")
        if opened in stripped or (opened.startswith("indent:") and stripped.endswith(".")):
            self.direction_open = ""
        return True

    def is_direction(self, stripped: str, indent: int, was_blank: bool) -> bool:
        """An entrance, exit or bracketed direction, stage business, or a line set where directions sit."""
        if DIRECTION_START_RE.match(stripped) and not (stripped.startswith("[") and not stripped.endswith(("]", "]."))):
            return True
        return is_direction_line(stripped) or (
            self.speech_indent == 0 and 1 <= indent <= 3 and was_blank and first_word(stripped) not in {"", "o"}
            and not HEADING_LINE_RE.match(stripped)
        )

    def add_direction(self, text: str, line: int, indent: int) -> None:
        """A direction item; it stays open when its bracket (or, unbracketed, its sentence) has not closed."""
        self.flush()
        self.items.append(Item(kind="direction", line=line, text=text))
        closers = {"[": "]", "(": ")"}
        opener = text[:1]
        if opener in closers and closers[opener] not in text:
            self.direction_open = closers[opener]
        elif opener not in closers:
            # An unbracketed direction goes on to the next line only when this one has not ended.
            self.direction_open = "" if text.rstrip().endswith((".", "!", "?")) else f"indent:{indent}"
        else:
            self.direction_open = ""

    def heading_label(self, stripped: str, was_blank: bool) -> str:
        """The speaker a heading line names, or "" when the line is no heading."""
        match = HEADING_LINE_RE.match(stripped)
        if not match or is_stage_words(match.group("label")):
            return ""
        candidate = match.group("label")
        caps = candidate.replace(" and ", " ").replace(" & ", " ")
        # A mixed-case heading (`Tes.`) stands after a blank line; `Farewell.` under a speaker is speech.
        if (caps.isupper() and len(candidate) >= 2) or (
            was_blank and match.group("dot")
            and (self.standalone[candidate] >= 2 or _abbreviates_persona(candidate, self.known))
        ):
            return candidate
        return ""


def scenes_in_acts(items: list[Item]) -> list[Item]:
    """Plays divided into acts only: each act is one scene."""
    if any(item.kind == "scene" for item in items):
        return items
    numbered: list[Item] = []
    for item in items:
        numbered.append(item)
        if item.kind == "act":
            numbered.append(Item(kind="scene", line=item.line, number=1, text=""))
    return numbered


def play_title(text: str) -> str:
    """The play's title: its first line (in title case when it is set in capitals)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped:
            return titlecase(stripped) if stripped.isupper() else stripped
    return "Untitled play"


def play_author(text: str) -> str:
    """Who wrote the play: a `by ...` line near its head, else ""."""
    for line in text.splitlines()[:40]:
        match = re.match(r"^\s*by\s+(.+?)\s*$", line, re.I)
        if match:
            return match.group(1)
    return ""
