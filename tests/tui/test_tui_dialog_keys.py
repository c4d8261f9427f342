"""Issue 33: dialogs as in other terminal apps (the asked action focused, ← → and Tab between buttons, Enter
confirms the focused one, Esc cancels) and focus back in the action bar after every panel and modal."""

from __future__ import annotations

import pytest

from tui.app import make_app
from tui.screens.dialogs import Confirm
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def played(pilot) -> None:
    await settle(pilot)
    await pilot.press(*keys_for("/wait"), "enter")
    await settle(pilot)


async def test_enter_in_the_undo_dialog_undoes(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        await played(pilot)
        screen = app.screen
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert isinstance(app.screen, Confirm) and app.focused.id == "yes" and str(app.focused.label) == "Undo"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and screen.game.session.round == 0  # Enter did what Ctrl+Z asked
        assert app.focused is screen.query_one("#action")


async def test_arrows_and_tab_move_between_the_buttons_and_enter_presses_the_focused(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        await played(pilot)
        screen = app.screen
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.focused.id == "yes"
        await pilot.press("right")
        assert app.focused.id == "cancel"
        await pilot.press("left")
        assert app.focused.id == "yes"
        await pilot.press("tab")
        assert app.focused.id == "cancel"
        await pilot.press("right")  # wraps
        assert app.focused.id == "yes"
        await pilot.press("left", "enter")  # Cancel, pressed
        await settle(pilot)
        assert app.screen is screen and screen.game.session.round == 1  # nothing was discarded
        assert app.focused is screen.query_one("#action")
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and screen.game.session.round == 1
        assert app.focused is screen.query_one("#action")


@pytest.mark.parametrize("keys", [("f2", "escape"), ("f1", "escape"), ("f3",), ("f8",), ("f8", "f8")])
async def test_focus_returns_to_the_action_bar_after_every_panel_and_modal(runtime, tiny_world, keys):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        await played(pilot)
        screen = app.screen
        screen.query_one("#transcript").focus()  # wherever the keys were
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        assert app.screen is screen and app.focused is screen.query_one("#action"), (keys, app.focused)
