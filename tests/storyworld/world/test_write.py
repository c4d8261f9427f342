"""Writing worlds: load → write → load is equal, the written text is stable, writes are atomic."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyworld.world.schema import Agent, Event, Place, Start, WorldFile, WorldInfo, WorldObject
from storyworld.world import WorldError, load_world, world_to_toml, write_world
from tests.support.paths import TINY


def test_round_trip_is_equal(tmp_path: Path):
    first = load_world(TINY)
    written = write_world(first, tmp_path / "tiny.toml")
    second = load_world(written)
    assert second.file == first.file
    # writing again gives the same bytes (and so the same digest)
    write_world(second, tmp_path / "again.toml")
    assert (tmp_path / "again.toml").read_bytes() == written.read_bytes()
    assert load_world(tmp_path / "again.toml").digest == second.digest == first.__class__(first.file).digest


def test_written_text_snapshot(snapshot):
    assert world_to_toml(load_world(TINY).file) == snapshot


def test_write_is_atomic_and_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "w.toml"
    target.write_text("old content")
    world = load_world(TINY)

    def broken_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk gone"):
        write_world(world, target)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["w.toml"]
    monkeypatch.undo()
    write_world(world, target)
    assert [p.name for p in tmp_path.iterdir()] == ["w.toml"]
    assert load_world(target).file == world.file


def test_invalid_world_is_not_written(tmp_path: Path):
    world = load_world(TINY)
    broken = msgspec.structs.replace(world.file, agent=[msgspec.structs.replace(world.file.agent[0], home="hal")])
    with pytest.raises(WorldError, match=r'agent\[0\].home: unknown place "hal"'):
        write_world(broken, tmp_path / "broken.toml")
    assert not (tmp_path / "broken.toml").exists()
    write_world(broken, tmp_path / "draft.toml", validate=False)  # drafts may be saved on purpose
    assert (tmp_path / "draft.toml").exists()


# Any text an author could type, including quotes, backslashes, newlines and non-Latin scripts; no control
# characters but tab and newline in texts and none in names (storyworld.world.limits: check refuses them).
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"),
                min_size=1, max_size=40).filter(str.strip)
names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(str.strip)
ids = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@st.composite
def worlds(draw) -> WorldFile:
    """Small valid worlds with arbitrary text."""
    place_ids = draw(st.lists(ids, min_size=1, max_size=4, unique=True))
    agent_ids = draw(st.lists(ids.filter(lambda i: i not in place_ids), min_size=1, max_size=4, unique=True))
    object_ids = draw(st.lists(ids.filter(lambda i: i not in agent_ids and i not in place_ids), max_size=3, unique=True))
    places = [
        Place(id=p, name=draw(names), description=draw(st.sampled_from(["", "x"])) or draw(texts),
              exits=[q for q in place_ids if q != p])
        for p in place_ids
    ]
    agents = [
        Agent(id=a, name=draw(names), home=draw(st.sampled_from(place_ids)), goals=draw(st.lists(texts, max_size=3)),
              status=draw(st.sampled_from(["active", "archived"])), playable=draw(st.booleans()))
        for a in agent_ids
    ]
    objects = []
    for o in object_ids:
        if draw(st.booleans()):
            objects.append(WorldObject(id=o, name=draw(names), holder=draw(st.sampled_from(agent_ids)), carries=draw(texts)))
        else:
            objects.append(WorldObject(id=o, name=draw(names), place=draw(st.sampled_from(place_ids))))
    rounds = sorted(draw(st.lists(st.integers(-10**6, 10**6), max_size=5)))
    events = []
    for n, r in enumerate(rounds):
        actors = draw(st.lists(st.sampled_from(agent_ids), min_size=1, max_size=2, unique=True))
        witnesses = draw(st.none() | st.just(sorted(set(actors) | set(draw(st.lists(st.sampled_from(agent_ids), max_size=3))))))
        events.append(Event(id=f"e{n}", round=r, place=draw(st.sampled_from(place_ids)), actors=actors,
                            witnesses=witnesses, kind=draw(st.sampled_from(["say", "act", "move", "observe", "narration"])),
                            text=draw(texts), statements=draw(st.lists(texts, max_size=3))))
    starts = [Start(id="s", round=draw(st.integers(-100, 100)), description=draw(texts),
                    positions={a: draw(st.sampled_from(place_ids)) for a in agent_ids[:2]})]
    return WorldFile(world=WorldInfo(id="w", title=draw(names), default_start="s"), place=places, agent=agents,
                     object=objects, event=events, start=starts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(world_file=worlds())
def test_round_trip_property(world_file: WorldFile, tmp_path: Path):
    path = write_world(world_file, tmp_path / "w.toml", validate=False)
    assert load_world(path).file == world_file
