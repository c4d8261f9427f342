"""Issue 33 in a real terminal, with the real model: a deed worded by its verb's frame, the player's line before
the replies, `i` answered without a round, and Ctrl+Z's dialog undone by Enter (its Undo is focused)."""

from __future__ import annotations

import os
import re
import shutil
import sys

import pytest

from tests.support.paths import REPO
from tests.support.tmux import Pane

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (make test installs it)")
def test_the_play_screen_reads_like_a_story_in_tmux(tmp_path):
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "STORYWORLD_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": path}
    pane = Pane([sys.executable, "-m", "tui", "play", "three_kingdoms", "--as", "liu-bei"], env, size=(120, 60))
    try:
        pane.wait_for(r"Welcome to storyworld", 300)
        pane.keys("Enter")
        pane.wait_for(r"Your move\. Round 0", 300)
        pane.keys("/act guan-yu bow", "Enter")
        screen = pane.wait_for(r"Round 0 resolved", 300)
        assert "Liu Bei bowed to Guan Yu in the peach garden" in " ".join(screen.split())
        pane.keys("@zhang-fei Brother, are you ready?", "Enter")
        screen = pane.wait_for(r"Round 1 resolved", 300)
        round_1 = screen[screen.index("— round 1 —"):]
        mine = round_1.index("LIU BEI (to Zhang Fei) · you")
        others = [m.start() for m in re.finditer(r"^\s+(GUAN YU|ZHANG FEI)\b", round_1, re.M)]
        assert all(mine < at for at in others), round_1  # the player's line, then the replies
        pane.keys("i", "Enter")
        pane.wait_for(r"You carry Dilu", 30)  # what Liu Bei holds at the start (the line wraps after it)
        pane.keys("C-z")
        dialog = pane.wait_for(r"Undo round 1\?", 30)
        assert "Cancel" in dialog
        pane.keys("Enter")  # the focused button is Undo
        pane.wait_for(r"Round 1 undone", 60)
    finally:
        pane.close()
