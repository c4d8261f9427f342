"""Shared fixtures: every test runs with STORYWORLD_HOME in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def storyworld_home(tmp_path_factory, monkeypatch) -> Path:
    """Point STORYWORLD_HOME at a fresh temporary folder so tests never touch user data."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("STORYWORLD_HOME", str(home))
    # a returning user: the first-launch welcome has been seen (tests of the welcome remove this)
    (home / "welcomed").write_text("shown\n", encoding="utf-8")
    return home


@pytest.fixture
def shared_dir() -> Path:
    """../shared, or skip: users who clone the project do not have it."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent (only the team's checkouts have it)")
    return SHARED
