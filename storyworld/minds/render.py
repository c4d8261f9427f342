"""The floor of speech: a record said from the speaker's point of view, with where it came from.

A record is a statement in the third person ("Marcellus and Barnardo saw a figure like the dead
king."). Said by Marcellus to Horatio it becomes "Horatio, Barnardo and I saw a figure like the dead
king." — first person for the speaker, second for the listener, every other name kept — and, when
the speaker is not in it, its provenance goes before it ("Barnardo told me that…", "I read in the
letter that…", "You were there:…"). Deterministic, so it is always there to fall back on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import msgspec
from lemminflect import getAllInflections, getAllLemmas, getInflection

from storyworld.kernel import verbs
from storyworld.minds import lines
from storyworld.world import World

# Words that may stand between a subject and its verb ("Horatio still does not believe").
_ADVERBS = frozenset({"also", "always", "never", "still", "often", "only", "now", "then", "once", "already",
                      "soon", "just", "even", "again", "secretly", "quietly", "slowly", "suddenly", "finally"})
# verbs of saying or thinking, which take a clause ("Rudi said Sam often forgets")
SAYING = ("said", "says", "thinks", "thought", "believes", "believed", "swore", "swears")
_CLAUSE_OPENERS = (". ", "; ", ": ", ", ", " that ", " and ", " but ", " when ", " while ", " because ", " as ",
                   " so ", " if ", " until ", " after ", " before ", " where ", " whether ",
                   # a name after one is its clause's subject (said to Sam: "Rudi said I often forget", not "me")
                   *(f" {verb} " for verb in SAYING))
_BE = {"I": {"is": "am", "was": "was", "has": "have", "does": "do", "isn't": "am not", "wasn't": "wasn't",
             "hasn't": "haven't", "doesn't": "don't"},
       "you": {"is": "are", "was": "were", "has": "have", "does": "do", "isn't": "aren't", "wasn't": "weren't",
               "hasn't": "haven't", "doesn't": "don't"},
       "they": {"is": "is", "was": "was", "has": "has", "does": "does", "isn't": "isn't", "wasn't": "wasn't",
                "hasn't": "hasn't", "doesn't": "doesn't"}}  # a third person keeps its verb, only its tense may move
# The pronouns of the speaker (or listener) once they are the sentence's subject, by the persona's gender.
_PRONOUNS = {("I", "m"): {"he": "I", "He": "I", "him": "me", "his": "my", "His": "My", "himself": "myself"},
             ("I", "f"): {"she": "I", "She": "I", "herself": "myself"},
             ("you", "m"): {"he": "you", "He": "You", "him": "you", "his": "your", "His": "Your", "himself": "yourself"},
             ("you", "f"): {"she": "you", "She": "You", "herself": "yourself"},
             # one the world file calls "they": their own "they" and "their" become "I" and "my" (or "you", "your")
             **{(person, "t"): {they: forms[k] for they, forms in (
                 ("they", ("I", "you")), ("They", ("I", "You")), ("them", ("me", "you")), ("their", ("my", "your")),
                 ("Their", ("My", "Your")), ("themselves", ("myself", "yourself")), ("themself", ("myself", "yourself")))}
                for k, person in enumerate(("I", "you"))}}


class Span(msgspec.Struct, frozen=True):
    """A name found in a text: where, and whose."""

    start: int
    end: int
    agent: str


def name_forms(world: World) -> list[tuple[str, str]]:
    """(surface, agent id) for every way a person is named, longest first (so "King Hamlet" beats "Hamlet")."""
    forms: dict[str, str] = {}
    for agent in world.agents.values():
        for name in agent.all_names():
            name = name.strip()
            if len(name) < 2:
                continue
            forms.setdefault(name, agent.id)
            bare = re.sub(r"^(the|a|an)\s+", "", name, flags=re.IGNORECASE)
            if bare != name and len(bare) > 2 and bare[0].isupper():
                forms.setdefault(f"the {bare}", agent.id)
    for surface, agent_id in first_names(world).items():
        forms.setdefault(surface, agent_id)
    return sorted(forms.items(), key=lambda item: (-len(item[0]), item[0]))


def post_forms(world: World) -> dict[str, str]:
    """{"plant collector": agent id, "collector": agent id, …}: the posts a question may name a person by, from the
    world's typed fields (an alias "the plant collector", a description opening "The engine driver of …"), each
    tail of one ("the collector") kept only where it is no word of any other person's names or description and no
    name of anyone already ("the man" of "the insurance man" is half the world)."""
    found = _POSTS.get(world.digest)
    if found is not None:
        return found
    phrases: dict[str, set[str]] = {}
    for agent in world.agents.values():
        for text in (*(a for a in agent.aliases if a.lower().startswith("the ")), agent.description):
            post = _POST.match(text)
            last = post.group(1).split()[-1].lower() if post else ""
            head = getAllLemmas(last) or getAllLemmas(last.rsplit("-", 1)[-1])  # "green-eyed": "eyed"
            # a noun (or a word too rare for the lexicon: "carter", "alewife"), never an adjective ("The elderly
            # governor")
            if post is None or "ADJ" in head or head and "NOUN" not in head:
                continue
            words = post.group(1).split()
            for start in range(len(words)):
                phrases.setdefault(" ".join(words[start:]).lower(), set()).add(agent.id)
    named = {surface.lower() for surface, _ in name_forms(world)}
    # each person's names and description, once: what a post's last word must not be a word of for anyone else
    said_of = {a.id: f"{a.description} {' '.join(a.all_names())}".lower() for a in world.agents.values()}
    found = {}
    for phrase, who in phrases.items():
        if len(who) != 1 or f"the {phrase}" in named or phrase in named:
            continue
        (agent_id,) = who
        head = phrase.split()[-1]
        elsewhere = " ".join(text for other, text in said_of.items() if other != agent_id)
        if " " in phrase or not re.search(rf"\b{re.escape(head)}\b", elsewhere):
            found[phrase] = agent_id
    _POSTS[world.digest] = found
    return found


_POSTS: dict[str, dict[str, str]] = {}  # by world digest
# "the plant collector", "The engine driver of the evening express, …": the lower-case words after "the", up to
# what qualifies them (a comma, "who", "of", "from", "sent", …)
_POST = re.compile(r"^[Tt]he\s+([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)*?)(?=,|\s+(?:who|of|at|for|from|sent|up|down|in|"
                   r"on|to|with|and|by)\b|\s*$|\s+[A-Z])")


def first_names(world: World) -> dict[str, str]:
    """A person's first name alone ("Kasimir" for "Kasimir Dole"), where it names one person only and is a
    proper name: no other person's name starts with it, and the world's texts never write it in lower case
    (so "King" of "King Hamlet" or "Lady" of "Lady Mi", which texts also use as words, stay out)."""
    firsts: dict[str, list[str]] = {}
    if world.info.name_order != "given-first":
        return {}  # "Guan" of "Guan Yu" is his family's name, never what he is called
    for agent in world.agents.values():
        for name in (agent.name,):
            parts = name.split()
            if len(parts) >= 2 and parts[0][:1].isupper() and parts[0].isalpha():
                firsts.setdefault(parts[0], [])
                if agent.id not in firsts[parts[0]]:
                    firsts[parts[0]].append(agent.id)
    lowered = _lower_words(world)
    return {first: who[0] for first, who in firsts.items() if len(who) == 1 and first.lower() not in lowered}


_LOWER: dict[str, frozenset[str]] = {}


def _lower_words(world: World) -> frozenset[str]:
    """Every word the world's texts write in lower case (descriptions, goals, events): common words, not names."""
    found = _LOWER.get(world.digest)
    if found is None:
        texts = [a.description for a in world.agents.values()] + [g for a in world.agents.values() for g in a.goals]
        texts += [p.description for p in world.places.values()] + [e.text for e in world.events]
        texts += [s for e in world.events for s in e.statements]
        found = frozenset(w for t in texts for w in re.findall(r"\b[a-z][a-z']*\b", t))
        _LOWER[world.digest] = found
    return found


