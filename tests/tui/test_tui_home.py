"""Home: worlds and saves listed; new game (world → character → start), continue, inspect."""

from __future__ import annotations

import pytest
from tui_helpers import keys_for, settle

from tui.app import make_app
from tui.screens.home import HomeScreen
from tui.screens.inspector import InspectorScreen
from tui.screens.new_game import NewGameScreen
from tui.screens.play import PlayScreen

pytestmark = pytest.mark.anyio


async def test_home_lists_worlds_and_starts_a_game_by_keyboard(runtime):
    app = make_app(runtime=runtime)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert [w.cells()[:4] for w in home.worlds] == [("The Keeper's Letter", "bundled", "5", "2")]
        assert home.worlds[0].playable == (("maren", "Maren"), ("tobin", "Tobin"), ("ada", "Ada"), ("silas", "Silas"))
        assert home.saves == []
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        await pilot.press("enter")  # world
        await pilot.press("down", "enter")  # character: Tobin
        await pilot.press("down")  # start point: confession
        assert "After Silas's confession" in str(dialog.query_one("#choice-note").content)
        await pilot.press("enter")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen)
        assert play.game.player == "tobin" and play.game.session.sim.state.start_id == "confession"
        assert play.game.session.round == 6


async def test_continue_and_inspect_a_save_from_home(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press(*keys_for("/say Who left the lamp dark?"), "enter")
        await settle(pilot)
    app = make_app(runtime=runtime)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        home = app.screen
        assert [r.cells() for r in home.saves] == [
            ("tiny-maren", "The Keeper's Letter", "Maren", "1", "2024-03-01 20:15")]
        await pilot.press("i")
        await settle(pilot)
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        assert inspector.view is not None and len(inspector.view.rows) > 10
        await pilot.press("escape")
        await pilot.press("c")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.game.session.round == 1


async def test_play_without_a_character_opens_the_new_game_dialog_on_that_world(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        assert [w.id for w in dialog.worlds] == ["tiny"]
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
