"""Review operations: pure functions on a draft that keep every reference consistent and the world checkable."""

from __future__ import annotations

import msgspec
import pytest

from storyworld.authoring.play import parse_play
from storyworld.authoring.review import (
    ReviewError,
    clear_flags,
    dedupe_events,
    delete_agent,
    delete_event,
    delete_place,
    edit_agent,
    edit_event,
    list_warnings,
    merge_agents,
    merge_places,
    references_to,
    rename_agent,
    rename_place,
    save_draft,
    set_playable,
)
from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo, WorldObject
from storyworld.world import check_world, load_world, World, world_from_file
from tests.support.paths import PLAYS


@pytest.fixture
def lantern() -> WorldFile:
    return parse_play((PLAYS / "lantern.txt").read_text(encoding="utf-8"), world_id="lantern").world


@pytest.fixture
def twins() -> WorldFile:
    """A draft where one character was split in two ("Liu Bei" and "Xuande"), with a duplicated event."""
    return WorldFile(
        world=WorldInfo(id="twins", title="Twins", default_start="opening"),
        place=[Place(id="zhuo", name="Zhuo", exits=["luoyang"]), Place(id="luoyang", name="Luoyang", exits=["zhuo"])],
        agent=[
            Agent(id="liu-bei", name="Liu Bei", home="zhuo", aliases=["Liu Xuande"]),
            Agent(id="xuande", name="Xuande", home="zhuo", description="A man of the imperial house", goals=["serve"]),
            Agent(id="zhang-fei", name="Zhang Fei", home="zhuo", playable=False),
        ],
        object=[WorldObject(id="sword", name="Sword", holder="xuande")],
        event=[
            Event(id="e1", round=1, place="zhuo", actors=["liu-bei"], witnesses=["liu-bei", "zhang-fei"], kind="say",
                  text="We swear to serve the state."),
            Event(id="e2", round=1, place="zhuo", actors=["xuande"], witnesses=["xuande"], kind="say",
                  text="We swear to serve the state.", flags=["single actor"]),
            Event(id="e3", round=2, place="luoyang", actors=["xuande", "zhang-fei"], kind="act",
                  text="They ride to Luoyang."),
        ],
        start=[Start(id="opening", round=1, positions={"xuande": "zhuo", "zhang-fei": "zhuo"})],
    )


def _check(world: WorldFile) -> World:
    checked = world_from_file(world)
    return checked


def test_rename_keeps_the_id_and_the_old_name_as_alias(lantern):
    renamed = rename_agent(lantern, "odo", "Odo Hask")
    odo = next(a for a in renamed.agent if a.id == "odo")
    assert odo.name == "Odo Hask" and "Odo" in odo.aliases
    assert next(a for a in lantern.agent if a.id == "odo").name == "Odo"  # the input is untouched
    assert _check(renamed).warnings == []


def test_rename_with_a_new_id_rewrites_every_reference(lantern):
    before = references_to(lantern, "odo")
    assert before
    renamed = rename_agent(lantern, "odo", "Old Odo", new_id="old-odo")
    assert references_to(renamed, "odo") == []
    assert len(references_to(renamed, "old-odo")) == len(before)
    assert any("old-odo" in s.positions for s in renamed.start)
    assert _check(renamed).warnings == []


def test_rename_refuses_taken_or_bad_ids(lantern):
    with pytest.raises(ReviewError, match="already taken"):
        rename_agent(lantern, "odo", "Odo", new_id="maren")
    with pytest.raises(ReviewError, match="not a usable id"):
        rename_agent(lantern, "odo", "Odo", new_id="Old Odo")
    with pytest.raises(ReviewError, match="no agent"):
        rename_agent(lantern, "nobody", "X")
    with pytest.raises(ReviewError, match="empty"):
        rename_agent(lantern, "odo", "  ")


def test_merge_agents(twins):
    merged = merge_agents(twins, "liu-bei", "xuande")
    agents = {a.id: a for a in merged.agent}
    assert set(agents) == {"liu-bei", "zhang-fei"}
    assert agents["liu-bei"].aliases == ["Liu Xuande", "Xuande"]
    assert agents["liu-bei"].description == "A man of the imperial house" and agents["liu-bei"].goals == ["serve"]
    assert references_to(merged, "xuande") == []
    # The two tellings of the oath are one event now, witnessed by both listeners, flags kept.
    oath = [e for e in merged.event if e.text == "We swear to serve the state."]
    assert len(oath) == 1 and oath[0].id == "e1"
    assert oath[0].witnesses == ["liu-bei", "zhang-fei"] and oath[0].flags == ["single actor"]
    assert merged.object[0].holder == "liu-bei"
    assert merged.start[0].positions == {"liu-bei": "zhuo", "zhang-fei": "zhuo"}
    assert [e.actors for e in merged.event if e.id == "e3"] == [["liu-bei", "zhang-fei"]]
    assert _check(merged).warnings == []
    assert len(twins.agent) == 3  # untouched


