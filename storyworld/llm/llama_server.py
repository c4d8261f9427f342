"""llama.cpp's `llama-server` run by storyworld: found, started on demand, stopped at exit.

The local way to decide several agents at once: a pool of llama-servers (ServerPool), one
single-slot server per lane, each keeping its agents' prompts cached; an in-process
llama-cpp-python context decodes one prompt at a time and reuses only the previous call's prefix.
`make install` builds the binary from the llama.cpp sources of the installed llama-cpp-python
(storyworld.llm.server_build; `make install` runs it ahead of time, else the first
`--parallel` run does).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from storyworld.llm.concurrency import LANE
from storyworld.llm.base import Completion, LanguageModel, Message, ModelError, Schema, ModelStats
from storyworld.llm.local import default_threads
from storyworld.llm.server import ServerModel

ENV_BINARY = "STORYWORLD_LLAMA_SERVER"


def find_llama_server() -> Path | None:
    """The llama-server binary: $STORYWORLD_LLAMA_SERVER, this Python's bin/ (make install), PATH."""
    named = os.environ.get(ENV_BINARY)
    candidates = [Path(named)] if named else []
    candidates.append(Path(sys.prefix) / "bin" / "llama-server")
    found = shutil.which("llama-server")
    if found:
        candidates.append(Path(found))
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def ensure_llama_server(progress: Callable[[str], None] | None = None) -> Path:
    """The llama-server binary, built once now when there is none (the first `--parallel N`, N > 1).

    `progress` gets one line at a time ("building llama-server (first time): 37%"); by default they go
    to standard error. ModelError (one line) when it cannot be built.
    """
    found = find_llama_server()
    if found is not None:
        return found
    from storyworld.llm.server_build import BuildFailed, build, percent

    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    say("building llama-server once for --parallel (a few minutes; `make install` does it ahead of time)…")
    done = [0]

    def echo(line: str) -> None:
        step = percent(line)
        if step is not None and step > done[0]:
            done[0] = step
            say(f"building llama-server (first time): {step}%")

    try:
        binary = build(jobs=max(1, min(4, os.cpu_count() or 1)), echo=echo)
    except BuildFailed as exc:
        raise ModelError(f"llama-server could not be built ({exc}); --parallel needs it: run `make install`, set "
                         f"{ENV_BINARY}=/path/to/llama-server, or play without --parallel") from None
    say(f"llama-server built: {binary}")
    return binary


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServerProcess:
    """One `llama-server` child process serving one GGUF with `parallel` slots on 127.0.0.1."""

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        parallel: int = 4,
        n_ctx: int = 2048,
        threads: int | None = None,
        binary: Path | None = None,
        threads_batch: int | None = None,
        startup_s: float = 120.0,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        """Start the server and wait until it answers /health; ModelError (one line) if it cannot."""
        self.process: subprocess.Popen[bytes] | None = None  # none until started (stop() before then: nothing)
        self.binary = binary or find_llama_server()
        if self.binary is None:
            raise ModelError(
                "llama-server not found: run `make install` (it builds it), or set "
                f"{ENV_BINARY}=/path/to/llama-server"
            )
        self.model_path = Path(model_path)
        self.parallel = parallel
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        threads = threads or default_threads()
        self.log_path = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
        args = [
            str(self.binary), "-m", str(self.model_path), "--host", "127.0.0.1", "--port", str(self.port),
            # every slot gets the context an in-process model has; separate KV streams per slot
            "--parallel", str(parallel), "--ctx-size", str(n_ctx * parallel), "--no-kv-unified",
            "--threads", str(threads), "--threads-batch", str(threads_batch or threads),
            # no repacked weights (AMX buffers crash on hosts that advertise AMX they cannot run;
            # see storyworld.llm.local); no web UI; jinja templates as llama-cpp-python uses them
            "--no-repack", "--no-webui", "--jinja",
            *extra_args,
        ]
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        try:
            with self.log_path.open("wb") as log:
                self.process = subprocess.Popen(
                    args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
                )
        except OSError as exc:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
            raise ModelError(f"cannot start llama-server at {self.binary}: {exc.strerror or exc}") from exc
        atexit.register(self.stop)
        self._wait_healthy(startup_s)

    def _wait_healthy(self, startup_s: float) -> None:
        """Poll /health until 200; stop and raise ModelError if the process dies or time runs out."""
        deadline = time.monotonic() + startup_s
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise ModelError(f"llama-server exited at startup ({self.process.returncode}): {tail}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise ModelError(f"llama-server did not become ready within {startup_s:g} s: {self.log_tail()}")

    def log_tail(self, lines: int = 3) -> str:
        """The last lines of the server's log, on one line."""
        try:
            text = self.log_path.read_text("utf-8", "replace")
        except OSError:
            return ""
        return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])

    def stop(self) -> None:
        """Terminate the server (kill after 10 s) and remove its log; safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        atexit.unregister(self.stop)
        with contextlib.suppress(OSError):
            self.log_path.unlink()


class ManagedServerModel(ServerModel):
    """A ServerModel on a llama-server that it started itself and stops on close()."""

    def __init__(self, model_path: str | os.PathLike[str], parallel: int = 4, n_ctx: int = 2048,
                 threads: int | None = None, extra_args: tuple[str, ...] = (),
                 threads_batch: int | None = None) -> None:
        """Start llama-server on `model_path` with `parallel` slots and connect to it."""
        self.server = LlamaServerProcess(model_path, parallel=parallel, n_ctx=n_ctx, threads=threads,
                                         extra_args=extra_args, threads_batch=threads_batch)
        try:
            super().__init__(self.server.url, n_ctx=n_ctx, parallel=parallel)
        except BaseException:
            self.server.stop()
            raise
        self.name = f"{Path(model_path).stem}@llama-server-x{parallel}"

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()


class ServerPool(LanguageModel):
    """Several single-sequence llama-servers, one per lane: calls go to their lane's server (LANE).

    Why not one server with N slots: llama.cpp's logits are not bit-for-bit the same across batch
    compositions, so the same requests decided together or one at a time could differ. A server
    with one slot decodes one sequence at a time, and when a lane always carries the same agents
    in the same order (storyworld.llm.concurrency.run_ordered), each server sees the same requests in
    the same order whether the lanes run at once or in turn: the same prompt-cache states, the
    same text. Each server keeps its agents' prompts cached (they recur round after round), which
    is most of the speed; on a few cores batching gained nothing over this (docs/results/scale.md).
    """

    def __init__(self, model_path: str | os.PathLike[str], lanes: int = 2, n_ctx: int = 2048,
                 threads: int | None = None, extra_args: tuple[str, ...] = ()) -> None:
        """Start `lanes` llama-servers of one slot each, sharing the cores between them."""
        self.lanes: int = max(1, lanes)
        self.parallel: int = self.lanes
        self.slots = self.lanes
        self.n_ctx = n_ctx
        # Generating, a small model is fastest on one thread (storyworld.llm.local.default_decode_threads);
        # a prompt is a batch that every core helps with, and the lanes seldom evaluate prompts at once.
        decode = threads or 1
        batch = threads or default_threads()
        self.members: list[ManagedServerModel] = []
        try:
            for _ in range(self.lanes):
                self.members.append(ManagedServerModel(model_path, parallel=1, n_ctx=n_ctx, threads=decode,
                                                       extra_args=extra_args, threads_batch=batch))
        except BaseException:
            self.close()
            raise
        self.name = f"{Path(model_path).stem}@llama-server-1x{self.lanes}"

    def member(self) -> ManagedServerModel:
        """The server of the calling lane."""
        return self.members[LANE.get() % self.lanes]

    def complete(self, messages: list[Message], schema: Schema | None = None, max_tokens: int = 128,
                 temperature: float = 0.7, seed: int = 0) -> Completion:
        """The lane's server's reply."""
        return self.member().complete(messages, schema, max_tokens, temperature, seed)

    def stats(self) -> ModelStats:
        """The servers' own timers, summed over the lanes."""
        out: ModelStats = {}
        for member in self.members:
            for key, value in member.stats().items():
                if key not in {"parallel", "server_slots"} and isinstance(value, (int, float)):
                    out[key] = round(out.get(key, 0) + value, 3)
        return {**out, "parallel": self.parallel, "server_slots": self.slots, "lanes": self.lanes}

    def close(self) -> None:
        """Stop every server."""
        for member in self.members:
            member.close()
