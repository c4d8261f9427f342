"""Home: worlds and saves listed; new game (world → character → start), continue, inspect."""

from __future__ import annotations

import pytest

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tui.app import make_app
from tui.screens.home import HomeScreen
from tui.screens.inspector import InspectorScreen
from tui.screens.new_game import NewGameScreen
from tui.screens.play import PlayScreen
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def test_home_lists_worlds_and_starts_a_game_by_keyboard(runtime):
    app = make_app(runtime=runtime)
    async with piloted(app, (80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert [w.cells()[:4] for w in home.worlds] == [("The Keeper's Letter", "bundled", "5", "2")]
        assert home.worlds[0].playable == (("maren", "Maren"), ("tobin", "Tobin"), ("ada", "Ada"), ("silas", "Silas"))
        assert home.saves == []
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        await pilot.press("tab", "down")  # Tab to the characters: Tobin
        await pilot.press("right", "down")  # → to the start points: confession
        assert "After Silas's confession" in str(dialog.query_one("#choice-note").content)
        await pilot.press("enter")  # Enter starts with what is highlighted
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen)
        assert play.game.player == "tobin" and play.game.session.sim.state.start_id == "confession"
        assert play.game.session.round == 6


async def test_enter_in_the_dialog_starts_the_highlighted_defaults_and_the_footer_shows_its_keys(runtime):
    app = make_app(runtime=runtime)
    async with piloted(app) as pilot:
        await pilot.press("enter")  # the highlighted world: the new-game dialog
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        assert dialog.query(Footer)
        await pilot.pause()
        shown = {k.description for k in dialog.query(FooterKey)}  # what the dialog's own footer says
        assert {"Start", "Next list", "Cancel"} <= shown and "New game" not in shown
        await pilot.press("enter")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.game is not None
        assert play.game.player == "maren" and play.game.session.sim.state.start_id == "arrival"


async def test_a_click_on_a_character_only_highlights_it(runtime):
    app = make_app(runtime=runtime)
    async with piloted(app, (120, 36)) as pilot:
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        characters = dialog.query_one("#pick-character")
        await pilot.click(characters, offset=(3, 9))  # below the first character's lines
        await settle(pilot)
        assert app.screen is dialog and characters.highlighted not in (None, 0)


async def test_continue_and_inspect_a_save_from_home(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for("/say Who left the lamp dark?"), "enter")
        await settle(pilot)
    app = make_app(runtime=runtime)
    async with piloted(app) as pilot:
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
    async with piloted(app, (80, 24)) as pilot:
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        assert [w.id for w in dialog.worlds] == ["tiny"]
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)
