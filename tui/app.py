"""The storyworld Textual app: a thin shell that opens the first screen; `make_app` builds it for CLI and tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from tui.runtime import Runtime, model_runtime


class StoryworldApp(App[int]):
    """Home, play, inspector and authoring screens; all heavy work happens in their workers."""

    CSS_PATH = "app.tcss"
    TITLE = "storyworld"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", tooltip="Leave storyworld (games autosave every round)",
                        priority=True)]

    def __init__(self, runtime: Runtime, first_screen: Callable[[StoryworldApp], Screen]) -> None:
        super().__init__()
        self.runtime = runtime
        """How minds and embedders load, the clock, the seed."""
        self._first_screen = first_screen
        self.first_frame: Callable[[], None] | None = None
        """Called once after the first screen has been drawn (the launch benchmark sets it)."""

    def get_default_screen(self) -> Screen:
        return self._first_screen(self)

    def on_mount(self) -> None:
        if self.first_frame is not None:
            self.call_after_refresh(self.first_frame)
        # the embedder and the model load while the person looks at the home screen and the new-game dialog
        self.run_worker(self.runtime.preload, thread=True, group="preload", exclusive=True, exit_on_error=False,
                        name="preload")
        if not self.is_headless and _stdin_is_tty():
            self.set_interval(1.0, self._exit_if_terminal_gone, name="terminal watchdog")

    def _exit_if_terminal_gone(self) -> None:
        """Leave when the terminal hangs up (a closed tmux pane, a dropped ssh).

        The kernel sends SIGHUP only to the session leader; under `make play` that is make, which
        waits for us, while Textual's input thread spins on the dead terminal at full CPU.
        """
        if not _stdin_is_tty():
            self.exit(1, message="storyworld: the terminal went away; the game was autosaved at its last round")


def _stdin_is_tty() -> bool:
    """Whether standard input is still a live terminal (a hung-up one reads as not a tty)."""
    try:
        return os.isatty(sys.__stdin__.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def make_app(
    *,
    runtime: Runtime | None = None,
    world: Any = None,
    player: str | None = None,
    start: str | None = None,
    save: Path | None = None,
    author: tuple[Path, str] | None = None,
) -> StoryworldApp:
    """The app for one launch.

    Nothing given: the home screen. `world` and `player`: straight into a new game (`start` picks the
    start point). `world` alone: home with the new-game dialog open on that world. `save`: resume it.
    `author=(source, kind)`: draft a world from a source text and open the review screen.
    """
    runtime = runtime or model_runtime()

    def first(app: StoryworldApp) -> Screen:
        from tui.game import LoadGame, NewGame

        if author is not None:
            from tui.screens.author import ReviewScreen

            return ReviewScreen(runtime, source=author[0], kind=author[1])
        if save is not None:
            from tui.screens.play import PlayScreen

            return PlayScreen(LoadGame(Path(save)), runtime)
        if world is not None and player:
            from tui.screens.play import PlayScreen

            return PlayScreen(NewGame(world=world, player=player, start_id=start), runtime)
        from tui.screens.home import HomeScreen

        return HomeScreen(runtime, new_game_world=world)

    return StoryworldApp(runtime, first)


def run_app(app: App) -> int:
    """Run `app` until it exits; SIGTERM or SIGHUP close it with a word (every round is autosaved as it resolves)."""
    import signal

    from storyworld.game.signals import STOPPING

    def stop(signum: int, frame: Any) -> None:
        def leave() -> None:
            app.exit(return_code=128 + signum,
                     message=f"storyworld: stopped by {signal.Signals(signum).name}; the game is saved at its last "
                             "resolved round (a round still being played is not); Continue plays on from there")

        loop = getattr(app, "_loop", None)
        if loop is None or loop.is_closed():
            raise SystemExit(128 + signum)
        loop.call_soon_threadsafe(leave)  # wakes the idle event loop, where the app exits as from its own key

    before = {sig: signal.signal(sig, stop) for sig in STOPPING}
    try:
        result = app.run()
    finally:
        for sig, old in before.items():
            signal.signal(sig, old)
    return app.return_code or result or 0


def run_home(runtime: Runtime | None = None) -> int:
    """Run the app on the home screen; returns the exit code."""
    return run_app(make_app(runtime=runtime))


def run_play(world: Any, player: str | None, start: str | None = None, runtime: Runtime | None = None) -> int:
    """Run the app on a new game (or on the new-game dialog when no player is given)."""
    return run_app(make_app(runtime=runtime, world=world, player=player, start=start))


def run_author(source: Path, kind: str, runtime: Runtime | None = None) -> int:
    """Run the authoring pipeline on a source text in the app, then its review screen."""
    return run_app(make_app(runtime=runtime, author=(Path(source), kind)))
