"""Draws of a round: a retry draws again, taking the next of the choices that fit about as well as the first.

Draw 0 is the round as first played, unchanged. Draw d > 0 rotates each run of near-tied candidates by d
places: what a character holds of about the same relevance (within `NEAR`, and on the same side of the
thresholds that decide whether it is said at all), who of those here is spoken to, which of its beat's people
it turns to. What answers a shaped question (where one was last, what the one named told) is not drawn: it
has one right answer. The mind's own rules then pick "the first" as always, so a retry gets another line wherever
another would fit as well, and the same (seed, draw) always draws the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from storyworld.minds.content import ANSWER_MIN, TELL_MIN, Known
from storyworld.minds.context import DecisionContext

NEAR = 0.05  # relevance within which two holdings are tied for a draw
# the relevances at which a holding is said at all (answered, told unasked): a rotation never moves one across
THRESHOLDS = (TELL_MIN, ANSWER_MIN)

T = TypeVar("T")


def rotate(items: Sequence[T], draw: int) -> tuple[T, ...]:
    """`items` rotated left by `draw` places (draw 0, or fewer than two items: as they are)."""
    if draw <= 0 or len(items) < 2:
        return tuple(items)
    shift = draw % len(items)
    return (*items[shift:], *items[:shift])


def runs(items: Sequence[T], score: Callable[[T], float], near: float = NEAR) -> list[list[T]]:
    """Consecutive items whose scores are within `near` of the run's first and on its side of every threshold."""
    out: list[list[T]] = []
    for item in items:
        if out:
            head = score(out[-1][0])
            value = score(item)
            same_side = all((head >= t) == (value >= t) for t in THRESHOLDS)
            if abs(head - value) <= near and same_side:
                out[-1].append(item)
                continue
        out.append([item])
    return out


def tied(items: Sequence[Known], draw: int) -> tuple[Known, ...]:
    """Holdings in their order, each run of near-tied ones rotated by `draw`."""
    if draw <= 0:
        return tuple(items)
    return tuple(k for run in runs(items, lambda k: k.score) for k in rotate(run, draw))


def vary(context: DecisionContext) -> DecisionContext:
    """The context as draw `context.draw` sees it: near-tied holdings, those here, the beat's people rotated."""
    draw = context.draw
    if draw <= 0:
        return context
    knowledge = context.knowledge
    knowledge = msgspec.structs.replace(
        knowledge, heard=tied(knowledge.heard, draw), beat=tied(knowledge.beat, draw),
        moment=tied(knowledge.moment, draw), lately=tied(knowledge.lately, draw))
    perception = msgspec.structs.replace(context.perception, present=rotate(context.perception.present, draw))
    intention = context.intention
    if intention is not None:
        intention = msgspec.structs.replace(intention, meet=rotate(intention.meet, draw),
                                          companions=rotate(intention.companions, draw))
    return msgspec.structs.replace(context, knowledge=knowledge, perception=perception, intention=intention)
