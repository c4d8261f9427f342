"""The merge guard: cheap rules that veto merging statements cosine thinks are the same.

Sentence embeddings score "Hamlet killed Polonius" and "Polonius killed Hamlet" near 1.0, and
barely notice "not", another number or another place. The guard compares what they miss:
named entities, numbers, times, places, negation parity, modality ("could not" is not "would
not") and who did what to whom, in what a reporting frame reports (frames.report_core).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memory import frames, lexicon, retelling, verbs, wordnet

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019\-]*|\d+(?:[.,:]\d+)*")

# Capitalised words that are not names (sentence starters, pronouns, titles handled apart).
_NOT_NAMES = set(
    """a an the this that these those there here then when while after before at in on into onto
    upon of to from by with without for and but or nor so yet if as because though although since
    until till unless once he she it they we i you his her its their our my your him them us me
    who whom whose what which where why how all both each every some any no none not never nothing
    later soon now today tonight yesterday tomorrow meanwhile suddenly finally afterwards still also
    only even perhaps maybe indeed alas oh o yes well let lo behold thus hence therefore however
    someone somebody something everyone everybody anyone anybody nobody according""".split()
)
_TITLES = set(
    """king queen prince princess lord lady sir madam mr mrs ms dr doctor captain general duke duchess
    count countess earl baron emperor empress master mistress father mother brother sister uncle aunt
    saint st old young good""".split()
)
_NUMBER_WORDS = set(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
    once twice thrice dozen half score""".split()
)
_TIME_WORDS = lexicon.TIME_WORDS
_DEICTIC = frozenset("this last next previous following".split())
# What a count of time is counted in ("21 days ago", "for 60 minutes"): no one taking part.
_SPAN_UNITS = frozenset("second minute hour day night week fortnight month year decade century time o'clock".split())
_TIME_SPANS = frozenset("year week month night morning evening afternoon winter summer spring autumn season day".split())
# Words that say a thing is near so but not so ("almost gone" is not "gone"); one and its like say the same.
_APPROXIMATE = {"almost": "almost", "nearly": "almost", "practically": "almost", "virtually": "almost",
                "barely": "barely", "hardly": "barely", "scarcely": "barely"}
# How a number is shared out: to each one ("3 crowns for each rebinding") or over all ("3 crowns in all"), and a
# repetition that skips ("every other Friday" is half of "every Friday").
_EACH = re.compile(r"\b(?:each|apiece|per|a head|a piece)\b", re.I)
_SKIPPING = re.compile(r"\bevery\s+(?:other|second|third|few)\b", re.I)
# An exception narrows what it follows: "anyone except Isolde" is not "anyone".
_EXCEPT = re.compile(r"\b(?:except|excepting|apart\s+from|other\s+than|save\s+for|aside\s+from)\b", re.I)
_NEGATIONS = set("not never no nobody nothing none neither nor nowhere cannot without".split())
_PLACE_PREPS = set(
    """in at on into onto upon inside outside near beside under beneath behind above across through
    toward towards within along around over below between among""".split()
)
_DETERMINERS = set("the a an his her its their our my your this that these those".split())
# Words that end a noun phrase when scanning forward from a preposition or determiner.
_PHRASE_STOPS = (
    _PLACE_PREPS
    | _NEGATIONS
    | set(
        """of to from by with for and but or as that which who whom where when while after before about during
        out up down off away back aloud again together
        was were is are be been being had has have did does do will would shall should could might
        must can he she it they we i you him them us me""".split()
    )
)
_PARTICIPLE_END = ("ed", "en", "wn", "ght")
_IRREGULAR_PARTICIPLES = set(
    """told held seen heard made found left sent hit struck slain kept met led sold shot stung bit
    bitten slew drawn thrown given taken stolen chosen forgotten won lost read said paid laid hurt
    cut set put beaten drunk eaten sung rung swum begun broken spoken written ridden hidden fallen
    known shown sworn torn worn borne""".split()
)
_COMMON_VERBS = set(
    """saw sees see took takes gave gives told tells met meets went goes came comes said says fled
    flees struck strikes drew draws ran runs spoke speaks wrote writes heard hears found finds left
    leaves sent sends stood stands fell falls threw throws bore bears bade bid slew slays made makes
    knew knows thought thinks felt feels kept keeps held holds led leads lay lies sat sits swore
    swears stole steals brought brings bought buys caught catches sought seeks drank drinks ate eats
    hid hides rode rides won wins lost loses read reads broke breaks wept weeps sang sings began
    begins became becomes shot shoots bit bites hit hits put puts set sets let lets cut cuts got gets
    had has was were is are did does will would shall should could might must may can""".split()
)
_GROUP_JOINERS = {"and", "&", "of"}
# Role analysis reads the main clause only: "told Hamlet that he was murdered by Claudius"
# must not make Claudius the teller.
_SUBORDINATORS = set("that because who whom which while when after before although though if since until whereas".split())
CONTRADICTIONS = frozenset({"negation", "opposite", "order", "number", "time", "place", "entity", "role"})
# The reasons that mean one statement asserts the opposite of the other (not just another occasion).
POLAR_CONTRADICTIONS = frozenset({"negation", "opposite", "order"})


