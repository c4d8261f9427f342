"""Play text: the patterns of headings and speeches, the word tables, and the folding helpers every stage shares."""

from __future__ import annotations

import re

from storyworld.authoring.common import fold

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


def join_lines(raw: list[str]) -> str:
    """Lines joined into one, whitespace collapsed."""
    return re.sub(r"\s+", " ", " ".join(line.strip() for line in raw)).strip()


def titlecase(text: str) -> str:
    """`HAMLET` -> `Hamlet`, `FIRST CLOWN` -> `First Clown`, `ROSENCRANTZ and X` kept word by word."""
    words: list[str] = []
    for word in text.split():
        if word.lower() in {"and", "of", "the", "a", "an"} and words:
            words.append(word.lower())
        else:
            words.append("-".join(part[:1].upper() + part[1:].lower() for part in word.split("-")))
    return " ".join(words)


def singular(word: str) -> str:
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


def name_key(text: str) -> str:
    """Folded, punctuation-free form of a name or label for lookups."""
    folded = fold(text).replace("-", "")
    folded = re.sub(r"'s\b", "", folded)
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", folded).split())
