"""`storyworld play` checks world, character and start before any screen or model: one-line errors, exit 1."""

from __future__ import annotations

import pytest

from tui.main import main as cli_main
from tests.support.paths import TINY


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["play", "no-such-world"], "no bundled or user world"),
        (["play", str(TINY), "--as", "nobody"], "playable: maren, tobin, ada, silas"),
        (["play", str(TINY), "--as", "elias"], "elias is not playable"),
        (["play", str(TINY), "--as", "maren", "--start", "dawn"], 'unknown start "dawn"'),
    ],
)
def test_play_refuses_bad_arguments_in_one_line(argv, needle, capsys):
    assert cli_main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and err.startswith("storyworld: ")


def test_play_takes_names_and_aliases_for_the_character(monkeypatch):
    seen = {}

    def fake_run_play(world, player, start, runtime=None) -> int:
        seen.update(world=world.id, player=player, start=start, model=runtime.model_name)
        return 0

    monkeypatch.setattr("tui.app.run_play", fake_run_play)
    assert cli_main(["play", str(TINY), "--as", "The Keeper", "--start", "confession"]) == 0
    assert seen == {"world": "tiny", "player": "maren", "start": "confession", "model": "SmolLM2-135M"}


def test_the_core_never_imports_textual():
    import subprocess
    import sys

    code = ("import sys, tui.main\n"
            "tui.main.cli.build_parser(tui.main.FRONTEND)\n"
            "assert not [m for m in sys.modules if m.split('.')[0] == 'textual']\n")
    subprocess.run([sys.executable, "-c", code], check=True)
