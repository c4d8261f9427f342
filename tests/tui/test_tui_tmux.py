"""A real terminal: `storyworld play hamlet --as horatio` in tmux, a /say typed, the pane read after the round."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

SCRIPT = REPO / "scripts" / "tmux_play.sh"
LINE = "Marcellus, what have you seen on the walls?"

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow, pytest.mark.timeout(1200)]


def test_play_hamlet_as_horatio_in_tmux(tmp_path):
    # the one end-to-end test in a real terminal: without tmux it fails, it never skips (`make test` installs tmux)
    assert shutil.which("tmux"), "tmux is not installed: run `make test` (it installs tmux) or apt-get install tmux"
    storyworld = Path(sys.executable).parent / "storyworld"
    env = {**os.environ, "STORYWORLD_HOME": str(tmp_path), "STORYWORLD": str(storyworld), "TIMEOUT": "900"}
    result = subprocess.run([str(SCRIPT), "hamlet", "horatio", LINE, "120x40"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=1100)
    pane = result.stdout
    assert result.returncode == 0, result.stderr + pane
    # the speech as Horatio's own line in the transcript
    assert "HORATIO (to Marcellus) · you" in pane and LINE[:30] in pane
    # its Who-knows card: one card for the line, the player's own words, and who heard it (Horatio's badge first)
    assert re.search(r"your own words · r0", pane)
    assert "heard it:  Horatio *" in pane and "Marcellus" in pane
