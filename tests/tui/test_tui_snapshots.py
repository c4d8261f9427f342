"""SVG snapshots at 100x30: what a player sees on home, in play, in the inspector and on the heatmap.

Deterministic by construction: scripted mind, hashed embedder, fixed seed, fixed clock (save dates),
constant timer (round durations), no cursor blink. Update with `pytest tests/tui --snapshot-update`.
"""

from __future__ import annotations

import asyncio

import pytest

from tui.app import make_app
from tests.support.paths import TINY
from tests.support.pilot import TERMINAL, keys_for, piloted, settle
from tests.support.runtime import scripted_runtime

SIZE = TERMINAL
LINE = "/say @tobin Who left the lamp dark?"


@pytest.fixture
def still_runtime(runtime):
    """The scripted runtime with a timer that never moves (no durations on screen)."""
    runtime.timer = lambda: 0.0
    return runtime


async def steady(pilot) -> None:
    """Let workers finish and stop every cursor from blinking."""
    await settle(pilot)
    for widget in pilot.app.screen.query("Input"):
        widget.cursor_blink = False
    await pilot.pause()


async def play_a_round(pilot) -> None:
    """Wait for the game, say a line, wait for the round."""
    await settle(pilot)
    await pilot.press(*keys_for(LINE), "enter")
    await steady(pilot)


def test_home_lists_worlds_and_saves(snap_compare, still_runtime, tiny_world):
    """Home: the tiny world with its cast and start points, and the game saved after one round."""

    async def one_round() -> None:
        async with piloted(make_app(runtime=still_runtime, world=tiny_world, player="maren"), settled=False) as pilot:
            await play_a_round(pilot)

    asyncio.run(one_round())
    assert snap_compare(make_app(runtime=still_runtime), terminal_size=SIZE, run_before=steady)


def test_play_after_one_round(snap_compare, still_runtime, tiny_world):
    """Play: Maren's line and Tobin's reply in the transcript; Who knows lists the speech with three owners."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=play_a_round)


def test_inspector_on_the_spoken_record(snap_compare, still_runtime, tiny_world):
    """Inspector: every record, sorted by owner count, with the top record's provenance in the detail pane."""

    async def inspect(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("f2")
        await steady(pilot)
        await pilot.press("o")
        await steady(pilot)

    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=inspect)


def test_inspector_ask_box_answers_with_provenance(snap_compare, still_runtime, tiny_world):
    """Ask box: Tobin, asked what he found on the shore, answers from his own memory; below, the record it rests on
    and how he came by it; the question stays in the box for the next one."""

    async def ask(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("f2")
        await steady(pilot)
        screen = pilot.app.screen
        found = next(r for r in screen.store.records() if r.text.startswith("Tobin finds a sealed letter"))
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(found.id)))
        await pilot.press("a", *keys_for("What did you find on the shore?"), "enter")
        await steady(pilot)

    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=ask)


def test_heatmap_of_shared_ownership(snap_compare, still_runtime, tiny_world):
    """Heatmap: agents × agents, how many records both hold, on a colour scale."""

    async def heatmap(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("f2")
        await steady(pilot)
        await pilot.press("h")
        await steady(pilot)

    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=heatmap)


def test_relations_tab_ranks_pairs_with_a_small_matrix(snap_compare, still_runtime, tiny_world):
    """Relations: pairs ranked by who spoke to or acted on whom, with shared records, and the active agents' matrix."""

    async def relations(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press(*keys_for("/say @silas And you, Silas?"), "enter")
        await steady(pilot)
        await pilot.press("f2")
        await steady(pilot)
        await pilot.press("l")
        await steady(pilot)

    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=relations)


LIE = "The old keeper drank himself blind that night."
TRUST_SCRIPT = {
    "silas": f"lie:tobin:{LIE}",
    "tobin": "say:Silas swears the old keeper drank himself blind.",
    "ada": "observe",
}


@pytest.fixture
def trust_runtime(tmp_path):
    """Silas lies to Tobin every round; Tobin retells it: his line carries the lie he holds."""
    worlds = tmp_path / "worlds"
    worlds.mkdir()
    (worlds / "tiny.toml").write_bytes(TINY.read_bytes())
    rt = scripted_runtime(tmp_path / "saves", TRUST_SCRIPT, derive=True)
    rt.world_folders = [(worlds, "bundled")]
    rt.timer = lambda: 0.0
    return rt


def test_inspector_marks_retracted_and_contaminated_records(snap_compare, trust_runtime, tiny_world):
    """Trust: after Maren exposes Silas, his lie is retracted (halved, marked) for all who hold it, Tobin's retelling too."""

    async def expose(pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys_for("/wait"), "enter")
        await steady(pilot)
        await pilot.press(*keys_for("/act silas expose"), "enter")
        await steady(pilot)
        await pilot.press("f2")
        await steady(pilot)
        await pilot.press("slash", *keys_for("drank himself"), "enter")
        await steady(pilot)
        from textual.widgets import DataTable

        pilot.app.screen.query_one(DataTable).focus()
        await pilot.press("down", "down")  # the lie itself, held by whoever heard it or its retelling
        await steady(pilot)

    app = make_app(runtime=trust_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=expose)


def test_new_game_dialog_tells_the_story(snap_compare, still_runtime, tiny_world):
    """The dialog lists characters by how much the coming story involves them, each with a story line."""
    app = make_app(runtime=still_runtime, world=tiny_world)
    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


def test_goals_tab_shows_the_canon_as_suggestions(snap_compare, still_runtime, tiny_world):
    """The Goals tab: the player's next canon beats (where to go), then the goal stack."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")

    async def goals(pilot) -> None:
        await settle(pilot)
        pilot.app.screen.query_one("#side").active = "tab-goals"
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=goals)


async def _a_dispute_recalled(pilot) -> None:
    """Maren and Tobin hold opposite records about the lamp; Maren recalls hers."""
    await settle(pilot)
    store = pilot.app.screen.game.session.store
    store.remember("maren", "The lamp in the lighthouse was lit.", event_id="x1", round=0)
    store.remember("tobin", "The lamp in the lighthouse was not lit.", event_id="x2", round=0)
    await pilot.press(*keys_for("/recall lamp in the lighthouse lit"), "enter")
    await steady(pilot)


def test_the_panel_shows_knowledge_with_a_dispute_in_words(snap_compare, still_runtime, tiny_world):
    """Who knows: one card per record, how Maren knows it and how sure; a dispute between owners in words."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")
    assert snap_compare(app, terminal_size=SIZE, run_before=_a_dispute_recalled)


def test_undo_dialog_focuses_undo(snap_compare, still_runtime, tiny_world):
    """Ctrl+Z after a round: the dialog asks, with Undo focused (Enter undoes, Esc cancels)."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")

    async def ask(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("ctrl+z")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ask)


def test_retry_dialog_after_right_arrow_focuses_cancel(snap_compare, still_runtime, tiny_world):
    """Ctrl+R, then →: the focus steps from Retry to Cancel, as in other terminal apps."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")

    async def ask(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("ctrl+r", "right")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=ask)


def test_retry_says_which_draw_it_is(snap_compare, still_runtime, tiny_world):
    """Ctrl+R, then Enter (Retry is focused): the round is played again, its marker and the progress line saying
    which draw of the round it is and under which seed."""
    app = make_app(runtime=still_runtime, world=tiny_world, player="maren")

    async def retry(pilot) -> None:
        await play_a_round(pilot)
        await pilot.press("ctrl+r")
        await steady(pilot)
        await pilot.press("enter")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=retry)
