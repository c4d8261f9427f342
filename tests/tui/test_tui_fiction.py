"""Issue 33: interactive fiction's words on the play screen: `i` lists what you carry, `g` plays your last line again."""

from __future__ import annotations

import pytest

from tui.app import make_app
from tui.widgets.transcript import Transcript
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def test_inventory_and_again_on_the_play_screen(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press("g", "enter")
        await settle(pilot)
        notes = [str(w.content) for w in screen.query_one(Transcript).query(".entry")]
        assert notes[-1] == "Nothing to do again yet: play a line first." and screen.game.session.round == 0
        await pilot.press("i", "enter")
        await settle(pilot)
        notes = [str(w.content) for w in screen.query_one(Transcript).query(".entry")]
        assert notes[-1] == "You carry nothing.", notes
        assert screen.game.session.round == 0  # no round passes
        await pilot.press(*keys_for("@tobin Who left the lamp dark?"), "enter")
        await settle(pilot)
        await pilot.press("g", "enter")
        await settle(pilot)
        assert screen.game.session.round == 2
        with screen.game.session.reading() as sim:
            mine = [a for a in sim.state.actions if a.actor == "maren"]
        assert [a.text for a in mine] == ["Who left the lamp dark?"] * 2 and mine[1].to == "tobin"
