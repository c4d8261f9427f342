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
        "--retry-for", type=float, metavar="SECONDS", default=None,
        help="how long a model that stops answering (a dead server, HTTP 5xx, a dropped connection) is retried "
        "before the round is refused and the run stops (default 30)",
    )


def load_lm(args: argparse.Namespace, seed: int = 0) -> LanguageModel:
    """The language model the options name."""
    from storyworld.errors import UserError
    from storyworld.llm import PATIENCE_S, load_model

    patience = getattr(args, "retry_for", None)
    if patience is not None and not patience >= 0:
        raise UserError("--retry-for must be 0 seconds or more")
    return load_model(model_path=getattr(args, "model", None), server_url=getattr(args, "server", None), seed=seed,
                      parallel=getattr(args, "parallel", None),
                      patience_s=PATIENCE_S if patience is None else patience)
