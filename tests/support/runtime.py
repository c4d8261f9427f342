"""The app's runtime for tests: a scripted mind (one fixed action per agent), the hashed embedder, a fixed clock."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from storyworld.kernel.actions import ActOn, Action, Observe, Say, Told, Wait
from storyworld.minds import Decision, DecisionContext
from tui.runtime import Runtime
from tests.support.doubles import HashEmbedder

FIXED_TIME = datetime(2024, 3, 1, 20, 15, tzinfo=timezone.utc)


# What each agent of the tiny world does, whatever the round: fixed, so every run resolves the same way.
TINY_SCRIPT: dict[str, str] = {
    "tobin": "say:I carry a letter from the old keeper.",
    "silas": "wait",
    "ada": "observe",
    "maren": "say:Who left the lamp dark?",
}


class ScriptedMind:
    """Returns a fixed action per agent (from a script like TINY_SCRIPT); anyone unscripted observes."""

    def __init__(self, script: dict[str, str] | None = None, *, derive: bool = False) -> None:
        self.script = dict(TINY_SCRIPT if script is None else script)
        self.derive = derive  # what agents say tells what they recall holding (for trust scenes)
        self.calls: list[tuple[int, str]] = []

    def decide(self, world, context: DecisionContext) -> Decision:
        """The scripted action for this agent."""
        self.calls.append((context.perception.round, context.agent))
        based_on = tuple(r.record_id for r in context.recalled) if self.derive else ()
        action = self.action(context.agent)
        if self.derive and isinstance(action, Say):
            # a retelling carries the claim it repeats: the claim recalled that shares most words with the line
            claims = [k for k in context.knowledge.moment if k.kind == "claim"]
            if claims:
                told = max(claims, key=lambda k: len(set(k.text.lower().split()) & set(action.text.lower().split())))
                action = Say(actor=action.actor, text=action.text, to=action.to, act="tell",
                             tells=(Told(record=told.record_id, text=told.text, kind=told.kind),))
        return Decision(action=action, based_on=based_on)

    def action(self, agent: str) -> Action:
        """Decode the script entry."""
        entry = self.script.get(agent, "observe")
        kind, _, text = entry.partition(":")
        if kind == "say":
            return Say(actor=agent, text=text)
        if kind == "lie":
            listener, _, claim = text.partition(":")
            return ActOn(actor=agent, target=listener, verb="lie", text=claim, to=listener)
        if kind == "lead":
            target, _, place = text.partition(":")
            return ActOn(actor=agent, verb="lead", target=target, place=place)
        if kind == "wait":
            return Wait(actor=agent)
        return Observe(actor=agent)


def scripted_runtime(saves_root: Path | None = None, script: dict[str, str] | None = None, *,
                     derive: bool = False) -> Runtime:
    """A runtime with the scripted mind, the hashed embedder and a fixed clock."""
    mind = ScriptedMind(script, derive=derive)
    embedder = HashEmbedder()
    return Runtime(load_mind=lambda: mind, load_embedder=lambda: embedder, model_name="scripted",
                   clock=lambda: FIXED_TIME, seed=7, awake="all", saves_root=saves_root)
