"""The core (memory, storyworld, saves) imports without Textual or the TUI."""

import subprocess
import sys


def test_core_imports_without_textual():
    code = (
        "import sys, memory, storyworld, saves, storyworld.cli\n"
        "import storyworld.schema, memory.records\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'tui')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
