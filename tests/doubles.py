"""Test doubles for pure-logic tests: a scripted mind and a deterministic embedder. Never used by the program."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import numpy as np

from storyworld.actions import Action, Observe
from storyworld.minds import Decision, DecisionContext

_WORD = re.compile(r"[a-z0-9']+")


class HashEmbedder:
    """Bag-of-words hashed into a fixed vector, L2-normalised: same words, same vector."""

    dim = 64

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, bucket % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out


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
