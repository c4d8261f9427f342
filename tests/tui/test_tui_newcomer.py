"""A newcomer's first minutes with a scripted mind: the dialog's order and default, the welcome, the hint."""

from __future__ import annotations

import pytest

from storyworld.minds.guide import cast_lines, heart_of
from tui.app import make_app
from tui.screens.new_game import NewGameScreen
from tui.screens.play import PlayScreen
from tui.screens.welcome import WelcomeScreen, welcomed
from tui.widgets.transcript import Transcript
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


def test_the_heart_of_a_start_comes_first_with_where_and_what_next(tiny_world):
    lines = cast_lines(tiny_world, "arrival")
    assert lines[0].agent == heart_of(tiny_world, "arrival") == "maren"  # the new keeper: every early beat is hers
    assert [c.score for c in lines] == sorted((c.score for c in lines), reverse=True)
    assert lines[0].line.startswith("The harbour, with ") and "Next: Tobin tells Maren" in lines[0].line
    ada = next(c.line for c in lines if c.agent == "ada")
    assert ada.startswith("The Gull tavern, alone.") and "Next: Maren asks the tavern" in ada


async def test_the_dialog_preselects_the_heart_and_reorders_for_another_start(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world)
    async with piloted(app, (120, 36)) as pilot:
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        assert dialog._chosen("#pick-character") == "maren"
        starts = dialog.query_one("#pick-start")
        starts.highlighted = [o.id for o in starts._options].index("confession")
        await settle(pilot)
        order = [o.id for o in dialog.query_one("#pick-character")._options]
        assert order == [c.agent for c in cast_lines(tiny_world, "confession")]
        assert dialog._chosen("#pick-character") == "maren"  # the person's choice is kept across starts


async def test_the_welcome_shows_once_per_home(runtime, tiny_world, storyworld_home):
    (storyworld_home / "welcomed").unlink()
    for first in (True, False):
        app = make_app(runtime=runtime, world=tiny_world, player="maren")
        async with piloted(app) as pilot:
            assert isinstance(app.screen, WelcomeScreen) is first
            if first:
                await pilot.press("escape")
                await settle(pilot)
            assert isinstance(app.screen, PlayScreen)
    assert welcomed()


async def test_a_player_who_only_waits_is_told_where_the_story_is(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="ada")  # Ada's tavern is far from the opening
    async with piloted(app) as pilot:
        for _ in range(2):
            await pilot.press(*keys_for("/wait"), "enter")
            await settle(pilot)
        notes = [str(w.content) for w in app.screen.query_one(Transcript).query(".-hint")]
        assert notes and notes[-1].startswith(("Hint: The story is", "Hint: You are wanted"))
        assert "harbour" in notes[-1].lower() or "tavern" in notes[-1].lower()
