"""Old etexts' dramatis personae and abbreviated mixed-case headings; places from the scene headings.

The fixture (tests/data/plays/aragon_mixed.txt) is our own short play set the way the 1998
Gutenberg etexts set theirs: a `Persons Represented.` list with wrapped and run-together entries,
speakers as `Glou.` / `Corn.` / `Cor.` alone on a line, headings carrying stage business.
"""

from __future__ import annotations

import pytest

from storyworld.authoring.play import parse_personae, parse_play
from storyworld.authoring.play.tokens import _front_matter
from storyworld.world import world_from_file
from tests.support.paths import PLAYS

ARAGON = PLAYS / "aragon_mixed.txt"


@pytest.fixture(scope="module")
def aragon():
    return parse_play(ARAGON.read_text(encoding="utf-8"), world_id="aragon")


def test_the_personae_list_reads_wrapped_run_together_and_crowd_entries():
    lines = ARAGON.read_text(encoding="utf-8").splitlines()
    _, personae_lines, setting = _front_matter(lines)
    personae = {p.name: p for p in parse_personae(personae_lines)}
    # "An English Doctor. A Scotch Doctor. A Porter. An Old / Man.": four kinds of people
    assert {"English Doctor", "Scotch Doctor", "Porter", "Old Man"} <= set(personae)
    assert not personae["Old Man"].named and not personae["Porter"].named
    # "HECUBA,and three Witches."; "Lords, Gentlemen, ..., / and Messengers."; "Poet, Painter, ..."
    assert personae["Hecuba"].named and "Witch" in personae and not personae["Witch"].named
    assert {"Lord", "Gentleman", "Officer", "Soldier", "Murderer", "Attendant", "Messenger"} <= set(personae)
    assert {"Poet", "Painter", "Jeweller", "Merchant"} <= set(personae)
    # names joined by "of" are names; a kind of person in capitals is not, and keeps what it is called
    assert personae["Duke of Cornavon"].named and personae["King of Navarre"].named
    assert not personae["Boy"].named and personae["Boy"].synonyms == ["Son"]
    assert personae["Mabel"].titles == ["Abbess"] and personae["King of Navarre"].titles == ["King"]
    assert "Scene" not in personae and setting == "Aragon."  # "Scene,--Aragon." is the setting


def test_abbreviated_headings_resolve_to_the_personae(aragon):
    figures = aragon.figures()
    assert figures["precision"] == 1.0 and figures["principal_recall"] == 1.0, figures
    agents = {a.id: a for a in aragon.world.agent}
    assert set(agents) == {
        "ferrand", "king-of-navarre", "corinna", "duke-of-cornavon", "earl-of-glossop", "edric", "mabel", "boy",
        "gentleman", "physician", "first-murderer", "second-murderer", "hecuba", "first-witch", "second-witch",
        "poet", "painter",
    }
    # `Corn.` is Cornavon, so `Cor.` is Corinna; `Glou.` is Glossop, a letter off; `Gent.`, `Phys.`
    assert "Corn" in agents["duke-of-cornavon"].aliases and "Cor" in agents["corinna"].aliases
    assert "Glou" in agents["earl-of-glossop"].aliases
    assert "Gent" in agents["gentleman"].aliases and "Phys" in agents["physician"].aliases
    # `King.` is the King of Navarre; `Abbess.` is Mabel; `Son.` is the Boy
    assert "King" in agents["king-of-navarre"].aliases and "Abbess" in agents["mabel"].aliases
    assert "Son" in agents["boy"].aliases
    assert world_from_file(aragon.world).warnings == []


def test_both_and_all_headings_are_the_people_on_stage(aragon):
    said = {e.text: e for e in aragon.world.event if e.kind == "say"}
    assert set(said["It shall be done before the moon is up."].actors) == {"first-murderer", "second-murderer"}
    assert set(said["Fall and call, and the crown goes to the wall."].actors) == {
        "hecuba", "first-witch", "second-witch"}


def test_two_names_on_one_heading_are_two_speakers():
    text = """ACT I

SCENE I. Rome. A street.

Enter VARRO and CLAUDIUS
VARRO
Sir, the night is cold, and the watch is long.
CLAUDIUS
Cold enough to keep a soldier honest.
VARRO
Then let us walk the wall and keep it so.
CLAUDIUS
Aye, and talk of nothing till the dawn.
VARRO CLAUDIUS
Good night, my lord.
Exeunt
"""
    parse = parse_play(text, world_id="x")
    assert [a.id for a in parse.world.agent] == ["varro", "claudius"]
    last = [e for e in parse.world.event if e.kind == "say"][-1]
    assert last.text == "Good night, my lord." and last.actors == ["varro", "claudius"]


