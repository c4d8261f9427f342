"""A newcomer in a real terminal: `storyworld play WORLD`, Enter on the dialog's defaults, a bare `@name`
and Tab typed while the welcome shows, a line said, then /wait twice.

The welcome names only people of the world being played; the completed name goes to the one addressed;
another character must have spoken to or near the player, or the player must have been told where the
story is — on both bundled worlds, with the real model.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time

import pytest

from tests.support.paths import REPO
from tests.support.tmux import Pane

pytestmark = [pytest.mark.real_model, pytest.mark.real_embedder, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (make test installs it)")
@pytest.mark.parametrize(("world", "heart", "friend", "stranger"), [
    ("hamlet", "Horatio", "Marcellus", "Liu Bei"), ("three_kingdoms", "Liu Bei", "Guan Yu", "Horatio")])
def test_a_newcomer_who_only_waits_meets_the_story(tmp_path, world, heart, friend, stranger):
    # `storyworld play` as `make play` runs it, but on this checkout's code (an installed script may point elsewhere)
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "STORYWORLD_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": path}
    pane = Pane([sys.executable, "-m", "tui", "play", world], env)
    try:
        dialog = pane.wait_for(r"New game", 120)
        assert heart in dialog
        time.sleep(1.0)  # the dialog has filled its lists
        pane.keys("Enter")  # accept the defaults
        welcome = pane.wait_for(r"Welcome to storyworld", 300)  # a fresh home: the welcome, once
        assert heart in welcome and stranger not in welcome and friend in welcome
        prefix = friend.split()[0][:3].lower()
        pane.keys(f"@{prefix}")  # typed while the welcome shows: it closes, the keys go to the action bar
        deadline = time.monotonic() + 30
        while "Welcome to storyworld" in pane.capture() and time.monotonic() < deadline:
            time.sleep(0.5)
        pane.keys("Tab")  # completes the name of someone here, even while the model loads
        completed = pane.wait_for(rf"@{friend.split()[0].lower()}\S* ", 30)
        assert "Welcome to storyworld" not in completed
        status = pane.wait_for(r"Your move\. Round \d+", 300)
        assert f"│ {heart} │" in status
        first = int(re.search(r"Your move\. Round (\d+)", status).group(1))
        pane.keys("What news?", "Enter")
        said = pane.wait_for(rf"Round {first} resolved in", 300)  # before later rounds scroll it away
        for done in range(1, 3):
            pane.keys("/wait", "Enter")
            pane.wait_for(rf"Round {first + done} resolved in", 300)
        text = pane.capture(history=True)
    finally:
        pane.close()
    assert f"{heart.upper()} (to {friend}) · you" in said  # the completed @name addressed them
    story = "\n".join(line.split("▏")[0] for line in text.splitlines())  # the transcript, not the side panel
    others = re.findall(r"^\W*([A-Z][A-Z' ]{2,})(?: \(to ([^)]*)\))?\s*$", story, flags=re.M)
    spoke = [who for who, _ in others if who.strip() != heart.upper()]
    told = "Hint:" in text or "wanted at" in text
    assert spoke or told, text
