"""The prose pipeline: novels and chronicles (English or Chinese) -> a draft world, the model optional.

    from storyworld.authoring.prose import author_prose
    draft = author_prose(text, world_id="river-oath", lm=None)   # Draft; without a model, the fallback only

Stages, one module each: `chapters` (chapters, paragraphs, sentences, chunks), `cast` (English
persons, aliases, places) or `cjk` (Chinese, in the source script), `extract` (the model under a
schema, the deterministic fallback, flags), `world` (placing, then `storyworld.authoring.assemble`);
`parts` holds the values they pass on, `script` tells Han text from other.
"""

from storyworld.authoring.prose import cjk
from storyworld.authoring.prose.cast import build_cast
from storyworld.authoring.prose.chapters import chunk_chapters, sentences, split_chapters
from storyworld.authoring.prose.extract import (
    extraction_schema,
    fallback_extract,
    model_extract,
    pick_model_chunks,
    time_phrases,
)
from storyworld.authoring.prose.parts import Chapter, Chunk, Extraction, Person, ProseMentions
from storyworld.authoring.prose.pipeline import author_prose

__all__ = [
    "Chapter", "Chunk", "Extraction", "Person", "ProseMentions", "author_prose", "build_cast", "chunk_chapters", "cjk",
    "extraction_schema", "fallback_extract", "model_extract", "pick_model_chunks", "sentences", "split_chapters",
    "time_phrases",
]
