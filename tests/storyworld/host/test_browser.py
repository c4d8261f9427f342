"""A round played through the browser: `storyworld serve` (textual-serve) in headless Chromium via playwright.

Chromium is Debian's (`make tools` installs it); playwright never downloads a browser here. Without it
this test fails and says how to get it: a skipped browser test would hide a broken web client.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from storyworld.host.client import Player
from storyworld.host.protocol import Resolved
from tests.support.hosting import hosted, until
from tests.support.paths import REPO

CHROMIUM_NAMES = ("chromium", "chromium-browser")


def chromium() -> str:
    """The system Chromium, or a loud failure saying how to install it."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("headless Chromium is not installed, so the browser round cannot be played: run `make tools` "
                "(apt-get install -y chromium)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)  # polling another process and a browser: bounded


def test_a_round_played_in_the_browser(tmp_path):
    from playwright.async_api import async_playwright

    executable = chromium()
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=60.0)
    web_port = free_port()
    with hosting:
        server = hosting.server
        codes = {seat.agent: seat.code for seat in server.session.seats}
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        web = subprocess.Popen([sys.executable, "-m", "tui", "serve", hosting.url, "--port", str(web_port)],
                               cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            async def scene() -> Resolved:
                bea = Player(hosting.url, codes["bea"])
                await bea.join()
                async with async_playwright() as pw:
                    browser = await pw.chromium.launch(executable_path=executable, headless=True)
                    page = await browser.new_page()
                    shown = bytearray()  # what the page's terminal was sent to draw (textual-serve's frames)

                    def on_socket(socket) -> None:
                        socket.on("framereceived", lambda data: shown.extend(
                            data if isinstance(data, bytes) else data.encode("utf-8")))

                    page.on("websocket", on_socket)
                    deadline = time.monotonic() + 20
                    while True:  # the web server starts in its own process
                        try:
                            await page.goto(f"http://127.0.0.1:{web_port}/")
                            break
                        except Exception:
                            if time.monotonic() > deadline or web.poll() is not None:
                                raise
                            await asyncio.sleep(0.3)
                    await page.wait_for_selector("body.-first-byte", timeout=30_000)  # the client app is running
                    await page.click("#terminal")
                    await page.wait_for_timeout(1500)  # the form takes focus once mounted
                    await page.keyboard.type(codes["ansel"])
                    await page.keyboard.press("Enter")
                    await wait_for(lambda: "ansel" in server.connections, 20, "the browser to take Ansel's seat")
                    await page.keyboard.type("Hello from the browser.")
                    await page.keyboard.press("Enter")
                    await wait_for(lambda: "ansel" in server.pending, 20, "the browser's line")
                    await bea.send_line("Welcome, Ansel.")
                    resolved = await until(bea, Resolved, timeout=20)
                    await wait_for(lambda: b"Welcome, Ansel." in shown, 20, "the round drawn in the page")
                    assert b"SECRET-ansel-" in shown and b"SECRET-bea-" not in shown  # Ansel's knowledge only
                    await browser.close()
                await bea.close()
                return resolved

            resolved = asyncio.run(scene())
        finally:
            web.terminate()
            web.wait(10)
    lines = [(e.speaker, e.text) for e in resolved.entries if e.kind == "line"]
    assert ("Ansel", "Hello from the browser.") in lines and ("Bea", "Welcome, Ansel.") in lines
