"""The story and the screen in step, as the play screen shows them (issue 23): the Now line is worked out
again after every round and move, and a line says so when the player is led somewhere."""

from __future__ import annotations

import pytest

from storyworld.minds.guide import happening
from tui.app import make_app
from tui.widgets.transcript import Transcript
from tests.support.pilot import keys_for, piloted, settle
from tests.support.runtime import scripted_runtime

pytestmark = pytest.mark.anyio


def now_line(screen) -> str:
    return str(screen.query_one("#happening").content)


async def test_the_now_line_is_worked_out_again_after_a_move(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        before = now_line(screen)
        await pilot.press(*keys_for("/move tavern"), "enter")
        await settle(pilot)
        sim = screen.game.session.sim
        assert sim.state.positions["maren"] == "tavern"
        expected = happening(tiny_world, sim.state, "maren")
        assert now_line(screen) == (f"Now: {expected}" if expected else "")
        assert now_line(screen) != before


async def test_a_line_says_so_when_the_player_is_led(tmp_path, tiny_world):
    runtime = scripted_runtime(tmp_path / "saves", {"tobin": "lead:maren:tavern"})
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for("@tobin Where to?"), "enter")  # talking to the leader: free to go
        await settle(pilot)
        assert screen.game.session.sim.state.positions["maren"] == "tavern"
        lines = [str(w.content) for w in screen.query_one(Transcript).query(".entry")]
        assert "(You go with Tobin to the Gull tavern.)" in lines, "\n".join(lines)
