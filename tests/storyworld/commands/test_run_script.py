"""`run --as A --script FILE` plays the person's lines, and `log --json` gives the promised fields (real model)."""

from __future__ import annotations

import json

import pytest

from storyworld.cli import main
from tests.support.paths import TINY

FIELDS = {"round", "place", "actor", "kind", "text", "speech", "to", "target", "verb", "from_place", "to_place",
          "witnesses", "fallback", "act", "tells", "rendered"}

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder]


def test_a_scripted_run_logs_the_players_lines_and_every_event(tmp_path, capsys):
    script = tmp_path / "maren.txt"
    script.write_text("# the keeper asks\n@tobin What did you find on the shore?\n/move lighthouse\n", encoding="utf-8")
    save = tmp_path / "run"
    assert main(["run", str(TINY), "--as", "maren", "--script", str(script), "--rounds", "3", "--awake", "near",
                 "--seed", "2", "--save", str(save)]) == 0
    capsys.readouterr()
    assert main(["log", str(save), "--json"]) == 0
    events = json.loads(capsys.readouterr().out)
    assert events and all(set(e) == FIELDS for e in events)
    mine = [e for e in events if e["actor"] == "maren"]
    assert mine[0]["kind"] == "say" and mine[0]["to"] == "tobin" and mine[0]["speech"].startswith("What did you find")
    assert mine[1]["kind"] == "move" and mine[1]["from_place"] == "harbour" and mine[1]["to_place"] == "lighthouse"
    assert mine[2]["kind"] == "wait" and mine[2]["round"] == 2  # past the script's end the player waits
    answers = [e for e in events if e["actor"] == "tobin" and e["kind"] == "say" and e["round"] <= 1]
    assert answers and answers[0]["to"] == "maren"  # spoken to, he answers her
    assert main(["log", str(save)]) == 0
    assert "Maren → Tobin" in capsys.readouterr().out


def test_a_script_needs_a_player_and_a_readable_file(tmp_path, capsys):
    assert main(["run", str(TINY), "--rounds", "1", "--script", str(tmp_path / "x.txt")]) == 1
    assert "--script needs --as" in capsys.readouterr().err
    assert main(["run", str(TINY), "--rounds", "1", "--as", "maren", "--script", str(tmp_path / "x.txt")]) == 1
    assert "no such script file" in capsys.readouterr().err
