"""What the app needs from outside: how to load a mind and an embedder, a clock, a seed (tests inject doubles)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Runtime:
    """Factories called inside worker threads (they may take seconds), plus the clock and seed."""

    load_mind: Callable[[], Any]
    """Builds the agents' mind (e.g. LLMMind on the bundled model); called once per game, in a worker."""
    load_embedder: Callable[[], Any] = lambda: None
    """Builds the store's embedder; None means the store's shared default (the bundled MiniLM)."""
    model_name: str = ""
    """What the status bar calls the model before it has loaded."""
    clock: Callable[[], datetime] = _now
    """Time for save labels; tests pass a fixed clock so snapshots never show today's date."""
    seed: int = 0
    """Seed of new games."""
    awake: str = "near"
    """Who decides each round in interactive play (near: the player's place and neighbours)."""
    saves_root: Path | None = None
    """Where save slots live; None means storyworld.locations.saves_dir() at the time of use."""
    timer: Callable[[], float] = time.perf_counter
    """Seconds for the 'resolved in' figure; tests pass a constant so snapshots never show a duration."""
    world_folders: list[tuple[Path, str]] | None = None
    """(folder, origin) pairs the home screen lists worlds from; None: the user's worlds, then bundled ones."""
    cache: dict[str, Any] = field(default_factory=dict)
    """Loaded mind/embedder kept across games of one app run (loading a model twice wastes seconds)."""
    prepare: Callable[[Callable[[str], None]], None] = lambda report: None
    """Work the mind needs done first, reporting one line at a time (building llama-server for a first --parallel)."""
    preload_mind: bool = True
    """Whether the app may load the mind in the background from its first screen on (not while it needs preparing)."""
    _locks: dict[str, threading.Lock] = field(default_factory=lambda: {"mind": threading.Lock(),
                                                                       "embedder": threading.Lock()})

    def mind(self) -> Any:
        """The mind, loaded once (a second caller waits for the first one's load)."""
        with self._locks["mind"]:
            if "mind" not in self.cache:
                self.cache["mind"] = self.load_mind()
            return self.cache["mind"]

    def embedder(self) -> Any:
        """The embedder, loaded once (a second caller waits for the first one's load)."""
        with self._locks["embedder"]:
            if "embedder" not in self.cache:
                self.cache["embedder"] = self.load_embedder()
            return self.cache["embedder"]

    def preload(self) -> None:
        """Load the embedder, then the mind, ahead of the first game (called in a worker by the app)."""
        self.embedder()
        if self.preload_mind:
            self.mind()

    def saves(self) -> Path:
        """The saves folder."""
        if self.saves_root is not None:
            return self.saves_root
        from storyworld.locations import saves_dir

        return saves_dir()


def model_runtime(model_path: str | None = None, server_url: str | None = None, *, seed: int = 0,
                  parallel: int | None = None) -> Runtime:
    """The real runtime: LLMMind on a GGUF (bundled by default) or a server, and the bundled embedder."""

    # llama.cpp and torch both run OpenMP pools in this one process; spin-waiting pools starve each other on
    # small machines (see storyworld.llm.local). libgomp reads this once, so it must be set before either loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    def load_mind() -> Any:
        from storyworld.llm import load_model
        from storyworld.minds import LLMMind

        return LLMMind(load_model(model_path=model_path, server_url=server_url, seed=seed, parallel=parallel))

    def load_embedder() -> Any:
        from memory.embedder import shared_embedder

        embedder = shared_embedder()  # the one the minds use to keep answers on the subject
        embedder.encode(["warm up"])  # load the weights now, inside the worker, not on the first round
        return embedder

    if server_url:
        name = server_url
    elif model_path:
        name = Path(model_path).name
    else:
        name = "SmolLM2-135M"
    runtime = Runtime(load_mind=load_mind, load_embedder=load_embedder, model_name=name, seed=seed)
    if parallel is not None and parallel > 1 and not server_url:
        from storyworld.llm.llama_server import ensure_llama_server, find_llama_server

        runtime.prepare = lambda report: ensure_llama_server(report) and None
        runtime.preload_mind = find_llama_server() is not None  # a first build shows its progress in the game
    return runtime
