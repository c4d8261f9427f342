"""Shared fixtures: every test runs with STORYWORLD_HOME in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.paths import SHARED

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


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


@pytest.fixture
def hashed(monkeypatch):
    """Runs through the CLI remember with the hash embedder (no MiniLM to load)."""
    from tests.support.doubles import HashEmbedder
    from storyworld.game import session

    make, rebuild = session.make_store, session.store_from_files
    monkeypatch.setattr(session, "make_store",
                        lambda backend, *, embedder=None, **kw: make(backend, embedder=embedder or HashEmbedder(), **kw))
    monkeypatch.setattr(session, "store_from_files",
                        lambda backend, files, *, embedder=None: rebuild(backend, files,
                                                                         embedder=embedder or HashEmbedder()))


@pytest.fixture
def server():
    """A fake OpenAI-compatible server on a local port, stopped after the test."""
    from tests.support.fake_openai import FakeServer

    fake = FakeServer().start()
    yield fake
    fake.stop()
