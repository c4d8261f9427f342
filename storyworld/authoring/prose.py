"""Prose pipeline: chapters and chunks, a cast with aliases, model extraction with a fallback -> a draft WorldFile.

The model (any storyworld.llm LanguageModel) reads a bounded number of chunks under a JSON schema
whose names and places are enums drawn from the chunk itself; everything else, and every chunk
whose model output is empty or implausible, goes through a deterministic fallback (names that
co-occur in a paragraph, place cues like "at Luoyang"). Doubtful records carry their reasons in
the event's `flags`, so the author can review them.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import msgspec

from storyworld.authoring.common import (
    CancelToken,
    Draft,
    ProgressCallback,
    check_cancel,
    event_ids,
    fold,
    report,
    slugify,
    trim_text,
    unique_id,
)
from storyworld.authoring import cjk
from storyworld.authoring.cjk import HAN_RE, is_cjk
from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo

MAX_CHUNK_CHARS = 500  # short paragraphs are joined up to this; long ones split at sentences
MODEL_CHUNKS_PER_CHAPTER = 1  # default model budget when no total is given
MAX_STATEMENTS = 3
MIN_PERSON_MENTIONS = 2
UNKNOWN_PLACE = "unplaced"

NAME_TOKEN = r"[A-Z][a-zà-ÿüāēīōū’'\-]+"
NAME = rf"{NAME_TOKEN}(?: {NAME_TOKEN}){{0,2}}"
CAPS_RUN_RE = re.compile(rf"{NAME_TOKEN}(?:\s{NAME_TOKEN})*")
SENTENCE_RE = re.compile(r"(?<=[.!?”\"])\s+(?=[“\"A-Z])")
CHAPTER_RE = re.compile(r"^\s*(?:chapter|book|part)\s+(?P<num>\d+|[IVXLC]+|[a-z]+)\b[.:]?\s*(?P<title>.*)$", re.I)
QUOTE_RE = re.compile(r"[“”\"「」『』]")
CJK_CHUNK_CHARS = 220  # Chinese says in 220 characters about what English says in 500

# Capitalised words that start sentences or name things, never a person or place on their own.
FUNCTION_WORDS = set(
    """the then but and when what this his her hers your yours my mine our their so now as if at in on of to from
    thus yet still here there it its he she they we i you why how where who whom whose which presently meanwhile soon
    later after before next lo o oh alas ah such these those that a an all some one two three four five six seven
    eight nine ten many no not nor or hence therefore moreover however while with without by for among upon into
    over under about against between through during since until unless although though because whereupon whereas
    then meanwhile perhaps indeed truly verily let may might must shall should will would can could do did does
    has have had is are was were be been being go come see look hear say said yes nay well sir madam lord lady
    chapter book part volume mr mrs miss dr saint st heaven earth state empire throne court emperor empress
    prince princess king queen general minister governor prefect marquis duke commander imperial majesty highness
    excellency noble illustrious honourable honorable venerable elder younger brother sister father mother son
    daughter uncle aunt master teacher servant soldier soldiers army armies chief dynasty""".split()
)
TITLE_WORDS = {
    "emperor", "empress", "prince", "princess", "king", "queen", "lady", "lord", "duke", "marquis", "general",
    "minister", "governor", "prefect", "commander", "mr", "mrs", "miss", "dr", "sir", "dame", "captain", "master",
}
PLACE_SUFFIXES = {
    "pass", "gate", "gates", "hall", "hills", "hill", "river", "mountain", "mountains", "palace", "pavilion",
    "garden", "gardens", "county", "city", "valley", "bridge", "lake", "temple", "gorge", "ford", "plain",
    "plains", "village", "camp", "fort", "road", "province", "prefecture", "commandery", "region", "capital",
    "castle", "tower", "street", "square", "house", "manor", "abbey", "forest", "wood", "woods", "island",
    "harbour", "harbor", "port", "sea", "bay", "shore", "park", "court", "market", "inn", "chamber",
}
PLACE_CUE_RE = re.compile(
    rf"\b(?:at|in|to|from|near|toward|towards|into|reached|entered|left|outside|within|beyond|approached|"
    rf"city of|town of|county of|district of|capital,?)\s+(?:the\s+)?(?P<name>{NAME})"
)
PERSON_AFTER_RE = re.compile(
    rf"(?P<name>{NAME}),?\s+(?:said|replied|asked|cried|shouted|thought|answered|went|took|led|sent|came|saw|"
    rf"ordered|smiled|laughed|rode|bowed|wept|agreed|told|spoke|called|wrote|fled|fell|killed|slew|attacked|"
    rf"marched|returned|turned|heard|knew|felt|himself|herself|was|had|did|would|could)\b"
)
PERSON_BEFORE_RE = re.compile(
    rf"\b(?:said|told|asked|met|by|with|and|sent|saw|killed|slew|attacked|followed|joined|to whom|whom)\s+(?P<name>{NAME})"
)
# "X, or more commonly Y", "X, styled Y", "X, also known as Y", "X (Y)"...
ALIAS_PATTERNS = [
    re.compile(
        rf"(?P<x>{NAME}),?\s+(?:or more commonly|or more usually|also known as|otherwise known as|better known as|"
        rf"commonly called|usually called|styled|whose courtesy name (?:is|was)|whose style (?:is|was)|"
        rf"whose minor name (?:is|was)|whose other name (?:is|was)|courtesy name)\s+(?P<y>{NAME})"
    ),
    re.compile(rf"(?P<x>{NAME}) is my name;?,?\s+(?:but )?I am (?:usually |also |commonly )?(?:called|known as) (?P<y>{NAME})"),
    re.compile(rf"\bI am (?P<x>{NAME}),?[^.]{{0,160}}?(?:usually|commonly|now) (?:called|known as) (?P<y>{NAME})"),
    re.compile(rf"\bnamed (?P<x>{NAME}) \((?P<y>{NAME})\)"),
]
PRONOUN_ALIAS_RE = re.compile(rf"\b(?:His|Her) (?:ordinary|courtesy|minor|other|familiar|usual) name (?:is|was) (?P<y>{NAME})")
# Common Chinese surnames in pinyin: a two-word capitalised name starting with one is a person.
SURNAMES = set(
    """liu cao zhang guan dong lü lu sun yuan wang li he zhu ding hua huang zhao xiahou guo niu chen ma cheng bao han
    huangfu duan tao zu yan jia zou feng jian min hu cai cui gongsun wen kuai qu fan sima zhuge xun xu yang wu zheng
    meng pan qiao lou kong tian gao song jiang shi lei ji dian yue mi gan zhou xie bi fu zang tang xiang ren deng wei
    gong mao hou pang fa lin ling man que zhuo jiao xin hao yu yi qin shen su ding tian zhong cen""".split()
)


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


# ---------------------------------------------------------------------------------------- chunking


def split_chapters(text: str) -> list[Chapter]:
    """Chapters by `Chapter N: title` headings (one chapter when there are none); paragraphs by blank lines."""
    text = text.replace("\r\n", "\n").replace("\ufeff", "")
    if is_cjk(text):
        return _split_chapters_cjk(text)
    chapters: list[Chapter] = []
    number, title, paragraphs = 0, "", []
    current: list[str] = []

    def end_paragraph() -> None:
        if current:
            paragraphs.append(re.sub(r"\s+", " ", " ".join(current)).strip())
            current.clear()

    for line in text.split("\n"):
        heading = CHAPTER_RE.match(line) if len(line) < 200 else None
        if heading:
            end_paragraph()
            if paragraphs or number:
                chapters.append(Chapter(number=number or 1, title=title, paragraphs=list(paragraphs)))
            number = _chapter_number(heading.group("num"), len(chapters) + 1)
            title = heading.group("title").strip()
            paragraphs = []
            continue
        if line.strip():
            current.append(line.strip())
        else:
            end_paragraph()
    end_paragraph()
    if paragraphs or not chapters:
        chapters.append(Chapter(number=number or 1, title=title, paragraphs=list(paragraphs)))
    return [c for c in chapters if c.paragraphs]


def _split_chapters_cjk(text: str) -> list[Chapter]:
    """Chapters by `第N回：title` headings; paragraphs of hard-wrapped lines joined without spaces."""
    chapters: list[Chapter] = []
    number, title, lines = 0, "", []
    for line in text.split("\n"):
        heading = cjk.CHAPTER_RE.match(line) if len(line) < 80 else None
        if heading:
            if lines or number:
                chapters.append(Chapter(number=number or 1, title=title, paragraphs=cjk.split_paragraphs(lines)))
            number = cjk.chapter_number(heading.group("num"), len(chapters) + 1)
            title = heading.group("title").strip()
            lines = []
            continue
        lines.append(line)
    chapters.append(Chapter(number=number or 1, title=title, paragraphs=cjk.split_paragraphs(lines)))
    return [c for c in chapters if c.paragraphs]


def _chapter_number(token: str, fallback: int) -> int:
    if token.isdigit():
        return int(token)
    roman = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
    if all(ch in roman for ch in token.lower()):
        total, prev = 0, 0
        for ch in reversed(token.lower()):
            value = roman[ch]
            total = total - value if value < prev else total + value
            prev = max(prev, value)
        return total
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10, "eleven": 11, "twelve": 12}
    return words.get(token.lower(), fallback)


def chunk_chapters(chapters: list[Chapter], max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """Chunks of up to `max_chars`: short paragraphs joined, long ones split between sentences."""
    chunks: list[Chunk] = []
    han = bool(chapters) and is_cjk("".join(chapters[0].paragraphs[:5]))
    if han:
        max_chars = min(max_chars, CJK_CHUNK_CHARS)
    joiner = "" if han else " "
    for chapter in chapters:
        pieces: list[str] = []
        for paragraph in chapter.paragraphs:
            if len(paragraph) <= max_chars:
                pieces.append(paragraph)
                continue
            sentence_group = ""
            for sentence in sentences(paragraph):
                if sentence_group and len(sentence_group) + len(sentence) + 1 > max_chars:
                    pieces.append(sentence_group)
                    sentence_group = ""
                sentence_group = f"{sentence_group}{joiner}{sentence}".strip()
            if sentence_group:
                pieces.append(sentence_group)
        index = 0
        buffer = ""
        for piece in pieces:
            if buffer and len(buffer) + len(piece) + 1 > max_chars:
                chunks.append(Chunk(chapter=chapter.number, index=index, text=buffer))
                index += 1
                buffer = ""
            buffer = f"{buffer}\n{piece}".strip()
        if buffer:
            chunks.append(Chunk(chapter=chapter.number, index=index, text=buffer))
    return chunks


def sentences(text: str) -> list[str]:
    """The sentences of a passage (a rough split that respects closing quotes)."""
    if HAN_RE.search(text[:200]) and is_cjk(text):
        return cjk.sentences(text)
    return [s.strip() for s in SENTENCE_RE.split(text.replace("\n", " ")) if s.strip()]


# ---------------------------------------------------------------------------------------- cast


def _clean_candidate(run: str, mid_sentence: bool = False) -> str:
    """Drop leading function words (`But Xuande` -> `Xuande`) and possessives.

    Mid-sentence, a capitalised function word that is also a surname stays: "summoned He Jin".
    """
    words = run.split()
    while words and fold(words[0]) in FUNCTION_WORDS and not (fold(words[0]) in TITLE_WORDS and len(words) > 1):
        if mid_sentence and len(words) > 1 and fold(words[0]) in SURNAMES:
            break
        words = words[1:]
    cleaned = " ".join(words)
    return re.sub(r"[’']s?$", "", cleaned)


def _is_surname_name(name: str) -> bool:
    words = name.split()
    return len(words) == 2 and fold(words[0]) in SURNAMES and fold(words[1]) not in PLACE_SUFFIXES and fold(words[1]) not in FUNCTION_WORDS


def build_cast(chapters: list[Chapter], *, min_mentions: int = MIN_PERSON_MENTIONS) -> ProseMentions:
    """Persons (with aliases) and places from capitalised-name frequency, context cues and alias patterns."""
    all_sentences = [s for chapter in chapters for paragraph in chapter.paragraphs for s in sentences(paragraph)]
    stats = _name_stats(all_sentences)
    alias_of = _explicit_aliases(all_sentences)
    persons_by_name, places_by_name, singles = _classify_names(stats, alias_of, min_mentions)
    _resolve_single_words(singles, stats, alias_of, persons_by_name, places_by_name, min_mentions)
    _attach_aliases(alias_of, persons_by_name, stats.counts)
    return _surface_forms(persons_by_name, places_by_name)


@dataclass
class _NameStats:
    """How often each capitalised name occurs, and how often a place or a person cue stands beside it."""

    counts: Counter[str] = field(default_factory=Counter)
    place_cues: Counter[str] = field(default_factory=Counter)
    person_cues: Counter[str] = field(default_factory=Counter)
    first_sentence: dict[str, str] = field(default_factory=dict)


def _name_stats(all_sentences: list[str]) -> _NameStats:
    """Count capitalised runs (split into names) and the place and person cues around them."""
    stats = _NameStats()
    counts, place_cues, person_cues, first_sentence = stats.counts, stats.place_cues, stats.person_cues, stats.first_sentence
    for sentence in all_sentences:
        for match in CAPS_RUN_RE.finditer(sentence):
            mid_sentence = match.start() > 0 and not sentence[: match.start()].strip(" “\"'‘") == ""
            for candidate in _split_run(_clean_candidate(match.group(0), mid_sentence)):
                if candidate:
                    counts[candidate] += 1
                    first_sentence.setdefault(candidate, sentence)
        for match in PLACE_CUE_RE.finditer(sentence):
            place_cues[_clean_candidate(match.group("name"))] += 1
        for match in PERSON_AFTER_RE.finditer(sentence):
            person_cues[_clean_candidate(match.group("name"))] += 1
        for match in PERSON_BEFORE_RE.finditer(sentence):
            person_cues[_clean_candidate(match.group("name"))] += 1
    return stats


def _explicit_aliases(all_sentences: list[str]) -> dict[str, str]:
    """Aliases from explicit patterns ("X, called Y"; "his ordinary name is Y"): alias -> canonical name."""
    alias_of: dict[str, str] = {}
    last_person = ""
    for sentence in all_sentences:
        for pattern in ALIAS_PATTERNS:
            for match in pattern.finditer(sentence):
                canonical, alias = _clean_candidate(match.group("x")), _clean_candidate(match.group("y"))
                if canonical and alias and canonical != alias and fold(alias) not in FUNCTION_WORDS:
                    alias_of.setdefault(alias, canonical)
        pronoun = PRONOUN_ALIAS_RE.search(sentence)
        if pronoun and last_person:
            alias_of.setdefault(_clean_candidate(pronoun.group("y")), last_person)
        # "His ordinary name is Y" speaks of the previous sentence's subject: its first name.
        named = [c for c in (_clean_candidate(m.group(0)) for m in CAPS_RUN_RE.finditer(sentence)) if _is_surname_name(c)]
        if named:
            last_person = named[0]
    return alias_of


def _classify_names(stats: _NameStats, alias_of: dict[str, str],
                    min_mentions: int) -> tuple[dict[str, Person], dict[str, int], list[str]]:
    """Each counted name as a person, a place, or a lone word to resolve later."""
    counts, place_cues, person_cues, first_sentence = stats.counts, stats.place_cues, stats.person_cues, stats.first_sentence
    # Words that are part of someone's name ("Xiahou" of Xiahou Dun) are not places on their own.
    name_words = {w for c in counts if _is_surname_name(c) and counts[c] >= min_mentions for w in c.split()}
    persons_by_name: dict[str, Person] = {}
    places_by_name: dict[str, int] = {}
    singles: list[str] = []
    for candidate, count in counts.items():
        words = candidate.split()
        low = [fold(w) for w in words]
        if not words or all(w in FUNCTION_WORDS for w in low):
            continue
        titled = len(words) >= 2 and low[0] in TITLE_WORDS and low[1] not in FUNCTION_WORDS
        if low[-1] in PLACE_SUFFIXES and len(words) >= 2 and not titled:
            places_by_name[candidate] = count
            continue
        if len(words) == 1 and low[0] in PLACE_SUFFIXES:
            continue  # "the Pass", "the Palace": which one, the text does not say here
        cued_place = (place_cues[candidate] >= 2 and place_cues[candidate] >= 2 * person_cues[candidate]) or (
            place_cues[candidate] >= 1 and person_cues[candidate] == 0 and count >= min_mentions
        )
        if cued_place and not (_is_surname_name(candidate) or titled or candidate in alias_of or candidate in name_words):
            places_by_name[candidate] = count
            continue
        if len(words) == 1:
            singles.append(candidate)
            continue
        is_person = _is_surname_name(candidate) or titled or (
            person_cues[candidate] >= 2 and person_cues[candidate] > place_cues[candidate]
        )
        if is_person and count >= min_mentions and candidate not in alias_of:
            persons_by_name[candidate] = Person(id="", name=candidate, mentions=count,
                                                first_sentence=first_sentence.get(candidate, ""))
    return persons_by_name, places_by_name, singles


def _resolve_single_words(singles: list[str], stats: _NameStats, alias_of: dict[str, str],
                          persons_by_name: dict[str, Person], places_by_name: dict[str, int],
                          min_mentions: int) -> None:
    """A lone word names the one person whose given name it is ("Shao" for Yuan Shao), or the one
    person who carries most of its surname's mentions ("Dong" for Dong Zhuo); else, with enough
    person cues, a person of its own; else nobody."""
    counts, place_cues, person_cues, first_sentence = stats.counts, stats.place_cues, stats.person_cues, stats.first_sentence
    given: dict[str, list[str]] = defaultdict(list)
    by_surname: dict[str, list[Person]] = defaultdict(list)
    for name, person in persons_by_name.items():
        words = name.split()
        given[words[-1]].append(name)
        if _is_surname_name(name):
            by_surname[words[0]].append(person)
    for single in singles:
        if single in alias_of or counts[single] < min_mentions:
            continue
        if len(given.get(single, [])) == 1 and single not in by_surname:
            alias_of[single] = given[single][0]
            continue
        holders = by_surname.get(single, [])
        if holders:
            total = sum(p.mentions for p in holders)
            top = max(holders, key=lambda p: p.mentions)
            if top.mentions >= 0.85 * total:
                alias_of[single] = top.name
            continue
        if fold(single) not in SURNAMES and person_cues[single] >= 3 and person_cues[single] > place_cues[single]:
            # "Cicada" said...: the full name is the one longer name ending in it ("Sable Cicada").
            longer = [c for c in counts if c.endswith(" " + single) and counts[c] >= min_mentions
                      and c not in places_by_name and len(c.split()) <= 3]
            if len(longer) == 1:
                full = longer[0]
                persons_by_name[full] = Person(id="", name=full, mentions=counts[full] + counts[single],
                                               aliases=[single], first_sentence=first_sentence.get(full, ""))
            else:
                persons_by_name[single] = Person(id="", name=single, mentions=counts[single],
                                                 first_sentence=first_sentence.get(single, ""))


def _attach_aliases(alias_of: dict[str, str], persons_by_name: dict[str, Person], counts: Counter[str]) -> None:
    """Attach aliases; a two-word alias with the same surname also gives its bare given name."""
    for alias, canonical in alias_of.items():
        person = persons_by_name.get(canonical)
        if person is None:
            continue
        forms = [alias]
        alias_words, canonical_words = alias.split(), canonical.split()
        if len(alias_words) == 1 and len(canonical_words) == 2 and alias not in canonical_words:
            forms.append(f"{canonical_words[0]} {alias}")
        if len(alias_words) == 2 and alias_words[0] == canonical_words[0] and len(alias_words[1]) >= 4:
            forms.append(alias_words[1])
        for form in forms:
            if form in persons_by_name and form != canonical:
                persons_by_name.pop(form)
            if form not in person.aliases and form != canonical:
                person.aliases.append(form)
                person.mentions += counts.get(form, 0)


def _surface_forms(persons_by_name: dict[str, Person], places_by_name: dict[str, int]) -> ProseMentions:
    """Ids and surface forms: persons by mentions, then places; an alias claimed by two persons names neither."""
    claims: dict[str, set[str]] = defaultdict(set)
    for person in persons_by_name.values():
        for surface in [person.name, *person.aliases]:
            claims[surface].add(person.name)
    cast = ProseMentions()
    taken: set[str] = set()
    for person in sorted(persons_by_name.values(), key=lambda p: (-p.mentions, p.name)):
        person.id = unique_id(slugify(person.name, "person"), taken)
        person.aliases = [a for a in person.aliases if len(claims[a]) == 1]
        cast.persons[person.id] = person
        for surface in [person.name, *person.aliases]:
            cast.surfaces.setdefault(surface, ("person", person.id))
    for name, count in sorted(places_by_name.items(), key=lambda kv: (-kv[1], kv[0])):
        if name in cast.surfaces:
            continue
        place_id = unique_id(slugify(name, "place"), taken)
        cast.places[place_id] = name
        cast.place_mentions[place_id] = count
        cast.surfaces[name] = ("place", place_id)
    return cast


def _split_run(run: str) -> list[str]:
    """A capitalised run of more than three words is split; `Liu Bei Guan Yu` is two names."""
    words = run.split()
    if len(words) <= 3:
        return [run] if run else []
    return [" ".join(words[i : i + 2]) for i in range(0, len(words), 2)]


# ---------------------------------------------------------------------------------------- extraction


class Extraction(msgspec.Struct, kw_only=True):
    """What one chunk yields: an event's parts before ids and rounds are given."""

    actors: list[str]
    witnesses: list[str]
    place: str | None
    statements: list[str]
    kind: str
    text: str
    flags: list[str] = msgspec.field(default_factory=list)
    by_model: bool = False


