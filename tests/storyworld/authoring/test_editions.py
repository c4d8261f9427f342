"""Play editions in several layouts: our own five-act play in three, and Hamlet re-set into two more."""

from __future__ import annotations

import re

import pytest

from storyworld.authoring.play.editions import is_direction_line, is_stage_words, normalize_edition
from storyworld.authoring.play import parse_play
from storyworld.world import world_from_file
from tests.support.paths import PLAYS

LAYOUTS = ["gutenberg", "worldlib", "acting", "plain"]
CORVUS_CAST = {
    "titus", "first-citizen", "second-citizen", "corvus", "livia", "maro", "tullus", "decima", "soothsayer",
    "lucius", "fulvia", "messenger", "ghost-of-corvus",
}


def _corvus(layout: str):
    return parse_play((PLAYS / f"corvus_{layout}.txt").read_text(encoding="utf-8"), world_id="corvus")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_gives_the_same_cast_places_and_starts(layout):
    parse = _corvus(layout)
    figures = parse.figures()
    assert {a.id for a in parse.world.agent} == CORVUS_CAST
    assert figures["precision"] == 1.0 and figures["principal_recall"] == 1.0
    assert [(s.act, s.number) for s in parse.scenes][:4] == [(1, 1), (1, 2), (1, 3), (2, 1)]
    assert figures["scenes"] == 15 and figures["starts"] == 5  # a start per act
    assert [s.id for s in parse.world.start] == ["beginning", "act-2", "act-3", "act-4", "act-5"]
    assert figures["stage_words_as_agents"] == [] and figures["stage_words_as_places"] == []
    assert world_from_file(parse.world).warnings == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scene_headings_give_places(layout):
    parse = _corvus(layout)
    places = {p.id: p.name for p in parse.world.place}
    assert len(places) == 12
    # "The same. A street." is the street of 1.1; "Another part of the field" is the field of battle.
    assert parse.scene(1, 3).place == parse.scene(1, 1).place == "street"
    assert parse.scene(5, 3).place == parse.scene(5, 4).place == parse.scene(5, 2).place == "field-of-battle"
    assert places["field-of-battle"] == "Field of battle"
    assert not any(re.search(r"thunder|drum|alarum|flourish", name, re.I) for name in places.values())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_stage_directions_are_business_not_speech(layout):
    parse = _corvus(layout)
    says = [e for e in parse.world.event if e.kind == "say"]
    assert not any(re.search(r"\b(Drum|Alarum|Thunder|Flourish|Enter)\b", e.text) for e in says)
    # The speech before "Drum. Enter Maro..." in 5.1 ends where Titus stopped.
    hold = next(e for e in says if e.text.startswith("They come down"))
    assert hold.text == "They come down to meet us. Hold the left." and hold.actors == ["titus"]
    drum = next(e for e in parse.scene_events(5, 1) if e.text == "Drum")
    assert drum.kind == "narration" and drum.actors == []
    enter = next(e for e in parse.scene_events(5, 1) if e.kind == "move" and "maro" in e.actors)
    assert set(enter.actors) == {"maro", "tullus"}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_props_and_deaths(layout):
    parse = _corvus(layout)
    objects = {o.id: o for o in parse.world.object}
    letter = objects["letter"]
    assert letter.holder == "tullus" and "maro" in letter.carries  # given to Maro, who reads it
    assert objects["dagger"].holder == "tullus"
    starts = {s.id: s for s in parse.world.start}
    assert starts["act-4"].absent == ["corvus"] and "corvus" not in starts["act-4"].positions
    assert "tullus" in parse.scene(5, 4).dead  # "Dies." after his last line
    dies = [e for e in parse.world.event if e.text == "Dies"]
    assert [e.actors for e in dies] == [["corvus"], ["tullus"], ["maro"]]
    after = [e for e in parse.scene_events(3, 2) if e.kind == "say"]
    assert all("corvus" not in e.witnesses for e in after)


