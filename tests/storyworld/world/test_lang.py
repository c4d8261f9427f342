"""The language pack (storyworld/world/lang) and the canon's typed staging: words as data, read once; an
authored play marks its stage business, asides and voices from within; minds hold them and never tell them."""

from __future__ import annotations


import msgspec
import pytest

from memory.records import Holding, Record
from storyworld.authoring.common import is_stage_business
from storyworld.authoring.pipeline import author_source
from storyworld.minds import content
from storyworld.world import load_world, world_from_file
from storyworld.world.lang import English, english
from tests.support.paths import DATA, REPO as ROOT



def test_the_english_pack_is_read_once_into_a_strict_struct():
    pack = english()
    assert english() is pack  # cached: the file is read once
    assert {"i", "you", "thou"} <= pack.person and {"enter", "exeunt", "flourish"} <= pack.stage_business
    assert pack.stage_business <= pack.stage_openings and "afar" in pack.stage_fillers
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        msgspec.toml.decode('person = []\nstage_business = []\nstage_openings = []\nstage_fillers = []\n'
                            'verbs = []\n', type=English)


@pytest.mark.parametrize(("direction", "business"), [
    ("Enter Hamlet and Horatio", True), ("Re-enter Ghost", True), ("Flourish of trumpets", True),
    ("Music within", True), ("Exeunt", True), ("They fight", False), ("Hamlet stabs Polonius", False),
])
def test_stage_business_is_a_direction_that_opens_with_a_stage_word(direction, business):
    assert is_stage_business(direction) is business


def test_an_authored_play_marks_its_staging_as_a_typed_field():
    world = author_source(DATA / "plays" / "lantern.txt", kind="play").world
    by_text = {e.text: e for e in world.event}
    staged = {e.text for e in world.event if e.staging}
    assert {"Enter Odo and Maren", "Exeunt all but Maren", "Exit", "(within) Open the door, Keeper!"} <= staged
    assert any(t.startswith("(aside) ") for t in staged)
    assert not by_text["The Harbourmaster falls down the stair and dies"].staging  # a deed is story
    assert not by_text["Gives her a cask"].staging
    assert not any(e.staging for e in world.event if e.kind == "say" and not e.text.startswith("("))
    assert world_from_file(world).staging_events == {e.id for e in world.event if e.staging}


def _record(event_id: str, text: str, kind: str = "event") -> Record:
    return Record(id=1, text=text, kind=kind, event_id=event_id, sediment=True,  # type: ignore[arg-type]
                  owners={"horatio": Holding(via="sediment")})


def test_a_staged_record_is_held_but_never_told():
    """Hamlet's trumpets are marked `staging` in the world file: Horatio holds them and does not tell them; the
    same words from an event that is story would be told (no word list decides it)."""
    hamlet = load_world(ROOT / "worlds" / "hamlet.toml")
    assert hamlet.staging_events == {"e0103"}
    trumpets = "Trumpets sound and cannon fire from the castle below."
    assert not content._usable(hamlet, _record("e0103", trumpets), "horatio")
    assert content._usable(hamlet, _record("e0104", trumpets), "horatio")
    # the word "aside" decides nothing (only the field does): a quotable line of the canon
    assert content._usable(hamlet, _record("e0103x", "(aside) He is the king's man and no friend.", "utterance"),
                           "horatio")
    assert not content.is_statement("I saw the trumpeters on the wall.")  # first person: a line, not a fact
