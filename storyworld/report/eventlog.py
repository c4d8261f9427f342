"""A run's events as plain records (for `storyworld log`, replays and `bench play`)."""

from __future__ import annotations

from typing import TypedDict

from storyworld.kernel.state import SimEvent
from storyworld.report.roundview import in_story_order

KIND_NAMES = {"say": "say", "move": "move", "observe": "observe", "read": "read_thread", "act": "act_on",
              "wait": "wait", "narration": "narration"}


class LogEntry(TypedDict):
    """One event as the log promises it (JSON-ready)."""

    round: int
    place: str
    actor: str
    kind: str
    text: str
    speech: str | None
    to: str | None
    target: str | None
    verb: str | None
    from_place: str | None
    to_place: str | None
    witnesses: list[str]
    fallback: bool
    act: str | None
    tells: list[int]
    rendered: bool


def entry(event: SimEvent) -> LogEntry:
    """One event as a JSON-ready object with the fields the log promises."""
    kind = KIND_NAMES.get(event.kind, event.kind)
    return {
        "round": event.round,
        "place": event.place,
        "actor": event.actor,
        "kind": kind,
        "text": event.text,
        "speech": event.claim if kind == "say" else None,
        "to": event.to if kind in ("say", "act_on") else None,
        "target": event.target if kind == "act_on" else None,
        "verb": event.verb if kind == "act_on" else None,
        "from_place": event.from_place if kind == "move" else None,
        "to_place": event.place if kind == "move" else None,
        "witnesses": list(event.witnesses),
        "fallback": event.fallback,
        # a line's speech act, the records it carried, and whether its words are the deterministic rendering
        "act": event.act if kind == "say" else None,
        "tells": list(event.tells) if kind == "say" else [],
        "rendered": event.rendered if kind == "say" else False,
    }


def entries(events: list[SimEvent], player: str | None = None) -> list[LogEntry]:
    """Every event of a run, round by round in the story order the play screen shows (report.roundview)."""
    return [entry(e) for e in in_story_order(events, player)]


def line(event: LogEntry, names: dict[str, str]) -> str:
    """One event as a line of text: `r12 great-hall  say  Hamlet → Horatio: "…"`."""
    who = names.get(event["actor"], event["actor"])
    mark = " (fallback)" if event["fallback"] else (" (rendered)" if event.get("rendered") else "")
    if event["kind"] == "say":
        to = f" → {names.get(event['to'], event['to'])}" if event["to"] else ""
        body = f'{who}{to}: "{event["speech"]}"'
    else:
        body = event["text"]
    return f"r{event['round']:<4} {event['place']:<18} {event['kind']:<11} {body}{mark}"