def fallback_extract(chunk: Chunk, cast: ProseMentions) -> Extraction | None:
    """Deterministic extraction: persons co-occurring in the chunk, the place it names, its key sentences."""
    found = cast.scan(chunk.text)
    actors = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "person"))
    if not actors:
        return None
    place = _place_of(chunk.text, cast, found)
    statements = []
    for sentence in sentences(chunk.text):
        if any(kind == "person" for kind, _, _ in cast.scan(sentence)):
            statements.append(trim_text(sentence, 200))
        if len(statements) >= MAX_STATEMENTS:
            break
    kind = "say" if QUOTE_RE.search(chunk.text) else "act"
    return Extraction(actors=actors, witnesses=list(actors), place=place, statements=statements, kind=kind,
                      text=trim_text(chunk.text))


def _place_of(text: str, cast: ProseMentions, found: list[tuple[str, str, int]]) -> str | None:
    """The place a chunk happens at: the last place with a cue (`at X`), else the last place named."""
    cued = []
    for match in PLACE_CUE_RE.finditer(text):
        name = _clean_candidate(match.group("name"))
        entry = cast.surfaces.get(name)
        if entry and entry[0] == "place":
            cued.append(entry[1])
    if cued:
        return cued[-1]
    places = [item_id for kind, item_id, _ in found if kind == "place"]
    return places[-1] if places else None


