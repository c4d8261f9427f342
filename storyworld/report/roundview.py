"""One round as a reader follows it (RoundView): the events in story order, built once from the kernel's
outcome, and read alike by the play screen, `storyworld log` and the screenplay.

The kernel resolves a round in a seeded order (deeds and words, then walking, then looking around, then
what the story narrates). Within the words that open the round a reader expects a conversation: the
player's own line first, then what is said or done to the player, then the rest. Nothing else moves:
whoever walks away still walks after everything said where they stood.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from storyworld.kernel.state import SimEvent

TALK_KINDS = frozenset({"say", "act", "wait", "read"})  # what resolves before anyone walks


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    """One round: its events in story order, each actor's result, and whose view it is (None: the narrator's)."""

    round: int
    events: tuple[SimEvent, ...]
    results: dict[str, str] = msgspec.field(default_factory=dict)
    player: str | None = None

    def seen_by(self, agent: str) -> tuple[SimEvent, ...]:
        """The events `agent` did or witnessed, in story order."""
        return tuple(e for e in self.events if agent in e.witnesses or e.actor == agent)


def story_order(events: Iterable[SimEvent], player: str | None) -> list[SimEvent]:
    """A round's events (in resolution order) as a reader follows them: in the talk that opens the round,
    the player's own events, then those addressed or done to the player, then the rest (stable)."""
    ordered = list(events)
    if not player:
        return ordered
    opening = 0
    while opening < len(ordered) and ordered[opening].kind in TALK_KINDS:
        opening += 1

    def rank(event: SimEvent) -> int:
        if event.actor == player:
            return 0
        return 1 if player in (event.to, event.target) else 2

    return sorted(ordered[:opening], key=rank) + ordered[opening:]


def round_view(events: Iterable[SimEvent], *, round_: int, results: dict[str, str] | None = None,
               player: str | None = None) -> RoundView:
    """The view of one round from its events in resolution order (the kernel's RoundOutcome.events)."""
    return RoundView(round=round_, events=tuple(story_order(events, player)), results=dict(results or {}),
                     player=player)


def round_views(events: Iterable[SimEvent], player: str | None = None) -> list[RoundView]:
    """A run's events (oldest first, as the state keeps them) as one view per round."""
    views: list[RoundView] = []
    batch: list[SimEvent] = []
    for event in events:
        if batch and event.round != batch[0].round:
            views.append(round_view(batch, round_=batch[0].round, player=player))
            batch = []
        batch.append(event)
    if batch:
        views.append(round_view(batch, round_=batch[0].round, player=player))
    return views


def in_story_order(events: Iterable[SimEvent], player: str | None = None) -> list[SimEvent]:
    """A run's events, round by round, in story order."""
    return [e for view in round_views(events, player) for e in view.events]


__all__ = ["RoundView", "in_story_order", "round_view", "round_views", "story_order"]
