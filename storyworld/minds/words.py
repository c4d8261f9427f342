"""The words step: a dialogue prompt made for one line, checked, regenerated once, else a logged fallback."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from storyworld.kernel.actions import ActOn, Say
from storyworld.kernel import verbs
from storyworld.minds import lines
from storyworld.minds.choice import Plan
from storyworld.minds.context import DecisionContext
from storyworld.world import World

log = logging.getLogger("storyworld.minds")

Relevance = Callable[[str, str], float]  # how much a line is about another (MiniLM cosine)
MAX_CONTEXT = 140  # characters of a remembered or overheard line in the prompt
# Characters a spoken line may hold: no markup, quotes, digits or newlines (they are where a small
# model's prose turns into JSON, lists and scene directions).
SPEECH_CHARS = r"[^{}\[\]<>|\\\"\n\r\t0-9_*#@$%^&=+~`]"

SYSTEM = ("You write the next spoken line for a character in a play: one or two short sentences, in the first "
          "person, nothing else.")
# Two worked examples, invented and world-neutral: an answer and a beat, so the model sees both shapes.
EXAMPLES = (
    ('Tom speaks to Mara on the river bank. Mara has just said: "Will you take me across tonight?" '
     "Tom means to warn her that the ice will not hold.",
     '{"line": "Mara, not tonight; the ice is thin as paper."}'),
    ("Old Sela speaks to Finn at the mill. Sela means to ask whether the miller has come back from town.",
     '{"line": "Finn, has the miller come back from town yet?"}'),
)
EXAMPLE_TEXT = " ".join(answer for _, answer in EXAMPLES)
# How a line spoken to someone may go on after their name: a tiny model otherwise takes the name as the
# subject of a sentence about them ("Horatio, has told Marcellus…") or tags the speaker ("Horatio, Barnardo, …").
OPENERS = ("I", "I'm", "I'll", "I have", "you", "your", "we", "my", "what", "how", "why", "where", "who", "come",
           "look", "listen", "tell me", "do", "did", "have you", "can", "will you", "let", "there", "this", "that",
           "it", "no", "yes", "good", "stay", "go", "speak", "hear", "see", "by", "if", "when", "not", "now",
           "peace", "the", "our", "is it", "are you", "be", "take", "follow", "wait", "think")
LEAD_OPENERS = ("come with me to", "follow me to", "walk with me to")  # a lead's line asks them along
SPOKEN_LIMIT = 120  # characters kept: whole sentences up to here (a small model rambles after its first)


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


def scene_line(world: World, context: DecisionContext, plan: Plan) -> str:
    """Who speaks to whom, where: the one fact line of the dialogue prompt."""
    agent = world.agents[context.agent]
    to = addressee(plan)
    target = world.agents[to].name if to in world.agents else "everyone"
    role = _role(agent.description)
    return f"{agent.name}{', ' + role + ',' if role else ''} speaks to {target} in {context.perception.place_name}."


def _role(description: str) -> str:
    """The first phrase of a persona ("an officer of the watch"), short enough not to be copied."""
    head = re.split(r"[.;:]", description.strip(), maxsplit=1)[0]
    head = head.split(",")[0].strip()
    return head[0].lower() + head[1:] if 3 <= len(head) <= 60 else ""


def build_messages(world: World, context: DecisionContext, plan: Plan) -> list[dict[str, str]]:
    """The dialogue prompt: who speaks to whom and where, the line answered, what they recall, the direction."""
    agent = world.agents[context.agent]
    parts = [scene_line(world, context, plan)]
    heard = context.addressed_by
    if heard is not None and plan.purpose == "answer":
        parts.append(f'{world.agents[heard.speaker].name} has just said: "{lines.clip(heard.text, MAX_CONTEXT)}"')
        if context.recalled:
            memory = context.recalled[0]
            parts.append(f"{agent.name} remembers {memory.tag} {lines.clip(memory.text, 90)}")
    else:
        talk = context.perception.recent_talk
        if talk and talk[-1].speaker != context.agent:
            parts.append(f'{world.agents[talk[-1].speaker].name} has just said: "{lines.clip(talk[-1].text, MAX_CONTEXT)}"')
    status = context.shortterm.status
    mood = status.get("mood")
    if mood and mood != "watchful":
        parts.append(f"{agent.name} feels {mood}.")
    to = addressee(plan)
    if to is not None and to == context.player and status.get("stance") not in (None, "attentive"):
        parts.append(f"{agent.name} is {status['stance']} toward {world.agents[to].name}.")
    parts.append(_direction(world, context, plan))
    messages = [{"role": "system", "content": SYSTEM}]
    for question, answer in EXAMPLES:
        messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": " ".join(parts)})
    return messages


def _direction(world: World, context: DecisionContext, plan: Plan) -> str:
    """What the line is for, in words: the canon beat, the errand, or the persona's goal."""
    name = world.agents[context.agent].name
    intention = context.intention
    match plan.purpose:
        case "summon" if context.player_call is not None and context.player in world.agents:
            call = context.player_call
            player = world.agents[context.player].name
            return (f"{name} tells {player} that {player} is wanted at {world.places[call.place].name}: "
                    f"{lines.clip(call.text, 120)}")
        case "lead":
            assert isinstance(plan.action, ActOn)
            place = world.places[plan.action.place].name if plan.action.place in world.places else "the next place"
            # the errand's own text stays out: a long beat buries the one thing this line must say
            return f"{name} asks {world.agents[plan.action.target].name} to come with him now to {place}."
        case "act" if isinstance(plan.action, ActOn):
            return f"{name} means to {plan.action.verb} {world.agents[plan.action.target].name}" + (
                f": {lines.clip(intention.text, 120)}" if intention else ".")
        case "answer" if intention is None or intention.place != context.perception.place:
            heard = context.addressed_by
            speaker = world.agents[heard.speaker].name if heard else "them"
            return f"{name} answers {speaker}."
    if plan.purpose == "answer" and context.addressed_by is not None:
        speaker = world.agents[context.addressed_by.speaker].name
        return f"{name} answers {speaker}" + (
            f"; {instruction(name, intention.text)[len(name) + 1:]}" if intention is not None else ".")
    if intention is not None:
        return instruction(name, intention.text)
    goal = context.shortterm.goals[-1] if context.shortterm.goals else "get through the day"
    return f"{name} means to talk about this: {lines.clip(goal, 120)}"


