"""Test doubles for pure-logic tests: a scripted mind, a deterministic embedder, a count of calls at once. Never used by the program."""

from __future__ import annotations

import threading
from collections.abc import Callable

from storyworld.kernel.actions import Action, Observe
from storyworld.minds import Decision, DecisionContext
from tests.support.fixtures_memory import HashEmbedder  # noqa: F401 — the one test embedder, re-exported


class ScriptedMind:
    """Returns actions from a script keyed by (round, agent); anything unscripted observes or waits."""

    def __init__(self, script: Callable[[int, str, DecisionContext], Action | None] | None = None) -> None:
        self.script = script
        self.calls: list[tuple[int, str]] = []

    def decide(self, world, context: DecisionContext) -> Decision:
        self.calls.append((context.perception.round, context.agent))
        action = self.script(context.perception.round, context.agent, context) if self.script else None
        return Decision(action=action or Observe(actor=context.agent),
                        based_on=tuple(r.record_id for r in context.recalled))


class InFlight:
    """Counts calls running at once and remembers the most seen."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1
