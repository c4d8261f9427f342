"""Every speech of a play without a dramatis personae becomes a say event of its speaker (issue 21).

The three plays are our own, written for this test: short lines that open with another
character's name (`Maren, come here now.`, `Tobias. Yes.`), speakers who speak once or twice.
Each play's speeches are counted here from the form they were written in, not by the parser.
"""

from __future__ import annotations

import re

import pytest

from storyworld.authoring.play import detect_layout, parse_play
from storyworld.world import world_from_file
from tests.support.paths import PLAYS


def _headed_speeches(text: str, heading: str) -> list[tuple[str, str]]:
    """(speaker, words) for each speaker heading alone on its line with the speech indented under it."""
    lines = text.split("\n")
    speeches = []
    for index, line in enumerate(lines):
        match = re.fullmatch(heading, line)
        if match and index + 1 < len(lines) and lines[index + 1].startswith("  "):
            said = []
            for under in lines[index + 1:]:
                if not under.startswith("  "):
                    break
                said.append(under.strip())
            speeches.append((match.group("speaker"), " ".join(said)))
    return speeches


def _paragraph_speeches(text: str) -> list[tuple[str, str]]:
    """(speaker, words) for each paragraph that opens at the margin with `Name. `."""
    return [(m.group("speaker"), m.group("said")) for m in re.finditer(r"^(?P<speaker>[A-Z][a-z]+)\. (?P<said>.+)$", text, re.M)]


FORMS = {
    "net_menders.txt": ("heading", lambda text: _headed_speeches(text, r"(?P<speaker>[A-Z]{2,})")),
    "tide_clock.txt": ("heading", lambda text: _headed_speeches(text, r"(?P<speaker>[A-Z][a-z]+)\.")),
    "salt_wife.txt": ("paragraph", _paragraph_speeches),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_speech_is_a_say_event_of_its_speaker(name):
    text = (PLAYS / name).read_text(encoding="utf-8")
    layout, speeches_of = FORMS[name]
    speeches = speeches_of(text)
    assert len(speeches) >= 20  # the counting form found the play's speeches
    parse = parse_play(text, world_id=name.removesuffix(".txt"))
    assert parse.layout == detect_layout(text) == layout
    says = [(event.actors, event.text) for event in parse.world.event if event.kind == "say"]
    assert says == [([speaker.lower()], said) for speaker, said in speeches]
    assert {speaker.lower() for speaker, _ in speeches} == {agent.id for agent in parse.world.agent}
    assert world_from_file(parse.world).warnings == []


def test_lines_under_a_speaker_heading_are_not_folio_speech_prefixes():
    """`TOBIAS` / `  Maren. Yes. I saw them.`: the indented line is Tobias speaking, not Maren."""
    parse = parse_play((PLAYS / "net_menders.txt").read_text(encoding="utf-8"), world_id="net-menders")
    first = parse.scene_events(1, 1)
    said = {event.text: event.actors for event in first if event.kind == "say"}
    assert said["Maren. Yes. I saw them. Somebody cut them in the night."] == ["tobias"]
    assert said["Tobias. Come here now. The nets are torn again."] == ["maren"]
