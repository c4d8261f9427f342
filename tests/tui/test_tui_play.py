"""Playing a turn in the tiny world with a scripted mind: speech, the Who-knows panel, cancel, recall."""

from __future__ import annotations

import asyncio
import threading

import pytest

from storyworld.kernel.actions import Say
from tui.app import make_app
from tui.screens.play import PlayScreen
from tui.widgets.records import RecordItem
from tests.support.pilot import keys_for, piloted, settle, transcript_text
from tests.support.runtime import ScriptedMind

pytestmark = pytest.mark.anyio
LINE = "Who left the lamp dark?"


async def test_full_turn_lists_the_new_record_with_every_present_agent(runtime, tiny_world):
    """New game, /say, the round resolves, Who knows lists the speech held by everyone on the harbour."""
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        assert isinstance(screen, PlayScreen) and screen.game is not None
        state = screen.game.session.sim.state
        present = set(state.present(state.positions["maren"]))
        assert present == {"maren", "silas", "tobin"}

        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)

        assert screen.rounds_shown == 1
        assert state.round == 1
        cards = [item.card for item in screen.query(RecordItem)]
        speech = next(c for c in cards if c.kind == "own" and LINE in c.text)
        assert speech.text == f"You said: “{LINE}”" and speech.fresh and speech.how == "your own words"
        assert {a for a, _ in speech.owners} == present
        heard = next(c for c in cards if c.kind == "line" and "Tobin" in c.text)
        assert heard.text == "Tobin: “I carry a letter from the old keeper.”" and heard.how == "you heard it"
        # your own words are held as surely as a witness holds them, never below those who heard them
        assert speech.confidence >= heard.confidence >= 0.9
        # one card per record, and never the same words twice (a line is heard, never a claim of its own)
        assert len({c.id for c in cards}) == len(cards) == len({c.text for c in cards})
        assert all(c.fresh for c in cards[:2]) and [c.fresh for c in cards] == sorted((c.fresh for c in cards),
                                                                                       reverse=True)
        # what Tobin said (scripted) reached the transcript too, with its speaker
        text = transcript_text(screen)
        assert LINE in text and "MAREN · you" in text
        assert "TOBIN" in text and "I carry a letter from the old keeper." in text
        # the scene changed nothing about where anyone is; the status line says round 1
        assert "round 1" in str(screen.query_one("#status").content)


