"""The words step: the model phrases a chosen speech act in the character's voice, under a check, over a floor.

The content is already chosen (content.py) and already said plainly (render.py's floor). The model
is asked only to say that line as this character would; its phrasing is kept when it still carries
the line's names and words, names nobody the speaker does not know, and is no garbage, parrot,
repeat or third-person self-reference. Otherwise the floor is spoken, marked as rendered.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from lemminflect import getAllLemmas, getInflection

from memory import guard, lexicon
from storyworld.kernel.actions import ActOn, Say
from storyworld.minds import content, lines, render
from storyworld.minds.choice import Plan
from storyworld.minds.context import DecisionContext
from storyworld.world import World

if TYPE_CHECKING:
    from storyworld.llm.base import LanguageModel

log = logging.getLogger("storyworld.minds")

MAX_CONTEXT = 140  # characters of a remembered or overheard line in a prompt
# Characters a spoken line may hold: no markup, quotes, digits or newlines (they are where a small
# model's prose turns into JSON, lists and scene directions), nor the number forms it puts for digits ("¼ rounds ago").
NUMBER_FORMS = "\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f\u2150-\u218f"  # the characters themselves: the grammar reads no escapes
SPEECH_CHARS = r"[^{}\[\]<>|\\\"\n\r\t0-9_*#@$%^&=+~`" + NUMBER_FORMS + "]"
SYSTEM = ("You say one line of a play again in a character's own voice: the same facts and names, nothing added, "
          "one or two short sentences.")
# One worked example, invented and world-neutral: the facts and names kept, the wording the speaker's own.
EXAMPLE = ('Tom, a ferryman, says to Mara: "Mara, Finn told me that the ice on the river is thin."',
           '{"line": "Mara, Finn says the river ice is thin as paper."}')
EXAMPLE_TEXT = EXAMPLE[1]
# How a line spoken to someone may go on after their name: a tiny model otherwise takes the name as the
# subject of a sentence about them ("Horatio, has told Marcellus…") or tags the speaker ("Horatio, Barnardo, …").
OPENERS = ("I", "I'm", "I'll", "I have", "you", "your", "we", "my", "what", "how", "why", "where", "who", "come",
           "look", "listen", "tell me", "do", "did", "have you", "can", "will you", "let", "there", "this", "that",
           "it", "no", "yes", "good", "stay", "go", "speak", "hear", "see", "by", "if", "when", "not", "now",
           "peace", "the", "our", "is it", "are you", "be", "take", "follow", "wait", "think", "they", "all", "as")
SPOKEN_LIMIT = 200  # characters kept: whole sentences up to here (a small model rambles after its first)
CARRY_SHARE = 0.6  # of the floor's own content words a phrasing must keep
SPEECH_DEEDS = frozenset(lexicon.concept(w) for w in ("saw", "seen", "told", "heard", "said", "read", "knew"))  # provenance
GROUNDED_SHARE = 0.7  # of a phrasing's content words that must be in what the speaker holds or heard
NEW_WORDS = 2  # content words a phrasing may add to its floor (its voice), each one the speaker knows


def addressee(plan: Plan) -> str | None:
    """Whom the line is spoken to (None: everyone here)."""
    match plan.action:
        case Say(to=to):
            return to
        case ActOn(target=target):
            return target
    return None


def vocative(world: World, agent_id: str) -> str:
    """How one calls a person by name at the start of a line: "Horatio", "Ghost"."""
    name = world.agents[agent_id].name
    return re.sub(r"^(the|a|an)\s+", "", name, flags=re.IGNORECASE).strip()


def role(description: str) -> str:
    """The first phrase of a persona ("an officer of the watch"), short enough not to be copied."""
    head = re.split(r"[.;:]", description.strip(), maxsplit=1)[0]
    head = head.split(",")[0].strip()
    return head[0].lower() + head[1:] if 3 <= len(head) <= 60 else ""


def phrase_messages(world: World, speaker: str, to: str | None, floor: str) -> list[dict[str, str]]:
    """The phrasing prompt: who says it to whom, and the line to say in their own voice."""
    agent = world.agents[speaker]
    who = role(agent.description)
    listener = world.agents[to].name if to in world.agents else "everyone"
    ask = f'{agent.name}{", " + who + "," if who else ""} says to {listener}: "{floor}"'
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": EXAMPLE[0]}, {"role": "assistant", "content": EXAMPLE[1]},
            {"role": "user", "content": ask}]


def line_schema(world: World, to: str | None, floor: str, *, openers: tuple[str, ...] = OPENERS) -> dict[str, object]:
    """The line's JSON shape: the vocative when it is spoken to someone, then an opener (the floor's own among
    them), plain speech characters only."""
    if to in world.agents:
        name = vocative(world, to)
        own = floor[len(name) + 2:].split(" ", 1)[0] if floor.startswith(name + ", ") else ""
        choices = tuple(dict.fromkeys((*openers, *([own] if own and re.fullmatch(r"[\w']+", own) else []))))
        start = _pattern_literal(name) + ", (" + "|".join(_pattern_literal(o) for o in choices) + ") "
    else:
        start = "[A-Z]"
    pattern = f"^{start}{SPEECH_CHARS}{{12,{SPOKEN_LIMIT}}}$"
    return {"type": "object", "properties": {"line": {"type": "string", "pattern": pattern}}, "required": ["line"]}


def _pattern_literal(text: str) -> str:
    """Text as a literal in a schema pattern: metacharacters escaped, spaces left bare (the grammar
    converter reads `\\ ` as an unknown escape)."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\/-" else c for c in text)


