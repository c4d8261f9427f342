"""A compact English lexicon for the merge guard: word keys, synonym concepts and polar axes.

Why not a package: WordNet (nltk, wn) needs a data download at run time, which this program may
not do; the offline wheels on PyPI carry word lists or lemmas, not synonyms or antonyms. WordNet's
antonyms would not serve anyway: "found"/"missing", "lit"/"went out" or "up to"/"down from" are
not antonym pairs there. So this module keeps the few hundred story verbs, nouns and particles
whose synonymy or opposition decides whether two retellings are one fact, and a suffix-stripping
key that folds inflections ("stabbed", "stabbing", "stabs" -> "stab") the same way on both sides.
"""

from __future__ import annotations

from functools import lru_cache

# Irregular forms -> base form (the key of the base is taken afterwards).
_IRREGULAR_TEXT = """
was:be were:be is:be are:be am:be been:be being:be has:have had:have having:have did:do does:do done:do
went:go gone:go goes:go came:come comes:come saw:see seen:see took:take taken:take gave:give given:give
told:tell said:say says:say met:meet fled:flee flees:flee struck:strike stricken:strike drew:draw drawn:draw
ran:run spoke:speak spoken:speak wrote:write written:write heard:hear found:find left:leave sent:send
stood:stand fell:fall fallen:fall threw:throw thrown:throw bore:bear borne:bear bade:bid slew:slay slain:slay
made:make knew:know known:know thought:think felt:feel kept:keep held:hold led:lead lay:lie lain:lie sat:sit
swore:swear sworn:swear stole:steal stolen:steal brought:bring bought:buy caught:catch sought:seek
drank:drink drunk:drink ate:eat eaten:eat hid:hide hidden:hide rode:ride ridden:ride won:win lost:lose
broke:break broken:break wept:weep sang:sing sung:sing began:begin begun:begin became:become shot:shoot
bit:bite bitten:bite hit:hit put:put set:set let:let cut:cut got:get gotten:get rose:rise risen:rise
woke:wake woken:wake slept:sleep swept:sweep spent:spend lent:lend built:build burnt:burn lit:light
blew:blow blown:blow grew:grow grown:grow flew:fly flown:fly froze:freeze frozen:freeze chose:choose
chosen:choose forgot:forget forgotten:forget forgave:forgive shook:shake shaken:shake sank:sink sunk:sink
swam:swim dug:dig hung:hang fought:fight taught:teach paid:pay laid:lay sold:sell wore:wear worn:wear
tore:tear torn:tear leapt:leap leaped:leap crept:creep knelt:kneel dealt:deal meant:mean understood:understand
overheard:overhear withdrew:withdraw rang:ring rung:ring sprang:spring drove:drive driven:drive strode:stride stuck:stick spun:spin swung:swing dying:die lying:lie tying:tie died:die dies:die dead:dead death:death
children:child men:man women:woman feet:foot teeth:tooth mice:mouse geese:goose
better:better worse:worse
agreed:agree freed:free decreed:decree
"""
IRREGULAR: dict[str, str] = dict(pair.split(":") for pair in _IRREGULAR_TEXT.split())

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


def _fold(word: str) -> str:
    """Suffix-stripped key: the same for a word's inflections, applied alike to text and lexicon."""
    word = word.lower().replace("\u2019", "'")
    if word.endswith("'s"):
        word = word[:-2]
    word = word.strip("'-")
    if word in IRREGULAR:
        word = IRREGULAR[word]
    stem = word
    if len(word) > 4 and word.endswith("ies"):
        stem = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("ied"):
        stem = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("ing"):
        stem = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        stem = word[:-2]
    elif len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        stem = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        stem = word[:-1]
    elif len(word) > 6 and word.endswith("ly"):
        stem = word[:-2]
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
        stem = stem[:-1]
    if len(stem) > 3 and stem.endswith("e"):
        stem = stem[:-1]
    return stem


@lru_cache(maxsize=131072)
def key(word: str) -> str:
    """The inflection-folded key of one word ("stabbed" -> "stab", "arrived" -> "arriv")."""
    return _fold(word)


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
