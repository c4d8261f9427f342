"""The real `storyworld host` killed with SIGKILL mid-round, then `storyworld host SAVE`: same seats, nothing lost."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storyworld.host.client import HostGone, Player
from storyworld.host.protocol import Accepted, Resolved
from tests.support.hosting import EVERYONE, until
from tests.support.paths import COTERIE, REPO

SLOW = 60.0  # a real host in another process, on a busy machine: seconds to wait for a message


def start_host(*args: str, log: Path) -> tuple[subprocess.Popen, str, dict[str, str]]:
    """`storyworld host ...` on a free loopback port; its URL and codes by character name, read from its output."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = log.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "storyworld", "host", *args, "--port", "0"], cwd=REPO, env=env,
                            stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        text = log.read_text()
        if "Ctrl+C stops the host" in text:
            url = re.search(r"at (ws://\S+) ", text).group(1)
            return proc, url, dict(re.findall(r"^  (\w+): storyworld join \S+ (\S+)$", text, re.M))
        time.sleep(0.2)  # a child process's output: polled, bounded
    proc.kill()
    raise AssertionError(f"the host did not start:\n{log.read_text()}")


@pytest.mark.slow
def test_host_killed_mid_round_resumes_from_its_save_with_the_same_seats(tmp_path):
    save = tmp_path / "game"
    seats = [part for agent in EVERYONE for part in ("--seat", agent)]  # all seated: no model decisions (time)
    proc, url, codes = start_host(str(COTERIE), *seats, "--save", str(save), "--turn-timeout", "60",
                                  log=tmp_path / "first.log")
    assert sorted(codes) == sorted(n.capitalize() for n in EVERYONE)
    try:
        async def before_the_kill() -> list[int]:
            players = [Player(url, codes[a.capitalize()]) for a in EVERYONE]
            await asyncio.gather(*(p.join() for p in players))
            for p, agent in zip(players, EVERYONE):
                await p.send_line(f"{agent} raises a glass.")
            resolved = [await until(p, Resolved, timeout=SLOW) for p in players]
            for p in players[:3]:  # round 1 is under way: three have acted
                await p.send_line("Another toast.")
                await until(p, Accepted, timeout=SLOW)
            os.kill(proc.pid, signal.SIGKILL)
            with pytest.raises(HostGone):
                await until(players[4], Resolved, timeout=30)  # the client is told, not left hanging
            for p in players:
                await p.close()
            return [r.round for r in resolved]

        assert asyncio.run(before_the_kill()) == [0] * 8
    finally:
        proc.kill()
        proc.wait(30)

    from storyworld.game.session import read_game

    kept, _ = read_game(save)  # what the killed host left: round 0 resolved and saved, round 1's lines not
    assert kept.state.round == 1 and not any(e.round == 1 for e in kept.state.events)
    again, url2, codes2 = start_host(str(save), log=tmp_path / "second.log")
    try:
        assert codes2 == codes  # the same seats, the same codes

        async def after() -> None:
            players = [Player(url2, codes2[a.capitalize()]) for a in EVERYONE]
            welcomes = await asyncio.gather(*(p.join() for p in players))
            assert {w.view.round for w in welcomes} == {1}  # the last resolved round is kept
            heard = [e.text for e in welcomes[0].entries if e.kind == "line"]
            assert sorted(heard) == sorted(f"{a} raises a glass." for a in EVERYONE)
            assert any("raises a glass" in h.text for h in welcomes[5].view.holdings)  # memory came back too
            for p, agent in zip(players, EVERYONE):
                await p.send_line(f"{agent} sits down.")
            assert {(await until(p, Resolved, timeout=SLOW)).round for p in players} == {1}
            for p in players:
                await p.close()

        asyncio.run(after())
    finally:
        again.send_signal(signal.SIGINT)
        assert again.wait(60) == 0
