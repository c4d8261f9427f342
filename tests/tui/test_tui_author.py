"""The authoring review screen: draft a play, rename a character, merge, mark playable, save, and check passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.main import main as cli_main
from storyworld.world import load_world
from tui.app import make_app
from tui.screens.author import ReviewScreen
from tests.support.paths import PLAYS
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio
PLAY = PLAYS / "lantern.txt"


async def open_review(pilot) -> ReviewScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.world is not None, "no draft"
    return screen


def cursor_to(screen: ReviewScreen, table_id: str, key: str) -> None:
    table = screen.query_one(table_id)
    table.move_cursor(row=table.get_row_index(key))


async def test_review_a_draft_rename_a_character_save_and_check(runtime, tmp_path):
    out = tmp_path / "lantern.toml"
    app = make_app(runtime=runtime, author=(PLAY, "play"))
    async with piloted(app, settled=False) as pilot:
        screen = await open_review(pilot)
        cast = [a.id for a in screen.world.agent]
        assert {"odo", "maren", "piet", "harbourmaster"} <= set(cast)
        assert screen.query_one("#cast-table").row_count == len(cast)
        assert screen.query_one("#event-table").row_count == len(screen.world.event) > 20

        cursor_to(screen, "#cast-table", "odo")
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#name").value = ""
        await pilot.press(*keys_for("Old Odo"), "enter")
        await pilot.pause()
        assert next(a for a in screen.world.agent if a.id == "odo").name == "Old Odo"
        assert "Odo" in next(a for a in screen.world.agent if a.id == "odo").aliases

        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#name").value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.saved_to == out
    assert cli_main(["check", str(out)]) == 0
    saved = load_world(out)
    assert saved.agents["odo"].name == "Old Odo"


async def test_merge_delete_playable_and_undo(runtime):
    app = make_app(runtime=runtime, author=(PLAY, "play"))
    async with piloted(app, settled=False) as pilot:
        screen = await open_review(pilot)
        cursor_to(screen, "#cast-table", "piet")
        await pilot.press("p")
        assert not next(a for a in screen.world.agent if a.id == "piet").playable
        await pilot.press("p")
        assert next(a for a in screen.world.agent if a.id == "piet").playable

        # the two fishers are one character for this author: merge the second into the first
        seconds = sum(1 for e in screen.world.event if "second-fisher" in e.witness_ids())
        assert seconds > 0
        cursor_to(screen, "#cast-table", "second-fisher")
        await pilot.press("m")
        await pilot.pause()
        picker = app.screen.query_one("#pick")
        picker.highlighted = [o.id for o in picker.options].index("first-fisher")
        await pilot.press("enter")
        await pilot.pause()
        assert "second-fisher" not in {a.id for a in screen.world.agent}
        first = next(a for a in screen.world.agent if a.id == "first-fisher")
        assert "Second Fisher" in first.aliases
        assert not any("second-fisher" in e.witness_ids() for e in screen.world.event)

        before = len(screen.world.event)
        screen.query_one("#review-tabs").active = "tab-events"
        screen.query_one("#event-table").focus()
        await pilot.pause()
        await pilot.press("d")
        assert len(screen.world.event) == before - 1
        await pilot.press("u")
        assert len(screen.world.event) == before
        warnings = str(screen.query_one("#warnings").content)
        assert warnings  # the warnings tab always says something, at least that the world passes


async def test_a_draft_from_the_cli_opens_the_review(monkeypatch, runtime, tmp_path):
    """`storyworld author SOURCE` (no --headless) calls tui.app.run_author(source, kind)."""
    seen = {}

    def fake_run_author(source: Path, kind: str, runtime=None) -> int:
        seen.update(source=source, kind=kind)
        return 0

    monkeypatch.setattr("tui.app.run_author", fake_run_author)
    assert cli_main(["author", str(PLAY)]) == 0
    assert seen == {"source": PLAY, "kind": "play"}


async def test_author_from_home_drafts_the_named_source(runtime):
    app = make_app(runtime=runtime)
    async with piloted(app) as pilot:
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#source").value = str(PLAY)
        await pilot.press("enter")
        screen = await open_review(pilot)
        assert screen.draft.kind == "play" and screen.source == PLAY
        await pilot.press("escape")
        assert not isinstance(app.screen, ReviewScreen)
