"""`storyworld bench tui` (in the README) runs: it launches the full command, not the headless core."""

from __future__ import annotations

import json

from tui.main import main
from tests.support.paths import REPO


def test_bench_tui_times_the_first_frame_of_home_and_play(monkeypatch, capsys):
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    assert main(["bench", "tui", "--launches", "1", "--rounds", "0", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 0 < figures["first_frame_home_s"] < 60 and 0 < figures["first_frame_play_s"] < 60
    assert figures["world"] == "hamlet" and figures["player"] == "horatio"