class _Names(msgspec.Struct, frozen=True):
    """A world's person names as one pattern (longest first), and whose each is."""

    pattern: re.Pattern[str]
    whose: dict[str, str]


_WORLD_NAMES: dict[str, _Names] = {}  # by world digest: the pattern is built once per world


def _names(world: World) -> _Names:
    found = _WORLD_NAMES.get(world.digest)
    if found is None:
        forms = name_forms(world)
        alternation = "|".join(re.escape(surface) for surface, _ in forms) or r"(?!x)x"
        found = _Names(pattern=re.compile(rf"(?<![\w'])(?:{alternation})(?![\w])"), whose=dict(forms))
        _WORLD_NAMES[world.digest] = found
    return found


def find_names(world: World, text: str) -> list[Span]:
    """Every person named in the text, the longest name at each place, none overlapping, in text order."""
    _names(world)
    return list(_find(world.digest, text))


@lru_cache(maxsize=32768)
def _find(digest: str, text: str) -> tuple[Span, ...]:
    names = _WORLD_NAMES[digest]
    taken: list[Span] = []
    for match in names.pattern.finditer(text):
        # part of a longer proper name the world does not list ("Prince Fortinbras" is not "Fortinbras"),
        # unless the capitalised word before only opens the sentence ("Get Horatio to see it")
        words_before = text[: match.start()].split()
        word_before = words_before[-1] if words_before else ""
        opens = len(words_before) == 1 or (len(words_before) > 1 and words_before[-2].endswith((".", "!", "?", ";", ":")))
        # (a name of two words or more is the world's whole name: "On Saturday Aigerim Bekova saw …")
        if word_before[:1].isupper() and word_before != "I" and not word_before.endswith((".", ";", ":", "!", "?", ",")) \
                and not opens and " " not in match.group(0).strip():
            continue
        taken.append(Span(match.start(), match.end(), names.whose[match.group(0)]))
    return tuple(taken)


def _is_subject(text: str, span: Span) -> bool:
    """Whether a name stands where a clause's subject stands: at the start, or after a clause opener."""
    head = text[: span.start]
    if not head.strip():
        return True
    # an opener is one at the start too, capitalised ("When Joe had gone home …")
    head = f" {head[:1].lower()}{head[1:]}" if head[:1].isupper() and " " not in head.strip() else head
    return head.endswith(_CLAUSE_OPENERS) and not head.endswith((" to ", " with ", " by ", " of "))


def _agree(person: str, rest: str, past: bool) -> str:
    """The verb after a new subject "I"/"you" agreeing with it ("Marcellus is" -> "I am", "Horatio nods" -> "you nod")."""
    match = re.match(r"^(\s+)((?:\w+\s+)?)([\w']+)", rest)
    if match is None:
        return rest
    space, adverb, verb = match.group(1), match.group(2), match.group(3)
    if adverb and adverb.strip().lower() not in _ADVERBS:
        adverb, verb = "", adverb.strip()
        match = re.match(r"^(\s+)([\w']+)", rest)
        if match is None:
            return rest
        space, verb = match.group(1), match.group(2)
    table = _BE[person]
    if verb in table:
        new = verbs.past(verbs.base(verb)) if past and verb not in ("is", "was", "isn't", "wasn't") else table[verb]
        if past and verb in ("is", "isn't"):
            new = table["was" if verb == "is" else "wasn't"]
        if past and verb in ("does", "doesn't", "has", "hasn't"):
            new = {"does": "did", "doesn't": "didn't", "has": "had", "hasn't": "hadn't"}[verb]
    elif verb.endswith("s") and not verb.endswith(("ss", "us", "is")) and verb.islower() and len(verb) > 2:
        new = verbs.past(verbs.base(verb)) if past else (verbs.base(verb) if person != "they" else verb)
    else:
        return rest
    return f"{space}{adverb}{new}{rest[match.end():]}"


ECHO_WORDS = 24  # the most words of a line a hearer says back whole; past that it names what the line was about


def _echoed(world: World, echo: str, speaker: str, to: str | None) -> tuple[str, bool]:
    """What a hearer says back of a line it was told, and whether that is the line itself: the line in the hearer's
    words when short, else what it was about, by the people it named ("what you tell me of Sidney Chown")."""
    told = clause(point_of_view(world, lines.first_sentences(echo, 120) or echo, speaker, to), world)
    if len(told.split()) <= ECHO_WORDS:
        return told, True
    named = list(dict.fromkeys(s.agent for s in find_names(world, echo) if s.agent not in (speaker, to)))
    about = " and ".join(world.name_of(a) for a in named[:2])
    return (f"what you tell me of {about}" if about else "what you tell me"), False


