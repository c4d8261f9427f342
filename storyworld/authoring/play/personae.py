"""The dramatis personae stage: a personae block read into entries, or (without one) the names entrances give.

Editions set personae one per line, as wrapped prose, in comma lists sharing a description, with
ditto marks, crowd lists and kinds of people in capitals; each becomes a `Persona` saying whether
it is a proper name, how many it stands for, and the synonyms and titles headings may call it by.
"""

from __future__ import annotations

import re
from collections import Counter

import msgspec

from storyworld.authoring.play.editions import is_stage_words
from storyworld.authoring.play.text import (
    NUMBER_WORDS,
    ROLE_NOUNS,
    TITLE_WORDS,
    WORD_RE,
    join_lines,
    name_key,
    singular,
    titlecase,
)
from storyworld.authoring.play.tokens import Item


class Persona(msgspec.Struct, frozen=True, kw_only=True):
    """An entry of the dramatis personae."""

    name: str  # display form, e.g. "Claudius", "Clown"
    description: str = ""
    named: bool = True  # a proper name (CLAUDIUS), not a kind of person (A Gentleman)
    count: int = 1  # "Two Clowns" -> 2
    synonyms: list[str] = msgspec.field(default_factory=list)  # "Grave-diggers" for the clowns
    titles: list[str] = msgspec.field(default_factory=list)  # "King" for Claudius


def parse_personae(lines: list[str]) -> list[Persona]:
    """Entries of a dramatis personae block, wrapped prose or one per line."""
    lines = [re.sub(r"\s+[-–—:]\s+", ", ", line) for line in lines if line.strip()]
    if not lines:
        return []
    long_lines = sum(1 for line in lines if len(line.strip()) >= 60)
    if long_lines * 2 >= len(lines):
        pieces = re.split(r"(?<=\.)\s+(?=[A-Z])", join_lines(lines))
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
    names = {name_key(persona.name) for persona in personae}
    cleaned = []
    for persona in personae:
        titles = [t for t in persona.titles if title_counts[t.lower()] == 1 and name_key(t) not in names]
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
    """The personae one entry lists: a crowd list, a name in capitals, or an entry in mixed case."""
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
        return _caps_entry(words, caps_start)
    return _mixed_entry(entry)


def _caps_entry(words: list[str], caps_start: int) -> list[Persona]:
    """An entry whose name is in capitals (`FRANCISCO, a Soldier`, `The GHOST of Hamlet's father`)."""
    end = caps_start
    while end < len(words) and (_is_caps_word(words[end]) or (
            words[end] in {"A", "AN"} and end + 1 < len(words) and _is_caps_word(words[end + 1]))):
        end += 1  # "MASTER OF A SHIP": a capital article inside a name in capitals
    name = titlecase(" ".join(words[caps_start:end]).rstrip(",").strip("’'"))
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
    head_noun = name_key(name).split()[0] if name_key(name) else ""
    if (name_key(name) in ROLE_NOUNS or name_key(singular(name)) in ROLE_NOUNS
            or (head_noun in ROLE_NOUNS and re.match(r"^\S+\s+of\s+(?:a|an|the)\b", name, re.I))):
        # "BOY, Son to Macduff", "MARINERS", "MASTER OF A SHIP": kinds of people in capitals
        # its speeches may be headed by what the description calls it ("Son")
        kind = re.match(r"^(?:his|her|a|an|the)?\s*(?P<noun>[A-Za-z]+)\s+(?:to|of)\b", rest, re.I)
        synonyms = [kind.group("noun")] if kind and name_key(kind.group("noun")) in ROLE_NOUNS else []
        if name_key(name) not in ROLE_NOUNS and name_key(singular(name)) in ROLE_NOUNS:
            return [Persona(name=singular(name), description=description, named=False, count=0)]
        return [Persona(name=name, description=description, named=False, synonyms=synonyms)]
    return [Persona(name=name, description=description, named=True, titles=_titles_of(description, name))]


def _mixed_entry(entry: str) -> list[Persona]:
    """An entry in mixed case: `Marta Voss, keeper of the lantern`, or kinds of people (`Two Clowns, Grave-diggers`)."""
    head, _, description = entry.partition(",")
    head_words = head.split()
    if not head_words:
        return []
    parts = [p.strip() for p in re.split(r",|\band\b", entry) if p.strip()]
    if len(parts) >= 3 and all(re.fullmatch(r"[A-Z][a-z]+(?:s|men)", p) for p in parts):
        return [Persona(name=singular(p), named=False, count=0) for p in parts]
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
        head_words = [*head_words[:-1], singular(head_words[-1])]
        count = count or 0
    name = " ".join(head_words)
    description = description.strip()
    # "Duke of Cornwall" is a name ("of" joins it); "Fool", "Old Man" are kinds of people.
    named = not plural and count == 1 and len(head_words) >= 1 and first not in {"a", "an", "the", "another"} and all(
        w[:1].isupper() or w in {"of", "de", "la", "le", "du", "von", "van", "da", "di"} for w in head_words
    ) and head_words[0][:1].isupper() and head_words[-1][:1].isupper() and name_key(" ".join(head_words)) not in ROLE_NOUNS | TITLE_WORDS
    synonyms: list[str] = []
    if (count >= 2 or plural) and description and re.fullmatch(r"[A-Za-z\-]+", description):
        synonyms = [singular(description)]
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
            kinds.append(singular(plural))
        elif name_key(single) in ROLE_NOUNS:  # "Poet, Painter, Jeweller, and Merchant"
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


def entrance_personae(items: list[Item], labels: Counter[str]) -> list[Persona]:
    """Without a dramatis personae: names in `Enter ...` directions that abbreviated headings shorten.

    The First Folio heads speeches `Tull.` and brings on `Tullus`: the full name is the one the
    entrance gives, so the heading, the entrance and the display name agree.
    """
    heads = {name_key(label).split()[-1] for label in labels if name_key(label)}
    found: dict[str, str] = {}
    seen: Counter[str] = Counter()
    for item in items:
        if item.kind != "direction" or not re.search(r"\b(Enter|Re-?enter)\b", item.text):
            continue
        for word in WORD_RE.findall(item.text.split("Enter", 1)[-1]):
            norm = name_key(word)
            if not word[:1].isupper() or len(norm) < 3 or is_stage_words(word) or norm in {"and", "with", "the"}:
                continue
            if norm.endswith("s") and not norm.endswith(("us", "is", "as", "os", "ss")):
                continue  # "Citizens": a crowd, not a person
            if any(norm.startswith(head) and len(head) >= 3 for head in heads):
                found.setdefault(norm, titlecase(word))
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
