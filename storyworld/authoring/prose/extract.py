"""The extraction stage of the prose pipeline: a chunk's event, read by the model under a schema or by the fallback.

The model (any storyworld.llm LanguageModel) reads a bounded number of chunks under a JSON schema
whose names and places are enums drawn from the chunk itself; every other chunk, and every chunk
whose model output is empty or implausible, goes through a deterministic fallback (names that
co-occur in a chunk, place cues like "at Luoyang"). Doubtful records carry their reasons as flags.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

import msgspec

from storyworld.authoring.common import CancelToken, ProgressCallback, check_cancel, report, trim_text
from storyworld.authoring.prose.cast import PLACE_CUE_RE, clean_candidate
from storyworld.authoring.prose.chapters import sentences
from storyworld.authoring.prose.parts import Chunk, Extraction, ProseMentions

if TYPE_CHECKING:
    from storyworld.llm.base import LanguageModel, Reply

MODEL_CHUNKS_PER_CHAPTER = 1  # default model budget when no total is given
MAX_STATEMENTS = 3


QUOTE_RE = re.compile(r"[“”\"「」『』]")


def fallback_extract(chunk: Chunk, cast: ProseMentions) -> Extraction | None:
    """Deterministic extraction: persons co-occurring in the chunk, the place it names, its key sentences."""
    found = cast.scan(chunk.text)
    actors = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "person"))
    if not actors:
        return None
    place = _place_of(chunk.text, cast, found)
    statements = []
    for sentence in sentences(chunk.text):
        if any(kind == "person" for kind, _, _ in cast.scan(sentence)):
            statements.append(trim_text(sentence, 200))
        if len(statements) >= MAX_STATEMENTS:
            break
    kind = "say" if QUOTE_RE.search(chunk.text) else "act"
    return Extraction(actors=actors, witnesses=list(actors), place=place, statements=statements, kind=kind,
                      text=trim_text(chunk.text))


def _place_of(text: str, cast: ProseMentions, found: list[tuple[str, str, int]]) -> str | None:
    """The place a chunk happens at: the last place with a cue (`at X`), else the last place named."""
    cued = []
    for match in PLACE_CUE_RE.finditer(text):
        name = clean_candidate(match.group("name"))
        entry = cast.surfaces.get(name)
        if entry and entry[0] == "place":
            cued.append(entry[1])
    if cued:
        return cued[-1]
    places = [item_id for kind, item_id, _ in found if kind == "place"]
    return places[-1] if places else None


TIME_RE = re.compile(
    r"\b(?:(?:at|by|before|after|about) (?:dawn|daybreak|sunrise|noon|midday|dusk|sunset|nightfall|midnight|night)"
    r"|in the (?:spring|summer|autumn|winter|morning|afternoon|evening|night)(?: of (?:that|this|the) (?:year|day))?"
    r"|(?:the )?(?:next|following|same|that|one) (?:day|morning|evening|night|year|month|spring|summer|autumn|winter)"
    r"|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) (?:month|moon|year)"
    r"|(?:\w+ )?(?:days|months|years) (?:later|after|afterwards))",
    re.I,
)
MAX_MODEL_SENTENCES = 12


def time_phrases(text: str) -> list[str]:
    """Time expressions in a passage ("in the spring", "the next day", "fourth month"), in order."""
    return list(dict.fromkeys(m.group(0).strip() for m in TIME_RE.finditer(text)))


def extraction_schema(person_names: list[str], place_names: list[str], sentence_count: int = 1,
                      times: list[str] | None = None) -> dict[str, object]:
    """The JSON schema the model answers under: every field is an enum drawn from the chunk itself.

    Statements are the numbers of the passage's sentences, so what the model states is always in
    the text. No free strings at all: with the tiny default model, free strings looped until the
    token limit, and string length bounds made llama.cpp's grammar so large that one call took
    minutes on 2 cores.
    """
    return {
        "type": "object",
        "properties": {
            "actors": {"type": "array", "items": {"enum": person_names}, "minItems": 1, "maxItems": 3},
            "witnesses": {"type": "array", "items": {"enum": person_names}, "maxItems": 4},
            "place": {"enum": [*place_names, "unknown"]},
            "time": {"enum": [*(times or []), "unknown"]},
            "statements": {
                "type": "array",
                "items": {"enum": list(range(1, max(1, sentence_count) + 1))},
                "minItems": 1,
                "maxItems": 2,
            },
        },
        "required": ["actors", "witnesses", "place", "time", "statements"],
        "additionalProperties": False,
    }


SYSTEM_PROMPT = (
    "You read a numbered passage of a story and give its main event as JSON. actors: the people who act. "
    "witnesses: other people who are there. place: where it happens. time: when, if the passage says. "
    "statements: the numbers of the one or two sentences that tell what happened."
)


def model_extract(chunk: Chunk, cast: ProseMentions, lm: LanguageModel, *, seed: int = 0) -> tuple[Extraction | None, str]:
    """Ask the model for the chunk's event; (extraction, "") or (None, reason it was rejected)."""
    found = cast.scan(chunk.text)
    person_ids = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "person"))
    if not person_ids:
        return None, "no known person in the passage"
    place_ids = list(dict.fromkeys(item_id for kind, item_id, _ in found if kind == "place"))
    names = {cast.persons[p].name: p for p in person_ids}
    place_names = {cast.places[p]: p for p in place_ids}
    passage = sentences(chunk.text)[:MAX_MODEL_SENTENCES]
    times = time_phrases(chunk.text)
    schema = extraction_schema(list(names), list(place_names), len(passage), times)
    numbered = "\n".join(f"[{i}] {sentence}" for i, sentence in enumerate(passage, 1))
    lines = [f"Passage:\n{numbered}", "", f"People: {', '.join(names)}", f"Places: {', '.join([*place_names, 'unknown'])}"]
    if times:
        lines.append(f"Times: {', '.join(times)}")
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    obj, _completion = lm.complete_json(messages, schema, max_tokens=96, temperature=0.2, seed=seed)
    if not obj:
        return None, "model output empty or invalid"
    actors = [names[n] for n in dict.fromkeys(_listed(obj, "actors")) if isinstance(n, str) and n in names]
    if not actors:
        return None, "model named no actor"
    picked = [n for n in dict.fromkeys(_listed(obj, "statements")) if isinstance(n, int) and 1 <= n <= len(passage)]
    statements = [trim_text(passage[n - 1], 200) for n in sorted(picked)]
    if not statements:
        return None, "model picked no sentence"
    # A statement that names none of the actors is doubtful: say so, keep it for the author.
    flags = []
    actor_ids = set(actors)
    if not any(item_id in actor_ids for s in statements for kind, item_id, _ in cast.scan(s) if kind == "person"):
        flags.append("model's sentences do not name its actors")
    witnesses = list(dict.fromkeys([*actors, *(names[n] for n in _listed(obj, "witnesses")
                                                         if isinstance(n, str) and n in names)]))
    place = place_names.get(str(obj.get("place", "unknown")))
    time_said = obj.get("time", "unknown")
    if time_said in times:
        statements = [f"Time: {time_said}.", *statements]
    kind = "say" if QUOTE_RE.search(chunk.text) else "act"
    return Extraction(actors=actors, witnesses=witnesses, place=place, statements=statements[: MAX_STATEMENTS],
                      kind=kind, text=trim_text(chunk.text), flags=flags, by_model=True), ""


