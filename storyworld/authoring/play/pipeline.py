"""The play pipeline: a play's text -> a draft world and its scenes, one named stage after another.

normalize (`editions`) -> tokens (`tokens`: layout, front matter, items) -> personae (`personae`)
-> cast (`roster`) -> reading (`reader`: scenes and events in keys) -> world (`world`: ids, via
`assemble`). Nothing here calls a model: the same text always gives the same world.
"""

from __future__ import annotations

from collections import Counter

from storyworld.authoring.common import CancelToken, ProgressCallback, report
from storyworld.authoring.play.personae import entrance_personae, parse_personae
from storyworld.authoring.play.reader import read_play
from storyworld.authoring.play.roster import SpeakerRoster
from storyworld.authoring.play.tokens import Layout, detect_layout, play_author, play_title, scenes_in_acts, tokenize
from storyworld.authoring.play.world import PlayParse, build_world
from storyworld.errors import UserError

SPEECHES_PER_ROUND = 6  # a round of story time per this many speeches within a scene


def parse_play(
    text: str,
    *,
    world_id: str = "play",
    title: str | None = None,
    layout: Layout | None = None,
    speeches_per_round: int = SPEECHES_PER_ROUND,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
) -> PlayParse:
    """Parse a play into a draft world (places, cast, say/act/move events, starts) and its scenes."""
    tokens = tokenize(text, layout or detect_layout(text))
    items = scenes_in_acts(tokens.items)
    if not any(item.kind == "scene" for item in items) or not any(item.kind == "speech" and item.label for item in items):
        raise UserError("no scenes or speeches found: is this a play? (try --kind prose)")
    personae = parse_personae(tokens.personae_lines)
    labels = Counter(item.label for item in items if item.kind == "speech" and item.label)
    cast = SpeakerRoster(personae or entrance_personae(items, labels), listed=bool(personae))
    cast.learn_labels(labels)
    reading = read_play(items, cast, tokens.setting, speeches_per_round, progress=progress, cancel=cancel)
    report(progress, len(items), len(items), "building the world")
    world, scenes = build_world(reading, cast, world_id=world_id, title=title or play_title(text),
                                source=play_author(text))
    return PlayParse(world=world, scenes=scenes, layout=tokens.layout, warnings=reading.warnings, personae=personae)
