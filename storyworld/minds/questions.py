"""What a question asks: its shape, whom it names, and what of the conversation it points back to.

"What did Pia tell you?" asks for what Pia told (holdings whose source is Pia); "Who told you?" and
"How do you know?" ask where the last answer came from; "When was that?" when it happened; "Where is
he now?" where the one it was about was last known to be. The shape is read from the question (the
person playing types free text); everything the answer says comes from typed fields of the holdings:
`source`, `via`, `since_round`, the record's `actors`, `round` and `place`.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec
from lemminflect import getAllLemmas, getInflection

from storyworld.minds import render
from storyworld.world import World

AskedKind = Literal["open", "source", "said_by", "when", "where_now", "intent", "proposal"]

_SOURCE = re.compile(r"\bwho\s+(?:first\s+|\w+ly\s+)?(?:told|tells|said|says)\b|\bhow\s+(?:do|did|can|could)\s+you\s+know\b|"
                     r"\b(?:where|from\s+whom|from\s+who|how)\s+did\s+you\s+(?:hear|learn|find\s+out|come\s+to\s+know)\b|"
                     r"\bwho\s+(?:was\s+it\s+)?(?:that\s+)?(?:told|said)\b", re.IGNORECASE)
# "Who told the inspector the props were short?": who told someone else, not the one asked (no source question)
_TOLD_ANOTHER = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?:and\s+)?who\s+(?:first\s+)?(?:told|tells)\s+"
                           r"(?!(?:you|me|us|him|her|them|it|that|this|so)\b)"
                           r"(?P<whom>(?:the|a|an|your|my|our)\s+[\w'-]+|[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\b",
                           re.IGNORECASE)
_SAID_BY = re.compile(r"\bwhat\s+(?:\w+ly\s+)?(?:did|has|have)\s+(?P<who>.+?)\s+(?:tell|told|say|said)\b", re.IGNORECASE)
# what the one asked means to do: its goals answer ("What should we do?", "What will you do now?")
_INTENT = re.compile(r"\bwhat\s+(?:should|shall|must|can|could|will|would|do|are|ought)\s+(?:we|you|i)\s+(?:to\s+)?"
                     r"(?:do|be\s+doing|going\s+to\s+do|have\s+(?:me|us)\s+do)\b|"
                     r"\bwhat\s+(?:do|did)\s+you\s+(?:mean|intend|plan|want|hope|wish)\s+to\s+do\b|"
                     r"\bwhat\s+are\s+you\s+(?:after|up\s+to|about)\s*\?|^\s*(?:[A-Z][\w' ]*,\s*)?(?:and\s+)?what\s+(?:now|next)\s*\?",
                     re.IGNORECASE)
_WHEN = re.compile(r"^\s*(?:and\s+)?when\b", re.IGNORECASE)
_WHERE_NOW = re.compile(r"\bwhere\s+(?:is|was|are|has|did)\s+(?P<who>he|she|they|him|her|[A-Z][\w' -]*?)"
                        r"(?:\s+(?:now|gone|go|went|got\s+to))?\s*\??\s*$", re.IGNORECASE)
# a yes-or-no question opens with its auxiliary, after a vocative at most ("Marcellus, will it come again?")
_POLAR = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?:do|does|did|will|would|is|are|was|were|can|could|shall|should|"
                    r"has|have|had|must|may|might)\b", re.IGNORECASE)
_PRONOUN = {"he": "he", "him": "he", "she": "she", "her": "she", "they": "they"}


class Asked(msgspec.Struct, frozen=True, kw_only=True):
    """A question's shape: what kind of answer it wants and whom it names (agent ids)."""

    kind: AskedKind = "open"
    people: tuple[str, ...] = ()


