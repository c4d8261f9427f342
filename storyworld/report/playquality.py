"""How well a run plays: fallbacks, degenerate and repeated speech, ping-pong moves, replies, canon progress.

Speech is read with the scorer's own tokenizer (`report.tokens`), never the speech gate's checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from storyworld.report.tokens import Names, fold, stem, tokens

if TYPE_CHECKING:
    from memory.embedder import Embedder
    from storyworld.report.eventlog import LogEntry

Similarity = Callable[[list[tuple[str, str]]], list[float]]
# What a model echoes of its prompt or its JSON when it fails: none belongs in a character's mouth.
PROMPT_ECHOES = ("{", "}", "<|", "|>", '"text"', "json", "speaker:", "assistant:", "user:", "system:",
                 "speech act", "[heard from", "[unverified]", "[disputed]", "record #", "holdings")


def name_words(names: Iterable[str]) -> frozenset[str]:
    """The stems of the words of some names."""
    return frozenset(stem(w) for n in names for w in tokens(n))


def stutters(words: list[str]) -> bool:
    """A word three times running, or a run of two to four words said twice in a row."""
    if any(words[i] == words[i + 1] == words[i + 2] for i in range(len(words) - 2)):
        return True
    return any(words[i:i + n] == words[i + n:i + 2 * n] for n in (2, 3, 4) for i in range(len(words) - 2 * n + 1))


def degenerate(text: str, names: Names | frozenset[str]) -> bool:
    """Under three words, nothing but names, an echo of prompt text or field names, or a stutter.

    `names`: a `tokens.Names` or stems of name words."""
    words = tokens(text)
    known = names.all_words if isinstance(names, Names) else names
    if len(words) < 3 or all(stem(w) in known for w in words):
        return True
    folded = fold(text)
    return any(echo in folded for echo in PROMPT_ECHOES) or stutters(words)


def overlap(a: str, b: str) -> float:
    """Shared words over the longer line's words (1.0: the same words)."""
    left, right = set(tokens(a)), set(tokens(b))
    return len(left & right) / max(len(left), len(right)) if left and right else 0.0


def score(events: list[LogEntry], *, player: str | None, names: tuple[str, ...], decisions: int,
          fallbacks: int, invalid: int, similarity: Similarity | None = None) -> dict[str, object]:
    """The play-quality figures of one event log (see `storyworld bench play --help` for each definition)."""
    agents_say = [e for e in events if e["kind"] == "say" and e["actor"] != player]
    known = name_words(names)
    said_before: dict[str, list[str]] = {}
    degenerates, repeats = [], []
    for event in agents_say:
        text = event["speech"] or ""
        if degenerate(text, known):
            degenerates.append(event)
        earlier = said_before.setdefault(event["actor"], [])
        if any(overlap(text, old) >= 0.7 for old in earlier):
            repeats.append(event)
        earlier.append(text)
    moves = [e for e in events if e["kind"] == "move" and e["actor"] != player]
    pingpong = 0
    for event in moves:
        back = [m for m in moves if m["actor"] == event["actor"] and 0 < m["round"] - event["round"] <= 2
                and m["from_place"] == event["to_place"] and m["to_place"] == event["from_place"]]
        pingpong += bool(back)
    pairs, addressed, replies = [], 0, []
    last = max((e["round"] for e in events), default=0)
    for index, event in enumerate(events):
        to = event["to"]
        if event["kind"] != "say" or not to or to == player or to not in event["witnesses"]:
            continue
        if event["round"] >= last:  # a line of the run's last round has no round after it to be answered in
            continue
        addressed += 1
        # a line a fallback put in the addressee's mouth is no reply: it answers nothing
        window = [e for e in events[index + 1:] if e["kind"] == "say" and e["actor"] == to
                  and e["round"] <= event["round"] + 1 and not e.get("fallback")]
        # the reply is what they said back to the speaker; else whatever they said next
        reply = next((e for e in window if e["to"] == event["actor"]), window[0] if window else None)
        if reply is not None:
            replies.append(reply)
            pairs.append((event["speech"] or "", reply["speech"] or ""))
    relevance = similarity(pairs) if similarity is not None and pairs else []
    def rate(n: int, d: int) -> float:
        return round(n / d, 4) if d else 0.0
    return {
        "decisions": decisions,
        "fallback_rate": rate(fallbacks, decisions),
        "speeches": len(agents_say),
        "speeches_template_share": share(agents_say),
        "degenerate_speech_rate": rate(len(degenerates), len(agents_say)),
        "degenerate_template_share": share(degenerates),
        "repeat_rate": rate(len(repeats), len(agents_say)),
        "repeat_template_share": share(repeats),
        "invalid_actions": invalid,
        "moves": len(moves),
        "pingpong_rate": rate(pingpong, len(moves)),
        "addressed": addressed,
        "reply_rate": rate(len(replies), addressed),
        "reply_template_share": share(replies),
        "reply_relevance": round(float(np.mean(relevance)), 4) if len(relevance) else 0.0,
    }


def share(lines: list[LogEntry]) -> float | None:
    """Of these lines, the share spoken as the deterministic rendering (the floor)."""
    return round(sum(1 for e in lines if e.get("rendered")) / len(lines), 4) if lines else None


def embedding_similarity(embedder: Embedder) -> Similarity:
    """Cosine between each line and its reply, with the run's sentence embedder (MiniLM)."""

    def cosines(pairs: list[tuple[str, str]]) -> list[float]:
        left = embedder.encode([a for a, _ in pairs])
        right = embedder.encode([b for _, b in pairs])
        left = left / np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-9)
        right = right / np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-9)
        return [float(x) for x in (left * right).sum(axis=1)]

    return cosines
