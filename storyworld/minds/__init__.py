"""Agent minds: direction from the canon, a typed choice, then words — a pipeline a small model can run."""

from storyworld.minds.context import Decision, DecisionContext, Mind, Recalled, provenance_tag
from storyworld.minds.direction import CanonProgress, Intention
from storyworld.minds.mind import LLMMind

__all__ = ["CanonProgress", "Decision", "DecisionContext", "Intention", "LLMMind", "Mind", "Recalled",
           "provenance_tag"]
