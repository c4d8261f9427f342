"""The inspector opened from home is a writer like any other: its unmerge is saved under the save's lock, and
beside a live game (another process holds the lock) it opens read-only and says the unmerge is not saved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from storyworld.game import session
from tui.app import make_app
from tui.screens.inspector import InspectorScreen
from tests.support.paths import REPO
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def played_save(runtime, tiny_world) -> Path:
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for("/say Who left the lamp dark?"), "enter")
        await settle(pilot)
        slot = app.screen.game.slot
    return slot


async def unmerge_from_home(runtime) -> tuple[int, str, list[str]]:
    """Home → inspect the save → unmerge the latest merger of the line said → back home; (record, owner, notes)."""
    from tui.screens.dialogs import Confirm, PickOne

    app = make_app(runtime=runtime)
    notes: list[str] = []
    async with piloted(app) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        for screen in app.screen_stack:
            screen.notify = app.notify  # type: ignore[method-assign]
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        speech = next(r for r in screen.store.records() if "Who left the lamp dark?" in r.text and r.merge_log)
        owner = speech.merge_log[-1].owner
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(speech.id)))
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, PickOne)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
    return speech.id, owner, notes


async def test_an_unmerge_in_the_inspector_from_home_is_saved_under_the_lock(runtime, tiny_world):
    slot = await played_save(runtime, tiny_world)
    record, owner, notes = await unmerge_from_home(runtime)
    saved = session.load_simulation(slot, None, embedder=runtime.embedder()).store
    assert owner not in saved.get(record).owners, notes
    assert any("Saved the unmerge" in n for n in notes), notes


async def test_beside_a_live_game_the_inspector_is_read_only_and_says_the_unmerge_is_not_saved(runtime, tiny_world):
    slot = await played_save(runtime, tiny_world)
    before = (slot / "manifest.json").read_bytes()
    code = ("import sys, time; from saves import lock_save; lock = lock_save(sys.argv[1]); "
            "print('held', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, str(slot)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        _, _, notes = await unmerge_from_home(runtime)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert (slot / "manifest.json").read_bytes() == before
    assert any("opened read-only" in n for n in notes) and any("was not saved" in n for n in notes), notes