@dataclass(frozen=True, slots=True)
class Features:
    """What the guard reads from one statement."""

    words: frozenset[str]  # every token, lowercased, possessive stripped
    entities: frozenset[str]
    numbers: tuple[str, ...]  # sorted multiset
    times: frozenset[str]
    places: frozenset[str]
    negations: int
    subject: frozenset[str]  # participants of the acting group (after passive normalisation)
    patient: str | None  # first named participant acted on
    participants: frozenset[str] = frozenset()  # heads of the noun phrases taking part (common nouns too)
    agentless: bool = False  # a passive that names no doer ("The keel was laid on 3 March")


@dataclass(frozen=True, slots=True)
class Verdict:
    """The guard's answer for one pair: ok, or the reason it vetoes."""

    ok: bool
    reason: str | None = None

    @property
    def contradiction(self) -> bool:
        """True when the veto means the two statements disagree about one slot."""
        return not self.ok and self.reason in CONTRADICTIONS


def _clean(token: str) -> str:
    token = token.replace("\u2019", "'")
    if token.lower().endswith("'s"):
        token = token[:-2]
    return token.strip("'-")


@lru_cache(maxsize=65536)
def features(text: str) -> Features:
    """Guard features of one statement (cached by text); a fronted adverbial is read last."""
    text = frames.front_to_back(text)
    raw = [_clean(t) for t in _TOKEN.findall(text)]
    raw = [t for t in raw if t]
    lower = [t.lower() for t in raw]
    entities: set[str] = set()
    numbers: list[str] = []
    times: set[str] = set()
    places: set[str] = set()
    negations = 0
    for at, (token, low) in enumerate(zip(raw, lower)):
        if low in _DEICTIC and at + 1 < len(lower) and lower[at + 1] in _TIME_SPANS:
            times.add(f"{low} {lower[at + 1]}")  # "this year" and "last year" are two times
        if low in _NEGATIONS or low.endswith("n't"):
            negations += 1
        if token[0].isdigit() or low in _NUMBER_WORDS:
            numbers.append(low.replace(",", ""))
        if low in _TIME_WORDS:
            times.add(low)
        if token[0].isupper() and low not in _NOT_NAMES and low not in _TITLES and low not in _TIME_WORDS:
            if low not in _NUMBER_WORDS:
                entities.add(low)
    # Heads of place phrases: the last word of the phrase after a place preposition.
    participants: list[tuple[int, str]] = []  # (position, name) of who/what takes part
    i = 0
    n = len(lower)
    while i < n:
        low = lower[i]
        if low in _PLACE_PREPS:
            phrase, j = _phrase(lower, i + 1, entities)
            head = phrase[-1] if phrase else None
            if head is not None and head not in _TIME_WORDS and head not in _NUMBER_WORDS:
                places.add(head)
            for k in range(i + 1, j):
                if lower[k] in entities:
                    participants.append((k, lower[k]))
            i = max(j, i + 1)
            continue
        if low in entities:
            participants.append((i, low))
        elif low == "by":
            # the passive agent, determiner or not ("struck by lightning")
            phrase, j = _phrase(lower, i + 1, entities)
            for offset, word in enumerate(phrase):
                if word not in _TIME_WORDS:
                    participants.append((j - len(phrase) + offset, word))
            i = max(j, i + 1)
            continue
        elif low in _DETERMINERS or (low[0].isdigit() and ":" not in low and i + 1 < n and lower[0] != "there"
                                     and lower[i + 1] not in _TIME_WORDS and lower[i + 1].rstrip("s") not in _SPAN_UNITS
                                     and not lower[i + 1][:1].isdigit() and lower[i + 1] not in _PHRASE_STOPS):
            # "3 hives had died": a count heads its phrase as an article does ("There are 24 beds" names no doer)
            phrase, j = _phrase(lower, i + 1, entities)
            for offset, word in enumerate(phrase):
                if word not in _TIME_WORDS:
                    participants.append((j - len(phrase) + offset, word))
            i = max(j, i + 1)
            continue
        i += 1
    cut = len(lower)
    for i, word in enumerate(lower):
        if word in _SUBORDINATORS and any(pos < i for pos, _ in participants):
            cut = i
            break
    main = [(pos, name) for pos, name in participants if pos < cut]
    subject, patient = _roles(lower[:cut], main, entities)
    agentless = bool(main) and _passive_agent(lower[:cut], main) is None and _passive_after(lower, main[0][0])
    return Features(
        words=frozenset(lower),
        entities=frozenset(entities),
        numbers=tuple(sorted(numbers)),
        times=frozenset(times),
        places=frozenset(places),
        negations=negations,
        subject=subject,
        patient=patient,
        participants=frozenset(name for _, name in participants),
        agentless=agentless,
    )


