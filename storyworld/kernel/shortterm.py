"""Short-term memory upkeep: goal stack, status register and the action–result cache's eviction."""

from __future__ import annotations

from storyworld.kernel.actions import Action, ActOn, Move, Say
from storyworld.kernel.state import CacheEntry, CachePolicy, ShortTerm


def touched(action: Action | None) -> frozenset[str]:
    """The ids an action is done to or toward (whom it spoke to, where it went, what it acted on)."""
    match action:
        case Say(to=to):
            return frozenset({to} if to else ())
        case Move(to=to):
            return frozenset({to})
        case ActOn(target=target, to=to, place=place):
            return frozenset(x for x in (target, to, place) if x)
    return frozenset()


def relevance(entry: CacheEntry, focus: frozenset[str]) -> float:
    """How far an entry bears on what the agent is after: the share of the ids in focus (the people, places and
    things its goal and its beat name) that the entry's typed action touches; no words, no model."""
    if not focus:
        return 0.0
    return len(focus & touched(entry.done)) / len(focus)


def remember_result(stm: ShortTerm, entry: CacheEntry, *, policy: CachePolicy, size: int,
                    focus: frozenset[str] = frozenset()) -> None:
    """Add an action–result pair, evicting by policy when the cache is over size (`focus`: ids it is after)."""
    stm.cache.append(entry)
    while len(stm.cache) > max(1, size):
        stm.cache.pop(_victim(stm, policy, focus))


def _victim(stm: ShortTerm, policy: CachePolicy, focus: frozenset[str] = frozenset()) -> int:
    """Index of the entry to evict."""
    if policy == "fifo":
        return 0
    newest = max(e.round for e in stm.cache)
    # the newest entry always stays: it is the result the agent is about to reason about
    candidates = [i for i, e in enumerate(stm.cache) if i != len(stm.cache) - 1]
    if policy == "relevance":
        return min(candidates, key=lambda i: (relevance(stm.cache[i], focus), stm.cache[i].round))
    # hybrid: half relevance, half recency
    def score(i: int) -> float:
        age = newest - stm.cache[i].round
        return 0.5 * relevance(stm.cache[i], focus) + 0.5 / (1 + age)

    return min(candidates, key=lambda i: (score(i), stm.cache[i].round))


def new_shortterm(goals: list[str]) -> ShortTerm:
    """A fresh short-term memory whose stack holds the persona's goals (first goal on top)."""
    return ShortTerm(goals=list(reversed(goals)), status={"mood": "watchful"})
