"""The cast stage of the prose pipeline (English): persons with their aliases, and places, from how the text names them.

Capitalised runs are counted and split into names; the words around them say person (`said`,
`replied`) or place (`at`, `reached`); explicit patterns give aliases (`X, styled Y`, `His
courtesy name was Y`); a lone word names the one person whose given name it is. Chinese text has
its own cast stage (`cjk.han_cast`); both give a `ProseMentions`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from storyworld.authoring.common import fold, slugify, unique_id
from storyworld.authoring.prose.chapters import sentences
from storyworld.authoring.prose.parts import Chapter, Person, ProseMentions

MIN_PERSON_MENTIONS = 2


NAME_TOKEN = r"[A-Z][a-zà-ÿüāēīōū’'\-]+"
NAME = rf"{NAME_TOKEN}(?: {NAME_TOKEN}){{0,2}}"
CAPS_RUN_RE = re.compile(rf"{NAME_TOKEN}(?:\s{NAME_TOKEN})*")


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


def clean_candidate(run: str, mid_sentence: bool = False) -> str:
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
            for candidate in _split_run(clean_candidate(match.group(0), mid_sentence)):
                if candidate:
                    counts[candidate] += 1
                    first_sentence.setdefault(candidate, sentence)
        for match in PLACE_CUE_RE.finditer(sentence):
            place_cues[clean_candidate(match.group("name"))] += 1
        for match in PERSON_AFTER_RE.finditer(sentence):
            person_cues[clean_candidate(match.group("name"))] += 1
        for match in PERSON_BEFORE_RE.finditer(sentence):
            person_cues[clean_candidate(match.group("name"))] += 1
    return stats


def _explicit_aliases(all_sentences: list[str]) -> dict[str, str]:
    """Aliases from explicit patterns ("X, called Y"; "his ordinary name is Y"): alias -> canonical name."""
    alias_of: dict[str, str] = {}
    last_person = ""
    for sentence in all_sentences:
        for pattern in ALIAS_PATTERNS:
            for match in pattern.finditer(sentence):
                canonical, alias = clean_candidate(match.group("x")), clean_candidate(match.group("y"))
                if canonical and alias and canonical != alias and fold(alias) not in FUNCTION_WORDS:
                    alias_of.setdefault(alias, canonical)
        pronoun = PRONOUN_ALIAS_RE.search(sentence)
        if pronoun and last_person:
            alias_of.setdefault(clean_candidate(pronoun.group("y")), last_person)
        # "His ordinary name is Y" speaks of the previous sentence's subject: its first name.
        named = [c for c in (clean_candidate(m.group(0)) for m in CAPS_RUN_RE.finditer(sentence)) if _is_surname_name(c)]
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