TIME_RE = re.compile(
    r"\b(?:(?:at|by|before|after|about) (?:dawn|daybreak|sunrise|noon|midday|dusk|sunset|nightfall|midnight|night)"
    r"|in the (?:spring|summer|autumn|winter|morning|afternoon|evening|night)(?: of (?:that|this|the) (?:year|day))?"
    r"|(?:the )?(?:next|following|same|that|one) (?:day|morning|evening|night|year|month|spring|summer|autumn|winter)"
    r"|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) (?:month|moon|year)"
    r"|(?:\w+ )?(?:days|months|years) (?:later|after|afterwards))",
    re.I,
)
MAX_MODEL_SENTENCES = 12


def time_phrases(text: str) -> list[str]:
    """Time expressions in a passage ("in the spring", "the next day", "fourth month"), in order."""
    return list(dict.fromkeys(m.group(0).strip() for m in TIME_RE.finditer(text)))


def extraction_schema(person_names: list[str], place_names: list[str], sentence_count: int = 1,
                      times: list[str] | None = None) -> dict[str, Any]:
    """The JSON schema the model answers under: every field is an enum drawn from the chunk itself.

    Statements are the numbers of the passage's sentences, so what the model states is always in
    the text. No free strings at all: with the tiny default model, free strings looped until the
    token limit, and string length bounds made llama.cpp's grammar so large that one call took
    minutes on 2 cores.
    """
    return {
        "type": "object",
        "properties": {
            "actors": {"type": "array", "items": {"enum": person_names}, "minItems": 1, "maxItems": 3},
            "witnesses": {"type": "array", "items": {"enum": person_names}, "maxItems": 4},
            "place": {"enum": [*place_names, "unknown"]},
            "time": {"enum": [*(times or []), "unknown"]},
            "statements": {
                "type": "array",
                "items": {"enum": list(range(1, max(1, sentence_count) + 1))},
                "minItems": 1,
                "maxItems": 2,
            },
        },
        "required": ["actors", "witnesses", "place", "time", "statements"],
        "additionalProperties": False,
    }


