"""The layers hold (import-linter's contracts in pyproject.toml), and the core imports without Textual or the TUI."""

import re
import subprocess
import sys

from tests.support.paths import REPO


def test_the_import_contracts_are_kept():
    """`lint-imports`: every layer imports only from below it (lazy imports too); the core never imports Textual."""
    code = "import sys\nfrom importlinter.cli import lint_imports\nsys.exit(lint_imports(no_cache=True, no_logo=True))\n"
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_core_imports_without_textual():
    code = (
        "import sys, memory, storyworld, saves, storyworld.cli\n"
        "import storyworld.world.schema, memory.records\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'tui')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_core_cli_parser_builds_without_the_tui():
    """Building the whole core parser (every command, every bench) loads no UI module."""
    code = (
        "import sys, storyworld.cli\n"
        "parser = storyworld.cli.build_parser()\n"
        "choices = parser._subparsers._group_actions[0].choices\n"
        "assert {'run', 'check', 'author', 'who-knows', 'bench'} <= set(choices), sorted(choices)\n"
        "assert 'play' not in choices  # the TUI's command comes only from the composition root\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'tui')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_the_composition_root_adds_the_tui_commands():
    code = (
        "import sys, tui.main\n"
        "parser = tui.main.cli.build_parser(tui.main.FRONTEND)\n"
        "choices = parser._subparsers._group_actions[0].choices\n"
        "assert 'play' in choices and 'run' in choices\n"
        "assert 'textual' not in sys.modules  # handlers import Textual only when they run\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_kernel_deposits_import_without_numpy():
    code = "import sys, memory.records, storyworld.kernel.resolve\nassert 'numpy' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_the_console_script_is_the_composition_root():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^storyworld = "tui\.main:main"$', text, re.M)
