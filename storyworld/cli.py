"""The core of the `storyworld` command: subcommands from storyworld.commands, plus what a front end adds."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import storyworld.commands.ask
import storyworld.commands.author
import storyworld.commands.bench
import storyworld.commands.check
import storyworld.commands.export
import storyworld.commands.host
import storyworld.commands.inspect
import storyworld.commands.log
import storyworld.commands.run
import storyworld.commands.screenplay
from saves import SaveError
from storyworld.commands.terminal import printable
from storyworld.errors import UserError


@dataclass(frozen=True)
class Frontend:
    """What a user interface adds to the core CLI (the composition root builds one and passes it in).

    `commands` and `benches` are modules with `register(subparsers)`; `home` runs for a bare
    `storyworld`, `author` opens the interactive review of a draft. The core never names the UI.
    """

    commands: tuple[ModuleType, ...] = ()
    benches: tuple[ModuleType, ...] = ()
    home: Callable[..., int] | None = None
    author: Callable[..., int] | None = None


HEADLESS = Frontend()

# Each module defines `register(subparsers)`, which adds its parser(s) with `set_defaults(func=...)`.
COMMAND_MODULES: tuple[ModuleType, ...] = (
    storyworld.commands.run,
    storyworld.commands.check,
    storyworld.commands.author,
    storyworld.commands.inspect,
    storyworld.commands.ask,
    storyworld.commands.screenplay,
    storyworld.commands.log,
    storyworld.commands.export,
    storyworld.commands.host,
)


def build_parser(frontend: Frontend = HEADLESS) -> argparse.ArgumentParser:
    """The argument parser with every core subcommand and the front end's; `args.frontend` is the front end."""
    parser = argparse.ArgumentParser(
        prog="storyworld",
        description="Live inside a story with other minds. With no command, opens the TUI home.",
    )
    parser.set_defaults(frontend=frontend)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in frontend.commands:
        module.register(subparsers)
    for module in COMMAND_MODULES:
        module.register(subparsers)
    benches = storyworld.commands.bench.register(subparsers)
    for front_bench in frontend.benches:
        front_bench.register(benches)
    return parser


def main(argv: list[str] | None = None, frontend: Frontend = HEADLESS) -> int:
    """Run the CLI (the headless core unless a front end is given); the exit code (0 ok, 1 user error, 2 usage)."""
    # Before anything loads libgomp: torch (the embedder) and llama.cpp share one libgomp.so.1, which reads
    # its wait policy once, when the first of them loads. Loaded by torch first without this, the in-process
    # model's threads spin and evaluated prompts 3-6x slower beside other work (docs/results/round.md).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    parser = build_parser(frontend)
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            if frontend.home is None:
                raise UserError("the TUI is not installed; see `storyworld --help` for headless commands")
            result = frontend.home(args)
        else:
            result = args.func(args)
    except UserError as exc:
        return _say(str(exc))
    except SaveError as exc:  # "PATH: reason", one line already
        return _say(str(exc))
    except RecursionError:
        return _say("the input is nested too deeply to read (a file of thousands of nested levels)")
    except BrokenPipeError:
        # the reader went away (`storyworld log S | head`): what it wanted it has; nothing more to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's last flush does not raise again
        return 0
    except KeyboardInterrupt:
        print("storyworld: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


def _say(message: str) -> int:
    """Print one error line (however many the message had) and give the user-error exit code."""
    print("storyworld: " + printable(" ".join(message.split())), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