def test_scene_headings_give_a_place_per_location(aragon):
    places = {p.id: p.name for p in aragon.world.place}
    assert [(s.act, s.number, s.place) for s in aragon.scenes] == [
        (1, 1, "room-of-state-in-palace"),
        (1, 2, "hall-in-palace"),  # "A Hall in the Palace; Glossop alone." without the business
        (2, 1, "room-in-palace"),
        (2, 2, "another-room-in-palace"),  # not the room of 2.1
        (2, 3, "yet-another-room-in-palace"),  # nor the other room of 2.2
        (3, 1, "before-king-tent-camp"),  # "The Camp. Before the King's tent." is within the camp
        (3, 2, "camp"),
        (4, 1, "valencia-room-in-palace"),  # another town's palace
        (5, 1, "churchyard"),  # a heading wrapped over two lines, its business dropped
        (5, 2, "churchyard"),  # "Another part of the churchyard"
    ]
    assert places["before-king-tent-camp"] == "Before the King's tent, the Camp"
    assert places["valencia-room-in-palace"] == "Room in the Palace, Valencia"
    assert places["churchyard"] == "Churchyard"


HEAD = """THE TRAGEDY OF A TEST

DRAMATIS PERSONAE

ALONZO, King of Sardinia
FRANCISCO,Lord
MASTER OF A SHIP
MARINERS
NYMPHS, presented by Spirits
Lords attending on the KING; Officers; Soldiers.
Roman and Volscian Senators, Patricians, Aediles, Lictors,
Soldiers, Citizens, Messengers, Servants to Alonzo, and other
Attendants

SCENE:
The sea, with a Ship; afterwards an Island

ACT FIRST.

SCENE I. Enter Gower, before the temple of Diana at Ephesus.

[Enter ALONZO and FRANCISCO.]

ALONZO.
The sea is calm tonight.

FRANCISCO.
Calm as the grave, my lord.
"""


def test_setting_lines_crowds_and_kinds_in_capitals():
    lines = HEAD.splitlines()
    _, personae_lines, setting = _front_matter(lines)
    personae = {p.name: p for p in parse_personae(personae_lines)}
    assert setting == "The sea, with a Ship; afterwards an Island"  # "SCENE:" alone, the setting below it
    assert personae["Francisco"].named and personae["Alonzo"].titles == ["King"]  # "King of Sardinia"
    assert not personae["Master of a Ship"].named
    assert not personae["Mariner"].named and not personae["Nymph"].named  # plural kinds in capitals
    assert "King" not in personae and "Lords attending on the KING" not in personae
    assert {"Senator", "Patrician", "Aedile", "Lictor", "Soldier", "Citizen", "Messenger", "Servant"} <= set(personae)
    parse = parse_play(HEAD, world_id="test")
    assert [(s.act, s.number) for s in parse.scenes] == [(1, 1)]  # "ACT FIRST."
    assert [p.name for p in parse.world.place] == ["Before the temple of Diana at Ephesus"]  # the entrance is no place


def test_the_scene_lies_line_is_the_setting():
    lines = ["Dramatis Personae", "", "OLIVER, eldest son", "", "The SCENE lies first near Oliver's house;", "", "ACT I."]
    _, personae_lines, setting = _front_matter(lines)
    assert [p.name for p in parse_personae(personae_lines)] == ["Oliver"]
    assert setting.startswith("The SCENE lies first")


def test_folio_numbered_heads_name_the_group_that_entered():
    from storyworld.authoring.play.editions import _numbered_heads

    lines = ["Thunder. Enter three Witches.", "", "  1. When shall we meet againe?", "In Thunder?",
             "  2. When the storme is done.", "   3. Ere the set of Sunne.", "  Macb. So foule a day."]
    assert _numbered_heads(lines) == [
        "Thunder. Enter three Witches.", "", "  1. Witch. When shall we meet againe?", "In Thunder?",
        "  2. Witch. When the storme is done.", "   3. Witch. Ere the set of Sunne.", "  Macb. So foule a day."]
    assert _numbered_heads(["  1. A numbered line with no group before it."]) == [
        "  1. A numbered line with no group before it."]


def test_spellings_of_one_name_are_one_person():
    from storyworld.authoring.play.personae import _spelling_variant

    assert _spelling_variant("macduff", "macduffe") and _spelling_variant("malcolme", "malcolm")
    assert _spelling_variant("donalbaine", "donalbain") and _spelling_variant("menteth", "menteith")
    assert not _spelling_variant("macbeth", "macduff") and not _spelling_variant("seyton", "seyward")
    assert not _spelling_variant("cato", "catho")  # too short to tell
