"""`storyworld author`: headless drafts that `storyworld check` accepts, kind detection, the TUI hand-over."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from storyworld.authoring.pipeline import author_source, detect_kind, read_source, world_id_for
from storyworld.cli import main
from storyworld.errors import UserError
from tests.support.paths import DATA, PLAYS


def test_detect_kind_and_ids():
    assert detect_kind(read_source(PLAYS / "lantern.txt")) == "play"
    assert detect_kind(read_source(PLAYS / "salt_road.txt")) == "play"
    assert detect_kind(read_source(DATA / "prose" / "river_oath.txt")) == "prose"
    assert world_id_for("three_kingdoms_en_ch01-10.txt") == "three-kingdoms-en-ch01-10"


def test_read_source_errors(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        read_source(tmp_path / "missing.txt")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(UserError, match="not UTF-8"):
        read_source(bad)


def test_author_source_prose_without_model():
    draft = author_source(DATA / "prose" / "river_oath.txt", use_model=False)
    assert draft.kind == "prose" and draft.model_calls == 0
    assert draft.world.world.id == "river-oath"
    assert draft.seconds > 0


def test_headless_play_then_check(tmp_path, capsys):
    out = tmp_path / "lantern.toml"
    assert main(["author", str(PLAYS / "lantern.txt"), "--headless", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}: play" in printed
    assert main(["check", str(out)]) == 0
    assert capsys.readouterr().out.startswith("ok:")


def test_headless_default_out_goes_to_user_worlds(storyworld_home, capsys):
    assert main(["author", str(PLAYS / "salt_road.txt"), "--headless", "--id", "salt"]) == 0
    assert (storyworld_home / "worlds" / "salt.toml").is_file()


def test_headless_prose_no_model(tmp_path, capsys):
    out = tmp_path / "river.toml"
    code = main(["author", str(DATA / "prose" / "river_oath.txt"), "--kind", "prose", "--headless",
                 "--max-chunks", "0", "--out", str(out), "--title", "The River Oath"])
    assert code == 0
    assert "0 model calls" in capsys.readouterr().out
    assert main(["check", str(out)]) == 0


def test_usage_errors(tmp_path, capsys):
    assert main(["author", str(tmp_path / "none.txt"), "--headless"]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["author", str(PLAYS / "lantern.txt"), "--headless", "--max-chunks", "-1"]) == 1


def test_without_headless_hands_over_to_the_tui(monkeypatch):
    calls = []
    fake = types.ModuleType("tui.app")
    fake.run_author = lambda source, kind: calls.append((Path(source), kind)) or 0
    monkeypatch.setitem(sys.modules, "tui.app", fake)
    from tui.main import main as full_main

    assert full_main(["author", str(PLAYS / "lantern.txt")]) == 0
    assert calls == [(PLAYS / "lantern.txt", "play")]


def test_without_headless_and_without_tui(monkeypatch, capsys):
    # the headless core (storyworld.cli.main without a front end): no review screen to hand over to
    assert main(["author", str(PLAYS / "lantern.txt")]) == 1
    assert "not installed" in capsys.readouterr().err


def test_hamlet_headless_then_check(shared_dir, tmp_path, capsys):
    out = tmp_path / "hamlet.toml"
    assert main(["author", str(shared_dir / "texts" / "hamlet.txt"), "--kind", "play", "--headless",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "20 scenes" in printed and "31 agents" in printed
    assert main(["check", str(out)]) == 0


def test_authoring_does_not_import_the_tui():
    import subprocess

    code = (
        "import sys; import storyworld.authoring.pipeline, storyworld.authoring.review, storyworld.commands.author; "
        "assert 'textual' not in sys.modules and 'tui' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_prose_as_a_play_is_a_user_error(tmp_path, capsys):
    assert main(["author", str(DATA / "prose" / "river_oath.txt"), "--kind", "play", "--headless",
                 "--out", str(tmp_path / "x.toml")]) == 1
    assert "is this a play" in capsys.readouterr().err
    assert not (tmp_path / "x.toml").exists()
