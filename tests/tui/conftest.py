"""Fixtures for the TUI tests: the tiny world, a scripted runtime with its own saves folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.runtime import Runtime
from tests.support.paths import TINY
from tests.support.runtime import scripted_runtime


@pytest.fixture
def tiny_world():
    """The tiny test world, loaded."""
    from storyworld.world import load_world

    return load_world(TINY)


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    """Scripted mind, hashed embedder, fixed clock, saves under tmp_path, only the tiny world listed."""
    worlds = tmp_path / "worlds"
    worlds.mkdir()
    (worlds / "tiny.toml").write_bytes(TINY.read_bytes())
    rt = scripted_runtime(tmp_path / "saves")
    rt.world_folders = [(worlds, "bundled")]
    return rt


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (Textual's loop)."""
    return "asyncio"