def read_question(world: World, text: str, asker: str | None, answerer: str,
                  previous_actors: tuple[str, ...] = ()) -> Asked:
    """The shape of a question as asked of `answerer` (the question a line ends on: `question_of`);
    `previous_actors`: who the last answer was about."""
    if told_whom(world, text) is not None:
        return Asked()  # who told another: a question of who did it, answered from what names the telling
    if _SOURCE.search(text):
        return Asked(kind="source")
    said = _SAID_BY.search(text)
    if said:
        who = said.group("who").strip()
        if re.fullmatch(r"i|me", who, re.IGNORECASE) and asker in world.agents:
            return Asked(kind="said_by", people=(asker,))
        named = tuple(a for a in people_in(world, who) if a != answerer)
        if named:
            return Asked(kind="said_by", people=named)
        if re.match(r"(?:the|that|this|a|an)\s+\w", who, re.IGNORECASE):
            # "What did the man from Gmunden say …?": someone described whom it cannot tell apart; what anyone else
            # said is no answer (it says it does not know)
            return Asked(kind="said_by", people=())
    where = _WHERE_NOW.search(text.strip())
    if where:
        who = where.group("who").strip()
        pronoun = _PRONOUN.get(who.lower())
        if pronoun is not None:
            # "he" is whoever the last answer was about that the world calls "he" (its pronouns field)
            found = [a for a in previous_actors if a in world.agents and a not in (asker, answerer)
                     and world.agents[a].pronouns in (pronoun, "they")]  # "they": the world does not say
            if found:
                return Asked(kind="where_now", people=(found[0],))
        else:
            named = tuple(a for a in people_in(world, who) if a != answerer)
            if named:
                return Asked(kind="where_now", people=named[:1])
    if _INTENT.search(text):
        return Asked(kind="intent")
    if proposal(world, text, asker, answerer) is not None:
        return Asked(kind="proposal")
    if _WHEN.match(text) and len(text.split()) <= 6:
        return Asked(kind="when")
    return Asked()


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“'‘(]?[A-Z])")


# "Do you know who left the room empty?" asks who left it: the question inside the asking ("Do you know
# whether …" stays a yes-or-no question)
_EMBEDDING = re.compile(r"^\s*(?P<vocative>[A-Z][\w' ]*,\s*)?(?:do|did|would|can|could|will)\s+you\s+"
                        r"(?:(?:happen\s+to\s+)?know|remember|recall|tell\s+(?:me|us)|say|guess)\s+"
                        r"(?=(?:who|whom|whose|what|where|when|why|how|which)\b)", re.IGNORECASE)


def last_question(text: str) -> str:
    """The question a line ends on, as asked ("I found it. Do you know who left?" -> "Do you know who left?")."""
    sentences = _SENTENCE_END.split(text.strip())
    return sentences[-1] if len(sentences) > 1 and sentences[-1].rstrip().endswith("?") else text


def question_of(text: str) -> str:
    """The question a line ends on, without what it told before it ("I found the schedule. Will you keep it
    locked?" -> "Will you keep it locked?") and without an asking around it ("Do you know who left?" -> "Who
    left?"); the line itself when it is one sentence or ends on no question."""
    question = last_question(text)
    inner = _EMBEDDING.match(question)
    if inner is None or not question.rstrip().endswith("?"):
        return question
    rest = question[inner.end():]
    return inner["vocative"] + rest if inner["vocative"] else rest[:1].upper() + rest[1:]


def told_whom_asked(text: str) -> bool:
    """Whether a question asks who told someone other than the one asked ("Who told the inspector …?")."""
    return _TOLD_ANOTHER.match(text) is not None


def told_whom(world: World, text: str) -> tuple[str, ...] | None:
    """Whom a "who told X …?" question asks after the teller of ("Who told the inspector your props were short?":
    the inspector), when X is someone other than the one asked; None for any other question."""
    found = _TOLD_ANOTHER.match(text)
    if found is None:
        return None
    return tuple(people_in(world, found["whom"]))


def people_in(world: World, text: str) -> list[str]:
    """Whom a question names: by their names as written, else in any case (the person playing types "where is the
    king now?" and "what did horatio tell you?")."""
    found = list(render.names_in(world, text))
    if found:
        return found
    low = text.lower()
    firsts = render.first_names(world)
    return [a for a, agent in world.agents.items()
            if any(re.search(rf"\b{re.escape(n.lower())}\b", low)
                   for n in (*agent.all_names(), *(f for f, b in firsts.items() if b == a)) if n)]


