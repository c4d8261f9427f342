"""What batching several sequences in one in-process llama.cpp context gains (option (a) of issue 16).

Evaluates N different decision-sized prompts, then generates T tokens for each, two ways in one
llama-cpp-python context through the low-level API: one sequence after another, and all N
sequences in one batch per step (one llama_decode per step with N tokens, one per sequence).
Sampling is greedy from the logits in Python (no grammar), so the figures are the decoding
floor that an in-process multi-sequence implementation could reach before adding per-sequence
grammars; `bench round` measures llama-server, which does all of it in C++.

    python scripts/measure_batch_decode.py [--n 4] [--tokens 48] [--threads 2] [--json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import time

import numpy as np


def main() -> int:
    """Time sequential against batched decoding of N prompts."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    context = _Context(args.n, args.threads)
    prompts = [context.llama.tokenize(
        (f"<|im_start|>system\nYou are agent {i} in Elsinore. Your goal: learn the truth about the ghost. "
         "Stay in character. Answer with one JSON action.<|im_end|>\n<|im_start|>user\nRound 3. You are in the "
         f"great hall with {i + 2} others. Exits: battlements, chapel. Someone said the king drinks. "
         "Choose: say, move, observe or wait.<|im_end|>\n<|im_start|>assistant\n").encode(), add_bos=False, special=True)
        for i in range(args.n)]
    sequential_s, prompt_s = _sequential(context, prompts, args.tokens)
    batched_s, batched_prompt_s = _batched(context, prompts, args.tokens)
    context.close()
    sequential_gen_s = sequential_s - prompt_s
    result = {
        "sequences": args.n, "tokens_each": args.tokens, "prompt_tokens_each": round(sum(map(len, prompts)) / args.n),
        "threads": args.threads, "load_1m": round(os.getloadavg()[0], 2),
        "sequential_s": round(sequential_s, 3), "sequential_prompt_s": round(prompt_s, 3),
        "sequential_generation_s": round(sequential_gen_s, 3),
        "batched_s": round(batched_s, 3), "batched_prompt_s": round(batched_prompt_s, 3),
        "batched_generation_s": round(batched_s - batched_prompt_s, 3),
        "speedup": round(sequential_s / batched_s, 3),
        "generation_speedup": round(sequential_gen_s / (batched_s - batched_prompt_s), 3),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))
    return 0


class _Context:
    """The bundled model in one llama.cpp context with room for N sequences, and a batch to decode."""

    def __init__(self, sequences: int, threads: int) -> None:
        import llama_cpp
        import llama_cpp.llama_cpp as c

        from storyworld.llm.local import plain_cpu_buffers
        from storyworld.locations import default_gguf

        self.c = c
        with plain_cpu_buffers(llama_cpp):
            self.llama = llama_cpp.Llama(str(default_gguf()), n_ctx=512, n_batch=512,
                                         n_threads=threads, n_threads_batch=threads, verbose=False)
        # llama-cpp-python's Llama holds a one-sequence context; make one with room for N sequences
        params = self.llama.context_params
        params.n_ctx, params.n_batch, params.n_ubatch = 4096, 1024, 512
        params.n_seq_max, params.kv_unified = sequences, True
        self.ctx = c.llama_init_from_model(self.llama._model.model, params)
        self.n_vocab = c.llama_vocab_n_tokens(self.llama._model.vocab)
        self.batch = c.llama_batch_init(1024, 0, sequences)

    def decode(self, entries: list[tuple[int, int, int, bool]]) -> None:
        """Decode (token, pos, seq, wants_logits) entries as one batch."""
        batch = self.batch
        batch.n_tokens = len(entries)
        for k, (tok, pos, seq, logits) in enumerate(entries):
            batch.token[k] = tok
            batch.pos[k] = pos
            batch.n_seq_id[k] = 1
            batch.seq_id[k][0] = seq
            batch.logits[k] = logits
        status = self.c.llama_decode(self.ctx, batch)
        if status != 0:
            raise SystemExit(f"llama_decode failed: {status}")

    def argmax(self, index: int) -> int:
        """The greedy next token from the logits of batch entry `index`."""
        row = self.c.llama_get_logits_ith(self.ctx, index)
        return int(np.argmax(np.ctypeslib.as_array(ctypes.cast(row, ctypes.POINTER(ctypes.c_float)), (self.n_vocab,))))

    def clear(self) -> None:
        """Forget every sequence."""
        self.c.llama_memory_clear(self.c.llama_get_memory(self.ctx), True)

    def close(self) -> None:
        """Free the batch and the context."""
        self.c.llama_batch_free(self.batch)
        self.c.llama_free(self.ctx)


def _sequential(context: _Context, prompts: list[list[int]], tokens: int) -> tuple[float, float]:
    """Each prompt, then its tokens one at a time; (seconds in all, seconds on prompts)."""
    context.clear()
    t0 = time.perf_counter()
    prompt_s = 0.0
    for seq, prompt in enumerate(prompts):
        p0 = time.perf_counter()
        context.decode([(t, i, seq, i == len(prompt) - 1) for i, t in enumerate(prompt)])
        prompt_s += time.perf_counter() - p0
        tok, pos = context.argmax(len(prompt) - 1), len(prompt)
        for _ in range(tokens):
            context.decode([(tok, pos, seq, True)])
            tok, pos = context.argmax(0), pos + 1
    return time.perf_counter() - t0, prompt_s


def _batched(context: _Context, prompts: list[list[int]], tokens: int) -> tuple[float, float]:
    """All prompts in one batch, then one step per token for all sequences together; (in all, on prompts)."""
    context.clear()
    t0 = time.perf_counter()
    entries, last = [], []
    for seq, prompt in enumerate(prompts):
        entries += [(t, i, seq, i == len(prompt) - 1) for i, t in enumerate(prompt)]
        last.append(len(entries) - 1)
    context.decode(entries)
    prompt_s = time.perf_counter() - t0
    toks = [context.argmax(i) for i in last]
    poss = [len(p) for p in prompts]
    for _ in range(tokens):
        context.decode([(toks[s], poss[s], s, True) for s in range(len(prompts))])
        toks = [context.argmax(s) for s in range(len(prompts))]
        poss = [p + 1 for p in poss]
    return time.perf_counter() - t0, prompt_s


if __name__ == "__main__":
    raise SystemExit(main())
