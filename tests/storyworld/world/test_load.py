"""Loading worlds: the tiny test world, the World API, warnings, and WorldError."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from storyworld.errors import UserError
from storyworld.world.schema import WorldFile
from storyworld.world import check_bytes, check_world, CheckReport, load_world, World, world_from_file, WorldError
from tests.support.paths import TINY


@pytest.fixture(scope="module")
def tiny() -> World:
    """The tiny test world, loaded once."""
    return load_world(TINY)


def test_tiny_is_clean():
    report = check_world(TINY)
    assert isinstance(report, CheckReport)
    assert report.ok and report.errors == [] and report.warnings == []
    assert report.world is not None


def test_tiny_tables_by_id(tiny: World):
    assert tiny.id == "tiny" and tiny.title == "The Keeper's Letter"
    assert list(tiny.places) == ["harbour", "tavern", "lighthouse", "chapel"]
    assert set(tiny.agents) == {"maren", "tobin", "ada", "silas", "elias"}
    assert tiny.agents["elias"].status == "archived"
    assert tiny.objects["letter"].holder == "tobin"
    assert tiny.objects["lamp"].place == "lighthouse"
    assert tiny.summary() == "5 agents, 4 places, 12 events, 2 starts, 3 objects"


def test_events_in_story_order(tiny: World):
    rounds = [event.round for event in tiny.events]
    assert rounds == sorted(rounds)
    assert tiny.events_by_id["t03"].witness_ids() == ["silas", "tobin", "elias"]
    # witnesses default to the actors
    assert tiny.events_by_id["t09"].witness_ids() == ["tobin", "maren"]


def test_start_points(tiny: World):
    assert tiny.start().id == "arrival"  # default_start
    assert tiny.start("confession").round == 6
    assert [e.id for e in tiny.events_before()] == ["t01", "t02", "t03", "t04", "t05", "t06", "t07"]
    assert len(tiny.events_before("confession")) == 12
    assert [e.id for e in tiny.events_from()][0] == "t08"
    with pytest.raises(WorldError, match='unknown start "dusk"'):
        tiny.start("dusk")


def test_start_without_default_is_first(tmp_path: Path):
    text = TINY.read_text().replace('default_start = "arrival"\n', "")
    path = tmp_path / "nodefault.toml"
    path.write_text(text)
    assert load_world(path).start().id == "arrival"


def test_positions_use_start_then_home(tiny: World):
    assert tiny.positions() == {"maren": "harbour", "tobin": "harbour", "ada": "tavern", "silas": "harbour"}
    assert tiny.positions("confession")["silas"] == "chapel"
    assert "elias" not in tiny.positions()  # archived agents are not on stage
    assert [a.id for a in tiny.playable_agents()] == ["maren", "tobin", "ada", "silas"]


def test_digest_is_blake2b_of_the_bytes(tiny: World):
    assert tiny.digest == hashlib.blake2b(TINY.read_bytes(), digest_size=32).hexdigest()
    assert load_world(TINY).digest == tiny.digest


def test_digest_changes_with_content(tmp_path: Path, tiny: World):
    path = tmp_path / "changed.toml"
    path.write_bytes(TINY.read_bytes() + b"\n# a comment\n")
    assert load_world(path).digest != tiny.digest


def test_world_error_is_a_user_error_listing_every_problem(tmp_path: Path):
    path = tmp_path / "x.toml"
    path.write_text(
        TINY.read_text()
        .replace('home = "tavern"', 'home = "hal"')
        .replace('holder = "tobin"', 'holder = "nobody"')
    )
    with pytest.raises(UserError) as caught:
        load_world(path)
    assert isinstance(caught.value, WorldError)
    problems = caught.value.problems
    assert len(problems) == 2
    assert 'agent[2].home: unknown place "hal"' in problems[0]
    assert problems[0].startswith(f"{path}: line ")
    assert 'object[0].holder: unknown agent "nobody"' in problems[1]
    assert str(caught.value) == "\n".join(problems)


def test_bom_is_accepted():
    report = check_bytes(b"\xef\xbb\xbf" + TINY.read_bytes(), name="bom.toml")
    assert report.ok


def test_missing_file_and_folder(tmp_path: Path):
    assert check_world(tmp_path / "none.toml").errors == [f"{tmp_path / 'none.toml'}: no such file"]
    assert "is a folder" in check_world(tmp_path).errors[0]


WARNED = '''
[world]
id = "warned"
title = "Warnings only"

[[place]]
id = "hall"
name = "Hall"
exits = ["yard", "hall"]

[[place]]
id = "yard"
name = "Yard"

[[agent]]
id = "ann"
name = "Ann"
home = "hall"

[[agent]]
id = "old"
name = "Old Ann"
home = "hall"
status = "archived"

[[event]]
id = "e1"
round = 1
place = "hall"
actors = ["ann"]
witnesses = ["old"]
kind = "act"
text = "Ann waves."

[[event]]
id = "e2"
round = 2
place = "yard"
kind = "move"
actors = []
text = "Wind crosses the yard."

[[start]]
id = "s"
round = 0
positions = { old = "yard" }
'''


def test_warnings_do_not_fail_the_world():
    report = check_bytes(WARNED.encode(), name="warned.toml")
    assert report.ok, report.errors
    text = "\n".join(report.warnings)
    assert 'place[0].exits[0]: one-way exit: "yard" has no exit back to "hall"' in text
    assert 'place[0].exits[1]: exit leads back to "hall" itself' in text
    assert 'event[0].witnesses: actor "ann" is not among the witnesses' in text
    assert 'archived agent "old" takes part at round 1' in text
    assert "event[1].witnesses: nobody witnesses this event" in text
    assert 'start[0].positions.old: archived agent "old" has a start position' in text
    assert report.world is not None and report.world.warnings == report.warnings
    # every warning names the file and, here, a line
    assert all(w.startswith("warned.toml: line ") for w in report.warnings)


def test_from_file_validates_in_memory_worlds(tiny: World):
    again = world_from_file(tiny.file)
    assert again.file == tiny.file
    broken = WorldFile(world=tiny.file.world, place=tiny.file.place, agent=[], start=tiny.file.start)
    with pytest.raises(WorldError, match=r"agent: no \[\[agent\]\] tables"):
        world_from_file(broken, name="draft")