def _listed(obj: Reply, field: str) -> list[object]:
    """A list the schema asks for in a reply (none when the reply has something else there)."""
    value = obj.get(field, [])
    return value if isinstance(value, list) else []


def pick_model_chunks(chunks: list[Chunk], cast: ProseMentions, max_chunks: int | None) -> set[int]:
    """Indexes of the chunks the model reads: the first chunks with people of each chapter, in turns."""
    by_chapter: dict[int, list[int]] = defaultdict(list)
    for index, chunk in enumerate(chunks):
        if any(kind == "person" for kind, _, _ in cast.scan(chunk.text)):
            by_chapter[chunk.chapter].append(index)
    if max_chunks is None:
        max_chunks = MODEL_CHUNKS_PER_CHAPTER * len(by_chapter)
    picked: list[int] = []
    turn = 0
    while len(picked) < max_chunks and any(turn < len(v) for v in by_chapter.values()):
        for chapter in sorted(by_chapter):
            if turn < len(by_chapter[chapter]) and len(picked) < max_chunks:
                picked.append(by_chapter[chapter][turn])
        turn += 1
    return set(picked)


def extract_chunks(chunks: list[Chunk], cast: ProseMentions, lm: LanguageModel | None, model_chunks: set[int], *,
                   seed: int = 0,
                   progress: ProgressCallback | None = None,
                   cancel: CancelToken = None) -> tuple[list[tuple[Chunk, Extraction]], int]:
    """(chunk, extraction) for every chunk that names a person, and how many chunks went to the model.

    The model reads the chunks in `model_chunks`; one it gets wrong goes to the fallback, flagged.
    """
    extractions: list[tuple[Chunk, Extraction]] = []
    model_calls = 0
    for index, chunk in enumerate(chunks):
        check_cancel(cancel)
        extraction: Extraction | None = None
        flags: list[str] = []
        if index in model_chunks and lm is not None:  # there are none without a model
            model_calls += 1
            extraction, reason = model_extract(chunk, cast, lm, seed=seed + index)
            if extraction is None:
                flags.append(f"{reason}; fallback used")
        if extraction is None:
            extraction = fallback_extract(chunk, cast)
        if extraction is not None:
            extractions.append((chunk, msgspec.structs.replace(extraction, flags=[*flags, *extraction.flags])))
        report(progress, index + 1, len(chunks), f"chapter {chunk.chapter}, chunk {chunk.index + 1}")
    return extractions, model_calls
