"""Cosine vector index over record ids (usearch HNSW), with the exact vectors kept beside it.

Vectors are held at half precision (rounded once, on insert), so what is saved is exactly what
is searched: a store reopens bit-identical. The raw rows are saved as their own file because
reading them back out of usearch one key at a time is the slowest part of opening a store.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import numpy as np

ROW_DTYPE = np.float16
CHECK_TIMEOUT_S = 120.0  # a search of a few thousand rows takes well under a second; a hang is a bad graph too
CHECK_SAMPLE = 4096  # rows searched for in the child: every row of most saves
_PACKAGE_ROOT = Path(__file__).resolve().parents[1]
_known_graphs: OrderedDict[str, None] = OrderedDict()  # digests of graphs this process wrote or saw searched safely
_known_lock = threading.Lock()


def _graph_digest(data: bytes | bytearray) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _know(digest: str) -> None:
    with _known_lock:
        _known_graphs[digest] = None
        _known_graphs.move_to_end(digest)
        while len(_known_graphs) > 256:
            _known_graphs.popitem(last=False)


def _known(digest: str) -> bool:
    with _known_lock:
        return digest in _known_graphs


def searched_in_child(index_data: bytes, vectors: np.ndarray, *, timeout: float = CHECK_TIMEOUT_S) -> str | None:
    """Why a usearch graph is not to be trusted in this process, or None when a child searched it safely.

    usearch trusts its file: a graph whose neighbour lists point past its nodes (a crafted file with its
    checksums redone passes every check on bytes) reads out of bounds on search and kills the process
    (SIGSEGV). A child restores it and searches for every saved row (a sample of CHECK_SAMPLE for big
    stores); if the child dies, so be it: the graph is rebuilt from the rows, which are the truth.
    """
    rows = np.asarray(vectors, dtype=np.float32)
    if len(rows) > CHECK_SAMPLE:
        rows = rows[np.linspace(0, len(rows) - 1, CHECK_SAMPLE).astype(np.int64)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(_PACKAGE_ROOT),
                                                                   os.environ.get("PYTHONPATH", "")) if p)}
    try:
        with tempfile.TemporaryDirectory(prefix="storyworld-index-") as folder:
            (Path(folder) / "graph.usearch").write_bytes(index_data)
            np.save(Path(folder) / "rows.npy", rows, allow_pickle=False)
            child = subprocess.run([sys.executable, "-m", "memory.index", folder], capture_output=True, text=True,
                                   timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"a search of the graph did not finish within {timeout:g} s (in a separate process)"
    except OSError as exc:  # no temp folder or no process to spare: doubt, so the rows rebuild it
        return f"the graph could not be checked in a separate process ({exc.strerror or exc})"
    if child.returncode == 0:
        return None
    if child.returncode < 0:
        import signal

        return f"a search of the graph crashed a separate process (signal {signal.Signals(-child.returncode).name})"
    said = [line.strip() for line in child.stderr.splitlines() if line.strip()]
    return f"a search of the graph failed in a separate process ({said[-1] if said else child.returncode})"


def _child_search(folder: str) -> int:
    """Child side: restore the graph and search for every row given; 0 when it survives."""
    rows = np.load(Path(folder) / "rows.npy", allow_pickle=False)
    Index = usearch_index_class()
    index = Index.restore(bytearray((Path(folder) / "graph.usearch").read_bytes()))
    if index is None:
        print("unreadable graph", file=sys.stderr)
        return 3
    if len(index) and len(rows):
        index.search(rows, min(10, len(index)), threads=1)
    return 0


class _Matches(Protocol):
    """usearch's search result: the keys found, nearest first."""

    @property
    def keys(self) -> np.ndarray:
        """The keys."""


class _Usearch(Protocol):
    """The part of usearch's Index this wrapper uses."""

    expansion_search: int  # candidates a search looks at (set again on an index read back)

    def add(self, keys: np.ndarray, vectors: np.ndarray, *, threads: int = 0) -> object:
        """Insert rows under keys."""

    def remove(self, key: int) -> object:
        """Drop one key."""

    def search(self, vector: np.ndarray, count: int, *, threads: int = 0) -> _Matches:
        """Nearest keys and distances."""

    def save(self) -> bytes:
        """The index serialised."""


