"""The authoring pipeline: read a source file, tell a play from prose, draft a world, validate it."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from storyworld.authoring.common import CancelToken, Draft, ProgressCallback, report, slugify
from storyworld.authoring.play import looks_like_play, parse_play
from storyworld.authoring.prose import author_prose
from storyworld.errors import UserError
from storyworld.world.lang import NativeName

if TYPE_CHECKING:
    from storyworld.llm.base import LanguageModel
    from storyworld.world.schema import WorldFile

log = logging.getLogger("storyworld.authoring")

SourceKind = Literal["play", "prose", "fountain", "card"]
CARD_SUFFIXES = {".png", ".json", ".charx"}
FOUNTAIN_SUFFIXES = {".fountain", ".spmd"}


def read_source(source: str | os.PathLike[str]) -> str:
    """The text of a source file (UTF-8, BOM tolerated); UserError naming the file when it cannot be read."""
    path = Path(source)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a text file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def detect_kind(text: str, source: str | os.PathLike[str] | None = None) -> SourceKind:
    """card (PNG or JSON card), fountain (file suffix, or sluglines and cues), play (scene and speech headings), else prose."""
    from storyworld.authoring.fountain import looks_like_fountain

    suffix = Path(source).suffix.lower() if source is not None else ""
    if suffix in CARD_SUFFIXES or text.lstrip().startswith("{"):
        return "card"
    if suffix in FOUNTAIN_SUFFIXES:
        return "fountain"
    if looks_like_play(text):
        return "play"
    if looks_like_fountain(text):
        return "fountain"
    return "prose"


def detect_file_kind(source: str | os.PathLike[str]) -> SourceKind:
    """The kind of a source file, reading it only as far as needed (a PNG card is not text)."""
    path = Path(source)
    if path.suffix.lower() in CARD_SUFFIXES:
        return "card"
    return detect_kind(read_source(path), path)


def world_id_for(source: str | os.PathLike[str]) -> str:
    """A world id from a file name: `three_kingdoms_en_ch01-10.txt` -> `three-kingdoms-en-ch01-10`."""
    return slugify(Path(source).stem, "authored")


def author_source(
    source: str | os.PathLike[str],
    *,
    kind: SourceKind | None = None,
    world_id: str | None = None,
    title: str | None = None,
    lm: LanguageModel | None = None,
    model_path: str | None = None,
    server_url: str | None = None,
    use_model: bool = True,
    max_chunks: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken = None,
    seed: int = 0,
    into: WorldFile | None = None,
    names: Sequence[NativeName] = (),
) -> Draft:
    """Draft a world from a source file; the draft passes `storyworld check` (WorldError otherwise).

    Plays never use a model. For prose, `lm` is used when given; else, when `use_model` and
    `max_chunks != 0`, the model named by `model_path`/`server_url` (default: the bundled GGUF) is
    loaded. A missing bundled model downgrades to the deterministic fallback with a note; a model
    the user named explicitly that cannot be loaded is an error. `names`: for Chinese prose, people and places
    known by their native names besides the language pack's (`storyworld author --names FILE`).
    """
    from storyworld.world import world_from_file

    started = time.perf_counter()
    if kind in (None, "auto"):
        kind = detect_file_kind(source)
    if kind == "card":
        from storyworld.authoring.cards import import_card, read_card

        world = import_card(read_card(source), into, world_id=world_id)
        world_from_file(world, name=str(source))
        card_agent = world.agent[-1]
        return Draft(world=world, kind="card", seconds=time.perf_counter() - started,
                     notes=[f"card: {card_agent.name} ({card_agent.id}), "
                            f"{sum(1 for e in world.event if e.id.startswith('card-' + card_agent.id))} canon lines and facts"])
    text = read_source(source)
    world_id = world_id or world_id_for(source)
    notes: list[str] = []
    if kind == "fountain":
        from storyworld.authoring.fountain import author_fountain

        world = author_fountain(text, world_id=world_id, title=title, progress=progress, cancel=cancel)
        if not world.agent:
            raise UserError(f"{source}: no character cues with dialogue found: is this a Fountain screenplay?")
        notes.append(f"fountain screenplay, {len(world.place)} places, {len(world.agent)} characters")
        draft = Draft(world=world, kind="fountain", notes=notes)
    elif kind == "play":
        parsed = parse_play(text, world_id=world_id, title=title, progress=progress, cancel=cancel)
        world = parsed.world
        notes.append(f"{parsed.layout} layout, {len(parsed.scenes)} scenes, "
                     f"{len(world.agent)} speaking or entering characters")
        figures = parsed.figures()
        if figures["precision"] is not None:
            notes.append(f"cast against the dramatis personae: precision {figures['precision']}, "
                         f"principals found {figures['principal_recall']}; places {figures['places']}, "
                         f"starts {figures['starts']} for {figures['acts']} acts, objects {figures['objects']}")
        notes.extend(parsed.warnings[:20])
        draft = Draft(world=world, kind="play", chunks=len(parsed.scenes), notes=notes)
    else:
        model = lm
        if model is None and use_model and max_chunks != 0:
            report(progress, 0, 1, "loading the model")
            model = _load_model(model_path, server_url, seed, notes)
        draft = author_prose(text, world_id=world_id, title=title, lm=model, max_model_chunks=max_chunks,
                             progress=progress, cancel=cancel, seed=seed, names=names)
        draft.notes = [*notes, *draft.notes]
        if model is not None and lm is None:
            model.close()
    world_from_file(draft.world, name=str(source))  # the contract: a draft always passes check
    draft.seconds = time.perf_counter() - started
    draft.flag_counts = _flag_counts(draft)
    return draft


def _load_model(model_path: str | None, server_url: str | None, seed: int, notes: list[str]) -> LanguageModel | None:
    from storyworld.llm import ModelError, load_model

    try:
        return load_model(model_path=model_path, server_url=server_url, seed=seed)
    except ModelError as exc:
        if model_path is not None or server_url is not None:
            raise
        notes.append(f"model unavailable ({exc}); deterministic fallback only")
        log.warning("authoring without a model: %s", exc)
        return None


def _flag_counts(draft: Draft) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in draft.world.event:
        for flag in event.flags:
            counts[flag] = counts.get(flag, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
