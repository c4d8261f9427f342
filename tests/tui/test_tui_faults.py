"""Faults on the play screen: a model that fails is shown with what to do, a fallback is said, a busy save refused."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from storyworld.llm import ModelError
from tui.app import make_app
from tui.game import LoadGame
from tui.screens.dialogs import ModelDown
from tui.screens.play import PlayScreen
from tests.support.paths import REPO
from tests.support.pilot import keys_for, piloted, settle, transcript_text
from tests.support.runtime import ScriptedMind

pytestmark = pytest.mark.anyio
LINE = "Who left the lamp dark?"


class FlakyMind(ScriptedMind):
    """The scripted mind behind a model that is down until `up` is set; `garble` agents fall back."""

    def __init__(self) -> None:
        super().__init__()
        self.up = False
        self.garble: set[str] = set()

    def decide(self, world, context):
        if not self.up:
            raise ModelError("cannot reach the model server at http://127.0.0.1:9: connection refused")
        decision = super().decide(world, context)
        if context.agent in self.garble:
            import msgspec

            decision = msgspec.structs.replace(decision, fallback=True, reason="reply unusable")
        return decision


async def test_a_failed_model_is_a_dialog_with_retry_and_the_world_stays_as_it_was(runtime, tiny_world):
    mind = FlakyMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        sim = screen.game.session.sim
        before = (sim.state.round, len(sim.state.events), len(sim.store.records()))
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ModelDown)
        assert "connection refused" in dialog.reason and "not played" in dialog.reason
        assert (sim.state.round, len(sim.state.events), len(sim.store.records())) == before
        mind.up = True  # the server is back
        await pilot.press("r")
        await settle(pilot)
        assert app.screen is screen and screen.rounds_shown == 1 and sim.state.round == before[0] + 1
        assert LINE in transcript_text(screen)


async def test_escape_on_the_dialog_gives_the_line_back(runtime, tiny_world):
    mind = FlakyMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        assert isinstance(app.screen, ModelDown)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and screen.query_one("#action").value == f"/say {LINE}"
        assert "not played" in str(screen.query_one("#progress").content)


async def test_q_on_the_dialog_saves_and_quits(runtime, tiny_world):
    mind = FlakyMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        slot = app.screen.game.slot
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
    assert (slot / "manifest.json").exists()
    assert app.return_code == 0


async def test_a_decision_that_fell_back_is_said_on_screen(runtime, tiny_world):
    mind = FlakyMind()
    mind.up = True
    mind.garble = {"tobin"}
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        assert screen.rounds_shown == 1
        assert "Tobin fell back" in str(screen.query_one("#progress").content)
        assert "Fallback this round: Tobin" in transcript_text(screen)


async def test_a_save_another_process_plays_is_refused_in_one_line(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        slot = app.screen.game.slot
    code = ("import sys, time; from saves import lock_save; lock_save(sys.argv[1]); print('held', flush=True); "
            "time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, str(slot)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert child.stdout.readline().strip() == "held"
        app = make_app(runtime=runtime, world=tiny_world, player="maren")
        async with piloted(app) as pilot:
            app.screen.restart(LoadGame(slot))
            await settle(pilot)
            reason = str(app.screen.query_one("#reason").content)
            assert f"{slot}: is in use by another storyworld (pid {child.pid}" in reason
    finally:
        child.kill()
        child.wait()


async def test_a_retry_whose_replay_fails_says_the_round_was_undone(runtime, tiny_world):
    """Retry undoes the round, then the model fails on the replay: the screen says the round is undone (it is),
    not that the world is as it was with the discarded round still shown."""
    from tui.screens.dialogs import Confirm

    mind = FlakyMind()
    mind.up = True
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        assert screen.game.session.round == 1 and LINE in transcript_text(screen)
        mind.up = False  # the server goes down before the replay
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        await settle(pilot)
        assert screen.game.session.round == 0 and LINE not in transcript_text(screen)
        assert "Round undone; its replay failed" in str(screen.query_one("#progress").content)