def _phrase(lower: list[str], start: int, entities: set[str]) -> tuple[list[str], int]:
    """Words of the noun phrase starting at `start` (at most 3, determiners skipped) and the index after it.

    Without a tagger, a phrase ends at a function word, a name, or a verb-looking word after its
    first word; that is enough to tell "the ghost" from "the ghost followed Hamlet".
    """
    words: list[str] = []
    j = start
    while j < len(lower) and len(words) < 3:
        word = lower[j]
        if word in _PHRASE_STOPS or word.endswith("n't") or (word in _DETERMINERS and words):
            break
        if word in _DETERMINERS:
            j += 1
            continue
        if words and (word in entities or _looks_like_verb(word)):
            break
        words.append(word)
        j += 1
    return words, j


def _looks_like_verb(word: str) -> bool:
    """Past tenses and common verbs (the narration is mostly past tense)."""
    return (len(word) > 3 and word.endswith("ed")) or word in _COMMON_VERBS or lexicon.irregular_past(word)


_AUXILIARIES = frozenset("had has have was were is are be been did does do will would shall should could might must may can".split())


def deeds(text: str) -> frozenset[str]:
    """The concept keys of a statement's verbs, auxiliaries left out ("Elias sealed the letter" -> {"seal"})."""
    return frozenset(_deeds_in_order([_clean(t).lower() for t in _TOKEN.findall(text)]))


def _deeds_in_order(lower: list[str]) -> list[str]:
    """The concept keys of the verbs among lowercased tokens, in the order told."""
    return [lexicon.concept(w) for w in lower if w not in _AUXILIARIES and _looks_like_verb(w)]