def point_of_view(world: World, text: str, speaker: str, listener: str | None, *, past: bool = False) -> str:
    """The statement as the speaker says it to the listener: the speaker "I", the listener "you", others by name.

    `past`: the statement narrates in the present what is now over (canon backstory told later), so the
    verb after a new subject goes into the past ("Marcellus tells Horatio" -> "I told you").
    """
    spans = find_names(world, text)
    targets = (speaker, listener)
    if not any(s.agent in targets for s in spans):
        return _in_the_past(text, spans) if past else text
    out: list[str] = []
    cursor = 0
    subject_person: str | None = None  # whose "he" and "his" the rest of the sentence now means
    object_person: str | None = None  # "me" or "you" where the speaker or listener is acted on
    owner_person: str | None = None  # "my" or "your" where the speaker's or listener's thing is named
    i = 0
    while i < len(spans):
        span = spans[i]
        nxt = spans[i + 1] if i + 1 < len(spans) else None
        pair = nxt is not None and re.fullmatch(r"\s+and\s+", text[span.end:nxt.start]) is not None
        titled = re.search(r"\b(?:himself|herself)\s+(?:as\s+|the\s+)?$", text[:span.start]) is not None
        if (span.agent not in targets and not (pair and nxt is not None and nxt.agent in targets)) or titled:
            i += 1  # a title one takes ("proclaimed himself Lord of Heaven General") stays a title
            continue
        subject = _is_subject(text, span)
        out.append(text[cursor:span.start])
        if pair and nxt is not None:  # a pair has a next span; the test narrows it
            # "Marcellus and Barnardo saw" said by Marcellus: "Barnardo and I saw"; the object pair "Barnardo and me"
            words = [_word(s, speaker, listener, subject, text) for s in (span, nxt)]
            mine = "I" if subject else "me"
            if mine in words:
                words.remove(mine)
                words.append(mine)
            out.append(_cap_if_start(text, span.start, " and ".join(words)))
            cursor = nxt.end
            if subject and speaker in (span.agent, nxt.agent):
                subject_person = subject_person or "we"
            i += 2
            continue
        person = "I" if span.agent == speaker else "you"
        possessive = re.match(r"^['\u2019]s\b", text[span.end:])
        if possessive:
            out.append(_cap_if_start(text, span.start, "my" if person == "I" else "your"))
            cursor = span.end + len(possessive.group(0))
            owner_person = owner_person or person
        elif subject or _verb_follows(text[span.end:]) and not _after_preposition(text, span.start):
            # a subject, or the subject of a clause with no "that" ("believes Hamlet has gone mad"; not "the rope
            # that broke under Rosa was old": after a preposition, an object)
            out.append(_cap_if_start(text, span.start, person))
            gap_end = nxt.start if nxt is not None else len(text)
            out.append(_agree(person, text[span.end:gap_end], past))
            cursor = gap_end
            subject_person = subject_person or person
        else:
            out.append("me" if person == "I" else "you")
            cursor = span.end
            object_person = object_person or person
        i += 1
    out.append(text[cursor:])
    said = "".join(out)
    if subject_person in ("I", "you"):
        sex = _pov_gender(world, speaker if subject_person == "I" else listener)
        # "Marcellus explains that Horatio thinks …, so he has brought him" said by Horatio: "he" may be Marcellus
        named = find_names(world, said)
        rivals = [s.start for s in named if s.agent not in targets and _pov_gender(world, s.agent) in (sex, "")]
        # a named thing or beast the world casts as nobody ("Corrib Star got cast in his box") may be "he" too
        # (the subject of a clause of its own: a name and then its verb; not the last word of a name found already,
        # "Skeie said" of "Halvard Skeie said", which is a person's the world casts)
        rivals += [m.start() for m in re.finditer(r"(?<=[a-z,;:] )([A-Z][a-z]+(?: [A-Z][a-z]+)*) (\w+)", said)
                   if not any(n.start <= m.start() < n.end for n in named) and not _name_of_one(world, m.group(1))
                   and _finite_verb(m.group(2))]
        said = _pronouns(said, subject_person, sex, rivals)
        # a reflexive after "I"/"you" and its verb (and an object) is theirs whatever the persona says of its sex, in
        # any clause ("I proclaimed myself", "…; you checked it yourself at midnight")
        said = re.sub(r"\b((I|You|you)\s+\w+\s+(?:\w+\s+)?)(?:himself|herself)\b",
                      lambda m: m.group(1) + ("myself" if m.group(2) == "I" else "yourself"), said)
        # a "he" made "I" keeps his verb's person: "I said I has promised" -> "I said I have promised"
        said = _agree_subjects(said)
    elif object_person is not None or owner_person is not None:
        # "Hamlet gave Ophelia letters and swore he loved her" said by Ophelia: "her" is hers when nobody
        # else the sentence names could be meant by it ("…and swore he loved me"); so is "she" after "your
        # sister's" when it was Marthe's sister ("coming back from your sister's you looked through the grating")
        whose = object_person or owner_person or "you"
        sex = _pov_gender(world, speaker if whose == "I" else listener)
        first = re.split(r"(?<=[.!?;])\s+", text, maxsplit=1)[0]
        others = {_pov_gender(world, s.agent) for s in spans if s.agent not in targets and s.end <= len(first)}
        if sex and sex not in others and "" not in others:
            said = _agree_subjects(_pronouns(said, whose, sex))
    return _coordinated(said)


# "you quarrelled with Rosa over her pony and was seen", "you had sworn … and was seen": a second verb joined to the
# first (after the subject's own auxiliary, if any) by "and", with no subject between them (no clause opened, no other
# verb in the person of another), is the same subject's
_COORDINATED = re.compile(r"\b(?P<who>[Yy]ou|I)\b(?P<between>(?:\s+(?:had|have|has|were|was|are|am)\b)?"
                          r"(?:(?![.;:!?])(?!\b(?:that|who|which|whom|was|were|is|are|am|"
                          r"has|have|had|he|she|they|it|we)\b).)*?)\band\s+(?P<verb>was|is|has|does)\b")
_COORDINATED_VERB = {("you", "was"): "were", ("you", "is"): "are", ("you", "has"): "have", ("you", "does"): "do",
                     ("i", "is"): "am", ("i", "has"): "have", ("i", "does"): "do", ("i", "was"): "was"}


def _coordinated(said: str) -> str:
    """The verbs joined to "you"/"I" by "and" in their person ("you … and was seen" -> "you … and were seen")."""
    return _COORDINATED.sub(lambda m: f"{m['who']}{m['between']}and {_COORDINATED_VERB[m['who'].lower(), m['verb']]}",
                            said)


def _one_doer(words: list[str]) -> bool:
    """Whether the words after "I" up to a pronoun are one doer's verbs (one, or more joined by "and": "found the
    letter and gave"), not a new subject's ("said the inspector asked": the inspector asks)."""
    verbs = [k for k, w in enumerate(words) if _finite_verb(w) or w in ("is", "was", "are", "were", "has", "had")]
    return all(k > 0 and words[k - 1] == "and" for k in verbs[1:])


def _agree_subjects(said: str) -> str:
    """Each verb after "I" or "you" in their person ("I has" -> "I have"), except after one that is an object ("the
    sack that fell on you was full": the verb is the sack's)."""
    def agreed(match: re.Match[str]) -> str:
        return match.group(0) if _after_preposition(said, match.start()) else _agreed(match)

    return re.sub(r"\b(I|You|you)\s+([a-z]+)\b", agreed, said)


def _agreed(match: re.Match[str]) -> str:
    """"I knows" -> "I know": a verb of the third person after "I" or "you" (a "he" made "I") in their person."""
    subject, verb = match.group(1), match.group(2)
    low = verb.lower()
    if (subject.lower(), low) in _PERSON_VERB:
        return f"{subject} {_PERSON_VERB[subject.lower(), low]}"
    readings = getAllLemmas(low)
    if set(readings) != {"VERB"}:
        return match.group(0)  # "you lies" is no verb only; "I knows" is
    for lemma in readings["VERB"]:
        if lemma != low and low in getAllInflections(lemma, "VERB").get("VBZ", ()):
            return f"{subject} {lemma}"
    return match.group(0)


def _name_of_one(world: World, words: str) -> bool:
    """Whether capitalised words are (part of) a person's name or a place's, not a thing's or a beast's."""
    return bool(find_names(world, words)) or bool(places_in(world, words)) or words.split()[0] in ("The", "A", "An")


_PERSON_VERB = {("i", "has"): "have", ("i", "is"): "am", ("i", "does"): "do", ("i", "was"): "was", ("i", "were"): "was",
                ("i", "are"): "am",
                ("you", "has"): "have", ("you", "is"): "are", ("you", "does"): "do", ("you", "was"): "were"}


def gender(world: World, agent: str | None) -> str:
    """"m", "f" or "" from the world file's `pronouns` field (only to turn its "he"/"she" into "I" or "you")."""
    if agent not in world.agents:
        return ""
    return {"he": "m", "she": "f"}.get(world.agents[agent].pronouns, "")


