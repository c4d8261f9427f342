"""Continue plays the world embedded in the save: an edited world file is said, and the saved world played on."""

from __future__ import annotations

import pytest

from storyworld.world import load_world
from tui.app import make_app
from tui.screens.dialogs import Confirm
from tui.screens.home import HomeScreen
from tui.screens.play import PlayScreen
from tests.support.paths import TINY
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def test_continue_after_the_world_file_was_edited_offers_the_saved_world_and_plays_it(runtime, tmp_path):
    source = tmp_path / "keeper.toml"
    source.write_text(TINY.read_text("utf-8"), "utf-8")
    app = make_app(runtime=runtime, world=load_world(source), player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for("/say Who left the lamp dark?"), "enter")
        await settle(pilot)
    # the world file is edited: Tobin, whom the save knows, is gone from it
    source.write_text(source.read_text("utf-8").replace('"tobin"', '"tobias"'), "utf-8")
    app = make_app(runtime=runtime)
    async with piloted(app) as pilot:
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, Confirm), app.screen
        assert f"{source} has changed since this save" in dialog.note and "Keep playing the saved world?" in dialog.note
        await pilot.press("y")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.game is not None, app.screen
        assert play.game.session.round == 1 and "tobin" in play.game.world.agents
        await pilot.press(*keys_for("/say Tobin, what did you find?"), "enter")
        await settle(pilot)
        assert play.game.session.round == 2
