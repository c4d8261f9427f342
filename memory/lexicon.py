"""The merge guard's English: word keys from lemminflect, and the story-verb synonym and opposite tables.

Inflection comes from lemminflect, whose dictionaries ship in its wheel (no download at run time):
`key("stabbed") == key("stabs") == "stab"`, `key("went") == "go"`, `key("children") == "child"`. Only
its dictionary look-ups are used (never its out-of-vocabulary model), so a word it does not know
(a name, a coinage) is its own key.

What no offline library provides stays here, as data: which story verbs and nouns mean the same
(`SYNONYMS`) and which are opposite sides of one axis (`POLAR`). WordNet's antonyms would not serve
for the axes: "found"/"missing", "lit"/"went out" or "up to"/"down from" are no antonym pairs there;
its synonyms answer for verbs the tables lack (memory/wordnet.py, used by memory/verbs.py).
"""

from __future__ import annotations

from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas

# Words that name a time (of day, week, month, year): what the guard compares as times, and what turning
# "after" round leaves alone.
TIME_WORDS = frozenset(
    """midnight noon midday dawn dusk daybreak sunrise sunset morning afternoon evening night nightfall
    yesterday today tomorrow tonight monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december spring summer
    autumn winter""".split()
)

# The part of speech whose lemma a word takes when it has several (verbs first: "left" is "leave",
# "found" is "find", "lay" is "lie", as a retelling of a deed means them).
_POS_ORDER = ("VERB", "AUX", "NOUN", "ADJ", "ADV")
_PAST_TAGS = ("VBD", "VBN")


def _clean(word: str) -> str:
    """Lower case, curly apostrophes straightened, a possessive 's and stray quotes or dashes off."""
    word = word.lower().replace("\u2019", "'")
    if word.endswith("'s"):
        word = word[:-2]
    return word.strip("'-")


def _lemma(word: str) -> str:
    """The dictionary lemma of a word, by _POS_ORDER; the word itself when lemminflect does not know it."""
    lemmas = getAllLemmas(word)
    for pos in _POS_ORDER:
        found = lemmas.get(pos)
        if found:
            return str(found[0])
    return word


def _adverb_base(word: str) -> str | None:
    """The adjective an "-ly" adverb is made from, when lemminflect knows it ("quickly" -> "quick",
    "happily" -> "happy", "nobly" -> "noble"): derivation, which no inflection table covers."""
    if len(word) <= 4 or not word.endswith("ly") or "ADJ" in getAllLemmas(word):  # "lonely", "kindly" are adjectives
        return None
    for base in (word[:-2], word[:-3] + "y", word[:-1] + "e"):
        if "ADJ" in getAllLemmas(base):
            return base
    return None


@lru_cache(maxsize=131072)
def key(word: str) -> str:
    """The inflection-folded key of one word: its lemma ("stabbed" -> "stab", "arrived" -> "arrive")."""
    word = _clean(word)
    return _lemma(_adverb_base(word) or word)


@lru_cache(maxsize=16384)
def irregular_past(word: str) -> bool:
    """Whether a word is a past form of a verb not made with "-ed" ("blew", "slain", "put", "known")."""
    word = _clean(word)
    if word.endswith("ed"):
        return False
    for lemma in getAllLemmas(word).get("VERB", ()):
        forms = getAllInflections(lemma, "VERB")
        if any(word in forms.get(tag, ()) for tag in _PAST_TAGS):
            return True
    return False