def test_merge_then_check_passes_on_a_parsed_play(lantern, tmp_path):
    merged = merge_agents(lantern, "first-fisher", "second-fisher")
    assert not any("second-fisher" in e.actors for e in merged.event)
    report = check_world(save_draft(merged, tmp_path / "merged.toml"))
    assert report.ok and report.warnings == []
    with pytest.raises(ReviewError):
        merge_agents(lantern, "odo", "odo")


def test_delete_agent(twins):
    without = delete_agent(twins, "zhang-fei")
    assert references_to(without, "zhang-fei") == []
    e3 = next(e for e in without.event if e.id == "e3")
    assert e3.actors == ["xuande"]
    gone = delete_agent(twins, "xuande")
    assert [e.id for e in gone.event] == ["e1", "e3"]  # e2 had no other actor: a speech by nobody goes
    assert gone.object[0].holder is None and gone.object[0].place == "zhuo"  # the sword stays where he lived
    _check(without)
    _check(gone)


def test_delete_event_and_place(twins):
    assert [e.id for e in delete_event(twins, "e2").event] == ["e1", "e3"]
    with pytest.raises(ReviewError, match="no event"):
        delete_event(twins, "e9")
    with pytest.raises(ReviewError, match="still used"):
        delete_place(twins, "luoyang")
    moved = delete_place(twins, "luoyang", move_to="zhuo")
    assert [p.id for p in moved.place] == ["zhuo"] and moved.place[0].exits == []
    assert all(e.place == "zhuo" for e in moved.event)
    _check(moved)
    with pytest.raises(ReviewError, match="only place"):
        delete_place(moved, "zhuo")


def test_places_rename_and_merge(lantern):
    renamed = rename_place(lantern, "harbour-of-gull-town", "Gull Town harbour", new_id="harbour")
    assert references_to(renamed, "harbour-of-gull-town") == []
    assert "harbour" in renamed.place[0].exits
    _check(renamed)
    merged = merge_places(lantern, "lantern-room-at-top-of-tower", "harbour-of-gull-town")
    assert [p.id for p in merged.place] == ["lantern-room-at-top-of-tower"]
    assert {e.place for e in merged.event} == {"lantern-room-at-top-of-tower"}
    _check(merged)


def test_playable_and_edits(twins):
    playable = set_playable(twins, "zhang-fei")
    assert next(a for a in playable.agent if a.id == "zhang-fei").playable
    assert not next(a for a in twins.agent if a.id == "zhang-fei").playable
    edited = edit_agent(twins, "zhang-fei", description="A butcher of Zhuo", home="luoyang")
    assert next(a for a in edited.agent if a.id == "zhang-fei").home == "luoyang"
    with pytest.raises(ReviewError):
        edit_agent(twins, "zhang-fei", home="nowhere")
    with pytest.raises(ReviewError):
        edit_agent(twins, "zhang-fei", id="zf")
    reviewed = clear_flags(twins, "e2")
    assert next(e for e in reviewed.event if e.id == "e2").flags == []
    retold = edit_event(twins, "e3", text="They rode hard to Luoyang.", kind="move")
    assert next(e for e in retold.event if e.id == "e3").kind == "move"


def test_warnings_list(twins):
    issues = list_warnings(twins)
    assert any(i.severity == "flag" and i.id == "e2" and "single actor" in i.message for i in issues)
    broken = edit_event(twins, "e3", place="nowhere")
    errors = [i for i in list_warnings(broken) if i.severity == "error"]
    assert errors and errors[0].target == "event" and "nowhere" in errors[0].message
    lonely = msgspec.structs.replace(twins, agent=[*twins.agent, Agent(id="hermit", name="Hermit", home="zhuo")])
    assert any(i.target == "agent" and i.id == "hermit" for i in list_warnings(lonely))
    assert str(issues[0]).startswith(("flag:", "warning:", "error:"))


def test_dedupe_events_is_idempotent(twins):
    once = dedupe_events(twins.event)
    assert dedupe_events(once) == once


def test_load_rename_save_check(lantern, tmp_path):
    """The review screen's round trip without the screen: load a draft, rename a character, save, check."""
    path = save_draft(lantern, tmp_path / "draft.toml")
    draft = load_world(path).file
    renamed = rename_agent(draft, "maren", "Maren Hask", new_id="maren-hask")
    report = check_world(save_draft(renamed, path))
    assert report.ok and report.warnings == []
    assert "maren-hask" in report.world.agents and report.world.agents["maren-hask"].name == "Maren Hask"
