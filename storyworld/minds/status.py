"""The status register and goal stack: mood, stance toward the player, what one is doing, the next beat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storyworld.minds import direction
from storyworld.kernel.state import ShortTerm, WorldState
from storyworld.world import World

if TYPE_CHECKING:
    from storyworld.kernel.resolve import RoundOutcome

# What a deed done to someone does to their mood, and to their stance toward whoever did it.
MOOD_AFTER = {"strike": "shaken and angry", "accuse": "defensive", "confront": "defensive", "expose": "ashamed",
              "embrace": "warm", "greet": "at ease", "give": "grateful", "lie": "misled"}
STANCE_AFTER = {"strike": "hostile", "accuse": "wary", "confront": "wary", "expose": "hostile", "embrace": "friendly",
                "greet": "friendly", "give": "friendly"}
BEAT_KEY = "beat"


def update_status(world: World, state: WorldState, outcome: RoundOutcome, player: str | None) -> None:
    """After a round: moods and stances from what was done to each agent, then goals from the canon."""
    for event in outcome.events:
        if event.kind != "act" or not event.verb:
            continue
        target = event.target if event.target in state.shortterm else None
        if target is None:
            continue
        status = state.shortterm[target].status
        if event.verb in MOOD_AFTER:
            status["mood"] = MOOD_AFTER[event.verb]
        if player is not None and event.actor == player and event.verb in STANCE_AFTER:
            status["stance"] = STANCE_AFTER[event.verb]
    for event in outcome.events:
        if player is not None and event.kind == "say" and event.actor == player and event.to in state.shortterm:
            state.shortterm[event.to].status.setdefault("stance", "attentive")
    for agent, stm in state.shortterm.items():
        if agent not in state.positions or agent in state.absent:
            continue
        intention = direction.intention_for(world, state, state.canon, agent)
        set_intention(world, stm, intention, state.positions[agent])


def set_intention(world: World, stm: ShortTerm, intention: direction.Intention | None, here: str) -> None:
    """Push the canon beat onto the goal stack (popping the one met or overtaken) and say what one is doing."""
    current = stm.status.get(BEAT_KEY)
    wanted = intention.beat_id if intention is not None else None
    if current != wanted:
        if current is not None and stm.goals:
            stm.goals.pop()  # the beat on top was met or overtaken
            stm.status.pop(BEAT_KEY, None)
        if intention is not None:
            stm.goals.append(goal_text(world, intention))
            stm.status[BEAT_KEY] = intention.beat_id
    if intention is None:
        stm.status["doing"] = f"keeping to {world.places[here].name}"
    elif intention.place != here:
        stm.status["doing"] = f"on the way to {world.places[intention.place].name}"
    else:
        people = [world.agents[m].name for m in intention.meet[:2]]
        stm.status["doing"] = f"with {' and '.join(people)}" if people else f"at {world.places[here].name}"


def goal_text(world: World, intention: direction.Intention) -> str:
    """A goal-stack line for a beat: where, and what happens there."""
    return f"Be at {world.places[intention.place].name}: {intention.text}"
