"""Options and loaders shared by several commands: worlds, models, stores."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from storyworld.errors import UserError


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--model PATH | --server URL."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--model", metavar="PATH", help="any GGUF file (default: the bundled SmolLM2-135M-Instruct)")
    group.add_argument("--server", metavar="URL", help="an OpenAI-compatible server (llama.cpp server, vLLM)")
    parser.add_argument(
        "--parallel", type=int, metavar="N",
        help="decisions in flight at once; with --server default its slot count (else 4); locally, "
        "N > 1 serves the model from a llama-server with N slots that storyworld starts (default 1)",
    )


def load_lm(args: argparse.Namespace, seed: int = 0) -> Any:
    """The language model the options name."""
    from storyworld.llm import load_model

    return load_model(model_path=getattr(args, "model", None), server_url=getattr(args, "server", None), seed=seed,
                      parallel=getattr(args, "parallel", None))


def load_world_arg(name: str) -> Any:
    """A world by path or id, as a UserError when it cannot be found or is malformed."""
    from storyworld.locations import find_world
    from storyworld.world import load_world

    try:
        path = find_world(name)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    return load_world(path)


def existing_save(path: str) -> Path:
    """A save folder that must exist."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"{folder}: no such save folder")
    return folder


def resolve_player(world, wanted: str) -> str:
    """An agent id from an id, a name or an alias (case-insensitive); UserError naming the playable cast."""
    key = wanted.strip().lower()
    for agent in world.file.agent:
        names = {agent.id.lower(), agent.name.lower(), *(a.lower() for a in agent.aliases)}
        if key in names:
            if not agent.playable or agent.status != "active":
                raise UserError(f"{agent.id} is not playable in {world.id}; playable: {playable(world)}")
            return agent.id
    raise UserError(f"no character {wanted!r} in {world.id}; playable: {playable(world)}")


def playable(world) -> str:
    """The playable cast's ids, comma-separated."""
    return ", ".join(a.id for a in world.file.agent if a.playable and a.status == "active") or "none"
