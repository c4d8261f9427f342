"""Saves in the UI: autosave every round, save as, branch, load, and a damaged save's way back."""

from __future__ import annotations

from pathlib import Path

import pytest

from saves import read_save
from tui.app import make_app
from tui.screens.dialogs import DamagedSave
from tui.screens.home import HomeScreen
from tui.screens.play import PlayScreen
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def play_one_round(pilot, line: str = "/say Who left the lamp dark?") -> PlayScreen:
    """Wait for the game, play one line, wait for the round."""
    await settle(pilot)
    await pilot.press(*keys_for(line), "enter")
    await settle(pilot)
    return pilot.app.screen


async def test_every_round_autosaves_into_the_slot(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await play_one_round(pilot)
        slot = screen.game.slot
    assert slot == runtime.saves() / "tiny-maren"
    manifest, files = read_save(slot)
    assert manifest.meta["round"] == 1 and manifest.meta["character"] == "maren"
    assert manifest.meta["saved_at"] == "2024-03-01T20:15:00+00:00"  # the injected clock
    autosaves = sorted(p.name for p in (runtime.saves() / "tiny-maren.autosaves").iterdir())
    assert autosaves == ["autosave-000000", "autosave-000001"]


async def test_save_as_and_branch_make_new_slots_and_play_on_there(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await play_one_round(pilot)
        await pilot.press("f5")
        await pilot.pause()
        app.screen.query_one("#name").value = ""
        await pilot.press(*keys_for("before the tavern"), "enter")
        await settle(pilot)
        assert screen.game.slot.name == "before-the-tavern"
        assert read_save(screen.game.slot)[0].meta["label"] == "before the tavern"
        await pilot.press("f7")
        await pilot.pause()
        await pilot.press("enter")  # accept the suggested branch name
        await settle(pilot)
        assert screen.game.slot.name == "before-the-tavern-b"
        manifest, _ = read_save(screen.game.slot)
        assert manifest.meta["branched_from"].endswith("before-the-tavern")
        await pilot.press(*keys_for("/move tavern"), "enter")
        await settle(pilot)
    # the branch went on to round 2; the save it came from stayed at round 1
    assert read_save(runtime.saves() / "before-the-tavern-b")[0].meta["round"] == 2
    assert read_save(runtime.saves() / "before-the-tavern")[0].meta["round"] == 1


async def test_a_save_loads_with_its_history_in_the_transcript(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        slot = (await play_one_round(pilot)).game.slot
    app = make_app(runtime=runtime, save=slot)
    async with piloted(app) as pilot:
        screen = app.screen
        assert screen.game.session.round == 1 and screen.game.player == "maren"
        text = "\n".join(str(w.content) for w in screen.query(".entry"))
        assert "Who left the lamp dark?" in text and "resumes at round 1" in text


def damage(slot: Path) -> None:
    """Truncate the state file, as a crash or a bad disk would."""
    state = slot / "state.msgpack"
    state.write_bytes(state.read_bytes()[:10])


async def test_a_damaged_save_offers_the_newest_good_autosave(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        slot = (await play_one_round(pilot)).game.slot
    damage(slot)
    app = make_app(runtime=runtime)
    async with piloted(app) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        row = home.saves[0]
        assert row.folder == slot and row.problem and "state.msgpack" in row.problem
        assert "damaged" in " ".join(row.cells())
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DamagedSave)
        assert "state.msgpack" in str(dialog.query_one("#reason").content)
        assert dialog.fallback is not None and dialog.fallback.name == "autosave-000001"
        await pilot.click("#use")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.game is not None
        assert play.game.session.round == 1
        assert play.game.slot == slot  # playing on writes the save again, repairing it


async def test_loading_a_damaged_save_directly_names_the_file(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        slot = (await play_one_round(pilot)).game.slot
    damage(slot)
    app = make_app(runtime=runtime, save=slot)
    async with piloted(app) as pilot:
        dialog = app.screen
        assert isinstance(dialog, DamagedSave)
        reason = str(dialog.query_one("#reason").content)
        assert "state.msgpack" in reason and "\n" not in reason
        await pilot.click("#use")
        await settle(pilot)
        assert app.screen.game.session.round == 1


async def test_f6_loads_another_save_in_place_of_the_game(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        first = await play_one_round(pilot)
        await pilot.press(*keys_for("/move tavern"), "enter")
        await settle(pilot)
        assert first.game.session.round == 2
        first.game.save_as("at the harbour")  # a second slot to load (written here, not by the UI)
        await pilot.press("f6")
        await settle(pilot)
        picker = app.screen
        names = [picker.query_one("#picker").get_row_at(i)[0] for i in range(picker.query_one("#picker").row_count)]
        assert set(names) == {"tiny-maren", "at-the-harbour"}
        picker.query_one("#picker").move_cursor(row=names.index("tiny-maren"))
        await pilot.press("enter")
        await settle(pilot)
        loaded = app.screen
        assert loaded is first and loaded.rounds_shown == 0  # the same screen, a fresh game in it
        assert loaded.game.slot.name == "tiny-maren" and loaded.game.session.round == 2
