"""Play editions: bring the layouts public-domain texts use to the two the play parser reads.

What differs between editions and is evened out here, before any parsing: licence headers and
footers (Project Gutenberg's `*** START OF ...`, World Library's `<<THIS ELECTRONIC VERSION ...>>`
blocks inside the text), names set in Unicode small capitals, tabs, combined headings
(`ACT II. SCENE I.`, `ACT 1 SCENE 1`, `Act 1, Scene 1`) with the place on the next line, and
speeches that begin `  NAME. text` on an indented line with no blank line between speeches.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from storyworld.world.lang import english

SMALL_CAPS = dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ", "ABCDEFGHIJKLMNOPQRSTUVWYZ"))
HEADING_WORDS = {"act", "actus", "scene", "scena", "scoena", "scaena", "contents", "dramatis", "finis", "section"}
GUTENBERG_START_RE = re.compile(r"^\s*\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG", re.I)
GUTENBERG_END_RE = re.compile(r"^\s*(\*{3}\s*END OF (THE|THIS) PROJECT GUTENBERG|End of (the )?Project Gutenberg)", re.I)
NOTICE_RE = re.compile(r"<<.*?>>", re.S)
END_RE = re.compile(r"^(FINIS|THE END|END OF (THE )?PLAY)\.?$", re.I)
COMBINED_RE = re.compile(
    r"^(?P<act>ACT\s+(?:[IVXLC]+|\d+|first|second|third|fourth|fifth))\s*[.,:]?\s*(?P<scene>SCENE\s+(?:[IVXLC]+|\d+))\s*[.:]?\s*(?P<rest>.*)$", re.I
)
SCENE_ONLY_RE = re.compile(r"^(?P<scene>SCENE\s+(?:[IVXLC]+|\d+))\s*[.:]?\s*(?P<rest>.*)$", re.I)
ACT_LINE_RE = re.compile(r"^ACT\s+(?:[IVXLC]+|\d+|first|second|third|fourth|fifth)\s*\.?\s*$", re.I)
CAPS_PREFIX_RE = re.compile(r"^(?P<indent>\s{1,8})(?P<label>(?:[1-6]\.?\s*)?[A-Z][A-Z’'\-]+(?:\s+(?:and\s+|&\s+|OF\s+)?[A-Z][A-Z’'\-]+){0,3})\.\s+(?P<rest>\S.*)$")
# A speech opening an indented line in mixed case, as the First Folio sets it: `  Tull. Then read`.
MIXED_PREFIX_RE = re.compile(r"^(?P<indent>\s{1,8})(?P<label>(?:[1-6]\.?\s*)?[A-Z][a-z’'\-]{1,13}(?:\s[A-Z][a-z’'\-]{1,13})?)\.\s+(?P<rest>\S.*)$")
LATIN_NUMBERS = {
    "primus": 1, "prima": 1, "secundus": 2, "secunda": 2, "tertius": 3, "tertia": 3, "quartus": 4, "quarta": 4,
    "quintus": 5, "quinta": 5, "sextus": 6, "sexta": 6, "septimus": 7, "septima": 7, "octavus": 8, "octava": 8,
    "nonus": 9, "nona": 9, "decimus": 10, "decima": 10, "undecimus": 11, "undecima": 11,
}
LATIN_RE = re.compile(
    r"^(?:Actus\s+(?P<act>[A-Za-z]+)\.?\s*)?(?:(?:Scoena|Scena|Scæna|Scaena)\s+(?P<scene>[A-Za-z]+)\.?)?\s*(?P<rest>.*)$"
)
ROMAN_OUT = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"]
CAPS_ALONE_RE = re.compile(r"^\s*(?:[1-6]\.?\s*)?[A-Z][A-Z’'\-]+(?:\s+[A-Z][A-Z’'\-]+){0,3}\.?\s*$")
MIXED_ALONE_RE = re.compile(r"^(?:[1-6]\.?\s*)?[A-Z][a-z’'\-]{1,13}(?:\s[A-Z][a-z’'\-]{1,13})?\.$")


class Prefixes(NamedTuple):
    """How an edition opens indented speeches: the recurring mixed-case labels, and the indent used."""

    labels: frozenset[str]
    indent: int


def first_word(text: str) -> str:
    """The first word of a line, folded, brackets and italics marks dropped."""
    match = re.match(r"^[\s\[\(_*]*([A-Za-z][A-Za-z’'\-]*)", text)
    return match.group(1).lower() if match else ""


def is_stage_words(label: str) -> bool:
    """Whether a would-be speaker label is really a stage direction (`Alarum`, `Thunder and lightning`)."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z’'\-]*", label)]
    if not words:
        return False
    if all(len(w) == 1 for w in words) or words[0] in HEADING_WORDS:
        return True  # "1.F." is a licence section, "ACT II" a heading: neither speaks
    stage = english().stage_openings  # first words of stage directions: never a speaker, never a place
    return words[0] in stage - {"a", "an", "the"} or all(w in stage or w == "and" for w in words)


