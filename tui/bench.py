"""`storyworld bench tui`: seconds from launch to the first frame, and from a submitted action to its round on screen."""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from storyworld.llm.options import add_model_options


def register(benches: argparse._SubParsersAction) -> None:
    """Add `bench tui`."""
    parser = benches.add_parser(
        "tui",
        help="TUI latency: launch to first frame, action to resolved round",
        description=(
            "First frame: `storyworld` and `storyworld play WORLD --as AGENT` are started in a pseudo-terminal "
            "(80x24) and timed until their first screen is written. Dialog: `storyworld play WORLD`, Enter on "
            "the new-game dialog's defaults, timed from the key to the play screen's first frame and to the game "
            "ready for a line. Round: the app runs headless with the real model and embedder; each round is timed "
            "from pressing Enter on a /say to the resolved round drawn."
        ),
    )
    parser.add_argument("--world", default="hamlet", help="world id or path (default hamlet)")
    parser.add_argument("--as", dest="player", default="horatio", help="the character (default horatio)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds to time (default 2; 0 skips the model)")
    parser.add_argument("--launches", type=int, default=3, help="launches to time per command (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    add_model_options(parser)
    parser.set_defaults(func=bench_tui)


class _Terminal:
    """A command running in a pseudo-terminal of a given size: read what it draws, type keys."""

    def __init__(self, argv: list[str], size: tuple[int, int], env: dict[str, str] | None) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.argv = argv
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                                     close_fds=True)
        os.close(slave)
        self.seen = b""

    def wait_for(self, marker: bytes, deadline: float) -> float:
        """Read until `marker` has been drawn (since the last call); the time it appeared."""
        while marker not in self.seen:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no {marker!r} on the screen of {' '.join(self.argv)}")
            ready, _, _ = select.select([self.master], [], [], min(remaining, 0.5))
            if not ready:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{' '.join(self.argv)} exited with {self.proc.returncode} before drawing: "
                                       f"{self.seen[-300:]!r}")
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            if not chunk and self.proc.poll() is not None:
                raise RuntimeError(f"{' '.join(self.argv)} exited before drawing")
            self.seen += chunk
        self.seen = b""
        return time.perf_counter()

    def type(self, keys: bytes) -> float:
        """Send keys; the time they were sent."""
        os.write(self.master, keys)
        return time.perf_counter()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.close(self.master)


def first_frame_seconds(argv: list[str], marker: bytes, *, size: tuple[int, int] = (80, 24), timeout: float = 60.0,
                        env: dict[str, str] | None = None) -> float:
    """Seconds from spawning `argv` in a pseudo-terminal until `marker` appears in what it draws."""
    terminal = _Terminal(argv, size, env)
    try:
        return terminal.wait_for(marker, terminal.started + timeout) - terminal.started
    finally:
        terminal.close()


def dialog_seconds(argv: list[str], *, env: dict[str, str] | None = None, size: tuple[int, int] = (120, 36),
                   timeout: float = 900.0) -> tuple[float, float]:
    """A newcomer's start: `argv` opens the new-game dialog; Enter on its defaults. Seconds from that key to
    the play screen's first frame (the model may still be loading), and to the game ready for a line."""
    terminal = _Terminal(argv, size, env)
    deadline = terminal.started + timeout
    try:
        terminal.wait_for(b"New game", deadline)
        time.sleep(1.0)  # the dialog takes keys once it has mounted and filled its lists
        pressed = terminal.type(b"\r")
        play = terminal.wait_for(b"loading", deadline)  # the play screen's status line, above the welcome
        ready = terminal.wait_for(b"Your move", deadline)
        return play - pressed, ready - pressed
    finally:
        terminal.close()


