"""Shared pieces of the authoring pipelines: drafts, progress, cancel, ids and text trimming."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from typing import Union

import msgspec

from storyworld.errors import Cancelled as AuthoringCancelled  # the author cancelled the pipeline (one Cancelled)
from storyworld.world.lang import english
from storyworld.world.schema import WorldFile

# progress(done, total, message): called by the pipelines after each unit of work.
ProgressCallback = Callable[[int, int, str], None]
# A threading.Event (set = cancel) or a callable returning True to cancel.
CancelToken = Union[threading.Event, Callable[[], bool], None]

MAX_EVENT_TEXT = 600  # characters; longer speeches are cut at a word boundary


class Draft(msgspec.Struct, kw_only=True):
    """A drafted world plus what the author should know about how it was made."""

    world: WorldFile
    kind: str  # "play" | "prose"
    seconds: float = 0.0
    model_calls: int = 0
    chunks: int = 0
    flag_counts: dict[str, int] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)

    @property
    def flagged(self) -> int:
        """How many events carry at least one flag."""
        return sum(1 for event in self.world.event if event.flags)


def is_cancelled(cancel: CancelToken) -> bool:
    """Whether the cancel token asks to stop."""
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


def check_cancel(cancel: CancelToken) -> None:
    """Raise AuthoringCancelled when the token asks to stop."""
    if is_cancelled(cancel):
        raise AuthoringCancelled("authoring cancelled")


def report(progress: ProgressCallback | None, done: int, total: int, message: str) -> None:
    """Call the progress callback if there is one."""
    if progress is not None:
        progress(done, total, message)


def fold(text: str) -> str:
    """Lower-case ASCII-ish form for matching: accents dropped, curly quotes straightened."""
    text = text.replace("’", "'").replace("‘", "'")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def slugify(text: str, fallback: str = "item") -> str:
    """A stable id from a name: lower case, ASCII, words joined by dashes."""
    folded = fold(text)
    folded = re.sub(r"'s\b", "", folded)  # "Polonius's house" -> "polonius house"
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    return slug or fallback


def unique_id(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`... whichever is not taken yet; records it as taken."""
    candidate = base
    n = 2
    while candidate in taken:
        candidate = f"{base}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


def trim_text(text: str, limit: int = MAX_EVENT_TEXT) -> str:
    """Collapse whitespace and cut to `limit` characters at a word boundary, marking the cut."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def is_stage_business(direction: str) -> bool:
    """Whether a stage direction only stages the scene ("Enter Hamlet", "Flourish", "Music within"): it opens
    with a word of the English pack's stage business. Its event is then `staging`, not story."""
    first = re.search(r"[A-Za-z][A-Za-z’'\-]*", direction)
    return first is not None and first.group(0).lower() in english().stage_business