def _roles(lower: list[str], participants: list[tuple[int, str]], entities: set[str]) -> tuple[frozenset[str], str | None]:
    """The acting group and the first named participant acted on, undoing the passive voice."""
    if not participants:
        return frozenset(), None
    groups: list[list[tuple[int, str]]] = []
    for pos, name in participants:
        if groups:
            last_pos = groups[-1][-1][0]
            between = lower[last_pos + 1 : pos]
            # "Horatio and Marcellus", "the ghost of the old king": one participant group.
            if between and all(w in _GROUP_JOINERS or w in _TITLES or w in _DETERMINERS for w in between):
                groups[-1].append((pos, name))
                continue
            if not between:
                groups[-1].append((pos, name))
                continue
        groups.append([(pos, name)])
    passive_agent = _passive_agent(lower, participants)
    if passive_agent is not None:
        agent_group = next(g for g in groups if any(p == passive_agent for p, _ in g))
        others = [g for g in groups if g is not agent_group]
        groups = [agent_group] + others
    subject = frozenset(name for _, name in groups[0])
    patient = None
    for group in groups[1:]:
        named = [name for _, name in group if name in entities and name not in subject]
        if named:
            patient = named[0]
            break
    return subject, patient


_IMPERSONAL = frozenset("they someone somebody people".split())


def _impersonal(fa: Features, text_b: str) -> bool:
    """Whether one side names no doer ("The keel was laid") and the other only an unnamed "they" ("They laid the
    keel"): neither says who did it, so no role is swapped."""
    first = _TOKEN.search(text_b)
    return fa.agentless and first is not None and first.group(0).lower() in _IMPERSONAL


def _passive_after(lower: list[str], at: int) -> bool:
    """Whether the subject starting at position `at` is followed by a passive verb ("was laid", "had been sold")."""
    j = at + 1
    while j < len(lower) and j - at < 5 and lower[j] not in _AUXILIARIES and not _looks_like_verb(lower[j]):
        j += 1
    if j < len(lower) and lower[j] in ("had", "has", "have") and j + 1 < len(lower) and lower[j + 1] == "been":
        j += 2
    elif j < len(lower) and lower[j] in ("was", "were", "is", "are", "been"):
        j += 1
    else:
        return False
    if j < len(lower) and lower[j].endswith("ly"):
        j += 1
    return j < len(lower) and (lower[j].endswith(_PARTICIPLE_END) or lower[j] in _IRREGULAR_PARTICIPLES)


def _passive_agent(lower: list[str], participants: list[tuple[int, str]]) -> int | None:
    """Position of the agent in 'X was <participle> ... by AGENT', or None when active."""
    for i, word in enumerate(lower):
        if word not in _AUXILIARIES or i + 1 >= len(lower):
            continue
        j = i + 1
        if lower[j].endswith("ly") and j + 1 < len(lower):
            j += 1
        verb = lower[j]
        if not (verb.endswith(_PARTICIPLE_END) or verb in _IRREGULAR_PARTICIPLES or lexicon.irregular_past(verb)):
            continue
        for k in range(j + 1, min(len(lower), j + 8)):
            if lower[k] == "by":
                after = [p for p, _ in participants if p > k]
                return after[0] if after else None
    return None


def _substituted(a: frozenset[str] | set[str], b: frozenset[str] | set[str], words_a: frozenset[str], words_b: frozenset[str]) -> bool:
    """True when each side has an item the other lacks entirely (a swap, not an omission)."""
    only_a = {x for x in a if x not in words_b}
    only_b = {x for x in b if x not in words_a}
    return bool(only_a) and bool(only_b)