def _pov_gender(world: World, agent: str | None) -> str:
    """gender, and "t" for one the world file calls "they" (whose "they" and "their" become "I" and "my")."""
    if agent in world.agents and world.agents[agent].pronouns == "they":
        return "t"
    return gender(world, agent)


def _in_the_past(text: str, spans: list[Span]) -> str:
    """A present-tense narration told later: the verb after a named subject goes into the past ("Elias seals" -> "sealed")."""
    out, cursor = [], 0
    for index, span in enumerate(spans):
        if not _is_subject(text, span):
            continue
        gap_end = spans[index + 1].start if index + 1 < len(spans) else len(text)
        out += [text[cursor:span.end], _agree("they", text[span.end:gap_end], True)]
        cursor = gap_end
    out.append(text[cursor:])
    return "".join(out)


def _verb_follows(rest: str) -> bool:
    """Whether a name is followed by a verb of being, having or doing, or by a word that can only be a finite verb
    ("said Karma slipped": Karma is the subject of "slipped"; "saw Karma slip", "gave Karma orders" are objects)."""
    match = re.match(r"^\s+(\w+'?\w*)", rest)
    return match is not None and (match.group(1) in _BE["I"] or _finite_verb(match.group(1)))


@lru_cache(maxsize=4096)
def _finite_verb(word: str) -> bool:
    """Whether a word is a past or third-person form of a verb and nothing else (no noun, adjective or base form)."""
    lemmas = getAllLemmas(word.lower())
    if set(lemmas) - {"VERB"}:
        return False
    return any(word.lower() in getAllInflections(lemma, "VERB").get(tag, ())
               for lemma in lemmas.get("VERB", ()) for tag in ("VBD", "VBZ"))


def _word(span: Span, speaker: str, listener: str | None, subject: bool, text: str) -> str:
    """One member of a pair of names as the speaker says it."""
    if span.agent == speaker:
        return "I" if subject else "me"
    if span.agent == listener:
        return "you"
    return text[span.start:span.end]


def _cap_if_start(text: str, start: int, word: str) -> str:
    """A replacement word capitalised where it opens a sentence ("I" always is)."""
    if word == "I":
        return word
    head = text[:start].rstrip()
    if not head or head.endswith((".", "!", "?")):
        return word[:1].upper() + word[1:]
    return word


def _pronouns(text: str, person: str, sex: str, rivals: Iterable[int] = ()) -> str:
    """After the speaker (or listener) became the subject, the first sentence's "he/his" (or "she/her") are theirs,
    up to where someone else they could mean has been named (`rivals`: where such names start): past that, whose
    the pronoun is cannot be told, and it stays."""
    table = dict(_PRONOUNS.get((person, sex), {}))
    if sex == "f":
        # "her" is "my" before a noun ("her father"), "me" where it ends a phrase ("loved her")
        table["her"] = "my" if person == "I" else "your"
    if not table:
        return text
    sentences = re.split(r"(?<=[.!?;])\s+", text, maxsplit=1)
    first = sentences[0]

    rivals = list(rivals)

    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        if any(start < match.start() for start in rivals):
            return word
        own = re.search(r"\b(?:I|[Yy]ou)\s+((?:(?!(?:he|she|they|it|that|who)\b)\w+\s+){1,6})$", first[:match.start()])
        owns = word == "her" and _HER_OWNS.match(first[match.end():]) is not None  # "her niece", not "her at the inn"
        if word in ("him", "her") and not owns and own and _one_doer(own.group(1).split()):
            # the object of the speaker's own verb is someone else: one acting on oneself says "myself"
            # ("Captain Blake scratched him" said by Blake: "I scratched him", not "I scratched me")
            return word
        if word == "her" and not owns:
            return "me" if person == "I" else "you"
        return table[word]

    first = re.sub(r"\b(" + "|".join(table) + r")\b", swap, first)
    return " ".join([first, *sentences[1:]])


def clause(text: str, world: World | None = None) -> str:
    """A statement fit to follow "that" or a colon: no closing stop, its first word lower-cased unless a name."""
    text = " ".join(text.split()).strip()
    text = text.rstrip(".")
    if not text or text[:2] == "I " or not text[:1].isupper() or len(text) < 2:
        return text
    first = text.split()[0]
    if world is None:
        # without the world's names, only the words that are never names lose their capital
        keep = first.lower() not in {"the", "a", "an", "it", "there", "this", "that", "his", "her", "their", "my",
                                     "your", "you", "he", "she", "they", "we", "all", "some", "no", "every", "one",
                                     "two", "on", "in", "at", "when", "after", "before", "last", "yesterday"}
    else:
        # a name keeps its capital ("He Jin", "Barnardo", "Denmark"), one of the world's people, places or things,
        # or a word it never writes in lower case that is no common word or opens a run of capitals ("Liu Yan",
        # "Ma Yuanyi": people its texts name who do not take part); any other word opening it goes lower
        keep = _opens_with_name(world, text)
    return text if keep else first.lower() + text[len(first):]


def _opens_with_name(world: World, text: str) -> bool:
    """Whether a text's first word is (or opens) a name: one of the world's people, places or things, or a word
    the world never writes in lower case that is no common word or opens a run of capitals ("Liu Yan", "Ma Yuanyi":
    people its texts name who do not take part)."""
    words = text.split()
    if not words:
        return False
    first = words[0].rstrip(",;:.!?")
    uncommon = first.lower() not in _lower_words(world) and (
        not getAllLemmas(first.lower()) or (len(words) > 1 and words[1][:1].isupper()))
    return any(span.start == 0 for span in find_names(world, text)) or _names_a_thing(world, text) or uncommon


def _yours(world: World, text: str, listener: str | None) -> str:
    """The listener's name as an owner said to them as "your" ("tell Hamlet's story" to Hamlet: "tell your story")."""
    for span in reversed(find_names(world, text)):
        possessive = re.match(r"^['\u2019]s\b", text[span.end:])
        if span.agent == listener and possessive:
            text = text[:span.start] + "your" + text[span.end + len(possessive.group(0)):]
    return text


def _names_a_thing(world: World, text: str) -> bool:
    """Whether the text opens with the name of a place or an object of the world (not "The" of "The hall")."""
    for name in (*(p.name for p in world.places.values()), *(o.name for o in world.objects.values())):
        first = name.split()[0] if name.split() else ""
        if text.startswith(name) and first.lower() not in ("the", "a", "an"):
            return True
    return False


def _opening(text: str) -> str:
    """A text that starts a sentence of its own: its first letter capital."""
    text = sentence(text)
    return text[:1].upper() + text[1:]


def deed_seen(world: World, rest: str) -> str:
    """What follows "I saw": "Vell knock the lantern over" -> "Vell knocked the lantern over"; "Tobiah washing
    the horses" -> "Tobiah was washing the horses"; "Tobiah down at the river" -> "Tobiah was down at the river"."""
    spans = find_names(world, rest)
    if not spans or spans[0].start != 0:
        return rest
    head, after = rest[:spans[0].end], rest[spans[0].end:]
    match = re.match(r"^(\s+)([a-z]+)\b", after)
    if match is None:
        return rest
    word = match.group(2)
    readings = getAllLemmas(word)
    lemmas = readings.get("VERB", ())
    # a word that is also a preposition, an adverb or an adjective ("down", "out") is a place or a state
    if word in lemmas and not {"ADP", "ADV", "ADJ"} & set(readings):  # a bare verb: the deed seen, told in the past
        past = getInflection(word, tag="VBD")
        return head + match.group(1) + (past[0] if past else word) + after[match.end():]
    if lemmas and word.endswith("ed"):
        return rest  # already told in the past ("Vell knocked")
    return f"{head} was{after}"