async def test_enter_on_a_card_opens_it_in_the_inspector(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        await settle(pilot)
        screen = app.screen
        first = screen.query(RecordItem).first().card
        screen.query_one("#who-knows").focus()
        await pilot.press("enter")
        await settle(pilot)
        from tui.screens.inspector import InspectorScreen

        assert isinstance(app.screen, InspectorScreen)
        detail = str(app.screen.query_one("#detail").content)
        assert f"#{first.id} " in detail and "Owners (3)" in detail
        await pilot.press("escape")
        assert app.screen is screen


async def test_plain_text_is_speech_and_problems_keep_the_line(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for("/move chapel"), "enter")
        await settle(pilot)
        assert screen.rounds_shown == 0
        assert "no way to 'chapel'" in transcript_text(screen)
        assert screen.query_one("#action").value == "/move chapel"  # kept, so it can be fixed
        screen.query_one("#action").value = ""
        await pilot.press(*keys_for("Good morning."), "enter")
        await settle(pilot)
        assert screen.rounds_shown == 1
        assert any(isinstance(a, Say) and a.text == "Good morning." for a in screen.game.session.sim.state.actions)


async def test_tab_completes_and_up_recalls_the_last_line(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        bar = app.screen.query_one("#action")
        await pilot.press(*keys_for("/move ta"))
        await settle(pilot)
        await pilot.press("tab")
        assert bar.value == "/move tavern "
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.game.session.sim.state.positions["maren"] == "tavern"
        assert "THE GULL TAVERN" in transcript_text(app.screen)
        await pilot.press("up")
        assert bar.value == "/move tavern "


class GatedMind(ScriptedMind):
    """A scripted mind whose first decision waits for the test to let it go."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def decide(self, world, context):
        self.entered.set()
        self.release.wait(10)
        return super().decide(world, context)


async def test_escape_cancels_the_round_and_leaves_the_world_as_it_was(runtime, tiny_world):
    mind = GatedMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        state = screen.game.session.sim.state
        before = (state.round, len(state.events), len(screen.game.session.store.records()))
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        assert await asyncio.to_thread(mind.entered.wait, 10)
        await pilot.pause()
        assert screen.busy and "deciding" in str(screen.query_one("#progress").content)
        await pilot.press("escape")
        mind.release.set()
        await settle(pilot)
        assert not screen.busy and screen.rounds_shown == 0
        assert (state.round, len(state.events), len(screen.game.session.store.records())) == before
        assert "cancelled" in str(screen.query_one("#progress").content)
        assert screen.query_one("#action").value == f"/say {LINE}"  # given back to edit
        assert len(mind.calls) == 1  # the agents after the cancel were never asked


async def test_recall_shows_the_players_memory_without_a_round(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for("/recall supply boat"), "enter")
        await settle(pilot)
        screen = app.screen
        assert screen.rounds_shown == 0 and screen.game.session.round == 0
        cards = [item.card for item in screen.query(RecordItem)]
        assert cards and all("maren" in {a for a, _ in c.owners} for c in cards)
        assert any("supply boat" in c.text for c in cards)
        assert cards[0].reason == "recalled"


async def test_side_panel_tabs_show_cast_map_and_goals(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, (80, 24)) as pilot:
        screen = app.screen
        cast = str(screen.query_one("#cast").content)
        assert cast.index("Maren (you)") < cast.index("Silas") < cast.index("Elsewhere") < cast.index("Ada")
        places = str(screen.query_one("#map").content)
        assert "→ tavern" in places and "→ lighthouse" in places and "▶ The harbour" in places
        goals = str(screen.query_one("#goals").content)
        # the story's next beats for Maren first (the canon as suggestions), then her own goal stack
        assert goals.startswith("In the story") and "Your goals" in goals
        assert "Tobin tells Maren he carries a letter" in goals
        assert goals.index("Tobin tells Maren") < goals.index("▶ ")
        await pilot.press("f8")
        assert not screen.query_one("#side").display


async def test_brackets_in_what_is_typed_are_shown_not_parsed(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        await pilot.press(*keys_for("/move [bold]nowhere"), "enter")
        await pilot.pause()
        assert "'[bold]nowhere'" in transcript_text(app.screen)
        app.screen._progress("reason [Errno 2] [/]")
        await pilot.pause()
        assert str(app.screen.query_one("#progress").content) == "reason [Errno 2] [/]"


class HeldMind(ScriptedMind):
    """A scripted mind whose every decision waits until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.deciding = threading.Event()
        self.gate = threading.Event()

    def decide(self, world, context):
        self.deciding.set()
        self.gate.wait(30)
        return super().decide(world, context)


async def test_enter_during_a_round_is_refused_at_once_while_the_round_runs_on(runtime, tiny_world):
    """Enter mid-round: the screen answers straight away (no waiting on the round), the line stays, one round runs."""
    mind = HeldMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        assert await asyncio.to_thread(mind.deciding.wait, 10)
        # Only for a screen that is stuck: open the gate after a while so a failing run ends instead of hanging
        # (the event loop cannot time itself out while a handler blocks it). A working screen never reaches it.
        watchdog = threading.Timer(5.0, mind.gate.set)
        watchdog.start()
        try:
            await pilot.press(*keys_for("Good morning."), "enter")
            await pilot.pause()
            assert not mind.gate.is_set(), "Enter during the round blocked the screen until the round ended"
            assert screen.busy and screen.rounds_shown == 0
            assert any("already in progress" in n.message for n in app._notifications)
            assert screen.query_one("#action").value == "Good morning."  # kept for when the round is over
        finally:
            watchdog.cancel()
            mind.gate.set()
        await settle(pilot)
        assert not screen.busy and screen.rounds_shown == 1
        assert screen.query_one("#action").value == "Good morning."
        said = [c for c in (item.card for item in screen.query(RecordItem)) if c.kind in ("own", "line")]
        assert any(LINE in c.text for c in said) and not any("Good morning." in c.text for c in said)


async def test_a_dispute_between_owners_reads_as_words_not_fragments(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        store = app.screen.game.session.store
        store.remember("maren", "The lamp in the lighthouse was lit.", event_id="x1", round=0)
        store.remember("tobin", "The lamp in the lighthouse was not lit.", event_id="x2", round=0)
        await pilot.press(*keys_for("/recall lamp in the lighthouse lit"), "enter")
        await settle(pilot)
        card = next(item.card for item in app.screen.query(RecordItem) if item.card.disputes)
        assert card.disputes == ("You believe “The lamp in the lighthouse was lit”; "
                                 "Tobin says “The lamp in the lighthouse was not lit”",)


async def test_the_progress_line_marks_each_character_as_its_decision_lands(runtime, tiny_world):
    """While a round runs the player sees who has decided, who is thinking and who waits; the bar counts."""
    from textual.widgets import ProgressBar

    mind = GatedMind()
    runtime.load_mind = lambda: mind
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, (120, 30)) as pilot:
        screen = app.screen
        await pilot.press(*keys_for(f"/say {LINE}"), "enter")
        assert await asyncio.to_thread(mind.entered.wait, 10)
        await pilot.pause()
        text = str(screen.query_one("#progress").content)
        world = screen.game.world
        first, *rest = [world.agents[a].name for a in screen.game.session.sim.awake_agents() if a != "maren"]
        assert f"deciding: {first} thinking…" in text and all(name in text for name in rest), text
        bar = screen.query_one("#progress-bar", ProgressBar)
        assert bar.display and bar.progress == 0 and bar.total == 1 + len(rest)
        mind.release.set()
        await settle(pilot)
        assert screen.rounds_shown == 1 and not bar.display
        assert "resolved" in str(screen.query_one("#progress").content)