def check(text_a: str, text_b: str, place_a: str | None = None, place_b: str | None = None) -> Verdict:
    """Whether two statements may be merged; the first failed rule names the veto."""
    if text_a == text_b:
        return Verdict(True)
    # What is reported is compared, not who reported it (the holding says that), in one wording: retelling.pair.
    text_a, text_b = retelling.pair(text_a, text_b)
    fa, fb = features(text_a), features(text_b)
    frame_a, frame_b = frames.frame(frames.front_to_back(text_a)), frames.frame(frames.front_to_back(text_b))
    polarity = frames.polarity_conflict(frame_a, frame_b)
    if polarity is not None:
        return Verdict(False, polarity)
    if frame_a.modals != frame_b.modals:
        return Verdict(False, "modality")
    if fa.numbers != fb.numbers and fa.numbers and fb.numbers:
        return Verdict(False, "number")
    if _substituted(set(fa.numbers), set(fb.numbers), fa.words, fb.words):
        return Verdict(False, "number")
    if _substituted(fa.times, fb.times, fa.words | fa.times, fb.words | fb.times):  # "last night" is two words
        return Verdict(False, "time")
    if _substituted(fa.entities, fb.entities, fa.words, fb.words):
        return Verdict(False, "entity")
    if place_a and place_b and place_a != place_b:
        return Verdict(False, "place")
    if _substituted(fa.places, fb.places, fa.words, fb.words):
        return Verdict(False, "place")
    shared = set(fa.subject | fb.subject) & fa.words & fb.words
    impersonal = _impersonal(fa, text_b) or _impersonal(fb, text_a)
    if (fa.subject & shared) != (fb.subject & shared) and not impersonal:
        return Verdict(False, "role")
    if fa.patient and fb.patient and fa.patient != fb.patient and fa.patient in fb.words and fb.patient in fa.words:
        return Verdict(False, "role")
    if fa.subject & fa.entities and fa.subject == fb.subject and not impersonal and verbs.voice_flip(text_a, text_b):
        return Verdict(False, "role")  # "Saltash paid ..." / "Saltash was paid ...": one pays, one is paid
    if _swapped_participant(fa, fb):
        return Verdict(False, "participant")
    if _order_swapped(text_a, text_b):
        return Verdict(False, "order")
    if {_APPROXIMATE[w] for w in fa.words if w in _APPROXIMATE} != {_APPROXIMATE[w] for w in fb.words if w in _APPROXIMATE}:
        return Verdict(False, "degree")
    if fa.numbers and fb.numbers and bool(_EACH.search(text_a)) != bool(_EACH.search(text_b)):
        return Verdict(False, "number")  # "3 crowns for each rebinding" / "3 crowns in all"
    if bool(_SKIPPING.search(text_a)) != bool(_SKIPPING.search(text_b)):
        return Verdict(False, "time")  # "every other Friday" / "every Friday"
    if bool(_EXCEPT.search(text_a)) != bool(_EXCEPT.search(text_b)):
        return Verdict(False, "number")  # "longer than anyone" / "longer than anyone except Isolde"
    relation = _relation_swapped(text_a, text_b, fa, fb)
    if relation is not None:
        return Verdict(False, relation)
    if retelling.kin_turned(text_a, text_b):
        return Verdict(False, "role")  # "X is Y's grandson" / "X is Y's grandfather"
    swapped = _phrases_swapped(text_a, text_b, fa, fb)
    if swapped is not None:
        return Verdict(False, swapped)
    detail = _detail_swapped(text_a, text_b, fa, fb)
    if detail is not None:
        return Verdict(False, detail)
    if verbs.conflict(text_a, text_b):
        return Verdict(False, "verb")
    return Verdict(True)


def _order_swapped(text_a: str, text_b: str) -> bool:
    """Two deeds told in order, "before" or "after" on both sides, with another deed first on each: "left the mill
    before she bandaged the arm" / "bandaged the arm before she left the mill"."""
    toks_a, toks_b = frames.tokens(text_a), frames.tokens(text_b)
    lows_a, lows_b = [t.lower() for t in toks_a], [t.lower() for t in toks_b]
    for word in ("before", "after"):
        if word in lows_a and word in lows_b:
            cut_a, cut_b = lows_a.index(word), lows_b.index(word)
            first_a, first_b = frames.join(toks_a[:cut_a]), frames.join(toks_b[:cut_b])
            verb_a, verb_b = verbs.main_verb(first_a), verbs.main_verb(first_b)
            if verb_a and verb_b and verb_a != verb_b and not verbs.same_deed(verb_a, verb_b):
                return True
            # the words of one side's first deed are the other's second: "swept the chapel before he fed the bees"
            words_a, words_b = frames.content_words(first_a), frames.content_words(first_b)
            then_b = frames.content_words(frames.join(toks_b[cut_b + 1 :]))
            if words_a - words_b and (words_a - words_b) <= then_b:
                return True
    return False


