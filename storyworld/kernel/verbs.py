"""Verb forms, in one place: the past for narration ("struck"), the present for the stage ("strikes"),
and the base form a beat's verb takes after "means to" ("asks" -> "ask")."""

from __future__ import annotations

from storyworld.kernel.actions import WORDED_VERBS

_PAST = {"greet": "greeted", "embrace": "embraced", "confront": "confronted", "accuse": "accused",
         "strike": "struck", "show": "showed", "hide": "hid", "use": "used", "take": "took", "give": "gave",
         "read": "read", "lead": "led", "expose": "exposed", "lie": "lied"}
_BASE = {"goes": "go", "does": "do", "has": "have", "is": "be", "says": "say", "tries": "try",
         "hurries": "hurry", "cries": "cry", "denies": "deny", "replies": "reply", "carries": "carry"}


def past(verb: str) -> str:
    """A verb as narration says it ("Hamlet struck Polonius"); unknown verbs stay as typed."""
    return _PAST.get(verb, verb)


def third_person(verb: str) -> str:
    """'strike' -> 'strikes', 'hide' -> 'hides', 'touch' -> 'touches' (the kernel writes bare verbs)."""
    if verb.endswith("s") or not verb.isalpha():
        return verb
    if verb.endswith(("sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def base(verb: str) -> str:
    """A third-person present verb in its base form: 'asks' -> 'ask', 'watches' -> 'watch', 'goes' -> 'go'."""
    known = _BASE.get(verb.lower())
    if known is not None:
        return known
    if verb.endswith(("shes", "ches", "sses", "xes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") else verb


def detail(verb: str, text: str) -> str:
    """What follows the deed in narration: words said while doing it quoted, a described manner not, else a stop."""
    if not text:
        return "."
    return f': "{text}"' if verb in WORDED_VERBS else f": {text}"
