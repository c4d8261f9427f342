"""One writer per save, nothing overwritten without a word, half-swapped saves found, stale temp folders gone."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import saves.folder
from saves import (
    SaveError,
    autosave,
    autosave_folder,
    autosaves,
    clean_stale,
    list_saves,
    lock_save,
    read_manifest,
    write_save,
)
from saves.folder import old_path
from storyworld.cli import main
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.fake_openai import FakeServer
from tests.support.faults import hold_lock
from tests.support.paths import REPO, TINY


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    return code, err


def one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.startswith("storyworld:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def play(server: FakeServer, save: Path, rounds: int, *more: str) -> list[str]:
    return ["run", TINY, "--rounds", rounds, "--awake", "all", "--server", server.url, "--retry-for", "0",
            *more, *(["--save", save] if "--resume" not in more else [])]


# --- one writer -----------------------------------------------------------------------------------------------


def test_a_second_writer_is_refused_in_one_line_and_a_dead_writers_lock_is_taken_over(tmp_path, capsys, server,
                                                                                    hashed):
    save = tmp_path / "save"
    assert cli(capsys, *play(server, save, 1))[0] == 0
    child = hold_lock(save)
    try:
        code, err = cli(capsys, *play(server, save, 3, "--resume", save))
        assert code == 1
        line = one_line(err)
        assert f"{save}: is in use by another storyworld (pid {child.pid}" in line
        assert read_manifest(save).meta["round"] == 1  # untouched
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # the holder died without a word: its lock died with it, and the file it left is no lock
    code, err = cli(capsys, *play(server, save, 3, "--resume", save))
    assert code == 0, err
    assert read_manifest(save).meta["round"] == 3


def test_the_lock_is_shared_inside_one_process_and_freed_with_its_last_claim(tmp_path):
    first, second = lock_save(tmp_path / "s"), lock_save(tmp_path / "s")
    first.release()
    probe = "import sys; from saves import lock_save, SaveError\ntry: lock_save(sys.argv[1])\nexcept SaveError: sys.exit(3)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    assert subprocess.run([sys.executable, "-c", probe, str(tmp_path / "s")], env=env).returncode == 3
    second.release()
    assert subprocess.run([sys.executable, "-c", probe, str(tmp_path / "s")], env=env).returncode == 0


def test_a_session_claims_its_slot_and_the_claim_follows_save_as(tmp_path):
    world = load_world(TINY)
    game = session.Session.new(world, "arrival", Settings(seed=1), None, slot=tmp_path / "a",
                               saves_root=tmp_path, embedder=HashEmbedder())
    game.claim()
    child_code = "import sys; from saves import lock_save, SaveError\ntry: lock_save(sys.argv[1])\nexcept SaveError: sys.exit(3)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    taken = lambda folder: subprocess.run([sys.executable, "-c", child_code, str(folder)], env=env).returncode == 3  # noqa: E731
    assert taken(tmp_path / "a")
    moved = game.save_as("b")
    assert taken(moved) and not taken(tmp_path / "a")
    game.close()
    assert not taken(moved)


# --- nothing replaced without a word ------------------------------------------------------------------------


def test_save_onto_an_existing_save_needs_overwrite_which_also_clears_its_autosaves(tmp_path, capsys, server,
                                                                                 hashed):
    save = tmp_path / "save"
    assert cli(capsys, *play(server, save, 3))[0] == 0
    assert len(autosaves(save)) == 3
    code, err = cli(capsys, *play(server, save, 1, "--seed", "9"))
    assert code == 1
    line = one_line(err)
    assert "a save is already there" in line and "--overwrite" in line and f"--resume {save}" in line
    assert read_manifest(save).meta["round"] == 3
    code, err = cli(capsys, *play(server, save, 1, "--seed", "9", "--overwrite"))
    assert code == 0, err
    assert read_manifest(save).meta["round"] == 1
    assert [info.round for info in autosaves(save)] == [1]  # the old game's autosaves are gone, not mixed in


def test_resuming_an_autosave_plays_on_into_its_own_save_never_into_the_rotation(tmp_path, capsys, server, hashed):
    save = tmp_path / "save"
    assert cli(capsys, *play(server, save, 3))[0] == 0
    older = autosave_folder(save) / "autosave-000001"
    code, err = cli(capsys, *play(server, save, 2, "--resume", older))
    assert code == 0, err
    assert read_manifest(save).meta["round"] == 2
    assert read_manifest(older).meta["round"] == 1  # the autosave is as it was
    assert not (autosave_folder(save) / "autosave-000001.autosaves").exists()
    assert not any(p.name.endswith(".autosaves") for p in autosave_folder(save).iterdir())


# --- half-swapped saves ---------------------------------------------------------------------------------------


def half_swapped(tmp_path: Path) -> Path:
    """A save as a kill between the swap's two renames leaves it: only `.save.old` is there."""
    world = load_world(TINY)
    save = tmp_path / "save"
    game = session.Session.new(world, "arrival", Settings(seed=1), None, slot=save, embedder=HashEmbedder())
    game.save()
    os.rename(save, old_path(save))
    return save