def sentence(text: str) -> str:
    """A text ending as a sentence ends."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def is_subject_in(world: World, text: str, agent: str) -> bool:
    """Whether the person is a subject in the statement (who did it), not only someone it names."""
    return any(s.agent == agent and (_is_subject(text, s) or _verb_follows(text[s.end:])) for s in find_names(world, text))


def speaks_of(world: World, text: str, agent: str) -> bool:
    """Whether a statement names this person."""
    return any(s.agent == agent for s in find_names(world, text))


_PLACE_FORMS: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {}  # by world digest


def places_in(world: World, text: str) -> set[str]:
    """The places a text names, by the world's place names: the whole name without its article ("the drying
    tent"), or "the" and its last word where no other place's name ends so ("below the ford": The river ford)."""
    return {place for form, place in _place_forms(world) if form.search(text)}


def _place_forms(world: World) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each place's forms as patterns (built once per world)."""
    found = _PLACE_FORMS.get(world.digest)
    if found is None:
        names = {p.id: re.sub(r"^(?:the|a|an)\s+", "", p.name.strip(), flags=re.IGNORECASE).lower()
                 for p in world.places.values()}
        heads: dict[str, list[str]] = {}
        for place, name in names.items():
            words = re.findall(r"[a-z']+", name)
            if words and len(words[-1]) > 2:
                heads.setdefault(words[-1], []).append(place)
        found = tuple((re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE), place)
                      for place, name in names.items() if name)
        found += tuple((re.compile(rf"\bthe {re.escape(head)}\b", re.IGNORECASE), ids[0])
                       for head, ids in heads.items() if len(ids) == 1)
        _PLACE_FORMS[world.digest] = found
    return found


def names_in(world: World, text: str) -> Iterable[str]:
    """The people a statement names, in order, each once."""
    return dict.fromkeys(s.agent for s in find_names(world, text))


# ------------------------------------------------------------------------------- the floor

# Plain lines for the acts that carry no record, a few of each so a speaker does not say one twice running;
# four words or more, so that two of them to one listener ("Liu Bei, what …") share less than half their trigrams.
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        # each says "I do not know" in so many words: an asker must never mistake it for an evasion
        "unknown": ("I do not know; nothing of that has come my way.", "nobody has told me a word of it, so I do not know.",
                    "that I do not know, and I will not guess at it.", "I have seen and heard nothing of it; I do not know.",
                    "I do not know, I am sorry to say."),
        "unknown_what": ("I do not know {what}; nobody has told me a word of it.", "I do not know {what}, I am sorry to say.",
                         "I cannot tell you {what}; I do not know."),
        "no_news": ("nothing new that I know of.", "I have no news for you.", "nothing has come to my ears.",
                    "all is quiet, as far as I know.", "I have heard nothing new."),
        "told_all": ("I have told you all I know of it.", "you know as much of it as I do.",
                     "there is no more I can tell you.", "that is all I know, and you have heard it."),
        "refuse": ("that is not a thing I will speak of.", "do not ask me that.", "I will not answer that.",
                   "leave that alone; I will say nothing."),
        "decline": ("no; I will have no part in that.", "no, I would rather we did not.", "no; leave that be."),
        "greet": ("well met, my friend.", "welcome, and well met.", "good day to you.", "it is good to see you.",
                  "a good day, and well met.", "I am glad to see you.", "greetings to you.", "well, here you are."),
        "ask": ("what news do you bring?", "what brings you here?", "is all well with you?", "how goes it with you?",
                "have you heard anything new?", "how do you fare, friend?", "is anything afoot here?",
                "what is the word here?"),
        "ask_about": ("what do you know of {topic}?", "have you heard anything of {topic}?", "is there any word of {topic}?",
                      "tell me, what news of {topic}?", "what can you tell me of {topic}?", "what is said of {topic}?",
                      "any tidings of {topic}?", "what have you heard of {topic}?"),
        "lead": ("come with me to {place}.", "follow me to {place}.", "we must go to {place}.", "come, we go together to {place}."),
        "summon": ("you are wanted at {place}.", "they are asking for you at {place}.", "you must go at once."),
        "demand": ("I would have the truth from you.", "answer me plainly."),
        "lie": ("all is well; there is nothing to fear.",),
        "deny": ("I know nothing about that, and I had no part in it.", "I cannot help you there; I know nothing of it.",
                 "that is nothing to do with me; ask someone else.", "I have no idea what you mean by that."),
        "heard": ("I did not know that, not at all.", "that is news to me, truly.", "I had not heard that before.",
                  "I never knew that until now."),
        "source_told": ("{source} told me, {when}.", "I had it from {source}, {when}."),
        "source_you": ("you told me yourself, {when}.",), "source_heard_you": ("I heard you say it, {when}.",),
        "source_heard": ("I heard {source} say it, {when}.",),
        "source_saw": ("I saw it with my own eyes, {where}{when}; nobody had to tell me.",),
        "source_own": ("those are my own words; I said so {when}.",),
        "source_read": ("I read it in {source}, {when}.",),
        "source_inferred": ("I worked it out myself; nobody had to tell me.",),
        "when": ("that was {when}, at {place}.", "it happened {when}, at {place}."),
        "where": ("last I knew, {who} was at {place}.", "the last I heard, {who} was at {place}."),
    },
    "zh": {
        "unknown": ("此事我不知道。", "我未曾听说此事。"), "no_news": ("没有什么新消息。",), "told_all": ("我所知道的都已告诉你了。",), "refuse": ("此事我不便多说。", "不要问我这个。"), "decline": ("不，此事我不参与。",),
        "greet": ("幸会。", "欢迎。"), "ask": ("有什么消息吗？", "你为何来此？"), "ask_about": ("你知道{topic}的事吗？",),
        "lead": ("随我去{place}。",), "summon": ("{place}有人找你。",), "demand": ("请你说实话。",),
        "lie": ("一切安好，不必担心。",), "deny": ("此事与我无关，我一无所知。",), "heard": ("原来如此，我记下了。",),
        "source_told": ("是{source}告诉我的，{when}。",), "source_you": ("是你亲口告诉我的，{when}。",), "source_heard_you": ("我听你说的，{when}。",),
        "source_heard": ("我听{source}说的，{when}。",),
        "source_saw": ("没人告诉我，是我亲眼所见，{where}{when}。",), "source_read": ("我在{source}中读到的，{when}。",),
        "source_own": ("这是我自己说的，{when}。",),
        "source_inferred": ("没人告诉我，是我自己推想的。",), "when": ("那是{when}，在{place}。",),
        "where": ("据我所知，{who}最后在{place}。",),
    },
}
PROVENANCE = {
    "en": {"quote": "{source} said: \u201c{q}\u201d", "quote_own": "I said it myself: \u201c{q}\u201d",
           "quote_you": "you said it yourself: \u201c{q}\u201d", "shared": "you know it as well as I do: {c}", "told_you": "you told me yourself that {c}",
           "told": "{source} told me that {c}", "told_unsure": "{source} told me that {c}, though I cannot vouch for it",
           "told_heard": "I heard {source} say that {c}", "told_heard_you": "I heard you say that {c}",
           "told_heard_unsure": "I heard {source} say that {c}, though I cannot vouch for it",
           "read": "I read in {source} that {c}", "saw": "I saw it myself: {c}",
           "inferred": "I believe that {c}", "plain": "{c}"},
    "zh": {"quote": "{source}说过：“{q}”", "quote_own": "我说过：“{q}”", "quote_you": "你说过：“{q}”",
           "shared": "你我都知道：{c}", "told_you": "你亲口告诉我：{c}", "told": "{source}告诉我：{c}", "told_unsure": "{source}告诉我：{c}，但我不敢担保",
           "told_heard": "我听{source}说：{c}", "told_heard_you": "我听你说：{c}", "told_heard_unsure": "我听{source}说：{c}，但我不敢担保",
           "read": "我在{source}中读到：{c}", "saw": "我亲眼所见：{c}", "inferred": "我想：{c}", "plain": "{c}"},
}


