"""The play parser's figures: the drafted cast, places and starts against the edition's own dramatis personae."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from storyworld.authoring.play.editions import is_stage_place, is_stage_words
from storyworld.authoring.play.personae import Persona
from storyworld.authoring.play.roster import is_listed, listed_words, words_of
from storyworld.authoring.play.text import name_key
from storyworld.world.schema import WorldFile


class CastFigures(TypedDict):
    """How a drafted cast compares with an edition's dramatis personae (see cast_figures)."""

    agents: int
    precision: float | None
    outside_personae: list[str]
    principals: int
    principal_recall: float | None
    missing_principals: list[str]
    places: int
    scenes: int
    acts: int
    starts: int
    stage_words_as_agents: list[str]
    stage_words_as_places: list[str]
    objects: int


def cast_figures(world: WorldFile, personae: list[Persona], scene_acts: Sequence[int]) -> CastFigures:
    """Agents in the dramatis personae (precision), named personae found (recall), places, starts, acts.

    An agent is in the personae when a word of its name names an entry (`First Citizen` is one of
    the `Citizens`); a principal is a persona with a proper name. Without a personae list the two
    ratios are None. `scene_acts` is the act of each scene, in order.
    """
    persona_words = listed_words(personae)
    agent_words = {agent.id: words_of(" ".join([agent.name, *agent.aliases])) for agent in world.agent}
    outside = sorted(a.id for a in world.agent if not is_listed([a.name, *a.aliases], persona_words)) if personae else []
    principals = [p for p in personae if p.named]
    found = [p for p in principals if any(words_of(p.name) <= words or name_key(p.name) in {name_key(n) for n in words}
                                          for words in agent_words.values())]
    missing = sorted(p.name for p in principals if p not in found)
    stage_agents = sorted(a.id for a in world.agent if is_stage_words(a.name))
    stage_places = sorted(p.id for p in world.place if is_stage_place(p.name))
    return {
        "agents": len(world.agent),
        "precision": round(1 - len(outside) / len(world.agent), 3) if personae and world.agent else None,
        "outside_personae": outside,
        "principals": len(principals),
        "principal_recall": round(len(found) / len(principals), 3) if principals else None,
        "missing_principals": missing,
        "places": len(world.place),
        "scenes": len(scene_acts),
        "acts": len(set(scene_acts)),
        "starts": len(world.start),
        "stage_words_as_agents": stage_agents,
        "stage_words_as_places": stage_places,
        "objects": len(world.object),
    }
