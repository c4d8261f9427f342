"""LLMMind: direction → choice → words, each step one small question to the model, garbage never out."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import msgspec

from storyworld.kernel.actions import ActOn, Action, Move, Say, Told, Wait
from storyworld.llm.base import ModelError, tagged
from storyworld.minds import agenda, choice, content, lines, render, words
from storyworld.minds.choice import Plan
from storyworld.minds.context import Decision, DecisionContext, Purpose
from storyworld.world import World

if TYPE_CHECKING:
    from storyworld.llm.base import LanguageModel

log = logging.getLogger("storyworld.minds")


def choice_messages(world: World, context: DecisionContext, options: choice.Menu) -> list[dict[str, str]]:
    """The choice prompt: the situation in a few lines, the options, then what was just said.

    What changes least comes first (the system text is the same for everyone, then who and where one
    is, what one is after, what one can do), so the model's prefix cache keeps most of it from one
    round to the next; the reply is one option's number (`choice.Menu.schema`).
    """
    agent = world.agents[context.agent]
    p = context.perception
    here = ", ".join(world.agents[a].name for a in options.say_to) or "nobody"
    if len(p.present) > len(options.say_to):  # a crowd, trimmed to those who matter most (choice.people_first)
        here += f" and {len(p.present) - len(options.say_to)} others"
    parts = [f"{agent.name} is in {p.place_name} with {here}."]
    if context.intention is not None:
        parts.append(f"In the story, next: {lines.clip(context.intention.text, 180)}")
    elif context.shortterm.goals:
        parts.append(f"{agent.name} wants to {lines.clip(context.shortterm.goals[-1], 120)}")
    parts.append(f"{agent.name} can:")
    parts.extend(options.lines(world))
    if context.addressed_by is not None:
        parts.append(f'{world.agents[context.addressed_by.speaker].name} said to {agent.name}: '
                     f'"{lines.clip(context.addressed_by.text, words.MAX_CONTEXT)}"')
    elif p.recent_talk:
        last = p.recent_talk[-1]
        parts.append(f'{world.agents[last.speaker].name} said: "{lines.clip(last.text, words.MAX_CONTEXT)}"')
    parts.append(f"What does {agent.name} do?")
    return [{"role": "system", "content": f"You choose what a character in {world.title} does next."},
            {"role": "user", "content": "\n".join(parts)}]


RETELLINGS = 3  # holdings tried for an unasked telling before one that does not echo what was just said here


class LLMMind:
    """A policy on a language model: the canon directs, a typed grammar chooses, a dialogue prompt speaks."""

    def __init__(self, lm: LanguageModel, *, choice_tokens: int = 48, line_tokens: int = 48, temperature: float = 0.7,
                 phrase_tries: int = 1) -> None:
        self.lm = lm
        self.choice_tokens = choice_tokens
        self.line_tokens = line_tokens
        self.temperature = temperature
        self.phrase_tries = phrase_tries  # the model's phrasings of a line before its floor is spoken

    def choose(self, world: World, context: DecisionContext) -> tuple[Plan, dict[str, float]]:
        """The plan: the policy's when it settles the choice, else the model's pick from the typed menu."""
        planned = choice.policy(world, context)
        if planned is None or planned.purpose == "idle":
            # nobody spoke to it and the canon asks nothing here: its goals say what to do next
            planned = agenda.next_step(world, context) or planned
        elif isinstance(planned.action, Move) and planned.purpose == "beat":
            # news for someone here who lacks it is said before walking off to a beat elsewhere
            planned = agenda.tell_news(world, context) or planned
        if planned is not None:
            return planned, {}
        options = choice.menu(world, context)
        with tagged("choice", context.agent):
            obj, completion = self.lm.complete_json(choice_messages(world, context, options), options.schema(),
                                                    max_tokens=self.choice_tokens, temperature=self.temperature,
                                                    seed=context.seed)
        costs = {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
                 "seconds": completion.seconds}
        action = options.to_action(context.agent, obj) if isinstance(obj, dict) else None
        if action is None:
            # the grammar admits only menu items, so this is a broken backend or a cut reply: keep still
            log.info("fallback choice for %s: %r", context.agent, completion.text[:120])
            return Plan(action=Wait(actor=context.agent), purpose="fallback", chosen_by="fallback"), costs
        purpose: Purpose = "chat"
        if isinstance(action, Say) and context.intention is not None and context.intention.place == context.perception.place:
            purpose = "beat"
        if isinstance(action, ActOn):
            purpose = "greet" if action.verb == "greet" else "act"
        return Plan(action=action, purpose=purpose, chosen_by="model"), costs

    def decide(self, world: World, context: DecisionContext) -> Decision:
        """Choose, then say what the choice calls for from memory; a garbage reply becomes a logged fallback.

        A failing model (storyworld.llm.ModelError: unreachable, HTTP errors, crashed) raises: the round is
        refused rather than played with every character looking around.
        """
        costs = {"prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
        based_on = tuple(r.record_id for r in context.recalled)
        try:
            plan, spent = self.choose(world, context)
            _add(costs, spent)
            steps = [f"choice:{plan.chosen_by}"]
            fallback, reason = plan.chosen_by == "fallback", ""
            action: Action = plan.action
            if plan.needs_words:
                said = self.speak(world, context, plan)
                if said is None:  # chosen to chat with nothing to say: better unsaid
                    plan = Plan(action=Wait(actor=context.agent), purpose="idle", chosen_by=plan.chosen_by)
                    action = plan.action
                    steps.append("words:nothing to say")
                else:
                    action, rendered, reason, spent = said
                    _add(costs, spent)
                    steps.append("words:rendered" if rendered else "words:model")
        except ModelError:
            # the model or its server failed (after the backend's retries): a fault of the round, which
            # the simulation refuses to play; never a character's choice to look around. A garbage reply
            # is the plan's own fallback (complete_json gives None); any other exception is our bug: it surfaces
            raise
        log.debug("r%d %s: %s %s by %s (%s)", context.perception.round, context.agent, plan.purpose,
                  type(action).__name__, plan.chosen_by, " ".join(steps))
        intention = context.intention
        for_beat = intention is not None and intention.place == context.perception.place and (
            plan.purpose in ("beat", "act") or (plan.purpose == "answer" and intention.role == "actor"))
        return Decision(action=action, fallback=fallback, reason=reason, based_on=based_on, steps=tuple(steps),
                        beat=(context.player_call.beat_id if plan.purpose == "summon" and context.player_call
                              else intention.beat_id if for_beat and intention is not None else ""),
                        purpose=plan.purpose,
                        prompt_tokens=int(costs["prompt_tokens"]), completion_tokens=int(costs["completion_tokens"]),
                        seconds=float(costs["seconds"]))

    def speak(self, world: World, context: DecisionContext, plan: Plan) -> tuple[Action, bool, str, dict[str, float]] | None:
        """What the plan says (a speech act from memory), its floor, and the model's phrasing of it under the check."""
        place = plan.action.place if isinstance(plan.action, ActOn) and plan.action.verb == "lead" else (
            context.player_call.place if plan.purpose == "summon" and context.player_call is not None else None)
        overheard = [t.text for t in context.perception.recent_talk if t.speaker != context.agent]
        knowledge = context.knowledge
        if plan.record is not None:  # bidden to tell this: it is the news the line carries
            knowledge = msgspec.structs.replace(
                knowledge, news=tuple(k for _, _, k in knowledge.bidden if k.record_id == plan.record))
        if plan.question:
            knowledge = msgspec.structs.replace(knowledge, questions=(plan.question,))
        elif isinstance(plan.action, Say):  # a line for another purpose falls back on a question only where it fits
            knowledge = agenda.open_questions(context, knowledge, plan.action.to)
        for _ in range(RETELLINGS):
            speech = content.choose(world, context.agent, plan.purpose, plan.action, knowledge,
                                    addressed=context.addressed_by, arrivals=context.arrivals)
            if speech is None:
                return None
            floor = render.floor(world, speech, context.agent, now=context.perception.round, place=place,
                                 topics=content.topics(world, context.agent, speech.to, knowledge,
                                                       context.perception.present),
                                 avoid=context.own_lines, overheard=overheard, present=context.perception.present,
                                 optional=plan.purpose not in ("answer", "summon", "lead", "act"))
            if not floor:
                return None
            if speech.act not in ("tell", "react") or speech.echo or not lines.parrots(floor, overheard):
                break
            # told unasked, it would repeat what was just said here in the same words: tell something else
            knowledge = msgspec.structs.replace(knowledge, told=(*knowledge.told, *(k.record_id for k in speech.carries)))
        else:
            return None
        with tagged("line", context.agent):
            text, rendered, why, costs = words.write(self.lm, world, context, speech, floor,
                                                     tries=self.phrase_tries, max_tokens=self.line_tokens)
        action = plan.action
        if isinstance(action, Say):
            # a follow-up's answer (who told it, when, where one is) tells what it says, not the record itself, unless
            # it says the record back ("Odile said Kasimir came back drunk …: I had it from Odile"): then it tells it,
            # and "When was that?" after it is on that record
            tells = () if speech.focus and not speech.restate else \
                tuple(Told(record=k.record_id, text=k.text, kind=k.kind) for k in speech.carries)
            return msgspec.structs.replace(action, text=text, tells=tells, act=speech.act, rendered=rendered), rendered, \
                why, costs
        return msgspec.structs.replace(action, text=text), rendered, why, costs


def _add(total: dict[str, float], more: dict[str, float]) -> None:
    for key, value in more.items():
        total[key] = total.get(key, 0) + value