def language(world: World) -> str:
    """The template language for a world: Chinese for a zh world, English otherwise."""
    return "zh" if world.info.language.lower().startswith("zh") else "en"


def inline(name: str) -> str:
    """A name as it reads inside a sentence: "The great hall of Elsinore" -> "the great hall of Elsinore"."""
    first, _, tail = name.partition(" ")
    return f"{first.lower()} {tail}" if tail and first in ("A", "An", "The") else name


TOLD_LONGEST = 3  # a holding's first sentence is said whole up to this many times the usual length


def say_known(world: World, speaker: str, listener: str | None, known: object, now: int) -> str:
    """One holding said from the speaker's point of view, with where it came from when the speaker is not in it."""
    lang = language(world)
    # (a long first sentence whole, up to three times that: a person's account of what they saw is told on with
    # what came after its colon, "…in my hands: it's grey and furry…", not cut at the colon)
    text = lines.first_sentences(getattr(known, "text"), 170, longest=TOLD_LONGEST) or getattr(known, "text")
    text = _doer_named(world, text, getattr(known, "actors", ()))
    past = getattr(known, "round") < now
    if lang == "zh":
        body = text
        for agent, pronoun in ((speaker, "我"), (listener, "你")):
            if agent in world.agents:
                for name in world.agents[agent].all_names():
                    body = body.replace(name, pronoun)
    else:
        body = point_of_view(world, text, speaker, listener, past=past)
    holders = getattr(known, "holders")
    via, source = getattr(known, "via"), getattr(known, "source")
    if getattr(known, "quote", False):
        # a line of dialogue is told as said, in its own words, with who said it
        by = getattr(known, "said_by", None) or source
        form = "quote_own" if by in (None, speaker) else ("quote_you" if by == listener else "quote")
        said = PROVENANCE[lang][form].format(q=text.strip(), source=world.name_of(by) if by else "")
        return said if said.endswith(("\u201d", "”")) else sentence(said)
    actors = getattr(known, "actors", ())
    # a deed of the speaker's own is said plainly in the first person ("I counted the coins"); a record with no
    # typed doer (a sight of who stood where) that names the speaker is too ("I am in the hall")
    if lang == "en" and (speaker in actors or (not actors and speaks_of(world, text, speaker))):
        form = "plain"
    elif listener is not None and listener in holders:
        form = "shared"
    elif via in ("told", "sediment") and source in world.agents and source != speaker and source in actors \
            and getattr(known, "kind") == "utterance":
        form = "plain"  # the teller's own words, which already say who told it ("Agathe told me she gave …")
    elif via in ("told", "sediment") and source in world.agents and source != speaker:
        unsure = getattr(known, "confidence", 1.0) < 0.5 or getattr(known, "status", "") == "doubted"
        form = "told_you" if source == listener else "told_unsure" if unsure else "told"
        if getattr(known, "overheard", False):  # said to another, heard by the speaker ("I heard you say that …")
            form = "told_heard_you" if source == listener else "told_heard_unsure" if unsure else "told_heard"
    elif via == "read" and source:
        form = "read"
    elif via == "inferred":
        form = "inferred"
    elif via in ("witnessed", "sediment") and getattr(known, "kind") in ("event", "observation"):
        form = "saw"
    else:
        form = "plain"
    name = world.name_of(source) if source else ""
    if form in ("told", "told_unsure", "told_heard", "told_heard_unsure") and lang == "en":
        body = _pronoun_for(world, body, source)  # "Claudius told me that he asked", not "...that Claudius asked"
    said = PROVENANCE[lang][form].format(c=clause(body, world) if form != "plain" else body.rstrip("."),
                                         source=inline(name) if form == "read" else name)
    return sentence(said)


def _doer_named(world: World, text: str, actors: tuple[str, ...]) -> str:
    """A record that opens with "He" or "She" (a statement split from the sentence that named him) opens with its
    typed doer's name, when the world's pronouns for the doer agree: "He has brought him to watch" held of
    Marcellus is "Marcellus has brought him to watch", never the speaker's "I has brought me"."""
    opening = re.match(r"(He|She|They)\b", text)
    if opening is None or not actors or actors[0] not in world.agents:
        return text
    if world.agents[actors[0]].pronouns != opening.group(1).lower() or (opening.group(1) == "They" and len(actors) > 1):
        return text  # "They" of a record with several doers is all of them
    return world.name_of(actors[0]) + text[opening.end():]


def _pronoun_for(world: World, body: str, agent: str | None) -> str:
    """The body with the one who told it (named just before, in "X told me that") said by pronoun: "he" where
    the name opens it, "him" or "her" where it is named later ("…that Ilario told her he might leave")."""
    sex = gender(world, agent)  # "" when the world does not say: "they" and "them"
    out, cursor = [], 0
    for span in find_names(world, body):
        if span.agent != agent:
            continue
        out.append(body[cursor:span.start])
        owned = re.match(r"^['\u2019]s\b", body[span.end:])
        if owned:  # "that coming back from Marthe's sister's …": "from her sister's"
            out.append({"m": "his", "f": "her"}.get(sex, "their"))
            cursor = span.end + len(owned.group(0))
            continue
        subject = {"m": "he", "f": "she"}.get(sex, "they")
        out.append({"m": "him", "f": "her"}.get(sex, "them") if _object_position(body, span) else subject)
        cursor = span.end
    out.append(body[cursor:])
    return "".join(out)


_PREPOSITIONS = frozenset({"to", "with", "by", "for", "from", "at", "of", "about", "on", "in", "into", "onto", "upon",
                           "against", "toward", "towards", "behind", "beside", "near", "than", "like", "without",
                           "under", "over", "below", "above", "beneath", "across", "through", "around", "among",
                           "between", "beyond", "inside", "outside"})


# "her" owns what follows when a word of substance follows it ("her niece"), not a preposition, a determiner or an
# adverb ("left her at the inn", "gave her the ring", "saw her again")
_NOT_OWNED_AFTER_HER = _PREPOSITIONS | frozenset(
    "alone there here and but or when while because before after again home up down out off away back that so too then "
    "once twice since until till as if near the a an this these those some any his her their my your its our no every "
    "each".split())
_HER_OWNS = re.compile(r"\s+(?!(?:" + "|".join(sorted(_NOT_OWNED_AFTER_HER)) + r")\b)[a-z]")