SYSTEM_PROMPT = (
    "You read a numbered passage of a story and give its main event as JSON. actors: the people who act. "
    "witnesses: other people who are there. place: where it happens. time: when, if the passage says. "
    "statements: the numbers of the one or two sentences that tell what happened."
)


def model_extract(chunk: Chunk, cast: ProseMentions, lm: Any, *, seed: int = 0) -> tuple[Extraction | None, str]:
    """Ask the model for the chunk's event; (extraction, "") or (None, reason it was rejected)."""
    found = cast.scan(chunk.text)
    person_ids = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "person"))
    if not person_ids:
        return None, "no known person in the passage"
    place_ids = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "place"))
    names = {cast.persons[p].name: p for p in person_ids}
    place_names = {cast.places[p]: p for p in place_ids}
    passage = sentences(chunk.text)[:MAX_MODEL_SENTENCES]
    times = time_phrases(chunk.text)
    schema = extraction_schema(list(names), list(place_names), len(passage), times)
    numbered = "\n".join(f"[{i}] {sentence}" for i, sentence in enumerate(passage, 1))
    lines = [f"Passage:\n{numbered}", "", f"People: {', '.join(names)}", f"Places: {', '.join([*place_names, 'unknown'])}"]
    if times:
        lines.append(f"Times: {', '.join(times)}")
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    obj, _completion = lm.complete_json(messages, schema, max_tokens=96, temperature=0.2, seed=seed)
    if not obj:
        return None, "model output empty or invalid"
    actors = [names[n] for n in dict.fromkeys(obj.get("actors", [])) if n in names]
    if not actors:
        return None, "model named no actor"
    picked = [n for n in dict.fromkeys(obj.get("statements", [])) if isinstance(n, int) and 1 <= n <= len(passage)]
    statements = [trim_text(passage[n - 1], 200) for n in sorted(picked)]
    if not statements:
        return None, "model picked no sentence"
    # A statement that names none of the actors is doubtful: say so, keep it for the author.
    flags = []
    actor_ids = set(actors)
    if not any(item_id in actor_ids for s in statements for kind, item_id, _ in cast.scan(s) if kind == "person"):
        flags.append("model's sentences do not name its actors")
    witnesses = list(dict.fromkeys([*actors, *(names[n] for n in obj.get("witnesses", []) if n in names)]))
    place = place_names.get(obj.get("place", "unknown"))
    time_said = obj.get("time", "unknown")
    if time_said in times:
        statements = [f"Time: {time_said}.", *statements]
    kind = "say" if QUOTE_RE.search(chunk.text) else "act"
    return Extraction(actors=actors, witnesses=witnesses, place=place, statements=statements[: MAX_STATEMENTS],
                      kind=kind, text=trim_text(chunk.text), flags=flags, by_model=True), ""


