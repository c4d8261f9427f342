"""The child side of the model probe (storyworld/llm/probe.py): load a GGUF and decode under a schema."""

from __future__ import annotations

import sys

from storyworld.llm.base import ModelError
from storyworld.llm.local import LlamaModel


# A decision's shape: the child decodes under it, where NaN logits from damaged weights abort llama.cpp.
PROBE_SCHEMA = {"type": "object", "properties": {"pick": {"type": "integer", "enum": [1, 2, 3]}},
                "required": ["pick"]}


def main(argv: list[str]) -> int:
    """Child side: load the GGUF and decode a few tokens under a schema; 0 when it works, 2 with one line for a
    ModelError."""
    try:
        model = LlamaModel(argv[0], n_ctx=256, probe=False)
        model.complete([{"role": "user", "content": "Pick 1, 2 or 3."}], PROBE_SCHEMA, max_tokens=8,
                       temperature=0.7)
        model.close()
    except ModelError as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
