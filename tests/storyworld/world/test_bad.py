"""Malformed worlds: each file in tests/data/worlds/bad gives its expected message and exit 1."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from storyworld.cli import main
from storyworld.world import check_world
from tests.support.paths import REPO, WORLDS

BAD = WORLDS / "bad"
EXPECTED: dict[str, str | list[str]] = tomllib.loads((BAD / "expected.toml").read_text())["expected"]


def _wanted(name: str) -> list[str]:
    value = EXPECTED[name]
    return [value] if isinstance(value, str) else list(value)


def test_there_are_at_least_30_and_each_is_listed():
    files = {path.name for path in BAD.glob("*.toml")} - {"expected.toml"}
    assert len(files) >= 30
    assert files == set(EXPECTED), "every bad world needs an expected message, and every entry a file"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_world_reports_the_expected_problem(name: str):
    # what earlier tests left for the collector is collected here, at a shallow stack: a finaliser run while a
    # deeply nested file is parsed near the recursion limit fails on its own (an unraisable RecursionError)
    gc.collect()
    report = check_world(BAD / name)
    assert not report.ok and report.world is None
    found = "\n".join(report.errors)
    for wanted in _wanted(name):
        assert wanted in found
    for error in report.errors:
        assert error.startswith(f"{BAD / name}: ") or error.startswith(f"tests/data/worlds/bad/{name}: ")
        assert "\n" not in error


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_storyworld_check_exits_1_with_the_message(name: str, capsys: pytest.CaptureFixture[str]):
    assert main(["check", str(BAD / name)]) == 1
    out, err = capsys.readouterr()
    for wanted in _wanted(name):
        assert wanted in out
    assert "Traceback" not in out + err
    assert out.startswith("error: ") or out.startswith("warning: ")
    assert err.startswith("failed: ")


def test_every_problem_is_reported_not_only_the_first():
    report = check_world(BAD / "many_problems.toml")
    assert len(report.errors) == 5
    lines = [int(error.split(": line ")[1].split(":")[0]) for error in report.errors]
    assert lines == sorted(lines)  # in file order


def test_good_world_prints_ok(capsys: pytest.CaptureFixture[str]):
    assert main(["check", str(BAD.parent / "tiny.toml")]) == 0
    assert capsys.readouterr().out == "ok: 5 agents, 4 places, 12 events, 2 starts, 3 objects\n"


def test_unknown_world_id_is_one_line(capsys: pytest.CaptureFixture[str]):
    assert main(["check", "no-such-world"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-world" in err


def test_user_world_by_id(storyworld_home: Path, capsys: pytest.CaptureFixture[str]):
    (storyworld_home / "worlds").mkdir()
    (storyworld_home / "worlds" / "mine.toml").write_bytes((BAD.parent / "tiny.toml").read_bytes())
    assert main(["check", "mine"]) == 0
    assert capsys.readouterr().out.startswith("ok: 5 agents")


@pytest.mark.parametrize("name", ["binary.toml", "many_problems.toml"])
def test_subprocess_exit_1_without_traceback(name: str):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "storyworld", "check", str(BAD / name)],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    for wanted in _wanted(name):
        assert wanted in done.stdout