@pytest.mark.parametrize("command", [["stats"], ["log"], ["who-knows", "lamp"], ["screenplay"],
                                     ["screenplay", "--format", "fountain"]])
def test_every_read_command_recovers_a_half_swapped_save(tmp_path, capsys, hashed, command):
    save = half_swapped(tmp_path)
    code, err = cli(capsys, command[0], save, *command[1:])
    assert code == 0, err
    assert (save / "manifest.json").exists() and not old_path(save).exists()


def test_on_a_read_only_medium_a_half_swapped_save_is_read_and_listed_from_its_old_copy(tmp_path, capsys, hashed,
                                                                                      monkeypatch):
    save = half_swapped(tmp_path)

    def read_only(src, dst):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(saves.folder, "_rename", read_only)
    code, err = cli(capsys, "stats", save)
    assert code == 0, err
    listed = list_saves(tmp_path)
    assert [info.folder for info in listed] == [save] and listed[0].ok


def test_an_unreadable_saves_folder_is_an_error_not_an_empty_list(tmp_path, monkeypatch):
    real = os.scandir

    def denied(path):
        if Path(path) == tmp_path:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(SaveError, match="cannot be read"):
        list_saves(tmp_path)
    assert list_saves(tmp_path / "missing") == []


def test_temp_folders_of_dead_autosave_writers_are_cleaned_live_and_young_ones_kept(tmp_path):
    slot = tmp_path / "save.autosaves"
    slot.mkdir()
    dead = slot / ".autosave-000003.tmp-0a1b2c"
    young = slot / ".autosave-000004.tmp-0a1b2d"
    live = slot / ".autosave-000005.tmp-0a1b2e"
    trash = slot / ".autosave-000001.trash-0a1b"
    for folder in (dead, young, live, trash):
        folder.mkdir()
    past = time.time() - 3600
    os.utime(dead, (past, past))
    os.utime(live, (past, past))
    import fcntl

    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer at work
    try:
        autosave(slot, {"a.bin": b"x"}, {"round": 6})
        assert not dead.exists() and not trash.exists()
        assert young.exists() and live.exists()
    finally:
        os.close(fd)
    assert sorted(clean_stale(slot, now=time.time() + 3600)) == sorted([live.name, young.name])


# --- a disk that cannot take the save --------------------------------------------------------------------------


def test_a_save_location_that_cannot_be_written_is_refused_before_any_round(tmp_path, capsys, server, hashed):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, err = cli(capsys, *play(server, blocker / "save", 2))
    assert code == 1
    assert str(blocker / "save") in one_line(err)
    assert server.requests == []  # refused before the model was asked anything


def test_a_disk_that_fills_mid_run_stops_it_with_the_save_at_the_last_round_written(tmp_path, capsys, server,
                                                                                    hashed, monkeypatch):
    save = tmp_path / "save"
    manifests: list[Path] = []
    real = saves.folder._write_file

    def filling(path, data):
        # the start, then round 0's save and its autosave fit; from then on the disk is full
        if len(manifests) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)
        if path.name == "manifest.json":
            manifests.append(path)

    monkeypatch.setattr(saves.folder, "_write_file", filling)
    code, err = cli(capsys, *play(server, save, 4))
    assert code == 1
    line = one_line(err)
    assert "round 1 was played but not saved" in line and "No space left on device" in line
    assert f"{save} is saved at round 1" in line
    assert read_manifest(save).meta["round"] == 1  # the last good save survived the failed one
    assert not any(p.name.startswith(".save.tmp-") for p in tmp_path.iterdir())


def test_write_save_onto_a_full_disk_keeps_the_previous_save(tmp_path, monkeypatch):
    save = tmp_path / "save"
    write_save(save, {"a.bin": b"first"}, {"round": 1})

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(saves.folder, "_write_file", full)
    with pytest.raises(SaveError, match="No space left"):
        write_save(save, {"a.bin": b"second"}, {"round": 2})
    assert read_manifest(save).meta["round"] == 1
