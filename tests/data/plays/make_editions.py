"""Write one short invented five-act play, The Fall of Corvus, in three edition layouts.

Run `python tests/data/plays/make_editions.py` to regenerate corvus_*.txt. The text is our own;
the layouts imitate how public-domain editions set plays out (see ../shared/FORMATS.md):
- corvus_gutenberg.txt: licence header/footer, a contents list, `ACT I` / `SCENE I. Place.`,
  `NAME.` alone on a line, directions indented one space or in `[_..._]`;
- corvus_worldlib.txt: `ACT I. SCENE I.` with the place on the next line, `  NAME. speech` with
  indented continuation lines, right-aligned exits, `<<...>>` licence blocks inside the text;
- corvus_acting.txt: `ACT 1 SCENE 1` and `Scene 2` headings, names in small capitals alone on
  a line, speech indented, directions in parentheses;
- corvus_plain.txt: like the Gutenberg one but directions flush left without marks, `[Exeunt.]`
  right above the next `SCENE` line, `[Aside.]` opening a speech line;
- corvus_folio.txt: First Folio style: Latin headings (`Actus Primus. Scoena Prima.`, `Scena
  Secunda.`), mixed-case abbreviated speakers (`  Tul. text`), no dramatis personae, no places.
"""

from __future__ import annotations

from pathlib import Path

TITLE = "THE FALL OF CORVUS"
PERSONAE = [
    ("CORVUS", "consul of the city"),
    ("LIVIA", "wife to Corvus"),
    ("MARO", "a senator, leader of the plot"),
    ("TULLUS", "a senator, in the plot"),
    ("DECIMA", "a senator, in the plot"),
    ("TITUS", "friend to Corvus"),
    ("FULVIA", "wife to Maro"),
    ("LUCIUS", "a boy, servant to Maro"),
    ("A SOOTHSAYER", ""),
    ("GHOST OF CORVUS", ""),
    ("A MESSENGER", ""),
    ("Citizens, Senators, Soldiers, Guards", ""),
]
SETTING = "The city of Corvium, a camp near Velia, and the plains of Arven."

