"""The TUI's side of playing together: host a world from the app, play a seat through the join screen."""

from __future__ import annotations

import asyncio

import pytest
from textual.screen import Screen
from textual.widgets import Input, RichLog, Static

from storyworld.host.client import Player
from storyworld.host.protocol import Resolved
from storyworld.world import load_world
from tui.app import StoryworldApp
from tui.runtime import Runtime
from tui.screens.host import HostScreen
from tui.screens.join import JoinScreen
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import COTERIE
from tests.support.pilot import pause_until, piloted


def transcript(screen: JoinScreen) -> str:
    return "\n".join(strip.text for strip in screen.query_one("#join-transcript", RichLog).lines)


@pytest.mark.anyio
async def test_host_a_world_from_the_tui_and_play_a_seat_in_it(tmp_path):
    runtime = Runtime(load_mind=ScriptedMind, load_embedder=HashEmbedder, saves_root=tmp_path / "saves")
    screen = HostScreen(runtime, world=load_world(COTERIE))
    app = StoryworldApp(runtime, lambda app: Screen())
    async with piloted(app, (120, 40), settled=False) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        screen.query_one("#host-port", Input).value = "0"  # a free port
        await pilot.click("#host-start")
        await pause_until(pilot, lambda: screen.hosting is not None, "the host to start")
        server = screen.hosting.server
        codes = screen.query_one("#host-codes", Static).render().plain
        assert all(seat.code in codes for seat in server.session.seats) and "this computer only" in codes
        await pilot.click("#host-play")  # the host plays the first seat (Ansel) itself
        await pause_until(pilot, lambda: isinstance(app.screen, JoinScreen) and "ansel" in server.connections,
                          "the join screen to take a seat")
        join = app.screen
        bea = Player(screen.hosting.url, server.session.seats[1].code)
        await bea.join()
        join.query_one("#join-line", Input).value = "Who has the salt?"
        await pilot.press("enter")
        await pause_until(pilot, lambda: "ansel" in server.pending, "the line to reach the host")
        await bea.send_line("Not I.")
        while not isinstance(await bea.receive(10), Resolved):
            pass
        await pause_until(pilot, lambda: "Bea: Not I." in transcript(join), "the round on the join screen")
        assert "Ansel: Who has the salt?" in transcript(join)
        await bea.close()
        await pilot.press("escape")  # back to the host's screen; the seat waits for its code
        await pause_until(pilot, lambda: app.screen is screen and "ansel" not in server.connections, "the seat let go")
        await pilot.click("#host-stop")
        await pause_until(pilot, lambda: screen.hosting is None, "the host to stop")
    assert any(p.name.startswith("coterie-hosted") for p in (tmp_path / "saves").iterdir())  # it was saved