def tidy(world: World, speaker: str, raw: str) -> str:
    """The spoken part of a reply: whole sentences up to the limit, the speaker's own name tagged on dropped."""
    text = lines.first_sentences(raw, SPOKEN_LIMIT)
    if not text:
        return text
    own = "|".join(re.escape(n) for n in {vocative(world, speaker), world.agents[speaker].name})
    # "…what do you mean, Barnardo?" said by Barnardo: the speaker's own name tagged on is dropped
    text = re.sub(rf",\s*(?:{own})(?=[.!?])", "", text)
    # "Jo Tanner, Beatrice Vane, says that …": a comma between a person named as the subject and the verb of saying
    # (after the opening vocative) is a slip, not an address
    names = "|".join(re.escape(n) for n in sorted({p.name for p in world.agents.values()}, key=len, reverse=True))
    text = re.sub(rf"(?<=[,;:] )({names}),\s+(says|said|told|tells)\b", r"\1 \2", text) if names else text
    for agent in world.agents.values():
        # "Anton Wimmer said Anton Wimmer measured …": the one who said it, named again in what they said, is "he"
        text = re.sub(rf"\b({re.escape(agent.name)})\s+({_SAYING})\s+(that\s+)?{re.escape(agent.name)}\b",
                      rf"\1 \2 \3{agent.pronouns}", text)
    return close_quote(text)


_SAYING = "|".join((*render.SAYING, "claims", "claimed"))


def close_quote(text: str) -> str:
    """A quotation the model opened and never closed ("Florian said, 'The roof fell.") closed at the line's end."""
    opened = re.search(r"(?<=[,:] )(['\"])(?=[A-Z])", text)
    if opened is None:
        return text
    mark = opened.group(1)
    # a closing mark is one not followed by a letter (an apostrophe, "Kaiser's", is)
    if re.search(rf"{re.escape(mark)}(?![A-Za-z])", text[opened.end():]):
        return text
    return text + mark


PERSONS = (frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'll", "i'd"}),
           frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'll"}),
           frozenset({"he", "him", "his", "himself"}), frozenset({"she", "her", "hers", "herself"}))


def _persons(text: str) -> tuple[bool, ...]:
    """Which persons a line speaks of (I, you, he, she): a phrasing that changes them changes who did what."""
    tokens = set(lines.words(text.split(",", 1)[1] if "," in text else text))  # after the vocative
    return tuple(bool(tokens & group) for group in PERSONS)


def _pairs(text: str) -> set[tuple[str, str]]:
    """Neighbouring content words of a text, in order (what a phrasing must keep of its floor's sense)."""
    sequence = [content.keys(w) for w in lines.words(text)]
    flat = [next(iter(k)) for k in sequence if k]
    return set(zip(flat, flat[1:]))


def check(world: World, context: DecisionContext, speech: content.Speech, floor: str, text: str) -> list[str]:
    """Why a phrasing may not stand for the floor: it lost the content, added a name or a fact, or is garbage."""
    speaker = world.agents[context.agent].name
    to = speech.to
    overheard = [t.text for t in context.perception.recent_talk if t.speaker != context.agent]
    heard = context.addressed_by.text if context.addressed_by is not None else ""
    found = lines.problems(text, names=render.world_names(world), prompt=EXAMPLE_TEXT, earlier=context.own_lines,
                           heard=[heard] if heard else [], speaker=speaker,
                           addressee=world.agents[to].name if to in world.agents else "", overheard=overheard)
    if lines.parrots(text, overheard):
        found.append("parrot")
    if lines.degenerate(text, names=render.person_names(world)):
        found.append("degenerate")  # "…to the Crow's Gate on foot by the pass road by the Crow's Gate"
    floor_keys = content.keys(floor)
    said = content.line_keys(text)
    if floor_keys and len(floor_keys & said) < CARRY_SHARE * len(floor_keys):
        found.append("lost the content")
    kept = _pairs(floor) & _pairs(text)
    if _pairs(floor) and len(kept) < CARRY_SHARE * len(_pairs(floor)):
        found.append("words out of order")  # "the dead king" is not "the king of the dead"
    if speech.carries:
        verdict = guard.check(floor, text)  # the store's own test of one fact: who did what to whom, when, where
        if not verdict.ok:
            found.append(f"changed the fact ({verdict.reason})")  # "Cole, A sailing chit … to me" lost the giving
        done = guard.deeds(floor) - SPEECH_DEEDS
        if done and not done & {lexicon.concept(w) for w in lines.words(text)}:
            found.append("lost the deed")  # "Elias, the letter with red wax": the words kept, the sealing gone
    if _persons(text) != _persons(floor):
        found.append("changed who")  # "she will cut my debt" is not "he will cut your debt"
    lowered = text.lower()
    if set(render.names_in(world, text)) - set(render.names_in(world, floor)) - {to}:
        found.append("added a name")  # "have you heard anything new from Li Ru?" said by Li Ru; or a new who
    for name in render.names_in(world, floor):
        if name != to and name != context.agent and not any(n.lower() in lowered for n in world.agents[name].all_names()):
            found.append("lost a name")
            break
    known = context.knowledge.vocabulary | floor_keys | content.keys(heard) | content.keys(" ".join(render.world_names(world)))
    if said and len(said & known) < GROUNDED_SHARE * len(said):
        found.append("not grounded")
    added = said - floor_keys - content.keys(heard)
    if len(added) > (NEW_WORDS if speech.carries else 0):
        found.append("says more than its line")  # a voice, not new facts; an "I do not know" states nothing
    if len(re.findall(r"[.!?]+(?:\s|$)", text)) > max(1, len(re.findall(r"[.!?]+(?:\s|$)", floor))) \
            or len(text) > 1.4 * len(floor) + 20:
        found.append("longer than its line")
    names = {w.lower() for n in render.world_names(world) for w in re.findall(r"[\w']+", n)}
    invented = [w for w in lines.proper_words(text) if w.lower() not in names and content.keys(w) - known]
    if invented:
        found.append("invented name")
    if re.findall(r"\d+", floor) != re.findall(r"\d+", text) or re.search(f"[{NUMBER_FORMS}]", text):
        found.append("changed a number")  # "4 rounds ago" is not "¼ rounds ago"; a number is said as the floor says it
    if _past_after_perception(world, text):
        found.append("grammar")  # "I heard Rosa say that" made "I heard Rosa said that"
    return list(dict.fromkeys(found))


