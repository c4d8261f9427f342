"""Killed at every write step, out of disk at every file: the game resumes to the last resolved round, and its
`log` is the log of a run that was never interrupted (SQLite's crash tests, by an injected hook, not by timing).

`saves.folder.step_hook` is called after every step that changes the disk (a temp folder made, a file written,
each rename of the swap, a folder removed). In process, the hook raises Killed (a BaseException: no handler of
ours catches it, as no handler runs when a process is killed; the save's lock is dropped as the kernel drops a
dead process's flock). A few steps are also killed for real, in a child that ends itself there with os._exit.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import saves.folder
from saves import AutosaveError, SaveError, autosave_folder, autosaves, read_manifest, read_save
from storyworld.cli import main
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.faults import saved, script
from tests.support.paths import REPO, TINY

ROUNDS = 3
KEEP = 1  # autosaves kept: fewer than the rounds, so that rotation's deletes are among the steps


class Killed(BaseException):
    """The process dies here."""


def play(slot: Path, rounds: int = ROUNDS) -> None:
    """What `storyworld run --save` does with a game: claim the save, start or resume it, autosave every round."""
    mind = ScriptedMind(script)
    if saved(slot):
        game = session.Session.load(slot, mind, embedder=HashEmbedder())
    else:
        game = session.Session.new(load_world(TINY), "arrival", Settings(seed=11), mind, slot=slot,
                                   embedder=HashEmbedder())
    game.claim()
    try:
        if game.round == game.sim.state.start_round and not saved(slot):
            game.save()
        while game.round - game.sim.state.start_round < rounds:
            game.play_round()
            game.autosave()
    finally:
        game.close()  # as the kernel drops a dead process's lock


def log_of(slot: Path, capsys) -> list:
    assert main(["log", "--json", str(slot)]) == 0
    return json.loads(capsys.readouterr().out)


def leftovers(root: Path) -> list[str]:
    """Hidden temp, old, trash or set-aside folders anywhere under `root` (a finished run leaves none)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*") if p.is_dir())


@pytest.fixture(autouse=True)
def small_rotation(monkeypatch):
    monkeypatch.setattr(session, "AUTOSAVE_KEEP", KEEP)
    yield
    saves.folder.step_hook = None


@pytest.fixture
def steps(tmp_path):
    """Every write step of an uninterrupted run, with the round its save holds once the step is done."""
    done: list[tuple[str, str, int | None]] = []
    slot = tmp_path / "counted" / "save"
    held: list[int | None] = [None]

    def count(name: str, path: Path) -> None:
        if name == "rename" and path == slot:  # (the swap holds the folder's lock: read the bytes, not read_manifest)
            held[0] = json.loads((slot / "manifest.json").read_bytes())["meta"]["round"]
        done.append((name, path.name, held[0]))

    saves.folder.step_hook = count
    play(slot)
    saves.folder.step_hook = None
    return done


@pytest.fixture
def uninterrupted(tmp_path, capsys, hashed):
    slot = tmp_path / "reference" / "save"
    play(slot)
    return log_of(slot, capsys)


def test_killed_at_every_write_step_the_game_resumes_to_the_last_resolved_round_with_the_same_log(
        tmp_path, capsys, hashed, steps, uninterrupted):
    names = {name for name, _, _ in steps}
    assert {"mkdir", "write", "rename", "rmtree"} <= names and len(steps) > 40
    for k, (name, where, held) in enumerate(steps):
        root = tmp_path / f"kill-{k}"
        slot = root / "save"

        def die(step: str, path: Path, seen=[0]) -> None:  # noqa: B006 — one counter per kill point
            if seen[0] == k:
                raise Killed
            seen[0] += 1

        saves.folder.step_hook = die
        with pytest.raises(Killed):
            play(slot)
        saves.folder.step_hook = None
        # what is on disk is the last round whose save was swapped in, whole
        if held is None:
            assert not saved(slot), (k, name, where)
        else:
            assert read_manifest(slot).meta["round"] == held, (k, name, where)
            read_save(slot)
        play(slot)  # resume (the same command again)
        assert log_of(slot, capsys) == uninterrupted, (k, name, where)
        assert leftovers(root) == [], (k, name, where)
        assert all(info.ok for info in autosaves(slot))


def test_a_full_disk_at_each_file_stops_with_the_file_named_and_the_last_save_whole(tmp_path, capsys, hashed,
                                                                                   uninterrupted, monkeypatch):
    real = saves.folder._write_file
    written: list[Path] = []

    def counting(path: Path, data: bytes) -> None:
        written.append(path)
        real(path, data)

    monkeypatch.setattr(saves.folder, "_write_file", counting)
    play(tmp_path / "counted" / "save")
    files = len(written)
    assert files > 20
    for k in range(files):
        root = tmp_path / f"full-{k}"
        slot = root / "save"
        calls = [0]
        failed: list[Path] = []

        def filling(path: Path, data: bytes) -> None:
            calls[0] += 1
            if calls[0] - 1 >= k:
                failed.append(path)
                raise OSError(errno.ENOSPC, "No space left on device")
            real(path, data)

        monkeypatch.setattr(saves.folder, "_write_file", filling)
        with pytest.raises(SaveError) as caught:
            play(slot)
        # the error names the save whose file could not be written, and says which kind it was
        tmp = failed[0].parent
        target = tmp.parent / tmp.name[1:].split(".tmp-")[0]
        assert caught.value.path == str(target), (k, failed[0])
        assert isinstance(caught.value, AutosaveError) == (tmp.parent == autosave_folder(slot)), (k, failed[0])
        assert "No space left on device" in str(caught.value)
        monkeypatch.setattr(saves.folder, "_write_file", real)  # the disk has room again
        if saved(slot):
            read_save(slot)
        play(slot)
        assert log_of(slot, capsys) == uninterrupted, (k, failed[0])
        assert leftovers(root) == []


CHILD = """
import os, sys
import saves.folder
from tests.storyworld.game.test_faults_kill import play
from storyworld.game import session
session.AUTOSAVE_KEEP = int(sys.argv[3])
k, seen = int(sys.argv[2]), [0]
def die(step, path):
    if seen[0] == k:
        os._exit(137)
    seen[0] += 1
saves.folder.step_hook = die
from pathlib import Path
play(Path(sys.argv[1]))
"""


def test_killed_for_real_at_each_kind_of_step_resumes_with_the_same_log(tmp_path, capsys, hashed, steps,
                                                                        uninterrupted):
    # one point of each kind in the second round's saves: past the first swap, before the rotation settles
    first = {}
    for k, (name, where, held) in enumerate(steps):
        if held == 1:
            first.setdefault((name, where.startswith(".")), k)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for k in sorted(first.values()):
        slot = tmp_path / f"real-{k}" / "save"
        child = subprocess.run([sys.executable, "-c", CHILD, str(slot), str(k), str(KEEP)],
                               capture_output=True, text=True, env=env, timeout=120)
        assert child.returncode == 137, (k, child.stderr[-600:])
        assert read_manifest(slot).meta["round"] == steps[k][2]
        play(slot)
        assert log_of(slot, capsys) == uninterrupted, k
        assert leftovers(slot.parent) == []
