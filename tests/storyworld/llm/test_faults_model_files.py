"""A model file whose header is sound but whose weights are damaged is refused in one line, never a C abort.

Such a file loads and decodes a free token; its NaN logits abort llama.cpp at the first grammar-constrained
decision ("Unexpected empty grammar stack", exit 134 and a backtrace over the screen). The probe in a child
process decodes under a schema as a decision does, so the game never loads it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO, TINY


def damaged_weights(folder: Path) -> Path:
    """The bundled GGUF with its last 8 MiB of weights set to all ones (NaN in every block); header untouched."""
    from storyworld.locations import default_gguf

    data = bytearray(default_gguf().read_bytes())
    data[-8 * 1024 * 1024:] = b"\xff" * (8 * 1024 * 1024)
    bad = folder / "damaged-weights.gguf"
    bad.write_bytes(bytes(data))
    return bad


@pytest.mark.real_model
def test_a_gguf_with_damaged_weights_is_refused_in_one_line_and_nothing_is_saved(tmp_path):
    bad = damaged_weights(tmp_path)
    save = tmp_path / "save"
    # in a child: before the fix this aborts the whole process, which must not take pytest with it
    child = subprocess.run([sys.executable, "-m", "storyworld", "run", str(TINY), "--rounds", "1", "--awake", "all",
                            "--model", str(bad), "--save", str(save)], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(REPO)}, stdin=subprocess.DEVNULL)
    assert child.returncode == 1, (child.returncode, child.stderr[-600:])
    lines = [line for line in child.stderr.splitlines() if line.startswith("storyworld:")]
    assert len(lines) == 1 and "Traceback" not in child.stderr and "grammar" not in child.stderr, child.stderr[-600:]
    assert f"{bad}: the model file is damaged: llama.cpp aborted while loading it (signal SIGABRT)" in lines[0]
    assert not save.exists()