# Synonym groups: every word of a line folds to the line's first word's key. Verbs in base form.
_SYNONYMS_TEXT = """
say announce declare proclaim state remark mention report
tell inform
speak talk converse chat
shout yell scream cry_out holler call_out
weep cry sob
stay remain linger
fall drop tumble plummet
die death dead perish decease
kill slay murder slaughter execute
flee escape bolt abscond
look search seek hunt
see notice spot glimpse observe witness sight
hear overhear
buy purchase
start begin commence
end finish cease conclude halt stop
hurry rush hasten dash race
grab seize snatch grasp
hide conceal
reach arrive
find discover locate uncover
destroy consume ruin wreck demolish
leave depart
ring sound toll chime
request ask beg implore
help aid assistance assist
reply answer respond retort
order command instruct bid
put place set lay
carry take bring convey
attack assault assail
rise climb ascend mount
welcome greet
examine inspect study scrutinise scrutinize
mend repair fix restore
clean wipe wash scrub
question interrogate
return come_back go_back put_back
give hand
send dispatch
sword blade rapier
cup goblet chalice
room chamber
ship vessel boat
jump leap spring
argue quarrel bicker dispute
gather assemble congregate collect
track follow trail
steer guide
cut chop slice
message news tidings word
road path way lane
wood forest woods
house home dwelling
child kid
man fellow
stone rock
soldier trooper
guard sentry watchman sentinel
doctor physician
letter note
horse steed
king monarch
big large huge great
whole entire
small little tiny
quick fast swift rapid
aloud out_loud
ill sick
happy glad joyful
sad unhappy sorrowful
angry furious enraged
strike hit
stab knife
burn scorch
"""


def _build_synonyms() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in _SYNONYMS_TEXT.strip().splitlines():
        words = line.split()
        head = key(words[0])
        for word in words:
            table.setdefault(key(word) if "_" not in word else word, head)
    return table


SYNONYMS = _build_synonyms()


@lru_cache(maxsize=131072)
def concept(word: str) -> str:
    """The synonym concept of a word (its key when it has no listed synonyms)."""
    k = key(word)
    return SYNONYMS.get(k, k)


# Polar axes: word -> ((axis, sign), ...). Opposite sides of an axis are opposite facts;
# the sign times the statement's negation parity is what the statement asserts on that axis.
_POLAR_TEXT = """
find: find discover locate recover retrieve present here appear reappear turn_up | lose lost missing miss misplace vanish disappear absent
light: light lit ignite kindle burn burning blaze aflame on_particle | out_particle extinguish douse snuff dark unlit off_particle
inout: into inside enter in_particle | out_of outside exit out_particle
up: up upstairs upward climb ascend rise raise lift mount | down downstairs downward descend fall drop lower sink
to: to_object toward towards onto | from away
arrive: arrive reach | leave depart
begin: begin start commence | end finish cease stop halt conclude
life: alive live living survive | dead die death kill slay murder perish drown
open: open unlock | close shut lock
win: win victory triumph | lose defeat
remember: remember recall recollect | forget
accept: accept agree consent | refuse reject decline deny
guilt: guilty | innocent
better: better improve | worse worsen
full: full fill | empty
awake: awake wake | asleep sleep
love: love adore | hate despise loathe
rank: first | last
true: true | false
"""
# Words that turn the statement they head into a negation when their axis has no counterpart
# on the other side ("refused to open" vs "opened").
_NEGATORS = frozenset({"refus", "reject", "declin", "deny"})
ORDER = {"before": -1, "prior": -1, "during": 0, "while": 0, "meanwhile": 0, "after": 1, "afterward": 1, "afterwards": 1}


def _build_polar() -> dict[str, tuple[tuple[str, int], ...]]:
    table: dict[str, list[tuple[str, int]]] = {}
    for line in _POLAR_TEXT.strip().splitlines():
        axis, rest = line.split(":", 1)
        plus, minus = rest.split("|")
        for sign, words in ((1, plus.split()), (-1, minus.split())):
            for word in words:
                k = word if "_" in word else key(word)
                entry = (axis.strip(), sign)
                if entry not in table.setdefault(k, []):
                    table[k].append(entry)
    return {k: tuple(v) for k, v in table.items()}


POLAR = _build_polar()
NEGATOR_KEYS = frozenset(key(w) for w in ("refuse", "reject", "decline", "deny")) | _NEGATORS
