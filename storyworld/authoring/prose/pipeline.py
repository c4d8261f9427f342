"""The prose pipeline: novels and chronicles -> a draft world, one named stage after another.

chapters (`chapters`: chapters, paragraphs, chunks) -> cast (`cast`, or `cjk` for Chinese: persons
with aliases, places) -> extraction (`extract`: the model on a bounded number of chunks, the
fallback on the rest) -> placing and the world (`world`, via `storyworld.authoring.assemble`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from storyworld.authoring.common import CancelToken, Draft, ProgressCallback, report
from storyworld.authoring.prose.cast import build_cast
from storyworld.authoring.prose.cjk import Known, han_cast, known_names
from storyworld.authoring.prose.chapters import MAX_CHUNK_CHARS, chunk_chapters, split_chapters
from storyworld.authoring.prose.extract import extract_chunks, pick_model_chunks
from storyworld.authoring.prose.script import is_cjk
from storyworld.authoring.prose.world import build_world, place_extractions

if TYPE_CHECKING:
    from storyworld.llm.base import LanguageModel


def author_prose(
    text: str,
    *,
    world_id: str = "prose",
    title: str | None = None,
    source: str = "",
    lm: LanguageModel | None = None,
    max_model_chunks: int | None = None,
    max_chunk_chars: int = MAX_CHUNK_CHARS,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
    seed: int = 0,
    names: Sequence[Known] = (),
) -> Draft:
    """Draft a world from prose: the model reads up to `max_model_chunks` chunks (None: one per chapter), the fallback the rest.

    `names`: people and places the author knows by their names in the source's script (Chinese prose), besides
    the language pack's dictionary.
    """
    started = time.perf_counter()
    chapters = split_chapters(text)
    chunks = chunk_chapters(chapters, max_chunk_chars)
    report(progress, 0, len(chunks), "finding the cast")
    cast = han_cast(chapters, known_names(names)) if is_cjk(text) else build_cast(chapters)
    model_chunks = pick_model_chunks(chunks, cast, max_model_chunks) if lm is not None else set()
    extractions, model_calls = extract_chunks(chunks, cast, lm, model_chunks, seed=seed, progress=progress,
                                              cancel=cancel)
    world = build_world(place_extractions(extractions), cast, chapters, world_id=world_id,
                        title=title or world_id.replace("-", " ").replace("_", " ").title(), source=source)
    flag_counts: Counter[str] = Counter(flag for event in world.event for flag in event.flags)
    notes = [
        f"{len(chapters)} chapters, {len(chunks)} chunks, {len(extractions)} events",
        f"model read {model_calls} chunks" if lm is not None else "no model: deterministic fallback only",
        f"{len(cast.persons)} persons and {len(cast.places)} places found in the text",
    ]
    return Draft(world=world, kind="prose", seconds=time.perf_counter() - started, model_calls=model_calls,
                 chunks=len(chunks), flag_counts=dict(flag_counts), notes=notes)
