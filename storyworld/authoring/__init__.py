"""Authoring: turn a source text (a play, prose, a Fountain screenplay, a character card) into a draft world, and review it (DESIGN §4.4).

    from storyworld.authoring import author_source, review
    draft = author_source("hamlet.txt", kind="play")           # Draft: .world (WorldFile), .flagged, .notes
    world = review.rename_agent(draft.world, "claudius", "Claudius, King of Denmark")
    review.save_draft(world, "hamlet.toml")                    # validated; `storyworld check` accepts it

Exposes author_source, detect_kind, read_source, parse_play, author_prose, Draft, AuthoringCancelled
and review. Inside: `pipeline` (read a file, tell its kind, run its pipeline, validate), the
pipelines `play/` and `prose/` (packages of named stages), `fountain` and `cards`, all ending in
`assemble` (the one world assembler); `common` (drafts, progress, cancel, ids); `review` (edits).
"""

from storyworld.authoring import review
from storyworld.authoring.common import Draft
from storyworld.errors import Cancelled as AuthoringCancelled
from storyworld.authoring.pipeline import author_source, detect_kind, read_source
from storyworld.authoring.play import parse_play
from storyworld.authoring.prose import author_prose

__all__ = [
    "AuthoringCancelled", "Draft", "author_prose", "author_source", "detect_kind", "parse_play", "read_source",
    "review",
]