def pick_model_chunks(chunks: list[Chunk], cast: ProseMentions, max_chunks: int | None) -> set[int]:
    """Indexes of the chunks the model reads: the first chunks with people of each chapter, in turns."""
    by_chapter: dict[int, list[int]] = defaultdict(list)
    for index, chunk in enumerate(chunks):
        if any(kind == "person" for kind, _, _ in cast.scan(chunk.text)):
            by_chapter[chunk.chapter].append(index)
    if max_chunks is None:
        max_chunks = MODEL_CHUNKS_PER_CHAPTER * len(by_chapter)
    picked: list[int] = []
    turn = 0
    while len(picked) < max_chunks and any(turn < len(v) for v in by_chapter.values()):
        for chapter in sorted(by_chapter):
            if turn < len(by_chapter[chapter]) and len(picked) < max_chunks:
                picked.append(by_chapter[chapter][turn])
        turn += 1
    return set(picked)


def author_prose(
    text: str,
    *,
    world_id: str = "prose",
    title: str | None = None,
    source: str = "",
    lm: Any = None,
    max_model_chunks: int | None = None,
    max_chunk_chars: int = MAX_CHUNK_CHARS,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
    seed: int = 0,
) -> Draft:
    """Draft a world from prose: the model reads up to `max_model_chunks` chunks (None: one per chapter), the fallback the rest."""
    started = time.perf_counter()
    chapters = split_chapters(text)
    chunks = chunk_chapters(chapters, max_chunk_chars)
    report(progress, 0, len(chunks), "finding the cast")
    han = is_cjk(text)
    cast = cjk.build_cast(chapters) if han else build_cast(chapters)
    model_chunks = pick_model_chunks(chunks, cast, max_model_chunks) if lm is not None else set()
    extractions: list[tuple[Chunk, Extraction]] = []
    model_calls = 0
    for index, chunk in enumerate(chunks):
        check_cancel(cancel)
        extraction: Extraction | None = None
        flags: list[str] = []
        if index in model_chunks:
            model_calls += 1
            extraction, reason = model_extract(chunk, cast, lm, seed=seed + index)
            if extraction is None:
                flags.append(f"{reason}; fallback used")
        if extraction is None:
            extraction = fallback_extract(chunk, cast)
        if extraction is not None:
            extraction.flags = [*flags, *extraction.flags]
            extractions.append((chunk, extraction))
        report(progress, index + 1, len(chunks), f"chapter {chunk.chapter}, chunk {chunk.index + 1}")
    world = _build_prose_world(
        extractions, cast, chapters, world_id=world_id, title=title or _prose_title(chapters, world_id), source=source
    )
    flag_counts: Counter[str] = Counter(flag for event in world.event for flag in event.flags)
    notes = [
        f"{len(chapters)} chapters, {len(chunks)} chunks, {len(extractions)} events",
        f"model read {model_calls} chunks" if lm is not None else "no model: deterministic fallback only",
        f"{len(cast.persons)} persons and {len(cast.places)} places found in the text",
    ]
    return Draft(world=world, kind="prose", seconds=time.perf_counter() - started, model_calls=model_calls,
                 chunks=len(chunks), flag_counts=dict(flag_counts), notes=notes)


