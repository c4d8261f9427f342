"""The play pipeline: a deterministic parser from a play's text (any of the editions' layouts) to a draft world.

    from storyworld.authoring.play import parse_play
    parse = parse_play(text, world_id="hamlet")   # PlayParse: .world, .scenes (ids), .layout, .warnings, .personae
    parse.figures()                                # cast, places and starts against the edition's own personae

Stages, one module each: `editions` (licence matter and layouts evened out), `tokens` (layout,
front matter, items), `personae`, `roster` (headings -> speakers), `reader` (scenes and events in
keys), `world` (ids, via `storyworld.authoring.assemble`); `places`, `props` and `figures` serve them.
"""

from storyworld.authoring.play.personae import Persona, parse_personae
from storyworld.authoring.play.pipeline import parse_play
from storyworld.authoring.play.tokens import detect_layout, looks_like_play
from storyworld.authoring.play.world import PlayParse, Scene

__all__ = ["Persona", "PlayParse", "Scene", "detect_layout", "looks_like_play", "parse_personae", "parse_play"]
