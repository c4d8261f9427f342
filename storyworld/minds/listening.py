"""Listening: a line heard is read into what it asserts, so that what a character is told becomes its own.

A line a character speaks carries the records it tells (`Say.tells`). A line the person playing types
carries nothing yet: `hear` reads it into a claim — who did what, in the third person, the speaker's
"I" and the listener's "you" turned into their names, a report frame ("I saw …", "I heard that …")
unwrapped — and then finds whether it restates a record the speaker holds (then the line tells that
record, and its listeners come to hold it told by the speaker) or is a claim of the speaker's own (then
the listeners hold the claim, told by the speaker, and the speaker's word is what it rests on).
Questions, greetings and stock lines are heard, never believed.
"""

from __future__ import annotations

import re
import msgspec
from lemminflect import getAllInflections, getAllLemmas, getInflection

from storyworld.kernel.actions import Claim, Say, Told
from storyworld.minds import content, lines, render
from storyworld.world import World

MIN_CONTENT = 2  # content words beyond names a line needs to assert anything ("I saw him there" asserts nothing)
SAME = 0.75  # cosine at which a claim restates a record the speaker holds (and names the same people)

# Report frames a speaker puts before what it asserts: "I saw Vell knock …", "I heard that …". The verb of
# perception keeps its deed's doer and the deed after it ("saw Vell knock" -> "Vell knocked").
_SEEN = re.compile(r"^(?:i\s+(?:saw|watched|noticed|spotted|caught|heard|have\s+seen|had\s+seen))\s+", re.IGNORECASE)
_FRAME = re.compile(
    r"^(?:(?:listen|look|truly|honestly|in truth|believe me|you should know|you must know|know this|mark me|"
    r"i tell you|i swear|i promise you|i am sure|i'm sure|i know|i think|i believe|i heard|i have heard|"
    r"i was told|they say|people say|word is|it is said|the truth is)\b[,:]?\s*(?:that\s+)?)+",
    re.IGNORECASE)
_GREETING = re.compile(r"^(?:hello|hi|greetings|good (?:morning|day|evening|night)|well met|welcome|farewell|"
                       r"goodbye|thank you|thanks|yes|no|aye|nay|indeed|please)\b", re.IGNORECASE)


