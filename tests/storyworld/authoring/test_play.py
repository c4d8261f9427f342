"""The play parser: our own short plays in both layouts, and Hamlet checked scene by scene by hand."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from storyworld.authoring.play import detect_layout, looks_like_play, parse_personae, parse_play
from storyworld.errors import UserError
from storyworld.world import check_world, world_from_file, write_world
from tests.support.paths import PLAYS


def _said(parse, act: int, scene: int, start: str):
    """The say event of a scene whose text starts with `start` (asides and within marks ignored)."""
    for event in parse.scene_events(act, scene):
        text = event.text.removeprefix("(aside) ").removeprefix("(within) ")
        if event.kind == "say" and text.startswith(start):
            return event
    raise AssertionError(f"no speech starting {start!r} in {act}.{scene}")


@pytest.fixture(scope="module")
def lantern():
    return parse_play((PLAYS / "lantern.txt").read_text(encoding="utf-8"), world_id="lantern")


@pytest.fixture(scope="module")
def salt_road():
    return parse_play((PLAYS / "salt_road.txt").read_text(encoding="utf-8"), world_id="salt-road")


# ------------------------------------------------------------------------------ our own plays


def test_layouts_are_told_apart():
    assert detect_layout((PLAYS / "lantern.txt").read_text(encoding="utf-8")) == "paragraph"
    assert detect_layout((PLAYS / "salt_road.txt").read_text(encoding="utf-8")) == "heading"
    assert looks_like_play((PLAYS / "salt_road.txt").read_text(encoding="utf-8"))
    assert not looks_like_play("Chapter 1\n\nIt was a dark night. Liu Bei rode to Zhuo.\n")


def test_paragraph_layout_world_passes_check_without_warnings(lantern, tmp_path):
    world = world_from_file(lantern.world)
    assert world.warnings == []
    path = write_world(lantern.world, tmp_path / "lantern.toml")
    report = check_world(path)
    assert report.ok and report.warnings == []


def test_paragraph_layout_scenes_places_and_cast(lantern):
    assert [(s.act, s.number) for s in lantern.scenes] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    # "The lantern room" is the lantern room at the top of the tower; "The harbour" is Gull Town's.
    assert [s.place for s in lantern.scenes] == [
        "lantern-room-at-top-of-tower", "harbour-of-gull-town", "lantern-room-at-top-of-tower", "harbour-of-gull-town",
    ]
    place = {p.id: p for p in lantern.world.place}
    assert place["lantern-room-at-top-of-tower"].exits == ["harbour-of-gull-town"]
    agents = {a.id: a for a in lantern.world.agent}
    assert set(agents) == {"odo", "maren", "piet", "harbourmaster", "first-fisher", "second-fisher", "messenger"}
    assert "Keeper" in agents["odo"].aliases  # "KEEPER." resolves through "Keeper of the Light"
    assert "1 Fisher" in agents["first-fisher"].aliases
    assert agents["maren"].description == "His daughter"
    assert agents["odo"].playable and not agents["messenger"].playable


def test_paragraph_layout_witnesses(lantern):
    keeper = _said(lantern, 1, 1, "How many masts")
    assert keeper.actors == ["odo"] and set(keeper.witnesses) == {"odo", "maren", "piet"}
    aside = _said(lantern, 1, 1, "She does not know")
    assert aside.witnesses == ["odo"]  # an aside is heard by nobody else
    alone = _said(lantern, 1, 1, "Two masts and no lights")
    assert alone.witnesses == ["maren"]  # "Exeunt all but Maren"
    fisher_aside = _said(lantern, 1, 2, "And twice it went")
    assert fisher_aside.actors == ["first-fisher"] and fisher_aside.witnesses == ["first-fisher"]
    after_fishers = _said(lantern, 1, 2, "Mind your tongue")
    assert set(after_fishers.witnesses) == {"harbourmaster", "maren"}
    within = _said(lantern, 2, 1, "Open the door")
    assert within.actors == ["harbourmaster"]
    assert set(within.witnesses) == {"odo", "maren", "piet", "harbourmaster"}
    after_death = _said(lantern, 2, 1, "Father, the lamp")
    assert set(after_death.witnesses) == {"odo", "maren", "piet"}
    both = _said(lantern, 2, 2, "God keep the keeper")
    assert set(both.actors) == {"first-fisher", "second-fisher"}
    assert "harbourmaster" in lantern.scene(2, 2).dead


def test_paragraph_layout_business_and_moves(lantern):
    events = lantern.scene_events(1, 2)
    gives = next(e for e in events if e.text == "Gives her a cask")
    assert gives.kind == "act" and gives.actors == ["harbourmaster"]
    dies = next(e for e in lantern.scene_events(2, 1) if "dies" in e.text)
    assert dies.kind == "act" and dies.actors == ["harbourmaster"]
    enter = lantern.scene_events(1, 1)[0]
    assert enter.kind == "move" and enter.actors == ["odo", "maren"]


def test_paragraph_layout_starts(lantern):
    starts = {s.id: s for s in lantern.world.start}
    assert lantern.world.world.default_start == "beginning"
    assert starts["beginning"].round == lantern.world.event[0].round
    assert starts["act-2"].positions["odo"] == "lantern-room-at-top-of-tower"
    rounds = [e.round for e in lantern.world.event]
    assert rounds == sorted(rounds)


def test_heading_layout(salt_road):
    assert salt_road.layout == "heading"
    assert [(s.act, s.number) for s in salt_road.scenes] == [(1, 1), (1, 2), (2, 1)]
    # "The toll bridge." in act 2 is the toll bridge over the Marl of act 1.
    assert salt_road.scenes[0].place == salt_road.scenes[2].place == "toll-bridge-over-marl"
    agents = {a.id: a for a in salt_road.world.agent}
    assert set(agents) == {"tessa", "bram", "warden", "ferryman"}
    assert "Tes" in agents["tessa"].aliases  # "Tes." resolves to Tessa
    said = _said(salt_road, 1, 1, "Two carters bound")
    assert said.actors == ["tessa"] and set(said.witnesses) == {"tessa", "bram", "warden"}
    assert said.text.endswith("spring market.")
    verse = _said(salt_road, 1, 1, "Hold the mule")
    assert verse.text == "Hold the mule, Bram. The bridge is raised, and no one raised it for us."
    aside = _said(salt_road, 1, 1, "And half of it")
    assert aside.witnesses == ["warden"]
    alone = _said(salt_road, 1, 1, "Go, then")
    assert alone.witnesses == ["warden"]
    told = _said(salt_road, 2, 1, "For half the toll")
    assert set(told.witnesses) == {"warden", "ferryman"}
    assert world_from_file(salt_road.world).warnings == []


def test_personae_prose_block():
    personae = parse_personae([
        "HAMLET, Prince of Denmark. CLAUDIUS, King of Denmark, Hamlet's uncle.",
        "The GHOST of the late king, Hamlet's father. GERTRUDE, the Queen, Hamlet's mother.",
        "FORTINBRAS, Prince of Norway. FRANCISCO, a Soldier OSRIC, Courtier. Two Clowns, Grave-diggers.",
    ])
    by_name = {p.name: p for p in personae}
    assert by_name["Claudius"].titles == ["King"]
    assert by_name["Gertrude"].titles == ["Queen"]
    assert by_name["Hamlet"].titles == []  # "Prince" is shared with Fortinbras, so it names nobody
    assert by_name["Osric"].description == "Courtier"
    assert by_name["Ghost"].description.startswith("The Ghost of the late king")
    assert by_name["Clown"].count == 2 and by_name["Clown"].synonyms == ["Grave-digger"]


def test_abbreviated_headings_resolve_through_personae():
    text = "\n".join([
        "THE TEST", "", "Dramatis Personae", "", "HAMLET, a prince", "CLAUDIUS, King of Denmark",
        "GERTRUDE, the Queen", "Two Clowns, Grave-diggers", "", "ACT I", "", "SCENE I. A churchyard.", "",
        " Enter Hamlet, the King, the Queen and two Clowns.", "",
        "Ham. Whose grave is this?", "", "King. Ask the clown.", "", "Queen. Be gentle.", "",
        "1 Clown. Mine, sir.", "", "Ham. Thine?", "", "First Gravedigger. Mine, and the worm's.", "",
        "2 Clown. And mine.", "", "King. Enough.", "", " [_Exeunt._]", "",
    ])
    parse = parse_play(text, world_id="test")
    speakers = [e.actors[0] for e in parse.world.event if e.kind == "say"]
    assert speakers == ["hamlet", "claudius", "gertrude", "first-clown", "hamlet", "first-clown", "second-clown", "claudius"]
    agents = {a.id: a for a in parse.world.agent}
    assert {"Ham"} <= set(agents["hamlet"].aliases)
    assert {"1 Clown", "First Gravedigger"} <= set(agents["first-clown"].aliases)
    assert set(parse.world.event[1].witnesses) == {"hamlet", "claudius", "gertrude", "first-clown", "second-clown"}


# ------------------------------------------------------------------------------ Hamlet (../shared)


@functools.lru_cache(maxsize=None)
def _parse_file(path: str):
    """Parse a play once per test session (the Hamlet tests share one parse)."""
    return parse_play(Path(path).read_text(encoding="utf-8"), world_id="hamlet")


@pytest.fixture
def hamlet(shared_dir):
    return _parse_file(str(shared_dir / "texts" / "hamlet.txt"))


def test_hamlet_has_all_twenty_scenes_and_passes_check(hamlet, tmp_path):
    assert [(s.act, s.number) for s in hamlet.scenes] == [
        (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (3, 4),
        (4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (4, 6), (4, 7), (5, 1), (5, 2),
    ]
    assert all(scene.speeches > 0 for scene in hamlet.scenes)
    path = write_world(hamlet.world, tmp_path / "hamlet.toml")
    report = check_world(path)
    assert report.ok, report.errors[:5]
    assert report.warnings == []
    assert {s.id for s in hamlet.world.start} == {"beginning", "act-2", "act-3", "act-4", "act-5"}


def test_hamlet_places(hamlet):
    places = {p.id: p.name for p in hamlet.world.place}
    assert places == {
        "platform-before-castle": "Platform before the Castle",
        "room-of-state-in-castle": "Room of state in the Castle",
        "room-in-polonius-house": "Room in Polonius’s house",
        "more-remote-part-of-castle": "More remote part of the Castle",
        "room-in-castle": "Room in the Castle",
        "hall-in-castle": "Hall in the Castle",
        "another-room-in-castle": "Another room in the Castle",
        "yet-another-room-in-castle": "Yet another room in the Castle",
        "plain-in-denmark": "Plain in Denmark",
        "churchyard": "Churchyard",
    }
    # "The platform" (1.4) is the platform of 1.1; "Another room in the Castle" (3.4) is not the room
    # of 3.3, and when "Another room" follows itself (4.2, 4.3) the second is yet another.
    assert hamlet.scene(1, 4).place == hamlet.scene(1, 1).place == "platform-before-castle"
    assert hamlet.scene(3, 3).place == "room-in-castle" and hamlet.scene(3, 4).place == "another-room-in-castle"
    assert hamlet.scene(4, 2).place == "another-room-in-castle" and hamlet.scene(4, 3).place == "yet-another-room-in-castle"


def test_hamlet_speaking_cast(hamlet):
    speakers = {actor for e in hamlet.world.event if e.kind == "say" for actor in e.actors}
    assert speakers == {
        "hamlet", "claudius", "gertrude", "ghost", "polonius", "laertes", "ophelia", "horatio",
        "fortinbras", "voltemand", "cornelius", "rosencrantz", "guildenstern", "marcellus", "barnardo",
        "francisco", "osric", "reynaldo", "first-player", "player-king", "player-queen",
        "gentleman", "priest", "first-clown", "second-clown", "captain", "first-ambassador",
        "lord", "servant", "messenger", "first-sailor",
    }
    # Unlisted in the dramatis personae, a few lines each: voices, quoted in narration.
    voiced = [e.text for e in hamlet.world.event if e.kind == "narration" and e.text.startswith(("Prologue: “", "Lucianus: “", "Danes: “"))]
    assert len(voiced) >= 3 and any("Thoughts black, hands apt" in t for t in voiced)
    agents = {a.id: a for a in hamlet.world.agent}
    assert agents["claudius"].aliases == ["King"] and agents["gertrude"].aliases == ["Queen"]
    assert "First Gravedigger" in agents["first-clown"].aliases
    assert agents["hamlet"].description == "Prince of Denmark"


def test_hamlet_1_1_on_the_platform(hamlet):
    events = hamlet.scene_events(1, 1)
    assert events[0].kind == "move" and set(events[0].actors) == {"francisco", "barnardo"}
    first = _said(hamlet, 1, 1, "Who’s there?")
    assert first.actors == ["barnardo"] and set(first.witnesses) == {"barnardo", "francisco"}
    relief = _said(hamlet, 1, 1, "I think I hear them")
    assert set(relief.witnesses) == {"barnardo", "francisco", "horatio", "marcellus"}
    after_exit = _said(hamlet, 1, 1, "Holla, Barnardo!")
    assert after_exit.actors == ["marcellus"]
    assert set(after_exit.witnesses) == {"barnardo", "horatio", "marcellus"}
    ghost_seen = _said(hamlet, 1, 1, "In the same figure")
    assert set(ghost_seen.witnesses) == {"barnardo", "horatio", "marcellus", "ghost"}
    ghost_gone = _said(hamlet, 1, 1, "’Tis gone, and will not answer")
    assert set(ghost_gone.witnesses) == {"barnardo", "horatio", "marcellus"}
    assert hamlet.scene(1, 1).present == ["francisco", "barnardo", "horatio", "marcellus", "ghost"]


def test_hamlet_3_4_the_closet(hamlet):
    assert set(_said(hamlet, 3, 4, "He will come straight").witnesses) == {"gertrude", "polonius"}
    within = _said(hamlet, 3, 4, "Mother, mother, mother")
    assert within.actors == ["hamlet"] and set(within.witnesses) == {"gertrude", "polonius", "hamlet"}
    arras = next(e for e in hamlet.scene_events(3, 4) if "behind the arras" in e.text)
    assert arras.kind == "act" and arras.actors == ["polonius"]
    # Behind the arras Polonius is still on stage: he hears the quarrel.
    quarrel = _said(hamlet, 3, 4, "Mother, you have my father much offended")
    assert set(quarrel.witnesses) == {"gertrude", "hamlet", "polonius"}
    slain = _said(hamlet, 3, 4, "O, I am slain!")
    assert slain.actors == ["polonius"]
    dies = next(e for e in hamlet.scene_events(3, 4) if e.text == "Falls and dies")
    assert dies.actors == ["polonius"]
    after = _said(hamlet, 3, 4, "O me, what hast thou done?")
    assert set(after.witnesses) == {"gertrude", "hamlet"}
    ghost = _said(hamlet, 3, 4, "Do not forget")
    assert ghost.actors == ["ghost"] and set(ghost.witnesses) == {"gertrude", "hamlet", "ghost"}
    assert "polonius" in hamlet.scene(4, 1).dead


def test_hamlet_5_2_the_duel(hamlet):
    opening = _said(hamlet, 5, 2, "So much for this, sir")
    assert set(opening.witnesses) == {"hamlet", "horatio"}
    court = _said(hamlet, 5, 2, "Come, Hamlet, come, and take this hand")
    assert court.actors == ["claudius"]
    assert set(court.witnesses) == {"hamlet", "horatio", "claudius", "gertrude", "laertes", "osric", "lord"}
    stab = next(e for e in hamlet.scene_events(5, 2) if e.text == "Stabs the King")
    assert stab.actors == ["hamlet"]
    after_queen = _said(hamlet, 5, 2, "It is here, Hamlet")
    assert "gertrude" not in after_queen.witnesses and "claudius" in after_queen.witnesses
    fortinbras = _said(hamlet, 5, 2, "Where is this sight?")
    assert set(fortinbras.witnesses) == {"horatio", "osric", "lord", "fortinbras", "first-ambassador"}


def test_hamlet_aside_is_heard_by_the_speaker_only(hamlet):
    aside = _said(hamlet, 1, 2, "A little more than kin")
    assert aside.actors == ["hamlet"] and aside.witnesses == ["hamlet"]


def test_acts_without_scenes_and_non_plays():
    text = "\n".join([
        "A SHORT PIECE", "", "ACT I", "", " Enter Ada and Bo.", "", "ADA. The lamp is out.", "", "BO. Then light it.", "",
        " [_Exeunt._]", "", "ACT II", "", " Enter Ada.", "", "ADA. It burns.", "",
    ])
    parse = parse_play(text, world_id="short")
    assert [(s.act, s.number) for s in parse.scenes] == [(1, 1), (2, 1)]
    assert world_from_file(parse.world).warnings == []
    with pytest.raises(UserError, match="is this a play"):
        parse_play("Chapter 1\n\nLiu Bei rode to Zhuo. He met Zhang Fei there.\n", world_id="prose")
