"""Build llama.cpp's `llama-server` from the llama.cpp sources inside the llama-cpp-python sdist.

Run by `make install` once (the Makefile keeps a stamp). Uses the same llama.cpp version as the
installed llama-cpp-python, so the server and the in-process model compute the same thing.
Needs a C/C++ compiler; cmake comes from pip when the machine has none. Exit status 0 on
success; on failure it says why on one line and exits 1 (the server tests then skip).

    python scripts/build_llama_server.py [--dest PATH] [--work DIR] [--jobs N]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path


def run(cmd: list[str], **kwargs: object) -> None:
    """Run `cmd`, echoing it; CalledProcessError on failure."""
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def cmake_binary() -> str:
    """A cmake >= 3.21: the machine's if new enough, else pip's `cmake` package in this Python."""
    found = shutil.which("cmake")
    if found:
        out = subprocess.run([found, "--version"], capture_output=True, text=True).stdout.split()
        try:
            major, minor = (int(x) for x in out[2].split(".")[:2])
            if (major, minor) >= (3, 21):
                return found
        except (IndexError, ValueError):
            pass
    run([sys.executable, "-m", "pip", "install", "--quiet", "cmake>=3.21"])
    return str(Path(sys.executable).parent / "cmake")


def source_tree(work: Path, version: str) -> Path:
    """The unpacked llama-cpp-python sdist of `version` (downloaded once into `work`)."""
    unpacked = work / f"llama_cpp_python-{version}"
    if (unpacked / "vendor" / "llama.cpp" / "CMakeLists.txt").exists():
        return unpacked
    work.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "-d", str(work), f"llama-cpp-python=={version}"])
    archives = sorted(work.glob(f"llama_cpp_python-{version}.tar.gz"))
    if not archives:
        raise SystemExit(f"no sdist of llama-cpp-python {version} was downloaded into {work}")
    with tarfile.open(archives[0]) as tar:
        tar.extractall(work, filter="data")
    return unpacked


def main() -> int:
    """Download, configure, build; copy the binary to --dest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=Path(sys.prefix) / "bin" / "llama-server")
    parser.add_argument("--work", type=Path, default=Path(sys.prefix) / "src" / "llama-server")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    parser.add_argument("--version", help="llama-cpp-python version (default: the installed one)")
    args = parser.parse_args()
    try:
        version = args.version or importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        print("llama-server not built: llama-cpp-python is not installed", file=sys.stderr)
        return 1
    try:
        tree = source_tree(args.work, version)
        cmake = cmake_binary()
        build = args.work / f"build-{version}"
        # Static libraries so the binary stands alone; no curl (no downloads), no tests or examples.
        # The CPU flags are llama.cpp's defaults, as in llama-cpp-python's own build.
        run([cmake, "-S", str(tree / "vendor" / "llama.cpp"), "-B", str(build),
             "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF",
             "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
             "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_SERVER=ON"])
        run([cmake, "--build", str(build), "--target", "llama-server", "-j", str(args.jobs)],
            env={**os.environ, "MAKEFLAGS": f"-j{args.jobs}"})
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"llama-server not built: {exc}", file=sys.stderr)
        return 1
    binary = build / "bin" / "llama-server"
    if not binary.exists():
        print(f"llama-server not built: {binary} missing after the build", file=sys.stderr)
        return 1
    args.dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(binary, args.dest)
    print(f"llama-server {version}: {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
