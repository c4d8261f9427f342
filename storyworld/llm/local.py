"""LlamaModel: a GGUF file run in process by llama-cpp-python (imported only when loaded)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from storyworld.llm.base import (
    Completion,
    LanguageModel,
    Message,
    ModelError,
    PromptTooLongError,
    Schema,
)

GGUF_MAGIC = b"GGUF"
# llama-cpp-python's sampling defaults, passed explicitly because the grammar shortlist relies on them.
TOP_K = 40
MIN_P = 0.05

# llama.cpp's "extra buffer types" (AMX tiles, repacked weights) crash on machines whose CPU
# advertises AMX but whose hypervisor cannot run it (this project's build VM: ldtilecfg faults
# inside libggml-cpu). Plain CPU buffers are as fast for small models, so they are the default.
_PARAMS_LOCK = threading.Lock()


@contextlib.contextmanager
def plain_cpu_buffers(llama_cpp_module: Any) -> Iterator[None]:
    """While open, models load with `use_extra_bufts = False` (llama-cpp-python has no argument)."""
    low_level = llama_cpp_module.llama_cpp
    with _PARAMS_LOCK:
        original = low_level.llama_model_default_params

        def without_extra_buffers() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        low_level.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            low_level.llama_model_default_params = original


SMALL_MODEL_BYTES = 1 << 30


def default_threads() -> int:
    """Threads for prompt evaluation: the cores there are, at most 4 (a small model gains little beyond)."""
    return max(1, min(4, os.cpu_count() or 1))


def default_decode_threads(path: Path) -> int:
    """Threads for generating tokens: one for a small model, else as for prompts.

    A token of a sub-gigabyte model is a few milliseconds of arithmetic split into hundreds of
    operations, each ending at a thread barrier; with passive waiting every barrier is a sleep and
    a wake-up. Measured with SmolLM2-135M on 2 cores: 24 ms per token on one thread, 43 ms on two.
    Prompts are evaluated in batches, where the second thread does pay: 1.2 s vs 2.2 s for 346 tokens.
    """
    try:
        small = path.stat().st_size < SMALL_MODEL_BYTES
    except OSError:
        small = False
    return 1 if small else default_threads()


def check_gguf(path: Path) -> None:
    """Raise ModelError with one line naming `path` unless it is a readable GGUF file."""
    if not path.exists():
        raise ModelError(f"{path}: no such model file (give --model PATH to a .gguf file)")
    if not path.is_file():
        raise ModelError(f"{path}: not a file (give --model PATH to a .gguf file)")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model file: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelError(f"{path}: not a GGUF model file (it does not start with 'GGUF')")


class LlamaModel(LanguageModel):
    """A local GGUF model; schema-constrained decoding through a grammar built from the schema.

    With `reuse_prefix` (the default) a call re-evaluates only the part of its prompt that differs
    from the previous call's, as llama-cpp-python does. On this build the logits are bit-identical
    to a full re-evaluation (tests/test_llm_local.py checks it), so a decision stays a function of
    (prompt, seed) alone and a resumed run replays exactly; `reuse_prefix=False` forces the full
    re-evaluation for builds where that check fails.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        n_ctx: int = 2048,
        seed: int = 0,
        threads: int | None = None,
        reuse_prefix: bool = True,
        extra_buffers: bool = False,
        shortlist: int = 256,
        probe: bool = True,
    ) -> None:
        """Load the GGUF at `model_path`; ModelError if it is missing or not a model.

        With `probe` a file not seen before is first loaded in a child process (storyworld.llm.probe):
        a damaged file that makes llama.cpp abort is refused in one line instead of taking the game down.
        """
        path = Path(model_path).expanduser()
        check_gguf(path)
        if probe:
            from storyworld.llm.probe import probe as probe_in_child

            probe_in_child(path)
        # libgomp reads this once, when llama.cpp's CPU backend loads. Its default spin-waiting
        # makes 2 decoding threads ten times slower as soon as anything else wants the cores
        # (the embedder's torch threads, a second process): measured 4 s vs 40-50 s per judge call.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError as exc:  # the dependency is declared; this is a broken install
            raise ModelError(f"llama-cpp-python is not importable ({exc}); reinstall storyworld") from exc
        self.path = path
        self.n_ctx = n_ctx
        self.threads = threads or default_threads()
        # an explicit `threads` means the caller has chosen for both phases
        self.decode_threads = threads or default_decode_threads(path)
        self.reuse_prefix = reuse_prefix
        self.shortlist = shortlist  # 0: llama-cpp-python's full-vocabulary grammar check
        self.grammar_steps = 0
        self.grammar_full_checks = 0
        self.grammar_s = 0.0
        self.calls_s = 0.0  # wall seconds inside complete(), for the breakdown in stats()
        self.name = path.stem
        self._grammars: dict[str, Any] = {}
        self._lock = threading.Lock()  # one llama context cannot decode two prompts at once
        loading = contextlib.nullcontext() if extra_buffers else plain_cpu_buffers(llama_cpp)
        try:
            with loading:
                self._llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    seed=seed,
                    n_threads=self.decode_threads,
                    n_threads_batch=self.threads,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"{path}: cannot load the model: {exc}") from exc
        self._llama_cpp = llama_cpp

    def _grammar(self, schema: Schema) -> Any:
        """The grammar for `schema`, built once per distinct schema (building costs milliseconds)."""
        key = json.dumps(schema)  # order matters: see below
        grammar = self._grammars.get(key)
        if grammar is None:
            try:
                # the grammar fixes properties in the schema's order (free text last, so a reply cut
                # at the token limit has made its choices); the sorted key would reorder them
                grammar = self._llama_cpp.LlamaGrammar.from_json_schema(key, verbose=False)
            except (ValueError, RuntimeError, KeyError, NotImplementedError) as exc:
                # A schema the converter cannot express is a programming error: say so loudly
                # rather than fall back to unconstrained JSON as llama-cpp-python would.
                raise ValueError(f"JSON schema not convertible to a grammar: {exc}") from exc
            self._grammars[key] = grammar
        return grammar

    def complete(
        self,
        messages: list[Message],
        schema: Schema | None = None,
        max_tokens: int = 128,
        temperature: float = 0.7,
        seed: int = 0,
    ) -> Completion:
        """The reply to `messages`; grammar-constrained to `schema` when given."""
        grammar = self._grammar(schema) if schema is not None else None
        with self._lock:
            started = time.perf_counter()
            if not self.reuse_prefix:
                self._llama.reset()
            shortlist = None
            if grammar is not None and self.shortlist > 0:
                from storyworld.llm.shortlist import ShortlistGrammar, chain_with_shortlist

                shortlist = ShortlistGrammar(
                    self._llama, grammar, TOP_K, MIN_P, temperature <= 0, self.shortlist
                )
                # Llama.generate builds its sampler chain through this method; shadow it for one call.
                self._llama._init_sampler = lambda **kwargs: chain_with_shortlist(self._llama, shortlist, kwargs)
                grammar = None
            try:
                result = self._llama.create_chat_completion(
                    messages=messages,
                    grammar=grammar,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_k=TOP_K,
                    min_p=MIN_P,
                    seed=seed,
                )
            except ValueError as exc:
                if "exceed context window" in str(exc):
                    raise PromptTooLongError(f"{self.name}: {exc}") from exc
                raise
            except RuntimeError as exc:  # llama_decode failed (out of memory, a broken context): the model is down
                raise ModelError(f"{self.name}: the model failed: {exc}") from exc
            finally:
                if shortlist is not None:
                    del self._llama._init_sampler
                    self._llama._sampler = None  # its first stage points at the grammar freed next
                    shortlist.close()
                    self.grammar_steps += shortlist.steps
                    self.grammar_full_checks += shortlist.full_checks
                    self.grammar_s += shortlist.seconds
            seconds = time.perf_counter() - started
            self.calls_s += seconds
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
            finish_reason=choice.get("finish_reason") or "",
        )

    def stats(self) -> dict[str, Any]:
        """Grammar shortlist counters, and where the time of the calls went (cumulative seconds).

        prompt_s and generation_s are llama.cpp's own timers (evaluating prompt tokens, evaluating
        generated tokens); grammar_s is the grammar stage of sampling; the rest of calls_s is the
        other samplers, detokenising, the chat template and Python around them.
        """
        out: dict[str, Any] = {"grammar_steps": self.grammar_steps, "grammar_full_checks": self.grammar_full_checks,
                               "grammar_s": round(self.grammar_s, 3), "calls_s": round(self.calls_s, 3)}
        llama = getattr(self, "_llama", None)
        if llama is not None:
            perf = self._llama_cpp.llama_cpp.llama_perf_context(llama._ctx.ctx)
            out.update(prompt_s=round(perf.t_p_eval_ms / 1000, 3), prompt_tokens_evaluated=int(perf.n_p_eval),
                       generation_s=round(perf.t_eval_ms / 1000, 3), tokens_generated=int(perf.n_eval))
        return out

    def count_tokens(self, text: str) -> int:
        """Exact token count of `text` under this model's tokenizer."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def close(self) -> None:
        """Free the model and its context now rather than at garbage collection."""
        llama = getattr(self, "_llama", None)
        if llama is not None:
            llama.close()
            self._llama = None