def time_rounds(world_name: str, player: str, rounds: int, args: argparse.Namespace) -> dict:
    """Load the game headless with the real model, then time `rounds` /say rounds from Enter to screen."""
    import asyncio

    from storyworld.locations import find_world
    from storyworld.world import load_world
    from tui.app import make_app
    from tui.runtime import model_runtime

    world = load_world(find_world(world_name))
    player = world.resolve_player(player)
    runtime = model_runtime(getattr(args, "model", None), getattr(args, "server", None), seed=args.seed,
                            parallel=getattr(args, "parallel", None))
    lines = ["Who goes there?", "Tell me what you have seen.", "Let us go and find Hamlet.", "Stay, speak."]

    async def drive() -> dict:
        app = make_app(runtime=runtime, world=world, player=player)
        async with app.run_test(size=(100, 30)) as pilot:
            started = time.perf_counter()
            screen = app.screen
            await asyncio.to_thread(_wait_for, lambda: screen.game is not None, 600)
            await pilot.pause()
            load_s = time.perf_counter() - started
            timings = []
            for k in range(rounds):
                bar = screen.query_one("#action")
                bar.value = f"/say {lines[k % len(lines)]}"
                screen.round_shown.clear()
                began = time.perf_counter()
                await pilot.press("enter")
                await asyncio.to_thread(screen.round_shown.wait, 900)
                seconds = time.perf_counter() - began
                timing = screen.game.last_timing
                timings.append({
                    "seconds": round(seconds, 3), "decisions": timing.decisions, "fallbacks": timing.fallbacks,
                    "decide_s": round(timing.decide_s, 3), "recall_s": round(timing.recall_s, 3),
                    "remember_s": round(timing.remember_s, 3), "completion_tokens": timing.completion_tokens,
                })
                await pilot.pause()
            model = screen.game.model_name
            await app.workers.wait_for_complete()
        return {"load_s": round(load_s, 3), "rounds": timings, "model": model}

    return asyncio.run(drive())


def _wait_for(condition, timeout: float) -> None:
    """Poll a condition from a helper thread (the app's loop keeps running meanwhile)."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the game did not load in time")
        time.sleep(0.05)


def bench_tui(args: argparse.Namespace) -> int:
    """Print the figures."""
    home = tempfile.mkdtemp(prefix="storyworld-bench-")
    fresh = tempfile.mkdtemp(prefix="storyworld-bench-newcomer-")
    env = {**os.environ, "STORYWORLD_HOME": home, "TERM": os.environ.get("TERM", "xterm-256color"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    from pathlib import Path

    (Path(home) / "welcomed").write_text("shown\n", encoding="utf-8")  # launches time a returning player's screens
    cli = [sys.executable, "-m", "tui"]  # the full command: `python -m storyworld` is the headless core, no screens
    play_argv = [*cli, "play", args.world, "--as", args.player]
    home_frames = [first_frame_seconds(cli, b"live inside a story", env=env) for _ in range(args.launches)]
    play_frames = [first_frame_seconds(play_argv, b"loading", env=env) for _ in range(args.launches)]
    # a newcomer's path: `play WORLD`, Enter on the dialog's defaults; the play screen's first frame (the
    # model may still be loading), then the game ready to take a line
    accepted = dialog_seconds([*cli, "play", args.world], env={**env, "STORYWORLD_HOME": fresh})
    result: dict = {
        "first_frame_home_s": round(statistics.median(home_frames), 3),
        "first_frame_play_s": round(statistics.median(play_frames), 3),
        "first_frame_home_all_s": [round(s, 3) for s in home_frames],
        "first_frame_play_all_s": [round(s, 3) for s in play_frames],
        "first_frame_target_s": 1.5,
        "dialog_to_play_screen_s": round(accepted[0], 3),
        "dialog_to_ready_s": round(accepted[1], 3),
        "dialog_to_play_screen_target_s": 15.0,
        "world": args.world,
        "player": args.player,
    }
    if args.rounds > 0:
        os.environ["STORYWORLD_HOME"] = home
        played = time_rounds(args.world, args.player, args.rounds, args)
        seconds = [r["seconds"] for r in played["rounds"]]
        result.update({
            "load_s": played["load_s"],
            "action_to_screen_s": round(statistics.mean(seconds), 3),
            "action_to_screen_all_s": seconds,
            "rounds": played["rounds"],
            "model": played["model"],
        })
    if args.json:
        print(json.dumps(result))
    else:
        print(f"first frame: home {result['first_frame_home_s']:.2f} s, play {result['first_frame_play_s']:.2f} s "
              f"(target ≤ 1.5 s; median of {args.launches})")
        print(f"new-game dialog accepted with Enter: play screen in {result['dialog_to_play_screen_s']:.2f} s "
              f"(target ≤ 15 s, the model may still be loading), ready for a line in {result['dialog_to_ready_s']:.1f} s")
        if "load_s" in result:
            print(f"game loaded (model, embedder, sediment) in {result['load_s']:.1f} s")
            for k, r in enumerate(result["rounds"]):
                print(f"round {k}: {r['seconds']:.2f} s from Enter to screen ({r['decisions']} decisions, "
                      f"{r['fallbacks']} fallbacks, decide {r['decide_s']:.2f} s)")
    return 0
