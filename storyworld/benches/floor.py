"""The floor of a round: what a perfect prefix cache would still evaluate, and what must be generated.

A prompt's tokens are shared when an earlier prompt of the same kind (choice, line) or for the same
agent began with them; a perfect prefix cache would evaluate only the rest (at least one token, for
the logits). The floor of a round is those unshared tokens at the prompt rate measured in the same
run, plus the tokens generated at the generation rate measured in the same run (both from the
model's own timers), so `seconds_per_round / floor_seconds_per_round` is a ratio that load on a
shared machine slows on both sides alike. With lanes running at once the round waits for its
busiest lane, so the floor is that lane's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import msgspec

from storyworld.llm.base import CALL_TAG, Completion, LanguageModel, Message, Reply, Schema
from storyworld.llm.concurrency import LANE
from storyworld.llm.local import shared_prefix
from storyworld.llm.wrappers import ModelWrapper

Tokenize = Callable[[list[Message], Schema | None], list[int]]


class Call(msgspec.Struct, kw_only=True):
    """One model call as the floor needs it: when, what for, in which lane, its prompt and its output."""

    run: str
    round: int
    kind: str
    agent: str
    lane: int
    messages: list[Message]
    schema: Schema | None
    completion_tokens: int


class CallLog(ModelWrapper):
    """Keeps every call that reaches it (retries included: it sits under the retry wrapper)."""

    def __init__(self, inner: LanguageModel) -> None:
        """Log the calls to `inner`."""
        super().__init__(inner)
        self.calls: list[Call] = []
        self.run = ""  # set by the bench before each round: two configurations may share one model
        self.round = 0
        self._lock = threading.Lock()

    def _add(self, messages: list[Message], schema: Schema | None, completion: Completion) -> None:
        tag = CALL_TAG.get()
        call = Call(run=self.run, round=self.round, kind=tag.kind, agent=tag.agent, lane=LANE.get(), messages=messages,
                    schema=schema, completion_tokens=completion.completion_tokens)
        with self._lock:
            self.calls.append(call)

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """Forward and log."""
        completion = self.inner.complete(messages, schema, max_tokens, temperature, seed)
        self._add(messages, schema, completion)
        return completion

    def complete_json(self, messages: list[Message], schema: Schema, max_tokens: int = 128,
                      temperature: float = 0.7, seed: int = 0) -> tuple[Reply | None, Completion]:
        """Forward and log."""
        obj, completion = self.inner.complete_json(messages, schema, max_tokens, temperature, seed)
        self._add(messages, schema, completion)
        return obj, completion


def unshared_tokens(calls: list[Call], prompts: list[list[int]]) -> list[int]:
    """Per call: its prompt tokens after the longest prefix an earlier call of its kind or agent shares."""
    out = []
    for index, (call, tokens) in enumerate(zip(calls, prompts)):
        shared = 0
        for earlier, other in zip(calls[:index], prompts[:index]):
            if (earlier.kind == call.kind) or (call.agent and earlier.agent == call.agent):
                shared = max(shared, shared_prefix(other, tokens))
        out.append(max(1, len(tokens) - shared))
    return out


def floor_figures(calls: list[Call], tokenize: Tokenize | None, rounds: int, spent: dict[str, float],
                  seconds_per_round: float, decisions: int, lanes_at_once: bool) -> dict[str, object]:
    """The floor and what it is made of, per round and per decision; `spent` is the model's counters' growth.

    Without a tokenizer (a remote server's model) only the measured figures are given.
    """
    rounds = max(rounds, 1)
    evaluated = spent.get("prompt_tokens_evaluated", 0)
    generated = spent.get("tokens_generated", 0)
    prompt_s, generation_s = spent.get("prompt_s", 0.0), spent.get("generation_s", 0.0)
    prompt_rate = evaluated / prompt_s if prompt_s else 0.0
    generation_rate = generated / generation_s if generation_s else 0.0
    out: dict[str, object] = {
        "prompt_tokens_evaluated_per_decision": round(evaluated / decisions, 2) if decisions else 0.0,
        "tokens_generated_per_decision": round(generated / decisions, 2) if decisions else 0.0,
        "prompt_tokens_per_s": round(prompt_rate, 1),
        "tokens_generated_per_s": round(generation_rate, 1),
    }
    if tokenize is None or not prompt_rate or not generation_rate:
        return out
    prompts = [tokenize(call.messages, call.schema) for call in calls]
    unshared = unshared_tokens(calls, prompts)
    # seconds a perfect cache needs for each call; per round, the busiest lane's sum (or all of them in turn)
    need = [n / prompt_rate + call.completion_tokens / generation_rate for call, n in zip(calls, unshared)]
    by_round: dict[int, dict[int, float]] = {}
    for call, seconds in zip(calls, need):
        lanes = by_round.setdefault(call.round, {})
        lanes[call.lane] = lanes.get(call.lane, 0.0) + seconds
    per_round = [max(lanes.values()) if lanes_at_once else sum(lanes.values()) for lanes in by_round.values()]
    floor = sum(per_round) / rounds
    out.update({
        "prompt_tokens_per_call": round(sum(map(len, prompts)) / len(prompts), 2) if prompts else 0.0,
        "prompt_tokens_unshared_per_decision": round(sum(unshared) / decisions, 2) if decisions else 0.0,
        "calls_per_decision": round(len(calls) / decisions, 3) if decisions else 0.0,
        "floor_seconds_per_round": round(floor, 4),
        "floor_ratio": round(seconds_per_round / floor, 3) if floor else None,
    })
    return out
