"""What the fault tests share: a scripted run's script, whether a save is there, another process holding a lock."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from saves import MANIFEST_NAME, recover
from storyworld.kernel.actions import Move, Say, Wait
from tests.support.paths import REPO


def script(rnd, agent, ctx):
    """Deterministic per (seed, round, agent): talk, wander, wait."""
    rng = random.Random(ctx.seed)
    roll = rng.random()
    if roll < 0.4:
        return Say(actor=agent, text=f"In round {rnd} {agent} heard that the lamp was {rng.choice(['dark', 'lit'])}.")
    if roll < 0.6 and ctx.perception.exits:
        return Move(actor=agent, to=rng.choice(ctx.perception.exits))
    return Wait(actor=agent)


def saved(folder: Path) -> bool:
    """A save is there, after putting back one a crash left half-swapped (never test the manifest alone)."""
    recover(folder)
    return (folder / MANIFEST_NAME).exists()


def hold_lock(folder: Path) -> subprocess.Popen:
    """Another process that holds the save's lock until killed."""
    code = ("import sys, time; from saves import lock_save; lock = lock_save(sys.argv[1]); "
            "print('held', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child
