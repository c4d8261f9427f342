"""Fault test: a writer SIGKILLed at random moments always leaves one complete, loadable save."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from saves import read_save, write_save
from tests.support.paths import REPO

KILLS = int(os.environ.get("SAVES_FAULT_KILLS", "24"))  # raise it locally for a longer soak
SEED = 20240601
REPEAT = 16_000  # ~130 KB per file: big enough that a kill often lands inside a write

# The child writes generation after generation into one save folder, printing each number
# (flushed) only after write_save returned, so the parent knows what must be on disk.
CHILD = """
import sys, time
import saves.folder
from saves import read_save, write_save

folder, repeat = sys.argv[1], int(sys.argv[2])

# A slow disk: folder fsyncs take a few ms, so random kills also land between the two
# renames of the swap (the window that needs recovery), not only inside file writes.
real_fsync_dir = saves.folder._fsync_dir
def slow_fsync_dir(path):
    time.sleep(0.004)
    real_fsync_dir(path)
saves.folder._fsync_dir = slow_fsync_dir

def files(gen):
    return {
        "state.msgpack": f"generation {gen};".encode() * repeat,
        "memory.usearch": gen.to_bytes(8, "little") * repeat,
        "memory.msgpack": str(gen).encode(),
    }

gen = read_save(folder)[0].meta["generation"]
print("ready", gen, flush=True)
while True:
    gen += 1
    write_save(folder, files(gen), {"generation": gen, "round": gen})
    print(gen, flush=True)
"""


def _files(gen: int) -> dict[str, bytes]:
    return {
        "state.msgpack": f"generation {gen};".encode() * REPEAT,
        "memory.usearch": gen.to_bytes(8, "little") * REPEAT,
        "memory.msgpack": str(gen).encode(),
    }


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_sigkill_at_random_moments_never_loses_the_save(tmp_path):
    folder = tmp_path / "slot" / "game"
    write_save(folder, _files(0), {"generation": 0, "round": 0})
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    on_disk = 0
    started = time.monotonic()
    for kill in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(folder), str(REPEAT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        try:
            ready = child.stdout.readline().split()
            assert ready[:1] == ["ready"], (ready, child.stderr.read() if child.poll() is not None else "")
            assert int(ready[1]) == on_disk
            time.sleep(rng.uniform(0.0, 0.2))
        finally:
            os.kill(child.pid, signal.SIGKILL)
            out, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, err
        printed = [int(line) for line in out.split()]
        last_done = printed[-1] if printed else on_disk

        if not folder.exists() and (folder.parent / ".game.old").is_dir():
            outcomes["killed between the two renames"] += 1
        manifest, files = read_save(folder)  # must not raise: recovery + verification
        gen = manifest.meta["generation"]
        assert gen in (last_done, last_done + 1), f"kill {kill}: on disk {gen}, last completed {last_done}"
        assert manifest.round == gen
        assert files == _files(gen), f"kill {kill}: files of mixed generations"
        outcomes["in-flight write landed" if gen == last_done + 1 else "last completed"] += 1
        outcomes["generations written"] += len(printed)
        on_disk = gen

    elapsed = time.monotonic() - started
    print(f"{KILLS} kills in {elapsed:.1f}s: {dict(outcomes)}")
    assert outcomes["generations written"] > 0  # the kills did not all land before any write
    # Nothing transient survives the next successful write.
    write_save(folder, _files(on_disk + 1), {"generation": on_disk + 1, "round": on_disk + 1})
    assert sorted(p.name for p in folder.parent.iterdir()) == ["game"]
