"""One full turn with the real bundled model (LLMMind on SmolLM2) and the real MiniLM embedder."""

from __future__ import annotations

import pytest

from tui.app import make_app
from tui.runtime import Runtime
from tui.widgets.records import RecordItem
from tests.support.pilot import keys_for, piloted, settle
from tests.support.runtime import FIXED_TIME

pytestmark = [pytest.mark.anyio, pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.timeout(900)]

LINE = "Silas, did you order the lamp dark?"


@pytest.fixture(scope="module")
def real_runtime_parts():
    """The bundled model behind LLMMind and the bundled embedder, loaded once for this module."""
    from memory.embedder import SentenceEmbedder
    from storyworld.llm import load_model
    from storyworld.minds import LLMMind

    return LLMMind(load_model(seed=0)), SentenceEmbedder()


async def test_a_turn_with_the_real_model(real_runtime_parts, tiny_world, tmp_path):
    mind, embedder = real_runtime_parts
    runtime = Runtime(load_mind=lambda: mind, load_embedder=lambda: embedder, clock=lambda: FIXED_TIME,
                      saves_root=tmp_path, awake="near")
    app = make_app(runtime=runtime, world=tiny_world, player="maren", start="confession")
    async with piloted(app) as pilot:
        screen = app.screen
        assert screen.game is not None, "the game did not load"
        state = screen.game.session.sim.state
        present = set(state.present(state.positions["maren"]))
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        assert screen.rounds_shown == 1, "the round did not reach the screen"
        cards = [item.card for item in screen.query(RecordItem)]
        speech = next(c for c in cards if c.kind == "own" and LINE in c.text)  # the player's own line, one card
        assert {agent for agent, _ in speech.owners} == present
        # every agent who was asked made a decision (a model action or a logged fallback), none crashed the round
        timing = screen.game.last_timing
        assert timing.decisions >= 1 and timing.completion_tokens > 0, timing  # the model was asked and answered
        # its decisions were valid actions: at most one in three may fall back (measured: 2 decisions, 0 fallbacks)
        assert timing.fallbacks <= timing.decisions // 3, timing
        assert "SmolLM2" in screen.game.model_name
