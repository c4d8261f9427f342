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
from typing import Any

import msgspec

from storyworld.kernel import verbs
from storyworld.kernel.actions import Claim, Say, Told
from storyworld.minds import content, lines, render
from storyworld.world import World

MIN_CONTENT = 3  # content words beyond names a line needs to assert anything ("I saw him" asserts nothing)
SAME = 0.80  # cosine at which a claim restates a record the speaker holds (and names the same people)

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


class Reading(msgspec.Struct, frozen=True, kw_only=True):
    """What a line asserts: one third-person statement and who it names (agent ids, the doer first)."""

    text: str
    actors: tuple[str, ...] = ()


def read_claim(world: World, speaker: str, to: str | None, text: str) -> Reading | None:
    """The statement a line asserts, in the third person, or None for a question, a greeting or a stock line."""
    line = " ".join(text.split()).strip()
    if not line or content.is_question(line) or _GREETING.match(line):
        return None
    line = _drop_vocative(world, to, line)
    line = _FRAME.sub("", line).strip()
    seen = _SEEN.match(line)
    if seen:
        line = _deed_seen(world, line[seen.end():])
    line = _third_person(world, speaker, to, line)
    line = render.sentence(line[:1].upper() + line[1:]) if line else ""
    named = tuple(render.names_in(world, line))
    names = {w for a in named for n in world.agents[a].all_names() for w in lines.words(n)}
    if len([w for w in content.line_keys(line) if w not in names]) < MIN_CONTENT or not content.is_statement(line):
        return None
    return Reading(text=line, actors=named)


def _drop_vocative(world: World, to: str | None, line: str) -> str:
    """"Reeve, the tinker did it" -> "the tinker did it" (the name of whoever it is said to, as an address)."""
    if to not in world.agents:
        return line
    for name in sorted(world.agents[to].all_names() + list(render.first_names(world)), key=len, reverse=True):
        if line.lower().startswith(name.lower()) and line[len(name):len(name) + 1] in (",", "!", ":"):
            return line[len(name) + 1:].strip()
    return line


def _deed_seen(world: World, rest: str) -> str:
    """"Vell knock the lantern into the hay" (after "I saw") -> "Vell knocked the lantern into the hay"."""
    spans = render.find_names(world, rest)
    if not spans or spans[0].start != 0:
        return rest
    after = rest[spans[0].end:]
    match = re.match(r"^(\s+)([a-z]+)\b", after)
    if match is None or match.group(2).endswith(("ed", "ing")):
        return rest
    return rest[:spans[0].end] + match.group(1) + verbs.past(match.group(2)) + after[match.end():]


def _third_person(world: World, speaker: str, to: str | None, line: str) -> str:
    """The speaker's "I"/"me"/"my" and the listener's "you"/"your" as their names ("my brother" stays theirs)."""
    me = world.name_of(speaker) if speaker in world.agents else "someone"
    you = world.name_of(to) if to in world.agents else "someone"
    line = re.sub(r"\bmy\b", f"{me}'s", line, flags=re.IGNORECASE)
    line = re.sub(r"\b(?:I|me|myself)\b", me, line)
    line = re.sub(r"\byour\b", f"{you}'s", line, flags=re.IGNORECASE)
    line = re.sub(r"\b(?:you|yourself)\b", you, line, flags=re.IGNORECASE)
    return re.sub(r"\b(\w+) (am|are)\b", lambda m: f"{m.group(1)} is", line)


def hear(world: World, store: Any, say: Say) -> Say:
    """A free line with what it tells: the record it restates that its speaker holds, else its own claim."""
    if say.act != "free" or say.tells or say.claims:
        return say
    reading = read_claim(world, say.actor, say.to, say.text)
    if reading is None:
        return say
    for hit in store.recall(say.actor, reading.text, k=3, expand=False):
        record = hit.record
        holding = record.owners.get(say.actor)
        if float(hit.score) < SAME or holding is None or holding.status not in ("believed", "doubted"):
            continue
        if set(reading.actors) <= set(record.actors) or set(reading.actors) <= set(render.names_in(world, record.text)):
            return msgspec.structs.replace(say, tells=(Told(record=record.id, text=record.text, kind=record.kind),))
    return msgspec.structs.replace(say, claims=(Claim(text=reading.text, actors=reading.actors),))