def _prose_title(chapters: list[Chapter], world_id: str) -> str:
    return world_id.replace("-", " ").replace("_", " ").title()


def _build_prose_world(
    extractions: list[tuple[Chunk, Extraction]],
    cast: ProseMentions,
    chapters: list[Chapter],
    *,
    world_id: str,
    title: str,
    source: str,
) -> WorldFile:
    # Places: carry the last known place within a chapter; flag where none was found.
    previous_place: str | None = None
    previous_chapter = None
    used_places: list[str] = []
    drafts: list[tuple[Chunk, Extraction, str]] = []
    for chunk, extraction in extractions:
        if chunk.chapter != previous_chapter:
            previous_place, previous_chapter = None, chunk.chapter
        place = extraction.place
        if place is None:
            if previous_place is not None:
                place = previous_place  # prose keeps its scene until it names another: not doubtful
            else:
                place = UNKNOWN_PLACE
                extraction.flags.append("no place found")
        if len(extraction.actors) == 1:
            extraction.flags.append("single actor")
        previous_place = place
        if place not in used_places:
            used_places.append(place)
        drafts.append((chunk, extraction, place))

    exits: dict[str, list[str]] = defaultdict(list)
    for (_, _, before), (_, _, after) in zip(drafts, drafts[1:]):
        if before != after:
            if after not in exits[before]:
                exits[before].append(after)
            if before not in exits[after]:
                exits[after].append(before)
    places = []
    for place_id in used_places or [UNKNOWN_PLACE]:
        if place_id == UNKNOWN_PLACE:
            places.append(Place(id=UNKNOWN_PLACE, name="Somewhere not yet placed",
                                description="Events whose place the text did not give; review them.",
                                exits=exits.get(place_id, [])))
        else:
            native = cast.places[place_id] if HAN_RE.search(cast.places[place_id]) else ""
            places.append(Place(id=place_id, name=cast.place_english.get(place_id) or cast.places[place_id],
                                description=f"Named {cast.place_mentions[place_id]} times in the source.",
                                exits=exits.get(place_id, []), native_name=native))

    appearing: Counter[str] = Counter()
    where: dict[str, Counter[str]] = defaultdict(Counter)
    for _, extraction, place in drafts:
        for person_id in extraction.witnesses:
            appearing[person_id] += 1
            where[person_id][place] += 1
    ranked = sorted(appearing, key=lambda p: (-cast.persons[p].mentions, p))
    playable = set(ranked[:12])
    agents = [
        Agent(
            id=person_id,
            name=cast.persons[person_id].name,
            description=trim_text(cast.persons[person_id].first_sentence, 240),
            home=where[person_id].most_common(1)[0][0],
            playable=person_id in playable,
            aliases=list(cast.persons[person_id].aliases),
            native_name=cast.persons[person_id].name if HAN_RE.search(cast.persons[person_id].name) else "",
        )
        for person_id in ranked
    ]

    ids = event_ids(len(drafts))
    events: list[Event] = []
    chapter_first_round: dict[int, int] = {}
    for round_number, (event_id, (chunk, extraction, place)) in enumerate(zip(ids, drafts), 1):
        chapter_first_round.setdefault(chunk.chapter, round_number)
        events.append(
            Event(id=event_id, round=round_number, place=place, actors=extraction.actors,
                  witnesses=extraction.witnesses, kind=extraction.kind,  # type: ignore[arg-type]
                  text=extraction.text, statements=extraction.statements, flags=extraction.flags)
        )
    starts = [Start(id="beginning", round=1, description="The beginning of the story.")]
    for chapter in chapters[1:]:
        first = chapter_first_round.get(chapter.number)
        if first is None or first <= 1:
            continue
        positions: dict[str, str] = {}
        for event in events[: first - 1]:
            for person_id in event.witness_ids():
                positions[person_id] = event.place
        starts.append(Start(id=f"chapter-{chapter.number}", round=first,
                            description=trim_text(f"Chapter {chapter.number}: {chapter.title}", 200),
                            positions=dict(sorted(positions.items()))))
    info = WorldInfo(id=world_id, title=title, source=source, default_start="beginning",
                     description=f"Drafted from prose by the storyworld prose pipeline: {len(chapters)} chapters.")
    return WorldFile(world=info, place=places, agent=agents, event=events, start=starts)