def instruction(name: str, beat: str) -> str:
    """A beat told as what the speaker is to do: "Marcellus asks whether…" -> "Marcellus means to ask whether…"."""
    clause = re.split(r";\s|:\s", beat.strip(), maxsplit=1)[0].rstrip(".")
    match = re.match(rf"^{re.escape(name)}\s+(\w+)\b(.*)$", clause)
    if match:
        verb, rest = match.group(1), match.group(2)
        return lines.clip(f"{name} means to {verbs.base(verb)}{rest}.", 200)
    return lines.clip(beat, 200)


def line_schema(world: World, plan: Plan) -> dict[str, Any]:
    """The line's JSON shape: a vocative start when it is spoken to someone, plain speech characters only."""
    to = addressee(plan)
    openers = LEAD_OPENERS if plan.purpose == "lead" else OPENERS
    start = (_pattern_literal(vocative(world, to)) + ", (" + "|".join(openers) + ") ") if to in world.agents else "[A-Z]"
    pattern = f"^{start}{SPEECH_CHARS}{{12,200}}$"
    return {"type": "object", "properties": {"line": {"type": "string", "pattern": pattern}}, "required": ["line"]}


def _pattern_literal(text: str) -> str:
    """Text as a literal in a schema pattern: metacharacters escaped, spaces left bare (the grammar
    converter reads `\\ ` as an unknown escape)."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\/-" else c for c in text)


STOCK = {  # plain in-character lines for when every model line was rejected, by what the line was for
    "answer": ("I hear you, and I will think on what you say.", "that is a hard thing to answer, but I will not forget it.",
               "I have heard you; give me a moment to weigh it."),
    "greet": ("you are welcome here.", "well met, and welcome."),
    "other": ("there is something I must tell you, and it will not wait.", "listen to me a moment; this matters.",
              "we must speak plainly now."),
}


def fallback_line(world: World, context: DecisionContext, plan: Plan) -> str:
    """A plain in-character line for when the model's lines were rejected: safe, short, never garbage."""
    to = addressee(plan)
    who = vocative(world, to) + ", " if to in world.agents else ""
    if plan.purpose == "lead" and isinstance(plan.action, ActOn) and plan.action.place in world.places:
        return f"{who}come with me to {world.places[plan.action.place].name.lower()}."
    if plan.purpose == "summon" and context.player_call is not None:
        return f"{who}you are wanted at {world.places[context.player_call.place].name.lower()}."
    options = STOCK.get(plan.purpose, STOCK["other"])
    text = options[context.seed % len(options)]
    return who + (text if who else text[0].upper() + text[1:])