# The speaker's and the listener's own words: a claim left holding one was not read into the third person.
_FIRST_SECOND = frozenset({"i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "thou", "thee", "thy"})
_REPORTED = re.compile(r"^(?P<who>.+?)\s+(?:told|tells|said\s+to|says\s+to|swore\s+to|whispered\s+to)\s+\S+"
                       r"(?:\s+[^,]*?)?\s+that\s+(?P<what>.+)$", re.IGNORECASE)


# A question without its mark opens with the verb before its subject ("Did Odo swap the sacks").
_INVERTED = re.compile(r"^(?i:do|does|did|is|are|was|were|can|could|will|would|shall|should|has|have|had|may|might)"
                       r"\s+(?:(?i:you|he|she|they|it|we|i)|[A-Z]\w*)\b")


def _asks(line: str) -> bool:
    """Whether a line asks rather than asserts: a question mark, an inverted verb, or a wh-word opening it that is
    not a clause of its own ("When I left late, a lamp was burning" asserts)."""
    return bool(_INVERTED.match(line)) or content.is_question(line)


class Reading(msgspec.Struct, frozen=True, kw_only=True):
    """What a line asserts: one third-person statement and who it names (agent ids, the doer first)."""

    text: str
    actors: tuple[str, ...] = ()


def read_claim(world: World, speaker: str, to: str | None, text: str) -> Reading | None:
    """The statement a line asserts, in the third person, or None for a question, a greeting or a stock line."""
    line = " ".join(text.split()).strip()
    # what a line tells before (or after) a question it puts is told all the same ("The crumpled schedule was in the
    # basket. Will you keep it locked?"): the questions go, the statements stay
    line = " ".join(part for part in lines.SENTENCE_BREAK.split(line) if part and not _asks(part))
    if not line or _GREETING.match(line):
        return None
    line = _drop_vocative(world, to, line)
    # a bidding asserts nothing ("Watch my uncle's face closely"); what a line tells beside one is kept ("Take care
    # at the crossing: the rope is worn through")
    parts = [part for part in re.split(r"\s*[:;]\s+", line) if part]
    # neither a bidding nor a bare answer with no verb in it ("Not by anyone, Inspector: the rope was rotten")
    told = [part for part in parts if not _imperative(part) and (len(parts) == 1 or _has_verb(part))]
    if not told:
        return None
    if len(told) < len(parts):  # (else the line is kept as it was said: "The note said: six sacks …")
        line = "; ".join(told)
    line = _FRAME.sub("", line).strip()
    line = _reported(world, speaker, line)
    seen = _SEEN.match(line)
    if seen:
        rest = line[seen.end():]
        if to in world.agents:  # "I saw you carry a coil down" said to Dan: Dan is the one seen
            rest = re.sub(r"^you\b", world.agents[to].name, rest, flags=re.IGNORECASE)
        line = render.deed_seen(world, rest)
    line = _third_person(world, speaker, to, line)
    line = render.sentence(line[:1].upper() + line[1:]) if line else ""
    named = tuple(render.names_in(world, line))
    names = {w for a in named for n in world.agents[a].all_names() for w in lines.words(n)}
    tokens = set(lines.words(line))
    if len([w for w in content.line_keys(line) if w not in names]) < MIN_CONTENT or tokens & _FIRST_SECOND \
            or "?" in line:
        return None
    return Reading(text=line, actors=named)


# clause openers a bidding may follow ("When the scene comes, watch him"): grammar, not a world's words
_SUBORDINATE = frozenset("when whenever if once after before while until unless as".split())


def _imperative(line: str) -> bool:
    """Whether a line's main clause bids rather than tells: it opens with a verb's base form that no finite verb
    follows ("Go to the battlements", "When it comes, speak to it"; not "Fire burned the hall")."""
    words = re.findall(r"[A-Za-z']+|,", line)
    starts = [0]
    if words and words[0].lower() in _SUBORDINATE and "," in words[:14]:
        starts.append(words.index(",") + 1)
    for i in starts:
        after = words[i + 1] if i + 1 < len(words) else ""
        if i < len(words) and _base_verb(words[i], words[i + 1:]) and not _finite(after):
            return True
    return False


def _base_verb(word: str, rest: list[str]) -> bool:
    """A verb's base form ("watch", "go"), not a name, a pronoun or a form of "be"; a word that is a noun too
    ("Take", "Pot") bids only when no finite verb follows it before its object or phrase opens ("Take care at the
    crossing", "Count the tins"; not "Pot number three has split", "Fire burned the tent")."""
    low = word.lower()
    lemmas = getAllLemmas(low)
    if not word[:1].isalpha() or low not in lemmas.get("VERB", ()) or low in ("be", "i"):
        return False
    if "NOUN" not in lemmas:
        return True
    for w in rest:
        if w.lower() in _OPENERS or w == ",":
            return True
        if w.lower() in _AUXILIARIES or _finite(w):
            return False
    return True


# where an object or a phrase opens after a bidding's verb: grammar, not a world's words
_OPENERS = frozenset("""the a an my your his her our their this that these those him them me us it to out up down
away back over off on in at for with from into onto by here there now""".split())
_AUXILIARIES = frozenset("is are was were has have had will would can could shall should may might must does did".split())


def _has_verb(part: str) -> bool:
    """Whether a piece of a line has a verb that makes it a statement (a finite form, or a form of be or have)."""
    return any(_finite(w) or w.lower() in _BE_HAVE for w in re.findall(r"[A-Za-z']+", part))


_BE_HAVE = frozenset("is are was were am be been has have had do does did can could will would may might must".split())


def _finite(word: str) -> bool:
    """A past or third-person form of a verb ("burned", "comes")."""
    low = word.lower()
    return any(getInflection(lemma, tag) and low in getInflection(lemma, tag)
               for lemma in getAllLemmas(low).get("VERB", ()) for tag in ("VBD", "VBZ"))


def _drop_vocative(world: World, to: str | None, line: str) -> str:
    """"Reeve, the tinker did it" -> "the tinker did it" (the name of whoever it is said to, as an address)."""
    if to not in world.agents:
        return line
    names = [*world.agents[to].all_names(), *(f for f, a in render.first_names(world).items() if a == to)]
    names += [re.sub(r"^(?:the|a|an)\s+", "", n, flags=re.IGNORECASE) for n in names]  # "the reeve" -> "Reeve, …"
    # the title of a titled name, said alone: "Monsieur, …" to one the world calls "Monsieur Dumoulin"
    given, *family = world.agents[to].name.split()
    names += [n.split()[0] for n in names if family and n.split()[1:] == family and n.split()[0] != given
              and n.split()[0][:1].isupper()]
    for name in sorted(set(names), key=len, reverse=True):
        if line.lower().startswith(name.lower()) and line[len(name):len(name) + 1] in (",", "!", ":"):
            return line[len(name) + 1:].strip()
    return line


def _reported(world: World, speaker: str, line: str) -> str:
    """"Ilario told me at the cages that he may leave" -> "Ilario may leave": what was reported, its "he" or
    "she" the reporter's when the world's pronouns for them say so."""
    match = _REPORTED.match(line)
    if match is None:
        return line
    named = list(render.names_in(world, match.group("who")))
    if len(named) != 1 or named[0] == speaker:
        return line
    who, what = named[0], match.group("what").strip()
    pronoun = world.agents[who].pronouns
    head = re.match(r"^(he|she|they)\b", what, re.IGNORECASE)
    # with one person named, "he" is them (a world that gives no pronouns says "they" of everyone)
    if head and head.group(1).lower() in (pronoun, "he", "she") and pronoun in (head.group(1).lower(), "they"):
        what = world.name_of(who) + what[head.end():]
    return what


_FORMS = {  # a person said again after their name: subject, object, possessive, reflexive, "… is"
    "he": ("he", "him", "his", "himself", "he is"), "she": ("she", "her", "her", "herself", "she is"),
    "they": ("they", "them", "their", "themselves", "they are")}


def _third_person(world: World, speaker: str, to: str | None, line: str) -> str:
    """The speaker's "I"/"me"/"my" and the listener's "you"/"your" as their names the first time, their pronouns
    after ("When I raked out the brazier I turned up…" -> "When Seun raked out the brazier he turned up…"; "my
    brother" stays theirs)."""
    first, second = r"I am|[Mm]y|I|[Mm]e|[Mm]yself", r"you are|your|yourself|you"
    line = _CONTRACTED.sub(_uncontracted, line)  # "I'd been sitting up" -> "I had been …", never "Nell'd been"
    line = re.sub(r"\bI (\w+)\b", _said_of_one, line)  # "the jar I keep by my easel": "the jar she keeps ..."
    # each is named again, not given a pronoun, where the other (to be named too) would share it: "I came past your
    # place and the window of your pantry" -> "… Agnes's place and the window of Agnes's pantry", never "her pantry"
    line = _person(world, speaker, line, first, case=0,
                   also=to if re.search(rf"\b(?:{second})\b", line, flags=re.IGNORECASE) else None)
    # "our lorry" is the one those here share: "the lorry" (else the claim, first person still, is no statement)
    line = re.sub(r"\b([Oo])ur\b", lambda m: "The" if m.group(1) == "O" else "the", line)
    return _person(world, to, line, second, case=re.IGNORECASE)


_CONTRACTED = re.compile(r"\b(I|[Yy]ou)['\u2019](m|ve|ll|re|d)\b(?=(\s+[A-Za-z]+)?)")
_UNCONTRACTED = {"m": "am", "ve": "have", "ll": "will", "re": "are"}


def _uncontracted(found: re.Match[str]) -> str:
    """"I'm" -> "I am"; "I'd" -> "I had" before a participle ("I'd been", "I'd seen"), else "I would"."""
    who, short, after = found.group(1), found.group(2), (found.group(3) or "").strip().lower()
    if short != "d":
        return f"{who} {_UNCONTRACTED[short]}"
    participle = after == "been" or any(after in getAllInflections(lemma, "VERB").get("VBN", ())
                                        for lemma in getAllLemmas(after).get("VERB", ()))
    return f"{who} {'had' if participle else 'would'}"


_NO_AGREEMENT = frozenset("am can could will would shall should must may might ought".split())
_HAS_DOES = {"have": "has", "do": "does"}


def _said_of_one(found: re.Match[str]) -> str:
    """"I keep" as "I keeps", ready for the speaker's name or pronoun: a present verb agreeing with one person
    (a form that is its own past, "I put", stays: it is likelier told of the past)."""
    verb = found.group(1)
    lemmas = getAllLemmas(verb).get("VERB", ())
    if verb.lower() in _NO_AGREEMENT or not verb.islower() or tuple(lemmas) != (verb,):  # "saw" is "see" too: a past
        return found.group(0)
    if verb in _HAS_DOES:
        return f"I {_HAS_DOES[verb]}"
    past, third = getInflection(verb, "VBD"), getInflection(verb, "VBZ")
    if not third or (past and verb in past):
        return found.group(0)
    return f"I {third[0]}"


def _pronouns(world: World, agent: str | None) -> str:
    return world.agents[agent].pronouns if agent in world.agents else "they"


def _person(world: World, agent: str | None, line: str, pattern: str, case: int, also: str | None = None) -> str:
    """One person's first-person (or second-person) words as their name, then their pronoun (the name again where
    the pronoun could be another: anyone named since, one like them named before, or `also`, named later)."""
    name = world.name_of(agent) if agent in world.agents else "someone"
    forms = _FORMS.get(_pronouns(world, agent), _FORMS["they"])
    spans = [span for span in render.find_names(world, line) if span.agent != agent]
    others = [span.start for span in spans]
    alike = [span.start for span in spans if _pronouns(world, span.agent) == _pronouns(world, agent)]
    if also is not None and also != agent and _pronouns(world, also) == _pronouns(world, agent):
        alike.append(-1)  # the other party, named in the line once its own words are read
    named: int | None = None  # where the name was last said

    def swap(found: re.Match[str]) -> str:
        nonlocal named
        word = found.group(0).lower()
        at = {"i am": 4, "you are": 4, "my": 2, "your": 2, "myself": 3, "yourself": 3, "me": 1}.get(word, 0)
        if word == "you" and not _subject_you(line, found.start()):
            at = 1
        # after the name, the pronoun; the name again where another person was named since ("he" could be them)
        if named is not None and not any(named < o < found.start() for o in others) \
                and not any(o < found.start() for o in alike):
            opens = not line[:found.start()].strip() or line[:found.start()].rstrip()[-1] in ".!?"
            return forms[at][:1].upper() + forms[at][1:] if opens else forms[at]
        named = found.start()
        # the verb agrees with the name now said ("I am" -> "Pia is"); any other "are" is its own ("the sacks are")
        return {4: f"{name} is", 2: f"{name}'s"}.get(at, name)

    return re.sub(rf"\b(?:{pattern})\b", swap, line, flags=case)


def _subject_you(line: str, at: int) -> bool:
    """Whether a "you" opens a clause (a subject), not an object ("I saw you")."""
    before = line[:at].rstrip()
    return not before or before[-1] in ",;:." or before.split()[-1].lower() in _SUBORDINATE | {"and", "but", "that"}


def hear(world: World, store: content.Memory, say: Say) -> Say:
    """A free line with what it tells: the record it restates that its speaker holds, else its own claim."""
    if say.act != "free" or say.tells or say.claims:
        return say
    reading = read_claim(world, say.actor, say.to, say.text)
    if reading is None:
        return say
    for hit in store.recall(say.actor, reading.text, k=5, expand=False):
        record = hit.record
        holding = record.owners.get(say.actor)
        if float(hit.score) < SAME or holding is None or holding.status not in ("believed", "doubted"):
            continue
        if record.kind == "utterance" and not record.sediment:
            continue  # a line said in play is the saying, not the thing said: telling it again tells its content
        people = set(reading.actors) - {say.actor}  # "I passed him twice": the speaker is in what it saw
        if people <= set(record.actors) or people <= set(render.names_in(world, record.text)):
            return msgspec.structs.replace(say, tells=(Told(record=record.id, text=record.text, kind=record.kind),))
    return msgspec.structs.replace(say, claims=(Claim(text=reading.text, actors=reading.actors),))