def test_first_folio_layout_without_personae_or_places():
    parse = _corvus("folio")
    # `Actus Primus. Scoena Prima.`, `Scena Secunda.`; `Tull.` is the Tullus the entrances bring on.
    assert [(s.act, s.number) for s in parse.scenes][:3] == [(1, 1), (1, 2), (1, 3)]
    assert {a.id for a in parse.world.agent} == (CORVUS_CAST - {"ghost-of-corvus"}) | {"ghost"}
    assert len(parse.world.start) == 5 and len(parse.scenes) == 15
    figures = parse.figures()
    assert figures["precision"] is None and figures["stage_words_as_agents"] == []
    hold = next(e for e in parse.world.event if e.kind == "say" and e.text.startswith("They come down"))
    assert hold.text == "They come down to meet us. Hold the left." and hold.actors == ["titus"]
    assert {s.id: s for s in parse.world.start}["act-4"].absent == ["corvus"]
    assert world_from_file(parse.world).warnings == []


def test_stage_words():
    for label in ["Alarum", "ALARUMS", "Drum", "Thunder and lightning", "Flourish", "Exeunt", "Dies", "Sennet"]:
        assert is_stage_words(label), label
    for label in ["CASSIUS", "First Witch", "Soothsayer", "ALL"]:
        assert not is_stage_words(label), label
    assert is_direction_line("Thunder and lightning. Enter three Witches.")
    assert is_direction_line("Drum. Enter Brutus.")
    assert is_direction_line("A march afar off.") and not is_direction_line("A Sergeant.")
    assert not is_direction_line("Soft you now, the fair Ophelia.")
    assert not is_direction_line("[_Sings._] How should I your true love know")


def test_licence_matter_is_dropped():
    text = normalize_edition((PLAYS / "corvus_gutenberg.txt").read_text(encoding="utf-8"))
    assert "Project Gutenberg" not in text and "LICENSE" not in text
    worldlib = normalize_edition((PLAYS / "corvus_worldlib.txt").read_text(encoding="utf-8"))
    assert "<<" not in worldlib and "ELECTRONIC VERSION" not in worldlib
    assert "SCENE I. Corvium. A street." in worldlib  # `ACT I. SCENE I.` + the place on the next line


def test_a_licence_without_its_end_marker_gives_no_speakers():
    text = (PLAYS / "corvus_gutenberg.txt").read_text(encoding="utf-8").replace("*** END OF THE PROJECT", "END THE")
    text += "\n\n1.F.3. LIMITED RIGHT OF REPLACEMENT OR REFUND - If you discover a defect\n\nINCIDENTAL\nDAMAGE.\n\n"
    text += "1.F.4. Except for the limited right of replacement set forth in paragraph 1.F.3\n"
    ids = {a.id for a in parse_play(text, world_id="corvus").world.agent}
    assert ids == CORVUS_CAST


# ------------------------------------------------------------------------------ Hamlet re-set (../shared)


def _caps_alone(text: str) -> str:
    """Hamlet's `NAME. speech` paragraphs set as `NAME.` alone on a line, the speech under it."""
    return re.sub(r"(?m)^(?!SCENE|ACT)([A-Z][A-Z’' ]+[A-Z])\. (?=\S)", r"\1.\n", text)


def _world_library(text: str) -> str:
    """Hamlet set like the old complete works: `ACT I. SCENE I.` / place line, `  NAME. speech` lines packed."""
    out: list[str] = []
    act = ""
    for paragraph in re.split(r"\n\s*\n", text):
        lines = paragraph.split("\n")
        joined = " ".join(l.strip() for l in lines)
        if re.fullmatch(r"ACT [IVX]+", joined):
            act = joined
            continue
        scene = re.match(r"^SCENE ([IVX]+)\. (.*)$", joined)
        if scene and act:
            out += ["", "", f"{act}. SCENE {scene.group(1)}.", scene.group(2), ""]
            continue
        if re.match(r"^[A-Z][A-Z’' ]+[A-Z]\. ", joined) and act:
            words = joined.split(" ")
            out.append("  " + " ".join(words[:8]))
            if words[8:]:
                out.append("    " + " ".join(words[8:]))
            continue
        out.append(paragraph.strip() if act else paragraph)
    return "\n".join(out)


SMALL_CAPS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡxʏᴢ"))


