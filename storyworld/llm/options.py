"""The command-line options that choose a language model (--model | --server, --parallel) and the model they choose."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded with the model only
    from storyworld.llm.base import LanguageModel


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--model PATH | --server URL, and --parallel N."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--model", metavar="PATH", help="any GGUF file (default: the bundled SmolLM2-135M-Instruct)")
    group.add_argument("--server", metavar="URL", help="an OpenAI-compatible server (llama.cpp server, vLLM)")
    parser.add_argument(
        "--parallel", type=int, metavar="N",
        help="decisions in flight at once; with --server default its slot count (else 4); locally, "
        "N > 1 serves the model from a llama-server with N slots that storyworld starts (default 1)",
    )
    parser.add_argument(
        "--timeout", type=float, metavar="SECONDS", default=None,
        help="how long one request to a model server (--server, or the lanes of --parallel N) may take before it "
        "counts as failed and is retried (default 120); past a few seconds the screen says it is waiting",
    )
    parser.add_argument(
        "--retry-for", type=float, metavar="SECONDS", default=None,
        help="how long a model that stops answering (a dead server, HTTP 5xx, a dropped connection) is retried "
        "before the round is refused and the run stops (default 30)",
    )


def load_lm(args: argparse.Namespace, seed: int = 0) -> LanguageModel:
    """The language model the options name."""
    from storyworld.errors import UserError
    from storyworld.llm import PATIENCE_S, load_model

    patience = getattr(args, "retry_for", None)
    if patience is not None and not 0 <= patience <= MAX_SECONDS:
        raise UserError(f"--retry-for must be between 0 and {MAX_SECONDS:,} seconds")
    timeout = getattr(args, "timeout", None)
    if timeout is not None and not 0 < timeout <= MAX_SECONDS:
        raise UserError(f"--timeout must be more than 0 and at most {MAX_SECONDS:,} seconds")
    parallel = getattr(args, "parallel", None)
    if parallel is not None and not 1 <= parallel <= MAX_PARALLEL:
        raise UserError(f"--parallel must be between 1 and {MAX_PARALLEL}")
    return load_model(model_path=getattr(args, "model", None), server_url=getattr(args, "server", None), seed=seed,
                      parallel=parallel, patience_s=PATIENCE_S if patience is None else patience, timeout=timeout)


MAX_SECONDS = 86_400  # a day: past that a figure of seconds is a typo
MAX_PARALLEL = 1024
