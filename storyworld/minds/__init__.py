"""Agent minds: direction from the canon, a typed choice, then words — a pipeline a small model can run."""

from storyworld.minds.context import Decision, DecisionContext, Mind, Recalled, provenance_tag
from storyworld.minds.mind import LLMMind

__all__ = ["Decision", "DecisionContext", "LLMMind", "Mind", "Recalled", "provenance_tag"]