def _acting(text: str) -> str:
    """Hamlet with names in small capitals alone on a line, speech indented, directions in parentheses."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        joined = " ".join(line.strip() for line in paragraph.split("\n"))
        speech = re.match(r"^(?!SCENE|ACT)([A-Z][A-Z’' ]+[A-Z])\. (.*)$", joined)
        if speech:
            name = " ".join(w[0] + "".join(SMALL_CAPS.get(c, c) for c in w[1:].upper()) for w in speech.group(1).title().split())
            out += [name, "    " + speech.group(2), ""]
        elif paragraph.startswith(" ") and re.search(r"Enter|Exit|Exeunt|\[_", joined):
            out += ["(" + joined.strip().strip("[]_") + ")", ""]
        else:
            out += [paragraph, ""]
    return "\n".join(out)


def _plain(text: str) -> str:
    """Hamlet with `NAME.` alone on a line and directions flush left (`Enter ...`, `[Exit.]`)."""
    text = re.sub(r"(?m)^ (Enter|Re-enter|Exit|Exeunt)", r"\1", _caps_alone(text))
    return re.sub(r"(?m)^ \[_(.*?)_\]$", r"[\1]", text)


@pytest.fixture
def hamlet_text(shared_dir):
    return (shared_dir / "texts" / "hamlet.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("reset", [_caps_alone, _world_library, _acting, _plain])
def test_hamlet_in_other_layouts(hamlet_text, reset):
    parse = parse_play(reset(hamlet_text), world_id="hamlet")
    figures = parse.figures()
    assert figures["scenes"] == 20 and figures["acts"] == 5 and figures["starts"] == 5
    assert figures["principal_recall"] == 1.0, figures["missing_principals"]
    # Danes, Lucianus and the Prologue speak but are not listed: voices in the canon, not agents.
    assert figures["precision"] == 1.0, figures["outside_personae"]
    assert figures["places"] == 10
    assert figures["stage_words_as_agents"] == [] and figures["stage_words_as_places"] == []
    speakers = {a for e in parse.world.event if e.kind == "say" for a in e.actors}
    assert {"hamlet", "claudius", "gertrude", "ghost", "horatio", "ophelia", "polonius", "laertes"} <= speakers
    # Every speech is kept (a few merge where a paragraph break no longer splits them).
    original = sum(1 for e in parse_play(hamlet_text, world_id="hamlet").world.event if e.kind == "say")
    assert sum(1 for e in parse.world.event if e.kind == "say") >= 0.95 * original


def test_hamlet_props_and_the_dead(hamlet_text):
    parse = parse_play(hamlet_text, world_id="hamlet")
    objects = {o.id: o for o in parse.world.object}
    letters = [o for o in objects.values() if o.holder == "horatio"]
    assert letters and letters[0].carries.startswith("‘Horatio, when thou shalt have overlooked this")
    polonius_letter = next(o for o in objects.values() if o.holder == "polonius")
    assert "most beautified Ophelia" in polonius_letter.carries and "Doubt thou the stars" in polonius_letter.carries
    # Lucianus, who pours the poison, is a voice (unlisted): the poison lies where the play is played.
    assert objects["poison"].holder is None and objects["poison"].place == "hall-in-castle"
    assert objects["skull"].holder == "first-clown"
    starts = {s.id: s for s in parse.world.start}
    assert starts["act-4"].absent == ["polonius"] and starts["act-5"].absent == ["polonius"]


def test_a_verse_line_that_opens_with_a_name_is_not_a_speaker():
    speech = ["  Bru. The games are done, and Caesar rides", "    in triumph. Pompey. Many a time", "    Pompey. Many a time and oft"]
    lines = ["A TEST", "", "Actus Primus. Scoena Prima.", "", "Enter Brutus and Cassius.", ""]
    for _ in range(6):
        lines += [*speech, "", "  Cas. So say you.", ""]
    lines += ["Exeunt."]
    parse = parse_play("\n".join(lines), world_id="test")
    assert {a.id for a in parse.world.agent} == {"brutus", "cassius"}
    first = next(e for e in parse.world.event if e.kind == "say")
    assert first.text.endswith("Pompey. Many a time and oft")


def test_an_entrance_right_above_a_speech_line_ends_at_its_full_stop():
    lines = ["A TEST", "", "ACT I", "", "SCENE I. A heath.", "", "Enter Duncan and Ross.", "", "DUNCAN.",
             "Who comes here?", "Enter Angus.", "Welcome, Angus.", "", "ANGUS.", "Good morrow,", "my lord.", "",
             "Enter Macbeth, with a letter from", "the king of Norway.", "DUNCAN.", "Cousin!", "", "[Exeunt.]"]
    parse = parse_play("\n".join(lines * 1), world_id="test")
    says = [(e.actors[0], e.text) for e in parse.world.event if e.kind == "say"]
    assert says == [("duncan", "Who comes here?"), ("duncan", "Welcome, Angus."), ("angus", "Good morrow, my lord."),
                    ("duncan", "Cousin!")]
    assert {a.id for a in parse.world.agent} == {"duncan", "angus"}  # no personae: the speakers


def test_a_death_told_in_speech_holds_until_the_dead_walk_on():
    lines = ["A TEST", "", "Dramatis Personae", "", "CLAUDIO, a lord", "HERO, a lady", "FRIAR, a friar", "",
             "ACT I", "", "SCENE I. A church.", "", " Enter Claudio and Friar.", "",
             "FRIAR. Hero is dead. So we must say.", "", "CLAUDIO. Then I mourn her.", "", " [_Exeunt._]", "",
             "ACT II", "", "SCENE I. The same.", "", " Enter Claudio and Friar.", "",
             "CLAUDIO. Is Hero dead? Tell me true.", "", "FRIAR. Wait and see.", "", " [_Exeunt._]", "",
             "ACT III", "", "SCENE I. A hall.", "", " Enter Hero and Claudio.", "", "HERO. I live.", "",
             "CLAUDIO. O joy!", "", " [_Exeunt._]", "", "ACT IV", "", "SCENE I. A hall.", "", " Enter Claudio.", "",
             "CLAUDIO. All is well.", ""]
    starts = {s.id: s for s in parse_play("\n".join(lines), world_id="test").world.start}
    assert starts["act-2"].absent == ["hero"] and starts["act-3"].absent == ["hero"]
    assert starts["act-4"].absent == []  # she walked on in act 3: the report was false


def test_speech_headings_find_fuller_persona_names():
    personae = [
        "Dramatis Personæ", "", "JULIUS CAESAR", "OCTAVIUS CAESAR, Triumvir after his death.", "MARCUS ANTONIUS, ” ” ”",
        "M. AEMILIUS LEPIDUS, ” ” ”", "CICERO, PUBLIUS, POPILIUS LENA, Senators.", "MARCUS BRUTUS, a conspirator.",
        "FLAVIUS and MARULLUS, Tribunes.", "Senators, Citizens, Guards, Attendants, &c.", "",
    ]
    body = ["ACT I", "", "SCENE I. Rome. A street.", "", " Enter Caesar, Antony, Octavius, Lepidus, Brutus and Cicero.", ""]
    for label, line in [("CAESAR", "Peace, ho."), ("ANTONY", "Caesar, my lord?"), ("OCTAVIUS", "I am here."),
                        ("LEPIDUS", "And I."), ("BRUTUS", "Beware."), ("CICERO", "Strange times."),
                        ("PUBLIUS", "Good morrow."), ("FLAVIUS", "Home, home.")]:
        body += [f"{label}.", line, ""]
    parse = parse_play("\n".join(["A PLAY", "", *personae, *body, " [_Exeunt._]"]), world_id="jc")
    agents = {a.id: a for a in parse.world.agent}
    assert set(agents) == {"julius-caesar", "octavius-caesar", "marcus-antonius", "aemilius-lepidus", "marcus-brutus",
                           "cicero", "publius", "flavius"}
    assert "Antony" in agents["marcus-antonius"].aliases
    assert agents["aemilius-lepidus"].description == "Triumvir after his death"  # ditto marks
    assert agents["publius"].description == "Senators"
    assert parse.figures()["precision"] == 1.0
    enter = parse.world.event[0]
    assert set(enter.actors) == {"julius-caesar", "marcus-antonius", "octavius-caesar", "aemilius-lepidus",
                                 "marcus-brutus", "cicero"}
