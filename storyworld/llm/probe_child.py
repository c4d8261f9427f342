"""The child side of the model probe (storyworld/llm/probe.py): load a GGUF and decode one token."""

from __future__ import annotations

import sys

from storyworld.llm.base import ModelError
from storyworld.llm.local import LlamaModel


def main(argv: list[str]) -> int:
    """Child side: load the GGUF and decode one token; 0 when it works, 2 with one line for a ModelError."""
    try:
        model = LlamaModel(argv[0], n_ctx=256, probe=False)
        model.complete([{"role": "user", "content": "Hello."}], max_tokens=1, temperature=0.0)
        model.close()
    except ModelError as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