@functools.cache
def usearch_index_class() -> Any:  # usearch ships no type hints; the wrapper below is typed over _Usearch
    """usearch's Index class, imported after the system C++ runtime is loaded.

    The usearch wheel links its own copy of libstdc++ statically and exports the locale facet ids as
    process-wide ("GNU unique") symbols. Loaded before the system libstdc++, those copies win, and a
    C++ library loaded later (llama.cpp) fails in `std::use_facet` with bad_cast: a game whose store
    opened before its model could not load the model. Loading the system runtime first makes its
    ids the ones everybody binds to, which is also the order in which both libraries already work.
    """
    try:
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        # elsewhere the runtime has another name; without one, nothing else in the process uses it either
        name = ctypes.util.find_library("stdc++")
        if name:
            ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
    from usearch.index import Index

    return Index


class IndexFileError(ValueError):
    """A serialised index could not be read or does not match the records."""


def rounded(vectors: np.ndarray) -> np.ndarray:
    """float32 rows rounded through half precision (the precision the store keeps)."""
    return np.asarray(vectors, dtype=np.float32).astype(ROW_DTYPE).astype(np.float32)


class VectorIndex:
    """usearch cosine index keyed by record id, plus a dense row matrix for exact scoring.

    The matrix lets owner-scoped recall take exact dot products over a few rows and lets the
    store re-score usearch candidates exactly, so both paths rank identically.
    """

    def __init__(self, dim: int, *, connectivity: int = 16, expansion_add: int = 128, expansion_search: int = 128):
        self.dim = int(dim)
        self._params = dict(connectivity=connectivity, expansion_add=expansion_add, expansion_search=expansion_search)
        self._index = self._new_index()
        self._matrix = np.zeros((1024, self.dim), dtype=np.float32)
        self._rows = 0
        self._row_of: dict[int, int] = {}

    def _new_index(self) -> _Usearch:
        """A fresh, empty usearch index with this wrapper's parameters."""
        Index = usearch_index_class()
        made: _Usearch = Index(ndim=self.dim, metric="cos", dtype="f16", **self._params)
        return made

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, key: int) -> bool:
        return key in self._row_of

    def keys(self) -> list[int]:
        """Every key in the index (insertion order)."""
        return list(self._row_of)

    def row(self, key: int) -> int:
        """Matrix row of a key."""
        return self._row_of[key]

    @property
    def matrix(self) -> np.ndarray:
        """The live rows (a view; rows of removed keys are left in place but never addressed)."""
        return self._matrix[: self._rows]

    def vector(self, key: int) -> np.ndarray:
        """The stored vector of one key."""
        row: np.ndarray = self._matrix[self._row_of[key]]
        return row

    def _grow(self, extra: int) -> None:
        need = self._rows + extra
        if need > len(self._matrix):
            size = max(need, 2 * len(self._matrix))
            bigger = np.zeros((size, self.dim), dtype=np.float32)
            bigger[: self._rows] = self._matrix[: self._rows]
            self._matrix = bigger

    def add(self, keys: list[int], vectors: np.ndarray) -> None:
        """Add keys with their (normalised) vectors; a key already present is replaced."""
        if not keys:
            return
        vectors = rounded(np.asarray(vectors, dtype=np.float32).reshape(len(keys), self.dim))
        for key in keys:
            if key in self._row_of:
                self.remove(key)
        self._grow(len(keys))
        start = self._rows
        self._matrix[start : start + len(keys)] = vectors
        for offset, key in enumerate(keys):
            self._row_of[key] = start + offset
        self._rows += len(keys)
        # One thread for the usual single add; all cores for bulk fills.
        self._index.add(np.asarray(keys, dtype=np.uint64), vectors, threads=1 if len(keys) < 64 else 0)

    def remove(self, key: int) -> None:
        """Forget a key (its matrix row becomes dead)."""
        if self._row_of.pop(key, None) is not None:
            self._index.remove(key)

    def search(self, vector: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Approximate nearest keys -> (keys int64, exact cosine similarities), best first."""
        size = len(self._row_of)
        if size == 0 or count <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        matches = self._index.search(np.asarray(vector, dtype=np.float32), min(count, size), threads=1)
        keys = np.asarray(matches.keys, dtype=np.int64)
        # Re-score from the matrix: thresholds must not depend on usearch's internal rounding.
        sims = self._matrix[[self._row_of[int(k)] for k in keys]] @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-sims, kind="stable")
        return keys[order], sims[order]

    def to_files(self, keys: list[int]) -> tuple[bytes, bytes]:
        """(usearch bytes, raw half-precision rows in the order of `keys`)."""
        if len(keys) == self._rows and keys == list(self._row_of):
            block = self._matrix[: self._rows]  # no dead rows, same order: no gather needed
        else:
            block = self._matrix[[self._row_of[k] for k in keys]]
        raw = block.astype(ROW_DTYPE).tobytes() if len(keys) else b""
        graph = bytes(self._index.save())
        _know(_graph_digest(graph))  # written by this process: reading it back needs no check in a child
        return graph, raw

    @classmethod
    def from_files(cls, index_data: bytes | None, raw: bytes | None, dim: int, keys: list[int]) -> tuple["VectorIndex", str | None]:
        """Restore from `to_files`; returns (index, notice) where notice says what had to be rebuilt.

        Raw rows are the source of truth; the usearch graph is rebuilt from them when missing or
        inconsistent. Raises IndexFileError when the raw rows are unusable too (re-embed then).
        """
        made = cls(dim)
        expected = len(keys) * dim * np.dtype(ROW_DTYPE).itemsize
        if raw is None or len(raw) != expected:
            if raw is None:
                raise IndexFileError("vector rows missing")
            raise IndexFileError(f"vector rows hold {len(raw)} bytes, {len(keys)} records need {expected}")
        vectors = np.frombuffer(raw, dtype=ROW_DTYPE).reshape(len(keys), dim).astype(np.float32)
        notice = None
        restored = None
        if index_data is None:
            notice = "usearch graph missing"
        else:
            digest = _graph_digest(index_data)
            if keys and not _known(digest):
                notice = searched_in_child(index_data, vectors)  # before usearch reads it in this process
            if notice is None:
                restored, notice = cls._restored(index_data, dim, keys)
            if restored is not None:
                _know(digest)
        made._grow(len(keys))
        made._matrix[: len(keys)] = vectors
        made._rows = len(keys)
        made._row_of = {int(k): i for i, k in enumerate(keys)}
        if restored is not None:
            restored.expansion_search = made._params["expansion_search"]
            made._index = restored
        elif keys:
            made._index.add(np.asarray(keys, dtype=np.uint64), vectors, threads=0)
        return made, notice

    @staticmethod
    def _restored(index_data: bytes, dim: int, keys: list[int]) -> tuple[_Usearch | None, str | None]:
        """The usearch graph read from its bytes when it matches the records (width, count, keys); else why not."""
        Index = usearch_index_class()
        try:
            restored = Index.restore(bytearray(index_data))
        except (RuntimeError, ValueError, TypeError) as exc:
            return None, f"unreadable usearch graph ({exc})"
        if restored is None:
            return None, "unreadable usearch graph"
        if restored.ndim != dim:
            return None, f"usearch graph is {restored.ndim} wide, expected {dim}"
        if len(restored) != len(keys):
            return None, f"usearch graph holds {len(restored)} keys, records need {len(keys)}"
        if len(keys) and not np.asarray(restored.contains(np.asarray(keys, dtype=np.uint64)), dtype=bool).all():
            return None, "usearch graph keys do not match the records"
        return restored, None

    @classmethod
    def build(cls, dim: int, keys: list[int], vectors: np.ndarray) -> "VectorIndex":
        """A new index holding these keys and vectors."""
        made = cls(dim)
        made.add(list(keys), vectors)
        return made


if __name__ == "__main__":
    sys.exit(_child_search(sys.argv[1]))