def is_stage_place(name: str) -> bool:
    """Whether a would-be place is only stage business (`Thunder and lightning`, `Drum`), not `Within the castle`."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z’'\-]*", name)]
    stage = english().stage_openings
    return bool(words) and all(w in stage or w in {"and", "of", "the", "a", "an"} for w in words)



def is_direction_line(stripped: str) -> bool:
    """A line whose first sentence is stage business only: `Drum.`, `Thunder and lightning. Enter...`.

    `[_Sings._] How should I...` is a speech with an inline direction, not a direction.
    """
    text = stripped.strip()
    closers = {"[": "]", "(": ")"}
    if text[:1] in closers and not text.rstrip(".").endswith(closers[text[:1]]):
        return False
    text = text.lstrip("[(_*").strip()
    match = re.match(r"^([^.;:!?]+)[.;:]", text)
    if not match:
        return False
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z’'\-]*", match.group(1))]
    if words and words[0] in {"a", "an", "the"}:
        words = words[1:]  # "A march afar off."
    if not words or words[0] == "and":
        return False
    pack = english()
    return all(w in pack.stage_openings or w in pack.stage_fillers for w in words) and len(words) <= 6


def normalize_edition(text: str) -> str:
    """The text with licence matter dropped and headings and speeches in a layout the parser reads."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").replace("\t", "    ")
    text = "".join(SMALL_CAPS.get(ch, ch) for ch in text)
    text = NOTICE_RE.sub("", text)
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines[:800]) if GUTENBERG_START_RE.match(line)), None)
    if start is not None:
        lines = lines[start + 1 :]
    end = next((i for i, line in enumerate(lines) if GUTENBERG_END_RE.match(line)), None)
    if end is None:
        # No end marker, but the licence follows the play: a play's text never names Project Gutenberg.
        end = next((i for i in range(len(lines) // 2, len(lines)) if "project gutenberg" in lines[i].lower()), None)
    if end is not None:
        lines = lines[:end]
    lines = [line for line in lines if not END_RE.match(line.strip())]
    lines = _latin_headings(lines)
    lines = _numbered_heads(lines)
    lines = _split_headings(lines)
    labels = _prefixed_speeches(lines)
    if labels is not None:
        body = _first_body_heading(lines, labels)
        lines = [*lines[:body], *_unfold_prefixed(lines[body:], labels)]
    return "\n".join(lines)


def _first_body_heading(lines: list[str], labels: Prefixes) -> int:
    """Index of the first act or scene heading that a speech follows closely (not a contents list)."""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if ACT_LINE_RE.match(stripped) or SCENE_ONLY_RE.match(stripped):
            if any(_prefix_match(after, labels) for after in lines[index + 1 : index + 12]):
                return index
    return 0


NUMBERED_ENTRY_RE = re.compile(r"\bEnter\s+(?:the\s+)?(?:two|three|four|five|six)\s+(?P<noun>[A-Z][a-z]+)")
BARE_NUMBER_RE = re.compile(r"^(?P<indent>\s+)(?P<n>[1-6])\.\s+(?P<rest>\S.*)$")


def _numbered_heads(lines: list[str]) -> list[str]:
    """`  1. When shall we three meet againe?` after `Enter three Witches.` -> `  1. Witch. When shall...`.

    The First Folio heads the speeches of a numbered group by the number alone; the noun is the
    one the last such entrance gave.
    """
    out: list[str] = []
    noun = ""
    for line in lines:
        entry = NUMBERED_ENTRY_RE.search(line)
        if entry:
            plural = entry.group("noun")
            noun = plural[:-2] if plural.endswith(("ches", "shes", "sses", "xes")) else plural.rstrip("s")
        bare = BARE_NUMBER_RE.match(line) if noun else None
        if bare and not re.match(r"^[A-Z][a-z]+\.", bare.group("rest")):
            line = f"{bare.group('indent')}{bare.group('n')}. {noun}. {bare.group('rest')}"
        out.append(line)
    return out


def _latin_headings(lines: list[str]) -> list[str]:
    """`Actus Primus. Scoena Prima.` -> `ACT I` / `SCENE I.`; `Scena Secunda.` -> `SCENE II.`"""
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        match = LATIN_RE.match(stripped) if stripped[:2] in {"Ac", "Sc"} else None
        act = LATIN_NUMBERS.get((match.group("act") or "").lower()) if match else None
        scene = LATIN_NUMBERS.get((match.group("scene") or "").lower()) if match else None
        if match and (act or scene) and (match.group("act") is None or act) and (match.group("scene") is None or scene):
            if act:
                out += [f"ACT {ROMAN_OUT[act]}", ""]
            if scene:
                out.append(f"SCENE {ROMAN_OUT[scene]}. {match.group('rest').strip()}".rstrip())
            continue
        out.append(line)
    return out


def _prefix_match(line: str, prefixes: Prefixes) -> re.Match[str] | None:
    """A speech opening an indented line, in capitals or (First Folio) with a mixed-case label seen before.

    A mixed-case label must sit where speeches start: `    Pompey. Many a time`, indented like the
    verse around it, is a line of verse, not Pompey speaking.
    """
    match = CAPS_PREFIX_RE.match(line)
    if match is None:
        match = MIXED_PREFIX_RE.match(line)
        if match and len(match.group("indent")) > prefixes.indent + 1:
            return None
    if match and not is_stage_words(match.group("label")):
        return match
    return None


def _is_location_line(line: str) -> bool:
    """A short line under a bare scene heading that names where the scene is set."""
    stripped = line.strip()
    if not stripped or len(stripped) > 100 or stripped.isupper():
        return False
    if CAPS_PREFIX_RE.match(" " + stripped) or ACT_LINE_RE.match(stripped) or SCENE_ONLY_RE.match(stripped):
        return False
    if first_word(stripped) in english().stage_openings - {"a", "an", "the"}:
        return False
    if re.search(r"\b(Enter|Exeunt|Exit)\b", stripped):
        return False
    stripped = stripped.strip("[]()_* ")
    return bool(stripped) and stripped[0].isupper()


def _split_headings(lines: list[str]) -> list[str]:
    """`ACT II. SCENE I.` -> `ACT II` + `SCENE I.`; a bare scene heading takes the place line after it."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        combined = COMBINED_RE.match(stripped)
        scene = SCENE_ONLY_RE.match(stripped) if not combined else None
        if combined:
            out += [combined.group("act").upper(), ""]
            scene_head, rest = combined.group("scene").upper(), combined.group("rest").strip()
        elif scene and len(re.findall(r"\bscene\b", stripped, re.I)) == 1:
            scene_head, rest = scene.group("scene").upper(), scene.group("rest").strip()
        else:
            out.append(line)
            index += 1
            continue
        index += 1
        if not rest:
            # The place may stand on the next line (`ACT I. SCENE I.` / `Rome. A street.`).
            look = index
            while look < len(lines) and not lines[look].strip() and look - index < 2:
                look += 1
            if look < len(lines) and _is_location_line(lines[look]):
                rest = lines[look].strip().strip("[]()_* ")
                index = look + 1
        out.append(f"{scene_head}. {rest}".rstrip() if rest else f"{scene_head}.")
        out.append("")
    return out


def _prefixed_speeches(lines: list[str]) -> Prefixes | None:
    """The mixed-case labels that head indented speeches (World Library, First Folio), or None if none do.

    Mixed-case labels count when they recur; flush-left `NAME. text` speeches (Gutenberg's Hamlet)
    mean the indented ones are something else. A line under a speaker's name on a line of its own
    is that speaker's speech whatever it opens with (`TOBIAS` / `  Maren. Come here now.`): it
    heads no speech of its own.
    """
    under = _under_speaker_lines(lines)
    candidates = [line for index, line in enumerate(lines) if index not in under]
    mixed: dict[str, int] = {}
    caps = 0
    for line in candidates:
        if CAPS_PREFIX_RE.match(line):
            caps += 1
        else:
            match = MIXED_PREFIX_RE.match(line)
            if match and not is_stage_words(match.group("label")):
                mixed[match.group("label")] = mixed.get(match.group("label"), 0) + 1
    recurring = {label for label, count in mixed.items() if count >= 2}
    indented = caps + sum(mixed[label] for label in recurring)
    flush = sum(1 for line in lines if re.match(r"^[A-Z][A-Z’'\- ]+[A-Z]\.\s+\S", line))
    if indented < 10 or indented <= flush:
        return None
    # Where speeches start: the commonest indent of capital and recurring labels.
    indents: dict[int, int] = {}
    for line in candidates:
        match = CAPS_PREFIX_RE.match(line) or MIXED_PREFIX_RE.match(line)
        if match and (match.group("label") in recurring or match.group("label").isupper()):
            width = len(match.group("indent"))
            indents[width] = indents.get(width, 0) + 1
    common = max(indents, key=lambda k: indents[k]) if indents else 2
    return Prefixes(labels=frozenset(recurring), indent=common)


def _under_speaker_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines under a speaker's name set on a line of its own, up to the next blank line.

    The name is in capitals (`TOBIAS`, `FIRST FISHER.`), or in mixed case with a full stop after a
    blank line (`Maren.`), as the tokenizer reads speech headings; the line after it is not blank.
    """
    under: set[int] = set()
    in_speech = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            in_speech = False
        elif in_speech:
            under.add(index)
        else:
            after_blank = index == 0 or not lines[index - 1].strip()
            speaker = (CAPS_ALONE_RE.match(stripped) is not None or (
                after_blank and MIXED_ALONE_RE.match(stripped) is not None)) and not is_stage_words(stripped)
            in_speech = speaker and index + 1 < len(lines) and bool(lines[index + 1].strip())
    return under


def _unfold_prefixed(lines: list[str], prefixes: Prefixes) -> list[str]:
    """One paragraph per speech (`NAME. text`) and per stage direction (indented one space)."""
    out: list[str] = []
    block: list[str] = []
    block_kind = ""

    def flush() -> None:
        nonlocal block, block_kind
        if block:
            joined = " ".join(part.strip() for part in block)
            out.append(joined if block_kind == "speech" else " " + joined)
            out.append("")
        block, block_kind = [], ""

    for line in lines:
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if ACT_LINE_RE.match(stripped) or SCENE_ONLY_RE.match(stripped):
            flush()
            out += [stripped, ""]
            continue
        speech = _prefix_match(line, prefixes)
        indent = len(line) - len(line.lstrip())
        if speech:
            flush()
            # Upper case, so that `Tull.` reads like `TULLUS.` to the parser: a label, then the speech.
            block, block_kind = [f"{speech.group('label').upper()}. {speech.group('rest')}"], "speech"
            continue
        # A flush-left line right under a speech goes on with it (First Folio), unless it is business.
        continues_speech = block_kind == "speech" and indent < 10 and not (
            re.match(r"^[\[(]?\s*(Enter|Exit|Exeunt|Re-?enter|Manet)\b", stripped) or is_direction_line(stripped)
        )
        if continues_speech:
            block.append(stripped)
            continue
        if indent == 0 or indent >= 10 or not block:
            # Column 0 and far right are where these editions set stage directions.
            if block_kind == "direction" and 0 < indent < 10:
                block.append(stripped)
                continue
            flush()
            block, block_kind = [stripped], "direction"
            continue
        block.append(stripped)
    flush()
    return out
