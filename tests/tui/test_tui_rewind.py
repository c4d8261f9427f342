"""Rewind and retry (issue 23): undo the last round from its autosave, memory included, and play it again
under another seed; both ask first, and the store and the transcript come back exactly."""

from __future__ import annotations

import msgspec
import pytest

from tui.app import make_app
from tui.screens.dialogs import Confirm
from tests.support.pilot import keys_for, piloted, settle, transcript_entries

pytestmark = pytest.mark.anyio


def memory_of(session) -> tuple:
    """The store's records, the game state and the round, as plain data (what an undo must restore)."""
    with session.reading() as sim:
        records = [msgspec.to_builtins(r) for r in sorted(sim.store.records(), key=lambda r: r.id)]
        return records, msgspec.to_builtins(sim.state), sim.state.round


async def test_undo_restores_the_store_and_the_transcript_exactly(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for("@tobin What do you carry?"), "enter")
        await settle(pilot)
        before = (memory_of(screen.game.session), transcript_entries(screen))
        await pilot.press(*keys_for("/move tavern"), "enter")
        await settle(pilot)
        assert screen.game.session.round == 2 and memory_of(screen.game.session) != before[0]
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)  # it would discard a round: asked first
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen and screen.game.session.round == 1
        assert not _diff(memory_of(screen.game.session), before[0]), _diff(memory_of(screen.game.session), before[0])[:10]
        assert transcript_entries(screen) == before[1]
        assert app.focused is screen.query_one("#action")
        # the undone round is gone from the disk too: the game loads as it is now, and no autosave brings it back
        from saves import autosave_folder, autosaves
        from storyworld.game.session import Session

        assert Session.load(screen.game.slot, None, embedder=runtime.embedder()).round == 1
        assert max(info.round for info in autosaves(autosave_folder(screen.game.slot))) == 1


async def test_undo_can_be_refused_and_nothing_changes(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.screen is screen  # nothing played yet: nothing to undo, nothing asked
        await pilot.press(*keys_for("/wait"), "enter")
        await settle(pilot)
        before = memory_of(screen.game.session)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)  # asked before anything is discarded
        await pilot.press("escape")
        await settle(pilot)
        assert memory_of(screen.game.session) == before


async def test_retry_plays_the_round_again_under_another_seed(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        session = screen.game.session
        seed = session.sim.settings.seed
        await pilot.press(*keys_for("@tobin What do you carry?"), "enter")
        await settle(pilot)
        lines = transcript_entries(screen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await settle(pilot)
        assert screen.game.session.round == 1 and session.sim.settings.seed != seed
        after = transcript_entries(screen)
        assert any(f"(again, draw 2, new seed {session.sim.settings.seed})" in line for line in after)  # says so
        assert after.count("MAREN (to Tobin) · you\nWhat do you carry?") == 1  # the round replaced, not doubled
        assert len(after) == len(lines)
        mine = [a for a in session.sim.state.actions if a.actor == "maren"]
        assert len(mine) == 1 and mine[0].text == "What do you carry?"  # the player did the same
        first_retry = session.sim.settings.seed
        await pilot.press("ctrl+r")  # again, as a newcomer does it: Retry is focused, Enter confirms it
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("enter")
        await settle(pilot)
        again = transcript_entries(screen)
        assert session.sim.state.draw == 2 and session.sim.settings.seed not in (seed, first_retry)
        assert any(f"(again, draw 3, new seed {session.sim.settings.seed})" in line for line in again)
        assert len(again) == len(lines) and not any("draw 2" in line for line in again)  # it replaced the first retry


def _diff(a, b, path="") -> list[str]:
    if type(a) is not type(b):
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        return [d for k in set(a) | set(b) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: len {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]