# (act, scene, heading, items). Items: ("dir", text) | ("say", NAME, text) | ("say", NAME, text, inline direction)
PLAY = [
    (1, 1, "Corvium. A street.", [
        ("dir", "Enter Titus and certain Citizens."),
        ("say", "TITUS", "Home, home, you idle crowd. Is this a feast day?"),
        ("say", "FIRST CITIZEN", "We come to see the consul pass, sir."),
        ("say", "SECOND CITIZEN", "And to cheer him, if he throws bread."),
        ("say", "TITUS", "Then cheer him well. Such days do not last.", "Exeunt."),
    ]),
    (1, 2, "The same. A public place.", [
        ("dir", "Flourish. Enter Corvus, Livia, Maro, Tullus, Decima, and a crowd; among them a Soothsayer."),
        ("say", "SOOTHSAYER", "Corvus! Beware the first day of the harvest month."),
        ("say", "CORVUS", "A dreamer. Let him pass."),
        ("say", "LIVIA", "My lord, I do not like his face."),
        ("say", "CORVUS", "Nor I his tune. Come, to the games.", "Sennet. Exeunt all but Maro and Tullus."),
        ("say", "TULLUS", "You saw how the crowd bowed to him?"),
        ("say", "MARO", "I saw. A city that bows will soon kneel."),
        ("say", "TULLUS", "Then read this when you are alone.", "Gives him a letter."),
        ("say", "MARO", "I will read it tonight.", "Exeunt."),
    ]),
    (1, 3, "The same. A street.", [
        ("dir", "Thunder and lightning. Enter Decima and Tullus, from opposite sides."),
        ("say", "DECIMA", "Did you ever see a night like this? The sky is torn."),
        ("say", "TULLUS", "The gods are angry, or they are with us."),
        ("say", "DECIMA", "Then let us go to Maro before morning.", "Exeunt."),
    ]),
    (2, 1, "Corvium. Maro's orchard.", [
        ("dir", "Enter Maro, with a letter."),
        ("say", "MARO", "Lucius, bring a light. I cannot sleep.", "Reads the letter."),
        ("dir", "Enter Lucius."),
        ("say", "LUCIUS", "Here is the taper, sir. The gate is knocking."),
        ("dir", "Enter Tullus and Decima."),
        ("say", "TULLUS", "We are all here. Shall we swear?"),
        ("say", "MARO", "No oath. Our cause is oath enough."),
        ("say", "DECIMA", "Then tomorrow, at the senate house.", "Exeunt Tullus and Decima."),
        ("dir", "Enter Fulvia."),
        ("say", "FULVIA", "Husband, you have not slept for three nights."),
        ("say", "MARO", "Go in, Fulvia. You shall know all soon.", "Exeunt."),
    ]),
    (2, 2, "A room in Corvus's house.", [
        ("dir", "Thunder. Enter Corvus and Livia."),
        ("say", "LIVIA", "Stay home today. I dreamt your statue ran with blood."),
        ("say", "CORVUS", "Dreams are only weather in the head."),
        ("dir", "Enter Decima."),
        ("say", "DECIMA", "Consul, the senate waits to crown you."),
        ("say", "CORVUS", "Then I will go. Livia, do not weep.", "Exeunt."),
    ]),
    (3, 1, "The senate house.", [
        ("dir", "Flourish. Enter Corvus, Maro, Tullus, Decima, Titus, Senators, and the Soothsayer."),
        ("say", "CORVUS", "The first day of the harvest month is come."),
        ("say", "SOOTHSAYER", "Ay, Corvus, but not gone."),
        ("say", "TULLUS", "Speak, hands, for me!", "They stab Corvus."),
        ("say", "CORVUS", "And you, Maro? Then fall, Corvus.", "Dies."),
        ("say", "MARO", "Liberty! Run, cry it about the streets."),
        ("say", "TITUS", "I will carry his body to the forum.", "Exeunt."),
    ]),
    (3, 2, "The forum.", [
        ("dir", "Enter Titus with the body of Corvus, and Citizens."),
        ("say", "TITUS", "Friends, look on him, and then look on Maro."),
        ("say", "FIRST CITIZEN", "Burn the traitors' houses!"),
        ("say", "SECOND CITIZEN", "Fire! Go, go!", "Exeunt Citizens."),
        ("say", "TITUS", "Now it works. Let it run where it will.", "Exit."),
    ]),
    (3, 3, "The steps of the temple.", [
        ("dir", "Enter Fulvia and Lucius."),
        ("say", "FULVIA", "Lucius, run to the senate and see how my lord fares."),
        ("say", "LUCIUS", "I go, madam. I hear a noise like a sea.", "Exeunt."),
    ]),
    (4, 1, "A room in Titus's house.", [
        ("dir", "Enter Titus and a Messenger."),
        ("say", "MESSENGER", "Maro and Tullus have fled the city with their friends."),
        ("say", "TITUS", "Then we follow them with every sword we have.", "Exeunt."),
    ]),
    (4, 2, "A camp near Velia. Before Maro's tent.", [
        ("dir", "Drum. Enter Maro, Lucius, and Soldiers; Tullus meeting them."),
        ("say", "MARO", "Stand, ho! Speak low. Come into my tent."),
        ("say", "TULLUS", "You wrong me, brother, and before the men.", "Exeunt."),
    ]),
    (4, 3, "Maro's tent.", [
        ("dir", "Enter Maro and Tullus."),
        ("say", "TULLUS", "Here is my dagger, and here my naked breast."),
        ("say", "MARO", "Put up your dagger. Fulvia is dead."),
        ("say", "TULLUS", "Dead? How?"),
        ("say", "MARO", "She swallowed fire.", "Exit Tullus."),
        ("dir", "Enter the Ghost of Corvus."),
        ("say", "GHOST", "You shall see me at Arven."),
        ("say", "MARO", "Why, I will see you then.", "Exit Ghost."),
    ]),
    (5, 1, "The plains of Arven.", [
        ("dir", "Enter Titus and his army."),
        ("say", "TITUS", "They come down to meet us. Hold the left."),
        ("dir", "Drum. Enter Maro, Tullus, and their army."),
        ("say", "MARO", "Words before blows, Titus?"),
        ("say", "TITUS", "Blows are the only words left.", "Exeunt."),
    ]),
    (5, 2, "The same. The field of battle.", [
        ("dir", "Alarum. Enter Maro and Lucius."),
        ("say", "MARO", "Ride, Lucius, and give these orders to the legions.", "Gives him a letter."),
        ("say", "LUCIUS", "I ride, sir.", "Exeunt."),
    ]),
    (5, 3, "Another part of the field.", [
        ("dir", "Alarums. Enter Tullus and Decima."),
        ("say", "TULLUS", "Our tents are on fire. This is my birthday, and my last."),
        ("say", "DECIMA", "Do not say so."),
        ("say", "TULLUS", "Hold my sword, and run me through.", "Dies."),
        ("say", "DECIMA", "He is slain by his own hand.", "Exit with the body."),
    ]),
    (5, 4, "Another part of the field.", [
        ("dir", "Alarum. Enter Maro and Lucius."),
        ("say", "MARO", "Farewell, Lucius. Hold the sword while I run on it."),
        ("say", "LUCIUS", "Sir, I will not."),
        ("say", "MARO", "Corvus, now be still.", "Dies."),
        ("dir", "Alarum. Retreat. Enter Titus and Soldiers."),
        ("say", "TITUS", "This was the noblest of them. Bear him to my tent.", "Exeunt."),
    ]),
]