def said_matter(text: str) -> str:
    """What a question of what one told is about, after its asking ("What did Pia tell you about the fire?" ->
    "about the fire"); "" when it asks for all of it ("What did Pia tell you?")."""
    return _after(_SAID_BY, text)


# "Who told you (that) …", "Where did you hear (that) …", "How do you know (that) …": the asking of a source
_SOURCE_OF = re.compile(r"\b(?:who\s+(?:told|informed|warned)\s+(?:you|him|her|them)|where\s+did\s+(?:you|he|she|they)\s+"
                        r"(?:hear|learn|read)|how\s+do\s+(?:you|they)\s+know|how\s+does\s+(?:he|she)\s+know)\b(?:\s+that)?",
                        re.IGNORECASE)


def source_matter(text: str) -> str:
    """What a question of where a thing was heard is about ("Who told you that the fire was set?" -> "the fire was
    set"); "" when it names nothing ("Who told you?")."""
    return _after(_SOURCE_OF, text)


def intent_matter(text: str) -> str:
    """What a question of intent is about, after its asking ("What should we do about the eunuchs?" -> "about the
    eunuchs"); "" when it asks only what one means to do ("What now?")."""
    return _after(_INTENT, text)


def _after(asking: re.Pattern[str], text: str) -> str:
    """The words of a question after its asking (and the one asked: "tell you about the fire" -> "about the fire")."""
    found = asking.search(text)
    rest = re.sub(r"^\s*(?:you|me|us|him|her|them)\b", "", text[found.end():]) if found else ""
    return rest.strip(" ?.!,")


def is_polar(text: str) -> bool:
    """Whether a question asks yes or no ("Do you think it will come again?"), not what, who or where."""
    return _POLAR.match(text) is not None


# a yes-or-no question of fact: its auxiliary, its subject (a pronoun, a name as written, or a short noun phrase) and
# the rest ("Did Tobias carry the bottle up the stair?"); proposals ("Should we …", "Shall I …") are no question of fact
_FACT = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?P<aux>(?i:do|does|did|is|are|was|were|has|have|had))\s+"
                   r"(?P<subject>(?i:you|he|she|it|they|i)\b|(?i:the|a|an|his|her|their|my|your)\s+\w+|"
                   r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)\s+(?P<rest>[^?]+?)\s*\?\s*$")
_OBJECT_YOU = re.compile(r"\b(?P<w>you|your|yours|me|my|mine|I)\b")


def _named(world: World, text: str, asker: str | None, answerer: str) -> str | None:
    """A question's words with its "you" and "I" as the people they mean, named ("your sacks" asked of the reeve ->
    "Ysmay Hollin's sacks"); None when it says "I" or "me" and no asker of the world is there to name."""
    you = world.name_of(answerer)
    me = world.name_of(asker) if asker in world.agents else None
    names = {"you": you, "your": f"{you}'s", "yours": f"{you}'s", "me": me, "i": me, "my": f"{me}'s" if me else None,
             "mine": f"{me}'s" if me else None}
    if any(names[m["w"].lower()] is None for m in _OBJECT_YOU.finditer(text)):
        return None
    return _OBJECT_YOU.sub(lambda m: names[m["w"].lower()] or m["w"], text)


def named(world: World, text: str, asker: str | None, answerer: str) -> str | None:
    """Words said to `answerer` with their "you" and "I" named (`_named`)."""
    return _named(world, text, asker, answerer)


