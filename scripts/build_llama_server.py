"""Build llama.cpp's `llama-server` from the llama.cpp sources inside the llama-cpp-python sdist.

Run by `make install` and `make test` once (the Makefile keeps a stamp); the work itself is
storyworld.llm.server_build, which a first `--parallel N` run also uses. Exit status 0 on
success; on failure it says why on one line and exits 1 (the server tests then skip).

    python scripts/build_llama_server.py [--dest PATH] [--work DIR] [--jobs N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from storyworld.llm.server_build import BuildFailed, build, default_dest, default_work


def main() -> int:
    """Download, configure, build; copy the binary to --dest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=default_dest())
    parser.add_argument("--work", type=Path, default=default_work())
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    parser.add_argument("--version", help="llama-cpp-python version (default: the installed one)")
    args = parser.parse_args()
    try:
        dest = build(args.dest, args.work, jobs=args.jobs, version=args.version, echo=lambda line: print(line, flush=True))
    except BuildFailed as exc:
        print(f"llama-server not built: {exc}", file=sys.stderr)
        return 1
    print(f"llama-server: {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