HEADER = """The Project Gutenberg eBook of The Fall of Corvus

This eBook is for the use of anyone anywhere in the United States and
most other parts of the world at no cost and with almost no restrictions
whatsoever. You may copy it, give it away or re-use it under the terms
of the Project Gutenberg License included with this eBook or online at
www.gutenberg.org.

Title: The Fall of Corvus

Language: English

*** START OF THE PROJECT GUTENBERG EBOOK THE FALL OF CORVUS ***
"""
FOOTER = """
*** END OF THE PROJECT GUTENBERG EBOOK THE FALL OF CORVUS ***

Updated editions will replace the previous one--the old editions will
be renamed.

START: FULL LICENSE

THE FULL PROJECT GUTENBERG LICENSE
PLEASE READ THIS BEFORE YOU DISTRIBUTE OR USE THIS WORK

Section 1. General Terms of Use and Redistributing Project Gutenberg-tm
electronic works

1.A. By reading or using any part of this Project Gutenberg-tm
electronic work, you indicate that you have read, understand, agree to
and accept all the terms of this license.

PROJECT GUTENBERG LITERARY ARCHIVE FOUNDATION
"""
LIBRARY_NOTICE = """<<THIS ELECTRONIC VERSION OF THE FALL OF CORVUS IS PROVIDED BY THE
STORYWORLD TEST SUITE.  COPIES MAY BE DISTRIBUTED SO LONG AS SUCH COPIES
(1) ARE FOR YOUR OR OTHERS PERSONAL USE ONLY, AND (2) ARE NOT DISTRIBUTED
OR USED COMMERCIALLY.>>"""

ROMAN = ["", "I", "II", "III", "IV", "V"]
SMALL = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡxʏᴢ"))


def _small_caps(name: str) -> str:
    return " ".join(word[0] + "".join(SMALL.get(ch, ch) for ch in word[1:].upper()) for word in name.title().split())


def gutenberg() -> str:
    out = [HEADER, "", "", TITLE, "", "", "by the storyworld authors (written for these tests)", "", "", "Contents", ""]
    for act in range(1, 6):
        out.append(f"ACT {ROMAN[act]}")
        out += [f"Scene {ROMAN[s]}. {h}" for a, s, h, _ in PLAY if a == act]
        out.append("")
    out += ["", " Dramatis Personæ", ""]
    out += [f"{name}, {desc}." if desc else f"{name}." for name, desc in PERSONAE]
    out += ["", f"SCENE: {SETTING}", "", ""]
    act_now = 0
    for act, scene, heading, items in PLAY:
        if act != act_now:
            out += ["", f"ACT {ROMAN[act]}", ""]
            act_now = act
        out += [f"SCENE {ROMAN[scene]}. {heading}", ""]
        for item in items:
            if item[0] == "dir":
                out += [f" {item[1]}", ""]
                continue
            out += [f"{item[1]}.", item[2], ""]
            if len(item) > 3:
                out += [f" [_{item[3]}_]", ""]
        out.append("")
    out.append(FOOTER)
    return "\n".join(out)


