"""Authoring: turn a source text (a play or prose) into a draft world, and review it (DESIGN §4.4).

    from storyworld.authoring import author_source, review
    draft = author_source("hamlet.txt", kind="play")           # Draft: .world (WorldFile), .flagged, .notes
    world = review.rename_agent(draft.world, "claudius", "Claudius, King of Denmark")
    review.save_draft(world, "hamlet.toml")                    # validated; `storyworld check` accepts it
"""

from storyworld.authoring import review
from storyworld.authoring.common import AuthoringCancelled, Draft
from storyworld.authoring.pipeline import author_source, detect_kind, read_source
from storyworld.authoring.play import parse_play
from storyworld.authoring.prose import author_prose

__all__ = [
    "AuthoringCancelled", "Draft", "author_prose", "author_source", "detect_kind", "parse_play", "read_source",
    "review",
]
