"""How the kernel words a deed or a name inside a sentence: verb frames ("bowed to Guan Yu"), names in
sentence case ("went to the great hall"), and stage directions kept out of what is spoken."""

from __future__ import annotations

import re

from storyworld.kernel import verbs

# Verbs that take their person or thing through a preposition ("bow to", "smile at"); any other verb
# takes it directly ("greet Guan Yu"). English has no offline list of these frames, so they live here.
FRAMES: dict[str, str] = {
    **dict.fromkeys(("bow", "curtsy", "curtsey", "nod", "kneel", "listen", "speak", "talk", "whisper", "mutter",
                     "sing", "pray", "apologize", "apologise", "complain", "report", "submit", "yield", "gesture",
                     "signal", "appeal", "turn", "run", "hurry", "return", "reply", "respond", "confess", "toast",
                     "drink", "call", "cry", "wave", "swear", "defer"), "to"),
    **dict.fromkeys(("smile", "laugh", "stare", "glare", "wink", "point", "frown", "scowl", "sneer", "grin",
                     "shout", "yell", "rage", "spit", "lunge", "look", "gaze", "peer", "glance", "jeer", "scoff",
                     "chuckle", "shrug", "snarl", "growl", "hiss", "aim", "rail"), "at"),
    **dict.fromkeys(("plead", "argue", "reason", "side", "agree", "quarrel", "bargain", "negotiate", "wrestle",
                     "spar", "duel", "dance", "walk", "sit", "stand", "ride", "deal"), "with"),
    **dict.fromkeys(("wait", "search", "hunt", "weep", "mourn", "grieve", "send", "ask", "beg"), "for"),
    **dict.fromkeys(("confide", "believe"), "in"),
    **dict.fromkeys(("lean", "rely", "spy", "prey"), "on"),
    "cling": "to",
}
# "ask" and "call" also read well without a preposition on a person: those take it directly.
DIRECT_ON_PEOPLE = frozenset({"ask", "call", "beg", "mourn", "toast"})
ARTICLES = ("The", "A", "An")
_DIRECTION = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]|\*([^*]+)\*")


def inline(name: str) -> str:
    """A name as it reads inside a sentence: "The great hall" -> "the great hall" (sentence case, not title case)."""
    first, _, tail = name.partition(" ")
    return f"{first.lower()} {tail}" if tail and first in ARTICLES else name


def sentence(text: str) -> str:
    """Text opening a sentence: its first letter upper case, the rest as it is."""
    return text[:1].upper() + text[1:] if text else text


def frame(verb: str, *, person: bool) -> str:
    """The preposition between a verb and its target ("" when the verb takes it directly)."""
    if person and verb in DIRECT_ON_PEOPLE:
        return ""
    return FRAMES.get(verb, "")


def deed(actor: str, verb: str, target: str, *, person: bool, tense: str = "past") -> str:
    """"Liu Bei bowed to Guan Yu" (past, for memory and the log) or "Liu Bei bows to Guan Yu" (present, the stage)."""
    form = verbs.past(verb) if tense == "past" else verbs.third_person(verb)
    prep = frame(verb, person=person)
    return f"{actor} {form} {prep + ' ' if prep else ''}{inline(target)}"


def split_directions(line: str) -> tuple[str, tuple[str, ...]]:
    """A line as spoken, and the stage directions set apart in it by (), [] or *…* (never spoken aloud)."""
    found = tuple(" ".join(next(g for g in m.groups() if g is not None).split()) for m in _DIRECTION.finditer(line))
    spoken = " ".join(_DIRECTION.sub(" ", line).split())
    spoken = spoken.strip(" -—:")
    return spoken, tuple(d for d in found if d and _does_something(d))


def _does_something(direction: str) -> bool:
    """Whether a stage direction names a doing ("bows low", "laughing"), not a stray word a small model set in
    asterisks or brackets ("*and*", "(yes)"), which is neither said nor narrated."""
    return any(len(word) > 2 and word.lower() not in _NOT_DOINGS for word in re.findall(r"[A-Za-z']+", direction))


# the closed-class words a stray set-apart word is (conjunctions, articles, answers, interjections); the kernel
# reads no lexicon (it must import without numpy), and a doing is any other word
_NOT_DOINGS = frozenset("and or but nor yet so the yes no well oh ah aah hmm umm then too".split())


def direction_text(speaker: str, direction: str) -> str:
    """A stage direction as narration: "(bows low)" by Claudius -> "Claudius bows low."."""
    body = direction.rstrip(".!?;:, ")
    if not body.startswith(speaker):
        body = f"{speaker} {body[:1].lower() + body[1:]}"
    return body + "."