def world_names(world: World) -> tuple[str, ...]:
    """Every agent, place and object name (a line made only of these is a list, not speech)."""
    return (*(a.name for a in world.agents.values()), *(p.name for p in world.places.values()),
            *(o.name for o in world.objects.values()))


def check(world: World, context: DecisionContext, plan: Plan, text: str) -> list[str]:
    """Problems with a candidate line: garbage, copies of the examples or the scene line, repeats, parroting."""
    overheard = [t.text for t in context.perception.recent_talk if t.speaker != context.agent]
    heard = [context.addressed_by.text] if context.addressed_by is not None else []
    to = addressee(plan)
    # the direction and the line answered may be echoed in meaning; the examples and the scene line may not
    shown = EXAMPLE_TEXT + " " + scene_line(world, context, plan)
    # the stock fallback lines are heard often; a model line that copies one is no line of its own
    heard += [line for lines_ in STOCK.values() for line in lines_]
    return lines.problems(text, names=world_names(world), prompt=shown, earlier=context.own_lines, heard=heard,
                          speaker=world.agents[context.agent].name,
                          addressee=world.agents[to].name if to in world.agents else "", overheard=overheard)


def tidy(world: World, context: DecisionContext, plan: Plan, raw: str) -> str:
    """The spoken part of a reply: whole sentences up to the limit, the speaker's own name after the vocative dropped."""
    text = lines.first_sentences(raw, SPOKEN_LIMIT)
    if not text:
        return text
    own = "|".join(re.escape(n) for n in {vocative(world, context.agent), world.agents[context.agent].name})
    # "…what do you mean, Barnardo?" said by Barnardo: the speaker's own name tagged on is dropped
    text = re.sub(rf",\s*(?:{own})(?=[.!?])", "", text)
    # from the first sentence that names the speaker on, the model has turned to narrating: keep what came before
    sentences = re.findall(r"[^.!?…]+[.!?…]+[\"')\]]*\s*", text) or [text]
    kept: list[str] = []
    for sentence in sentences:
        if re.search(rf"\b(?:{own})\b", sentence):
            break
        kept.append(sentence)
    if kept and len(lines.words("".join(kept))) >= lines.MIN_WORDS:
        text = "".join(kept).strip()
    return text


MIN_RELEVANCE = 0.3  # MiniLM cosine below which an answer is off the subject of what it answers


def write(lm: Any, world: World, context: DecisionContext, plan: Plan, *, tries: int = 4,
          max_tokens: int = 40, relevance: Relevance | None = None) -> tuple[str, bool, str, dict[str, float]]:
    """The line for a plan: (text, fallback?, reason, costs). Rejected lines are regenerated, then replaced.

    With `relevance`, an answer must also be on the subject of the line it answers; when every try is
    sound but off the subject, the closest one is spoken rather than a fallback.
    """
    messages = build_messages(world, context, plan)
    schema = line_schema(world, plan)
    costs = {"prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
    reasons: list[str] = []
    best: tuple[float, str] | None = None
    for attempt in range(tries):
        obj, completion = lm.complete_json(messages, schema, max_tokens=max_tokens,
                                           temperature=0.7 + 0.1 * attempt, seed=context.seed + attempt)
        costs["prompt_tokens"] += completion.prompt_tokens
        costs["completion_tokens"] += completion.completion_tokens
        costs["seconds"] += completion.seconds
        raw = obj.get("line", "") if isinstance(obj, dict) else _salvage_line(completion.text)
        text = tidy(world, context, plan, raw)
        found = ["no sentence end"] if not text else check(world, context, plan, text)
        if not found and relevance is not None and plan.purpose == "answer" and context.addressed_by is not None:
            score = relevance(context.addressed_by.text, text)
            if score < MIN_RELEVANCE:
                found = ["off the subject"]
                if best is None or score > best[0]:
                    best = (score, text)
        if not found:
            return text, False, "", costs
        log.debug("rejected line for %s (%s): %r", context.agent, ", ".join(found), raw[:120])
        reasons.append(f"{', '.join(found)}: {raw[:80]!r}")
    if best is not None:
        return best[1], False, "", costs  # sound speech, if loosely on the subject, beats a stock line
    text = fallback_line(world, context, plan)
    reason = "line rejected (" + "; ".join(reasons) + ")"
    log.info("fallback line for %s: %s", context.agent, reason)
    return text, True, reason, costs


def _salvage_line(reply: str) -> str:
    """The line of a reply cut at the token limit: the text after `"line":` up to where it stopped."""
    match = re.search(r'"line"\s*:\s*"(.*)', reply, flags=re.DOTALL)
    return match.group(1).rstrip('"} \n') if match else ""
