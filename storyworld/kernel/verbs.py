"""Verb forms, in one place: the past for narration ("struck"), the present for the stage ("strikes"),
and the base form a beat's verb takes after "means to" ("asks" -> "ask")."""

from __future__ import annotations

import re

from storyworld.kernel.actions import WORDED_VERBS

# Irregular pasts of the verbs stories use (a regular verb adds -ed).
_PAST = dict(pair.split(":") for pair in """
be:was have:had do:did go:went come:came see:saw take:took give:gave tell:told say:said meet:met flee:fled
strike:struck draw:drew run:ran speak:spoke write:wrote hear:heard find:found leave:left send:sent stand:stood
fall:fell throw:threw bear:bore bid:bade slay:slew make:made know:knew think:thought feel:felt keep:kept
hold:held lead:led sit:sat swear:swore steal:stole bring:brought buy:bought catch:caught seek:sought
drink:drank eat:ate hide:hid ride:rode win:won lose:lost break:broke weep:wept sing:sang begin:began
become:became shoot:shot bite:bit hit:hit put:put set:set let:let cut:cut get:got rise:rose wake:woke
sleep:slept sweep:swept spend:spent lend:lent build:built burn:burnt light:lit blow:blew grow:grew fly:flew
freeze:froze choose:chose forget:forgot forgive:forgave shake:shook sink:sank swim:swam dig:dug hang:hung
fight:fought teach:taught pay:paid lay:laid sell:sold wear:wore tear:tore leap:leapt creep:crept kneel:knelt
deal:dealt mean:meant understand:understood overhear:overheard withdraw:withdrew ring:rang spring:sprang
drive:drove stride:strode stick:stuck spin:spun swing:swung read:read
""".split())
_BASE = {"goes": "go", "does": "do", "has": "have", "is": "be", "says": "say", "tries": "try",
         "hurries": "hurry", "cries": "cry", "denies": "deny", "replies": "reply", "carries": "carry"}


def past(verb: str) -> str:
    """The past of a base verb ("strike" -> "struck", "greet" -> "greeted"); a form it cannot read stays as typed."""
    if verb in _PAST:
        return _PAST[verb]
    if not verb.isalpha() or not verb.islower() or len(verb) < 2:
        return verb
    from lemminflect import getInflection  # here, not at the top: the kernel's deposits import without numpy

    known = getInflection(verb, "VBD")  # lemminflect's tables: "admit" -> "admitted", "visit" -> "visited"
    if known:
        return str(known[0])
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if len(verb) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        return verb + verb[-1] + "ed"  # stop -> stopped, beg -> begged
    return verb + "ed"


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
