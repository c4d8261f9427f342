"""Loading a GGUF in a child process first: a file that makes llama.cpp abort is refused in one line.

llama.cpp aborts the whole process (SIGABRT, a backtrace on the terminal) on some damaged files, where
Python cannot catch it: a flipped block count aborts the load; weights damaged behind a sound header load,
give NaN logits, and abort the first grammar-constrained decision ("Unexpected empty grammar stack").
`probe(path)` loads the file in a child (storyworld/llm/probe_child.py, which imports the model: this
module does not, so `local` can import it with no circle) and decodes a few tokens under a JSON schema,
as a decision does; only a file that survives that is loaded in process. A file that passed is
remembered by path, size and modification time (in the user data folder), so it is probed once.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from storyworld.llm.base import ModelError

log = logging.getLogger("storyworld.llm")

PROBE_TIMEOUT_S = 600.0  # a big model from a slow disk; the probe then mostly warms the page cache
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


PROBE_VERSION = 2  # 2: decodes under a schema (1 decoded one free token, which damaged weights survive)


def _stamp(path: Path) -> str:
    info = path.stat()
    return f"v{PROBE_VERSION}\t{path.resolve()}\t{info.st_size}\t{info.st_mtime_ns}"


def _verified_file() -> Path:
    from storyworld.locations import home

    return home() / "models-verified.txt"


def _known_good(stamp: str) -> bool:
    try:
        return stamp in _verified_file().read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False


def _remember(stamp: str) -> None:
    file = _verified_file()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with file.open("a", encoding="utf-8") as out:
            out.write(stamp + "\n")
    except OSError as exc:  # the probe passed; without the note it only runs again next time
        log.info("cannot note %s as a good model file (%s)", file, exc.strerror or exc)


def probe(path: Path, *, timeout: float = PROBE_TIMEOUT_S) -> None:
    """Raise ModelError (one line) unless `path` loads and decodes a token in a child process."""
    stamp = _stamp(path)
    if _known_good(stamp):
        return
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(_PACKAGE_ROOT),
                                                                   os.environ.get("PYTHONPATH", "")) if p)}
    try:
        child = subprocess.run([sys.executable, "-m", "storyworld.llm.probe_child", str(path)], capture_output=True,
                               text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ModelError(f"{path}: the model did not load within {timeout:g} s (checked in a separate process)") from None
    if child.returncode == 0:
        _remember(stamp)
        return
    said = [line.strip() for line in child.stderr.splitlines() if line.strip()]
    if child.returncode == 2 and said:  # the child's own ModelError
        raise ModelError(said[-1])
    how = (f"signal {signal.Signals(-child.returncode).name}" if child.returncode < 0
           else f"exit status {child.returncode}")
    raise ModelError(f"{path}: the model file is damaged: llama.cpp aborted while loading it ({how}); "
                     "download it again or choose another --model")