# Prepositions of one relation: "in the barn" and "inside the barn" are one place, "behind the barn" another;
# "on Sunday", "until Sunday" and "before Sunday" three times. "at", "by", "over" and "to" say too many things.
_RELATIONS = {
    "in": "in", "inside": "in", "within": "in", "into": "in", "on": "on", "upon": "on", "onto": "on",
    "under": "under", "beneath": "under", "below": "under", "underneath": "under", "above": "above",
    "behind": "behind", "outside": "outside", "beside": "near", "near": "near", "before": "before",
    "after": "after", "until": "until", "till": "until", "since": "since", "during": "in",
    "against": "against",
}



def _related(lower: list[str], entities: set[str], against: bool) -> dict[str, str]:
    """The head of each noun phrase after a preposition of `_RELATIONS` -> that relation ("for" too where either
    side says "against": it is said of too many things to set against the others)."""
    out: dict[str, str] = {}
    for i, word in enumerate(lower):
        if word in _RELATIONS or (word == "for" and against):
            phrase, _ = _phrase(lower, i + 1, entities)
            if phrase:
                out.setdefault(phrase[-1], _RELATIONS.get(word, word))
    return out


def _relation_swapped(text_a: str, text_b: str, fa: Features, fb: Features) -> str | None:
    """"place" or "time" when one thing is said in another relation on each side: "behind the barn" / "in the barn",
    "before Thursday" / "on Thursday"."""
    lower_a, lower_b = _lowered(text_a), _lowered(text_b)
    against = "against" in lower_a or "against" in lower_b  # "voted for" / "voted against"
    rel_a, rel_b = _related(lower_a, set(fa.entities), against), _related(lower_b, set(fb.entities), against)
    for head, relation in rel_a.items():
        if head in rel_b and rel_b[head] != relation:
            return "time" if head in _TIME_WORDS or head in fa.entities and head not in fa.places else "place"
    return None


def _lowered(text: str) -> list[str]:
    """The statement's tokens, lowercased and cleaned, a fronted adverbial read last."""
    return [_clean(t).lower() for t in _TOKEN.findall(frames.front_to_back(text))]


def _phrases_swapped(text_a: str, text_b: str, fa: Features, fb: Features) -> str | None:
    """"place" when one place is told with another modifier on each side ("at the quarry end" / "at the town end"),
    "time" when the same times go with the deeds in the other order ("left at noon and returned at midnight" /
    "left at midnight and returned at noon"), "role" when two things trade places around one preposition ("traded
    pork for wool" / "traded wool for pork")."""
    lower_a, lower_b = _lowered(text_a), _lowered(text_b)
    mods_a, mods_b = _place_modifiers(lower_a, fa), _place_modifiers(lower_b, fb)
    for head, mods in mods_a.items():
        other = mods_b.get(head)
        if other is not None and mods and other and _substituted(mods, other, frozenset(lower_a), frozenset(lower_b)) \
                and not _person_for_name(mods - other, fa, other - mods, fb) and not _person_for_name(other - mods, fb, mods - other, fa):
            return "place"
    times_a = [w for w in lower_a if w in _TIME_WORDS or _CLOCK_TIME.fullmatch(w)]
    times_b = [w for w in lower_b if w in _TIME_WORDS or _CLOCK_TIME.fullmatch(w)]
    if len(times_a) >= 2 and sorted(times_a) == sorted(times_b) and times_a != times_b:
        if _deeds_in_order(lower_a) == _deeds_in_order(lower_b):
            return "time"
    if _slots_traded(_slots(lower_a, fa), _slots(lower_b, fb)):
        return "role"
    for prep in ("for", "into", "with"):
        if prep in lower_a and prep in lower_b:
            at_a, at_b = lower_a.index(prep), lower_b.index(prep)
            after_a, _ = _phrase(lower_a, at_a + 1, set(fa.entities))
            after_b, _ = _phrase(lower_b, at_b + 1, set(fb.entities))
            if after_a and after_b and after_a[-1] != after_b[-1] \
                    and after_a[-1] in lower_b[:at_b] and after_b[-1] in lower_a[:at_a]:
                return "role"
    return None


