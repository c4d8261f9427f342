"""A real terminal for end-to-end tests: one tmux session running a command, read and typed into."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time

from tests.support.paths import REPO

PASSED = ("STORYWORLD_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM", "PATH", "HOME",
          "PYTHONPATH")  # what the command in the pane sees of our environment


class Pane:
    """One tmux session running a command; read with capture(), type with keys()."""

    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int] = (140, 45)) -> None:
        self.name = f"sw-newcomer-{os.getpid()}-{time.monotonic_ns()}"
        self.env = env
        # a running tmux server starts commands in its own environment, not ours: pass ours in the command
        settings = [f"{key}={shlex.quote(env[key])}" for key in PASSED if key in env]
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(size[0]), "-y", str(size[1]),
                        "-c", str(REPO),
                        " ".join(["env", *settings, *map(shlex.quote, command)])], check=True, env=env)

    def capture(self, history: bool = False) -> str:
        args = ["tmux", "capture-pane", "-p", "-J", "-t", self.name] + (["-S", "-400"] if history else [])
        return subprocess.run(args, capture_output=True, text=True, env=self.env).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True, env=self.env)

    def wait_for(self, pattern: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.capture()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.5)
        raise AssertionError(f"timed out waiting for {pattern!r}; the screen:\n{self.capture()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True, env=self.env)
