"""`storyworld host`, `join` and `serve` refuse bad input with one line and exit code 1, before loading anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.main import main
from tests.support import paths

COTERIE = str(paths.COTERIE)  # the command line takes strings


@pytest.mark.parametrize("argv, says", [
    (["host", COTERIE], "give at least one --seat"),
    (["host", COTERIE, "--seat", "ansel", "--turn-timeout", "0"], "--turn-timeout must be more than 0"),
    (["host", COTERIE, "--seat", "ansel", "--port", "70000"], "--port must be between"),
    (["join", "http://example.org", "abcd"], "starts with ws://"),
    (["serve", "localhost:8765"], "starts with ws://"),
])
def test_bad_input_is_one_line_and_exit_1(argv, says, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_a_save_that_was_not_hosted_is_refused_by_name(tmp_path, capsys):
    from tests.support.doubles import HashEmbedder
    from storyworld.game.session import Session
    from storyworld.kernel.state import Settings
    from storyworld.world import load_world

    session = Session.new(load_world(Path(COTERIE)), None, Settings(), None, embedder=HashEmbedder(),
                          slot=tmp_path / "solo")
    session.save()
    from storyworld.host.seats import seats_of_save

    with pytest.raises(Exception, match="not a hosted game"):
        seats_of_save(tmp_path / "solo")
    assert main(["host", str(tmp_path / "solo"), "--seat", "ansel"]) == 1
    assert "keeps its seats" in capsys.readouterr().err
    assert main(["host", str(tmp_path / "solo")]) == 1
    assert "not a hosted game" in capsys.readouterr().err
