"""Short-term memory upkeep: goal stack, status register and the action–result cache's eviction."""

from __future__ import annotations

import re

from storyworld.kernel.state import CacheEntry, CachePolicy, ShortTerm

_WORD = re.compile(r"[a-z0-9']+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def relevance(entry: CacheEntry, focus: str) -> float:
    """Word overlap between an entry and the current focus (top goal); no model, no embedding."""
    focus_words = _words(focus)
    if not focus_words:
        return 0.0
    entry_words = _words(entry.action + " " + entry.result)
    return len(focus_words & entry_words) / len(focus_words)


def remember_result(stm: ShortTerm, entry: CacheEntry, *, policy: CachePolicy, size: int) -> None:
    """Add an action–result pair, evicting by policy when the cache is over size."""
    stm.cache.append(entry)
    while len(stm.cache) > max(1, size):
        stm.cache.pop(_victim(stm, policy))


def _victim(stm: ShortTerm, policy: CachePolicy) -> int:
    """Index of the entry to evict."""
    if policy == "fifo":
        return 0
    focus = stm.goals[-1] if stm.goals else ""
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