def _after_preposition(text: str, at: int) -> bool:
    """Whether the word at `at` follows a preposition ("under Rosa", "with Kit"): an object, whatever verb comes
    after it."""
    before = re.findall(r"[A-Za-z']+", text[:at])
    return bool(before) and before[-1].lower() in _PREPOSITIONS


def _object_position(text: str, span: Span) -> bool:
    """Whether a name stands where an object stands: after a preposition or a verb ("told Teodor", "to Teodor"),
    not after an opener or a phrase of time ("that Teodor heard", "on Tuesday evening Teodor heard")."""
    before = re.findall(r"[A-Za-z']+", text[: span.start])
    if not before or text[: span.start].rstrip().endswith((",", ";", ":", ".")):
        return False
    word = before[-1].lower()
    if _after_preposition(text, span.start):
        return True
    # a name before a verb in the past is its subject whatever comes before it ("a week before the pour Mieke
    # counted": "pour" reads as a verb)
    after = re.match(r"\s+([A-Za-z']+)", text[span.end:])
    if after is not None and _past_verb(after.group(1).lower()):
        return False
    readings = getAllLemmas(word)
    # after a verb's past ("Dan left Nell his coat": "left" is a noun and an adjective too, but not in front of a name)
    past = any(word in getAllInflections(lemma, "VERB").get("VBD", ()) for lemma in readings.get("VERB", ()))
    return "VERB" in readings and ("NOUN" not in readings or past) and word not in ("that", "and", "but")


def _past_verb(word: str) -> bool:
    """Whether a word is only the past tense of a verb ("counted", "heard"; not "leave", not "red")."""
    lemmas = getAllLemmas(word)
    return set(lemmas) == {"VERB"} and all(lemma != word for lemma in lemmas["VERB"])


def floor(world: World, speech: object, speaker: str, *, now: int, place: str | None = None,
          topics: Iterable[str] = (), avoid: Iterable[str] = (), overheard: Iterable[str] = (),
          optional: bool = False, present: Iterable[str] = ()) -> str:
    """The deterministic line for a speech act: what it carries in the speaker's words, else a plain line of its kind.

    A plain line is one the speaker has not said lately (`avoid`) and that does not parrot what others just
    said (`overheard`); with `optional`, "" when every one would (better silent than saying it again). Its
    variants turn with the round and the speaker's place among those `present`, so characters deciding in the
    same round in one room (none hearing the others) do not say the same one, nor the one said there last round.
    """
    lang = language(world)
    to = getattr(speech, "to")
    act = getattr(speech, "act")
    carries = getattr(speech, "carries")
    focus = getattr(speech, "focus", "")
    if carries and focus:
        line = _focused(world, speaker, to, carries[0], focus, now, lang, getattr(speech, "about", ""))
        if getattr(speech, "restate", False) and lang == "en":
            matter = lines.first_sentences(getattr(carries[0], "text"), 120) or getattr(carries[0], "text")
            said = point_of_view(world, matter, speaker, to, past=getattr(carries[0], "round") < now)
            line = sentence(f"{clause(said, world)}: {clause(line, world)}")
        return _with_vocative(world, to, line, lang)
    if len(carries) > 1 and lang == "en":
        # what one teller told, all of it ("What did Pia tell you?"): "Pia told me that A; and that B"
        source = getattr(carries[0], "source")
        bodies = [clause(point_of_view(world, lines.first_sentences(getattr(k, "text"), 170, longest=TOLD_LONGEST)
                                       or getattr(k, "text"),
                                       speaker, to, past=getattr(k, "round") < now), world) for k in carries]
        if source in world.agents and source != speaker:
            opening = "you told me yourself that " if source == to else f"{world.name_of(source)} told me that "
            pieces: list[str] = []
            for k, body in zip(carries, bodies):
                if source in getattr(k, "actors", ()) and getattr(k, "kind") == "utterance":
                    # the teller's own words already say who told it ("Augusta told me the reel is lost"): said
                    # as they are, the teller a pronoun after the first
                    pieces.append(_pronoun_for(world, body, source) if pieces else body)
                else:
                    pieces.append(("that " if pieces else opening) + _pronoun_for(world, body, source))
            return _with_vocative(world, to, sentence("; and ".join(pieces)), lang)
        return _with_vocative(world, to, sentence("; and that ".join(bodies)), lang)
    if carries:
        body = say_known(world, speaker, to, carries[0], now)
        # "as I said" is for one told it before; one who holds it hears "you know it as well as I do" instead
        if getattr(speech, "again", False) and lang == "en" and to not in getattr(carries[0], "holders", ()):
            body = sentence(f"as I said, {clause(body, world)}")
        loose = getattr(speech, "loose", "")  # near the question, not on it: said as what it knows, not as the answer
        if loose == "unsure":
            body = sentence(f"I cannot say for sure, but {clause(body, world)}") if lang == "en" else f"我说不准，不过{body}"
        elif loose == "unknown":
            body = f"I do not know that; what I can tell you is this. {_opening(body)}" if lang == "en" else f"这我不知道；我能告诉你的是：{body}"
        elif loose == "only":
            body = f"What I can tell you is this. {_opening(body)}" if lang == "en" else f"我能告诉你的是：{body}"
        if getattr(speech, "heard", False) and lang == "en":
            echo = getattr(speech, "echo", "")
            told = _echoed(world, echo, speaker, to)[0] if echo else ""
            # what it was just told, said back and taken in, then its own word on the matter (no question mark: the
            # line asks nothing, and its listener must not take it for a question)
            body = sentence(f"{told} — that is news to me; and {clause(body, world)}" if told else
                            f"that is news to me; and {clause(body, world)}")  # a name keeps its capital
        verdict = getattr(speech, "verdict", "")
        if verdict:  # a yes-or-no question the holding settles: the yes or the no first, then what it rests on
            word = {"en": {"yes": "yes", "no": "no"}, "zh": {"yes": "是的", "no": "不"}}[lang][verdict]
            body = f"{word}: {clause(body, world)}." if lang == "en" else f"{word}，{body}"
        return _with_vocative(world, to, body, lang)
    proposal = getattr(speech, "proposal", "")
    if proposal:  # asked to do something: agreed to, in its own words, or declined
        if getattr(speech, "verdict", "") == "no":
            options = TEMPLATES[lang]["decline"]
            return _with_vocative(world, to, options[now % len(options)], lang)
        agreed = point_of_view(world, proposal, speaker, to)
        return _with_vocative(world, to, f"yes: {agreed}." if lang == "en" else f"好，{agreed}。", lang)
    if getattr(speech, "intent", ""):  # asked what it means to do: its goal, in its own words
        return _with_vocative(world, to, _yours(world, getattr(speech, "intent"), to), lang)
    echo = getattr(speech, "echo", "")
    if act == "react" and echo and lang == "en":
        # news heard is said back as a question, then taken in: the hearer shows what it heard
        heard = TEMPLATES[lang]["heard"][now % len(TEMPLATES[lang]["heard"])]
        told, whole = _echoed(world, echo, speaker, to)
        # a long line is not said back whole, nor asked back: what it was about runs on into the taking in
        said = f"{told}? {heard[:1].upper()}{heard[1:]}" if whole else f"{told} — {heard}"
        return _with_vocative(world, to, said, lang)
    if act == "ask" and getattr(speech, "question", ""):
        return _with_vocative(world, to, getattr(speech, "question"), lang)
    matter = getattr(speech, "matter", "")
    if act == "unknown" and matter and lang == "en":  # the question it does not know the answer to, said back
        options = TEMPLATES[lang]["unknown_what"]
        return _with_vocative(world, to, options[now % len(options)].format(what=matter), lang)
    key = {"answer": "unknown", "tell": "demand", "react": "heard", "lie": "deny"}.get(act, act)
    if getattr(speech, "told_all", False):
        key = "told_all"
    elif act == "unknown" and getattr(speech, "news", False):
        key = "no_news"  # "What brings you here?" with nothing to tell is not "I know nothing of that"
    order = {agent: index for index, agent in enumerate(world.agents)}
    room = sorted({speaker, *present}, key=lambda a: order.get(a, len(order)))
    turn = now * len(room) + room.index(speaker)
    options = TEMPLATES[lang].get(key) or TEMPLATES[lang]["ask"]
    place_name = inline(world.places[place].name) if place in world.places else ""
    avoid = [a for a in avoid if a]
    candidates: list[str] = []
    if key == "ask":  # a question about someone the asker knows of comes before a plain "what news?"
        about = TEMPLATES[lang]["ask_about"]
        # one asked after already is not asked after again, in other words (that loop is filler)
        topics = [t for t in topics if not any(t in old and old.rstrip().endswith(("?", "？")) for old in avoid)]
        candidates += [about[(turn + i) % len(about)].format(topic=topic) for topic in topics for i in range(len(about))]
    candidates += [options[(turn + i) % len(options)].format(place=place_name) for i in range(len(options))]
    overheard = [o for o in overheard if o]
    fresh = [c for c in candidates if not any(lines.similarity(_with_vocative(world, to, c, lang), old) >= 0.7
                                              for old in avoid)
             and not lines.parrots(_with_vocative(world, to, c, lang), overheard)]
    if not fresh and optional:
        return ""
    return _with_vocative(world, to, (fresh or candidates)[0], lang)


