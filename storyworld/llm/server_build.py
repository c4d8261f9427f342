"""Building llama.cpp's `llama-server` from the llama.cpp sources inside the llama-cpp-python sdist.

`--parallel N` (N > 1) on a local model needs it; `make install` builds it once, and otherwise the
first `--parallel` run builds it (ensure_llama_server in storyworld.llm.llama_server). Uses the
same llama.cpp version as the installed llama-cpp-python, so the server and the in-process model
compute the same thing. Needs a C/C++ compiler; cmake comes from pip when the machine has none.
Only the server target is built.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

Echo = Callable[[str], None]  # one line of progress
_PERCENT = re.compile(r"^\[\s*(\d+)%\]")


class BuildFailed(Exception):
    """The server could not be built; the message is one line saying why."""


def default_dest() -> Path:
    """Where the server goes: this Python's bin/ (the virtual environment's, under make)."""
    return Path(sys.prefix) / "bin" / "llama-server"


def default_work() -> Path:
    """Where the sources are unpacked and built."""
    return Path(sys.prefix) / "src" / "llama-server"


def run(cmd: list[str], echo: Echo, **kwargs: object) -> None:
    """Run `cmd`, echoing it and its output line by line; CalledProcessError on failure."""
    echo("+ " + " ".join(cmd))
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          **kwargs) as proc:  # type: ignore[call-overload]
        tail: list[str] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            tail = (tail + [line])[-20:]
            echo(line)
        if proc.wait() != 0:
            raise subprocess.CalledProcessError(proc.returncode, cmd, output="\n".join(tail))


def percent(line: str) -> int | None:
    """The build's progress in a line of its output ("[ 37%] Building ..." -> 37), else None."""
    found = _PERCENT.match(line)
    return int(found.group(1)) if found else None


def cmake_binary(echo: Echo) -> str:
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
    run([sys.executable, "-m", "pip", "install", "--quiet", "cmake>=3.21"], echo)
    return str(Path(sys.executable).parent / "cmake")


def source_tree(work: Path, version: str, echo: Echo) -> Path:
    """The unpacked llama-cpp-python sdist of `version` (downloaded once into `work`)."""
    unpacked = work / f"llama_cpp_python-{version}"
    if (unpacked / "vendor" / "llama.cpp" / "CMakeLists.txt").exists():
        return unpacked
    work.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "-d", str(work), f"llama-cpp-python=={version}"], echo)
    archives = sorted(work.glob(f"llama_cpp_python-{version}.tar.gz"))
    if not archives:
        raise BuildFailed(f"no sdist of llama-cpp-python {version} was downloaded into {work}")
    with tarfile.open(archives[0]) as tar:
        tar.extractall(work, filter="data")
    return unpacked


def build(dest: Path | None = None, work: Path | None = None, jobs: int = 2, version: str | None = None,
          echo: Echo = print) -> Path:
    """Download the sources, configure, build the server target; copy the binary to `dest` and return it.

    BuildFailed (one line) when it cannot.
    """
    dest = dest or default_dest()
    work = work or default_work()
    try:
        version = version or importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        raise BuildFailed("llama-cpp-python is not installed") from None
    try:
        tree = source_tree(work, version, echo)
        cmake = cmake_binary(echo)
        out = work / f"build-{version}"
        # Static libraries so the binary stands alone; no curl (no downloads), no tests or examples.
        # The CPU flags are llama.cpp's defaults, as in llama-cpp-python's own build.
        run([cmake, "-S", str(tree / "vendor" / "llama.cpp"), "-B", str(out),
             "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF",
             "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
             "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_SERVER=ON"], echo)
        run([cmake, "--build", str(out), "--target", "llama-server", "-j", str(jobs)], echo,
            env={**os.environ, "MAKEFLAGS": f"-j{jobs}"})
    except subprocess.CalledProcessError as exc:
        last = next((ln for ln in reversed((exc.output or "").splitlines()) if ln.strip()), "")
        raise BuildFailed(f"{Path(str(exc.cmd[0])).name} failed ({exc.returncode}){': ' + last if last else ''}") from None
    except OSError as exc:
        raise BuildFailed(str(exc.strerror or exc)) from None
    binary = out / "bin" / "llama-server"
    if not binary.exists():
        raise BuildFailed(f"{binary} missing after the build")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(binary, dest)
    return dest
