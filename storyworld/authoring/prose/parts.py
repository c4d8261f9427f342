"""The values the prose pipeline passes from stage to stage: chapters, chunks, the cast it finds, extractions."""

from __future__ import annotations

import re
from collections import Counter

import msgspec

from storyworld.authoring.prose.script import HAN_RE


class Chapter(msgspec.Struct, frozen=True, kw_only=True):
    """A chapter: its number, its title and its paragraphs."""

    number: int
    title: str
    paragraphs: list[str]


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """A unit of extraction: one or more consecutive paragraphs of one chapter."""

    chapter: int
    index: int  # within the chapter
    text: str


class Person(msgspec.Struct, kw_only=True):
    """A cast entry: canonical name, aliases, mention count."""

    id: str
    name: str
    aliases: list[str] = msgspec.field(default_factory=list)
    mentions: int = 0
    first_sentence: str = ""


class ProseMentions:
    """Persons and places found in the text, with the surface forms that name them."""

    def __init__(self) -> None:
        self.persons: dict[str, Person] = {}
        self.places: dict[str, str] = {}  # place id -> name
        self.place_mentions: Counter[str] = Counter()
        self.surfaces: dict[str, tuple[str, str]] = {}  # surface form -> ("person" | "place", id)
        self.place_english: dict[str, str] = {}  # place id -> English name, for places named in another script
        self._compiled: tuple[int, re.Pattern[str]] | None = None

    def scan(self, text: str) -> list[tuple[str, str, int]]:
        """(kind, id, position) for every person or place named in `text`, longest names first."""
        pattern = self._pattern()
        if pattern is None:
            return []
        return [(*self.surfaces[m.group(0)], m.start()) for m in pattern.finditer(text)]

    def _pattern(self) -> re.Pattern[str] | None:
        if not self.surfaces:
            return None
        if self._compiled is None or self._compiled[0] != len(self.surfaces):
            alternatives = sorted(self.surfaces, key=len, reverse=True)
            # Han script has no spaces between words: its names match anywhere, Latin ones at word bounds.
            latin = [re.escape(a) for a in alternatives if not HAN_RE.search(a)]
            han = [re.escape(a) for a in alternatives if HAN_RE.search(a)]
            parts = []
            if han:
                parts.append("(?:" + "|".join(han) + ")")
            if latin:
                parts.append(r"(?<![\w’'])(?:" + "|".join(latin) + r")(?![\w’'])")
            pattern = re.compile("|".join(parts))
            self._compiled = (len(self.surfaces), pattern)
        return self._compiled[1]


class Extraction(msgspec.Struct, frozen=True, kw_only=True):
    """What one chunk yields: an event's parts before ids and rounds are given."""

    actors: list[str]
    witnesses: list[str]
    place: str | None
    statements: list[str]
    kind: str
    text: str
    flags: list[str] = msgspec.field(default_factory=list)
    by_model: bool = False
