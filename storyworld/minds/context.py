"""What a mind is given and what it returns: the decision context, recalled memories, the decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

from storyworld.kernel.actions import Action
from storyworld.minds.content import Knowledge
from storyworld.minds.direction import Intention
from storyworld.kernel.perception import Perception
from storyworld.kernel.state import ShortTerm, ThreadLine
from storyworld.world import World

if TYPE_CHECKING:
    from memory.records import Holding
    from storyworld.minds.content import Known


# What a chosen action is for. Policy: answer (someone spoke to you), summon (send the player word of a
# beat elsewhere), lead (take a companion along), beat (go to or speak the canon's beat), act (do its
# deed), idle (nothing due, alone). Model: chat (a line of its own choosing), greet, act. fallback: the
# choice failed and the agent keeps still. Agenda (minds.agenda): tell (news on to who lacks it), seek (ask
# after a goal, or go where someone is).
Purpose = Literal["answer", "summon", "lead", "beat", "act", "idle", "chat", "greet", "fallback", "tell", "seek",
                  "carry"]  # carry: a messenger's walk toward one who lacks its news


class Recalled(msgspec.Struct, frozen=True, kw_only=True):
    """A recalled record as shown in a prompt: its text, provenance tag and id (for based_on)."""

    record_id: int
    text: str
    tag: str


class DecisionContext(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one agent sees when deciding."""

    agent: str
    perception: Perception
    shortterm: ShortTerm
    recalled: tuple[Recalled, ...]
    seed: int
    intention: Intention | None = None  # the canon's next beat for this agent, if one is due
    addressed_by: ThreadLine | None = None  # the latest line spoken to this agent by someone still here
    own_lines: tuple[str, ...] = ()  # what this agent said lately (a line must not repeat them)
    arrivals: tuple[str, ...] = ()  # who came into this place last round
    missed_lines: int = 0  # lines said here before this agent arrived (read_thread catches up)
    player: str | None = None  # the person's character, for the status register's stance
    read_already: tuple[str, ...] = ()  # carriers this agent has read (what they say is known)
    player_call: Intention | None = None  # a beat the player is wanted at elsewhere, not yet sent word of
    knowledge: Knowledge = msgspec.field(default_factory=Knowledge)  # what it holds that this round's line may carry
    replying: bool = False  # spoken to this round: it answers the line now, in the same round
    asked: tuple[tuple[str, str], ...] = ()  # (listener, words) of the questions it put lately, oldest first
    last_moved: int | None = None  # the last round it went somewhere (it does not pace between rooms)
    # where its last move came from, when it has spoken here since, more are there than here and that move was not
    # itself a way back: a messenger who has said its piece returns to the gathering it left (once)
    came_from: str | None = None
    left_lately: tuple[str, ...] = ()  # who went from here in the last few rounds and is not back (one goes at a time)
    deciding: tuple[str, ...] = ()  # who decides this round beside it (of those here, one carries news off)
    draw: int = 0  # which drawing of this round: 0 as first played; a retry draws again (minds.draws)


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """The chosen action, whether it was a fallback, and what the choice cost."""

    action: Action
    fallback: bool = False
    reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    based_on: tuple[int, ...] = ()
    steps: tuple[str, ...] = ()  # how it was made: policy/model choice, words written/regenerated/fallback
    beat: str = ""  # the canon beat this action was made to carry out, if any (meets it when done)
    purpose: Purpose = "idle"  # what the choice was for


class Mind(Protocol):
    """Anything that decides an action for an agent."""

    def decide(self, world: World, context: DecisionContext) -> Decision: ...


def provenance_tag(world: World, holding: Known | Holding) -> str:
    """The read-policy tag for a holding: how sure, and from whom ([heard from Horatio], [disputed])."""
    tags: list[str] = []
    source = getattr(holding, "source", None)
    name = world.agents[source].name if source in world.agents else (
        world.objects[source].name if source in world.objects else source
    )
    match holding.via:
        case "told":
            tags.append(f"heard from {name}" if name else "heard")
        case "read":
            tags.append(f"read in {name}" if name else "read")
        case "inferred":
            tags.append("my own inference")
        case "sediment":
            tags.append("remembered")
        case "witnessed":
            tags.append("seen myself")
    if holding.status in ("disputed", "retracted"):
        tags.append(holding.status)
    elif getattr(holding, "confidence", 1.0) < 0.5:
        tags.append("unverified")
    if "contaminated" in getattr(holding, "flags", ()):
        tags.append("source exposed")
    return "[" + ", ".join(tags) + "]"
