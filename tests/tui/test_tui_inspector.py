"""The memory inspector: all records, filters, owner-count sort, provenance detail, the heatmap."""

from __future__ import annotations

import pytest

from tui.app import make_app
from tui.screens.inspector import InspectorScreen
from tui.widgets.heatmap import scale_colour
from tests.support.pilot import keys_for, piloted, settle

pytestmark = pytest.mark.anyio


async def open_inspector(pilot) -> InspectorScreen:
    """Play one round, then F2."""
    await settle(pilot)
    await pilot.press(*keys_for("/say Who left the lamp dark?"), "enter")
    await settle(pilot)
    await pilot.press("f2")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen)
    return screen


def table_ids(screen: InspectorScreen) -> list[int]:
    """Record ids in the table, top to bottom."""
    table = screen.query_one("#records")
    return [int(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_inspector_lists_filters_and_sorts_every_record(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        store = screen.store
        records = {r.id: r for r in store.records()}
        assert sorted(table_ids(screen)) == sorted(records)

        screen.query_one("#filter-owner").value = "ada"
        await pilot.pause()
        assert set(table_ids(screen)) == {i for i, r in records.items() if "ada" in r.owners}

        screen.query_one("#filter-owner").clear()
        screen.query_one("#filter-kind").value = "utterance"
        await pilot.pause()
        assert set(table_ids(screen)) == {i for i, r in records.items() if r.kind == "utterance"}

        screen.query_one("#filter-kind").clear()
        await pilot.press("slash", *keys_for("lamp"))
        await pilot.pause()
        assert set(table_ids(screen)) == {i for i, r in records.items() if "lamp" in r.text.lower()}

        screen.query_one("#filter-text").value = ""
        screen.query_one("#records").focus()
        await pilot.press("o")
        ids = table_ids(screen)
        counts = [len(records[i].owners) for i in ids]
        assert counts == sorted(counts, reverse=True)


async def test_detail_shows_owners_provenance_merges_neighbours_and_derivation(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        store = screen.store
        speech = next(r for r in store.records() if r.kind == "utterance" and "Who left the lamp dark?" in r.text)
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(speech.id)))
        await pilot.pause()
        detail = str(screen.query_one("#detail").content)
        assert f"#{speech.id} utterance" in detail
        assert "Owners (3)" in detail
        for name in ("Maren", "Silas", "Tobin"):
            assert f"{name}: witnessed r0, The harbour" in detail
        assert "Merge log (2)" in detail and "joined by event_id" in detail  # two more witnesses joined
        neighbours = store.neighbours(speech.id)
        assert f"Affiliated ({len(neighbours)})" in detail and neighbours
        assert "Based on (0)" in detail


async def test_heatmap_counts_records_both_agents_hold(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        await pilot.press("h")
        heatmap = screen.view.heatmap
        records = screen.store.records()
        i, j = heatmap.agents.index("maren"), heatmap.agents.index("tobin")
        both = sum(1 for r in records if {"maren", "tobin"} <= set(r.owners))
        assert heatmap.counts[i][j] == heatmap.counts[j][i] == both > 0
        assert heatmap.counts[i][i] == sum(1 for r in records if "maren" in r.owners)
        assert screen.query_one("#inspector-tabs").active == "tab-heatmap"


def test_colour_scale_runs_dark_to_bright():
    assert scale_colour(0, 10) == "#202020"
    assert scale_colour(10, 10) == "#f0d250"
    assert scale_colour(1, 10) != scale_colour(9, 10)


async def test_unmerge_picks_an_owner_confirms_and_splits_the_record(runtime, tiny_world):
    from tui.screens.dialogs import Confirm, PickOne

    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        store = screen.store
        speech = next(r for r in store.records() if r.kind == "utterance" and "Who left the lamp dark?" in r.text)
        latest = speech.merge_log[-1].owner
        before = dict(speech.owners)
        merges = len(speech.merge_log)
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(speech.id)))
        await pilot.pause()

        # cancelling at the confirmation changes nothing
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, PickOne)
        await pilot.press("enter")  # the latest merger is listed first
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and set(store.get(speech.id).owners) == set(before)

        await pilot.press("u")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert latest not in store.get(speech.id).owners
        split = [r for r in store.records() if latest in r.owners and r.text == speech.text and r.id != speech.id]
        assert len(split) == 1 and set(split[0].owners) == {latest}
        assert len(store.get(speech.id).merge_log) == merges - 1  # the owner's merge left the log
        assert str(split[0].id) in [table.get_row_at(i)[0] for i in range(table.row_count)]  # the table refreshed


async def test_unmerge_on_an_unmerged_record_says_so(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        lone = next(r for r in screen.store.records() if not r.merge_log)
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(lone.id)))
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert app.screen is screen
        assert any("never merged" in n.message for n in app._notifications)


async def test_ask_box_interviews_the_highlighted_owner_off_the_event_loop(runtime, tiny_world):
    from textual.widgets import Input

    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        found = next(r for r in screen.store.records() if r.text.startswith("Tobin finds a sealed letter"))
        table = screen.query_one("#records")
        table.move_cursor(row=table.get_row_index(str(found.id)))
        await pilot.pause()
        await pilot.press("a")  # into the box, asking the record's owner
        question = screen.query_one("#ask-question", Input)
        assert app.focused is question and screen.query_one("#ask-agent").value == "tobin"
        await pilot.press(*keys_for("What did you find on the shore?"), "enter")
        await settle(pilot)
        detail = str(screen.query_one("#detail").content)
        assert "Tobin, asked: What did you find on the shore?" in detail
        assert "[answer] I found a sealed letter in the coat of the drowned keeper" in detail
        assert f"Rests on (1)\n  #{found.id} remembered from round -20: {found.text}" in detail
        assert app.focused is question  # ask again without reaching for the box
        await pilot.press("escape")  # leaves the box, not the inspector
        assert app.screen is screen and app.focused is table
        await pilot.press("escape")
        assert app.screen is not screen


async def test_ask_box_asks_whom_the_select_names_and_says_when_nothing_is_held(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app, settled=False) as pilot:
        screen = await open_inspector(pilot)
        screen.query_one("#filter-owner").value = "ada"  # the owner filtered on is whom the box asks
        await pilot.pause()
        await pilot.press("a", *keys_for("Who sealed the letter with wax?"), "enter")
        await settle(pilot)
        assert screen.query_one("#ask-agent").value == "ada"
        detail = str(screen.query_one("#detail").content)
        assert "Ada, asked: Who sealed the letter with wax?" in detail
        assert "[unknown]" in detail and "Rests on (0)" in detail  # she never saw it: no guess