def as_statement(world: World, text: str, asker: str | None, answerer: str) -> str | None:
    """A yes-or-no question of fact as the statement it asks after, the people it means by "you" and "I" named
    ("Did you sell offices?" asked of Zhang Rang -> "Zhang Rang sold offices."); None for any other question."""
    found = _FACT.match(text)
    if found is None or answerer not in world.agents:
        return None
    subject, rest = _named(world, found["subject"], asker, answerer), _named(world, found["rest"], asker, answerer)
    if subject is None or rest is None:
        return None
    aux = found["aux"].lower()
    if aux in ("do", "does", "did"):
        verb, _, tail = rest.partition(" ")
        # "did" takes the past; "do" and "does" the present, of one named ("Do you drink?" -> "Zhang Fei drinks")
        tag = "VBD" if aux == "did" else "VBP" if subject.lower() == "they" else "VBZ"
        form = getInflection(verb.lower(), tag=tag)
        rest = f"{form[0] if form else verb} {tail}".strip()
    else:
        # "you" and "I" named are one person spoken of: "Are you ready?" -> "Guan Yu is ready"
        one = found["subject"].lower() in ("you", "i")
        rest = f"{({'are': 'is', 'have': 'has', 'were': 'was', 'am': 'is'}.get(aux, aux)) if one else aux} {rest}"
    return render.sentence(f"{subject[:1].upper()}{subject[1:]} {rest}")


# a proposal or a request to do something together: "Should we tell Prince Hamlet?", "Shall I fetch the reeve?",
# "Will you swear the oath with us?", "Are you ready to ride?"; asking what one knows is no proposal
_PROPOSAL = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?:(?P<we>(?i:should|shall)\s+(?i:we))|(?P<i>(?i:should|shall)\s+(?i:i))|"
                       r"(?P<you>(?i:will|would|can|could)\s+(?i:you))|(?P<ready>(?i:are)\s+(?i:you)\s+(?i:ready|willing)\s+to))"
                       r"\s+(?P<what>[^?]+?)\s*\?\s*$")
_KNOWING = frozenset("know think believe remember recall guess imagine see hear".split())
_TELLING = frozenset("tell say explain describe show".split())  # ... to the asker ("tell me", "show us") asks for what is known
_TOLD_ASKER = frozenset("me us what where who how why when whether if".split())


# a request said as a bidding: "Tell the inspector what I found.", "Sam, please come to the box with me."
_BIDDING = re.compile(r"^\s*(?:[A-Z][\w']*(?:\s+[A-Z][\w']*){0,3},\s*)?(?:(?i:please)\s+)?(?P<verb>[A-Za-z]+)\s+(?P<next>[A-Za-z']+)(?P<rest>[^?]*?)"
                      r"(?:,\s*(?i:please))?\s*[.!]?\s*$")
_NOT_BIDDING = frozenset("i we he she it they you there here this that these those the a an my our his her their your "
                         "let do does did be is was are were have has had".split())


def bidding(text: str) -> str | None:
    """What a line bids the one spoken to do, when it is a bidding ("Tell the inspector what I found." -> "tell the
    inspector what I found"), else None: its first word a verb in its plain form, the next no verb of a subject
    ("Fire broke out", "Smoke rose" tell what happened)."""
    found = _BIDDING.match(text)
    if found is None or any(mark in text for mark in "?:;"):
        return None  # "Take care at the mill: the sacks are full of chaff" tells something too
    head = re.split(r"\b(?:what|that|who|whom|where|when|why|how|if|whether|because)\b",
                    f"{found['next']}{found['rest']}", maxsplit=1)[0]
    words = re.findall(r"[A-Za-z']+", head)
    if any(_finite(w, words[k - 1] if k else "") for k, w in enumerate(words)):
        return None  # "Sun Jian found the seal", "Sack number six was full": a subject and its verb
    verb, after = found["verb"].lower(), found["next"].lower()
    bases = getAllLemmas(verb).get("VERB", ())
    if verb in _NOT_BIDDING or not bases or any(b != verb for b in bases):
        return None  # no verb, or a verb in another form than its plain one ("Found it in the hay", "Runs home")
    if after in ("will", "would", "can", "could", "shall", "should", "may", "might", "must"):
        return None  # "People will talk"
    if found["next"][:1].isupper():
        # "Tell Hamlet what I saw" bids; "Sun Quan cut off the corner of his desk" is a name and its deed
        following = next((w for w in re.findall(r"[A-Za-z']+", found["rest"]) if not w[:1].isupper()), "")
        if "VERB" in getAllLemmas(following.lower()):
            return None
    return f"{verb} {found['next']}{found['rest']}".strip()


_DETERMINERS = frozenset("the a an his her my your their its our this that these those".split())


