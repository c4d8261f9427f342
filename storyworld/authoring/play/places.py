"""Places from scene headings: the town and the place a heading names, and the key that says which place it is.

`Rome. A street.` is a street of Rome; `The same.` the place before; `Another part of the field`
the field seen last; `Another room in the Castle` a room of its own; two towns' streets differ.
"""

from __future__ import annotations

import re

from storyworld.authoring.play.text import name_key

ANOTHER_PART_RE = re.compile(r"^(?:yet\s+)?(?:another|other|a\s+different)\s+part\s+of\s+(?:the\s+)?(?P<rest>.+)$", re.I)


ANOTHER_RE = re.compile(r"^(?:yet\s+)?another\s+(?P<rest>.+)$", re.I)


def _is_town(part: str) -> bool:
    """`Rome`, `Elsinore`, `Forres`: a bare proper name that heads a scene heading before the place itself."""
    words = part.split()
    return 1 <= len(words) <= 3 and all(w[:1].isupper() for w in words) and words[0].lower() not in {"a", "an", "the", "another", "before", "within", "without", "near"}


def scene_location(heading: str) -> tuple[str, str]:
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


def place_key_in(location: str, town: str, towns: dict[str, str], earlier: list[str]) -> str:
    """The place key for a heading: `Another part of the field` joins the field seen last; two towns' streets differ.

    `towns` (place key -> the town a heading named it in) grows; `earlier` are the keys of the scenes before.
    """
    another = ANOTHER_PART_RE.match(location.strip())
    if another:
        wanted = set(place_key(another.group("rest")).split())
        for key in reversed(earlier):
            if wanted and wanted <= set(key.split()):
                return key
        return place_key(another.group("rest"))
    other = ANOTHER_RE.match(location.strip())
    if other:
        # "Another room in the Castle" is not the room of the scene before: a room of its own, and
        # when it follows itself ("Another room" twice), yet another.
        base = place_key(other.group("rest"))
        variants = [f"another {base}", f"yet another {base}"]
        return next(v for v in variants if not earlier or earlier[-1] != v)
    key = place_key(location)
    if not key:
        return key
    if town and town != "=":
        seen = towns.setdefault(key, town)
        if seen != town:
            # the town first: "cyprus street" must not read as a fuller name of "street"
            key = f"{name_key(town)} {key}"
            towns.setdefault(key, town)
    return key


STOP_PLACE_WORDS = {"a", "an", "the", "another", "other", "same", "yet"}


def place_key(location: str) -> str:
    """A place's key: its folded words without articles (`The Castle` and `a castle` are one place)."""
    words = [w for w in name_key(location).split() if w not in STOP_PLACE_WORDS]
    return " ".join(words)


def place_display(location: str) -> str:
    """A place's name for the world file: no leading article, capitals as a name reads."""
    text = re.sub(r"^(a|an|the)\s+", "", location.strip(), flags=re.I)
    # "BRUTUS's orchard": a name in capitals, as some editions print it, reads as a name
    text = re.sub(r"\b[A-Z]{2,}\b", lambda m: m.group(0).title(), text)
    return text[:1].upper() + text[1:]


def merge_place_keys(keys: list[str]) -> dict[str, str]:
    """Map short keys onto the one fuller key they abbreviate (`platform` -> `platform before castle`)."""
    mapping = {key: key for key in keys}
    for key in keys:
        longer = [other for other in keys if other != key and other.startswith(key + " ")]
        if len(longer) == 1:
            mapping[key] = longer[0]
    return mapping


def where_set(labels: list[str]) -> str:
    """`Where scene 1.2 is set.` / `Where scenes 1.1, 1.4 are set.`"""
    if len(labels) == 1:
        return f"Where scene {labels[0]} is set."
    return f"Where scenes {', '.join(labels)} are set."