_CLOCK_TIME = re.compile(r"\d{1,2}:\d{2}")
# Words that give a phrase its part in a deed: the prepositions of a way ("from the mill to the inn") and the places
# in an order ("a humpback first and a fin whale second").
_SLOT_PREPOSITIONS = frozenset("from to into onto towards toward via past through".split())
_SLOT_ORDER = frozenset("first second third fourth last".split())


def _slots(lower: list[str], f: Features) -> dict[str, tuple[str, ...]]:
    """Each way-preposition's phrase after it and each order word's phrase before it, at its first use."""
    out: dict[str, tuple[str, ...]] = {}
    for k, word in enumerate(lower):
        if word in out:
            continue
        if word in _SLOT_PREPOSITIONS:
            phrase, _ = _phrase(lower, k + 1, set(f.entities))
            if phrase:
                out[word] = tuple(phrase)
        elif word in _SLOT_ORDER and k and lower[k - 1].isalpha() and lower[k - 1] not in _DETERMINERS:
            out[word] = (lower[k - 1],)
    return out


def _slots_traded(slots_a: dict[str, tuple[str, ...]], slots_b: dict[str, tuple[str, ...]]) -> bool:
    """Whether two phrases hold each other's part on the two sides ("from the mill to the inn" / "from the inn to the
    mill")."""
    shared = sorted(slots_a.keys() & slots_b.keys())
    return any(slots_a[p] != slots_a[q] and slots_a[p] == slots_b[q] and slots_a[q] == slots_b[p]
               for i, p in enumerate(shared) for q in shared[i + 1 :])


def _person_for_name(named: frozenset[str], f_named: Features, kinds: frozenset[str], f_kinds: Features) -> bool:
    """Whether one side names a person where the other says what they are ("Tobiah's bunk" / "the clown's bunk")."""
    return bool(named) and named <= f_named.entities and bool(kinds) \
        and all(k not in f_kinds.entities and wordnet.names_a_person(lexicon.key(k)) for k in kinds)


def _place_modifiers(lower: list[str], f: Features) -> dict[str, frozenset[str]]:
    """The head of each phrase after a place preposition -> the other words of its phrase ("the quarry end" ->
    end: {quarry})."""
    out: dict[str, frozenset[str]] = {}
    for i, word in enumerate(lower):
        if word in _PLACE_PREPS:
            phrase, _ = _phrase(lower, i + 1, set(f.entities))
            if len(phrase) > 1:
                out.setdefault(phrase[-1], frozenset(phrase[:-1]))
    return out


def _detail_swapped(text_a: str, text_b: str, fa: Features, fb: Features) -> str | None:
    """"opposite" or "object" when a word of substance on one side has, on the other, its WordNet antonym ("ran 11
    minutes fast" / "slow") or another thing of the same kind ("his broken leg" / "his broken arm"), and neither
    side has a counterpart of it."""
    words_a, words_b = frames.content_words(text_a), frames.content_words(text_b)
    only_a = {w for w in words_a if w not in fa.entities and not _counterpart(w, words_b)}
    only_b = {w for w in words_b if w not in fb.entities and not _counterpart(w, words_a)}
    for x in only_a:
        for y in only_b:
            kx, ky = lexicon.key(x), lexicon.key(y)
            # under one negation more, an opposite says the same ("absent" / "not present")
            if fa.negations == fb.negations and wordnet.opposed(kx, ky, "adj", verbs.WORDNET_DEPTH):
                return "opposite"
            if wordnet.sisters(kx, ky):
                return "object"
    return None


def _swapped_participant(fa: Features, fb: Features) -> bool:
    """Each side has a participant (a noun phrase head) the other lacks even as a synonym.

    "The maid broke the mirror" / "The butler broke the mirror": no name differs, but the actor does.
    """
    concepts_a = {lexicon.concept(w) for w in fa.words}
    concepts_b = {lexicon.concept(w) for w in fb.words}
    only_a = {p for p in fa.participants if p not in fb.words and lexicon.concept(p) not in concepts_b}
    only_b = {p for p in fb.participants if p not in fa.words and lexicon.concept(p) not in concepts_a}
    only_a = {p for p in only_a if not _synonym_among(p, only_b)}
    only_b = {p for p in only_b if not _synonym_among(p, only_a)}
    only_a, only_b = _role_for_name(only_a, fa, only_b, fb)
    return bool(only_a) and bool(only_b)


