"""Keys and focus as a person meets them: @name + Tab, focus after every dialog, the side panel's tabs,
the welcome that hands typing on, the first frame while the model loads (issue 23)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tui.app import make_app
from tui.screens.dialogs import help_text
from tui.screens.play import PlayScreen
from tui.screens.welcome import WelcomeScreen, welcome_text
from tests.support.pilot import keys_for, piloted, settle, transcript_text

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("typed", ["@to", "/say @to", "/say to @si"])
async def test_tab_completes_a_name_after_at_with_or_without_a_command(runtime, tiny_world, typed):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        bar = app.screen.query_one("#action")
        await pilot.press(*keys_for(typed), "tab")
        assert bar.value in {"@tobin ", "/say @tobin ", "/say to @silas "}
        assert app.focused is bar
        await pilot.press(*keys_for("Well?"))
        assert bar.value.endswith(" Well?")  # what is typed next goes on in the bar


async def test_tab_never_takes_the_focus_out_of_a_line_being_typed(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        bar = app.screen.query_one("#action")
        await pilot.press(*keys_for("@zed hello"), "tab")  # nothing to complete
        assert app.focused is bar and bar.value == "@zed hello"
        bar.value = ""
        await pilot.press("tab")  # an empty bar: Tab moves on, as everywhere
        assert app.focused is not bar


async def test_a_key_typed_while_reading_the_panel_starts_a_line_in_the_bar(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        bar = screen.query_one("#action")
        screen.query_one("#who-knows").focus()  # the player was reading the panel, then types
        await pilot.press(*keys_for("@to"))
        assert app.focused is bar and bar.value == "@to"


@pytest.mark.parametrize("key", ["f1", "f2", "f5"])  # F3 opens no dialog (it turns the panel's tab: its own test)
async def test_focus_comes_back_to_the_action_bar_after_every_dialog(runtime, tiny_world, key):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        screen = app.screen
        await pilot.press(*keys_for("/say hello"), "enter")
        await settle(pilot)
        screen.query_one("#who-knows").focus()  # the player was reading the panel
        await pilot.press(key)
        await settle(pilot)
        assert app.screen is not screen
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and app.focused is screen.query_one("#action")


async def test_the_side_panel_tabs_have_a_key_shown_in_the_footer_and_the_help(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        side = app.screen.query_one("#side")
        seen = [side.active]
        for _ in range(4):
            await pilot.press("f3")
            await pilot.pause()
            seen.append(side.active)
        assert seen == ["tab-who", "tab-cast", "tab-map", "tab-goals", "tab-who"]
        assert app.focused is app.screen.query_one("#action")
        from textual.widgets._footer import FooterKey

        shown = {(k.key, k.description) for k in app.screen.query(FooterKey)}
        assert ("f3", "Tabs") in shown and ("ctrl+z", "Undo") in shown and ("ctrl+r", "Retry") in shown
    keys = str(help_text())
    assert "F3" in keys and "Who knows, Cast, Map, Goals" in keys and "Ctrl+Z" in keys and "Ctrl+R" in keys


async def test_typing_while_the_welcome_shows_closes_it_and_the_line_is_kept(runtime, tiny_world, storyworld_home):
    (storyworld_home / "welcomed").unlink()
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press(*keys_for("Hello, Tobin."))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        assert screen.query_one("#action").value == "Hello, Tobin."
        await pilot.press("enter")
        await settle(pilot)
        assert screen.rounds_shown == 1 and "Hello, Tobin." in transcript_text(screen)


def test_the_welcome_names_only_the_world_being_played(tiny_world):
    from storyworld.game.playerinput import Surroundings
    from storyworld.game.simulation import initial_state

    state = initial_state(tiny_world, None)
    text = welcome_text(tiny_world, "maren", Surroundings.of(tiny_world, state, "maren"))
    assert "@silas" in text or "@tobin" in text
    assert "/move " in text and any(f"/move {e}" in text for e in tiny_world.places["harbour"].exits)
    assert "Maren" in text and "The Keeper's Letter" in text
    for stranger in ("horatio", "Horatio", "hamlet", "letter give"):
        assert stranger not in text


class SlowLoad:
    """A mind factory that holds until the test lets it go (a model still loading)."""

    def __init__(self, mind) -> None:
        self.mind = mind
        self.release = threading.Event()

    def __call__(self):
        self.release.wait(30)
        return self.mind


async def test_the_play_screen_comes_at_once_while_the_model_loads(runtime, tiny_world):
    slow = SlowLoad(runtime.load_mind())
    runtime.load_mind = slow
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    try:
        async with piloted(app, settled=False) as pilot:
            for _ in range(5):
                await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PlayScreen) and screen.game is None
            text = transcript_text(screen)
            assert "THE HARBOUR" in text and "With you: Silas, Tobin." in text  # the opening, before any model
            bar = screen.query_one("#action")
            assert "still loading" in bar.placeholder
            assert "Tobin" in str(screen.query_one("#goals").content)
            await pilot.press(*keys_for("Good morning."), "enter")  # typed ahead: kept for when it is ready
            await pilot.pause()
            assert bar.value == "Good morning." and screen.rounds_shown == 0
            slow.release.set()
            await settle(pilot)
            assert screen.game is not None and "still loading" not in bar.placeholder
            await pilot.press("enter")
            await settle(pilot)
            assert screen.rounds_shown == 1
    finally:
        slow.release.set()


def test_the_welcome_reads_only_what_can_be_read():
    from storyworld.game.playerinput import Surroundings
    from storyworld.game.simulation import initial_state
    from storyworld.locations import find_world
    from storyworld.world import load_world

    world = load_world(find_world("three_kingdoms"))
    state = initial_state(world, None)
    scene = Surroundings.of(world, state, "liu-bei")
    text = welcome_text(world, "liu-bei", scene)
    assert "Guan Yu" in text and "Horatio" not in text and "Marcellus" not in text
    assert not any(f"/act {o} read" in text for o in scene.objects if not world.objects[o].carries)


async def test_tab_on_an_empty_argument_offers_each_option_in_turn(runtime, tiny_world):
    """'/move ' and Tab: the first place one can go; Tab again, the next; the focus stays in the bar."""
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        bar = app.screen.query_one("#action")
        exits = app.screen.game.world.places["harbour"].exits
        assert len(exits) > 1
        await pilot.press(*keys_for("/move "), "tab")
        assert bar.value == f"/move {exits[0]} " and app.focused is bar
        await pilot.press("tab")
        assert bar.value == f"/move {exits[1]} " and app.focused is bar
        for _ in range(len(exits) - 1):
            await pilot.press("tab")
        assert bar.value == f"/move {exits[0]} "  # round again
