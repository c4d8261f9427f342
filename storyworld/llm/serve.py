"""`python -m storyworld.llm.serve --model GGUF ...`: llama-cpp-python's OpenAI-compatible server.

Same arguments as `python -m llama_cpp.server`; the only difference is that models load with
plain CPU buffers (see storyworld.llm.local), without which the server crashes on machines
whose CPU advertises AMX that the hypervisor cannot run.
"""

from __future__ import annotations


def main() -> None:
    """Run llama-cpp-python's server (needs the `test` extra: uvicorn, fastapi, ...)."""
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see storyworld.llm.local: spinning threads
    import llama_cpp

    from storyworld.llm.local import plain_cpu_buffers

    # The patch stays on for the life of this process: it only serves models.
    with plain_cpu_buffers(llama_cpp):
        from llama_cpp.server.__main__ import main as serve

        serve()  # type: ignore[no-untyped-call]  # llama_cpp.server's main() carries no annotations


if __name__ == "__main__":
    main()