def counterparts(text_a: str, text_b: str) -> bool:
    """Whether every word of substance of each statement has a counterpart in the other: the same word, a synonym
    (the lexicon's, or one WordNet sense as a noun, an adjective or a deed), or a person named on one side and
    spoken of by what they are on the other. Nothing is left over on either side: no detail swapped, none added."""
    text_a, text_b = retelling.pair(text_a, text_b)
    fa, fb = features(text_a), features(text_b)
    words_a, words_b = frames.content_words(text_a), frames.content_words(text_b)
    only_a = {w for w in words_a if not _counterpart(w, words_b)}
    only_b = {w for w in words_b if not _counterpart(w, words_a)}
    only_a, only_b = _role_for_name(only_a, fa, only_b, fb)
    return not only_a and not only_b


def _counterpart(word: str, others: frozenset[str]) -> bool:
    """Whether `word` or a synonym of it is among `others`."""
    if word in others:
        return True
    head = lexicon.key(word)
    if any(head == lexicon.key(o) or lexicon.concept(word) == lexicon.concept(o) for o in others):
        return True
    if word[0].isdigit():
        return False
    for other in others:
        if other[0].isdigit():
            continue
        if _one_sense(word, other) or _one_sense(head, lexicon.key(other)):  # "stealing" is a noun of theft too
            return True
        if verbs.same_deed(head, lexicon.key(other)) and wordnet.senses(head, "verb") and wordnet.senses(lexicon.key(other), "verb"):
            return True
    return False


def _role_for_name(only_a: set[str], fa: Features, only_b: set[str], fb: Features) -> tuple[set[str], set[str]]:
    """Both sides without a person named on one side and spoken of by what they are on the other ("Idris Mabon" /
    "the purser", "Cerys" / "his sister"), in the same place in the deed (the doer for the doer, one other for one
    other): a statement alone cannot tell who holds that post, so it is no swap. Two kinds of person ("the cook" /
    "the bosun") or two names stay a swap."""
    only_a, only_b = set(only_a), set(only_b)
    for roles, names, f_roles, f_names in ((only_a, only_b, fa, fb), (only_b, only_a, fb, fa)):
        kinds = {p for p in roles if p not in f_roles.entities and wordnet.names_a_person(lexicon.key(p))}
        if len(kinds - _TITLES) == 1 and kinds & _TITLES:
            roles -= kinds & _TITLES  # "the master shipwright": a title before the post is part of that one post
            kinds -= _TITLES
        people = {p for p in names if p in f_names.entities}
        for kind_part, name_part in ((kinds & f_roles.subject, people & f_names.subject),
                                     (kinds - f_roles.subject, people - f_names.subject)):
            # one kind for one person (a name may be two words); two kinds for two names could pair either way
            if len(kind_part) == 1 and 1 <= len(name_part) <= 2:  # a first name and a surname at most
                roles -= kind_part
                names -= name_part
    return only_a, only_b


def _synonym_among(word: str, others: set[str]) -> bool:
    """Whether WordNet puts `word` in a common sense of one of `others`, as a noun or an adjective ("fresh" / "new")."""
    head = lexicon.key(word)
    return any(_one_sense(head, lexicon.key(o)) for o in others)


def _one_sense(a: str, b: str) -> bool:
    """Whether two words share one of their common WordNet senses as nouns or as adjectives."""
    return any(wordnet.same_sense(a, b, pos, verbs.WORDNET_DEPTH) for pos in ("noun", "adj"))


def named(text: str) -> frozenset[str]:
    """Names, numbers, times and places a statement mentions (what keep-shorter must not drop)."""
    f = features(text)
    return f.entities | f.places | frozenset(f.numbers) | f.times