def worldlib() -> str:
    out = ["1601", "", TITLE, "", "by the storyworld authors", "", "", "Dramatis Personae", ""]
    out += [f"  {name}, {desc}" if desc else f"  {name}" for name, desc in PERSONAE]
    out += ["", "", LIBRARY_NOTICE, "", "", f"SCENE: {SETTING}", "", ""]
    act_now = 0
    for act, scene, heading, items in PLAY:
        if act != act_now and act > 1:
            out += ["", LIBRARY_NOTICE, "", ""]
        act_now = act
        out += [f"ACT {ROMAN[act]}. SCENE {ROMAN[scene]}.", heading, ""]
        for item in items:
            if item[0] == "dir":
                out.append(item[1])
                continue
            words = item[2].split(". ")
            first, rest = words[0] + ("." if len(words) > 1 else ""), ". ".join(words[1:])
            out.append(f"  {item[1]}. {first}")
            if rest:
                out.append(f"    {rest}")
            if len(item) > 3:
                out.append(" " * 40 + item[3])
        out += ["", "", ""]
    out += ["THE END", "", LIBRARY_NOTICE]
    return "\n".join(out)


def acting() -> str:
    out = [TITLE.title(), "", "An acting edition", "", "CHARACTERS", ""]
    out += [f"{name.title()} - {desc}" if desc else name.title() for name, desc in PERSONAE]
    out += ["", ""]
    act_now = 0
    for act, scene, heading, items in PLAY:
        if act != act_now:
            out += ["", f"ACT {act} SCENE {scene}", heading, ""]
            act_now = act
        else:
            out += ["", f"Scene {scene}", heading, ""]
        for item in items:
            if item[0] == "dir":
                out += [f"({item[1]})", ""]
                continue
            out += [_small_caps(item[1]), f"    {item[2]}"]
            if len(item) > 3:
                out.append(f"    ({item[3]})")
            out.append("")
    return "\n".join(out)


def plain() -> str:
    out = [TITLE, "", "by the storyworld authors", "", "", "Dramatis Personæ", ""]
    out += [f"{name}, {desc}." if desc else f"{name}." for name, desc in PERSONAE]
    out += [f"SCENE: {SETTING}"]
    act_now = 0
    for act, scene, heading, items in PLAY:
        if act != act_now:
            out += [f"ACT {ROMAN[act]}"]
            act_now = act
        out += [f"SCENE {ROMAN[scene]}. {heading}", ""]
        for index, item in enumerate(items):
            if item[0] == "dir":
                out += [item[1], ""]
                continue
            text = item[2]
            if item[1] == "TULLUS" and "meet" in text:
                text = f"[Aside.] {text}"
            out += [f"{item[1]}.", text, ""]
            if len(item) > 3:
                out += [f"[{item[3]}]"]
                if index + 1 < len(items):
                    out.append("")
    return "\n".join(out)


LATIN_ACTS = ["", "Actus Primus", "Actus Secundus", "Actus Tertius", "Actus Quartus", "Actus Quintus"]
LATIN_SCENES = ["", "Prima", "Secunda", "Tertia", "Quarta", "Quinta", "Sexta"]


def folio() -> str:
    out = [f"[{TITLE.title()} by the storyworld authors]", "", ""]
    for act, scene, _heading, items in PLAY:
        if scene == 1:
            out += [f"{LATIN_ACTS[act]}. Scoena Prima.", ""]
        else:
            out += ["", f"Scena {LATIN_SCENES[scene]}.", ""]
        for item in items:
            if item[0] == "dir":
                out += [item[1], ""]
                continue
            name = item[1].title().replace("First ", "1. ").replace("Second ", "2. ")
            label = name if len(name) <= 5 or name[0].isdigit() else name[:4]
            words = item[2].split(" ")
            out.append(f"  {label}. {' '.join(words[:6])}")
            if words[6:]:
                out.append(" ".join(words[6:]))
            if len(item) > 3:
                out += ["", item[3]]
            out.append("")
    out += ["", "FINIS."]
    return "\n".join(out)


if __name__ == "__main__":
    here = Path(__file__).parent
    for name, make in (("gutenberg", gutenberg), ("worldlib", worldlib), ("acting", acting), ("plain", plain),
                       ("folio", folio)):
        (here / f"corvus_{name}.txt").write_text(make() + "\n", encoding="utf-8")
