"""Driving the app in pilot tests: run it at a fixed size, type, wait for its workers, read the transcript."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot
    from textual.screen import Screen

TERMINAL = (100, 30)  # the size most pilot tests run at: fixed, so layouts and snapshots do not drift


@asynccontextmanager
async def piloted(app: App, size: tuple[int, int] = TERMINAL, *, settled: bool = True) -> AsyncIterator[Pilot]:
    """Run `app` headless at `size`; with `settled`, wait for its first workers before handing over the pilot."""
    async with app.run_test(size=size) as pilot:
        if settled:
            await settle(pilot)
        yield pilot


def keys_for(text: str) -> list[str]:
    """Key names for pilot.press that type `text`."""
    names = {" ": "space", "/": "slash", "?": "question_mark", "!": "exclamation_mark", ",": "comma",
             ".": "full_stop", "'": "apostrophe", ":": "colon", "@": "at", "-": "minus"}
    return [names.get(ch, ch) for ch in text]


async def settle(pilot: Pilot) -> None:
    """Wait until every worker is done and the messages they posted are handled."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def pause_until(pilot: Pilot, condition: Callable[[], object], what: str, tries: int = 200) -> None:
    """Pause until `condition()` holds, a bounded number of times (each pause lets workers and threads run)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


def transcript_entries(screen: Screen) -> list[str]:
    """Each entry the play screen's transcript shows, as plain text."""
    return [str(w.content) for w in screen.query_one(Transcript).query(".entry")]


def transcript_text(screen: Screen) -> str:
    """Everything the play screen's transcript shows, as plain text."""
    return "\n".join(transcript_entries(screen))
