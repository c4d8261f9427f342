"""Agent minds: the LLM policy that turns a prompt into one constrained action, with logged fallbacks."""

from __future__ import annotations

import logging
from typing import Any, Protocol

import msgspec

from storyworld.actions import ActOn, Action, Move, Observe, ReadThread, Say, VERBS, Wait
from storyworld.perception import Perception
from storyworld.state import ShortTerm
from storyworld.world import World

log = logging.getLogger("storyworld.minds")

MAX_SPEECH = 90  # characters; short enough that the whole JSON fits the token budget
MAX_LINE = 110  # characters of one remembered or overheard line in a prompt: prompt tokens dominate a decision


class Recalled(msgspec.Struct, frozen=True, kw_only=True):
    """A recalled record as shown in a prompt: its text, provenance tag and id (for based_on)."""

    record_id: int
    text: str
    tag: str


class DecisionContext(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one agent sees when deciding."""

    agent: str
    perception: Perception
    shortterm: ShortTerm
    recalled: tuple[Recalled, ...]
    seed: int


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """The chosen action, whether it was a fallback, and what the choice cost."""

    action: Action
    fallback: bool = False
    reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    based_on: tuple[int, ...] = ()


class Mind(Protocol):
    """Anything that decides an action for an agent."""

    def decide(self, world: World, context: DecisionContext) -> Decision: ...


def provenance_tag(world: World, holding: Any) -> str:
    """The read-policy tag for a holding: how sure, and from whom ([heard from Horatio], [disputed])."""
    tags: list[str] = []
    source = getattr(holding, "source", None)
    name = world.agents[source].name if source in world.agents else (
        world.objects[source].name if source in world.objects else source
    )
    match holding.via:
        case "told":
            tags.append(f"heard from {name}" if name else "heard")
        case "read":
            tags.append(f"read in {name}" if name else "read")
        case "inferred":
            tags.append("my own inference")
        case "sediment":
            tags.append("remembered")
        case "witnessed":
            tags.append("seen myself")
    if holding.status in ("disputed", "retracted"):
        tags.append(holding.status)
    elif getattr(holding, "confidence", 1.0) < 0.5:
        tags.append("unverified")
    if "contaminated" in getattr(holding, "flags", ()):
        tags.append("source exposed")
    return "[" + ", ".join(tags) + "]"


def decision_schema(world: World, perception: Perception) -> dict[str, Any]:
    """A flat JSON schema whose enums list only valid actions, addressees, exits and targets."""
    targets = sorted({*perception.objects_here, *perception.objects_held, *perception.present})
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["say", "move", "observe", "read_thread", "act_on", "wait"]},
            "to": {"type": "string", "enum": ["", *perception.present]},
            "place": {"type": "string", "enum": ["", *perception.exits]},
            "target": {"type": "string", "enum": ["", *targets]},
            "verb": {"type": "string", "enum": ["", *VERBS]},
            # free text last: if a small model rambles, every choice before it is already made
            "text": {"type": "string", "maxLength": MAX_SPEECH},
        },
        "required": ["action", "to", "place", "target", "verb", "text"],
    }


def build_messages(world: World, context: DecisionContext) -> list[dict[str, str]]:
    """System and user messages: persona, short-term memory, tagged recall, perception."""
    agent = world.agents[context.agent]
    p = context.perception
    stm = context.shortterm
    goal = stm.goals[-1] if stm.goals else "get through the day"
    system = (
        f"You are {agent.name} in {world.file.world.title}. {agent.description} "
        f"Your current goal: {goal}. Stay in character. Answer with one JSON action."
    )
    lines = [f"Round {p.round}. You are in {p.place_name}. {_clip(p.place_description)}"]
    if p.present:
        lines.append("Here with you: " + ", ".join(f"{world.agents[a].name} ({a})" for a in p.present) + ".")
    else:
        lines.append("You are alone.")
    if p.exits:
        lines.append("Exits: " + ", ".join(p.exits) + ".")  # ids read well and are what the schema takes
    objects = [*(f"{world.objects[o].name} ({o}, here)" for o in p.objects_here),
               *(f"{world.objects[o].name} ({o}, yours)" for o in p.objects_held)]
    if objects:
        lines.append("Objects: " + ", ".join(objects) + ".")
    if p.recent_talk:
        lines.append("Just said here:")
        lines.extend(f"- {world.agents[t.speaker].name}: {_clip(t.text)}" for t in p.recent_talk[-3:])
    if context.recalled:
        lines.append("You remember:")
        lines.extend(f"- {r.tag} {_clip(r.text)}" for r in context.recalled)
    if stm.cache:
        lines.append("You recently: " + "; ".join(_clip(f"{c.action} -> {c.result}") for c in stm.cache[-2:]))
    lines.append('Choose: say (text, "to"), move ("place"), observe, read_thread, act_on ("target", "verb"), or wait.')
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def _clip(text: str, limit: int = MAX_LINE) -> str:
    """Text cut at a word boundary to `limit` characters."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def to_action(agent_id: str, obj: dict[str, Any], perception: Perception) -> tuple[Action, str]:
    """Turn a schema-valid JSON object into an action; returns (action, problem or "")."""
    kind = obj.get("action")
    text = " ".join(str(obj.get("text") or "").split())[:MAX_SPEECH]
    to = obj.get("to") or None
    if to is not None and to not in perception.present:
        to = None
    if kind == "say":
        if not text:
            return Observe(actor=agent_id), "say without text"
        return Say(actor=agent_id, text=text, to=to), ""
    if kind == "move":
        place = obj.get("place")
        if place in perception.exits:
            return Move(actor=agent_id, to=place), ""
        return Observe(actor=agent_id), f"move to invalid place {place!r}"
    if kind == "act_on":
        target = obj.get("target")
        verb = obj.get("verb") or "use"
        valid = {*perception.objects_here, *perception.objects_held, *perception.present}
        if target in valid:
            return ActOn(actor=agent_id, target=target, verb=verb, text=text, to=to), ""
        return Observe(actor=agent_id), f"act_on invalid target {target!r}"
    if kind == "read_thread":
        return ReadThread(actor=agent_id), ""
    if kind == "wait":
        return Wait(actor=agent_id), ""
    if kind == "observe":
        return Observe(actor=agent_id), ""
    return Observe(actor=agent_id), f"unknown action {kind!r}"


class LLMMind:
    """A policy on a language model: JSON-schema constrained, falling back to observe on bad output."""

    def __init__(self, lm: Any, *, max_tokens: int = 80, temperature: float = 0.7) -> None:
        self.lm = lm
        self.max_tokens = max_tokens
        self.temperature = temperature

    def decide(self, world: World, context: DecisionContext) -> Decision:
        """Ask the model for one action; any failure becomes a logged fallback."""
        schema = decision_schema(world, context.perception)
        messages = build_messages(world, context)
        based_on = tuple(r.record_id for r in context.recalled)
        try:
            obj, completion = self.lm.complete_json(
                messages, schema, max_tokens=self.max_tokens, temperature=self.temperature, seed=context.seed
            )
        except Exception as exc:  # noqa: BLE001 — a failing model must never stop the round; logged below
            log.warning("model call failed for %s: %s", context.agent, exc)
            return Decision(action=Observe(actor=context.agent), fallback=True, reason=f"model error: {exc}")
        tokens = dict(
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            seconds=completion.seconds,
        )
        if obj is None and completion.finish_reason == "length":
            obj = _salvage(completion, schema)
        if not isinstance(obj, dict):
            log.info("fallback for %s: unparseable output %r", context.agent, completion.text[:200])
            return Decision(action=Observe(actor=context.agent), fallback=True, reason="invalid output", **tokens)
        action, problem = to_action(context.agent, obj, context.perception)
        if problem:
            log.info("fallback for %s: %s", context.agent, problem)
        return Decision(action=action, fallback=bool(problem), reason=problem, based_on=based_on, **tokens)


def _salvage(completion: Any, schema: dict[str, Any]) -> Any:
    """A reply cut off inside its last field (the free text) still holds every choice: close it and check it."""
    import json

    from storyworld.llm import schema_problems

    text = completion.text.rstrip().rstrip("\\")
    if not text.startswith("{"):
        return None
    obj = None
    for ending in ('"}', "}"):  # cut inside the text, or just after its closing quote
        try:
            obj = json.loads(text + ending, strict=False)
            break
        except ValueError:
            continue
    if not isinstance(obj, dict):
        return None
    obj["text"] = str(obj.get("text", ""))[:MAX_SPEECH]
    if schema_problems(obj, schema):
        return None
    log.info("salvaged a reply cut off at the token limit")
    return obj