def _finite(word: str, before: str) -> bool:
    """Whether a word is a verb in the past or the third person here (not after a determiner: "the locked door")."""
    low = word.lower()
    if low in ("is", "was", "are", "were", "has", "had", "does", "did"):
        return True
    if before.lower() in _DETERMINERS:
        return False
    for base in getAllLemmas(low).get("VERB", ()):
        if base != low and low in (getInflection(base, tag="VBD") or ()) + (getInflection(base, tag="VBZ") or ()):
            return True
    return False


def requested(text: str) -> str | None:
    """What a line asks its hearer to do, bidden or asked ("Tell the inspector …." / "Will you come and look at his
    feet with me?" -> "come and look at his feet with me"), else None."""
    found = _PROPOSAL.match(text)
    if found is not None and found["you"]:
        return found["what"]
    return bidding(text)


def proposal(world: World, text: str, asker: str | None, answerer: str) -> str | None:
    """What a proposal asks the one asked to agree to, as the one asked would say it in the first person with the
    asker named ("Will you swear the oath with us?" -> "Guan Yu will swear the oath with us"); None when the
    question asks for something known, not for a deed ("Can you tell me where he is?")."""
    found = _PROPOSAL.match(text)
    bid = bidding(text) if found is None else None
    if (found is None and bid is None) or answerer not in world.agents:
        return None
    what = found["what"] if found is not None else bid or ""
    head, _, rest = what.lower().partition(" ")
    if head in _KNOWING or (head in _TELLING and (not rest or rest.split(" ", 1)[0] in _TOLD_ASKER)):
        return None
    you, me = world.name_of(answerer), world.name_of(asker) if asker in world.agents else None
    named = _named(world, what, asker, answerer)
    if named is None:
        return None
    what = named
    if found is None:  # a bidding
        return f"{you} will {what}"
    if found["we"]:
        return f"let us {what}"
    if found["i"]:
        return f"{me} should {what}" if me else None
    if found["ready"]:
        return f"{you} is ready to {what}"
    return f"{you} will {what}"


# a question that embeds what it asks ("Do you know how Laertes is living?", "Can you tell me who took the grain?")
_EMBEDDED = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?:(?:do|did|does)\s+you\s+(?:know|remember|recall)|(?:have|has)\s+you\s+heard|"
                       r"(?:can|could|will|would)\s+you\s+tell\s+(?:me|us))\s+(?P<what>(?:who|whom|whose|what|where|when|why|how|"
                       r"whether|if|which)\b[^?]*?)\s*\?\s*$", re.IGNORECASE)


# a question on the doer, in a statement's own order ("Who opened the pantry window?"): it embeds as it stands
_WHO_SUBJECT = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?(?P<what>who\s+(?!(?:is|was|are|were|did|does|do|has|have|had|will|"
                          r"would|can|could|should|shall|may|might|must)\b)[a-z]+\b[^?]*?)\s*\?\s*$", re.IGNORECASE)


def unknown_clause(world: World, text: str, asker: str | None, answerer: str, asked: Asked) -> str:
    """What a question asks after, as the one asked says it does not know it ("Do you know how Laertes is living?"
    -> "how Laertes is living"; "Where is Vernon now?" -> "where Vernon Pike is now"); "" when it cannot say."""
    if asked.kind == "where_now" and asked.people and asked.people[0] in world.agents:
        return f"where {world.name_of(asked.people[0])} is now"
    if _INTENT.search(text):  # "What should we do about the eunuchs?" -> "what to do about the eunuchs"
        matter = intent_matter(text)
        found_you = _OBJECT_YOU.search(matter)
        return f"what to do {matter}" if matter and not found_you else ""
    found = _EMBEDDED.match(text) or (_WHO_SUBJECT.match(text) if asked.kind == "open" else None)
    if found is None or answerer not in world.agents:
        return ""
    what = _named(world, re.sub(r"^if\b", "whether", found["what"], flags=re.IGNORECASE), asker, answerer)
    if what is None:
        return ""
    return render.point_of_view(world, what[:1].lower() + what[1:], answerer, asker)
