"""How well a run plays: fallbacks, degenerate and repeated speech, ping-pong moves, replies, canon progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from storyworld.minds import lines

Similarity = Callable[[list[tuple[str, str]]], list[float]]


def score(events: list[dict[str, Any]], *, player: str | None, names: tuple[str, ...], decisions: int,
          fallbacks: int, invalid: int, similarity: Similarity | None = None) -> dict[str, Any]:
    """The play-quality figures of one event log (see `storyworld bench play --help` for each definition)."""
    agents_say = [e for e in events if e["kind"] == "say" and e["actor"] != player]
    said_before: dict[str, list[str]] = {}
    degenerate = repeats = 0
    for event in agents_say:
        text = event["speech"] or ""
        if lines.degenerate(text, names=names):
            degenerate += 1
        earlier = said_before.setdefault(event["actor"], [])
        if any(lines.similarity(text, old) >= 0.7 for old in earlier):
            repeats += 1
        earlier.append(text)
    moves = [e for e in events if e["kind"] == "move" and e["actor"] != player]
    pingpong = 0
    for event in moves:
        back = [m for m in moves if m["actor"] == event["actor"] and 0 < m["round"] - event["round"] <= 2
                and m["from_place"] == event["to_place"] and m["to_place"] == event["from_place"]]
        pingpong += bool(back)
    pairs, addressed, answered = [], 0, 0
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
            answered += 1
            pairs.append((event["speech"] or "", reply["speech"] or ""))
    relevance = similarity(pairs) if similarity is not None and pairs else []
    rate = lambda n, d: round(n / d, 4) if d else 0.0  # noqa: E731
    return {
        "decisions": decisions,
        "fallback_rate": rate(fallbacks, decisions),
        "speeches": len(agents_say),
        "degenerate_speech_rate": rate(degenerate, len(agents_say)),
        "repeat_rate": rate(repeats, len(agents_say)),
        "invalid_actions": invalid,
        "moves": len(moves),
        "pingpong_rate": rate(pingpong, len(moves)),
        "addressed": addressed,
        "reply_rate": rate(answered, addressed),
        "reply_relevance": round(float(np.mean(relevance)), 4) if len(relevance) else 0.0,
    }


def embedding_similarity(embedder: Any) -> Similarity:
    """Cosine between each line and its reply, with the run's sentence embedder (MiniLM)."""

    def cosines(pairs: list[tuple[str, str]]) -> list[float]:
        left = embedder.encode([a for a, _ in pairs])
        right = embedder.encode([b for _, b in pairs])
        left = left / np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-9)
        right = right / np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-9)
        return [float(x) for x in (left * right).sum(axis=1)]

    return cosines
