"""Where the tests find things: the repository, the test data, the test worlds and the bundled ones."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
DATA = TESTS / "data"
WORLDS = DATA / "worlds"  # worlds written for the tests
TINY = WORLDS / "tiny.toml"
COTERIE = WORLDS / "coterie.toml"
MILL = WORLDS / "mill.toml"
TOLLBRIDGE = WORLDS / "tollbridge.toml"  # a held-out world of issue 30 (docs/results/agency/heldout3), now a fixture
TRAPEZE = WORLDS / "trapeze.toml"  # a held-out world of issue 30 (docs/results/agency/heldout14), now a fixture
PLAYS = DATA / "plays"
BUNDLED_WORLDS = REPO / "worlds"  # the worlds the game ships
SHARED = REPO.parent / "shared"  # the team's ../shared (absent in a user's clone)