def ago(world: World, round_: int, now: int) -> str:
    """A round said as time past from now: "just now", "a round ago", "5 rounds ago"; a round of the backstory
    (before round 0, when play began) "before all this" — its distance in rounds is the world file's bookkeeping."""
    if language(world) == "zh":
        return "此前" if round_ < 0 else "刚才" if now - round_ <= 0 else f"{now - round_}个回合之前"
    if round_ < 0:
        return "before all this"
    gap = now - round_
    return "just now" if gap <= 0 else "a round ago" if gap == 1 else f"{gap} rounds ago"


def _focused(world: World, speaker: str, listener: str | None, known: object, focus: str, now: int, lang: str,
             about: str = "") -> str:
    """A follow-up's answer about a holding, from its typed fields: who told it, when it happened, where one was
    (`about`: the one asked after, when the question named them)."""
    table = TEMPLATES[lang]
    via, source = getattr(known, "via"), getattr(known, "source")
    place = getattr(known, "place")
    place_name = inline(world.places[place].name) if place in world.places else (place or "")
    if focus == "source":
        when = ago(world, getattr(known, "since_round"), now)
        if via in ("told", "sediment") and source and source == listener:
            # said to them, or to another and heard ("I heard you say it, 3 rounds ago")
            line = table["source_heard_you" if getattr(known, "overheard", False) else "source_you"][0].format(when=when)
        elif via in ("told", "sediment") and source in world.agents and source != speaker:
            options = table["source_heard" if getattr(known, "overheard", False) else "source_told"]
            line = options[now % len(options)].format(source=world.name_of(source), when=when)
        elif via == "read" and source:
            line = table["source_read"][0].format(source=inline(world.name_of(source)), when=when)
        elif via == "inferred":
            line = table["source_inferred"][0]
        elif getattr(known, "said_by", None) == speaker:  # its own words: said, not seen
            line = table["source_own"][0].format(when=ago(world, getattr(known, "round"), now))
        else:
            # where it was seen says what the witness saw it from ("I saw it with my own eyes, at the platform")
            where = ("" if not place_name else f"at {place_name}, " if lang == "en" else f"在{place_name}，")
            line = table["source_saw"][0].format(where=where, when=ago(world, getattr(known, "round"), now))
    elif focus == "when":
        options = table["when"]
        when = ago(world, getattr(known, "round"), now)
        said_when = _time_said(getattr(known, "text")) if lang == "en" and getattr(known, "kind") == "event" else ""
        if said_when and getattr(known, "round") < 0:
            when = f"{said_when}, {when}"  # a deed of the backstory says when it was: "on the Wednesday morning"
        line = options[now % len(options)].format(when=when, place=place_name)
    else:
        who = about if about in getattr(known, "actors") else next(
            (a for a in getattr(known, "actors") if a not in (speaker, listener)), None)
        options = table["where"]
        line = options[now % len(options)].format(who=world.name_of(who) if who else "they", place=place_name)
    return sentence(line)


_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_PARTS = "morning|afternoon|evening|night|dawn|dusk|noon|midnight"
# a time a deed's own text gives: "late on the Tuesday night", "on Wednesday morning", "at dusk", "in the small hours"
_TIME_SAID = re.compile(rf"\b(?:(?:early|late)\s+)?(?:on|at|in|during|before|after)\s+(?:the\s+)?(?:small\s+hours(?:\s+of\s+the"
                        rf"\s+(?:{_DAYS})\s+(?:{_PARTS}))?|(?:{_DAYS})(?:\s+(?:{_PARTS}))?|(?:{_PARTS}))\b", re.IGNORECASE)


def _time_said(text: str) -> str:
    """The first time of day or week a statement's text gives ("late on the Tuesday night"), else ""."""
    found = _TIME_SAID.search(text)
    return found.group(0)[:1].lower() + found.group(0)[1:] if found else ""


def _with_vocative(world: World, to: str | None, body: str, lang: str) -> str:
    """The line spoken to someone opens with their name: "Horatio, you know it as well as I do: …"."""
    if to not in world.agents:
        return body[:1].upper() + body[1:]
    name = re.sub(r"^(the|a|an)\s+", "", world.agents[to].name, flags=re.IGNORECASE).strip()
    if lang == "zh":
        return f"{name}，{body}"
    first = body.split(" ", 1)[0].rstrip(",;:.!?")  # "Barnardo, seeing me pale…" keeps the name's capital
    # a name keeps its capital; "The" of "The infirmary" is no name ("Emeric, the bishop's envoy is coming")
    if first not in ("I", "I'm", "I'll", "I've") and not any(
            first == n.split(" ")[0] and first.lower() not in ("the", "a", "an") for n in world_names(world)) \
            and not _opens_with_name(world, body):
        body = body[:1].lower() + body[1:]
    return f"{name}, {body}"


def person_names(world: World) -> tuple[str, ...]:
    """Every name and alias of the world's people."""
    return tuple(n for a in world.agents.values() for n in a.all_names())


def world_names(world: World) -> tuple[str, ...]:
    """Every person, place and object name: a line made only of these is a list, not speech; their first words
    keep their capital after a vocative."""
    return (*person_names(world), *(p.name for p in world.places.values()), *(o.name for o in world.objects.values()))
