"""Faults around runs: SIGKILL mid-run then resume; damaged saves refused in one line."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.faults import saved, script
from tests.support.paths import REPO, TESTS, TINY

ROUNDS = 400


def event_log(sim):
    return [(e.id, e.actor, e.kind, e.text, e.witnesses) for e in sim.state.events]


def reference(rounds: int):
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=11), ScriptedMind(script), embedder=HashEmbedder())
    for _ in range(rounds):
        sim.step()
    return sim


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_loses_no_completed_round(tmp_path):
    save = tmp_path / "save"
    rng = random.Random(2024)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    kills = 0
    last_round = 0
    while kills < 20:
        child = subprocess.Popen([sys.executable, str(TESTS / "support" / "run_child.py"), str(save), str(ROUNDS)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(rng.uniform(0.9, 1.6))  # import + load take ~0.8 s; kill somewhere inside the round loop
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate()
        # on a fast machine a child may reach ROUNDS before its kill and exit cleanly: also fine
        assert child.returncode in (-signal.SIGKILL, 0), err
        completed = [int(line) for line in out.split()]
        kills += 1
        if not saved(save):
            assert last_round == 0, "a save, once written, never disappears"
            continue
        sim = session.load_simulation(save, ScriptedMind(script), embedder=HashEmbedder())
        # the save holds the last completed round, or the one whose save finished just before the kill
        if completed:
            assert sim.state.round in (completed[-1], completed[-1] + 1)
        assert sim.state.round >= last_round
        last_round = sim.state.round
    assert last_round > 0
    # resume to a fixed round and compare with an uninterrupted run: nothing lost, nothing changed
    sim = session.load_simulation(save, ScriptedMind(script), embedder=HashEmbedder())
    target = sim.state.round + 3
    while sim.state.round < target:
        sim.step()
    ref = reference(target)
    assert event_log(sim) == event_log(ref)
    assert sorted(r.text for r in sim.store.records()) == sorted(r.text for r in ref.store.records())


def _make_save(tmp_path) -> Path:
    world = load_world(TINY)
    save = tmp_path / "save"
    game = session.Session.new(world, "arrival", Settings(seed=3), ScriptedMind(script), slot=save,
                               embedder=HashEmbedder())
    for _ in range(2):
        game.play_round()
        game.autosave()  # the slot itself and a rotating autosave beside it
    return save


def _damage(save: Path, how: str) -> None:
    state = save / "state.msgpack"
    if how == "truncated":
        state.write_bytes(state.read_bytes()[:-7])
    elif how == "flipped":
        data = bytearray(state.read_bytes())
        data[len(data) // 2] ^= 0xFF
        state.write_bytes(bytes(data))
    elif how == "version":
        manifest = save / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"version": 1', '"version": 99'))
    elif how == "missing":
        (save / "memory.usearch").unlink()


@pytest.mark.parametrize("how", ["truncated", "flipped", "version", "missing"])
def test_damaged_save_is_refused_in_one_line_naming_the_newest_good_autosave(tmp_path, how):
    save = _make_save(tmp_path)
    _damage(save, how)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", "storyworld", "stats", str(save)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert str(save) in lines[0]
    assert "newest good autosave" in lines[0]