# Verbs after whose object a verb takes its bare form ("heard Rosa say", "saw him go", "let her pass").
_BARE_AFTER = frozenset("hear heard hears see saw sees watch watched let lets make made makes".split())


def _past_after_perception(world: World, text: str) -> bool:
    """Whether a line puts a past-only form where the bare verb belongs: after "heard" or "saw" and a person's name
    ("I heard Rosa Delgado said that"); a form that is bare too ("let", "put") passes."""
    for span in render.find_names(world, text):
        before = re.findall(r"[A-Za-z']+", text[:span.start])
        after = re.match(r"\s+([a-z]+)\b", text[span.end:])
        if not before or before[-1].lower() not in _BARE_AFTER or after is None:
            continue
        word = after.group(1)
        lemmas = getAllLemmas(word).get("VERB", ())
        if lemmas and word not in lemmas and any(word in getInflection(lemma, "VBD") for lemma in lemmas):
            return True
    return False


FLOOR_ONLY = frozenset({"unknown", "refuse", "lie"})  # speech acts always said as their rendering


def write(lm: LanguageModel, world: World, context: DecisionContext, speech: content.Speech, floor: str, *,
          tries: int = 1, max_tokens: int = 48) -> tuple[str, bool, str, dict[str, float]]:
    """The words of a speech act: (text, rendered?, why the phrasing was refused, costs).

    The model phrases the floor `tries` times at most; the first phrasing that passes the check is
    spoken, else the floor itself (rendered: it is sound by construction, never a fallback).
    """
    costs = {"prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
    if lm is None or tries < 1 or speech.question or speech.echo or speech.intent or speech.act in FLOOR_ONLY:
        # a goal's question is asked in the goal's own words: a rephrasing that keeps its words can still change
        # what it asks ("how is it that you know how Laertes lives?"); "I do not know", a refusal, a lie and news
        # said back carry no record for the phrasing to keep, so its check has nothing to hold it to
        return floor, True, "", costs
    messages = phrase_messages(world, context.agent, speech.to, floor)
    schema = line_schema(world, speech.to, floor)
    reasons: list[str] = []
    for attempt in range(tries):
        obj, completion = lm.complete_json(messages, schema, max_tokens=max_tokens,
                                           temperature=0.7 + 0.1 * attempt, seed=context.seed + attempt)
        costs["prompt_tokens"] += completion.prompt_tokens
        costs["completion_tokens"] += completion.completion_tokens
        costs["seconds"] += completion.seconds
        line = obj.get("line", "") if isinstance(obj, dict) else None
        # the schema makes a reply's line a string; without a reply the text is salvaged
        raw = line if isinstance(line, str) else _salvage_line(completion.text)
        text = tidy(world, context.agent, raw)
        found = ["no sentence end"] if not text else check(world, context, speech, floor, text)
        if not found:
            return text, False, "", costs
        log.debug("phrasing refused for %s (%s): %r", context.agent, ", ".join(found), raw[:120])
        reasons.append(f"{', '.join(found)}: {raw[:80]!r}")
    return floor, True, "; ".join(reasons), costs


def _salvage_line(reply: str) -> str:
    """The line of a reply cut at the token limit: the text after `"line":` up to where it stopped."""
    match = re.search(r'"line"\s*:\s*"(.*)', reply, flags=re.DOTALL)
    return match.group(1).rstrip('"} \n') if match else ""
