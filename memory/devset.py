"""The labelled merge dev set: load statement pairs and measure merge precision and recall."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from memory.records import Base

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
DEFAULT_PATH = DATA / "merge_pairs.jsonl"
# The equivalence sets by category (paraphrase, reorder, voice, synonym, opposite, negation, actor,
# object, place, time, number): "dev" was looked at while building the guard and frames, "holdout"
# was written at the same time and scored only once they were done. "told_dev" and "told" are
# retellings (fronted time and place, verb synonyms, would not / refused, reporting frames, with
# hard negatives for each), written together before their rules: tuned on told_dev, told scored once.
SPLITS = {
    "dev": DATA / "equivalence_dev.jsonl",
    "holdout": DATA / "equivalence_holdout.jsonl",
    "told_dev": DATA / "equivalence_told_dev.jsonl",
    "told": DATA / "equivalence_told.jsonl",
    "legacy": DEFAULT_PATH,
}


class DevPair(Base, frozen=True):
    """Two statements and whether they describe the same event."""

    a: str
    b: str
    same: bool
    category: str


class DevSetError(ValueError):
    """The dev set file is missing or malformed (the message names file and line)."""


_LABELS = {"1": True, "true": True, "same": True, "yes": True, "0": False, "false": False, "different": False, "diff": False, "no": False}


def load_pairs(path: str | Path | None = None) -> list[DevPair]:
    """Pairs from a JSON-lines file (default: tests/data/merge_pairs.jsonl) or a .tsv file (label, a, b[, category])."""
    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DevSetError(f"{path}: cannot read the merge pair file ({exc})") from exc
    if path.suffix.lower() == ".tsv":
        return _tsv_pairs(path, lines)
    decoder = msgspec.json.Decoder(DevPair)
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            pairs.append(decoder.decode(line))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise DevSetError(f"{path}: line {number}: {exc}") from exc
    return pairs


def _tsv_pairs(path: Path, lines: list[str]) -> list[DevPair]:
    """Pairs from tab-separated lines: label (1/0, true/false, same/different), a, b, and an optional category."""
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.rstrip("\r").split("\t")
        if len(cells) not in (3, 4):
            raise DevSetError(f"{path}: line {number}: expected label, a, b[, category] separated by tabs, got {len(cells)} fields")
        label = cells[0].strip().lower()
        if label not in _LABELS:
            if number == 1 or (not pairs and label == "label"):  # a header row
                continue
            raise DevSetError(f"{path}: line {number}: field label: {cells[0]!r} is not 1/0, true/false, same/diff(erent)")
        a, b = cells[1].strip(), cells[2].strip()
        if not a or not b:
            raise DevSetError(f"{path}: line {number}: field {'a' if not a else 'b'}: empty statement")
        category = cells[3].strip() if len(cells) == 4 and cells[3].strip() else ("same" if _LABELS[label] else "different")
        pairs.append(DevPair(a=a, b=b, same=_LABELS[label], category=category))
    return pairs


def evaluate(
    pairs: list[DevPair],
    store_factory: Callable[[], Any] | None = None,
    settings: Any = None,
    embedder: Any = None,
    judge: Any = None,
) -> dict:
    """Deposit each pair into a fresh store by two owners; merged = both got the same record.

    Pass `store_factory` (returns an empty store), or settings/embedder/judge for a ConsensusStore.
    Returns precision, recall, confusion counts, merge rate per category and the false merges.
    """
    if store_factory is None:
        from memory.consensus import ConsensusStore

        if embedder is not None:
            embedder = _Prewarmed(embedder, [p.a for p in pairs] + [p.b for p in pairs])

        def store_factory() -> Any:
            """A fresh in-memory store with the given settings."""
            return ConsensusStore.open(None, embedder=embedder, settings=settings, judge=judge)

    tp = fp = fn = tn = 0
    by_category: dict[str, dict[str, int]] = {}
    false_merges: list[dict] = []
    missed: list[dict] = []
    for pair in pairs:
        store = store_factory()
        (first,) = store.remember("teller-a", [pair.a])
        (second,) = store.remember("teller-b", [pair.b])
        merged = first == second
        row = by_category.setdefault(pair.category, {"pairs": 0, "merged": 0, "tp": 0, "fp": 0, "fn": 0, "tn": 0})
        row["pairs"] += 1
        row["merged"] += merged
        row["tp" if pair.same and merged else "fn" if pair.same else "fp" if merged else "tn"] += 1
        if pair.same and merged:
            tp += 1
        elif pair.same:
            fn += 1
            missed.append({"a": pair.a, "b": pair.b, "category": pair.category})
        elif merged:
            fp += 1
            false_merges.append({"a": pair.a, "b": pair.b, "category": pair.category})
        else:
            tn += 1
    for name, row in by_category.items():
        same = [p for p in pairs if p.category == name]
        row.update(_category_scores(same, row))
    return {
        "pairs": len(pairs),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "by_category": by_category,
        "false_merges": false_merges,
        "missed": missed,
    }


class _Prewarmed:
    """An embedder that encodes every dev-set text in one batch up front, then serves rows from it."""

    def __init__(self, inner: Any, texts: list[str]):
        import numpy as np

        self.inner = inner
        self.dim = inner.dim
        unique = list(dict.fromkeys(texts))
        rows = np.asarray(inner.encode(unique), dtype=np.float32)
        self._rows = dict(zip(unique, rows))

    def encode(self, texts: list[str]):
        """Rows for texts, from the batch when there, else from the wrapped embedder."""
        import numpy as np

        missing = [t for t in texts if t not in self._rows]
        if missing:
            self._rows.update(zip(missing, np.asarray(self.inner.encode(missing), dtype=np.float32)))
        return np.stack([self._rows[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def _category_scores(pairs: list[DevPair], row: dict) -> dict:
    """Precision and recall within one category (None where the category has no such pairs)."""
    tp, fp, fn = row["tp"], row["fp"], row["fn"]
    return {
        "precision": tp / (tp + fp) if tp + fp else (None if not any(p.same for p in pairs) else 1.0),
        "recall": tp / (tp + fn) if tp + fn else None,
        # a category of non-pairs (opposite, number...) is scored by how many it kept apart
        "kept_apart": row["tn"] / (row["tn"] + fp) if row["tn"] + fp else None,
    }


def sweep(pairs: list[DevPair], embedder: Any, highs: list[float]) -> list[dict]:
    """Precision and recall of cosine + guard at each merge_high (no judge), from one encode call."""
    import numpy as np

    from memory import guard

    vectors = np.asarray(embedder.encode([p.a for p in pairs] + [p.b for p in pairs]), dtype=np.float32)
    n = len(pairs)
    cosines = (vectors[:n] * vectors[n:]).sum(axis=1)
    guarded = [guard.check(p.a, p.b).ok for p in pairs]
    rows = []
    for high in highs:
        tp = fp = fn = 0
        for pair, cos, ok in zip(pairs, cosines, guarded):
            merged = ok and cos >= high
            tp += pair.same and merged
            fp += (not pair.same) and merged
            fn += pair.same and not merged
        rows.append({
            "merge_high": high,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "cosine_only_precision": _cosine_only_precision(pairs, cosines, high),
        })
    return rows


def _cosine_only_precision(pairs: list[DevPair], cosines, high: float) -> float:
    tp = sum(1 for p, c in zip(pairs, cosines) if p.same and c >= high)
    fp = sum(1 for p, c in zip(pairs, cosines) if not p.same and c >= high)
    return tp / (tp + fp) if tp + fp else 1.0
